//! The workspace repository port.

use super::model::Workspace;
use crate::repository::ResourceStore;

/// Stores workspaces, with their events: the standard store, whose `create` also
/// stores the forms a new workspace opens (`Workspace::new_forms`, with their events)
/// in its transaction, and whose `purge` removes a workspace's notes with it.
pub trait WorkspaceRepository: ResourceStore<Workspace> {}

impl<T: ResourceStore<Workspace> + ?Sized> WorkspaceRepository for T {}

/// A mocked workspace store.
#[cfg(any(test, feature = "mocks"))]
pub type MockWorkspaceRepository = crate::repository::MockResourceStore<Workspace>;
