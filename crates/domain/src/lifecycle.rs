//! The rules every stored resource shares: etags (AIP-154), the soft-delete states
//! (AIP-164) and idempotent creation (AIP-155), with their errors.

use std::future::Future;
use std::time::Duration;

use async_trait::async_trait;

use crate::error::{Code, Error, Result};
use crate::id::is_well_formed_id;
use crate::principal::Principal;
use crate::repository::{CreateOutcome, IdempotencyKey, RepositoryError};
use crate::resource::Named;
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
    let name = R::name_of(id);
    if !is_well_formed_id(id) {
        return Err(Error::invalid_field(
            "name",
            "INVALID_NAME",
            format!("'{name}' is not a valid {} name", R::LABEL),
        ));
    }
    fetch
        .await
        .map_err(|e| e.for_resource(&name))?
        .ok_or_else(|| Error::not_found(&name))
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
}

impl Referred {
    fn reason(self) -> &'static str {
        match self {
            Referred::Entity => "ENTITY_DELETED",
            Referred::Workspace => "WORKSPACE_DELETED",
            Referred::ActivityLogType => "ACTIVITY_LOG_TYPE_DELETED",
            Referred::Document => "DOCUMENT_DELETED",
        }
    }

    fn metadata_key(self) -> &'static str {
        match self {
            Referred::Entity => "entity",
            Referred::Workspace => "workspace",
            Referred::ActivityLogType => "activityLogType",
            Referred::Document => "document",
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

/// A resource with the soft-delete fields of AIP-164: `name`, `etag`, `deleteTime`
/// and `purgeTime`.
pub trait SoftDeletable: Clone {
    /// The resource name.
    fn resource_name(&self) -> &str;
    /// The current etag.
    fn current_etag(&self) -> &str;
    /// Whether it is soft-deleted.
    fn is_soft_deleted(&self) -> bool;
    /// Sets (or, with `None`, clears) its deletion and purge times.
    fn set_deletion(&mut self, deletion: Option<(Timestamp, Timestamp)>);
}

/// Implements [`SoftDeletable`] for resources whose fields are named `name`, `etag`,
/// `delete_time` and `purge_time`, and gives them `is_deleted()`.
#[macro_export]
macro_rules! soft_deletable {
    ($($resource:ty),+ $(,)?) => {$(
        impl $resource {
            /// Whether it is soft-deleted.
            pub fn is_deleted(&self) -> bool {
                self.delete_time.is_some()
            }
        }

        impl $crate::lifecycle::SoftDeletable for $resource {
            fn resource_name(&self) -> &str {
                &self.name
            }
            fn current_etag(&self) -> &str {
                &self.etag
            }
            fn is_soft_deleted(&self) -> bool {
                self.delete_time.is_some()
            }
            fn set_deletion(&mut self, deletion: Option<($crate::time::Timestamp, $crate::time::Timestamp)>) {
                self.delete_time = deletion.map(|(delete, _)| delete);
                self.purge_time = deletion.map(|(_, purge)| purge);
            }
        }
    )+};
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
pub trait SoftDeleteMethods: Send + Sync {
    /// The resource.
    type Resource: SoftDeletable + Send + Sync + 'static;

    /// The first part of its event types: `workspace` for `workspace.deleted` and
    /// `workspace.undeleted`.
    const EVENT_KIND: &'static str;

    /// The clock deletions are dated by.
    fn clock(&self) -> &dyn Clock;

    /// How long a deleted resource is kept before it is purged.
    fn retention(&self) -> Duration;

    /// The resource `id` of the caller's tenant, deleted or not.
    ///
    /// # Errors
    /// NOT_FOUND when it is missing; UNAVAILABLE or INTERNAL when storage fails.
    async fn read(&self, principal: &Principal, id: &str) -> Result<Self::Resource>;

    /// Stores `updated` as the next version of `current`, with its `event_type` event.
    ///
    /// # Errors
    /// ABORTED when `current` changed meanwhile; UNAVAILABLE or INTERNAL.
    async fn store(
        &self,
        principal: &Principal,
        current: &Self::Resource,
        updated: Self::Resource,
        event_type: &str,
        now: Timestamp,
    ) -> Result<Self::Resource>;

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
                self.store(principal, &current, deleted, &event_type, now)
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
        self.store(
            principal,
            &current,
            restored,
            &event_type,
            self.clock().now(),
        )
        .await
    }
}

/// Implements [`SoftDeleteMethods`] for a service with `clock` and `retention` fields
/// and `get(principal, id)` and `save(principal, current, updated, event_type, now)`
/// methods, as every resource service has them; `check = method` names the service's
/// [`SoftDeleteMethods::check_deletion`].
macro_rules! soft_delete_methods {
    ($service:ty, $resource:ty, $kind:literal $(, check = $check:ident)?) => {
        #[async_trait::async_trait]
        impl $crate::lifecycle::SoftDeleteMethods for $service {
            type Resource = $resource;

            const EVENT_KIND: &'static str = $kind;

            fn clock(&self) -> &dyn $crate::time::Clock {
                self.clock.as_ref()
            }

            fn retention(&self) -> std::time::Duration {
                self.retention
            }

            async fn read(
                &self,
                principal: &$crate::principal::Principal,
                id: &str,
            ) -> $crate::error::Result<$resource> {
                self.get(principal, id).await
            }

            async fn store(
                &self,
                principal: &$crate::principal::Principal,
                current: &$resource,
                updated: $resource,
                event_type: &str,
                now: $crate::time::Timestamp,
            ) -> $crate::error::Result<$resource> {
                self.save(principal, current, updated, event_type, now).await
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

    #[derive(Debug, Clone, PartialEq)]
    struct Thing {
        name: String,
        etag: String,
        delete_time: Option<Timestamp>,
        purge_time: Option<Timestamp>,
    }

    crate::soft_deletable!(Thing);

    fn thing(deleted: bool) -> Thing {
        Thing {
            name: "things/a".into(),
            etag: "\"e\"".into(),
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
