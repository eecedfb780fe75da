//! The automation repository ports.

use async_trait::async_trait;

use serde_json::{Map, Value};

use super::execution::Execution;
use super::model::{Automation, AutomationDefinition};
use crate::event::NewEvent;
use crate::job::ClaimedTask;
use crate::list::{ListQuery, Page};
use crate::onboarding::journey::DecideArgs;
use crate::operation::{Operation, OperationError, OperationMetadata};
use crate::principal::{Principal, TenantId};
use crate::repository::{CreateOutcome, IdempotencyKey, RepositoryError, ResourceStore};
use crate::time::Timestamp;

/// Stores automations, with their events: the standard store. A create also stores
/// the automation's first revision, and an update whose `revisionId` is new stores that
/// revision, in the same transaction; a purge removes the revisions.
pub trait AutomationRepository: ResourceStore<Automation> {}

impl<T: ResourceStore<Automation> + ?Sized> AutomationRepository for T {}

/// A mocked automation store.
#[cfg(any(test, feature = "mocks"))]
pub type MockAutomationRepository = crate::repository::MockResourceStore<Automation>;

/// Reads the stored revisions of automations (AIP-162): what an execution follows.
///
/// Any method may fail with [`RepositoryError::Unavailable`] or
/// [`RepositoryError::Internal`].
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait AutomationRevisions: Send + Sync {
    /// The parameters and steps of the automation `id` of `tenant` at its revision
    /// `revision_id`; `None` when there is no such automation or revision.
    ///
    /// # Errors
    /// Only the common errors.
    async fn get_definition(
        &self,
        tenant: &TenantId,
        id: &str,
        revision_id: &str,
    ) -> Result<Option<AutomationDefinition>, RepositoryError>;
}

/// Stores executions. An execution's work is one task in the job queue
/// ([`EXECUTION_QUEUE`](super::execution::EXECUTION_QUEUE), the task's job the
/// execution), claimed with the job runs' claim (see
/// [`JobRepository::claim`](crate::job::JobRepository::claim)) and released for a
/// retry with [`JobRepository::finish`](crate::job::JobRepository::finish).
///
/// The methods taking a tenant never see another tenant's rows. Any method may fail
/// with [`RepositoryError::Unavailable`] or [`RepositoryError::Internal`].
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait ExecutionRepository: Send + Sync {
    /// Stores a new execution in one transaction with its `:run` operation, its task
    /// (ready at once) and its events; with an idempotency key, a used key replays and
    /// nothing is written.
    ///
    /// # Errors
    /// [`RepositoryError::AlreadyExists`] when the id is taken;
    /// [`RepositoryError::Conflict`] when a concurrent request stored the same key.
    async fn start<'a>(
        &self,
        tenant: &TenantId,
        execution: &Execution,
        operation: &Operation,
        key: Option<&'a IdempotencyKey>,
        events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError>;

    /// The execution `id` of the automation `automation_id`, or of any automation with
    /// `None`; `None` when there is none.
    ///
    /// # Errors
    /// Only the common errors.
    async fn get<'a>(
        &self,
        tenant: &TenantId,
        automation_id: Option<&'a str>,
        id: &str,
    ) -> Result<Option<Execution>, RepositoryError>;

    /// One page of the executions of `automation_id`.
    ///
    /// # Errors
    /// Only the common errors.
    async fn list(
        &self,
        tenant: &TenantId,
        automation_id: &str,
        query: &ListQuery,
    ) -> Result<Page<Execution>, RepositoryError>;

    /// Ends one claim of an execution's task in one transaction, if the claim still
    /// holds and the stored execution still has `step.expected_revision`: stores the
    /// execution, makes the task ready again at `step.next` (its attempts counted
    /// afresh) or done, ends the operation when the execution ended, and stores the
    /// events. Returns `false`, writing nothing, otherwise (a cancel came first, or
    /// the lease ran out and another worker took the task).
    ///
    /// # Errors
    /// Only the common errors.
    async fn advance(
        &self,
        task: &ClaimedTask,
        step: &StepFinish,
        now: Timestamp,
    ) -> Result<bool, RepositoryError>;

    /// Stores `execution`, CANCELLED, if its stored revision is still
    /// `expected_revision`, in one transaction with its operation ended with the
    /// execution's error and the events. Its task is released and ready now, for one
    /// more claim: the worker that takes it tells the execution's end
    /// ([`StepEffects::execution_ended`]) and ends the task, so a crash between this
    /// commit and the caller's own telling loses nothing.
    ///
    /// # Errors
    /// [`RepositoryError::Conflict`] when it changed; [`RepositoryError::NotFound`]
    /// when it is gone.
    async fn cancel(
        &self,
        tenant: &TenantId,
        execution: &Execution,
        expected_revision: i64,
        events: &[NewEvent],
    ) -> Result<(), RepositoryError>;

    /// Makes the tasks of the executions awaiting the form `form` ready at `now` (the
    /// form was submitted); returns how many.
    ///
    /// # Errors
    /// Only the common errors.
    async fn wake(
        &self,
        tenant: &TenantId,
        form: &str,
        now: Timestamp,
    ) -> Result<u64, RepositoryError>;
}

/// How one claim of an execution's task ends when the step moved on (see
/// [`ExecutionRepository::advance`]).
#[derive(Debug, Clone, PartialEq)]
pub struct StepFinish {
    /// The execution as the claim leaves it.
    pub execution: Execution,
    /// The revision the stored execution must still have.
    pub expected_revision: i64,
    /// When the task may be claimed again; `None` when the execution ended.
    pub next: Option<Timestamp>,
    /// The operation's metadata.
    pub metadata: OperationMetadata,
    /// The operation's end when the execution ended: its response or its error.
    pub end: Option<std::result::Result<Value, OperationError>>,
    /// The events of the claim.
    pub events: Vec<NewEvent>,
}

/// A job a RUN_JOB step started.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StartedJob {
    /// The job's name.
    pub job: String,
    /// Its run's operation's name.
    pub operation: String,
    /// What the step's output holds from before the run (a rating's
    /// `previousRiskLevel`), merged into the job's result when it ends.
    pub before: Map<String, Value>,
}

/// Where a form an execution awaits is.
#[derive(Debug, Clone, PartialEq)]
pub enum FormStatus {
    /// Not submitted yet.
    Draft,
    /// Submitted.
    Submitted,
    /// Expired (or gone) without a submission.
    Expired,
}

/// The side effects of steps, on the tenant's other resources. Each takes the id of
/// what it makes (derived from the execution and the step, see
/// [`step_id`](super::engine::step_id)) and, called again with the same id, does
/// nothing more than the first call: a step retried after a crash acts once.
///
/// Every method acts as `principal` (the tenant's worker). Errors: UNAVAILABLE,
/// INTERNAL and ABORTED are retried; any other fails the step.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait StepEffects: Send + Sync {
    /// Creates the job `id` of `family` about `entity_id` with `input` and starts its
    /// run.
    ///
    /// # Errors
    /// As the job's create and `:run`.
    async fn start_job(
        &self,
        principal: &Principal,
        family: &str,
        entity_id: &str,
        id: &str,
        input: Value,
    ) -> crate::Result<StartedJob>;

    /// How the run of the operation `operation` ended: `None` while it runs.
    ///
    /// # Errors
    /// Only the common errors.
    async fn job_outcome(
        &self,
        principal: &Principal,
        operation: &str,
    ) -> crate::Result<Option<std::result::Result<Value, OperationError>>>;

    /// Cancels the queued run of `operation` (the job becomes CANCELLED, the operation
    /// ends with code 1); a run a worker already claimed finishes.
    ///
    /// # Errors
    /// Only the common errors.
    async fn cancel_job(&self, principal: &Principal, operation: &str) -> crate::Result<()>;

    /// Creates the form `id` of `definition`, about `entity_id` when given, expiring at
    /// `expire_time`; returns its name.
    ///
    /// # Errors
    /// As the form's create.
    async fn create_form(
        &self,
        principal: &Principal,
        id: &str,
        definition: &str,
        entity_id: Option<String>,
        display_name: Option<String>,
        expire_time: Timestamp,
    ) -> crate::Result<String>;

    /// Where the form `form` (its name) is.
    ///
    /// # Errors
    /// Only the common errors.
    async fn form_status(&self, principal: &Principal, form: &str) -> crate::Result<FormStatus>;

    /// Expires the form `form` (its name) if it is still a draft.
    ///
    /// # Errors
    /// Only the common errors.
    async fn expire_form(&self, principal: &Principal, form: &str) -> crate::Result<()>;

    /// Creates or updates the entity `entity_id` from the response of the form `form`
    /// (its name), by the key-to-field table of `formDefinitions/kyc-individual`; a
    /// DOCUMENT answer becomes the entity's document `id`. Returns the step's output:
    /// `entity` and, when a document was made, `document`.
    ///
    /// # Errors
    /// FAILED_PRECONDITION when the form is not submitted.
    async fn upsert_entity_from_form(
        &self,
        principal: &Principal,
        form: &str,
        entity_id: Option<String>,
        id: &str,
    ) -> crate::Result<Value>;

    /// Raises the alert `id` of `alert_type` about `entity_id`; returns its name.
    ///
    /// # Errors
    /// As the alert's raise.
    async fn raise_alert(
        &self,
        principal: &Principal,
        id: &str,
        alert_type: &str,
        entity_id: &str,
        description: &str,
    ) -> crate::Result<String>;

    /// Adds `tag` to the entity `entity_id` (a tag it has already is kept).
    ///
    /// # Errors
    /// As the entity's tag.
    async fn add_tag(&self, principal: &Principal, entity_id: &str, tag: &str)
    -> crate::Result<()>;

    /// Maps the submitted `form` (its name) into the entity of the onboarding job
    /// `job` (its name), as [`Journey::map`](crate::onboarding::Journey::map) does,
    /// with `id` for what it makes. Returns the step's output.
    ///
    /// # Errors
    /// As [`Journey::map`](crate::onboarding::Journey::map).
    async fn map_onboarding(
        &self,
        principal: &Principal,
        id: &str,
        job: &str,
        form: &str,
    ) -> crate::Result<Value>;

    /// Decides the onboarding, as
    /// [`Journey::decide`](crate::onboarding::Journey::decide) does. Returns the
    /// step's output, the job's result.
    ///
    /// # Errors
    /// As [`Journey::decide`](crate::onboarding::Journey::decide).
    async fn decide_onboarding(
        &self,
        principal: &Principal,
        id: &str,
        args: &DecideArgs,
    ) -> crate::Result<Value>;

    /// Completes the hosted capture `session` (`verificationSessions/{session}`) with
    /// its submitted `form`, its stored `document` judged `document_outcome`. Returns
    /// the step's output, the session.
    ///
    /// # Errors
    /// As [`VerificationService::complete_capture`](crate::verification::VerificationService::complete_capture);
    /// FAILED_PRECONDITION `FORM_NOT_SUBMITTED`.
    async fn complete_capture(
        &self,
        principal: &Principal,
        session: &str,
        form: &str,
        document: &str,
        document_outcome: &str,
    ) -> crate::Result<Value>;

    /// Hears that `execution` of `tenant` ended (failed, was cancelled or succeeded),
    /// after it was stored: an onboarding's journey ends its job's run when it did not
    /// decide, and a hosted capture's completion its session's run when it did not
    /// complete the session.
    ///
    /// # Errors
    /// What ending the run fails with.
    async fn execution_ended(&self, tenant: &TenantId, execution: &Execution) -> crate::Result<()>;

    /// Writes the activity log `id` about `entity_id`; returns its name.
    ///
    /// # Errors
    /// As the activity log's create.
    async fn write_activity_log(
        &self,
        principal: &Principal,
        id: &str,
        entity_id: &str,
        description: &str,
    ) -> crate::Result<String>;
}
