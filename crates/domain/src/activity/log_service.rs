//! The activity log use cases: write a log about some entities, read one or several,
//! list an entity's, soft delete, undelete and purge. A log never changes once
//! written.

use std::collections::BTreeSet;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use super::fields;
use super::model::{ActivityLog, ActivityLogType, DEFAULT_SOURCE, RESERVED_SOURCE};
use super::payload_schema::PayloadSchema;
use super::ports::{ActivityLogRepository, ActivityLogTypeRepository};

use crate::batch::{self, Collection};
use crate::entity::repository::EntityRepository;
use crate::error::{Code, Error, Result};
use crate::event::NewEvent;
use crate::housekeeping::{Purge, PurgeDue, Stored};
use crate::id::{is_well_formed_id, validate_spec_id};
use crate::lifecycle::{self, Referred, ServiceContext};
use crate::lifecycle::{SoftDeletable, StoreVersions, soft_delete_methods};
use crate::list::{ListRequest, ListResponse};
use crate::methods::CreateMethod;
use crate::principal::{Principal, TenantId};
use crate::repository::RepositoryError;
use crate::resource::to_json;
use crate::time::Timestamp;
use crate::validate::Violations;
use crate::verification::provider::Provider;
use crate::workspace::ports::WorkspaceRepository;
use crate::workspace::references::check_named_workspace;

/// Most entities one log names.
pub const MAX_ENTITY_NAMES: usize = 100;
/// Longest description.
pub const MAX_DESCRIPTION: usize = 2000;
/// Longest source.
pub const MAX_SOURCE: usize = 64;
/// Activity log names, for batch gets.
const ACTIVITY_LOGS: Collection = Collection {
    id: ActivityLog::COLLECTION,
    pattern: "activityLogs/{activityLog}",
    called: "an activity log",
};

/// Everything the activity log service needs.
pub struct ActivityLogService {
    logs: Arc<dyn ActivityLogRepository>,
    types: Arc<dyn ActivityLogTypeRepository>,
    entities: Arc<dyn EntityRepository>,
    workspaces: Arc<dyn WorkspaceRepository>,
    /// The clock, ids, paging and retention.
    context: ServiceContext,
}

/// The ports the activity log service reads and writes.
pub struct ActivityLogPorts {
    /// The logs.
    pub logs: Arc<dyn ActivityLogRepository>,
    /// The types logs may name.
    pub types: Arc<dyn ActivityLogTypeRepository>,
    /// The entities logs are about.
    pub entities: Arc<dyn EntityRepository>,
    /// The workspaces logs may belong to.
    pub workspaces: Arc<dyn WorkspaceRepository>,
}

impl ActivityLogService {
    /// The service over its ports and its context. The context's retention is how long soft-deleted logs are kept
    /// before they are purged.
    pub fn new(ports: ActivityLogPorts, context: ServiceContext) -> ActivityLogService {
        ActivityLogService {
            logs: ports.logs,
            types: ports.types,
            entities: ports.entities,
            workspaces: ports.workspaces,
            context,
        }
    }

    /// A new log's write refused NOT_FOUND: an entity it names was erased between the
    /// check and the write.
    fn entity_erased(&self, log: &ActivityLog, error: Error) -> Error {
        match error.code {
            Code::NotFound => Error::new(
                Code::NotFound,
                "ENTITY_NOT_FOUND",
                format!(
                    "An entity named by '{}' was erased meanwhile: check entityNames and retry.",
                    log.name
                ),
            ),
            _ => error,
        }
    }

    /// Writes a log for the service's own jobs, with the reserved source `RICS` (or,
    /// when the log gives it, the name of the external identity verification provider
    /// whose outcome it records, `TRUUTH`) and an id the job derives from what it records (its run). Recording is idempotent on
    /// that id: a log already stored under it is returned and nothing is written, so a
    /// run repeated after a crash records once. The other checks are those of
    /// [`ActivityLogService::create`].
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed id or bad fields; NOT_FOUND and
    /// FAILED_PRECONDITION for missing or deleted entities.
    pub async fn record(
        &self,
        principal: &Principal,
        id: &str,
        log: ActivityLog,
    ) -> Result<ActivityLog> {
        let name = ActivityLog::name_of(id);
        if let Some(existing) = self.stored_under(principal, id).await? {
            return Ok(existing);
        }
        let (log, events) = self.prepare_record(principal, id, log, &[]).await?;
        match self
            .logs
            .create(&principal.tenant, &log, None, &events)
            .await
        {
            Ok(_) => Ok(log),
            // A concurrent repeat of the same run stored it first.
            Err(RepositoryError::AlreadyExists) => self.get(principal, id).await,
            Err(e) => Err(e.for_resource(&name)),
        }
    }

    /// The log stored under `id`, when there is one.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed id; UNAVAILABLE when the store is.
    async fn stored_under(&self, principal: &Principal, id: &str) -> Result<Option<ActivityLog>> {
        check_record_id(id)?;
        self.logs
            .get(&principal.tenant, id)
            .await
            .map_err(|e| e.for_resource(&ActivityLog::name_of(id)))
    }

    /// What [`ActivityLogService::record`] writes under `id` when nothing is stored
    /// under it, checked and completed but not written: the log and its event, for a
    /// job run to write with its end in one transaction. The entities named in `live`
    /// (`entities/{id}`) are not read again: the run read them live.
    ///
    /// # Errors
    /// As [`ActivityLogService::record`].
    pub async fn prepare_record(
        &self,
        principal: &Principal,
        id: &str,
        mut log: ActivityLog,
        live: &[String],
    ) -> Result<(ActivityLog, Vec<NewEvent>)> {
        check_record_id(id)?;
        // An identity verification provider's outcome keeps the provider as its
        // source; anything else a run records is the service's own.
        let source = std::mem::take(&mut log.source);
        check_fields(&mut log)?;
        log.source = if Provider::is_external_source(&source) {
            source
        } else {
            RESERVED_SOURCE.to_owned()
        };
        self.check_entities(principal, &log.entity_names, live)
            .await?;
        let now = self.context.clock.now();
        log.begin(ActivityLog::name_of(id), self.context.ids.uid(), now);
        log.occur_time = log.occur_time.or(Some(now));
        let after = to_json(&log)?;
        let events = self.events(
            "activity_log.created",
            &log,
            principal,
            now,
            None,
            Some(&after),
        );
        Ok((log, events))
    }

    /// The log with `id`, deleted or not.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed id; NOT_FOUND.
    pub async fn get(&self, principal: &Principal, id: &str) -> Result<ActivityLog> {
        lifecycle::read(id, self.logs.get(&principal.tenant, id)).await
    }

    /// Several logs by name, in the order asked, deleted ones included, all or
    /// nothing (AIP-231).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for no names, too many, or a malformed one (`names[i]`);
    /// NOT_FOUND naming the first missing log.
    pub async fn batch_get(
        &self,
        principal: &Principal,
        names: &[String],
    ) -> Result<Vec<ActivityLog>> {
        let ids = batch::requested_ids(names, ACTIVITY_LOGS)?;
        let found = self
            .logs
            .get_many(&principal.tenant, &batch::distinct(&ids))
            .await
            .map_err(Error::from)?;
        batch::in_request_order(&ids, &found, ActivityLog::id, ACTIVITY_LOGS)
    }

    /// One page of the logs naming the entity `entity_id` (AIP-132, AIP-158,
    /// AIP-160), most recent activity first unless `orderBy` says otherwise. The entity
    /// may be soft-deleted: its logs stay readable until it is purged.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed entity id or bad list parameters; NOT_FOUND for
    /// an unknown entity.
    pub async fn list_for_entity(
        &self,
        principal: &Principal,
        entity_id: &str,
        request: &ListRequest,
    ) -> Result<ListResponse<ActivityLog>> {
        let entity_name = format!("entities/{entity_id}");
        if !is_well_formed_id(entity_id) {
            return Err(Error::invalid_field(
                "parent",
                "INVALID_NAME",
                format!("'{entity_name}' is not a valid entity name"),
            ));
        }
        if self
            .entities
            .get(&principal.tenant, entity_id)
            .await?
            .is_none()
        {
            return Err(Error::not_found(&entity_name));
        }
        let (query, context) = self.context.paging.prepare(
            &fields::LOG_LIST,
            &principal.tenant,
            Some(&entity_name),
            request,
        )?;
        let page = self
            .logs
            .list_for_entity(&principal.tenant, entity_id, &query)
            .await?;
        Ok(self.context.paging.finish(context, page))
    }

    /// The activity log type `name` names, which must be live; `None` for no name.
    async fn log_type(&self, principal: &Principal, name: &str) -> Result<Option<ActivityLogType>> {
        if name.is_empty() {
            return Ok(None);
        }
        let id = name.strip_prefix("activityLogTypes/").unwrap_or(name);
        let log_type = self
            .types
            .get(&principal.tenant, id)
            .await
            .map_err(|e| e.for_resource(name))?
            .ok_or_else(|| {
                Error::not_found(name).with_metadata("field", "activityLog.activityLogType")
            })?;
        if log_type.is_deleted() {
            return Err(lifecycle::referred_deleted(Referred::ActivityLogType, name)
                .with_metadata("field", "activityLog.activityLogType"));
        }
        Ok(Some(log_type))
    }

    /// Checks that every named entity exists in the caller's tenant and is live, but
    /// those in `live` (known live already).
    async fn check_entities(
        &self,
        principal: &Principal,
        names: &[String],
        live: &[String],
    ) -> Result<()> {
        let unknown: Vec<(usize, &String)> = names
            .iter()
            .enumerate()
            .filter(|(_, name)| !live.contains(name))
            .collect();
        if unknown.is_empty() {
            return Ok(());
        }
        let ids: Vec<String> = unknown
            .iter()
            .map(|(_, name)| name.strip_prefix("entities/").unwrap_or(name).to_owned())
            .collect();
        let found = self
            .entities
            .presence(&principal.tenant, &ids)
            .await
            .map_err(Error::from)?;
        for ((i, name), id) in unknown.into_iter().zip(&ids) {
            let field = format!("activityLog.entityNames[{i}]");
            match found.iter().find(|entity| entity.id == *id) {
                None => return Err(Error::not_found(name).with_metadata("field", field)),
                Some(entity) if entity.deleted => {
                    return Err(lifecycle::referred_deleted(Referred::Entity, name)
                        .with_metadata("field", field));
                }
                Some(_) => {}
            }
        }
        Ok(())
    }
}

/// Refuses an id a job derived for its log that is not a valid resource id.
///
/// # Errors
/// INVALID_ARGUMENT naming `activityLogId`.
fn check_record_id(id: &str) -> Result<()> {
    if is_well_formed_id(id) {
        return Ok(());
    }
    Err(Error::invalid_field(
        "activityLogId",
        "INVALID_RESOURCE_ID",
        format!("'{id}' is not a valid activity log id"),
    ))
}

/// Checks what a log must satisfy on its own and normalises it: the source defaults
/// to `CUSTOMER`, a name given twice in `entityNames` is kept once (in its first
/// place), and an empty payload is no payload.
///
/// # Errors
/// INVALID_ARGUMENT listing every violation, with request paths such as
/// `activityLog.entityNames[2]`.
fn check_fields(log: &mut ActivityLog) -> Result<()> {
    let mut v = Violations::new();
    if log.source.is_empty() {
        DEFAULT_SOURCE.clone_into(&mut log.source);
    } else if log.source.eq_ignore_ascii_case(RESERVED_SOURCE) {
        v.add(
            "activityLog.source",
            "RESERVED_SOURCE",
            format!("'{RESERVED_SOURCE}' is reserved for the service's own jobs"),
        );
    } else {
        v.required_text("activityLog.source", &log.source, MAX_SOURCE);
    }
    v.optional_text("activityLog.description", &log.description, MAX_DESCRIPTION);
    if log.entity_names.is_empty() {
        v.add(
            "activityLog.entityNames",
            "REQUIRED",
            "name at least one entity",
        );
    }
    let mut seen = BTreeSet::new();
    let mut unique = Vec::with_capacity(log.entity_names.len());
    for (i, name) in log.entity_names.iter().enumerate() {
        if !is_name_in(name, "entities/") {
            v.add(
                format!("activityLog.entityNames[{i}]"),
                "INVALID_NAME",
                format!("'{name}' is not an entity name (entities/{{entity}})"),
            );
        } else if seen.insert(name.clone()) {
            unique.push(name.clone());
        }
    }
    log.entity_names = unique;
    v.max_items(
        "activityLog.entityNames",
        &log.entity_names,
        MAX_ENTITY_NAMES,
    );
    if !log.activity_log_type.is_empty() && !is_name_in(&log.activity_log_type, "activityLogTypes/")
    {
        v.add(
            "activityLog.activityLogType",
            "INVALID_NAME",
            format!(
                "'{}' is not an activity log type name (activityLogTypes/{{activityLogType}})",
                log.activity_log_type
            ),
        );
    }
    if !log.workspace.is_empty() && !is_name_in(&log.workspace, "workspaces/") {
        v.add(
            "activityLog.workspace",
            "INVALID_NAME",
            format!(
                "'{}' is not a workspace name (workspaces/{{workspace}})",
                log.workspace
            ),
        );
    }
    if log.payload.as_ref().is_some_and(|p| p.is_empty()) {
        log.payload = None;
    }
    if v.is_empty() {
        Ok(())
    } else {
        Err(Error::invalid_fields(v.into_vec()))
    }
}

/// What the log's activity log type decides: the default and only `type`, and the
/// schema of the payload.
///
/// # Errors
/// INVALID_ARGUMENT when `type` differs from the type's, or the payload breaks the
/// type's schema (one violation per fault).
fn apply_type(log: &mut ActivityLog, log_type: &ActivityLogType) -> Result<()> {
    let expected = log_type.activity_type;
    if log.activity_type.is_unspecified() {
        log.activity_type = expected;
    } else if !expected.is_unspecified() && log.activity_type != expected {
        return Err(Error::invalid_field(
            "activityLog.type",
            "ACTIVITY_TYPE_MISMATCH",
            format!(
                "is {} but '{}' is of type {expected}",
                log.activity_type, log_type.name
            ),
        ));
    }
    let Some(schema) = &log_type.payload_schema else {
        return Ok(());
    };
    let compiled = PayloadSchema::compile(schema).map_err(|problem| {
        Error::internal(format!("the stored schema of {} {problem}", log_type.name))
    })?;
    let payload = Value::Object(log.payload.clone().unwrap_or_default());
    let violations = compiled.violations(&payload, "activityLog.payload");
    if violations.is_empty() {
        return Ok(());
    }
    let mut error = Error::new(
        Code::InvalidArgument,
        "PAYLOAD_SCHEMA_VIOLATION",
        format!(
            "The payload does not satisfy the payloadSchema of '{}' ({} problems).",
            log_type.name,
            violations.len()
        ),
    )
    .with_metadata("activityLogType", log_type.name.clone());
    error.field_violations = violations;
    Err(error)
}

/// Whether `name` is `{prefix}{id}` with a well-formed id.
fn is_name_in(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix).is_some_and(is_well_formed_id)
}

#[async_trait]
impl Purge for ActivityLogService {
    fn collection(&self) -> &'static str {
        "activity logs"
    }

    async fn find_purge_due(&self, now: Timestamp, limit: u32) -> Stored<Vec<(TenantId, String)>> {
        self.logs.find_purge_due(now, limit).await
    }

    /// Removes the log with a tenant-level `activity_log.purged` event.
    async fn purge_one(&self, system: &Principal, due: &PurgeDue) -> Stored<()> {
        let event = self.purged_event(system, due);
        self.logs
            .purge(&due.tenant, &due.id, due.now, &[event])
            .await
    }
}

#[async_trait]
impl CreateMethod for ActivityLogService {
    const ID_PARAMETER: &'static str = "activityLogId";

    /// The spec's rule for activity log ids, UUIDs excluded.
    fn check_id(&self, id: &str) -> Result<()> {
        validate_spec_id(Self::ID_PARAMETER, id)
    }

    /// Its activity log type, when named, gives its defaults and checks its payload;
    /// the entities and the workspace it names must exist and be live.
    async fn admit_new(
        &self,
        principal: &Principal,
        log: &mut ActivityLog,
        _now: Timestamp,
    ) -> Result<()> {
        check_fields(log)?;
        if let Some(log_type) = self.log_type(principal, &log.activity_log_type).await? {
            apply_type(log, &log_type)?;
        }
        if log.activity_type.is_unspecified() {
            return Err(Error::invalid_field(
                "activityLog.type",
                "REQUIRED",
                "is required unless the activityLogType gives one",
            ));
        }
        self.check_entities(principal, &log.entity_names, &[])
            .await?;
        check_named_workspace(
            self.workspaces.as_ref(),
            &principal.tenant,
            "activityLog.workspace",
            &log.workspace,
        )
        .await
    }

    /// A log without `occurTime` happened when it was written.
    fn fill_new(&self, _principal: &Principal, log: &mut ActivityLog, now: Timestamp) {
        log.occur_time = log.occur_time.or(Some(now));
    }
}

// Delete and undelete as every soft-deletable resource has them.
soft_delete_methods!(
    ActivityLogService,
    ActivityLog,
    "activity_log",
    fields = fields::LOG_TABLE as "activityLog",
    store = logs.update_lifecycle,
    creation_error = entity_erased
);
