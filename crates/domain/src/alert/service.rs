//! The alert use cases: reading alert types, raising alerts (for API callers and for
//! jobs), acknowledging them, soft delete and purge; and the provisioning step that
//! gives every new tenant the default alert types.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use super::fields;
use super::model::{Alert, AlertState, AlertType, Disposition, NewAlert, ResolveRequest};
use super::ports::{AlertRepository, AlertTypeRepository};
use crate::entity::references::check_named_entities;
use crate::entity::repository::EntityRepository;
use crate::error::{Code, Error, Result};
use crate::event::NewEvent;
use crate::id::is_well_formed_id;
use crate::lifecycle::{self, ServiceContext, check_etag, deleted};
use crate::lifecycle::{SoftDeletable, StoreVersions, soft_delete_methods};
use crate::list::{ListRequest, ListResponse};
use crate::methods::CreateMethod;
use crate::principal::{Principal, TenantId};
use crate::repository::RepositoryError;
use crate::resource::to_json;
use crate::tenant::ports::TenantPlan;
use crate::tenant::service::{Credentials, ProvisioningStep};
use crate::time::Timestamp;
use crate::validate::{Lines, Violations};
use crate::workspace::ports::WorkspaceRepository;
use crate::workspace::references::check_named_workspace;

/// Longest title.
pub const MAX_TITLE: usize = 200;
/// Longest description.
pub const MAX_DESCRIPTION: usize = 2000;
/// Most entities one alert names.
pub const MAX_ENTITIES: usize = 100;
/// Largest `details` object, in bytes of its JSON text (64 KiB).
pub const MAX_DETAILS_BYTES: usize = 64 * 1024;

/// Everything the alert service needs.
#[derive(derive_new::new)]
pub struct AlertService {
    alerts: Arc<dyn AlertRepository>,
    types: Arc<dyn AlertTypeRepository>,
    entities: Arc<dyn EntityRepository>,
    workspaces: Arc<dyn WorkspaceRepository>,
    /// The clock, ids, paging and retention.
    context: ServiceContext,
}

impl AlertService {
    /// The alert type with `id`.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed id; NOT_FOUND.
    pub async fn get_type(&self, principal: &Principal, id: &str) -> Result<AlertType> {
        let name = AlertType::name_of(id);
        if !is_well_formed_id(id) {
            return Err(Error::invalid_field(
                "name",
                "INVALID_NAME",
                format!("'{name}' is not a valid alert type name"),
            ));
        }
        self.types
            .get(&principal.tenant, id)
            .await
            .map_err(|e| e.for_resource(&name))?
            .ok_or_else(|| Error::not_found(&name))
    }

    /// One page of alert types, by display name unless `orderBy` says otherwise.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for bad list parameters.
    pub async fn list_types(
        &self,
        principal: &Principal,
        request: &ListRequest,
    ) -> Result<ListResponse<AlertType>> {
        let (query, context) =
            self.context
                .paging
                .prepare(&fields::TYPE_LIST, &principal.tenant, None, request)?;
        let page = self
            .types
            .list(&principal.tenant, &query)
            .await
            .map_err(Error::from)?;
        Ok(self.context.paging.finish(context, page))
    }
    /// Raises an alert for an internal caller, such as a job: `source` is the caller's
    /// resource name (the job) and `id` the alert's id, chosen by the caller from what
    /// it is raising the alert about (for example the job's id). Raising is idempotent
    /// on that id: when `id` already names an alert from the same `source`, that alert
    /// is returned and nothing is written, so a job that is retried after it raised
    /// its alert raises exactly one. The checks are those of [`AlertService::create`].
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed id, an empty source or bad fields; NOT_FOUND
    /// and FAILED_PRECONDITION as for `create`; ALREADY_EXISTS when `id` names an alert
    /// of another source.
    pub async fn raise(
        &self,
        principal: &Principal,
        id: &str,
        source: &str,
        new: NewAlert,
    ) -> Result<Alert> {
        let name = Alert::name_of(id);
        check_raised(id, source)?;
        if let Some(existing) = self
            .alerts
            .get(&principal.tenant, id)
            .await
            .map_err(|e| e.for_resource(&name))?
        {
            return same_source(existing, source);
        }
        let (alert, events) = self.prepare_raise(principal, id, source, new, &[]).await?;
        match self
            .alerts
            .create(&principal.tenant, &alert, None, &events)
            .await
        {
            Ok(_) => Ok(alert),
            // A concurrent retry of the same job stored it first.
            Err(RepositoryError::AlreadyExists) => {
                same_source(self.get(principal, id).await?, source)
            }
            Err(e) => Err(e.for_resource(&name)),
        }
    }

    /// What [`AlertService::raise`] writes under `id` when nothing is stored under
    /// it, checked and completed but not written: the alert and its event, for a job
    /// run to write with its end in one transaction. The entities named in `live`
    /// (`entities/{id}`) are not read again: the run read them live.
    ///
    /// # Errors
    /// As [`AlertService::raise`], but for ALREADY_EXISTS.
    pub async fn prepare_raise(
        &self,
        principal: &Principal,
        id: &str,
        source: &str,
        new: NewAlert,
        live: &[String],
    ) -> Result<(Alert, Vec<NewEvent>)> {
        check_raised(id, source)?;
        let mut alert = new.into_alert();
        if alert.title.trim().is_empty() {
            // Raised without a title (an automation's RAISE_ALERT step with no
            // description): titled after its type.
            alert.title = self.alert_type(principal, &alert).await?.display_name;
        }
        self.admit(principal, &mut alert, live).await?;
        let now = self.context.clock.now();
        self.complete(&mut alert, id, source.to_owned(), now);
        let events = self.events(
            "alert.created",
            &alert,
            principal,
            now,
            None,
            Some(&to_json(&alert)?),
        );
        Ok((alert, events))
    }

    /// The alert with `id`, deleted or not.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed id; NOT_FOUND.
    pub async fn get(&self, principal: &Principal, id: &str) -> Result<Alert> {
        lifecycle::read(id, self.alerts.get(&principal.tenant, id)).await
    }

    /// One page of alerts, newest first unless `orderBy` says otherwise (AIP-132,
    /// AIP-158, AIP-160).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for bad list parameters.
    pub async fn list(
        &self,
        principal: &Principal,
        request: &ListRequest,
    ) -> Result<ListResponse<Alert>> {
        let store = self.alerts.as_ref();
        self.context
            .paging
            .list(&fields::LIST, store, &principal.tenant, None, request)
            .await
    }

    /// Acknowledges an ACTIVE alert: it becomes ACKNOWLEDGED, with the caller's subject
    /// as `acknowledger` and the time as `acknowledgeTime`.
    ///
    /// # Errors
    /// NOT_FOUND; FAILED_PRECONDITION when the alert is deleted (`RESOURCE_DELETED`) or
    /// not ACTIVE (`ALERT_NOT_ACTIVE`); ABORTED for a stale etag or a concurrent change.
    pub async fn acknowledge(
        &self,
        principal: &Principal,
        id: &str,
        etag: Option<&str>,
    ) -> Result<Alert> {
        let current = self.changeable(principal, id, etag).await?;
        if current.state != AlertState::Active {
            return Err(Error::failed_precondition(
                "ALERT_NOT_ACTIVE",
                format!(
                    "'{}' is '{}'; only an ACTIVE alert can be acknowledged.",
                    current.name, current.state
                ),
            )
            .with_metadata("resource", current.name.clone())
            .with_metadata("state", current.state.as_str()));
        }
        let now = self.context.clock.now();
        let mut acknowledged = current.clone();
        acknowledged.state = AlertState::Acknowledged;
        acknowledged.acknowledger = principal.subject.clone();
        acknowledged.acknowledge_time = Some(now);
        self.save(principal, &current, acknowledged, "alert.acknowledged", now)
            .await
    }

    /// Resolves an ACTIVE or ACKNOWLEDGED alert: it becomes RESOLVED with the request's
    /// disposition and comment, the caller's subject as `resolver` and the time as
    /// `resolveTime`.
    ///
    /// # Errors
    /// INVALID_ARGUMENT without a disposition or with a comment that breaks its rules;
    /// NOT_FOUND; FAILED_PRECONDITION when the alert is deleted (`RESOURCE_DELETED`) or
    /// already resolved (`ALERT_ALREADY_RESOLVED`); ABORTED for a stale etag or a
    /// concurrent change.
    pub async fn resolve(
        &self,
        principal: &Principal,
        id: &str,
        request: &ResolveRequest,
    ) -> Result<Alert> {
        let mut v = Violations::new();
        if request.disposition.is_unspecified() {
            v.add(
                "disposition",
                "REQUIRED",
                "is required: TRUE_POSITIVE, FALSE_POSITIVE or NOT_RELEVANT",
            );
        }
        v.optional_text("comment", &request.comment, MAX_DESCRIPTION);
        v.control_characters("comment", &request.comment, Lines::Multi);
        v.finish()?;
        let current = self
            .changeable(principal, id, request.etag.as_deref())
            .await?;
        if current.state == AlertState::Resolved {
            return Err(Error::failed_precondition(
                "ALERT_ALREADY_RESOLVED",
                format!(
                    "'{}' is already resolved as {}; a resolved alert stays as it was resolved.",
                    current.name, current.disposition
                ),
            )
            .with_metadata("resource", current.name.clone())
            .with_metadata("disposition", current.disposition.as_str()));
        }
        let now = self.context.clock.now();
        let mut resolved = current.clone();
        resolved.state = AlertState::Resolved;
        resolved.resolver = principal.subject.clone();
        resolved.resolve_time = Some(now);
        resolved.disposition = request.disposition;
        resolved.resolve_comment = request.comment.clone();
        self.save(principal, &current, resolved, "alert.resolved", now)
            .await
    }

    /// The alert `id` for a state change: live, and at `etag` when one is given.
    async fn changeable(
        &self,
        principal: &Principal,
        id: &str,
        etag: Option<&str>,
    ) -> Result<Alert> {
        let current = self.get(principal, id).await?;
        if current.is_deleted() {
            return Err(deleted(&current.name));
        }
        check_etag(&current.name, &current.etag, etag)?;
        Ok(current)
    }

    /// Checks an alert a caller asks for and fills in the alert type's default
    /// severity: its fields, then its alert type, entities and workspace, each of the
    /// caller's tenant; the entities in `live` are known live already (a run read them).
    async fn admit(&self, principal: &Principal, alert: &mut Alert, live: &[String]) -> Result<()> {
        validate(alert)?;
        let alert_type = self.alert_type(principal, alert).await?;
        if alert.severity.is_unspecified() {
            alert.severity = alert_type.default_severity;
        }
        check_named_entities(
            self.entities.as_ref(),
            &principal.tenant,
            "alert.entities",
            &alert.entities,
            live,
            MAX_ENTITIES,
        )
        .await?;
        check_named_workspace(
            self.workspaces.as_ref(),
            &principal.tenant,
            "alert.workspace",
            &alert.workspace,
        )
        .await?;
        Ok(())
    }

    /// The type `alert` names, of the caller's tenant.
    ///
    /// # Errors
    /// NOT_FOUND `ALERT_TYPE_NOT_FOUND` on `alert.alertType` when there is none.
    async fn alert_type(&self, principal: &Principal, alert: &Alert) -> Result<AlertType> {
        let type_id = alert
            .alert_type
            .strip_prefix("alertTypes/")
            .unwrap_or_default();
        self.types
            .get(&principal.tenant, type_id)
            .await
            .map_err(Error::from)?
            .ok_or_else(|| {
                Error::invalid_field(
                    "alert.alertType",
                    "ALERT_TYPE_NOT_FOUND",
                    format!("'{}' does not exist", alert.alert_type),
                )
                .with_code(Code::NotFound)
            })
    }

    /// Sets the fields only the service sets on a new alert.
    fn complete(&self, alert: &mut Alert, id: &str, source: String, now: Timestamp) {
        alert.begin(Alert::name_of(id), self.context.ids.uid(), now);
        raised(alert, source);
    }
}

/// Refuses what an internal caller raises an alert under: an id that is not a valid
/// resource id, or no source.
///
/// # Errors
/// INVALID_ARGUMENT naming `alertId` or `alert.source`.
fn check_raised(id: &str, source: &str) -> Result<()> {
    if !is_well_formed_id(id) {
        return Err(Error::invalid_field(
            "alertId",
            "INVALID_RESOURCE_ID",
            format!("'{id}' is not a valid alert id"),
        ));
    }
    if source.trim().is_empty() {
        return Err(Error::invalid_field(
            "alert.source",
            "REQUIRED",
            "is required and must not be blank",
        ));
    }
    Ok(())
}

/// The stored alert a job raised before, when `source` raised it.
fn same_source(existing: Alert, source: &str) -> Result<Alert> {
    if existing.source == source {
        Ok(existing)
    } else {
        Err(Error::already_exists(&existing.name))
    }
}

/// Checks the fields of a new alert that need no lookup.
fn validate(alert: &Alert) -> Result<()> {
    let mut v = Violations::new();
    if alert.alert_type.trim().is_empty() {
        v.add(
            "alert.alertType",
            "REQUIRED",
            "is required (alertTypes/{alertType})",
        );
    } else if !alert
        .alert_type
        .strip_prefix("alertTypes/")
        .is_some_and(is_well_formed_id)
    {
        v.add(
            "alert.alertType",
            "INVALID_NAME",
            format!(
                "'{}' is not an alert type name (alertTypes/{{alertType}})",
                alert.alert_type
            ),
        );
    }
    v.required_text("alert.title", &alert.title, MAX_TITLE);
    v.optional_text("alert.description", &alert.description, MAX_DESCRIPTION);
    if !alert.workspace.is_empty()
        && !alert
            .workspace
            .strip_prefix("workspaces/")
            .is_some_and(is_well_formed_id)
    {
        v.add(
            "alert.workspace",
            "INVALID_NAME",
            format!(
                "'{}' is not a workspace name (workspaces/{{workspace}})",
                alert.workspace
            ),
        );
    }
    let details = Value::Object(alert.details.clone()).to_string().len();
    if details > MAX_DETAILS_BYTES {
        v.add(
            "alert.details",
            "TOO_LONG",
            format!("must be at most {MAX_DETAILS_BYTES} bytes of JSON (got {details})"),
        );
    }
    if v.is_empty() {
        Ok(())
    } else {
        Err(Error::invalid_fields(v.into_vec()))
    }
}

/// The provisioning step that gives a new tenant the default alert types
/// ([`crate::alert::model::DEFAULT_ALERT_TYPES`]), created with the tenant. It also
/// runs on the first start's bootstrap.
#[derive(Debug, Default, Clone, Copy)]
pub struct DefaultAlertTypes;

#[async_trait]
impl ProvisioningStep for DefaultAlertTypes {
    fn name(&self) -> &'static str {
        "default-alert-types"
    }

    async fn apply(&self, plan: &mut TenantPlan, _credentials: &mut Credentials) -> Result<()> {
        let created = plan
            .tenant
            .create_time
            .ok_or_else(|| Error::internal("a tenant plan without a creation time"))?;
        let tenant = TenantId::new(plan.tenant.id());
        plan.alert_types
            .extend(AlertType::defaults(&tenant, created));
        Ok(())
    }
}

/// Makes `alert` a new ACTIVE alert raised by `source`.
fn raised(alert: &mut Alert, source: String) {
    alert.state = AlertState::Active;
    alert.source = source;
    alert.acknowledger = String::new();
    alert.acknowledge_time = None;
    alert.resolver = String::new();
    alert.resolve_time = None;
    alert.disposition = Disposition::Unspecified;
    alert.resolve_comment = String::new();
    alert.delete_time = None;
    alert.purge_time = None;
}

#[async_trait]
impl CreateMethod for AlertService {
    const ID_PARAMETER: &'static str = "alertId";

    /// Its alert type, entities and workspace must exist in the caller's tenant, and
    /// the entities and workspace be live.
    async fn admit_new(
        &self,
        principal: &Principal,
        alert: &mut Alert,
        _now: Timestamp,
    ) -> Result<()> {
        self.admit(principal, alert, &[]).await
    }

    /// A new alert is ACTIVE, raised by the caller (`principals/{subject}`).
    fn fill_new(&self, principal: &Principal, alert: &mut Alert, _now: Timestamp) {
        raised(alert, format!("principals/{}", principal.subject));
    }
}

// Delete and undelete as every soft-deletable resource has them.
soft_delete_methods!(
    AlertService,
    Alert,
    "alert",
    fields = fields::TABLE as "alert",
    store = alerts.update,
    purge = "alerts"
);
