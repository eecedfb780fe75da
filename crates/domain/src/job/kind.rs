//! What makes one job family, declared once: its names, its typed inputs, what a
//! `:run` may give, its typed result and the work a run does ([`JobFamily`]); and the
//! same family with its types read from and written to stored JSON ([`JobKind`]), which
//! the service and the runner hold for every family alike.

use async_trait::async_trait;
use rics_aip::field_mask::FieldTable;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::model::{ClaimedTask, JobRecord, TOP_LEVEL_FAMILIES};
use super::records::RunRecords;
use crate::entity::Entity;
use crate::error::{Code, Error, Result};
use crate::principal::Principal;
use crate::resource::{parse_body, to_json};
use crate::time::Timestamp;

/// A job family, such as PEP and sanctions screening.
#[async_trait]
pub trait JobFamily: Send + Sync + 'static {
    /// The collection id: `pepSanctionIndividualEntityJobs`.
    const COLLECTION: &'static str;
    /// The prefix of its event types: `pep_sanction_job`.
    const EVENT_PREFIX: &'static str;
    /// `metadata.type` of its runs' operations.
    const OPERATION_TYPE: &'static str;
    /// Whether a job may be created at `entities/-`, about a person its run makes
    /// into an entity (onboarding); otherwise every job is about an entity that exists
    /// when it is created and run.
    const CREATES_ENTITY: bool = false;
    /// Whether a run goes on after [`JobFamily::execute`] returns, outside the runner
    /// (an automation execution, an identity provider's callback), and ends by
    /// [`JobService::end_run`](super::JobService::end_run). Then `execute`'s output
    /// joins the operation's `metadata.debug`, the operation stays not done and the
    /// job RUNNING.
    const ENDS_ELSEWHERE: bool = false;

    /// The inputs a create body gives (the body without the standard job fields),
    /// stored with the job.
    type Input: Serialize + DeserializeOwned + Send + Sync;
    /// The body of a `:run`.
    type RunRequest: RunRequestBody;
    /// What a run's task carries from its `:run` to [`JobFamily::execute`].
    type RunInput: Serialize + DeserializeOwned + Send + Sync;
    /// A successful run's result: the job's `result` and the operation's response.
    type Output: Serialize + Send;

    /// Checks the inputs of a job about the entity `entity_id` of the caller's
    /// tenant, and returns them with their defaults filled in.
    ///
    /// # Errors
    /// INVALID_ARGUMENT naming the bad field under `job.`; NOT_FOUND for a resource
    /// the inputs name that the tenant lacks; UNAVAILABLE when what the inputs are
    /// checked against (the loaded lists) is.
    async fn check_input(
        &self,
        principal: &Principal,
        entity_id: &str,
        input: Self::Input,
    ) -> Result<Self::Input>;

    /// The family's input fields (their JSON names, kinds and AIP-203 behaviours) when
    /// its jobs may be changed: they then take PATCH of these fields (AIP-134), a
    /// soft DELETE and `:undelete` (AIP-164), the job's `entity` being immutable.
    /// `None` (the default): a job is never changed but by its runs, nor deleted.
    /// An update's inputs are checked again by [`JobFamily::check_input`].
    fn input_fields(&self) -> Option<FieldTable> {
        None
    }

    /// Checks what a `:run` of `job` gives for that run only, and returns what the
    /// run's task carries: nothing unless the family says otherwise.
    ///
    /// # Errors
    /// INVALID_ARGUMENT naming the bad field under `run.`.
    fn check_run(
        &self,
        job: &JobRecord,
        request: Self::RunRequest,
    ) -> Result<Option<Self::RunInput>> {
        let _ = (job, request);
        Ok(None)
    }

    /// Prepares a run at its `:run`, before the run is stored and queued, for a family
    /// whose caller needs something at once (a link to a form, a provider's session):
    /// the fields returned join the operation's `metadata.debug`. A `:run` replayed
    /// by its request id does not prepare again; a new `:run` prepares with a new
    /// `operation_id`, so side effects keyed by it are made once per run.
    ///
    /// # Errors
    /// Any error fails the `:run`, which then queues nothing.
    async fn prepare_run(
        &self,
        principal: &Principal,
        job: &JobRecord,
        operation_id: &str,
        now: Timestamp,
    ) -> Result<Map<String, Value>> {
        let _ = (principal, job, operation_id, now);
        Ok(Map::new())
    }

    /// Whether the family takes jobs about `entity` (checked on create and on `:run`);
    /// every kind of entity unless the family says otherwise.
    ///
    /// # Errors
    /// FAILED_PRECONDITION saying why the family does not take the entity.
    fn admits(&self, entity: &Entity) -> Result<()> {
        let _ = entity;
        Ok(())
    }

    /// Runs one attempt of a run and returns its result. Its records go through
    /// `run.records`, which the runner writes with the run's end in one transaction,
    /// under ids that derive from `run.task.id`. An attempt may be repeated after a
    /// crash or a lost lease, so any other side effect must be idempotent for the
    /// run's task.
    ///
    /// # Errors
    /// UNAVAILABLE, INTERNAL or ABORTED are retried; any other error fails the run.
    async fn execute(&self, run: Run<'_, Self>) -> Result<Self::Output>;
}

/// One attempt of a run, as its family reads it.
pub struct Run<'a, F: JobFamily + ?Sized> {
    /// The job.
    pub job: &'a JobRecord,
    /// The job's inputs.
    pub input: F::Input,
    /// What the run's `:run` gave, as the family checked it.
    pub run_input: Option<F::RunInput>,
    /// The claimed run.
    pub task: &'a ClaimedTask,
    /// Where the run records its activity logs, alerts and entity outputs.
    pub records: &'a dyn RunRecords,
}

/// The body of a `:run`: a request id, and what else the family reads.
pub trait RunRequestBody: Serialize + DeserializeOwned + Send {
    /// The request id that makes the call idempotent, when the body gives one.
    fn request_id(&self) -> Option<&str>;
}

/// The body of a `:run` of the families that take nothing for one run.
#[derive(Debug, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RunRequest {
    /// A UUID making the call idempotent (also accepted as a query parameter).
    #[serde(default)]
    pub request_id: Option<String>,
}

impl RunRequestBody for RunRequest {
    fn request_id(&self) -> Option<&str> {
        self.request_id.as_deref()
    }
}

/// What a run's task carries when its family takes nothing for one run: no value.
#[derive(Debug, Serialize, Deserialize)]
pub enum NoRunInput {}

/// A job family with its types read from and written to the JSON of requests and
/// of stored jobs and tasks: what the service and the runner hold of every family.
/// Every [`JobFamily`] is one.
#[async_trait]
pub trait JobKind: Send + Sync {
    /// See [`JobFamily::COLLECTION`].
    fn collection(&self) -> &'static str;

    /// See [`JobFamily::EVENT_PREFIX`].
    fn event_prefix(&self) -> &'static str;

    /// See [`JobFamily::OPERATION_TYPE`].
    fn operation_type(&self) -> &'static str;

    /// See [`JobFamily::CREATES_ENTITY`].
    fn creates_entity(&self) -> bool;

    /// See [`JobFamily::ENDS_ELSEWHERE`].
    fn ends_elsewhere(&self) -> bool;

    /// See [`JobFamily::input_fields`].
    fn input_fields(&self) -> Option<FieldTable>;

    /// See [`JobFamily::prepare_run`].
    ///
    /// # Errors
    /// As [`JobFamily::prepare_run`].
    async fn prepare_run(
        &self,
        principal: &Principal,
        job: &JobRecord,
        operation_id: &str,
        now: Timestamp,
    ) -> Result<Map<String, Value>>;

    /// Whether its jobs are top-level (`{collection}/{job}`, the entity an input)
    /// rather than children of their entity: whether it is one of the
    /// [`TOP_LEVEL_FAMILIES`].
    fn top_level(&self) -> bool;

    /// Reads the inputs from `input` (INVALID_ARGUMENT under `job.`), then as
    /// [`JobFamily::check_input`].
    ///
    /// # Errors
    /// As [`JobFamily::check_input`].
    async fn check_input(
        &self,
        principal: &Principal,
        entity_id: &str,
        input: Value,
    ) -> Result<Value>;

    /// Reads a `:run` body: its request id, and the body as the family reads it, for
    /// [`JobKind::check_run_input`] once the job is known.
    ///
    /// # Errors
    /// INVALID_ARGUMENT naming the bad field under `run.`.
    fn read_run_request(&self, body: Value) -> Result<(Option<String>, Value)>;

    /// As [`JobFamily::check_run`], over a body [`JobKind::read_run_request`] read;
    /// `null` when the task carries nothing.
    ///
    /// # Errors
    /// As [`JobFamily::check_run`].
    fn check_run_input(&self, job: &JobRecord, request: Value) -> Result<Value>;

    /// See [`JobFamily::admits`].
    ///
    /// # Errors
    /// As [`JobFamily::admits`].
    fn admits(&self, entity: &Entity) -> Result<()>;

    /// Reads the stored inputs and the task's run input, then as
    /// [`JobFamily::execute`], recording through `records`.
    ///
    /// # Errors
    /// As [`JobFamily::execute`]; INTERNAL when what is stored does not read.
    async fn execute(
        &self,
        job: &JobRecord,
        task: &ClaimedTask,
        records: &dyn RunRecords,
    ) -> Result<Value>;
}

#[async_trait]
impl<F: JobFamily> JobKind for F {
    fn collection(&self) -> &'static str {
        F::COLLECTION
    }

    fn event_prefix(&self) -> &'static str {
        F::EVENT_PREFIX
    }

    fn operation_type(&self) -> &'static str {
        F::OPERATION_TYPE
    }

    fn creates_entity(&self) -> bool {
        F::CREATES_ENTITY
    }

    fn ends_elsewhere(&self) -> bool {
        F::ENDS_ELSEWHERE
    }

    fn input_fields(&self) -> Option<FieldTable> {
        JobFamily::input_fields(self)
    }

    async fn prepare_run(
        &self,
        principal: &Principal,
        job: &JobRecord,
        operation_id: &str,
        now: Timestamp,
    ) -> Result<Map<String, Value>> {
        JobFamily::prepare_run(self, principal, job, operation_id, now).await
    }

    fn top_level(&self) -> bool {
        TOP_LEVEL_FAMILIES.contains(&F::COLLECTION)
    }

    async fn check_input(
        &self,
        principal: &Principal,
        entity_id: &str,
        input: Value,
    ) -> Result<Value> {
        let input: F::Input = parse_body(input, "job")?;
        to_json(&JobFamily::check_input(self, principal, entity_id, input).await?)
    }

    fn read_run_request(&self, body: Value) -> Result<(Option<String>, Value)> {
        let request: F::RunRequest = parse_body(body, "run")?;
        Ok((request.request_id().map(str::to_owned), to_json(&request)?))
    }

    fn check_run_input(&self, job: &JobRecord, request: Value) -> Result<Value> {
        let request: F::RunRequest = stored(request, "run request")?;
        match self.check_run(job, request)? {
            Some(input) => to_json(&input),
            None => Ok(Value::Null),
        }
    }

    fn admits(&self, entity: &Entity) -> Result<()> {
        JobFamily::admits(self, entity)
    }

    async fn execute(
        &self,
        job: &JobRecord,
        task: &ClaimedTask,
        records: &dyn RunRecords,
    ) -> Result<Value> {
        let run = Run::<F> {
            job,
            input: stored(job.input.clone(), "input")?,
            run_input: match &task.run_input {
                Value::Null => None,
                given => Some(stored(given.clone(), "run input")?),
            },
            task,
            records,
        };
        to_json(&JobFamily::execute(self, run).await?)
    }
}

/// A value rics stored (or read already) of a family's type; INTERNAL when it does
/// not read.
fn stored<T: DeserializeOwned>(value: Value, what: &str) -> Result<T> {
    serde_json::from_value(value).map_err(|e| Error::internal(format!("stored job {what}: {e}")))
}

/// How a family reports a failure of what a run depends on: an entity, document or
/// model version that is gone, deleted or bad (NOT_FOUND, FAILED_PRECONDITION,
/// INVALID_ARGUMENT) fails the run; anything else (a store that failed) becomes
/// UNAVAILABLE, which the runner retries.
pub fn retry_unless_final(error: Error) -> Error {
    if matches!(
        error.code,
        Code::NotFound | Code::FailedPrecondition | Code::InvalidArgument
    ) {
        error
    } else {
        error.with_code(Code::Unavailable)
    }
}
