//! The activity log type use cases: create, read, list (with fuzzy search), update,
//! soft delete, undelete and purge.

use std::sync::Arc;

use async_trait::async_trait;

use super::fields;
use super::model::ActivityLogType;
use super::payload_schema::PayloadSchema;
use super::ports::ActivityLogTypeRepository;

use crate::error::{Error, Result};
use crate::id::validate_spec_id;
use crate::lifecycle::soft_delete_methods;
use crate::lifecycle::{self, ServiceContext};
use crate::list::{ListRequest, ListResponse};
use crate::methods::CreateMethod;
use crate::methods::UpdateMethod;
use crate::principal::Principal;
use crate::time::Timestamp;
use crate::validate::Violations;

/// Longest display name.
pub const MAX_DISPLAY_NAME: usize = 200;
/// Longest description.
pub const MAX_DESCRIPTION: usize = 2000;

/// Everything the activity log type service needs.
#[derive(derive_new::new)]
pub struct ActivityLogTypeService {
    repository: Arc<dyn ActivityLogTypeRepository>,
    /// The clock, ids, paging and retention.
    context: ServiceContext,
}

impl ActivityLogTypeService {
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
        self.context
            .paging
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
    async fn admit_update(
        &self,
        _principal: &Principal,
        _current: &ActivityLogType,
        updated: &mut ActivityLogType,
    ) -> Result<()> {
        validate_type(updated)
    }
}

#[async_trait]
impl CreateMethod for ActivityLogTypeService {
    const ID_PARAMETER: &'static str = "activityLogTypeId";

    /// The spec's rule for activity log type ids, UUIDs excluded.
    fn check_id(&self, id: &str) -> Result<()> {
        validate_spec_id(Self::ID_PARAMETER, id)
    }

    /// An invalid `payloadSchema` is refused.
    async fn admit_new(
        &self,
        _principal: &Principal,
        log_type: &mut ActivityLogType,
        _now: Timestamp,
    ) -> Result<()> {
        validate_type(log_type)
    }
}

// Delete and undelete as every soft-deletable resource has them: logs of a deleted
// type keep it, and new logs cannot name it until it is restored.
soft_delete_methods!(
    ActivityLogTypeService,
    ActivityLogType,
    "activity_log_type",
    fields = fields::TYPE_TABLE as "activityLogType",
    store = repository.update,
    purge = "activity log types"
);
