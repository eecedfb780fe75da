//! Databases for tests: each test gets its own, so tests run in parallel.
//!
//! SQLite: a fresh file in a temporary folder. PostgreSQL: a fresh schema in the
//! database named by `RICS_TEST_DATABASE_URL` (`make test` sets it), selected through
//! the connection's `search_path`, dropped when the test ends. Without that variable
//! PostgreSQL tests fail with a message saying how to run them: nothing is skipped.
//!
//! A migrated database is made without running the migrations for each test: on SQLite
//! it is a copy of a file migrated once per process, on PostgreSQL the schema comes
//! from one script, every migration's up.sql with the rows diesel records for them
//! (rendered by build.rs), in one round trip. Either way the schema and the migration
//! records are the ones running the migrations gives (the storage tests prove it), so
//! nothing is pending and the server's start-up migration step applies nothing.

use std::sync::LazyLock;

use diesel::RunQueryDsl;
use diesel::connection::SimpleConnection;
use diesel::migration::CREATE_MIGRATIONS_TABLE;

use crate::connection::{Backend, DatabaseUrl, connect};
use crate::database::Database;
use crate::migrations;
use crate::{PoolOptions, StorageError};

/// The variable naming the PostgreSQL server tests use.
pub const TEST_DATABASE_URL: &str = "RICS_TEST_DATABASE_URL";

/// The migrations of `migrations/postgres` in order, each followed by its row of
/// `__diesel_schema_migrations` (see build.rs); run after [`CREATE_MIGRATIONS_TABLE`].
const POSTGRES_SCHEMA: &str = include_str!(concat!(env!("OUT_DIR"), "/postgres_schema.sql"));

/// The bytes of a SQLite database file on which every migration ran, made once per
/// process (the first test to need it waits for it; a failure fails every such test).
static SQLITE_TEMPLATE: LazyLock<Vec<u8>> = LazyLock::new(migrated_sqlite_file);

/// Migrates a new SQLite file and reads it back. The migrations' connection runs in
/// the rollback journal mode and is closed before the read, so the file holds all.
fn migrated_sqlite_file() -> Vec<u8> {
    let folder = tempfile::tempdir().unwrap_or_else(|e| panic!("no temporary folder: {e}"));
    let path = folder.path().join("template.db");
    let url = DatabaseUrl::parse(&format!("sqlite://{}", path.display()))
        .unwrap_or_else(|e| panic!("{e}"));
    {
        let mut conn = connect(&url)
            .unwrap_or_else(|e| panic!("cannot open the SQLite template database: {e}"));
        migrations::run_pending(&mut conn).unwrap_or_else(|e| panic!("migrations failed: {e}"));
    }
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// A database that exists for the duration of one test.
pub struct TestDatabase {
    url: String,
    backend: Backend,
    cleanup: Option<(String, String)>,
    _folder: Option<tempfile::TempDir>,
}

impl std::fmt::Debug for TestDatabase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestDatabase")
            .field("backend", &self.backend)
            .finish()
    }
}

/// Panics with a message that says how to provide PostgreSQL.
fn no_postgres(detail: &str) -> ! {
    panic!(
        "PostgreSQL tests need {TEST_DATABASE_URL} (e.g. postgres://postgres@127.0.0.1:5432/postgres); \
         `make test` finds or starts a server and sets it. {detail}"
    )
}

impl TestDatabase {
    /// A new, empty, migrated database of `backend`.
    ///
    /// # Panics
    /// When the database cannot be created (tests want to fail loudly).
    pub fn new(backend: Backend) -> TestDatabase {
        match backend {
            Backend::Sqlite => {
                let (db, path) = TestDatabase::sqlite();
                std::fs::write(&path, &*SQLITE_TEMPLATE)
                    .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
                db
            }
            Backend::Postgres => TestDatabase::postgres(true),
        }
    }

    /// A new database of `backend` without any migration applied.
    ///
    /// # Panics
    /// When the database cannot be created.
    pub fn empty(backend: Backend) -> TestDatabase {
        match backend {
            Backend::Sqlite => TestDatabase::sqlite().0,
            Backend::Postgres => TestDatabase::postgres(false),
        }
    }

    /// A database file yet to be written in a new temporary folder, and its path.
    fn sqlite() -> (TestDatabase, std::path::PathBuf) {
        let folder = tempfile::tempdir().unwrap_or_else(|e| panic!("no temporary folder: {e}"));
        let path = folder.path().join("rics.db");
        let db = TestDatabase {
            url: format!("sqlite://{}", path.display()),
            backend: Backend::Sqlite,
            cleanup: None,
            _folder: Some(folder),
        };
        (db, path)
    }

    /// A new schema, `migrated` or empty. A migrated one is created and filled by one
    /// script, one implicit transaction (a failure leaves no schema behind), then
    /// completed ([`migrations::complete_data`], which finds nothing to do), on the
    /// connection that created it.
    fn postgres(migrated: bool) -> TestDatabase {
        let base =
            std::env::var(TEST_DATABASE_URL).unwrap_or_else(|_| no_postgres("It is not set."));
        let schema = format!("test_{}", uuid_like());
        let parsed = DatabaseUrl::parse(&base).unwrap_or_else(|e| no_postgres(&e.to_string()));
        let mut admin = connect(&parsed).unwrap_or_else(|e| no_postgres(&e.to_string()));
        let script = if migrated {
            format!(
                "CREATE SCHEMA {schema}; SET search_path TO {schema};\n\
                 {CREATE_MIGRATIONS_TABLE}\n{POSTGRES_SCHEMA}"
            )
        } else {
            format!("CREATE SCHEMA {schema};")
        };
        admin
            .batch_execute(&script)
            .unwrap_or_else(|e| panic!("cannot create schema {schema}: {e}"));
        let separator = if base.contains('?') { '&' } else { '?' };
        let url = format!("{base}{separator}options=-csearch_path%3D{schema}");
        // Made before the data step, so that a failure there drops the schema.
        let db = TestDatabase {
            url,
            backend: Backend::Postgres,
            cleanup: Some((base, schema)),
            _folder: None,
        };
        if migrated {
            migrations::complete_data(&mut admin)
                .unwrap_or_else(|e| panic!("migrations failed: {e}"));
        }
        db
    }

    /// The URL to give the code under test.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The backend.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// A pooled [`Database`] on it.
    ///
    /// # Errors
    /// When it cannot be opened.
    pub fn open(&self) -> Result<Database, StorageError> {
        Database::open(
            &self.url,
            PoolOptions {
                max_size: 4,
                ..PoolOptions::default()
            },
        )
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        if let Some((base, schema)) = self.cleanup.take()
            && let Ok(parsed) = DatabaseUrl::parse(&base)
            && let Ok(mut admin) = connect(&parsed)
        {
            let _ = diesel::sql_query(format!("DROP SCHEMA IF EXISTS {schema} CASCADE"))
                .execute(&mut admin);
        }
    }
}

/// 24 random hex characters, for schema names.
fn uuid_like() -> String {
    let mut bytes = [0_u8; 12];
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes.copy_from_slice(&nanos.to_le_bytes()[..12]);
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
