//! The alert type and alert repository ports.

use async_trait::async_trait;

use super::model::{Alert, AlertType};
use crate::list::{ListQuery, Page};
use crate::principal::TenantId;
use crate::repository::{RepositoryError, ResourceStore};

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

/// Stores alerts, with their events: the standard store.
pub trait AlertRepository: ResourceStore<Alert> {}

impl<T: ResourceStore<Alert> + ?Sized> AlertRepository for T {}

/// A mocked alert store.
#[cfg(any(test, feature = "mocks"))]
pub type MockAlertRepository = crate::repository::MockResourceStore<Alert>;
