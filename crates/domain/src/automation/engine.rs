//! The step machine of executions. An execution's work is one task in the job queue,
//! claimed by the job runner like a job run and handed to the [`ExecutionEngine`]:
//! each claim works on the execution's current step, under the claim's lease, and ends
//! in one transaction ([`ExecutionRepository::advance`]) that stores the step's
//! outcome and says when the task is ready again: at once for the next step, at a
//! poll for a running job, at the deadline for a form (or sooner, when `:submit` wakes
//! it), at the time of a WAIT_UNTIL. A step's side effects take ids derived from the
//! execution and the step ([`step_id`]), so a step retried after a crash or a lost
//! lease does them once.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rics_aip::filter::{self, Arg, Comparable, Expr, Operator, ValueKind};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::execution::{EXECUTION_QUEUE, Execution, ExecutionState, RUN_OPERATION_TYPE, StepState};
use super::model::{AutomationDefinition, AutomationStep, StepKind};
use super::ports::{AutomationRevisions, ExecutionRepository, FormStatus, StepEffects, StepFinish};
use super::rules::{END, Reference, is_message_type, references};
use crate::entity::model::RiskLevel;
use crate::error::{Code, Error, Result};
use crate::event::{DirectDelivery, NewEvent};
use crate::id::IdGenerator;
use crate::job::model::{TaskFinish, worker_principal};
use crate::job::ports::{JobRepository, QueuedWork};
use crate::job::{AttemptOutcome, ClaimedTask, RunnerSettings};
use crate::onboarding::journey::DecideArgs;
use crate::operation::{OperationError, OperationMetadata};
use crate::principal::Principal;
use crate::principal::TenantId;
use crate::time::{Clock, Timestamp};

/// The id of what the step `key` of the execution `execution_uid` makes (a job, a
/// form, an alert, an activity log, a document): the same on every attempt of the
/// step, and unique to it.
pub fn step_id(execution_uid: &str, key: &str) -> String {
    let digest = Sha256::digest(format!("{execution_uid}/{key}").as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("x{}", &hex[..31])
}

/// How one claim's work on a step came out.
#[derive(Debug, Clone, PartialEq)]
enum StepOutcome {
    /// The step is done: its output and what it made; the next step is `goto` (an
    /// index, the number of steps to end) or else the following one.
    Done {
        output: Value,
        resources: Vec<String>,
        goto: Option<usize>,
        notify: Option<Notification>,
        /// The entity the execution is about from now on, when it had none: the one
        /// a MAP_ONBOARDING step made, so that erasing it erases the execution.
        subject: Option<String>,
    },
    /// The step waits, until `until` at most: for a job (`form` none) or for the
    /// submission of `form`.
    Wait {
        until: Timestamp,
        resources: Vec<String>,
        output: Option<Value>,
        form: Option<String>,
    },
    /// The step failed for good.
    Failed(Error),
}

/// The message a NOTIFY_WEBHOOK step sends: an `automation_execution.notified` event
/// written with the step's end, delivered to `target` by the webhook outbox.
#[derive(Debug, Clone, PartialEq)]
struct Notification {
    /// The event's id: the message's `webhook-id`.
    id: String,
    /// The URL or endpoint.
    target: DirectDelivery,
    /// The step's `eventType`.
    event_type: String,
    /// The step's `data`.
    data: String,
}

/// The event type of a NOTIFY_WEBHOOK step's message.
pub const NOTIFIED: &str = "automation_execution.notified";

/// Runs the steps of executions, as the job runner hands it their claimed tasks.
pub struct ExecutionEngine {
    executions: Arc<dyn ExecutionRepository>,
    revisions: Arc<dyn AutomationRevisions>,
    effects: Arc<dyn StepEffects>,
    jobs: Arc<dyn JobRepository>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    settings: RunnerSettings,
    job_poll: Duration,
}

impl ExecutionEngine {
    /// The engine over its ports: the executions, the revisions they follow, the
    /// steps' side effects, and the job queue (to release a claim for a retry); the
    /// runner's `settings` (attempts and backoff of a failing step), and how often a
    /// step waiting for a job looks at it (`job_poll`).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        executions: Arc<dyn ExecutionRepository>,
        revisions: Arc<dyn AutomationRevisions>,
        effects: Arc<dyn StepEffects>,
        jobs: Arc<dyn JobRepository>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        settings: RunnerSettings,
        job_poll: Duration,
    ) -> ExecutionEngine {
        ExecutionEngine {
            executions,
            revisions,
            effects,
            jobs,
            clock,
            ids,
            settings,
            job_poll,
        }
    }

    /// Works on the current step of `execution` for one claim.
    async fn step(
        &self,
        principal: &Principal,
        execution: &Execution,
        definition: &AutomationDefinition,
        now: Timestamp,
    ) -> Result<StepOutcome> {
        let Some(step) = definition.steps.get(execution.current) else {
            return Err(Error::internal(format!(
                "execution '{}' is at step {} of {}",
                execution.name(),
                execution.current,
                definition.steps.len()
            )));
        };
        let state = &execution.steps[execution.current];
        let context = context(execution);
        let args = resolve(step, &context);
        let arg = |name: &str| args.get(name).cloned().unwrap_or_default();
        let id = step_id(&execution.uid, &step.key);
        let done = |output: Value, resources: Vec<String>| StepOutcome::Done {
            output,
            resources,
            goto: None,
            notify: None,
            subject: None,
        };
        Ok(match step.kind {
            StepKind::Unspecified => StepOutcome::Failed(Error::new(
                Code::InvalidArgument,
                "UNKNOWN_STEP_KIND",
                format!("step '{}' has no kind", step.key),
            )),
            StepKind::RunJob => {
                if state.resources.is_empty() {
                    let entity = entity_id(&step.key, &arg("entity"))?;
                    let mut input = Map::new();
                    let document = arg("document");
                    if !document.is_empty() {
                        input.insert("document".into(), json!(document));
                    }
                    let started = self
                        .effects
                        .start_job(
                            principal,
                            &arg("family"),
                            &entity,
                            &id,
                            Value::Object(input),
                        )
                        .await?;
                    StepOutcome::Wait {
                        until: now.plus(self.job_poll),
                        resources: vec![started.job, started.operation],
                        output: Some(Value::Object(started.before)),
                        form: None,
                    }
                } else {
                    let operation = state.resources.last().cloned().unwrap_or_default();
                    match self.effects.job_outcome(principal, &operation).await? {
                        None => StepOutcome::Wait {
                            until: now.plus(self.job_poll),
                            resources: vec![],
                            output: None,
                            form: None,
                        },
                        Some(Ok(result)) => done(job_output(state.output.as_ref(), result), vec![]),
                        Some(Err(error)) => StepOutcome::Failed(Error::failed_precondition(
                            "JOB_FAILED",
                            format!("the job of step '{}' failed: {}", step.key, error.message),
                        )),
                    }
                }
            }
            StepKind::RequestForm => {
                let deadline = execution
                    .create_time
                    .plus(parse_seconds(&arg("deadline")).unwrap_or(DEFAULT_DEADLINE));
                match state.resources.first() {
                    None => {
                        let entity = match arg("entity") {
                            text if text.is_empty() => None,
                            text => Some(entity_id(&step.key, &text)?),
                        };
                        let display_name = Some(arg("displayName")).filter(|n| !n.is_empty());
                        let form = self
                            .effects
                            .create_form(
                                principal,
                                &id,
                                &arg("formDefinition"),
                                entity,
                                display_name,
                                deadline,
                            )
                            .await?;
                        StepOutcome::Wait {
                            until: deadline.min(now.plus(FORM_POLL)),
                            resources: vec![form.clone()],
                            output: Some(json!({"form": form})),
                            form: Some(form),
                        }
                    }
                    Some(form) => match self.effects.form_status(principal, form).await? {
                        FormStatus::Submitted => done(json!({"form": form}), vec![]),
                        FormStatus::Draft if now < deadline => StepOutcome::Wait {
                            until: deadline.min(now.plus(FORM_POLL)),
                            resources: vec![],
                            output: None,
                            form: Some(form.clone()),
                        },
                        FormStatus::Draft | FormStatus::Expired => StepOutcome::Failed(Error::new(
                            Code::DeadlineExceeded,
                            "FORM_DEADLINE_EXCEEDED",
                            format!(
                                "the form '{form}' of step '{}' was not submitted by its deadline",
                                step.key
                            ),
                        )),
                    },
                }
            }
            StepKind::UpsertEntityFromForm => {
                let entity = match arg("entity") {
                    text if text.is_empty() => None,
                    text => Some(entity_id(&step.key, &text)?),
                };
                let output = self
                    .effects
                    .upsert_entity_from_form(principal, &arg("form"), entity, &id)
                    .await?;
                let resources = made(&output, &["entity", "document"]);
                done(output, resources)
            }
            StepKind::Branch => {
                let matched = evaluate(&step.key, &arg("condition"), &context)?;
                let target = if matched { arg("then") } else { arg("else") };
                let goto = match target.as_str() {
                    "" => None,
                    END => Some(definition.steps.len()),
                    key => definition.steps.iter().position(|s| s.key == key),
                };
                StepOutcome::Done {
                    output: json!({"matched": matched}),
                    resources: vec![],
                    goto,
                    notify: None,
                    subject: None,
                }
            }
            StepKind::RaiseAlert => {
                let entity = entity_id(&step.key, &arg("entity"))?;
                let alert = self
                    .effects
                    .raise_alert(
                        principal,
                        &id,
                        &arg("alertType"),
                        &entity,
                        &arg("description"),
                    )
                    .await?;
                done(json!({"alert": alert}), vec![alert])
            }
            StepKind::AddTag => {
                let entity = entity_id(&step.key, &arg("entity"))?;
                let tag = arg("tag");
                self.effects.add_tag(principal, &entity, &tag).await?;
                done(json!({"tag": tag}), vec![])
            }
            StepKind::WriteActivityLog => {
                let entity = entity_id(&step.key, &arg("entity"))?;
                let log = self
                    .effects
                    .write_activity_log(principal, &id, &entity, &arg("description"))
                    .await?;
                done(json!({"activityLog": log}), vec![log])
            }
            StepKind::NotifyWebhook => {
                let (url, endpoint) = (arg("url"), arg("endpoint"));
                let target = match endpoint.strip_prefix("webhookEndpoints/") {
                    _ if endpoint.is_empty() && !url.is_empty() => DirectDelivery::Url(url),
                    Some(id) if url.is_empty() && crate::id::is_well_formed_id(id) => {
                        DirectDelivery::Endpoint(id.to_owned())
                    }
                    _ => {
                        return Ok(StepOutcome::Failed(Error::new(
                            Code::InvalidArgument,
                            "INVALID_STEP_ARGUMENT",
                            format!(
                                "step '{}' must resolve to a url or to an endpoint \
                                 webhookEndpoints/{{webhookEndpoint}}",
                                step.key
                            ),
                        )));
                    }
                };
                let event_type = arg("eventType");
                if !is_message_type(&event_type) {
                    return Ok(StepOutcome::Failed(Error::new(
                        Code::InvalidArgument,
                        "INVALID_STEP_ARGUMENT",
                        format!("step '{}': '{event_type}' is not a message type", step.key),
                    )));
                }
                let id = self.ids.resource_id();
                StepOutcome::Done {
                    output: json!({"event": id}),
                    resources: vec![],
                    goto: None,
                    notify: Some(Notification {
                        id,
                        target,
                        event_type,
                        data: arg("data"),
                    }),
                    subject: None,
                }
            }
            StepKind::AwaitForm => {
                let form = arg("form");
                match self.effects.form_status(principal, &form).await? {
                    FormStatus::Submitted => done(json!({"form": form}), vec![]),
                    FormStatus::Draft => StepOutcome::Wait {
                        until: now.plus(FORM_POLL),
                        resources: if state.resources.is_empty() {
                            vec![form.clone()]
                        } else {
                            vec![]
                        },
                        output: Some(json!({"form": form})),
                        form: Some(form),
                    },
                    FormStatus::Expired => StepOutcome::Failed(Error::new(
                        Code::DeadlineExceeded,
                        "FORM_EXPIRED",
                        format!(
                            "the form '{form}' of step '{}' expired without a submission",
                            step.key
                        ),
                    )),
                }
            }
            StepKind::MapOnboarding => {
                let output = self
                    .effects
                    .map_onboarding(principal, &id, &arg("job"), &arg("form"))
                    .await?;
                let resources = made(&output, &["entity", "document"]);
                let subject = output
                    .get("entity")
                    .and_then(Value::as_str)
                    .and_then(|name| name.strip_prefix("entities/"))
                    .map(str::to_owned);
                StepOutcome::Done {
                    output,
                    resources,
                    goto: None,
                    notify: None,
                    subject,
                }
            }
            StepKind::DecideOnboarding => {
                let decide: DecideArgs = serde_json::from_value(json!(args)).map_err(|e| {
                    Error::new(
                        Code::InvalidArgument,
                        "INVALID_STEP_ARGUMENT",
                        format!("step '{}': {e}", step.key),
                    )
                })?;
                let output = self
                    .effects
                    .decide_onboarding(principal, &id, &decide)
                    .await?;
                let resources = made(&output, &["alert", "activityLog"]);
                done(output, resources)
            }
            StepKind::CompleteCapture => {
                let output = self
                    .effects
                    .complete_capture(
                        principal,
                        &arg("session"),
                        &arg("form"),
                        &arg("document"),
                        &arg("documentOutcome"),
                    )
                    .await?;
                let resources = made(&output, &["name", "activityLog"]);
                done(output, resources)
            }
            StepKind::WaitUntil => {
                let time = Timestamp::parse_rfc3339(&arg("time")).map_err(|problem| {
                    Error::new(
                        Code::InvalidArgument,
                        "INVALID_TIME",
                        format!("step '{}': time {problem}", step.key),
                    )
                })?;
                if now >= time {
                    done(json!({}), vec![])
                } else {
                    StepOutcome::Wait {
                        until: time,
                        resources: vec![],
                        output: None,
                        form: None,
                    }
                }
            }
        })
    }

    /// The execution as `outcome` leaves it, with what the claim's end stores.
    fn finish(
        &self,
        principal: &Principal,
        current: &Execution,
        outcome: StepOutcome,
        now: Timestamp,
    ) -> StepFinish {
        let mut x = current.clone();
        x.revision += 1;
        x.update_time = now;
        let mut verbs = Vec::new();
        if x.state == ExecutionState::Pending {
            x.state = ExecutionState::Running;
            x.start_time = Some(now);
            verbs.push("automation_execution.started");
        }
        let i = x.current;
        let count = x.steps.len();
        let mut next = None;
        let mut end = None;
        let mut notification = None;
        if let Some(step) = x.steps.get_mut(i) {
            step.start_time.get_or_insert(now);
            match outcome {
                StepOutcome::Done {
                    output,
                    resources,
                    goto,
                    notify,
                    subject,
                } => {
                    notification = notify;
                    if x.entity_id.is_none() {
                        x.entity_id = subject;
                    }
                    let resumed = step.state == StepState::WaitingForInput;
                    step.state = StepState::Succeeded;
                    step.end_time = Some(now);
                    step.output = Some(output);
                    step.resources.extend(resources);
                    x.forms.clear();
                    if resumed {
                        x.state = ExecutionState::Running;
                        verbs.push("automation_execution.resumed");
                    }
                    let target = goto.unwrap_or(i + 1).clamp(i + 1, count);
                    skip(&mut x, i + 1, target);
                    x.current = target;
                    if target >= count {
                        x.state = ExecutionState::Succeeded;
                        x.end_time = Some(now);
                        verbs.push("automation_execution.succeeded");
                        end = Some(Ok(x.to_json()));
                    } else {
                        next = Some(now);
                    }
                }
                StepOutcome::Wait {
                    until,
                    resources,
                    output,
                    form,
                } => {
                    step.resources.extend(resources);
                    if output.is_some() {
                        step.output = output;
                    }
                    match form {
                        Some(form) => {
                            step.state = StepState::WaitingForInput;
                            if x.state != ExecutionState::WaitingForInput {
                                x.state = ExecutionState::WaitingForInput;
                                x.forms = vec![form];
                                verbs.push("automation_execution.waiting_for_input");
                            }
                        }
                        None => step.state = StepState::Running,
                    }
                    next = Some(until);
                }
                StepOutcome::Failed(error) => {
                    step.state = StepState::Failed;
                    step.end_time = Some(now);
                    let error = OperationError::from(&error);
                    x.state = ExecutionState::Failed;
                    x.error = Some(error.clone());
                    x.end_time = Some(now);
                    x.forms.clear();
                    skip(&mut x, i + 1, count);
                    verbs.push("automation_execution.failed");
                    end = Some(Err(error));
                }
            }
        }
        let mut events: Vec<NewEvent> = verbs
            .into_iter()
            .map(|verb| {
                execution_event(
                    self.ids.resource_id(),
                    verb,
                    Some(current),
                    &x,
                    principal,
                    now,
                )
            })
            .collect();
        if let Some(n) = notification {
            let event = NewEvent::new(n.id, NOTIFIED, &x.name(), principal, now)
                .with_field("object", json!({"eventType": n.event_type, "data": n.data}));
            let event = match &x.entity_id {
                Some(entity) => event.for_entity(entity),
                None => event,
            };
            events.push(NewEvent {
                deliver_to: Some(n.target),
                ..event
            });
        }
        StepFinish {
            metadata: metadata(&x),
            expected_revision: current.revision,
            execution: x,
            next,
            end,
            events,
        }
    }

    /// Wakes `execution` now when a form it has just begun to await is already
    /// submitted. A submit wakes only executions whose task is stored as waiting on the
    /// form and unclaimed ([`ExecutionRepository::wake`]); one that came while this
    /// step was claimed found nothing to wake, and would otherwise be seen only at the
    /// next [`FORM_POLL`]. The submit was stored before that wake ran, and the wake ran
    /// before this wait was stored, so this look, made after, sees it. A look that
    /// fails leaves the step to that poll, as a lost wake does.
    async fn catch_submit_during_claim(&self, tenant: &TenantId, execution: &Execution) {
        if execution.state != ExecutionState::WaitingForInput {
            return;
        }
        let principal = worker_principal(tenant);
        for form in &execution.forms {
            if let Ok(FormStatus::Submitted) = self.effects.form_status(&principal, form).await {
                let _ = self.executions.wake(tenant, form, self.clock.now()).await;
            }
        }
    }

    /// Releases the claim of a step that failed in a way worth retrying.
    async fn retry(&self, task: &ClaimedTask, error: &Error, now: Timestamp) -> Result<()> {
        self.jobs
            .finish(
                task,
                Arc::new(TaskFinish::Retry {
                    error: error.message.clone(),
                    at: now.plus(self.settings.backoff(task.attempt)),
                }),
                now,
            )
            .await?;
        Ok(())
    }
}

#[async_trait]
impl QueuedWork for ExecutionEngine {
    fn queue(&self) -> &'static str {
        EXECUTION_QUEUE
    }

    async fn work(&self, task: &ClaimedTask) -> Result<AttemptOutcome> {
        let now = self.clock.now();
        let Some(execution) = self
            .executions
            .get(&task.tenant, None, &task.job_id)
            .await?
        else {
            return Err(Error::internal(format!(
                "the execution '{}' of a queued task is gone",
                task.job_id
            )));
        };
        let outcome = if execution.state.is_terminal() {
            // Cancelled between the claim and now, or the last claim of an execution
            // that failed: what its end ends (an onboarding's run) is ended, again if
            // need be, since a crash may have come between the end's commit and that
            // (ending it twice changes nothing); then the task only ends.
            self.effects
                .execution_ended(&task.tenant, &execution)
                .await?;
            StepOutcome::Done {
                output: Value::Null,
                resources: vec![],
                goto: None,
                notify: None,
                subject: None,
            }
        } else {
            let definition = self
                .revisions
                .get_definition(
                    &task.tenant,
                    &execution.automation_id,
                    &execution.automation_revision,
                )
                .await?
                .ok_or_else(|| {
                    Error::internal(format!(
                        "the revision '{}' of automation '{}' is gone",
                        execution.automation_revision, execution.automation_id
                    ))
                })?;
            let principal = worker_principal(&task.tenant);
            match self.step(&principal, &execution, &definition, now).await {
                Ok(outcome) => outcome,
                Err(error)
                    if is_retryable(error.code) && task.attempt < self.settings.max_attempts =>
                {
                    self.retry(task, &error, now).await?;
                    return Ok(AttemptOutcome::Retried);
                }
                Err(error) => StepOutcome::Failed(error),
            }
        };
        let mut finish = if execution.state.is_terminal() {
            StepFinish {
                metadata: metadata(&execution),
                expected_revision: execution.revision,
                execution: execution.clone(),
                next: None,
                end: None,
                events: vec![],
            }
        } else {
            self.finish(&worker_principal(&task.tenant), &execution, outcome, now)
        };
        // The last claim of an execution that failed before is no failure of its own.
        let failed =
            !execution.state.is_terminal() && finish.execution.state == ExecutionState::Failed;
        if failed && finish.end.is_some() {
            // The task is claimed once more, so that what the failure ends is ended
            // even when this process dies between the commit below and the end.
            finish.next = Some(now);
        }
        let advanced = self.executions.advance(task, &finish, now).await?;
        if advanced && finish.end.is_some() {
            self.effects
                .execution_ended(&task.tenant, &finish.execution)
                .await?;
        }
        if advanced {
            self.catch_submit_during_claim(&task.tenant, &finish.execution)
                .await;
        }
        Ok(if failed {
            AttemptOutcome::Failed
        } else {
            AttemptOutcome::Succeeded
        })
    }
}

/// How often a step awaiting a form looks at it besides being woken by its submit (a
/// wake lost with a crash, or sent to another process's workers, is caught by it).
const FORM_POLL: Duration = Duration::from_secs(60);

/// The longest a REQUEST_FORM waits when its step gives no deadline: 14 days.
const DEFAULT_DEADLINE: Duration = Duration::from_secs(14 * 24 * 3600);

/// An execution's event: tenant-level, and also the entity's when its parameter
/// `entity` names one.
pub fn execution_event(
    id: String,
    event_type: &str,
    before: Option<&Execution>,
    after: &Execution,
    principal: &Principal,
    now: Timestamp,
) -> NewEvent {
    let before = before.map(Execution::to_json);
    let event = NewEvent::new(id, event_type, &after.name(), principal, now)
        .with_changes(before.as_ref(), Some(&after.to_json()));
    match &after.entity_id {
        Some(entity) => event.for_entity(entity),
        None => event,
    }
}

/// The metadata of an execution's operation: its state, and the execution's name.
pub fn metadata(execution: &Execution) -> OperationMetadata {
    OperationMetadata {
        kind: RUN_OPERATION_TYPE.to_owned(),
        value: execution.state.as_str().to_owned(),
        debug: json!({"execution": execution.name()}),
    }
}

/// Marks the steps `from..to` SKIPPED.
fn skip(execution: &mut Execution, from: usize, to: usize) {
    for step in execution.steps.iter_mut().take(to).skip(from) {
        step.state = StepState::Skipped;
    }
}

/// What references read: `parameters` and each step's `output`.
fn context(execution: &Execution) -> Value {
    let steps: Map<String, Value> = execution
        .steps
        .iter()
        .map(|s| {
            let output = s.output.clone().unwrap_or(Value::Null);
            (s.key.clone(), json!({"output": output}))
        })
        .collect();
    json!({"parameters": execution.input_parameters, "steps": steps})
}

/// The value a dotted reference names in `context`, if any.
fn lookup<'a>(context: &'a Value, path: &str) -> Option<&'a Value> {
    Reference::parse(path)?;
    path.split('.')
        .try_fold(context, |value, segment| value.get(segment))
}

/// The text of a value as an argument: a string as itself, nothing as empty, any
/// other value as JSON.
fn as_text(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    }
}

/// The step's arguments with their references replaced by what they name.
fn resolve(step: &AutomationStep, context: &Value) -> BTreeMap<String, String> {
    step.args
        .iter()
        .map(|(name, value)| {
            let text = as_text(Some(value));
            let resolved = match (name.as_str(), references(&text)) {
                // A branch's condition names its fields itself.
                ("condition", _) | (_, Err(_)) => text,
                (_, Ok(found)) => found.iter().fold(text.clone(), |acc, path| {
                    acc.replace(&format!("${{{path}}}"), &as_text(lookup(context, path)))
                }),
            };
            (name.clone(), resolved)
        })
        .collect()
}

/// The entity id of an argument `entities/{entity}`.
fn entity_id(key: &str, name: &str) -> Result<String> {
    name.strip_prefix("entities/")
        .filter(|id| !id.is_empty() && !id.contains('/'))
        .map(str::to_owned)
        .ok_or_else(|| {
            Error::new(
                Code::InvalidArgument,
                "INVALID_ENTITY",
                format!("step '{key}': '{name}' is not an entity's name, entities/{{entity}}"),
            )
        })
}

/// Seconds written `{n}s`.
fn parse_seconds(text: &str) -> Option<Duration> {
    text.strip_suffix('s')?
        .parse::<u64>()
        .ok()
        .map(Duration::from_secs)
}

/// A finished job's output: its result, with what the step kept from before the run;
/// when that has a `previousRiskLevel`, also `riskLevelRose`: whether the result's
/// `riskLevel` is above a previous level.
fn job_output(before: Option<&Value>, result: Value) -> Value {
    let mut output = match result {
        Value::Object(map) => map,
        other => Map::from_iter([("result".to_owned(), other)]),
    };
    if let Some(Value::Object(before)) = before {
        output.extend(before.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    if let Some(previous) = output.get("previousRiskLevel") {
        let rank = |level: Option<&Value>| {
            level
                .and_then(Value::as_str)
                .and_then(RiskLevel::parse)
                .map_or(0, RiskLevel::rank)
        };
        // A first rating (no level before) is no rise.
        let before = rank(Some(previous));
        let rose = before > 0 && rank(output.get("riskLevel")) > before;
        output.insert("riskLevelRose".into(), json!(rose));
    }
    Value::Object(output)
}

/// The names of what a step made, as its output gives them under `keys`.
fn made(output: &Value, keys: &[&str]) -> Vec<String> {
    keys.iter()
        .filter_map(|k| output.get(*k).and_then(Value::as_str))
        .map(str::to_owned)
        .collect()
}

/// Whether a failure may pass on a later attempt.
fn is_retryable(code: Code) -> bool {
    matches!(code, Code::Unavailable | Code::Internal | Code::Aborted)
}

/// Evaluates a branch's AIP-160 condition over the context.
///
/// # Errors
/// INVALID_ARGUMENT, naming the step, for a condition that does not parse or uses what
/// a branch cannot (a function, a bare value, a composite argument).
fn evaluate(key: &str, condition: &str, context: &Value) -> Result<bool> {
    let invalid = |problem: String| {
        Error::new(
            Code::InvalidArgument,
            "INVALID_CONDITION",
            format!("step '{key}': {problem}"),
        )
    };
    match filter::parse(condition) {
        Err(error) => Err(invalid(error.message().to_owned())),
        Ok(None) => Ok(true),
        Ok(Some(expr)) => eval(&expr, context).map_err(invalid),
    }
}

fn eval(expr: &Expr, context: &Value) -> std::result::Result<bool, String> {
    match expr {
        Expr::And(items) | Expr::Sequence(items) => {
            for item in items {
                if !eval(item, context)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Expr::Or(items) => {
            for item in items {
                if eval(item, context)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        Expr::Not { operand, .. } => Ok(!eval(operand, context)?),
        Expr::Global(_) => Err("a bare value is not a condition".to_owned()),
        Expr::Restriction(restriction) => {
            let Comparable::Member(member) = &restriction.comparable else {
                return Err("functions are not supported in a condition".to_owned());
            };
            let Arg::Comparable(Comparable::Member(arg)) = &restriction.arg else {
                return Err("compares with something other than a value".to_owned());
            };
            let literal = &arg.value;
            let actual = lookup(context, &member.dotted());
            Ok(compare(
                actual,
                restriction.operator,
                &literal.text,
                literal.kind,
            ))
        }
    }
}

/// Compares a context value with a literal: numbers as numbers, anything else as text;
/// a missing value equals nothing.
fn compare(actual: Option<&Value>, operator: Operator, literal: &str, kind: ValueKind) -> bool {
    let Some(actual) = actual.filter(|v| !v.is_null()) else {
        return operator == Operator::NotEquals;
    };
    if operator == Operator::Has {
        return literal == "*"
            || match actual {
                Value::Array(items) => items.iter().any(|v| as_text(Some(v)) == literal),
                other => as_text(Some(other)) == literal,
            };
    }
    let ordering = match (actual.as_f64(), literal.parse::<f64>()) {
        (Some(a), Ok(b)) if kind != ValueKind::String => a.partial_cmp(&b),
        _ => Some(as_text(Some(actual)).as_str().cmp(literal)),
    };
    let Some(ordering) = ordering else {
        return false;
    };
    match operator {
        Operator::Equals => ordering.is_eq(),
        Operator::NotEquals => ordering.is_ne(),
        Operator::LessThan => ordering.is_lt(),
        Operator::LessEquals => ordering.is_le(),
        Operator::GreaterThan => ordering.is_gt(),
        Operator::GreaterEquals => ordering.is_ge(),
        Operator::Has => false,
    }
}
