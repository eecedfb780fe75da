//! The identity document repository port.

use super::model::Document;
use crate::repository::ResourceStore;

/// Stores identity documents, with their events: the standard store, listed by
/// entity (`parent` is `entities/{entity}`). `create` also fails with
/// [`RepositoryError::NotFound`] when the document's entity is not stored (erased
/// since it was checked). An entity's erasure removes its documents (the erasure
/// plan).
pub trait DocumentRepository: ResourceStore<Document> {}

impl<T: ResourceStore<Document> + ?Sized> DocumentRepository for T {}

/// A mocked document store.
#[cfg(any(test, feature = "mocks"))]
pub type MockDocumentRepository = crate::repository::MockResourceStore<Document>;
