//! What the event service needs from storage.

use async_trait::async_trait;

use super::model::EventRecord;
use crate::list::{ListQuery, Page};
use crate::principal::TenantId;
use crate::repository::RepositoryError;

/// Reads the event log. Writing happens inside each change's own transaction
/// (the outbox), never through this port.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait EventRepository: Send + Sync {
    /// The event `id` of `tenant`, whatever its scope; `None` when there is none.
    ///
    /// # Errors
    /// Only the common errors ([`RepositoryError::Unavailable`],
    /// [`RepositoryError::Internal`]).
    async fn get(
        &self,
        tenant: &TenantId,
        id: &str,
    ) -> Result<Option<EventRecord>, RepositoryError>;

    /// A page of the events about the entity `entity_id`, in the query's order.
    ///
    /// # Errors
    /// Only the common errors.
    async fn list_for_entity(
        &self,
        tenant: &TenantId,
        entity_id: &str,
        query: &ListQuery,
    ) -> Result<Page<EventRecord>, RepositoryError>;
}
