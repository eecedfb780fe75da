//! The stored form of jobs and of their queued runs.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::id_verification::IdVerificationJobs;
use super::kind::JobFamily;
use super::records::RunEffects;
use crate::entity::model::Entity;
use crate::event::NewEvent;
use crate::operation::{OperationError, OperationMetadata};
use crate::proto_enum;
use crate::repository::Staged;
use crate::time::Timestamp;

proto_enum! {
    /// Where a job is in its life.
    pub enum JobState("STATE_UNSPECIFIED") {
        /// Created, never run.
        Pending = "PENDING",
        /// A run is queued or executing.
        Running = "RUNNING",
        /// The latest run succeeded.
        Succeeded = "SUCCEEDED",
        /// The latest run failed for good.
        Failed = "FAILED",
        /// The latest run was cancelled.
        Cancelled = "CANCELLED",
    }
}

/// A job of any family, as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct JobRecord {
    /// The job id (last segment of its name).
    pub id: String,
    /// The family's collection id, such as `pepSanctionIndividualEntityJobs`.
    pub family: String,
    /// The entity of the job's name: the one it is about, or `-` for a job whose run
    /// creates its entity (see [`JobRecord::made_entity_id`]).
    pub entity_id: String,
    /// The entity the run of a job created at `entities/-` made: the job keeps its
    /// name, while its `entity` field and its entity's job lists follow this one.
    pub made_entity_id: Option<String>,
    /// `uid` (AIP-148).
    pub uid: String,
    /// Version counter behind the etag.
    pub revision: i64,
    /// The state.
    pub state: JobState,
    /// The family's checked inputs.
    pub input: Value,
    /// The latest successful run's result.
    pub result: Option<Value>,
    /// The name of the latest run's operation.
    pub latest_operation: Option<String>,
    /// Creation time.
    pub create_time: Timestamp,
    /// Last change time.
    pub update_time: Timestamp,
    /// When it was soft-deleted (only the jobs of a family that
    /// [takes changes](super::kind::JobFamily::input_fields) are); `None` when live.
    pub delete_time: Option<Timestamp>,
    /// When a soft-deleted job is purged; `None` when live.
    pub purge_time: Option<Timestamp>,
}

/// The families whose jobs are top-level resources (`{family}/{job}`, the entity an
/// input), not children of their entity (`entities/{entity}/{family}/{job}`).
pub const TOP_LEVEL_FAMILIES: [&str; 2] = [
    IdVerificationJobs::COLLECTION,
    crate::verification::jobs::VerificationJobs::COLLECTION,
];

/// The name of job `id` of `family` about the entity `entity_id`.
pub fn job_name(family: &str, entity_id: &str, id: &str) -> String {
    if TOP_LEVEL_FAMILIES.contains(&family) {
        format!("{family}/{id}")
    } else {
        format!("entities/{entity_id}/{family}/{id}")
    }
}

impl JobRecord {
    /// `entities/{entity}/{family}/{id}`, or `{family}/{id}` for the
    /// [`TOP_LEVEL_FAMILIES`].
    pub fn name(&self) -> String {
        job_name(&self.family, &self.entity_id, &self.id)
    }

    /// The id of the entity the job is about now: the one its run made, else the
    /// one of its name; `None` for a job at `entities/-` whose run made none yet.
    pub fn subject(&self) -> Option<&str> {
        match &self.made_entity_id {
            Some(made) => Some(made),
            None => (self.entity_id != "-").then_some(self.entity_id.as_str()),
        }
    }

    /// Whether it is soft-deleted.
    pub fn is_deleted(&self) -> bool {
        self.delete_time.is_some()
    }

    /// The job's JSON: `name`, `uid`, `entity` (once there is one, see
    /// [`JobRecord::subject`]), the family's inputs, `state`, `result`,
    /// `latestOperation`, the standard times (`deleteTime` and `purgeTime` once
    /// deleted) and etag.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("name".into(), json!(self.name()));
        map.insert("uid".into(), json!(self.uid));
        if let Some(entity_id) = self.subject() {
            map.insert("entity".into(), json!(format!("entities/{entity_id}")));
        }
        if let Some(input) = self.input.as_object() {
            map.extend(input.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        map.insert("state".into(), json!(self.state.as_str()));
        if let Some(result) = &self.result {
            map.insert("result".into(), result.clone());
        }
        if let Some(operation) = &self.latest_operation {
            map.insert("latestOperation".into(), json!(operation));
        }
        map.insert("createTime".into(), json!(self.create_time));
        map.insert("updateTime".into(), json!(self.update_time));
        if let Some(delete_time) = self.delete_time {
            map.insert("deleteTime".into(), json!(delete_time));
        }
        if let Some(purge_time) = self.purge_time {
            map.insert("purgeTime".into(), json!(purge_time));
        }
        map.insert(
            "etag".into(),
            json!(crate::resource::etag(&self.uid, self.revision)),
        );
        Value::Object(map)
    }
}

/// The principal job runs act as in `tenant`: what they write and the events they
/// record name the subject `rics-worker`.
pub fn worker_principal(tenant: &crate::principal::TenantId) -> crate::principal::Principal {
    crate::principal::Principal {
        tenant: tenant.clone(),
        subject: "rics-worker".into(),
        display_name: "rics".into(),
        scopes: Default::default(),
    }
}

/// A run to queue with the change that starts it.
#[derive(Debug, Clone, PartialEq)]
pub struct NewTask {
    /// The id of the run's operation, which is also the task's id.
    pub id: String,
    /// The operation's name.
    pub operation_name: String,
    /// When it was queued (and may first be claimed).
    pub queue_time: Timestamp,
    /// What the `:run` gave for this run only, as its family checked it; `null` when
    /// nothing.
    pub run_input: serde_json::Value,
}

/// The start of a run: the job as it becomes (RUNNING, pointing at the operation), the
/// revision it must still have, the operation clients poll and the task workers claim.
#[derive(Debug, Clone, PartialEq)]
pub struct RunStart {
    /// The job, RUNNING.
    pub job: JobRecord,
    /// The revision the stored job must still have.
    pub expected_revision: i64,
    /// The run's operation.
    pub operation: crate::operation::Operation,
    /// The run's task.
    pub task: NewTask,
}

/// A queued run a worker claimed.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimedTask {
    /// The tenant of the job.
    pub tenant: crate::principal::TenantId,
    /// The task's id (its operation's id).
    pub id: String,
    /// The job.
    pub job_id: String,
    /// The job's family.
    pub family: String,
    /// The run's operation.
    pub operation_name: String,
    /// Which attempt this is (1 for the first claim).
    pub attempt: u32,
    /// The claim's token: finishing requires it, so a worker whose lease ran out and
    /// was taken over cannot finish the run a second time.
    pub claim: String,
    /// When the run was queued.
    pub queue_time: Timestamp,
    /// When this attempt claimed it.
    pub claim_time: Timestamp,
    /// What the `:run` gave for this run only (see [`NewTask::run_input`]).
    pub run_input: serde_json::Value,
    /// The job of `family` with id `job_id`, read with the claim so that running it
    /// needs no second read; `None` when there is none (the job was erased with its
    /// entity, or the task is other queued work, an execution's step).
    pub job: Option<JobRecord>,
}

/// A claimed run's end, as [`JobRepository::finish_all`](super::ports::JobRepository::finish_all)
/// writes it with the other ends of its batch.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskEnd {
    /// The claimed run.
    pub task: ClaimedTask,
    /// How it ends; shared, so that the write holds it on a database thread without a
    /// copy of the run's result, records and events.
    pub finish: Arc<TaskFinish>,
    /// When the attempt ended.
    pub time: Timestamp,
}

/// How a claimed run ends.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum TaskFinish {
    /// The attempt failed in a way worth retrying: release the task until `at`.
    Retry {
        /// What went wrong, for operators.
        error: String,
        /// When it may be claimed again.
        at: Timestamp,
    },
    /// The run is over: store the job, the operation's outcome, the events and what
    /// the run recorded.
    Complete(RunEnd),
    /// The run goes on outside the runner (its family
    /// [ends elsewhere](super::kind::JobFamily::ENDS_ELSEWHERE)): the task is done,
    /// the job stays RUNNING and the operation not done, its metadata updated, and
    /// what the run recorded so far is stored.
    HandedOff {
        /// The operation's metadata, its `debug` merged over the stored one.
        metadata: OperationMetadata,
        /// What the runner's part of the run recorded.
        effects: RunEffects,
    },
}

impl TaskFinish {
    /// Puts `entities` in place of the entities with outputs that the end stores; an
    /// end that stores no records is left as it is.
    pub fn set_entities(&mut self, entities: Vec<Staged<Entity>>) {
        match self {
            TaskFinish::Complete(end) => end.effects.entities = entities,
            TaskFinish::HandedOff { effects, .. } => effects.entities = entities,
            TaskFinish::Retry { .. } => {}
        }
    }
}

/// The end of a run: the job as the run leaves it, the operation's outcome and the
/// events recording it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEnd {
    /// The job as the run leaves it (state, result, revision, update time).
    pub job: JobRecord,
    /// The operation's metadata at the end, its `debug` merged over the stored one
    /// (so what the run's start showed, such as a link, stays).
    pub metadata: OperationMetadata,
    /// The operation's response on success.
    pub response: Option<Value>,
    /// The operation's error on failure.
    pub error: Option<OperationError>,
    /// The events recording the outcome.
    pub events: Vec<NewEvent>,
    /// What the run recorded (its activity logs, alerts and entity outputs), stored
    /// with its end; none for a run that failed, or ended outside the runner.
    pub effects: RunEffects,
}
