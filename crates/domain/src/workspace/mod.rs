//! Workspaces: cases that gather entities under review together, with their own notes.

pub mod fields;
pub mod model;
pub mod ports;
pub mod references;
pub mod service;

pub use model::{Workspace, WorkspaceState};
pub use ports::WorkspaceRepository;
pub use service::WorkspaceService;

#[cfg(test)]
mod service_tests;
