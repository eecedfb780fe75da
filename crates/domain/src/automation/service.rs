//! The automation use cases: the standard methods, with every definition checked when
//! stored, built-in automations kept as they are, and revisions (AIP-162).

use std::sync::Arc;

use async_trait::async_trait;

use super::fields;
use super::model::Automation;
use super::ports::AutomationRepository;
use super::rules;
use crate::error::{Error, Result};
use crate::lifecycle::{self, ServiceContext, soft_delete_methods};
use crate::list::{ListRequest, ListResponse};
use crate::methods::{CreateMethod, UpdateMethod};
use crate::principal::Principal;
use crate::time::Timestamp;
use crate::validate::Violations;

/// Longest display name.
pub const MAX_DISPLAY_NAME: usize = 200;
/// Longest description.
pub const MAX_DESCRIPTION: usize = 2000;

/// The automations of the caller's tenant.
#[derive(derive_new::new)]
pub struct AutomationService {
    repository: Arc<dyn AutomationRepository>,
    /// The clock, ids (resource ids, uids and revision ids), paging and retention.
    context: ServiceContext,
}

impl AutomationService {
    /// The automation `id`, deleted or not, at its latest revision.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed id; NOT_FOUND.
    pub async fn get(&self, principal: &Principal, id: &str) -> Result<Automation> {
        lifecycle::read(id, self.repository.get(&principal.tenant, id)).await
    }

    /// One page of the tenant's automations (AIP-132, AIP-158, AIP-160).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for bad list parameters.
    pub async fn list(
        &self,
        principal: &Principal,
        request: &ListRequest,
    ) -> Result<ListResponse<Automation>> {
        let store = self.repository.as_ref();
        self.context
            .paging
            .list(&fields::LIST, store, &principal.tenant, None, request)
            .await
    }

    /// A built-in automation is neither changed nor deleted.
    async fn check_not_built_in(&self, _principal: &Principal, current: &Automation) -> Result<()> {
        refuse_built_in(current)
    }
}

/// FAILED_PRECONDITION (`BUILT_IN_AUTOMATION`) for a built-in automation.
fn refuse_built_in(current: &Automation) -> Result<()> {
    if current.built_in {
        return Err(Error::failed_precondition(
            "BUILT_IN_AUTOMATION",
            format!(
                "'{}' is built in and cannot be changed or deleted; create a copy under another id",
                current.name
            ),
        ));
    }
    Ok(())
}

/// Checks every rule of `automation`, reporting every fault.
fn admit(automation: &Automation) -> Result<()> {
    let mut v = Violations::new();
    v.required_text(
        "automation.displayName",
        &automation.display_name,
        MAX_DISPLAY_NAME,
    );
    v.optional_text(
        "automation.description",
        &automation.description,
        MAX_DESCRIPTION,
    );
    rules::check(automation, &mut v);
    v.finish()
}

/// Makes `automation` a new revision of its definition, made at `now`.
fn new_revision(automation: &mut Automation, revision_id: String, now: Timestamp) {
    automation.revision_id = revision_id;
    automation.revision_create_time = Some(now);
}

#[async_trait]
impl CreateMethod for AutomationService {
    const ID_PARAMETER: &'static str = "automationId";

    /// Its definition must keep every rule.
    async fn admit_new(
        &self,
        _principal: &Principal,
        automation: &mut Automation,
        _now: Timestamp,
    ) -> Result<()> {
        admit(automation)
    }

    /// A new automation is its first revision, and is never built in.
    fn fill_new(&self, _principal: &Principal, automation: &mut Automation, now: Timestamp) {
        automation.built_in = false;
        new_revision(automation, self.context.new_revision_id(), now);
    }
}

#[async_trait]
impl UpdateMethod for AutomationService {
    /// A built-in automation cannot be changed, nor a deleted one.
    fn check_writable(&self, current: &Automation) -> Result<()> {
        refuse_built_in(current)?;
        if current.is_deleted() {
            return Err(lifecycle::deleted(&current.name));
        }
        Ok(())
    }

    /// Its definition must keep every rule.
    async fn admit_update(
        &self,
        _principal: &Principal,
        _current: &Automation,
        updated: &mut Automation,
    ) -> Result<()> {
        admit(updated)
    }

    /// A changed definition is a new revision; executions keep the revision they
    /// started with.
    fn on_change(&self, current: &Automation, updated: &mut Automation) {
        if updated.definition() != current.definition() {
            new_revision(
                updated,
                self.context.new_revision_id(),
                self.context.clock.now(),
            );
        }
    }
}

// Delete and undelete as every soft-deletable resource has them, but never of a
// built-in automation: a deleted automation starts no new executions; those started go
// on with their revision.
soft_delete_methods!(
    AutomationService,
    Automation,
    "automation",
    fields = fields::TABLE as "automation",
    store = repository.update,
    check = check_not_built_in,
    purge = "automations"
);
