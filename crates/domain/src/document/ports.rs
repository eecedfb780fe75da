//! The identity document repository port.

use async_trait::async_trait;

use super::model::Document;
use crate::event::NewEvent;
use crate::list::{ListQuery, Page};
use crate::principal::TenantId;
use crate::repository::{CreateOutcome, IdempotencyKey, RepositoryError};
use crate::time::Timestamp;

/// Stores identity documents, with their events.
///
/// Every method takes the caller's tenant and never sees another tenant's rows. Each
/// mutating method writes the given events in the same transaction as the change.
/// Any method may fail with [`RepositoryError::Unavailable`] (retry later) or
/// [`RepositoryError::Internal`]; the other errors are listed per method. An entity's
/// erasure removes its documents (the entity repository's `hard_delete`).
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait DocumentRepository: Send + Sync {
    /// Stores a new document. With an idempotency key: when the key's request id was
    /// used before, writes nothing and returns [`CreateOutcome::Replayed`].
    ///
    /// # Errors
    /// [`RepositoryError::AlreadyExists`] when the id is taken (by a soft-deleted
    /// document too); [`RepositoryError::NotFound`] when its entity is not stored
    /// (erased since it was checked); [`RepositoryError::Conflict`] when a concurrent
    /// request with the same request id stored its key first.
    async fn create<'a>(
        &self,
        tenant: &TenantId,
        document: &Document,
        key: Option<&'a IdempotencyKey>,
        events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError>;

    /// The document with `id`, deleted or not; `None` when there is none. This is how
    /// a job of the tenant reads the document it verifies.
    ///
    /// # Errors
    /// Only the common errors.
    async fn get(&self, tenant: &TenantId, id: &str) -> Result<Option<Document>, RepositoryError>;

    /// One page of the documents matching the query: only those of the entity named
    /// `entity` (`entities/{entity}`), when given.
    ///
    /// # Errors
    /// Only the common errors.
    async fn list<'a>(
        &self,
        tenant: &TenantId,
        entity: Option<&'a str>,
        query: &ListQuery,
    ) -> Result<Page<Document>, RepositoryError>;

    /// Replaces the stored document with `document` if its stored revision is still
    /// `expected_revision`.
    ///
    /// # Errors
    /// [`RepositoryError::NotFound`] when the document is gone;
    /// [`RepositoryError::Conflict`] when its revision changed.
    async fn update(
        &self,
        tenant: &TenantId,
        document: &Document,
        expected_revision: i64,
        events: &[NewEvent],
    ) -> Result<(), RepositoryError>;

    /// Soft-deleted documents whose purge time is before `now`, across tenants,
    /// oldest first, at most `limit`.
    ///
    /// # Errors
    /// Only the common errors.
    async fn find_purge_due(
        &self,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<(TenantId, String)>, RepositoryError>;

    /// Removes the document if it is still soft-deleted with a purge time before
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
