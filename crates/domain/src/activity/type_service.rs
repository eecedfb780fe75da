//! The activity log type use cases: create, read, list (with fuzzy search), update,
//! soft delete, undelete and purge.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use async_trait::async_trait;
use rics_aip::field_mask::FieldTable;

use super::fields;
use super::model::ActivityLogType;
use super::payload_schema::PayloadSchema;
use super::ports::ActivityLogTypeRepository;

use crate::error::{Error, Result};
use crate::id::{IdGenerator, parse_request_id, validate_spec_id};
use crate::lifecycle::{self};
use crate::lifecycle::{SoftDeletable, StoreVersions, soft_delete_methods};
use crate::list::{ListRequest, ListResponse, Paging};
use crate::principal::Principal;
use crate::resource::parse_body;
use crate::time::Clock;
use crate::update::UpdateMethod;
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
        log_type.begin(ActivityLogType::name_of(&id), self.ids.uid(), now);
        let key = lifecycle::create_key(
            request_id,
            CREATE_METHOD,
            &[
                ("activityLogTypeId", &json!(type_id)),
                ("activityLogType", &body),
            ],
            &log_type.name,
        );
        self.store_new(principal, log_type, key.as_ref(), now).await
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
        let store = self.repository.as_ref();
        self.paging
            .list(&fields::TYPE_LIST, store, &principal.tenant, None, request)
            .await
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
#[async_trait]
impl UpdateMethod for ActivityLogTypeService {
    const BODY: &'static str = "activityLogType";

    fn table(&self) -> &'static FieldTable {
        &fields::TYPE_TABLE
    }

    async fn admit_update(
        &self,
        _principal: &Principal,
        _current: &ActivityLogType,
        updated: &mut ActivityLogType,
    ) -> Result<()> {
        validate_type(updated)
    }
}

// Delete and undelete as every soft-deletable resource has them: logs of a deleted
// type keep it, and new logs cannot name it until it is restored.
soft_delete_methods!(
    ActivityLogTypeService,
    ActivityLogType,
    "activity_log_type",
    store = repository.update,
    purge = "activity log types"
);
