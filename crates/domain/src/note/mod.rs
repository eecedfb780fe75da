//! Notes: free text written about an entity or a workspace. Only a note's author may
//! change or delete it.

pub mod fields;
pub mod model;
pub mod ports;
pub mod service;

pub use model::{Note, NoteParent};
pub use ports::NoteRepository;
pub use service::NoteService;

#[cfg(test)]
mod service_tests;
