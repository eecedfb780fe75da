//! Schema migrations, embedded in the binary: `migrations/postgres` and
//! `migrations/sqlite` hold the same versions, one SQL dialect each.

use diesel::RunQueryDsl;
use diesel::migration::MigrationVersion;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

use crate::connection::DbConnection;
use crate::error::StorageError;

/// The PostgreSQL migrations.
pub const POSTGRES: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");
/// The SQLite migrations.
pub const SQLITE: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");

/// The key of the PostgreSQL advisory lock held while migrating, so that replicas
/// starting together migrate one at a time.
pub const ADVISORY_LOCK_KEY: i64 = 0x0072_6963_736d_6967; // "ricsmig"

/// Runs the pending migrations and returns the versions applied, then the data steps
/// SQL cannot do alike on both backends ([`complete_data`]), under the same lock.
///
/// # Errors
/// [`StorageError::Migration`] when a migration or a data step fails (the failed
/// migration is rolled back).
pub fn run_pending(conn: &mut DbConnection) -> Result<Vec<String>, StorageError> {
    let versions = match conn {
        DbConnection::Postgresql(_) => {
            diesel::sql_query(format!("SELECT pg_advisory_lock({ADVISORY_LOCK_KEY})"))
                .execute(conn)?;
            let result = migrate_and_complete(conn);
            let unlocked =
                diesel::sql_query(format!("SELECT pg_advisory_unlock({ADVISORY_LOCK_KEY})"))
                    .execute(conn);
            let versions = result?;
            unlocked?;
            versions
        }
        DbConnection::Sqlite(_) => migrate_and_complete(conn)?,
    };
    Ok(versions)
}

fn migrate_and_complete(conn: &mut DbConnection) -> Result<Vec<String>, StorageError> {
    let versions = match conn {
        DbConnection::Postgresql(pg) => pg.run_pending_migrations(POSTGRES).map(versions_text),
        DbConnection::Sqlite(sqlite) => sqlite.run_pending_migrations(SQLITE).map(versions_text),
    }
    .map_err(|e| StorageError::Migration(e.to_string()))?;
    complete_data(conn)?;
    Ok(versions)
}

/// The data steps of migrations that need Rust: the name trigrams of the documents
/// recorded before display names (`2026-11-24-000011_document_display_name`). Each is
/// a no-op once done, and resumes where it stopped.
///
/// # Errors
/// [`StorageError::Migration`] naming the step.
pub fn complete_data(conn: &mut DbConnection) -> Result<(), StorageError> {
    crate::documents::write_pending_name_trigrams(conn)
        .map(|_| ())
        .map_err(|e| StorageError::Migration(format!("document name trigrams: {e}")))
}

/// The versions not applied yet.
///
/// # Errors
/// [`StorageError::Migration`] when the migrations table cannot be read.
pub fn pending(conn: &mut DbConnection) -> Result<Vec<String>, StorageError> {
    let pending = match conn {
        DbConnection::Postgresql(pg) => pg
            .pending_migrations(POSTGRES)
            .map(|m| m.iter().map(|m| m.name().version().to_string()).collect()),
        DbConnection::Sqlite(sqlite) => sqlite
            .pending_migrations(SQLITE)
            .map(|m| m.iter().map(|m| m.name().version().to_string()).collect()),
    };
    pending.map_err(|e| StorageError::Migration(e.to_string()))
}

/// Reverts the last applied migration and returns its version (for tests and
/// operators rolling back).
///
/// # Errors
/// [`StorageError::Migration`] when the revert fails.
pub fn revert_last(conn: &mut DbConnection) -> Result<String, StorageError> {
    let version = match conn {
        DbConnection::Postgresql(pg) => pg.revert_last_migration(POSTGRES),
        DbConnection::Sqlite(sqlite) => sqlite.revert_last_migration(SQLITE),
    };
    version
        .map(|v| v.to_string())
        .map_err(|e| StorageError::Migration(e.to_string()))
}

/// Applies the next pending migration only, returning its version.
///
/// # Errors
/// [`StorageError::Migration`] when nothing is pending or the migration fails.
pub fn run_next(conn: &mut DbConnection) -> Result<String, StorageError> {
    let boxed =
        |e: Box<dyn std::error::Error + Send + Sync>| StorageError::Migration(e.to_string());
    let version = match conn {
        DbConnection::Postgresql(pg) => {
            let next = pg
                .pending_migrations(POSTGRES)
                .map_err(boxed)?
                .into_iter()
                .next();
            let next =
                next.ok_or_else(|| StorageError::Migration("no pending migration".into()))?;
            pg.run_migration(&*next).map_err(boxed)?.to_string()
        }
        DbConnection::Sqlite(sqlite) => {
            let next = sqlite
                .pending_migrations(SQLITE)
                .map_err(boxed)?
                .into_iter()
                .next();
            let next =
                next.ok_or_else(|| StorageError::Migration("no pending migration".into()))?;
            sqlite.run_migration(&*next).map_err(boxed)?.to_string()
        }
    };
    Ok(version)
}

fn versions_text(versions: Vec<MigrationVersion<'_>>) -> Vec<String> {
    versions.iter().map(ToString::to_string).collect()
}
