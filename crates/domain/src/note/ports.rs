//! The note repository port.

use super::model::Note;
use crate::repository::ResourceStore;

/// Stores notes, with their events: the standard store, addressing a note by its name
/// (its id is unique only within its parent). A note is never soft-deleted: `remove`
/// deletes it, and lists ignore `showDeleted`.
pub trait NoteRepository: ResourceStore<Note> {}

impl<T: ResourceStore<Note> + ?Sized> NoteRepository for T {}

/// A mocked note store.
#[cfg(any(test, feature = "mocks"))]
pub type MockNoteRepository = crate::repository::MockResourceStore<Note>;
