//! The job use cases of one family: create, get, list, `:run` and its operations;
//! and, for a family that [declares its input fields](super::JobFamily::input_fields),
//! update, soft delete, undelete and the purge of deleted jobs.

use std::sync::{Arc, LazyLock};

use async_trait::async_trait;
use rics_aip::field_mask::{Behavior, FieldKind, FieldTable};
use rics_aip::filter::{FieldType, FilterSchema};
use serde_json::{Value, json};

use super::kind::JobKind;
use super::model::{JobRecord, JobState, NewTask, RunStart, job_name};
use super::ports::{JobRepository, RunQueued};
use super::records::RunEffects;
use super::runner::{RunEnding, run_end};
use crate::entity::repository::EntityRepository;
use crate::error::{Code, Error, Result};
use crate::event::NewEvent;
use crate::fields;
use crate::housekeeping::{Purge, PurgeDue, Stored};
use crate::id::{is_well_formed_id, parse_request_id};
use crate::lifecycle::{
    self, Referred, ServiceContext, check_etag, deleted, not_deleted, referred_deleted,
};
use crate::list::{ListRequest, ListResponse, ListSpec, NEWEST_FIRST, Page};
use crate::operation::{Operation, OperationMetadata, OperationRepository};
use crate::principal::{Principal, TenantId};
use crate::repository::IdempotencyKey;
use crate::resource::{fingerprint, require_object};
use crate::time::Timestamp;

/// The fields of a job that the service sets; the rest of a create body is the
/// family's inputs.
const STANDARD_FIELDS: [&str; 11] = [
    "name",
    "uid",
    "entity",
    "state",
    "result",
    "latestOperation",
    "createTime",
    "updateTime",
    "deleteTime",
    "purgeTime",
    "etag",
];

/// What errors call a job's body.
const BODY: &str = "job";

/// The methods bound into idempotency keys (the fingerprints hold the job's name, so
/// a request id reused with another family's job is told apart).
const CREATE_METHOD: &str = "jobs.create";
/// See [`CREATE_METHOD`].
const RUN_METHOD: &str = "jobs.run";

/// What job list filters may refer to.
static JOB_FILTER: LazyLock<FilterSchema> = LazyLock::new(|| {
    FilterSchema::new()
        .field("entity", FieldType::String)
        .field("state", FieldType::Enum(JobState::VALUES))
        .field("createTime", FieldType::Timestamp)
        .field("updateTime", FieldType::Timestamp)
});

/// How jobs are listed: 10 per page by default, at most 100 (larger sizes coerced),
/// newest first. The family and the entity are bound into page tokens as the parent.
pub static JOB_LIST: LazyLock<ListSpec> = LazyLock::new(|| {
    ListSpec::new("jobs.list", &JOB_FILTER)
        .pages(10, 100)
        .sortable(&["createTime", "updateTime"])
        .ordered(NEWEST_FIRST)
});

/// How the jobs of a family that may delete them are listed: as [`JOB_LIST`], with
/// `showDeleted`.
pub static DELETABLE_JOB_LIST: LazyLock<ListSpec> = LazyLock::new(|| {
    ListSpec::new("jobs.list", &JOB_FILTER)
        .pages(10, 100)
        .sortable(&["createTime", "updateTime"])
        .ordered(NEWEST_FIRST)
        .soft_deletable()
});

/// The fields of a job of a family whose input fields are `inputs`: those, the
/// immutable `entity`, and the other standard fields, output only.
pub fn job_table(inputs: FieldTable) -> FieldTable {
    let output_only: Vec<&'static str> = STANDARD_FIELDS
        .into_iter()
        .filter(|field| *field != "entity")
        .collect();
    inputs
        .field("entity", FieldKind::Scalar, Behavior::Immutable)
        .output_only(&output_only)
}

/// The ports every family's service shares.
#[derive(Clone)]
pub struct JobPorts {
    /// Jobs, their runs and the queue.
    pub jobs: Arc<dyn JobRepository>,
    /// The runs' operations.
    pub operations: Arc<dyn OperationRepository>,
    /// The entities jobs are about.
    pub entities: Arc<dyn EntityRepository>,
    /// Hears of every run queued.
    pub queued: Arc<dyn RunQueued>,
    /// The time, ids and paging.
    pub context: ServiceContext,
}

/// The job use cases of one family.
pub struct JobService {
    kind: Arc<dyn JobKind>,
    ports: JobPorts,
    /// The fields of its jobs, when the family's jobs may be changed and deleted.
    table: Option<FieldTable>,
}

/// A `:run` body as its family read it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunBody {
    request_id: Option<String>,
    request: Value,
}

impl JobService {
    /// The service of the family `kind` over the shared ports.
    pub fn new(kind: Arc<dyn JobKind>, ports: JobPorts) -> JobService {
        let table = kind.input_fields().map(job_table);
        JobService { kind, ports, table }
    }

    /// Whether the family's jobs may be changed (PATCH), soft-deleted and restored.
    pub fn changeable(&self) -> bool {
        self.table.is_some()
    }

    /// How the family's jobs are listed: with `showDeleted` when they may be deleted.
    pub fn list_spec(&self) -> &'static ListSpec {
        if self.changeable() {
            &DELETABLE_JOB_LIST
        } else {
            &JOB_LIST
        }
    }

    /// The family's collection id.
    pub fn collection(&self) -> &'static str {
        self.kind.collection()
    }

    /// The name of the family's job `id` about the entity `entity_id`.
    pub fn job_name(&self, entity_id: &str, id: &str) -> String {
        job_name(self.kind.collection(), entity_id, id)
    }

    /// Creates a PENDING job from the request body (the family's inputs) about the
    /// entity of the path (`path_entity`), or for a top-level family about the body's
    /// `entity`; with an optional request id that makes retries safe. A family whose
    /// runs create their entity also takes `-`: the job is about the person its run
    /// will make an entity of.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a bad body or request id, or an `entity` that is not the
    /// path's (or, top-level, is missing or malformed); NOT_FOUND for an unknown
    /// entity (`-` included, for the other families); FAILED_PRECONDITION for a
    /// deleted one.
    pub async fn create(
        &self,
        principal: &Principal,
        path_entity: Option<&str>,
        body: Value,
        request_id: Option<&str>,
    ) -> Result<Value> {
        require_object(&body, "job")?;
        let entity_id = match path_entity {
            Some(entity_id) => entity_id.to_owned(),
            None => body_entity(&body)?,
        };
        let entity_id = entity_id.as_str();
        let request_id = request_id.map(parse_request_id).transpose()?;
        let entity_name = format!("entities/{entity_id}");
        if let Some(given) = body.get("entity").and_then(Value::as_str)
            && !given.is_empty()
            && given != entity_name
        {
            return Err(Error::invalid_field(
                "job.entity",
                "ENTITY_MISMATCH",
                format!("'{given}' is not the entity in the path ('{entity_name}')"),
            ));
        }
        let mut input = body.clone();
        if let Some(map) = input.as_object_mut() {
            map.retain(|key, _| !STANDARD_FIELDS.contains(&key.as_str()));
        }
        if !self.entity_to_come(entity_id) {
            self.live_entity(principal, entity_id).await?;
        }
        let input = self.kind.check_input(principal, entity_id, input).await?;
        let now = self.ports.context.clock.now();
        let job = JobRecord {
            id: self.ports.context.ids.resource_id(),
            family: self.kind.collection().to_owned(),
            entity_id: entity_id.to_owned(),
            made_entity_id: None,
            delete_time: None,
            purge_time: None,
            uid: self.ports.context.ids.uid(),
            revision: 1,
            state: JobState::Pending,
            input,
            result: None,
            latest_operation: None,
            create_time: now,
            update_time: now,
        };
        let method = CREATE_METHOD;
        let key = request_id.map(|request_id| IdempotencyKey {
            request_id: request_id.to_string(),
            method,
            fingerprint: fingerprint(method, &[("entity", &json!(entity_name)), ("job", &body)]),
            resource_name: job.name(),
        });
        let rendered = self.render(&job);
        let events = [self
            .event("created", &job, principal, now)
            .with_changes(None, Some(&rendered))];
        let replayed = lifecycle::create_once(&job.name(), key.as_ref(), || {
            self.ports
                .jobs
                .create(&principal.tenant, &job, key.as_ref(), &events)
        })
        .await?;
        match replayed {
            None => Ok(rendered),
            Some(name) => {
                let id = name.rsplit('/').next().unwrap_or(&name);
                self.get(principal, entity_id, id).await
            }
        }
    }

    /// The job `id` of the entity, as JSON.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed name; NOT_FOUND.
    pub async fn get(&self, principal: &Principal, entity_id: &str, id: &str) -> Result<Value> {
        Ok(self.render(&self.load(principal, entity_id, id).await?))
    }

    /// One page of the family's jobs of the entity, or of every entity with `-`.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for bad list parameters; NOT_FOUND for an unknown entity.
    pub async fn list(
        &self,
        principal: &Principal,
        entity_id: &str,
        request: &ListRequest,
    ) -> Result<ListResponse<Value>> {
        let across = entity_id == "-";
        if !across
            && self
                .ports
                .entities
                .get(&principal.tenant, entity_id)
                .await?
                .is_none()
        {
            return Err(Error::not_found(&format!("entities/{entity_id}")));
        }
        let parent = format!("entities/{entity_id}/{}", self.kind.collection());
        let (query, context) = self.ports.context.paging.prepare(
            self.list_spec(),
            &principal.tenant,
            Some(&parent),
            request,
        )?;
        let page = self
            .ports
            .jobs
            .list(
                &principal.tenant,
                self.kind.collection(),
                (!across).then_some(entity_id),
                &query,
            )
            .await?;
        let page = Page {
            items: page.items.iter().map(|job| self.render(job)).collect(),
            next: page.next,
            total_size: page.total_size,
        };
        Ok(self.ports.context.paging.finish(context, page))
    }

    /// Reads a `:run` body as the family reads it (INVALID_ARGUMENT under `run.`),
    /// for [`JobService::run`].
    ///
    /// # Errors
    /// INVALID_ARGUMENT naming the bad field.
    pub fn read_run_request(&self, body: Value) -> Result<RunBody> {
        let (request_id, request) = self.kind.read_run_request(body)?;
        Ok(RunBody {
            request_id,
            request,
        })
    }

    /// Starts a run of the job and returns its operation, to poll until `done`. The
    /// body's request id, else `query_request_id`, makes the call idempotent: a retry
    /// with the same body returns the first call's operation. The family checks what
    /// else the body gives, and the run's task carries it.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a bad request id or one reused with another job or run
    /// input, or a run input the family refuses; NOT_FOUND;
    /// FAILED_PRECONDITION when the job is RUNNING or its entity is deleted; ABORTED
    /// when a concurrent run started first.
    pub async fn run(
        &self,
        principal: &Principal,
        entity_id: &str,
        id: &str,
        query_request_id: Option<&str>,
        body: RunBody,
    ) -> Result<Operation> {
        let request_id = body
            .request_id
            .as_deref()
            .or(query_request_id)
            .map(parse_request_id)
            .transpose()?;
        let current = self.load(principal, entity_id, id).await?;
        let run_input = self.kind.check_run_input(&current, body.request)?;
        self.start(principal, current, run_input, request_id).await
    }

    /// Starts a run of the job that rics itself asks for (a re-screen on a list or
    /// entity change), with a run input the family reads but no `:run` body can give;
    /// `request_id` makes it idempotent as a `:run`'s does, so a caller that repeats
    /// itself after a crash starts the run once.
    ///
    /// # Errors
    /// As [`JobService::run`].
    pub async fn run_for_system(
        &self,
        principal: &Principal,
        entity_id: &str,
        id: &str,
        run_input: Value,
        request_id: uuid::Uuid,
    ) -> Result<Operation> {
        let current = self.load(principal, entity_id, id).await?;
        self.start(principal, current, run_input, Some(request_id))
            .await
    }

    /// Starts a run of `current` whose task carries `run_input`: the shared end of
    /// [`JobService::run`] and [`JobService::run_for_system`].
    async fn start(
        &self,
        principal: &Principal,
        current: JobRecord,
        run_input: Value,
        request_id: Option<uuid::Uuid>,
    ) -> Result<Operation> {
        let name = current.name();
        let method = RUN_METHOD;
        let job_part = json!(name);
        // A run without input keeps the fingerprint it had before runs took any.
        let parts: &[(&str, &Value)] = if run_input.is_null() {
            &[("job", &job_part)]
        } else {
            &[("job", &job_part), ("run", &run_input)]
        };
        let key = request_id.map(|request_id| IdempotencyKey {
            request_id: request_id.to_string(),
            method,
            fingerprint: fingerprint(method, parts),
            resource_name: String::new(),
        });
        if let Some(key) = &key {
            // A retry after the run started (even after it ended) replays it.
            if let Some(operation) = self.replayed_run(principal, key).await? {
                return Ok(operation);
            }
        }
        if current.is_deleted() {
            return Err(deleted(&name));
        }
        if current.state == JobState::Running {
            return Err(Error::failed_precondition(
                "JOB_RUNNING",
                format!("'{name}' is running; wait for its operation to finish."),
            )
            .with_metadata("resource", name.clone()));
        }
        if !self.entity_to_come(&current.entity_id) {
            self.live_entity(principal, &current.entity_id).await?;
        }
        let now = self.ports.context.clock.now();
        let operation_id = self.ports.context.ids.resource_id();
        let mut debug = self
            .kind
            .prepare_run(principal, &current, &operation_id, now)
            .await?;
        debug.insert("queueTime".into(), json!(now));
        let operation = Operation {
            name: format!("{name}/operations/{operation_id}"),
            metadata: OperationMetadata {
                kind: self.kind.operation_type().to_owned(),
                value: "QUEUED".into(),
                debug: Value::Object(debug),
            },
            done: false,
            error: None,
            response: None,
            create_time: Some(now),
            redact_after: None,
        };
        let mut running = current.clone();
        running.state = JobState::Running;
        running.latest_operation = Some(operation.name.clone());
        running.revision = current.revision + 1;
        running.update_time = now;
        let task = NewTask {
            id: operation_id,
            operation_name: operation.name.clone(),
            queue_time: now,
            run_input,
        };
        let key = key.map(|mut key| {
            key.resource_name = operation.name.clone();
            key
        });
        let events = [self
            .event("started", &running, principal, now)
            .with_changes(Some(&self.render(&current)), Some(&self.render(&running)))];
        let start = RunStart {
            job: running,
            expected_revision: current.revision,
            operation,
            task,
        };
        let replayed = lifecycle::create_once(&name, key.as_ref(), || {
            self.ports
                .jobs
                .start_run(&principal.tenant, &start, key.as_ref(), &events)
        })
        .await?;
        match replayed {
            None => {
                self.ports.queued.queued();
                Ok(start.operation)
            }
            Some(operation_name) => self.operation_named(principal, &operation_name).await,
        }
    }

    /// Ends the run of the operation `operation_name` of a family whose runs
    /// [end elsewhere](super::JobFamily::ENDS_ELSEWHERE): SUCCEEDED with `outcome`'s
    /// value as the job's `result` and the operation's response, or FAILED with its
    /// error (CANCELLED for an error of code CANCELLED), and the event
    /// `{prefix}.succeeded`, `.failed` or `.cancelled` with what `more_events` makes of
    /// the ended job, in one transaction. A run that already ended is left as it is:
    /// the job is returned and nothing is written, so the caller may repeat the call.
    ///
    /// # Errors
    /// INTERNAL when `operation_name` is not an operation of the family's jobs (the
    /// caller holds names rics made); NOT_FOUND when the job is gone; ABORTED when the job changed meanwhile
    /// (repeat the call); UNAVAILABLE or INTERNAL from the store.
    pub async fn end_run(
        &self,
        tenant: &TenantId,
        operation_name: &str,
        outcome: Result<Value>,
        more_events: &(dyn Fn(&JobRecord) -> Vec<NewEvent> + Send + Sync),
    ) -> Result<JobRecord> {
        let not_a_run = || {
            Error::internal(format!(
                "'{operation_name}' is not an operation of {} jobs",
                self.kind.collection()
            ))
        };
        let (job_name, operation_id) = operation_name
            .split_once("/operations/")
            .ok_or_else(not_a_run)?;
        let job_id = job_name.rsplit('/').next().ok_or_else(not_a_run)?;
        let job = self
            .ports
            .jobs
            .get(tenant, self.kind.collection(), job_id)
            .await
            .map_err(|e| e.for_resource(job_name))?
            .filter(|job| job.name() == job_name)
            .ok_or_else(|| Error::not_found(job_name))?;
        if job.state != JobState::Running || job.latest_operation.as_deref() != Some(operation_name)
        {
            return Ok(job);
        }
        let now = self.ports.context.clock.now();
        let mut end = run_end(RunEnding {
            tenant,
            job: &job,
            outcome,
            kind: self.kind.operation_type().to_owned(),
            event_prefix: self.kind.event_prefix(),
            event_id: self.ports.context.ids.resource_id(),
            debug: json!({"endTime": now}),
            now,
            effects: RunEffects::default(),
        });
        end.events.extend(more_events(&end.job));
        let ended = self
            .ports
            .jobs
            .end_run(tenant, operation_id, &end, job.revision, now)
            .await
            .map_err(|e| e.for_resource(job_name))?;
        if ended {
            return Ok(end.job);
        }
        self.ports
            .jobs
            .get(tenant, self.kind.collection(), job_id)
            .await
            .map_err(|e| e.for_resource(job_name))?
            .ok_or_else(|| Error::not_found(job_name))
    }

    /// The operation `operation_id` of a run of the job.
    ///
    /// # Errors
    /// NOT_FOUND when the job has no such operation (an operation of another job
    /// included).
    pub async fn get_operation(
        &self,
        principal: &Principal,
        entity_id: &str,
        id: &str,
        operation_id: &str,
    ) -> Result<Operation> {
        let job = self.load(principal, entity_id, id).await?;
        let name = format!("{}/operations/{operation_id}", job.name());
        if !is_well_formed_id(operation_id) {
            return Err(Error::not_found(&name));
        }
        self.operation_named(principal, &name).await
    }

    /// The JSON of a job (see [`JobRecord::to_json`]).
    pub fn render(&self, job: &JobRecord) -> Value {
        job.to_json()
    }

    /// Changes a finished job's result by a rule of its family, as a custom method of
    /// the job does (`:reviewMatch`): `change` gets the stored job and gives its new
    /// result, or `None` when the request changes nothing (a retry). The change is
    /// stored, with the event `event_type` (of the family's prefix) holding the job
    /// before and after, if the job did not change meanwhile. Returns the job as it
    /// now is.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed name; NOT_FOUND; FAILED_PRECONDITION
    /// `JOB_HAS_NO_RESULT` unless the job SUCCEEDED; what `change` refuses; ABORTED when
    /// the job changed concurrently (a run started, another change was stored).
    pub async fn amend(
        &self,
        principal: &Principal,
        entity_id: &str,
        id: &str,
        event_type: &str,
        change: impl FnOnce(&JobRecord) -> Result<Option<Value>>,
    ) -> Result<JobRecord> {
        let current = self.load(principal, entity_id, id).await?;
        if current.is_deleted() {
            return Err(deleted(&current.name()));
        }
        if current.state != JobState::Succeeded {
            return Err(Error::failed_precondition(
                "JOB_HAS_NO_RESULT",
                format!(
                    "'{}' is {}: only a job that succeeded has a result to change",
                    current.name(),
                    current.state.as_str()
                ),
            )
            .with_metadata("resource", current.name()));
        }
        let Some(result) = change(&current)? else {
            return Ok(current);
        };
        let now = self.ports.context.clock.now();
        let mut changed = current.clone();
        changed.result = Some(result);
        changed.revision = current.revision + 1;
        changed.update_time = now;
        let event = NewEvent::new(
            self.ports.context.ids.resource_id(),
            event_type,
            &changed.name(),
            principal,
            now,
        )
        .for_entity(&changed.entity_id)
        .with_changes(Some(&self.render(&current)), Some(&self.render(&changed)));
        self.ports
            .jobs
            .update(&principal.tenant, &changed, current.revision, &[event])
            .await
            .map_err(|e| e.for_resource(&current.name()))?;
        Ok(changed)
    }

    /// Updates the inputs of the job `id` of the entity (`-`: any) from `body` under
    /// `update_mask` (AIP-134: the mask, or the fields the body gives, say what
    /// changes), for a family whose jobs may be changed: the family checks the inputs
    /// as on create. A change that changes nothing stores nothing; a change is stored
    /// with the event `{prefix}.updated`.
    ///
    /// # Errors
    /// UNIMPLEMENTED for a family whose jobs are never changed; INVALID_ARGUMENT for a
    /// bad body or mask, a `name` that is not the path's, a changed `entity`, or inputs
    /// the family refuses; NOT_FOUND; FAILED_PRECONDITION `RESOURCE_DELETED` for a
    /// deleted job, `JOB_RUNNING` while a run is under way, `ENTITY_DELETED` when its
    /// entity is deleted; ABORTED for a stale etag or a concurrent change.
    pub async fn update(
        &self,
        principal: &Principal,
        entity_id: &str,
        id: &str,
        body: Value,
        update_mask: Option<&str>,
    ) -> Result<Value> {
        let table = self.changes()?;
        let name = self.job_name(entity_id, id);
        let patch = fields::read_patch::<Value>(table, body, update_mask, &name, BODY)?;
        let current = self.load(principal, entity_id, id).await?;
        if current.is_deleted() {
            return Err(deleted(&current.name()));
        }
        self.not_running(&current, "changed")?;
        check_etag(&name, &self.etag(&current), patch.etag.as_deref())?;
        let current_json = self.render(&current);
        let merged = fields::apply_mask(table, &patch.mask, &current_json, &patch.body, BODY)?;
        let mut input = fields::input(table, merged, BODY)?;
        if let Some(map) = input.as_object_mut() {
            map.retain(|key, _| !STANDARD_FIELDS.contains(&key.as_str()));
        }
        if let Some(subject) = current.subject() {
            self.live_entity(principal, subject).await?;
        }
        let input = self
            .kind
            .check_input(principal, &current.entity_id, input)
            .await?;
        if input == current.input {
            return Ok(current_json);
        }
        let now = self.ports.context.clock.now();
        let mut changed = current.clone();
        changed.input = input;
        self.store_change(principal, &current, changed, "updated", now)
            .await
    }

    /// Soft-deletes the job `id` of the entity (`-`: any) for a family whose jobs may
    /// be deleted (AIP-164): it is hidden from lists unless `showDeleted`, still
    /// readable, and purged after the retention unless restored. With
    /// `allow_missing`, deleting a job that is missing or already deleted succeeds
    /// (`None` when missing). The event `{prefix}.deleted`.
    ///
    /// # Errors
    /// UNIMPLEMENTED for a family whose jobs are never deleted; INVALID_ARGUMENT for a
    /// malformed name; NOT_FOUND (also when already deleted, without
    /// `allow_missing`); FAILED_PRECONDITION `JOB_RUNNING` while a run is under way;
    /// ABORTED for a stale etag or a concurrent change.
    pub async fn delete(
        &self,
        principal: &Principal,
        entity_id: &str,
        id: &str,
        etag: Option<&str>,
        allow_missing: bool,
    ) -> Result<Option<Value>> {
        self.changes()?;
        let current = match self.load(principal, entity_id, id).await {
            Err(e) if e.code == Code::NotFound && allow_missing => return Ok(None),
            other => other?,
        };
        if current.is_deleted() {
            return if allow_missing {
                Ok(Some(self.render(&current)))
            } else {
                Err(Error::not_found(&current.name()))
            };
        }
        check_etag(&current.name(), &self.etag(&current), etag)?;
        self.not_running(&current, "deleted")?;
        let now = self.ports.context.clock.now();
        let mut deleted = current.clone();
        deleted.delete_time = Some(now);
        deleted.purge_time = Some(now.plus(self.ports.context.retention));
        self.store_change(principal, &current, deleted, "deleted", now)
            .await
            .map(Some)
    }

    /// Restores the soft-deleted job `id` of the entity (`-`: any), with the event
    /// `{prefix}.undeleted`.
    ///
    /// # Errors
    /// UNIMPLEMENTED for a family whose jobs are never deleted; INVALID_ARGUMENT for a
    /// malformed name; NOT_FOUND; ALREADY_EXISTS `RESOURCE_NOT_DELETED` when it is not
    /// deleted (AIP-164); FAILED_PRECONDITION `ENTITY_DELETED` when its entity is
    /// deleted; ABORTED for a stale etag or a concurrent change.
    pub async fn undelete(
        &self,
        principal: &Principal,
        entity_id: &str,
        id: &str,
        etag: Option<&str>,
    ) -> Result<Value> {
        self.changes()?;
        let current = self.load(principal, entity_id, id).await?;
        if !current.is_deleted() {
            return Err(not_deleted(&current.name()));
        }
        check_etag(&current.name(), &self.etag(&current), etag)?;
        if let Some(subject) = current.subject() {
            self.live_entity(principal, subject).await?;
        }
        let now = self.ports.context.clock.now();
        let mut restored = current.clone();
        restored.delete_time = None;
        restored.purge_time = None;
        self.store_change(principal, &current, restored, "undeleted", now)
            .await
    }

    /// The fields of the family's jobs, when they may be changed and deleted.
    ///
    /// # Errors
    /// UNIMPLEMENTED when they may not (no route leads here for such a family).
    fn changes(&self) -> Result<&FieldTable> {
        self.table.as_ref().ok_or_else(|| {
            Error::new(
                Code::Unimplemented,
                "METHOD_NOT_SUPPORTED",
                format!(
                    "{} jobs are never changed or deleted",
                    self.kind.collection()
                ),
            )
        })
    }

    /// Refuses to change a job while a run is under way: the run reads its inputs and
    /// ends by writing the job.
    ///
    /// # Errors
    /// FAILED_PRECONDITION `JOB_RUNNING`, saying the job cannot be `what` now.
    fn not_running(&self, job: &JobRecord, what: &str) -> Result<()> {
        if job.state != JobState::Running {
            return Ok(());
        }
        let name = job.name();
        let operation = job.latest_operation.as_deref().unwrap_or_default();
        Err(Error::failed_precondition(
            "JOB_RUNNING",
            format!(
                "'{name}' is running ('{operation}'); it cannot be {what} until its \
                 operation is done."
            ),
        )
        .with_metadata("resource", name))
    }

    /// The job's current etag.
    fn etag(&self, job: &JobRecord) -> String {
        crate::resource::etag(&job.uid, job.revision)
    }

    /// Stores `changed` as the version after `current`, changed at `now`, with the
    /// event `{prefix}.{verb}` holding the job before and after; returns it as JSON.
    ///
    /// # Errors
    /// ABORTED when the job changed meanwhile; NOT_FOUND when it is gone; UNAVAILABLE
    /// or INTERNAL from the store.
    async fn store_change(
        &self,
        principal: &Principal,
        current: &JobRecord,
        mut changed: JobRecord,
        verb: &str,
        now: Timestamp,
    ) -> Result<Value> {
        changed.revision = current.revision + 1;
        changed.update_time = now;
        let rendered = self.render(&changed);
        let events = [self
            .event(verb, &changed, principal, now)
            .with_changes(Some(&self.render(current)), Some(&rendered))];
        self.ports
            .jobs
            .update(&principal.tenant, &changed, current.revision, &events)
            .await
            .map_err(|e| e.for_resource(&current.name()))?;
        Ok(rendered)
    }

    /// The job `id` of the family; about the entity `entity_id`, or any entity with
    /// `-` (AIP-159; the top-level families name no entity).
    async fn load(&self, principal: &Principal, entity_id: &str, id: &str) -> Result<JobRecord> {
        let name = job_name(self.kind.collection(), entity_id, id);
        if !is_well_formed_id(entity_id) || !is_well_formed_id(id) {
            return Err(Error::invalid_field(
                "name",
                "INVALID_NAME",
                format!("'{name}' is not a valid job name"),
            ));
        }
        match self
            .ports
            .jobs
            .get(&principal.tenant, self.kind.collection(), id)
            .await
            .map_err(|e| e.for_resource(&name))?
        {
            Some(job) if entity_id == "-" || job.entity_id == entity_id => Ok(job),
            _ => Err(Error::not_found(&name)),
        }
    }

    /// Whether `entity_id` stands for an entity the job's run will create: `-`, in a
    /// family whose runs create their entity.
    fn entity_to_come(&self, entity_id: &str) -> bool {
        entity_id == "-" && self.kind.creates_entity()
    }

    async fn live_entity(&self, principal: &Principal, entity_id: &str) -> Result<()> {
        let name = format!("entities/{entity_id}");
        match self
            .ports
            .entities
            .get(&principal.tenant, entity_id)
            .await
            .map_err(|e| e.for_resource(&name))?
        {
            None => Err(Error::not_found(&name)),
            Some(entity) if entity.is_deleted() => Err(referred_deleted(Referred::Entity, &name)),
            Some(entity) => self.kind.admits(&entity),
        }
    }

    /// The operation a previous `:run` with the same request id started, if any.
    async fn replayed_run(
        &self,
        principal: &Principal,
        key: &IdempotencyKey,
    ) -> Result<Option<Operation>> {
        let Some((method, fingerprint, operation_name)) = self
            .ports
            .jobs
            .find_request(&principal.tenant, &key.request_id)
            .await?
        else {
            return Ok(None);
        };
        if method != key.method || fingerprint != key.fingerprint {
            return Err(Error::invalid_field(
                "requestId",
                "REQUEST_ID_REUSED",
                "was already used with a different request",
            ));
        }
        self.operation_named(principal, &operation_name)
            .await
            .map(Some)
    }

    async fn operation_named(&self, principal: &Principal, name: &str) -> Result<Operation> {
        self.ports
            .operations
            .get(&principal.tenant, name)
            .await
            .map_err(|e| e.for_resource(name))?
            .ok_or_else(|| Error::not_found(name))
    }

    fn event(
        &self,
        verb: &str,
        job: &JobRecord,
        principal: &Principal,
        now: Timestamp,
    ) -> NewEvent {
        let event = NewEvent::new(
            self.ports.context.ids.resource_id(),
            &format!("{}.{verb}", self.kind.event_prefix()),
            &job.name(),
            principal,
            now,
        );
        match job.subject() {
            Some(entity_id) => event.for_entity(entity_id),
            None => event,
        }
    }
}

/// The purge of a family's soft-deleted jobs whose purge time passed: each goes with
/// its runs' operations, and the event `{prefix}.purged`. A family whose jobs are
/// never deleted has none.
#[async_trait]
impl Purge for JobService {
    fn collection(&self) -> &'static str {
        self.kind.collection()
    }

    async fn find_purge_due(&self, now: Timestamp, limit: u32) -> Stored<Vec<(TenantId, String)>> {
        if !self.changeable() {
            return Ok(Vec::new());
        }
        self.ports
            .jobs
            .find_purge_due(self.kind.collection(), now, limit)
            .await
    }

    async fn purge_one(&self, system: &Principal, due: &PurgeDue) -> Stored<()> {
        let job = self
            .ports
            .jobs
            .get(&due.tenant, self.kind.collection(), &due.id)
            .await?
            .ok_or(crate::repository::RepositoryError::NotFound)?;
        let events = [self
            .event("purged", &job, system, due.now)
            .with_changes(Some(&self.render(&job)), None)];
        self.ports
            .jobs
            .purge(&due.tenant, &job, due.now, &events)
            .await
    }
}

/// The entity a top-level family's create body names (`entities/{entity}`).
///
/// # Errors
/// INVALID_ARGUMENT `REQUIRED` when it names none; `INVALID_NAME` when the name is
/// not an entity's.
fn body_entity(body: &Value) -> Result<String> {
    match body.get("entity").and_then(Value::as_str) {
        None | Some("") => Err(Error::invalid_field(
            "job.entity",
            "REQUIRED",
            "name the individual whose document to verify (entities/{entity})",
        )),
        Some(name) => name
            .strip_prefix("entities/")
            .filter(|id| is_well_formed_id(id) && *id != "-")
            .map(str::to_owned)
            .ok_or_else(|| {
                Error::invalid_field(
                    "job.entity",
                    "INVALID_NAME",
                    format!("'{name}' is not an entity name (entities/{{entity}})"),
                )
            }),
    }
}
