//! The rules every stored resource shares: etags (AIP-154), the soft-delete states
//! (AIP-164) and idempotent creation (AIP-155), with their errors.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rics_aip::field_mask::FieldTable;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{Code, Error, Result};
use crate::event::NewEvent;
use crate::housekeeping::PurgeDue;
use crate::id::{IdGenerator, is_well_formed_id};
use crate::list::{ListRequest, ListResponse, ListSpec, Paging};
use crate::methods::DeclaredFields;
use crate::principal::{Principal, TenantId};
use crate::repository::{CreateOutcome, IdempotencyKey, RepositoryError, ResourceStore};
use crate::resource::{Named, Parent, Parented, fingerprint, to_json};
use crate::time::{Clock, Timestamp};

/// The resource `id` as `fetch` reads it from storage, deleted or not (AIP-131). The
/// id is checked before anything is read.
///
/// # Errors
/// INVALID_ARGUMENT (`INVALID_NAME`) for a malformed id; NOT_FOUND when there is none;
/// what storage fails with, naming the resource.
pub async fn read<R: Named>(
    id: &str,
    fetch: impl Future<Output = std::result::Result<Option<R>, RepositoryError>>,
) -> Result<R> {
    read_parented(&R::name_of(id), id, fetch).await
}

/// [`read`] of the resource `id` named `name`: for a resource under a parent, whose
/// name is more than its collection and id.
///
/// # Errors
/// As [`read`].
pub async fn read_parented<R: Named>(
    name: &str,
    id: &str,
    fetch: impl Future<Output = std::result::Result<Option<R>, RepositoryError>>,
) -> Result<R> {
    if !is_well_formed_id(id) {
        return Err(Error::invalid_field(
            "name",
            "INVALID_NAME",
            format!("'{name}' is not a valid {} name", R::LABEL),
        ));
    }
    read_named(name, fetch).await
}

/// What `fetch` reads from storage for the resource `name`, once its address is
/// checked: for a Get whose id is not [`read`]'s (a version number, `current`) or
/// whose resource is not [`Named`].
///
/// # Errors
/// NOT_FOUND naming `name` when there is none; what storage fails with, naming it.
pub async fn read_named<T>(
    name: &str,
    fetch: impl Future<Output = std::result::Result<Option<T>, RepositoryError>>,
) -> Result<T> {
    fetch
        .await
        .map_err(|e| e.for_resource(name))?
        .ok_or_else(|| Error::not_found(name))
}

/// What every resource service uses beside its stores: the clock changes are dated
/// by, the generator of ids, list paging, and how long a soft-deleted resource is
/// kept before it is purged.
#[derive(Clone)]
pub struct ServiceContext {
    /// The clock.
    pub clock: Arc<dyn Clock>,
    /// The generator of resource ids and uids.
    pub ids: Arc<dyn IdGenerator>,
    /// List paging and page tokens.
    pub paging: Arc<Paging>,
    /// How long a soft-deleted resource is kept before it is purged.
    pub retention: Duration,
}

impl ServiceContext {
    /// A new revision id (AIP-162): eight lower-case hexadecimal digits of a random
    /// UUID, what a form definition's or an automation's change of definition gets.
    pub fn new_revision_id(&self) -> String {
        self.ids
            .uid()
            .chars()
            .filter(char::is_ascii_hexdigit)
            .take(crate::form_definition::model::REVISION_ID_LENGTH)
            .collect()
    }
}

/// Checks a client's etag against the current one; an absent or empty etag passes.
///
/// # Errors
/// ABORTED (`ETAG_MISMATCH`) naming `name` when they differ.
pub fn check_etag(name: &str, current: &str, given: Option<&str>) -> Result<()> {
    match given {
        Some(given) if !given.is_empty() && given != current => Err(Error::etag_mismatch(name)),
        _ => Ok(()),
    }
}

/// FAILED_PRECONDITION for a change to the soft-deleted resource `name`.
pub fn deleted(name: &str) -> Error {
    Error::failed_precondition(
        "RESOURCE_DELETED",
        format!("'{name}' is deleted; undelete it first."),
    )
    .with_metadata("resource", name)
}

/// The kinds of resource a request refers to by name, for [`referred_deleted`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Referred {
    /// `entities/{entity}`.
    Entity,
    /// `workspaces/{workspace}`.
    Workspace,
    /// `activityLogTypes/{activityLogType}`.
    ActivityLogType,
    /// `documents/{document}`.
    Document,
    /// `formDefinitions/{formDefinition}`.
    FormDefinition,
    /// `entities/{entity}/files/{file}`.
    File,
}

impl Referred {
    fn reason(self) -> &'static str {
        match self {
            Referred::Entity => "ENTITY_DELETED",
            Referred::Workspace => "WORKSPACE_DELETED",
            Referred::ActivityLogType => "ACTIVITY_LOG_TYPE_DELETED",
            Referred::Document => "DOCUMENT_DELETED",
            Referred::FormDefinition => "FORM_DEFINITION_DELETED",
            Referred::File => "FILE_DELETED",
        }
    }

    fn metadata_key(self) -> &'static str {
        match self {
            Referred::Entity => "entity",
            Referred::Workspace => "workspace",
            Referred::ActivityLogType => "activityLogType",
            Referred::Document => "document",
            Referred::FormDefinition => "formDefinition",
            Referred::File => "file",
        }
    }
}

/// FAILED_PRECONDITION `{KIND}_DELETED` for a request that refers to the soft-deleted
/// resource `name` (a parent, or a name in a field) while it writes something else;
/// a change to the deleted resource itself is [`deleted`]. The metadata names it
/// under its kind and as `resource`.
pub fn referred_deleted(kind: Referred, name: &str) -> Error {
    Error::failed_precondition(
        kind.reason(),
        format!("'{name}' is deleted; undelete it first."),
    )
    .with_metadata(kind.metadata_key(), name)
    .with_metadata("resource", name)
}

/// ALREADY_EXISTS for `:undelete` of the live resource `name`.
pub fn not_deleted(name: &str) -> Error {
    Error::new(
        Code::AlreadyExists,
        "RESOURCE_NOT_DELETED",
        format!("'{name}' is not deleted."),
    )
    .with_metadata("resource", name)
}

/// Runs an idempotent create: `store` writes the resource with `key` (or replays the
/// key's first result). Returns `None` when this call created the resource, or the
/// name of the resource a previous call with the same request created.
///
/// # Errors
/// INVALID_ARGUMENT (`REQUEST_ID_REUSED`) when the request id was used with another
/// request; what `store` fails with, as errors on `name`.
pub async fn create_once<F, Fut>(
    name: &str,
    key: Option<&IdempotencyKey>,
    mut store: F,
) -> Result<Option<String>>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = std::result::Result<CreateOutcome, RepositoryError>>,
{
    let mut outcome = store().await;
    if outcome == Err(RepositoryError::Conflict) && key.is_some() {
        // A concurrent request with the same request id won: replay it.
        outcome = store().await;
    }
    match outcome.map_err(|e| e.for_resource(name))? {
        CreateOutcome::Created => Ok(None),
        CreateOutcome::Replayed {
            method,
            fingerprint,
            resource_name,
        } => {
            let same = key.is_some_and(|k| k.method == method && k.fingerprint == fingerprint);
            if same {
                Ok(Some(resource_name))
            } else {
                Err(Error::invalid_field(
                    "requestId",
                    "REQUEST_ID_REUSED",
                    "was already used with a different request",
                ))
            }
        }
    }
}

/// The idempotency key of a create (AIP-155) with `request_id`, when there is one:
/// bound to `method` and to a fingerprint of its parameters `parts`, and recording
/// `name`, the resource it makes.
pub fn create_key(
    request_id: Option<impl ToString>,
    method: &'static str,
    parts: &[(&str, &Value)],
    name: &str,
) -> Option<IdempotencyKey> {
    request_id.map(|request_id| IdempotencyKey {
        request_id: request_id.to_string(),
        method,
        fingerprint: fingerprint(method, parts),
        resource_name: name.to_owned(),
    })
}

/// Purges the resource `due` names from `store`, with the `{kind}.purged` events
/// `service` writes for it (one per entity it belonged to, or one for the tenant).
///
/// # Errors
/// [`RepositoryError::NotFound`] when it is gone or no longer due; the common storage
/// errors.
pub async fn purge_recorded<S: StoreVersions>(
    service: &S,
    store: &dyn ResourceStore<S::Resource>,
    system: &Principal,
    due: &PurgeDue,
) -> std::result::Result<(), RepositoryError> {
    let resource = store
        .get(&due.tenant, &due.id)
        .await?
        .ok_or(RepositoryError::NotFound)?;
    let event_type = format!("{}.purged", S::EVENT_KIND);
    let events = service.events(&event_type, &resource, system, due.now, None, None);
    store.purge(&due.tenant, &due.id, due.now, &events).await
}

/// A stored resource with counted versions (AIP-154) and the soft-delete fields of
/// AIP-164: `name`, `etag`, `revision`, `deleteTime` and `purgeTime`, as its model
/// declares it with [`soft_deletable!`](crate::soft_deletable).
pub trait SoftDeletable: Clone + Serialize + Send + Sync + 'static {
    /// The resource name.
    fn resource_name(&self) -> &str;
    /// The current etag.
    fn current_etag(&self) -> &str;
    /// The stored version this is.
    fn revision(&self) -> i64;
    /// Whether it is soft-deleted.
    fn is_soft_deleted(&self) -> bool;
    /// Sets (or, with `None`, clears) its deletion and purge times.
    fn set_deletion(&mut self, deletion: Option<(Timestamp, Timestamp)>);
    /// Makes this the version after `current`, changed at `now`: the next revision,
    /// its etag and, where the resource has one, its update time.
    fn follow(&mut self, current: &Self, now: Timestamp);
    /// The ids of the entities its events belong to; none for a tenant-level resource.
    fn event_entities(&self) -> Vec<&str>;
    /// Makes this the first version of the resource `name` with `uid`, created at
    /// `now`.
    fn begin(&mut self, name: String, uid: String, now: Timestamp);
}

/// Implements [`SoftDeletable`] for resources whose fields are named `name`, `uid`,
/// `etag`, `revision`, `create_time`, `update_time`, `delete_time` and `purge_time`, and gives them
/// `is_deleted()`. The entities its events belong to come from a method: `entities =
/// Alert::entity_ids` (ids) or `entity = Document::entity_id` (one id); none when
/// absent. `without update_time` is for resources that have no update time;
/// `removed when deleted` for resources without `delete_time` and `purge_time`, which
/// are never soft-deleted: their Delete ([`DeleteMethod`]) removes them.
#[macro_export]
macro_rules! soft_deletable {
    ($resource:ty $(, $how:ident = $method:path)?) => {
        $crate::soft_deletable!(@impl $resource, true, soft, [$($how $method)?]);
    };
    ($resource:ty, $how:ident = $method:path, without update_time) => {
        $crate::soft_deletable!(@impl $resource, false, soft, [$how $method]);
    };
    ($resource:ty, $how:ident = $method:path, removed when deleted) => {
        $crate::soft_deletable!(@impl $resource, true, removed, [$how $method]);
    };
    (@impl $resource:ty, $has_update_time:tt, $deletion:ident, [$($how:ident $method:path)?]) => {
        $crate::soft_deletable!(@is_deleted $deletion $resource);

        impl $crate::lifecycle::SoftDeletable for $resource {
            fn resource_name(&self) -> &str {
                &self.name
            }
            fn current_etag(&self) -> &str {
                &self.etag
            }
            fn revision(&self) -> i64 {
                self.revision
            }
            fn is_soft_deleted(&self) -> bool {
                $crate::soft_deletable!(@deleted $deletion self)
            }
            fn set_deletion(&mut self, deletion: Option<($crate::time::Timestamp, $crate::time::Timestamp)>) {
                $crate::soft_deletable!(@set_deletion $deletion self, deletion);
            }
            fn follow(&mut self, current: &Self, now: $crate::time::Timestamp) {
                self.revision = current.revision + 1;
                self.etag = $crate::resource::etag(&self.uid, self.revision);
                $crate::soft_deletable!(@touch $has_update_time, self, now);
            }
            fn event_entities(&self) -> Vec<&str> {
                $crate::soft_deletable!(@entities self, [$($how $method)?])
            }
            fn begin(&mut self, name: String, uid: String, now: $crate::time::Timestamp) {
                self.name = name;
                self.uid = uid;
                self.revision = 1;
                self.etag = $crate::resource::etag(&self.uid, self.revision);
                self.create_time = Some(now);
                $crate::soft_deletable!(@touch $has_update_time, self, now);
            }
        }
    };
    (@is_deleted soft $resource:ty) => {
        impl $resource {
            /// Whether it is soft-deleted.
            pub fn is_deleted(&self) -> bool {
                self.delete_time.is_some()
            }
        }
    };
    (@is_deleted removed $resource:ty) => {};
    (@deleted soft $resource:expr) => {
        $resource.delete_time.is_some()
    };
    (@deleted removed $resource:expr) => {
        false
    };
    (@set_deletion soft $resource:expr, $deletion:expr) => {
        $resource.delete_time = $deletion.map(|(delete, _)| delete);
        $resource.purge_time = $deletion.map(|(_, purge)| purge);
    };
    // Never called: only soft deletes and restores set it, and such a resource has neither.
    (@set_deletion removed $resource:expr, $deletion:expr) => {
        let _ = $deletion;
    };
    (@touch true, $resource:expr, $now:expr) => {
        $resource.update_time = Some($now)
    };
    (@touch false, $resource:expr, $now:expr) => {{
        let _ = $now;
    }};
    (@entities $resource:expr, []) => {
        Vec::new()
    };
    (@entities $resource:expr, [entities $method:path]) => {
        $method($resource)
    };
    (@entities $resource:expr, [entity $method:path]) => {
        vec![$method($resource)]
    };
}

/// How a service stores a new version of its resource: each change is written with
/// its events in one write, the events recording what changed.
#[async_trait]
pub trait StoreVersions: Send + Sync {
    /// The resource.
    type Resource: SoftDeletable;

    /// The first part of its event types: `workspace` for `workspace.created`,
    /// `workspace.deleted` and `workspace.undeleted`.
    const EVENT_KIND: &'static str;

    /// Where event ids come from.
    fn ids(&self) -> &dyn IdGenerator;

    /// The clock changes are dated by.
    fn clock(&self) -> &dyn Clock;

    /// The name of the resource `id`: `{collection}/{id}`, or its name under the
    /// parent of a service addressed within one ([`Within`]).
    fn name_of(&self, id: &str) -> String
    where
        Self::Resource: Named,
    {
        Self::Resource::name_of(id)
    }

    /// The other name a request body may give the resource `id`: a parented
    /// resource's name within its parent (`notes/{note}`); none by default.
    fn short_name(&self, _id: &str) -> Option<String> {
        None
    }

    /// Whether `principal` may change `current` (only a note's author may), checked by
    /// Update and by the Delete of [`DeleteMethod`] after the resource is read and
    /// before its etag; anyone may by default.
    ///
    /// # Errors
    /// The resource's own refusal (PERMISSION_DENIED).
    fn check_caller(&self, _principal: &Principal, _current: &Self::Resource) -> Result<()> {
        Ok(())
    }

    /// The resource `id` of the caller's tenant, deleted or not.
    ///
    /// # Errors
    /// NOT_FOUND when it is missing; UNAVAILABLE or INTERNAL when storage fails.
    async fn read(&self, principal: &Principal, id: &str) -> Result<Self::Resource>;

    /// Stores a new resource with `events`. With an idempotency key: when the key's
    /// request id was used before, writes nothing and returns
    /// [`CreateOutcome::Replayed`].
    ///
    /// # Errors
    /// [`RepositoryError::AlreadyExists`] when the id is taken;
    /// [`RepositoryError::Conflict`] when a concurrent request with the same request id
    /// stored its key first; what the resource's repository adds.
    async fn write_new<'a>(
        &self,
        tenant: &TenantId,
        resource: &Self::Resource,
        key: Option<&'a IdempotencyKey>,
        events: &[NewEvent],
    ) -> std::result::Result<CreateOutcome, RepositoryError>;

    /// What a refused write of the new `resource` tells the client; the error as it
    /// is by default.
    fn creation_error(&self, _resource: &Self::Resource, error: Error) -> Error {
        error
    }

    /// The tenant-level `{kind}.purged` event of the resource `due` names, written by
    /// `system`: for resources whose events outlive them in the tenant's history only.
    fn purged_event(&self, system: &Principal, due: &PurgeDue) -> NewEvent
    where
        Self::Resource: Named,
    {
        NewEvent::new(
            self.ids().resource_id(),
            &format!("{}.purged", Self::EVENT_KIND),
            &Self::Resource::name_of(&due.id),
            system,
            due.now,
        )
    }

    /// Stores the new `resource` with its `{kind}.created` events, once per `key`
    /// (AIP-155): a retry of the same request answers the resource the first one
    /// created, as it is now.
    ///
    /// # Errors
    /// INVALID_ARGUMENT (`REQUEST_ID_REUSED`) when the request id came with another
    /// request; ALREADY_EXISTS when the id is taken; what
    /// [`Self::creation_error`] makes of the other refusals.
    async fn store_new(
        &self,
        principal: &Principal,
        resource: Self::Resource,
        key: Option<&IdempotencyKey>,
        now: Timestamp,
    ) -> Result<Self::Resource> {
        let events = self.created_events(&resource, principal, now)?;
        let name = resource.resource_name();
        let replayed = create_once(name, key, || {
            self.write_new(&principal.tenant, &resource, key, &events)
        })
        .await
        .map_err(|e| self.creation_error(&resource, e))?;
        match replayed {
            None => Ok(resource),
            Some(first) => {
                let id = first.rsplit('/').next().unwrap_or(&first);
                self.read(principal, id).await
            }
        }
    }

    /// The `{kind}.created` events of the new `resource`, created by `principal` at
    /// `now`, holding the resource as created.
    ///
    /// # Errors
    /// INTERNAL when the resource does not serialize.
    fn created_events(
        &self,
        resource: &Self::Resource,
        principal: &Principal,
        now: Timestamp,
    ) -> Result<Vec<NewEvent>> {
        let event_type = format!("{}.created", Self::EVENT_KIND);
        let after = to_json(resource)?;
        Ok(self.events(&event_type, resource, principal, now, None, Some(&after)))
    }

    /// Replaces the stored resource with `updated` if its stored revision is still
    /// `expected_revision`, with `events`.
    ///
    /// # Errors
    /// [`RepositoryError::NotFound`] when it is gone; [`RepositoryError::Conflict`]
    /// when its revision changed; the common storage errors.
    async fn write_version(
        &self,
        tenant: &TenantId,
        updated: &Self::Resource,
        expected_revision: i64,
        events: &[NewEvent],
    ) -> std::result::Result<(), RepositoryError>;

    /// The `event_type` events of a change of `resource` by `principal` at `now`, from
    /// `before` to `after`: one per entity it belongs to, or one for the tenant.
    fn events(
        &self,
        event_type: &str,
        resource: &Self::Resource,
        principal: &Principal,
        now: Timestamp,
        before: Option<&Value>,
        after: Option<&Value>,
    ) -> Vec<NewEvent> {
        let event = || {
            NewEvent::new(
                self.ids().resource_id(),
                event_type,
                resource.resource_name(),
                principal,
                now,
            )
            .with_changes(before, after)
        };
        let entities = resource.event_entities();
        if entities.is_empty() {
            return vec![event()];
        }
        entities
            .into_iter()
            .map(|entity| event().for_entity(entity))
            .collect()
    }

    /// Stores `updated` as the version after `current`, changed at `now`, with its
    /// `event_type` events.
    ///
    /// # Errors
    /// ABORTED when `current` changed meanwhile; NOT_FOUND when it is gone;
    /// UNAVAILABLE or INTERNAL.
    async fn save(
        &self,
        principal: &Principal,
        current: &Self::Resource,
        mut updated: Self::Resource,
        event_type: &str,
        now: Timestamp,
    ) -> Result<Self::Resource> {
        updated.follow(current, now);
        let before = to_json(current)?;
        let after = to_json(&updated)?;
        let events = self.events(
            event_type,
            current,
            principal,
            now,
            Some(&before),
            Some(&after),
        );
        self.write_version(&principal.tenant, &updated, current.revision(), &events)
            .await
            .map_err(|e| e.for_resource(current.resource_name()))?;
        Ok(updated)
    }
}

/// What a soft delete does with the resource it read.
#[derive(Debug, Clone, PartialEq)]
pub enum SoftDelete<T> {
    /// Nothing to store; the answer is this: `None` for a missing resource, or the
    /// resource already deleted (both only with `allowMissing`).
    Answer(Option<T>),
    /// Store `deleted` as the next version of `current`.
    Store {
        /// The resource as read.
        current: T,
        /// The resource deleted at `now`, to be purged after the retention.
        deleted: T,
    },
}

/// Decides a soft delete (AIP-164) of the resource `read` returned: a missing or
/// already deleted resource is NOT_FOUND unless `allow_missing`; a live one is deleted
/// at `now` and purged `retention` later.
///
/// # Errors
/// What `read` failed with (NOT_FOUND unless `allow_missing`); NOT_FOUND when already
/// deleted without `allow_missing`; ABORTED for a stale etag.
pub fn soft_delete<T: SoftDeletable>(
    read: Result<T>,
    etag: Option<&str>,
    allow_missing: bool,
    now: Timestamp,
    retention: Duration,
) -> Result<SoftDelete<T>> {
    let current = match read {
        Err(e) if e.code == Code::NotFound && allow_missing => return Ok(SoftDelete::Answer(None)),
        other => other?,
    };
    if current.is_soft_deleted() {
        return if allow_missing {
            Ok(SoftDelete::Answer(Some(current)))
        } else {
            Err(Error::not_found(current.resource_name()))
        };
    }
    check_etag(current.resource_name(), current.current_etag(), etag)?;
    let mut deleted = current.clone();
    deleted.set_deletion(Some((now, now.plus(retention))));
    Ok(SoftDelete::Store { current, deleted })
}

/// The restored version of a soft-deleted resource (`:undelete`).
///
/// # Errors
/// ALREADY_EXISTS when it is not deleted; ABORTED for a stale etag.
pub fn restore<T: SoftDeletable>(current: &T, etag: Option<&str>) -> Result<T> {
    if !current.is_soft_deleted() {
        return Err(not_deleted(current.resource_name()));
    }
    check_etag(current.resource_name(), current.current_etag(), etag)?;
    let mut restored = current.clone();
    restored.set_deletion(None);
    Ok(restored)
}

/// The standard Delete (AIP-135, soft, with `allowMissing` and `etag`) and Undelete
/// (AIP-164) methods, written once over what a resource's service declares: how it
/// reads one resource, how it stores a change with its event, and what it checks
/// before either change (a document's entity must be live).
#[async_trait]
pub trait SoftDeleteMethods: StoreVersions {
    /// How long a deleted resource is kept before it is purged.
    fn retention(&self) -> Duration;

    /// What must hold before `current` is deleted or restored; nothing by default.
    ///
    /// # Errors
    /// The resource's own refusal.
    async fn check_deletion(
        &self,
        _principal: &Principal,
        _current: &Self::Resource,
    ) -> Result<()> {
        Ok(())
    }

    /// Soft-deletes the resource `id`. With `allow_missing`, deleting one that is
    /// missing or already deleted succeeds (returning `None` when missing).
    ///
    /// # Errors
    /// NOT_FOUND (also when already deleted, without `allow_missing`); ABORTED for a
    /// stale etag; what [`Self::check_deletion`] refuses.
    async fn delete(
        &self,
        principal: &Principal,
        id: &str,
        etag: Option<&str>,
        allow_missing: bool,
    ) -> Result<Option<Self::Resource>> {
        let now = self.clock().now();
        let read = self.read(principal, id).await;
        match soft_delete(read, etag, allow_missing, now, self.retention())? {
            SoftDelete::Answer(answer) => Ok(answer),
            SoftDelete::Store { current, deleted } => {
                self.check_deletion(principal, &current).await?;
                let event_type = format!("{}.deleted", Self::EVENT_KIND);
                self.save(principal, &current, deleted, &event_type, now)
                    .await
                    .map(Some)
            }
        }
    }

    /// Restores the soft-deleted resource `id`.
    ///
    /// # Errors
    /// NOT_FOUND; ALREADY_EXISTS when it is not deleted; ABORTED for a stale etag;
    /// what [`Self::check_deletion`] refuses.
    async fn undelete(
        &self,
        principal: &Principal,
        id: &str,
        etag: Option<&str>,
    ) -> Result<Self::Resource> {
        let current = self.read(principal, id).await?;
        let restored = restore(&current, etag)?;
        self.check_deletion(principal, &current).await?;
        let event_type = format!("{}.undeleted", Self::EVENT_KIND);
        self.save(
            principal,
            &current,
            restored,
            &event_type,
            self.clock().now(),
        )
        .await
    }
}

/// The standard Delete (AIP-135) of a resource that is not soft-deleted (declared
/// `removed when deleted`): the resource is removed for good with its `{kind}.deleted`
/// events, and returned.
#[async_trait]
pub trait DeleteMethod: StoreVersions {
    /// Removes the stored `current` if its stored revision is still the one it has,
    /// with `events`.
    ///
    /// # Errors
    /// [`RepositoryError::NotFound`] when it is gone; [`RepositoryError::Conflict`]
    /// when its revision changed; the common storage errors.
    async fn write_removal(
        &self,
        tenant: &TenantId,
        current: &Self::Resource,
        events: &[NewEvent],
    ) -> std::result::Result<(), RepositoryError>;

    /// Deletes the resource `id` for good and returns it.
    ///
    /// # Errors
    /// NOT_FOUND; what [`StoreVersions::check_caller`] refuses; ABORTED for a stale
    /// etag or a concurrent change.
    async fn delete(
        &self,
        principal: &Principal,
        id: &str,
        etag: Option<&str>,
    ) -> Result<Self::Resource> {
        let current = self.read(principal, id).await?;
        self.check_caller(principal, &current)?;
        check_etag(current.resource_name(), current.current_etag(), etag)?;
        let before = to_json(&current)?;
        let event_type = format!("{}.deleted", Self::EVENT_KIND);
        let now = self.clock().now();
        let events = self.events(&event_type, &current, principal, now, Some(&before), None);
        self.write_removal(&principal.tenant, &current, &events)
            .await
            .map_err(|e| e.for_resource(current.resource_name()))?;
        Ok(current)
    }
}

/// The service of a resource that lives under a parent ([`Parented`]): what it
/// declares so that [`Within`] gives it the standard methods under one parent.
#[async_trait]
pub trait ParentedService: DeclaredFields + Send + Sync {
    /// The resource.
    type Resource: SoftDeletable + Parented + DeserializeOwned;
    /// What a path names as its parent.
    type Parent: Parent;

    /// The first part of its event types (`note` for `note.created`).
    const EVENT_KIND: &'static str;

    /// The clock, ids, paging and retention.
    fn context(&self) -> &ServiceContext;

    /// Its store, which addresses a resource by its name (its id is unique only
    /// within its parent).
    fn store(&self) -> &dyn ResourceStore<Self::Resource>;

    /// How its List pages.
    fn list_spec(&self) -> &'static ListSpec;

    /// Whether `principal` may change `current` ([`StoreVersions::check_caller`]);
    /// anyone may by default.
    ///
    /// # Errors
    /// The resource's own refusal (PERMISSION_DENIED).
    fn check_caller(&self, _principal: &Principal, _current: &Self::Resource) -> Result<()> {
        Ok(())
    }

    /// Checks the parent named by `parent` (whose id is well-formed) before its
    /// resources are read (`change` false) or changed, created and deleted (`change`
    /// true): the resources of a missing or deleted parent are unreachable.
    ///
    /// # Errors
    /// NOT_FOUND naming the parent; the resource's own refusal of a change
    /// (FAILED_PRECONDITION).
    async fn check_parent(
        &self,
        principal: &Principal,
        parent: &Self::Parent,
        change: bool,
    ) -> Result<()>;
}

/// A [`ParentedService`] addressed under one parent: its Get and List, and the
/// template's methods ([`StoreVersions`], so [`CreateMethod`](crate::methods::CreateMethod),
/// [`UpdateMethod`](crate::methods::UpdateMethod) and [`DeleteMethod`] where the service
/// implements them for it), for the resources of `parent`.
pub struct Within<'a, S: ParentedService> {
    /// The service.
    pub service: &'a S,
    /// The parent the path names.
    pub parent: S::Parent,
}

impl<'a, S: ParentedService> Within<'a, S> {
    /// `service` under `parent`.
    pub fn new(service: &'a S, parent: S::Parent) -> Within<'a, S> {
        Within { service, parent }
    }

    /// Checks the parent's id, then what the service checks of the parent before its
    /// resources are read or, with `change`, changed (a create's `admit_new` calls it).
    ///
    /// # Errors
    /// INVALID_ARGUMENT (`INVALID_NAME` on `parent`) for a malformed id; what
    /// [`ParentedService::check_parent`] refuses.
    pub async fn check_parent(&self, principal: &Principal, change: bool) -> Result<()> {
        if !is_well_formed_id(self.parent.id()) {
            return Err(Error::invalid_field(
                "parent",
                "INVALID_NAME",
                format!("'{}' is not a valid parent name", self.parent.name()),
            ));
        }
        self.service
            .check_parent(principal, &self.parent, change)
            .await
    }

    /// The resource `id` of the parent (AIP-131).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed parent or id; NOT_FOUND when the parent is
    /// unreachable or the resource missing.
    pub async fn get(&self, principal: &Principal, id: &str) -> Result<S::Resource> {
        self.check_id(id)?;
        self.check_parent(principal, false).await?;
        self.fetch(principal, id).await
    }

    /// Checks the id of a resource of the parent before the parent is looked at, so a
    /// malformed one is refused as such whatever the parent (a missing parent would
    /// otherwise pass for a missing resource, which `allowMissing` accepts).
    ///
    /// # Errors
    /// INVALID_ARGUMENT (`INVALID_NAME`) for a malformed id.
    fn check_id(&self, id: &str) -> Result<()> {
        if is_well_formed_id(id) {
            return Ok(());
        }
        Err(Error::invalid_field(
            "name",
            "INVALID_NAME",
            format!(
                "'{}' is not a valid {} name",
                self.name_of(id),
                <S::Resource as Named>::LABEL
            ),
        ))
    }

    /// One page of the resources of the parent (AIP-132, AIP-158, AIP-160).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed parent or bad list parameters; NOT_FOUND when
    /// the parent is unreachable.
    pub async fn list(
        &self,
        principal: &Principal,
        request: &ListRequest,
    ) -> Result<ListResponse<S::Resource>> {
        self.check_parent(principal, false).await?;
        let parent = self.parent.name();
        let spec = self.service.list_spec();
        let store = self.service.store();
        let paging = &self.service.context().paging;
        paging
            .list(spec, store, &principal.tenant, Some(&parent), request)
            .await
    }

    async fn fetch(&self, principal: &Principal, id: &str) -> Result<S::Resource> {
        let name = self.name_of(id);
        let fetch = self.service.store().get(&principal.tenant, &name);
        read_parented(&name, id, fetch).await
    }
}

impl<S: ParentedService> DeclaredFields for Within<'_, S> {
    const BODY: &'static str = S::BODY;

    fn table(&self) -> &'static FieldTable {
        self.service.table()
    }
}

#[async_trait]
impl<S: ParentedService> StoreVersions for Within<'_, S> {
    type Resource = S::Resource;

    const EVENT_KIND: &'static str = S::EVENT_KIND;

    fn ids(&self) -> &dyn IdGenerator {
        self.service.context().ids.as_ref()
    }

    fn clock(&self) -> &dyn Clock {
        self.service.context().clock.as_ref()
    }

    fn name_of(&self, id: &str) -> String {
        S::Resource::name_in(&self.parent.name(), id)
    }

    fn short_name(&self, id: &str) -> Option<String> {
        Some(<S::Resource as Named>::name_of(id))
    }

    fn check_caller(&self, principal: &Principal, current: &S::Resource) -> Result<()> {
        self.service.check_caller(principal, current)
    }

    /// The read before a change: the parent must admit changes.
    async fn read(&self, principal: &Principal, id: &str) -> Result<S::Resource> {
        self.check_id(id)?;
        self.check_parent(principal, true).await?;
        self.fetch(principal, id).await
    }

    async fn write_new<'a>(
        &self,
        tenant: &TenantId,
        resource: &S::Resource,
        key: Option<&'a IdempotencyKey>,
        events: &[NewEvent],
    ) -> std::result::Result<CreateOutcome, RepositoryError> {
        self.service
            .store()
            .create(tenant, resource, key, events)
            .await
    }

    async fn write_version(
        &self,
        tenant: &TenantId,
        updated: &S::Resource,
        expected_revision: i64,
        events: &[NewEvent],
    ) -> std::result::Result<(), RepositoryError> {
        self.service
            .store()
            .update(tenant, updated, expected_revision, events)
            .await
    }
}

/// Implements [`StoreVersions`] and [`DeclaredFields`](crate::methods::DeclaredFields)
/// for a service with a [`ServiceContext`] field `context` and a `get(principal, id)`
/// method: `fields = TABLE as "body"` names its field table and what errors call its
/// request bodies; `store = field.method` names the repository (whose `create` writes a
/// new resource) and its method that writes a version (`repository.update`);
/// `creation_error = method` names its [`StoreVersions::creation_error`]. A resource
/// that is never deleted (forms) has only these; [`soft_delete_methods!`] adds Delete,
/// Undelete and the purge.
macro_rules! store_methods {
    ($service:ty, $resource:ty, $kind:literal, fields = $table:path as $body:literal, store = $store:ident . $write:ident $(, creation_error = $creation_error:ident)?) => {
        impl $crate::methods::DeclaredFields for $service {
            const BODY: &'static str = $body;

            fn table(&self) -> &'static rics_aip::field_mask::FieldTable {
                &$table
            }
        }

        #[async_trait::async_trait]
        impl $crate::lifecycle::StoreVersions for $service {
            type Resource = $resource;

            const EVENT_KIND: &'static str = $kind;

            fn ids(&self) -> &dyn $crate::id::IdGenerator {
                self.context.ids.as_ref()
            }

            fn clock(&self) -> &dyn $crate::time::Clock {
                self.context.clock.as_ref()
            }

            async fn read(
                &self,
                principal: &$crate::principal::Principal,
                id: &str,
            ) -> $crate::error::Result<$resource> {
                self.get(principal, id).await
            }

            async fn write_new<'a>(
                &self,
                tenant: &$crate::principal::TenantId,
                resource: &$resource,
                key: Option<&'a $crate::repository::IdempotencyKey>,
                events: &[$crate::event::NewEvent],
            ) -> std::result::Result<$crate::repository::CreateOutcome, $crate::repository::RepositoryError> {
                self.$store.create(tenant, resource, key, events).await
            }

            $(
                fn creation_error(&self, resource: &$resource, error: $crate::error::Error) -> $crate::error::Error {
                    self.$creation_error(resource, error)
                }
            )?

            async fn write_version(
                &self,
                tenant: &$crate::principal::TenantId,
                updated: &$resource,
                expected_revision: i64,
                events: &[$crate::event::NewEvent],
            ) -> std::result::Result<(), $crate::repository::RepositoryError> {
                self.$store
                    .$write(tenant, updated, expected_revision, events)
                    .await
            }
        }

    };
}

pub(crate) use store_methods;

/// Implements [`StoreVersions`] and [`SoftDeleteMethods`] for a service with a
/// [`ServiceContext`] field `context` and a `get(principal, id)` method, as every
/// resource service has them: what [`store_methods!`] implements, and `check = method`
/// names the service's [`SoftDeleteMethods::check_deletion`] and `purge =
/// "collection"` implements [`Purge`](crate::housekeeping::Purge) over a
/// [`ResourceStore`] field with [`purge_recorded`].
macro_rules! soft_delete_methods {
    ($service:ty, $resource:ty, $kind:literal, fields = $table:path as $body:literal, store = $store:ident . $write:ident $(, check = $check:ident)? $(, creation_error = $creation_error:ident)? $(, purge = $collection:literal)?) => {
        $(
            #[async_trait::async_trait]
            impl $crate::housekeeping::Purge for $service {
                fn collection(&self) -> &'static str {
                    $collection
                }

                async fn find_purge_due(
                    &self,
                    now: $crate::time::Timestamp,
                    limit: u32,
                ) -> $crate::housekeeping::Stored<Vec<($crate::principal::TenantId, String)>> {
                    self.$store.find_purge_due(now, limit).await
                }

                async fn purge_one(
                    &self,
                    system: &$crate::principal::Principal,
                    due: &$crate::housekeeping::PurgeDue,
                ) -> $crate::housekeeping::Stored<()> {
                    $crate::lifecycle::purge_recorded(self, self.$store.as_ref(), system, due).await
                }
            }
        )?

        $crate::lifecycle::store_methods!(
            $service, $resource, $kind, fields = $table as $body, store = $store.$write
            $(, creation_error = $creation_error)?
        );

        #[async_trait::async_trait]
        impl $crate::lifecycle::SoftDeleteMethods for $service {
            fn retention(&self) -> std::time::Duration {
                self.context.retention
            }

            $(
                async fn check_deletion(
                    &self,
                    principal: &$crate::principal::Principal,
                    current: &$resource,
                ) -> $crate::error::Result<()> {
                    self.$check(principal, current).await
                }
            )?
        }
    };
}

pub(crate) use soft_delete_methods;

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq, Serialize)]
    struct Thing {
        name: String,
        uid: String,
        etag: String,
        revision: i64,
        create_time: Option<Timestamp>,
        update_time: Option<Timestamp>,
        delete_time: Option<Timestamp>,
        purge_time: Option<Timestamp>,
    }

    crate::soft_deletable!(Thing);

    fn thing(deleted: bool) -> Thing {
        Thing {
            name: "things/a".into(),
            uid: "u".into(),
            etag: "\"e\"".into(),
            revision: 1,
            create_time: None,
            update_time: None,
            delete_time: deleted.then(|| Timestamp::from_unix_micros(1).unwrap()),
            purge_time: deleted.then(|| Timestamp::from_unix_micros(2).unwrap()),
        }
    }

    #[test]
    fn a_soft_delete_follows_aip_164() {
        let now = Timestamp::from_unix_micros(1_000_000).unwrap();
        let week = Duration::from_secs(7 * 86_400);
        let SoftDelete::Store { current, deleted } =
            soft_delete(Ok(thing(false)), Some("\"e\""), false, now, week).unwrap()
        else {
            panic!("a live thing is deleted");
        };
        assert_eq!(current, thing(false));
        assert!(deleted.is_deleted() && !current.is_deleted());
        assert_eq!(
            (deleted.delete_time, deleted.purge_time),
            (Some(now), Some(now.plus(week)))
        );
        let missing = || Err(Error::not_found("things/a"));
        assert_eq!(
            soft_delete::<Thing>(missing(), None, true, now, week).unwrap(),
            SoftDelete::Answer(None)
        );
        assert_eq!(
            soft_delete::<Thing>(missing(), None, false, now, week)
                .unwrap_err()
                .code,
            Code::NotFound
        );
        assert_eq!(
            soft_delete(Ok(thing(true)), None, true, now, week).unwrap(),
            SoftDelete::Answer(Some(thing(true)))
        );
        assert_eq!(
            soft_delete(Ok(thing(true)), None, false, now, week)
                .unwrap_err()
                .code,
            Code::NotFound
        );
        assert_eq!(
            soft_delete(Ok(thing(false)), Some("\"x\""), false, now, week)
                .unwrap_err()
                .code,
            Code::Aborted
        );
    }

    #[test]
    fn only_a_deleted_resource_is_restored() {
        assert_eq!(
            restore(&thing(true), None).unwrap(),
            Thing {
                delete_time: None,
                purge_time: None,
                ..thing(true)
            }
        );
        assert_eq!(
            restore(&thing(false), None).unwrap_err().reason,
            "RESOURCE_NOT_DELETED"
        );
        assert_eq!(
            restore(&thing(true), Some("\"x\"")).unwrap_err().code,
            Code::Aborted
        );
    }

    #[test]
    fn etags_are_checked_only_when_given() {
        assert!(check_etag("x/1", "\"a\"", None).is_ok());
        assert!(check_etag("x/1", "\"a\"", Some("")).is_ok());
        assert!(check_etag("x/1", "\"a\"", Some("\"a\"")).is_ok());
        assert_eq!(
            check_etag("x/1", "\"a\"", Some("\"b\"")).unwrap_err().code,
            Code::Aborted
        );
    }

    fn key(fingerprint: &str) -> IdempotencyKey {
        IdempotencyKey {
            request_id: "r".into(),
            method: "things.create",
            fingerprint: fingerprint.into(),
            resource_name: "things/a".into(),
        }
    }

    #[tokio::test]
    async fn a_replay_returns_the_first_resource_only_for_the_same_request() {
        let replay = || async {
            Ok(CreateOutcome::Replayed {
                method: "things.create".into(),
                fingerprint: "f1".into(),
                resource_name: "things/first".into(),
            })
        };
        let same = create_once("things/b", Some(&key("f1")), replay).await;
        assert_eq!(same.unwrap(), Some("things/first".into()));
        let other = create_once("things/b", Some(&key("f2")), replay).await;
        assert_eq!(other.unwrap_err().reason, "REQUEST_ID_REUSED");
    }

    #[tokio::test]
    async fn a_lost_race_on_the_key_is_retried_once() {
        let mut calls = 0;
        let result = create_once("things/a", Some(&key("f")), || {
            calls += 1;
            let first = calls == 1;
            async move {
                if first {
                    Err(RepositoryError::Conflict)
                } else {
                    Ok(CreateOutcome::Created)
                }
            }
        })
        .await;
        assert_eq!(result.unwrap(), None);
        assert_eq!(calls, 2);
        let taken = create_once("things/a", None, || async {
            Err(RepositoryError::AlreadyExists)
        })
        .await;
        assert_eq!(taken.unwrap_err().code, Code::AlreadyExists);
    }
}
