//! The workspace repository port.

use async_trait::async_trait;

use super::model::Workspace;
use crate::event::NewEvent;
use crate::list::{ListQuery, Page};
use crate::principal::TenantId;
use crate::repository::{CreateOutcome, IdempotencyKey, RepositoryError};
use crate::time::Timestamp;

/// Stores workspaces, with their events.
///
/// Every method takes the caller's tenant and never sees another tenant's rows. Each
/// mutating method writes the given events in the same transaction as the change.
/// Any method may fail with [`RepositoryError::Unavailable`] (retry later) or
/// [`RepositoryError::Internal`]; the other errors are listed per method.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait WorkspaceRepository: Send + Sync {
    /// Stores a new workspace. With an idempotency key: when the key's request id was
    /// used before, writes nothing and returns [`CreateOutcome::Replayed`].
    ///
    /// # Errors
    /// [`RepositoryError::AlreadyExists`] when the id is taken (by a soft-deleted
    /// workspace too); [`RepositoryError::Conflict`] when a concurrent request with the
    /// same request id stored its key first.
    async fn create<'a>(
        &self,
        tenant: &TenantId,
        workspace: &Workspace,
        key: Option<&'a IdempotencyKey>,
        events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError>;

    /// The workspace with `id`, deleted or not; `None` when there is none.
    ///
    /// # Errors
    /// Only the common errors.
    async fn get(&self, tenant: &TenantId, id: &str) -> Result<Option<Workspace>, RepositoryError>;

    /// One page of workspaces matching the query.
    ///
    /// # Errors
    /// Only the common errors.
    async fn list(
        &self,
        tenant: &TenantId,
        query: &ListQuery,
    ) -> Result<Page<Workspace>, RepositoryError>;

    /// Replaces the stored workspace with `workspace` if its stored revision is still
    /// `expected_revision`.
    ///
    /// # Errors
    /// [`RepositoryError::NotFound`] when the workspace is gone;
    /// [`RepositoryError::Conflict`] when its revision changed.
    async fn update(
        &self,
        tenant: &TenantId,
        workspace: &Workspace,
        expected_revision: i64,
        events: &[NewEvent],
    ) -> Result<(), RepositoryError>;

    /// Soft-deleted workspaces whose purge time is before `now`, across tenants,
    /// oldest first, at most `limit`.
    ///
    /// # Errors
    /// Only the common errors.
    async fn find_purge_due(
        &self,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<(TenantId, String)>, RepositoryError>;

    /// Removes the workspace and its notes if it is still soft-deleted with a purge
    /// time before `now`, with `events`.
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
