//! What the activity services need from storage.

use async_trait::async_trait;

use super::model::{ActivityLog, ActivityLogType};
use crate::event::NewEvent;
use crate::list::{ListQuery, Page};
use crate::principal::TenantId;
use crate::repository::{CreateOutcome, IdempotencyKey, RepositoryError, ResourceStore};
use crate::time::Timestamp;

/// Stores activity log types, with their events: the standard store. A purged type's
/// logs keep its name.
pub trait ActivityLogTypeRepository: ResourceStore<ActivityLogType> {}

impl<T: ResourceStore<ActivityLogType> + ?Sized> ActivityLogTypeRepository for T {}

/// A mocked activity log type store.
#[cfg(any(test, feature = "mocks"))]
pub type MockActivityLogTypeRepository = crate::repository::MockResourceStore<ActivityLogType>;

/// Stores activity logs and which entities each names, with their events.
///
/// Every method takes the caller's tenant and never sees another tenant's rows. Each
/// mutating method writes the given events in the same transaction as the change.
/// Any method may fail with [`RepositoryError::Unavailable`] (retry later) or
/// [`RepositoryError::Internal`]; the other errors are listed per method. Erasing an
/// entity erases the logs naming it (the storage adapter does it in the erasure's
/// transaction).
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait ActivityLogRepository: Send + Sync {
    /// Stores a new log with the entities it names. With an idempotency key: when the
    /// key's request id was used before, writes nothing and returns
    /// [`CreateOutcome::Replayed`]; otherwise stores the key with the log.
    ///
    /// # Errors
    /// [`RepositoryError::AlreadyExists`] when the id is taken, by a soft-deleted log
    /// too; [`RepositoryError::NotFound`] when a named entity no longer exists;
    /// [`RepositoryError::Conflict`] when a concurrent request with the same request id
    /// stored its key first (calling again then replays it).
    async fn create<'a>(
        &self,
        tenant: &TenantId,
        log: &ActivityLog,
        key: Option<&'a IdempotencyKey>,
        events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError>;

    /// The log with `id`, deleted or not; `None` when there is none.
    ///
    /// # Errors
    /// Only the common errors.
    async fn get(
        &self,
        tenant: &TenantId,
        id: &str,
    ) -> Result<Option<ActivityLog>, RepositoryError>;

    /// The logs among `ids` that exist, deleted or not, in any order.
    ///
    /// # Errors
    /// Only the common errors.
    async fn get_many(
        &self,
        tenant: &TenantId,
        ids: &[String],
    ) -> Result<Vec<ActivityLog>, RepositoryError>;

    /// One page of the logs naming the entity `entity_id`, matching the query.
    ///
    /// # Errors
    /// Only the common errors.
    async fn list_for_entity(
        &self,
        tenant: &TenantId,
        entity_id: &str,
        query: &ListQuery,
    ) -> Result<Page<ActivityLog>, RepositoryError>;

    /// Stores the lifecycle of `log` (revision, delete and purge times: the rest of a
    /// log never changes) if its stored revision is still `expected_revision`.
    ///
    /// # Errors
    /// [`RepositoryError::NotFound`] when the log is gone;
    /// [`RepositoryError::Conflict`] when its revision changed.
    async fn update_lifecycle(
        &self,
        tenant: &TenantId,
        log: &ActivityLog,
        expected_revision: i64,
        events: &[NewEvent],
    ) -> Result<(), RepositoryError>;

    /// Soft-deleted logs whose purge time is before `now`, across tenants, oldest
    /// first, at most `limit`.
    ///
    /// # Errors
    /// Only the common errors.
    async fn find_purge_due(
        &self,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<(TenantId, String)>, RepositoryError>;

    /// Removes the log `id` if it is soft-deleted with a purge time before `now`
    /// (checked in the removing transaction, so a log undeleted meanwhile stays), then
    /// writes `events`.
    ///
    /// # Errors
    /// [`RepositoryError::NotFound`] when the log is gone or not due.
    async fn purge(
        &self,
        tenant: &TenantId,
        id: &str,
        now: Timestamp,
        events: &[NewEvent],
    ) -> Result<(), RepositoryError>;
}
