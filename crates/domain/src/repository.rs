//! Types shared by every repository port: the error contract and idempotency records.

use crate::error::{Code, Error};

/// How a repository call can fail. Every repository method documents which of these it
/// returns; services turn them into API errors with the resource's name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RepositoryError {
    /// The addressed row does not exist in the caller's tenant.
    #[error("not found")]
    NotFound,
    /// A row with the same key exists (a soft-deleted one counts).
    #[error("already exists")]
    AlreadyExists,
    /// The row changed since it was read (revision mismatch or serialization failure).
    #[error("the stored version changed concurrently")]
    Conflict,
    /// The database is unreachable, busy or out of connections: retry later.
    #[error("storage unavailable: {0}")]
    Unavailable(String),
    /// Anything else; the text is for logs only.
    #[error("storage failure: {0}")]
    Internal(String),
}

impl RepositoryError {
    /// The API error for a failure on the resource named `resource`.
    pub fn for_resource(self, resource: &str) -> Error {
        match self {
            RepositoryError::NotFound => Error::not_found(resource),
            RepositoryError::AlreadyExists => Error::already_exists(resource),
            RepositoryError::Conflict => Error::concurrent_modification(resource),
            RepositoryError::Unavailable(detail) => {
                Error::new(Code::Unavailable, "STORAGE_UNAVAILABLE", detail)
            }
            RepositoryError::Internal(detail) => Error::internal(detail),
        }
    }
}

impl From<RepositoryError> for Error {
    fn from(error: RepositoryError) -> Error {
        match error {
            RepositoryError::Unavailable(detail) => {
                Error::new(Code::Unavailable, "STORAGE_UNAVAILABLE", detail)
            }
            other => Error::internal(other.to_string()),
        }
    }
}

/// An idempotency key (AIP-155): a request id bound to the method, a fingerprint of the
/// request and the resource it produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyKey {
    /// The client's `requestId`, a UUID in canonical text.
    pub request_id: String,
    /// The method, such as `entities.create`.
    pub method: &'static str,
    /// Hex SHA-256 of the request's parameters and body.
    pub fingerprint: String,
    /// The resource the first request produced.
    pub resource_name: String,
}

/// What an idempotent create did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CreateOutcome {
    /// The resource was created.
    Created,
    /// The request id was used before; nothing was written.
    Replayed {
        /// The method the key was first used with.
        method: String,
        /// The fingerprint of the first request.
        fingerprint: String,
        /// The resource the first request produced.
        resource_name: String,
    },
}
