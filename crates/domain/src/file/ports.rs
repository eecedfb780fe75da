//! The file ports: the store of file resources, and the ledger of content to remove.
//! The content itself is behind [`FileStore`](super::content::FileStore).

use async_trait::async_trait;

use super::content::ContentKey;
use super::model::File;
use crate::principal::TenantId;
use crate::repository::{RepositoryError, ResourceStore};
use crate::time::Timestamp;

/// Stores files, with their events: the standard store, addressing a file by its name
/// (its id is unique only within its parent), listed within a parent. Beyond the
/// standard contracts:
/// - `create` also settles the content of the file's uid in the [`ContentRemovals`]
///   ledger (the content now belongs to a file), in the same transaction;
/// - `purge` also schedules the removal of the purged file's content, at once;
/// - an entity's erasure removes its files and schedules the removal of their content.
pub trait FileRepository: ResourceStore<File> {}

impl<T: ResourceStore<File> + ?Sized> FileRepository for T {}

/// A mocked file store.
#[cfg(any(test, feature = "mocks"))]
pub type MockFileRepository = crate::repository::MockResourceStore<File>;

/// The ledger of content that is to leave its [`FileStore`](super::content::FileStore):
/// content written for an upload that may still fail (scheduled for later, and settled
/// when the file's row is stored), and content of files purged or erased (scheduled at
/// once). What is due is removed from the store and then forgotten, so content whose
/// removal failed, or whose upload died with the process, is removed by a later sweep.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait ContentRemovals: Send + Sync {
    /// Schedules the removal of the content under `key` at `due`, unless a file that
    /// holds it is stored before then.
    ///
    /// # Errors
    /// Only the common errors.
    async fn schedule(&self, key: &ContentKey, due: Timestamp) -> Result<(), RepositoryError>;

    /// Forgets the content under `key`: it was removed, or never written.
    ///
    /// # Errors
    /// Only the common errors.
    async fn forget(&self, key: &ContentKey) -> Result<(), RepositoryError>;

    /// The content due for removal before `now`, of `tenant` only when given, oldest
    /// first, at most `limit`. Content that a stored file holds is never due.
    ///
    /// # Errors
    /// Only the common errors.
    async fn due<'a>(
        &self,
        tenant: Option<&'a TenantId>,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<ContentKey>, RepositoryError>;
}
