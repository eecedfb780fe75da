//! The entity repository port.

use std::collections::BTreeMap;

use async_trait::async_trait;

use super::model::Entity;
use super::relationship::{RelationshipRecord, RelationshipType};
use crate::event::NewEvent;
use crate::list::{ListQuery, Page};
use crate::principal::TenantId;
use crate::repository::{CreateOutcome, IdempotencyKey, RepositoryError};
use crate::time::Timestamp;

/// What a hard delete removed, by kind (`entities`, `relationships`, `tags`, `events`,
/// ...).
pub type ErasureCounts = BTreeMap<String, i64>;

/// The condition under which [`EntityRepository::hard_delete`] erases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EraseGuard {
    /// Whatever the stored state.
    Always,
    /// Only the version the caller checked (for example: not under legal hold).
    Revision(i64),
    /// Only a soft-deleted entity whose purge time is before this instant, so a purge
    /// never erases an entity undeleted meanwhile.
    PurgeDue(Timestamp),
}

/// A stored entity, as a reference to it is checked: live or deleted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Presence {
    /// Its id.
    pub id: String,
    /// Whether it is soft-deleted.
    pub deleted: bool,
}

/// Stores entities, their tags, external ids and relationships, with their events.
///
/// Every method takes the caller's tenant and never sees another tenant's rows. Each
/// mutating method writes the given events in the same transaction as the change.
/// Any method may fail with [`RepositoryError::Unavailable`] (retry later) or
/// [`RepositoryError::Internal`]; the other errors are listed per method.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait EntityRepository: Send + Sync {
    /// Stores a new entity. With an idempotency key: when the key's request id was used
    /// before, writes nothing and returns [`CreateOutcome::Replayed`]; otherwise stores
    /// the key with the entity.
    ///
    /// # Errors
    /// [`RepositoryError::AlreadyExists`] when the id is taken, by a soft-deleted
    /// entity too; [`RepositoryError::Conflict`] when a concurrent request with the same
    /// request id stored its key first (calling again then replays it).
    async fn create<'a>(
        &self,
        tenant: &TenantId,
        entity: &Entity,
        key: Option<&'a IdempotencyKey>,
        events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError>;

    /// Stores new entities at once, all or none, with `events`: what
    /// [`EntityRepository::create`] writes for each, in one transaction. With an
    /// idempotency key: when the key's request id was used before, writes nothing and
    /// returns [`CreateOutcome::Replayed`], whose resource name is then the names of
    /// the entities the first request created, comma-separated, in order.
    ///
    /// # Errors
    /// As [`EntityRepository::create`]: [`RepositoryError::AlreadyExists`] when any of
    /// the ids is taken.
    async fn create_many<'a>(
        &self,
        tenant: &TenantId,
        entities: &[Entity],
        key: Option<&'a IdempotencyKey>,
        events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError>;

    /// The entity with `id`, deleted or not; `None` when there is none.
    ///
    /// # Errors
    /// Only the common errors.
    async fn get(&self, tenant: &TenantId, id: &str) -> Result<Option<Entity>, RepositoryError>;

    /// The entities among `ids` that exist, in any order.
    ///
    /// # Errors
    /// Only the common errors.
    async fn get_many(
        &self,
        tenant: &TenantId,
        ids: &[String],
    ) -> Result<Vec<Entity>, RepositoryError>;

    /// Which of `ids` are stored, each as live or deleted, in any order: what a check
    /// of references to entities reads, in one statement, without the entities.
    ///
    /// # Errors
    /// Only the common errors.
    async fn presence(
        &self,
        tenant: &TenantId,
        ids: &[String],
    ) -> Result<Vec<Presence>, RepositoryError>;

    /// One page of entities matching the query.
    ///
    /// # Errors
    /// Only the common errors.
    async fn list(
        &self,
        tenant: &TenantId,
        query: &ListQuery,
    ) -> Result<Page<Entity>, RepositoryError>;

    /// Replaces the stored entity with `entity` if its stored revision is still
    /// `expected_revision`; `entity.revision` is the new revision.
    ///
    /// # Errors
    /// [`RepositoryError::NotFound`] when the entity is gone;
    /// [`RepositoryError::Conflict`] when its revision changed.
    async fn update(
        &self,
        tenant: &TenantId,
        entity: &Entity,
        expected_revision: i64,
        events: &[NewEvent],
    ) -> Result<(), RepositoryError>;

    /// Removes the entity and everything it owns (tags, external ids, relationships on
    /// both sides, its events and idempotency keys) at once, if `guard` still holds,
    /// then writes `events` (which must not belong to the entity). Returns the counts
    /// of what was removed. The guard is checked in the erasing transaction, so a
    /// concurrent change cannot slip between the caller's check and the erasure.
    ///
    /// # Errors
    /// [`RepositoryError::NotFound`] when the entity is gone (or, with
    /// [`EraseGuard::PurgeDue`], not due); [`RepositoryError::Conflict`] when, with
    /// [`EraseGuard::Revision`], the entity changed.
    async fn hard_delete(
        &self,
        tenant: &TenantId,
        id: &str,
        guard: EraseGuard,
        events: &[NewEvent],
    ) -> Result<ErasureCounts, RepositoryError>;

    /// The live entities of `tenant` with monitoring on, in id order: the first
    /// `limit` of those whose id is after `after` (all when `None`). Ongoing monitoring
    /// reads every monitored entity with it, page by page (a keyset scan).
    ///
    /// # Errors
    /// Only the common errors.
    async fn monitored<'a>(
        &self,
        tenant: &TenantId,
        after: Option<&'a str>,
        limit: u32,
    ) -> Result<Vec<Entity>, RepositoryError>;

    /// Soft-deleted entities whose purge time is before `now`, across tenants, oldest
    /// first, at most `limit`.
    ///
    /// # Errors
    /// Only the common errors.
    async fn find_purge_due(
        &self,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<(TenantId, String)>, RepositoryError>;

    /// Adds a relationship between two existing entities.
    ///
    /// # Errors
    /// [`RepositoryError::AlreadyExists`] when the same relationship exists (for
    /// symmetric types, in either direction); [`RepositoryError::NotFound`] when either
    /// entity is gone.
    async fn add_relationship(
        &self,
        tenant: &TenantId,
        relationship: &RelationshipRecord,
        events: &[NewEvent],
    ) -> Result<(), RepositoryError>;

    /// Removes the relationship of `relationship_type` between the two entities, in
    /// whichever direction it was added, and returns it.
    ///
    /// # Errors
    /// [`RepositoryError::NotFound`] when there is no such relationship.
    async fn remove_relationship(
        &self,
        tenant: &TenantId,
        entity_id: &str,
        other_entity_id: &str,
        relationship_type: RelationshipType,
        events: &[NewEvent],
    ) -> Result<RelationshipRecord, RepositoryError>;

    /// One page of the relationships `entity_id` takes part in, on either side.
    ///
    /// # Errors
    /// Only the common errors.
    async fn list_relationships(
        &self,
        tenant: &TenantId,
        entity_id: &str,
        query: &ListQuery,
    ) -> Result<Page<RelationshipRecord>, RepositoryError>;
}
