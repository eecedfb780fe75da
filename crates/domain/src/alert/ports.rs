//! The alert type and alert repository ports.

use async_trait::async_trait;

use super::model::{Alert, AlertType};
use crate::event::NewEvent;
use crate::list::{ListQuery, Page};
use crate::principal::TenantId;
use crate::repository::{CreateOutcome, IdempotencyKey, RepositoryError};
use crate::time::Timestamp;

/// Reads alert types. They are written with their tenant (see
/// [`crate::tenant::ports::TenantPlan`]) and by the migration that seeds existing
/// tenants; the API does not change them.
///
/// Every method takes the caller's tenant and never sees another tenant's rows. Any
/// method may fail with [`RepositoryError::Unavailable`] (retry later) or
/// [`RepositoryError::Internal`].
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait AlertTypeRepository: Send + Sync {
    /// The alert type with `id`; `None` when there is none.
    ///
    /// # Errors
    /// Only the common errors.
    async fn get(&self, tenant: &TenantId, id: &str) -> Result<Option<AlertType>, RepositoryError>;

    /// One page of alert types matching the query.
    ///
    /// # Errors
    /// Only the common errors.
    async fn list(
        &self,
        tenant: &TenantId,
        query: &ListQuery,
    ) -> Result<Page<AlertType>, RepositoryError>;
}

/// Stores alerts, with their events.
///
/// Every method takes the caller's tenant and never sees another tenant's rows. Each
/// mutating method writes the given events in the same transaction as the change.
/// Any method may fail with [`RepositoryError::Unavailable`] (retry later) or
/// [`RepositoryError::Internal`]; the other errors are listed per method.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait AlertRepository: Send + Sync {
    /// Stores a new alert. With an idempotency key: when the key's request id was used
    /// before, writes nothing and returns [`CreateOutcome::Replayed`].
    ///
    /// # Errors
    /// [`RepositoryError::AlreadyExists`] when the id is taken (by a soft-deleted alert
    /// too); [`RepositoryError::Conflict`] when a concurrent request with the same
    /// request id stored its key first.
    async fn create<'a>(
        &self,
        tenant: &TenantId,
        alert: &Alert,
        key: Option<&'a IdempotencyKey>,
        events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError>;

    /// The alert with `id`, deleted or not; `None` when there is none.
    ///
    /// # Errors
    /// Only the common errors.
    async fn get(&self, tenant: &TenantId, id: &str) -> Result<Option<Alert>, RepositoryError>;

    /// One page of alerts matching the query.
    ///
    /// # Errors
    /// Only the common errors.
    async fn list(
        &self,
        tenant: &TenantId,
        query: &ListQuery,
    ) -> Result<Page<Alert>, RepositoryError>;

    /// Replaces the stored alert with `alert` if its stored revision is still
    /// `expected_revision`.
    ///
    /// # Errors
    /// [`RepositoryError::NotFound`] when the alert is gone;
    /// [`RepositoryError::Conflict`] when its revision changed.
    async fn update(
        &self,
        tenant: &TenantId,
        alert: &Alert,
        expected_revision: i64,
        events: &[NewEvent],
    ) -> Result<(), RepositoryError>;

    /// Soft-deleted alerts whose purge time is before `now`, across tenants, oldest
    /// first, at most `limit`.
    ///
    /// # Errors
    /// Only the common errors.
    async fn find_purge_due(
        &self,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<(TenantId, String)>, RepositoryError>;

    /// Removes the alert if it is still soft-deleted with a purge time before `now`,
    /// with `events`.
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
