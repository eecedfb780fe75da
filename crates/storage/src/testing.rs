//! Databases for tests: each test gets its own, so tests run in parallel.
//!
//! SQLite: a fresh file in a temporary folder. PostgreSQL: a fresh schema in the
//! database named by `RICS_TEST_DATABASE_URL` (`make test` sets it), selected through
//! the connection's `search_path`, dropped when the test ends. Without that variable
//! PostgreSQL tests fail with a message saying how to run them: nothing is skipped.

use diesel::RunQueryDsl;

use crate::connection::{Backend, DatabaseUrl, connect};
use crate::database::Database;
use crate::migrations;
use crate::{PoolOptions, StorageError};

/// The variable naming the PostgreSQL server tests use.
pub const TEST_DATABASE_URL: &str = "RICS_TEST_DATABASE_URL";

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
        let db = match backend {
            Backend::Sqlite => TestDatabase::sqlite(),
            Backend::Postgres => TestDatabase::postgres(),
        };
        let mut conn = connect(&DatabaseUrl::parse(&db.url).unwrap_or_else(|e| panic!("{e}")))
            .unwrap_or_else(|e| panic!("cannot connect to the test database: {e}"));
        migrations::run_pending(&mut conn).unwrap_or_else(|e| panic!("migrations failed: {e}"));
        db
    }

    /// A new database of `backend` without any migration applied.
    ///
    /// # Panics
    /// When the database cannot be created.
    pub fn empty(backend: Backend) -> TestDatabase {
        match backend {
            Backend::Sqlite => TestDatabase::sqlite(),
            Backend::Postgres => TestDatabase::postgres(),
        }
    }

    fn sqlite() -> TestDatabase {
        let folder = tempfile::tempdir().unwrap_or_else(|e| panic!("no temporary folder: {e}"));
        let url = format!("sqlite://{}", folder.path().join("rics.db").display());
        TestDatabase {
            url,
            backend: Backend::Sqlite,
            cleanup: None,
            _folder: Some(folder),
        }
    }

    fn postgres() -> TestDatabase {
        let base =
            std::env::var(TEST_DATABASE_URL).unwrap_or_else(|_| no_postgres("It is not set."));
        let schema = format!("test_{}", uuid_like());
        let parsed = DatabaseUrl::parse(&base).unwrap_or_else(|e| no_postgres(&e.to_string()));
        let mut admin = connect(&parsed).unwrap_or_else(|e| no_postgres(&e.to_string()));
        diesel::sql_query(format!("CREATE SCHEMA {schema}"))
            .execute(&mut admin)
            .unwrap_or_else(|e| panic!("cannot create schema {schema}: {e}"));
        let separator = if base.contains('?') { '&' } else { '?' };
        let url = format!("{base}{separator}options=-csearch_path%3D{schema}");
        TestDatabase {
            url,
            backend: Backend::Postgres,
            cleanup: Some((base, schema)),
            _folder: None,
        }
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
