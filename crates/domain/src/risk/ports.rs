//! The risk model repository port.

use async_trait::async_trait;

use super::model::RiskModel;
use crate::event::NewEvent;
use crate::list::{ListQuery, Page};
use crate::principal::TenantId;
use crate::repository::{CreateOutcome, IdempotencyKey, RepositoryError};

/// Stores the versions of each tenant's risk model. Versions are never changed or
/// removed: a rating names its version, and replaying it needs that version as it was.
///
/// Every method takes the caller's tenant and never sees another tenant's rows. Any
/// method may fail with [`RepositoryError::Unavailable`] (retry later) or
/// [`RepositoryError::Internal`]; the other errors are listed per method.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait RiskModelRepository: Send + Sync {
    /// The version `version`; `None` when there is none.
    ///
    /// # Errors
    /// Only the common errors.
    async fn get(
        &self,
        tenant: &TenantId,
        version: i64,
    ) -> Result<Option<RiskModel>, RepositoryError>;

    /// The newest version; `None` when the tenant has none yet.
    ///
    /// # Errors
    /// Only the common errors.
    async fn latest(&self, tenant: &TenantId) -> Result<Option<RiskModel>, RepositoryError>;

    /// One page of versions matching the query.
    ///
    /// # Errors
    /// Only the common errors.
    async fn list(
        &self,
        tenant: &TenantId,
        query: &ListQuery,
    ) -> Result<Page<RiskModel>, RepositoryError>;

    /// Stores a new version (its name gives the number). With an idempotency key: when
    /// the key's request id was used before, writes nothing and returns
    /// [`CreateOutcome::Replayed`].
    ///
    /// # Errors
    /// [`RepositoryError::AlreadyExists`] when the version number is taken (a
    /// concurrent create won it); [`RepositoryError::Conflict`] when a concurrent
    /// request with the same request id stored its key first.
    async fn create<'a>(
        &self,
        tenant: &TenantId,
        model: &RiskModel,
        key: Option<&'a IdempotencyKey>,
        events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError>;
}
