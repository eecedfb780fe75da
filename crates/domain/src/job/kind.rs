//! What makes one job family: its names, the inputs it accepts and the work a run
//! does.

use async_trait::async_trait;
use serde_json::Value;

use super::model::{ClaimedTask, JobRecord};
use crate::entity::Entity;
use crate::error::{Code, Error, Result};
use crate::principal::Principal;

/// A job family, such as PEP and sanctions screening.
#[async_trait]
pub trait JobKind: Send + Sync {
    /// The collection id under an entity: `pepSanctionIndividualEntityJobs`.
    fn collection(&self) -> &'static str;

    /// The prefix of its event types: `pep_sanction_job`.
    fn event_prefix(&self) -> &'static str;

    /// `metadata.type` of its runs' operations.
    fn operation_type(&self) -> &'static str;

    /// Checks the family's inputs (the create body without the standard fields) of a
    /// job about the entity `entity_id` of the caller's tenant, and returns them with
    /// their defaults filled in.
    ///
    /// # Errors
    /// INVALID_ARGUMENT naming the bad field under `job.`; NOT_FOUND for a resource
    /// the inputs name that the tenant lacks; UNAVAILABLE when what the inputs are
    /// checked against (the loaded lists) is.
    async fn check_input(
        &self,
        principal: &Principal,
        entity_id: &str,
        input: Value,
    ) -> Result<Value>;

    /// Checks what a `:run` body gives for that run only (the body without `requestId`,
    /// a JSON object) of `job`, and returns it as the run's task carries it to
    /// [`JobKind::execute`]: `null` for nothing. Families take nothing by default.
    ///
    /// # Errors
    /// INVALID_ARGUMENT naming the bad field under `run.`.
    fn check_run_input(&self, job: &JobRecord, input: Value) -> Result<Value> {
        let _ = job;
        match input.as_object().and_then(|fields| fields.keys().next()) {
            Some(field) => Err(Error::invalid_field(
                format!("run.{field}"),
                "UNKNOWN_FIELD",
                "this job family's `:run` takes only `requestId`",
            )),
            None => Ok(Value::Null),
        }
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

    /// Runs one attempt of a run of `job` and returns the result. An attempt may be
    /// repeated after a crash or a lost lease, so every side effect must be idempotent
    /// for `task` (for example: records whose ids derive from `task.id`).
    ///
    /// # Errors
    /// UNAVAILABLE, INTERNAL or ABORTED are retried; any other error fails the run.
    async fn execute(&self, job: &JobRecord, task: &ClaimedTask) -> Result<Value>;
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
