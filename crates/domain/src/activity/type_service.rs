//! The activity log type use cases: create, read, list (with fuzzy search), update,
//! soft delete, undelete and purge.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::fields;
use super::model::ActivityLogType;
use super::payload_schema::PayloadSchema;
use super::ports::ActivityLogTypeRepository;

use crate::error::{Error, Result};
use crate::event::NewEvent;
use crate::housekeeping::{Purge, PurgeDue, Stored};
use crate::id::{IdGenerator, parse_request_id, validate_spec_id};
use crate::lifecycle::soft_delete_methods;
use crate::lifecycle::{self, deleted};
use crate::list::{ListRequest, ListResponse, Paging};
use crate::principal::{Principal, TenantId};
use crate::repository::IdempotencyKey;
use crate::resource::{self, fingerprint, parse_body, to_json};
use crate::time::{Clock, Timestamp};
use crate::validate::Violations;

/// Longest display name.
pub const MAX_DISPLAY_NAME: usize = 200;
/// Longest description.
pub const MAX_DESCRIPTION: usize = 2000;
/// The method name bound into idempotency keys.
const CREATE_METHOD: &str = "activityLogTypes.create";

/// Everything the activity log type service needs.
pub struct ActivityLogTypeService {
    repository: Arc<dyn ActivityLogTypeRepository>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    paging: Arc<Paging>,
    retention: Duration,
}

impl ActivityLogTypeService {
    /// The service over its ports. `retention` is how long soft-deleted types are kept
    /// before they are purged.
    pub fn new(
        repository: Arc<dyn ActivityLogTypeRepository>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        paging: Arc<Paging>,
        retention: Duration,
    ) -> ActivityLogTypeService {
        ActivityLogTypeService {
            repository,
            clock,
            ids,
            paging,
            retention,
        }
    }

    /// Creates a type from the request body, with an optional user-chosen id and an
    /// optional request id that makes retries safe (AIP-133, AIP-155).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a bad body (an invalid `payloadSchema` included), id or
    /// request id, or a request id reused with another request; ALREADY_EXISTS when the
    /// id is taken.
    pub async fn create(
        &self,
        principal: &Principal,
        body: Value,
        type_id: Option<&str>,
        request_id: Option<&str>,
    ) -> Result<ActivityLogType> {
        let request_id = request_id.map(parse_request_id).transpose()?;
        if let Some(id) = type_id {
            validate_spec_id("activityLogTypeId", id)?;
        }
        let body = fields::type_input(body)?;
        let mut log_type: ActivityLogType = parse_body(body.clone(), "activityLogType")?;
        validate_type(&mut log_type)?;
        let now = self.clock.now();
        let id = type_id.map_or_else(|| self.ids.resource_id(), str::to_owned);
        log_type.name = ActivityLogType::name_of(&id);
        log_type.uid = self.ids.uid();
        log_type.revision = 1;
        log_type.etag = resource::etag(&log_type.uid, log_type.revision);
        log_type.create_time = Some(now);
        log_type.update_time = Some(now);
        let key = request_id.map(|request_id| IdempotencyKey {
            request_id: request_id.to_string(),
            method: CREATE_METHOD,
            fingerprint: fingerprint(
                CREATE_METHOD,
                &[
                    ("activityLogTypeId", &json!(type_id)),
                    ("activityLogType", &body),
                ],
            ),
            resource_name: log_type.name.clone(),
        });
        let after = to_json(&log_type)?;
        let events = [self
            .event("activity_log_type.created", &log_type.name, principal, now)
            .with_changes(None, Some(&after))];
        let replayed = lifecycle::create_once(&log_type.name, key.as_ref(), || {
            self.repository
                .create(&principal.tenant, &log_type, key.as_ref(), &events)
        })
        .await?;
        match replayed {
            None => Ok(log_type),
            Some(resource_name) => {
                let id = resource_name
                    .strip_prefix("activityLogTypes/")
                    .unwrap_or(&resource_name);
                self.get(principal, id).await
            }
        }
    }

    /// The type with `id`, deleted or not.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed id; NOT_FOUND.
    pub async fn get(&self, principal: &Principal, id: &str) -> Result<ActivityLogType> {
        lifecycle::read(id, self.repository.get(&principal.tenant, id)).await
    }

    /// One page of types (AIP-132, AIP-158, AIP-160); a fuzzy search on
    /// `displayName` without `orderBy` ranks the best matches first.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for bad list parameters.
    pub async fn list(
        &self,
        principal: &Principal,
        request: &ListRequest,
    ) -> Result<ListResponse<ActivityLogType>> {
        let (query, context) =
            self.paging
                .prepare(&fields::TYPE_LIST, &principal.tenant, None, request)?;
        let page = self
            .repository
            .list(&principal.tenant, &query)
            .await
            .map_err(Error::from)?;
        Ok(self.paging.finish(context, page))
    }

    /// Updates a type from a partial body and an optional update mask (AIP-134).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a bad body or mask, or a name that is not the path's;
    /// NOT_FOUND; FAILED_PRECONDITION when the type is deleted; ABORTED for a stale
    /// etag or a concurrent change.
    pub async fn update(
        &self,
        principal: &Principal,
        id: &str,
        body: Value,
        update_mask: Option<&str>,
    ) -> Result<ActivityLogType> {
        let name = ActivityLogType::name_of(id);
        let patch = crate::fields::read_patch::<ActivityLogType>(
            &fields::TYPE_TABLE,
            body,
            update_mask,
            &name,
            "activityLogType",
        )?;
        let current = self.get(principal, id).await?;
        if current.is_deleted() {
            return Err(deleted(&name));
        }
        lifecycle::check_etag(&current.name, &current.etag, patch.etag.as_deref())?;
        let current_json = to_json(&current)?;
        let merged = fields::apply_mask(&patch.mask, &current_json, &patch.body)?;
        let mut updated: ActivityLogType =
            parse_body(fields::type_input(merged)?, "activityLogType")?;
        validate_type(&mut updated)?;
        carry_output_only(&current, &mut updated);
        if to_json(&updated)? == current_json {
            return Ok(current);
        }
        self.save(
            principal,
            &current,
            updated,
            "activity_log_type.updated",
            self.clock.now(),
        )
        .await
    }

    /// Stores `updated` as the next version of `current`, with its event.
    async fn save(
        &self,
        principal: &Principal,
        current: &ActivityLogType,
        mut updated: ActivityLogType,
        event_type: &str,
        now: Timestamp,
    ) -> Result<ActivityLogType> {
        updated.revision = current.revision + 1;
        updated.update_time = Some(now);
        updated.etag = resource::etag(&updated.uid, updated.revision);
        let before = to_json(current)?;
        let after = to_json(&updated)?;
        let event = self
            .event(event_type, &current.name, principal, now)
            .with_changes(Some(&before), Some(&after));
        self.repository
            .update(&principal.tenant, &updated, current.revision, &[event])
            .await
            .map_err(|e| e.for_resource(&current.name))?;
        Ok(updated)
    }

    fn event(
        &self,
        event_type: &str,
        resource: &str,
        principal: &Principal,
        now: Timestamp,
    ) -> NewEvent {
        NewEvent::new(self.ids.resource_id(), event_type, resource, principal, now)
    }
}

/// Checks a type and normalises it: an empty `payloadSchema` is no schema.
///
/// # Errors
/// INVALID_ARGUMENT listing every violation: a blank or over-long display name, a
/// description over 2000 characters, an invalid payload schema.
fn validate_type(log_type: &mut ActivityLogType) -> Result<()> {
    let mut v = Violations::new();
    v.required_text(
        "activityLogType.displayName",
        &log_type.display_name,
        MAX_DISPLAY_NAME,
    );
    v.optional_text(
        "activityLogType.description",
        &log_type.description,
        MAX_DESCRIPTION,
    );
    if log_type
        .payload_schema
        .as_ref()
        .is_some_and(|s| s.is_empty())
    {
        log_type.payload_schema = None;
    }
    if let Some(schema) = &log_type.payload_schema
        && let Err(problem) = PayloadSchema::compile(schema)
    {
        v.add(
            "activityLogType.payloadSchema",
            "INVALID_PAYLOAD_SCHEMA",
            problem,
        );
    }
    if v.is_empty() {
        Ok(())
    } else {
        Err(Error::invalid_fields(v.into_vec()))
    }
}

/// Copies the fields only the service sets from `current`.
fn carry_output_only(current: &ActivityLogType, updated: &mut ActivityLogType) {
    updated.name = current.name.clone();
    updated.uid = current.uid.clone();
    updated.revision = current.revision;
    updated.etag = current.etag.clone();
    updated.create_time = current.create_time;
    updated.update_time = current.update_time;
    updated.delete_time = current.delete_time;
    updated.purge_time = current.purge_time;
}

#[async_trait]
impl Purge for ActivityLogTypeService {
    fn collection(&self) -> &'static str {
        "activity log types"
    }

    async fn find_purge_due(&self, now: Timestamp, limit: u32) -> Stored<Vec<(TenantId, String)>> {
        self.repository.find_purge_due(now, limit).await
    }

    /// Removes the type with a tenant-level `activity_log_type.purged` event; its logs
    /// keep its name.
    async fn purge_one(&self, system: &Principal, due: &PurgeDue) -> Stored<()> {
        let &PurgeDue {
            ref tenant,
            ref id,
            now,
        } = due;
        let name = ActivityLogType::name_of(id);
        let event = self.event("activity_log_type.purged", &name, system, now);
        self.repository.purge(tenant, id, now, &[event]).await
    }
}

// Delete and undelete as every soft-deletable resource has them: logs of a deleted
// type keep it, and new logs cannot name it until it is restored.
soft_delete_methods!(ActivityLogTypeService, ActivityLogType, "activity_log_type");
