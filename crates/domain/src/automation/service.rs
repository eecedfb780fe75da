//! The automation use cases: the standard methods, with every definition checked when
//! stored, built-in automations kept as they are, and revisions (AIP-162).

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

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

    /// Stores the automations of a file that [`check_file`] admitted in the tenant of
    /// `principal`: each is created under its id, or replaces the definition stored
    /// under it (a new revision when its parameters or steps changed). Returns each
    /// one's name and what was done.
    ///
    /// # Errors
    /// FAILED_PRECONDITION (`BUILT_IN_AUTOMATION`, `RESOURCE_DELETED`) for an id of a
    /// built-in or deleted automation, and what a create or update refuses; the
    /// automations before it are stored.
    pub async fn load(
        &self,
        principal: &Principal,
        automations: &[(String, Value)],
    ) -> Result<Vec<(String, Loaded)>> {
        let mut done = Vec::with_capacity(automations.len());
        for (id, body) in automations {
            let stored = self
                .repository
                .get(&principal.tenant, id)
                .await
                .map_err(|e| e.for_resource(&Automation::name_of(id)))?;
            let loaded = if stored.is_some() {
                self.update(principal, id, body.clone(), Some("*")).await?;
                Loaded::Updated
            } else {
                self.create(principal, body.clone(), Some(id), None).await?;
                Loaded::Created
            };
            done.push((Automation::name_of(id), loaded));
        }
        Ok(done)
    }

    /// A built-in automation is neither changed nor deleted.
    async fn check_not_built_in(&self, _principal: &Principal, current: &Automation) -> Result<()> {
        refuse_built_in(current)
    }
}

/// What loading an automation from a file did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loaded {
    /// It was new.
    Created,
    /// It replaced the automation stored under its id.
    Updated,
}

impl Loaded {
    /// The word a report uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Loaded::Created => "CREATED",
            Loaded::Updated => "UPDATED",
        }
    }
}

/// Reads a file of automations (`rics automations load`): a JSON array of Automation
/// resources as the API takes them, or an object holding one under `automations`, each
/// named `automations/{id}`. Every definition is checked before any is stored, with
/// every fault reported at once, each under `automations[i]`. Returns each one's id and
/// body.
///
/// # Errors
/// INVALID_ARGUMENT with every fault.
pub fn check_file(file: &Value) -> Result<Vec<(String, Value)>> {
    let items = match file {
        Value::Array(items) => items,
        Value::Object(object) => match object.get("automations") {
            Some(Value::Array(items)) => items,
            _ => {
                return Err(Error::invalid_field(
                    "automations",
                    "REQUIRED",
                    "the file holds no list `automations`",
                ));
            }
        },
        _ => {
            return Err(Error::invalid_field(
                "automations",
                "INVALID_VALUE",
                "the file must be a JSON array of automations, or an object with `automations`",
            ));
        }
    };
    let mut v = Violations::new();
    let mut checked = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = format!("automations[{i}]");
        let id = item
            .get("name")
            .and_then(Value::as_str)
            .and_then(|name| name.strip_prefix("automations/"))
            .filter(|id| crate::id::is_well_formed_id(id));
        let Some(id) = id else {
            v.add(
                format!("{at}.name"),
                "INVALID_NAME",
                "must be automations/{automation}",
            );
            continue;
        };
        match serde_json::from_value::<Automation>(item.clone()) {
            Err(error) => v.add(&at, "INVALID_VALUE", error.to_string()),
            Ok(automation) => {
                if let Err(error) = admit(&automation) {
                    for fault in error.field_violations {
                        let field = fault.field.replacen("automation", &at, 1);
                        v.add(field, fault.reason, fault.description);
                    }
                }
            }
        }
        checked.push((id.to_owned(), item.clone()));
    }
    v.finish().map(|()| checked)
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
