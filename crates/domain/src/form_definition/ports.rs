//! The form definition repository ports.

use async_trait::async_trait;

use super::model::FormDefinition;
use crate::principal::TenantId;
use crate::repository::{RepositoryError, ResourceStore};

/// Stores form definitions, with their events: the standard store. A create also
/// stores the definition's first revision, and an update whose `revisionId` is new
/// stores that revision, in the same transaction; a purge removes the revisions.
pub trait FormDefinitionRepository: ResourceStore<FormDefinition> {}

impl<T: ResourceStore<FormDefinition> + ?Sized> FormDefinitionRepository for T {}

/// A mocked form definition store.
#[cfg(any(test, feature = "mocks"))]
pub type MockFormDefinitionRepository = crate::repository::MockResourceStore<FormDefinition>;

/// Reads the stored revisions of form definitions (AIP-162).
///
/// Any method may fail with [`RepositoryError::Unavailable`] or
/// [`RepositoryError::Internal`].
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait FormRevisions: Send + Sync {
    /// The definition `id` of `tenant` as of its revision `revision_id`: its schema,
    /// `revisionId` and `revisionCreateTime` are the revision's, the rest the
    /// definition's now; `None` when there is no such definition or revision.
    ///
    /// # Errors
    /// Only the common errors.
    async fn get_revision(
        &self,
        tenant: &TenantId,
        id: &str,
        revision_id: &str,
    ) -> Result<Option<FormDefinition>, RepositoryError>;
}
