//! The note repository port.

use async_trait::async_trait;

use super::model::Note;
use crate::event::NewEvent;
use crate::list::{ListQuery, Page};
use crate::principal::TenantId;
use crate::repository::{CreateOutcome, IdempotencyKey, RepositoryError};

/// Stores notes, with their events. A note is addressed by its parent's name
/// (`entities/{entity}`) and its id.
///
/// Every method takes the caller's tenant and never sees another tenant's rows. Each
/// mutating method writes the given events in the same transaction as the change.
/// Any method may fail with [`RepositoryError::Unavailable`] (retry later) or
/// [`RepositoryError::Internal`]; the other errors are listed per method.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait NoteRepository: Send + Sync {
    /// Stores a new note. With an idempotency key: when the key's request id was used
    /// before, writes nothing and returns [`CreateOutcome::Replayed`].
    ///
    /// # Errors
    /// [`RepositoryError::AlreadyExists`] when the parent has a note with the same id;
    /// [`RepositoryError::Conflict`] when a concurrent request with the same request id
    /// stored its key first.
    async fn create<'a>(
        &self,
        tenant: &TenantId,
        note: &Note,
        key: Option<&'a IdempotencyKey>,
        events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError>;

    /// The note `id` of `parent`; `None` when there is none.
    ///
    /// # Errors
    /// Only the common errors.
    async fn get(
        &self,
        tenant: &TenantId,
        parent: &str,
        id: &str,
    ) -> Result<Option<Note>, RepositoryError>;

    /// One page of the notes of `parent` matching the query.
    ///
    /// # Errors
    /// Only the common errors.
    async fn list(
        &self,
        tenant: &TenantId,
        parent: &str,
        query: &ListQuery,
    ) -> Result<Page<Note>, RepositoryError>;

    /// Replaces the stored note with `note` if its stored revision is still
    /// `expected_revision`.
    ///
    /// # Errors
    /// [`RepositoryError::NotFound`] when the note is gone;
    /// [`RepositoryError::Conflict`] when its revision changed.
    async fn update(
        &self,
        tenant: &TenantId,
        note: &Note,
        expected_revision: i64,
        events: &[NewEvent],
    ) -> Result<(), RepositoryError>;

    /// Removes the note `id` of `parent` if its stored revision is still
    /// `expected_revision`.
    ///
    /// # Errors
    /// [`RepositoryError::NotFound`] when the note is gone;
    /// [`RepositoryError::Conflict`] when its revision changed.
    async fn delete(
        &self,
        tenant: &TenantId,
        parent: &str,
        id: &str,
        expected_revision: i64,
        events: &[NewEvent],
    ) -> Result<(), RepositoryError>;
}
