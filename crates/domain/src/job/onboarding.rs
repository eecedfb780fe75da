//! Onboarding jobs (`entities/{entity}/onboardIndividualEntityJobs`, issue 18): a
//! tenant names a form definition, a JSONata mapping and a `webhookUri`; each `:run`
//! gives a link to a hosted form at once (`metadata.debug.hostedFormUri`), and the
//! journey that follows (the form submitted, the entity made, the document verified,
//! the person screened and rated, a decision) runs as an execution of the built-in
//! automation `automations/onboard-individual`, so that it is durable, visible and
//! cancellable. The run ends when the journey decides ([`crate::onboarding::journey`]),
//! or fails with the execution.

use std::sync::{Arc, OnceLock, Weak};

use async_trait::async_trait;
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::kind::{JobFamily, NoRunInput, Run, RunRequest, retry_unless_final};
use super::model::{JobRecord, worker_principal};
use crate::automation::execution_service::{ExecutionService, RunAutomationRequest};
use crate::entity::Entity;
use crate::error::{Code, Error, Result};
use crate::form::FormService;
use crate::form_definition::FormDefinitionService;
use crate::hosted::{HostedLinkGrant, HostedLinks};
use crate::id::derived_request_id;
use crate::methods::CreateMethod;
use crate::onboarding::input::OnboardingInput;
use crate::onboarding::mapping::MappingEngine;
use crate::principal::Principal;
use crate::risk::evaluation::require_individual;
use crate::time::{Clock, Timestamp};
use crate::webhook::ports::HostResolver;
use crate::webhook::target::TargetPolicy;

/// The id of the built-in automation an onboarding's journey is an execution of.
pub const ONBOARD_AUTOMATION: &str = "onboard-individual";

/// The id of the form a run's link opens: derived from the run's operation id, so a
/// run's form is made once, and each run has its own.
pub fn run_form_id(operation_id: &str) -> String {
    format!("onboarding-{operation_id}")
}

/// What a run's `execute` gives: the execution of the journey, which joins the
/// operation's `metadata.debug`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JourneyStarted {
    /// `automations/onboard-individual/executions/{execution}`.
    pub execution: String,
}

/// The ports the family uses.
pub struct OnboardingPorts {
    /// Resolves the job's `formDefinition`.
    pub definitions: Arc<FormDefinitionService>,
    /// Makes each run's form.
    pub forms: Arc<FormService>,
    /// Issues each run's link.
    pub links: Arc<HostedLinks>,
    /// Checks the job's `jsonataExpression`.
    pub engine: Arc<dyn MappingEngine>,
    /// The webhook URL policy the job's `webhookUri` must pass.
    pub policy: TargetPolicy,
    /// Resolves the `webhookUri`'s host for the policy.
    pub resolver: Arc<dyn HostResolver>,
    /// The time.
    pub clock: Arc<dyn Clock>,
}

/// Onboarding of individuals.
pub struct OnboardingJobs {
    ports: OnboardingPorts,
    /// Starts the journeys: set once wiring is done, since the executions' effects
    /// end these jobs' runs (they need this family's service, which needs the family).
    /// Weak: the executions hold the job services, which hold this family, so a strong
    /// reference would make a cycle that keeps the database pool alive after a server
    /// stops.
    executions: OnceLock<Weak<ExecutionService>>,
}

impl OnboardingJobs {
    /// The family over its ports; [`OnboardingJobs::start_journeys_with`] completes it.
    pub fn new(ports: OnboardingPorts) -> OnboardingJobs {
        OnboardingJobs {
            ports,
            executions: OnceLock::new(),
        }
    }

    /// Gives the family the executions its runs start. A second call changes nothing.
    pub fn start_journeys_with(&self, executions: &Arc<ExecutionService>) {
        let _ = self.executions.set(Arc::downgrade(executions));
    }

    /// The executions; UNAVAILABLE once they are gone (the server stops), so the run
    /// is retried by the next server.
    fn executions(&self) -> Result<Arc<ExecutionService>> {
        self.executions
            .get()
            .and_then(Weak::upgrade)
            .ok_or_else(|| {
                Error::unavailable(
                    "SHUTTING_DOWN",
                    "onboarding jobs have no executions to run journeys",
                )
            })
    }
}

#[async_trait]
impl JobFamily for OnboardingJobs {
    const COLLECTION: &'static str = "onboardIndividualEntityJobs";
    const EVENT_PREFIX: &'static str = "onboard_individual_entity_job";
    const OPERATION_TYPE: &'static str = "rics.v1alpha.OnboardIndividualEntityJob";
    const CREATES_ENTITY: bool = true;
    const ENDS_ELSEWHERE: bool = true;

    type Input = OnboardingInput;
    type RunRequest = RunRequest;
    type RunInput = NoRunInput;
    type Output = JourneyStarted;

    async fn check_input(
        &self,
        principal: &Principal,
        _entity_id: &str,
        input: OnboardingInput,
    ) -> Result<OnboardingInput> {
        let checked = input
            .check(
                principal,
                self.ports.clock.now(),
                &self.ports.definitions,
                &self.ports.policy,
                self.ports.resolver.as_ref(),
                self.ports.engine.as_ref(),
            )
            .await?;
        Ok(checked.input)
    }

    fn admits(&self, entity: &Entity) -> Result<()> {
        require_individual(entity)
    }

    /// Makes the run's DRAFT form (about the job's entity, once there is one) expiring
    /// with the link, and issues the link.
    async fn prepare_run(
        &self,
        principal: &Principal,
        job: &JobRecord,
        operation_id: &str,
        now: Timestamp,
    ) -> Result<Map<String, Value>> {
        let input: OnboardingInput = serde_json::from_value(job.input.clone())
            .map_err(|e| Error::internal(format!("stored onboarding input: {e}")))?;
        let expire_time = input.link_expiry(now).max(now);
        let form_id = run_form_id(operation_id);
        let mut body = json!({"formDefinition": input.form_definition, "expireTime": expire_time});
        if let Some(entity) = job.subject() {
            body["entity"] = json!(format!("entities/{entity}"));
        }
        let form = match self
            .ports
            .forms
            .create(
                principal,
                body,
                Some(&form_id),
                Some(&derived_request_id(operation_id, "form")),
            )
            .await
        {
            Ok(form) => form.name,
            Err(error) if error.code == Code::AlreadyExists => format!("forms/{form_id}"),
            Err(error) => return Err(error),
        };
        let link = self.ports.links.issue(&HostedLinkGrant {
            tenant: principal.tenant.as_str().to_owned(),
            form: form_id,
            expire_time,
            redirect_uri: input.redirect_uri.clone(),
        })?;
        let mut debug = Map::new();
        debug.insert("hostedFormUri".into(), json!(link.uri));
        debug.insert("expireTime".into(), json!(link.expire_time));
        debug.insert("form".into(), json!(form));
        Ok(debug)
    }

    /// Starts the journey's execution, once per run (its request id derives from the
    /// run's task).
    async fn execute(&self, run: Run<'_, Self>) -> Result<JourneyStarted> {
        let (job, task) = (run.job, run.task);
        let mut parameters = Map::new();
        parameters.insert("job".into(), json!(job.name()));
        parameters.insert("operation".into(), json!(task.operation_name));
        parameters.insert(
            "form".into(),
            json!(format!("forms/{}", run_form_id(&task.id))),
        );
        let operation = self
            .executions()?
            .run(
                &worker_principal(&task.tenant),
                ONBOARD_AUTOMATION,
                None,
                RunAutomationRequest {
                    parameters,
                    request_id: Some(derived_request_id(&task.id, "journey")),
                },
            )
            .await
            .map_err(retry_unless_final)?;
        let execution = operation
            .metadata
            .debug
            .get("execution")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        Ok(JourneyStarted { execution })
    }
}
