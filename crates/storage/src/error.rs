//! Storage errors and their translation into the repository error contract.

use diesel::result::{DatabaseErrorKind, Error as DieselError};
use rics_domain::repository::RepositoryError;

/// Failures of the storage adapter outside repository calls (set-up, migrations).
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// The configuration is wrong (bad URL, unwritable folder).
    #[error("database configuration: {0}")]
    Configuration(String),
    /// The database cannot be reached or is busy.
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// A migration failed.
    #[error("migration failed: {0}")]
    Migration(String),
    /// Any other database failure.
    #[error("database failure: {0}")]
    Database(#[from] DieselError),
}

/// Translates a Diesel error into the repository contract: unique violations are
/// `AlreadyExists`, foreign-key violations `NotFound` (a referenced row vanished),
/// serialization failures `Conflict`, busy or closed connections `Unavailable`.
pub fn repository_error(error: DieselError) -> RepositoryError {
    match &error {
        DieselError::NotFound => RepositoryError::NotFound,
        DieselError::DatabaseError(kind, info) => match kind {
            DatabaseErrorKind::UniqueViolation => RepositoryError::AlreadyExists,
            DatabaseErrorKind::ForeignKeyViolation => RepositoryError::NotFound,
            DatabaseErrorKind::SerializationFailure => RepositoryError::Conflict,
            DatabaseErrorKind::ClosedConnection => {
                RepositoryError::Unavailable("the database connection closed".into())
            }
            _ if is_busy(info.message()) => {
                RepositoryError::Unavailable("the database is busy".into())
            }
            _ => RepositoryError::Internal(error.to_string()),
        },
        _ => RepositoryError::Internal(error.to_string()),
    }
}

/// The error of a write that matched no row at the expected revision: `stored` is
/// the row as it is now, if any. Gone is NOT_FOUND; still there, it changed
/// meanwhile: CONFLICT.
pub(crate) fn revision_missed<T>(stored: Option<T>) -> RepositoryError {
    match stored {
        None => RepositoryError::NotFound,
        Some(_) => RepositoryError::Conflict,
    }
}

/// Whether a database message reports SQLite's `SQLITE_BUSY` / `SQLITE_LOCKED`.
fn is_busy(message: &str) -> bool {
    message.contains("database is locked") || message.contains("database table is locked")
}

impl From<StorageError> for RepositoryError {
    fn from(error: StorageError) -> RepositoryError {
        match error {
            StorageError::Unavailable(detail) => RepositoryError::Unavailable(detail),
            StorageError::Database(e) => repository_error(e),
            other => RepositoryError::Internal(other.to_string()),
        }
    }
}
