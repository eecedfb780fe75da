//! The form repository ports.

use async_trait::async_trait;

use super::model::Form;
use crate::activity::model::ActivityLog;
use crate::event::NewEvent;
use crate::principal::TenantId;
use crate::repository::{RepositoryError, ResourceStore, Staged};
use crate::time::Timestamp;

/// Stores forms, with their events: the standard store (forms are never removed;
/// `remove` and the purge do not apply). An entity's erasure clears the response and
/// the entity of its forms (the erasure plan).
pub trait FormRepository: ResourceStore<Form> {}

impl<T: ResourceStore<Form> + ?Sized> FormRepository for T {}

/// A mocked form store.
#[cfg(any(test, feature = "mocks"))]
pub type MockFormRepository = crate::repository::MockResourceStore<Form>;

/// What the form lifecycle stores beyond the standard methods.
///
/// Any method may fail with [`RepositoryError::Unavailable`] or
/// [`RepositoryError::Internal`]; the other errors are listed per method.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait FormRecords: Send + Sync {
    /// The forms still stored as DRAFT whose `expireTime` is at or before `now`,
    /// across tenants, earliest deadline first, at most `limit`.
    ///
    /// # Errors
    /// Only the common errors.
    async fn find_expired(
        &self,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<(TenantId, String)>, RepositoryError>;

    /// Replaces the stored form with the submitted `form` if its stored revision is
    /// still `expected_revision`, with `events`, and stores `log` with its events, all
    /// in one transaction.
    ///
    /// # Errors
    /// [`RepositoryError::NotFound`] when the form is gone;
    /// [`RepositoryError::Conflict`] when its revision changed.
    async fn submit<'a>(
        &self,
        tenant: &TenantId,
        form: &Form,
        expected_revision: i64,
        events: &[NewEvent],
        log: Option<&'a Staged<ActivityLog>>,
    ) -> Result<(), RepositoryError>;
}

/// Hears of each submit once it is stored, so that what awaits the form (an
/// automation execution) goes on at once.
#[async_trait]
pub trait FormSubmitted: Send + Sync {
    /// The form `form` (its name) of `tenant` was submitted. Infallible: a listener
    /// that cannot act now leaves its work to its own polling.
    async fn submitted(&self, tenant: &TenantId, form: &str);
}
