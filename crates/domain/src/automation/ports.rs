//! The automation repository ports.

use async_trait::async_trait;

use super::model::{Automation, AutomationDefinition};
use crate::principal::TenantId;
use crate::repository::{RepositoryError, ResourceStore};

/// Stores automations, with their events: the standard store. A create also stores
/// the automation's first revision, and an update whose `revisionId` is new stores that
/// revision, in the same transaction; a purge removes the revisions.
pub trait AutomationRepository: ResourceStore<Automation> {}

impl<T: ResourceStore<Automation> + ?Sized> AutomationRepository for T {}

/// A mocked automation store.
#[cfg(any(test, feature = "mocks"))]
pub type MockAutomationRepository = crate::repository::MockResourceStore<Automation>;

/// Reads the stored revisions of automations (AIP-162): what an execution follows.
///
/// Any method may fail with [`RepositoryError::Unavailable`] or
/// [`RepositoryError::Internal`].
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait AutomationRevisions: Send + Sync {
    /// The parameters and steps of the automation `id` of `tenant` at its revision
    /// `revision_id`; `None` when there is no such automation or revision.
    ///
    /// # Errors
    /// Only the common errors.
    async fn get_definition(
        &self,
        tenant: &TenantId,
        id: &str,
        revision_id: &str,
    ) -> Result<Option<AutomationDefinition>, RepositoryError>;
}
