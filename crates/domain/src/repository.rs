//! What every repository port shares: the error contract, idempotency records, and
//! the store of a resource's standard methods.

use async_trait::async_trait;

use crate::error::{Code, Error};
use crate::event::NewEvent;
use crate::list::{ListQuery, Page};
use crate::principal::TenantId;
use crate::time::Timestamp;

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

/// A resource written in the transaction of another write, with the events that
/// record it: the activity log a form's submit writes, the records a job run writes
/// with its end. Checked and completed (named, begun, or for a change given its next
/// revision) by the service that made it.
#[derive(Debug, Clone, PartialEq)]
pub struct Staged<R> {
    /// The resource as it is to be stored.
    pub resource: R,
    /// Its events.
    pub events: Vec<NewEvent>,
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

/// Stores one kind of resource `R` for its standard methods (AIP-131 to 135, 164), with
/// its events. A resource's own port extends it with what is special about it, and
/// documents what its methods add to these contracts (a parent that must exist, rows
/// removed with it).
///
/// Every method takes the caller's tenant and never sees another tenant's rows. Each
/// mutating method writes the given events in the same transaction as the change.
/// Any method may fail with [`RepositoryError::Unavailable`] (retry later) or
/// [`RepositoryError::Internal`]; the other errors are listed per method.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait ResourceStore<R: Send + Sync + 'static>: Send + Sync {
    /// Stores a new resource. With an idempotency key: when the key's request id was
    /// used before, writes nothing and returns [`CreateOutcome::Replayed`].
    ///
    /// # Errors
    /// [`RepositoryError::AlreadyExists`] when the id is taken (by a soft-deleted
    /// resource too); [`RepositoryError::Conflict`] when a concurrent request with the
    /// same request id stored its key first.
    async fn create<'a>(
        &self,
        tenant: &TenantId,
        resource: &R,
        key: Option<&'a IdempotencyKey>,
        events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError>;

    /// The resource with `id`, deleted or not; `None` when there is none. A resource
    /// under a parent, whose id is unique only within it, is addressed by its name
    /// (`entities/{entity}/notes/{note}`) instead.
    ///
    /// # Errors
    /// Only the common errors.
    async fn get(&self, tenant: &TenantId, id: &str) -> Result<Option<R>, RepositoryError>;

    /// One page of the resources matching the query: only those of `parent` (a
    /// resource name), when given and the resource has parents.
    ///
    /// # Errors
    /// Only the common errors.
    async fn list<'a>(
        &self,
        tenant: &TenantId,
        parent: Option<&'a str>,
        query: &ListQuery,
    ) -> Result<Page<R>, RepositoryError>;

    /// Replaces the stored resource with `resource` if its stored revision is still
    /// `expected_revision`.
    ///
    /// # Errors
    /// [`RepositoryError::NotFound`] when it is gone; [`RepositoryError::Conflict`]
    /// when its revision changed.
    async fn update(
        &self,
        tenant: &TenantId,
        resource: &R,
        expected_revision: i64,
        events: &[NewEvent],
    ) -> Result<(), RepositoryError>;

    /// Removes the stored `resource` if its stored revision is still the one it has,
    /// with `events`: the Delete of a resource that is removed when deleted (never
    /// soft-deleted).
    ///
    /// # Errors
    /// [`RepositoryError::NotFound`] when it is gone; [`RepositoryError::Conflict`]
    /// when its revision changed; [`RepositoryError::Internal`] for a soft-deleted
    /// kind of resource, which is never removed so.
    async fn remove(
        &self,
        tenant: &TenantId,
        resource: &R,
        events: &[NewEvent],
    ) -> Result<(), RepositoryError>;

    /// Soft-deleted resources whose purge time is before `now`, across tenants,
    /// oldest first, at most `limit`.
    ///
    /// # Errors
    /// Only the common errors.
    async fn find_purge_due(
        &self,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<(TenantId, String)>, RepositoryError>;

    /// Removes the resource if it is still soft-deleted with a purge time before
    /// `now`, with `events`.
    ///
    /// # Errors
    /// [`RepositoryError::NotFound`] when it is gone or no longer due.
    async fn purge(
        &self,
        tenant: &TenantId,
        id: &str,
        now: Timestamp,
        events: &[NewEvent],
    ) -> Result<(), RepositoryError>;
}
