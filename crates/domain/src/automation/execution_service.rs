//! The execution use cases: `:run` of an automation (parameters checked against its
//! `inputSchema`, every violation at once), its operation, executions' get and list,
//! and `:cancel`.

use std::sync::{Arc, LazyLock};

use async_trait::async_trait;
use rics_aip::filter::{FieldType, FilterSchema};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::engine::{execution_event, metadata};
use super::execution::{Execution, ExecutionState, ExecutionStep, StepState};
use super::model::Automation;
use super::ports::{AutomationRepository, ExecutionRepository, StepEffects};
use crate::activity::payload_schema::PayloadSchema;
use crate::error::{Code, Error, FieldViolation, Result};
use crate::form::ports::FormSubmitted;
use crate::id::{is_well_formed_id, parse_request_id};
use crate::job::model::worker_principal;
use crate::job::ports::RunQueued;
use crate::lifecycle::{self, ServiceContext};
use crate::list::{ListRequest, ListResponse, ListSpec, NEWEST_FIRST, Page};
use crate::operation::{Operation, OperationError, OperationRepository};
use crate::principal::{Principal, TenantId};
use crate::repository::IdempotencyKey;
use crate::resource::fingerprint;
use crate::time::Clock;

/// The method idempotency keys of `:run` record.
const RUN_METHOD: &str = "automations.run";

/// What execution list filters may refer to.
static FILTER: LazyLock<FilterSchema> = LazyLock::new(|| {
    FilterSchema::new()
        .field("state", FieldType::Enum(ExecutionState::VALUES))
        .field("startTime", FieldType::Timestamp)
        .field("endTime", FieldType::Timestamp)
        .field("createTime", FieldType::Timestamp)
        .field("updateTime", FieldType::Timestamp)
});

/// How executions are listed: 50 per page by default, at most 1000, newest first.
pub static LIST: LazyLock<ListSpec> = LazyLock::new(|| {
    ListSpec::new("automations.executions.list", &FILTER)
        .pages(50, 1000)
        .sortable(&["createTime", "updateTime"])
        .ordered(NEWEST_FIRST)
});

/// The body of `:run`.
#[derive(Debug, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RunAutomationRequest {
    /// The parameters, by name, as the automation's `inputSchema` declares them.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub parameters: Map<String, Value>,
    /// A UUID making the call idempotent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

/// The ports of the execution use cases.
#[derive(Clone)]
pub struct ExecutionPorts {
    /// The automations run.
    pub automations: Arc<dyn AutomationRepository>,
    /// The executions.
    pub executions: Arc<dyn ExecutionRepository>,
    /// The runs' operations.
    pub operations: Arc<dyn OperationRepository>,
    /// What a cancel undoes: the awaited form, the queued job run.
    pub effects: Arc<dyn StepEffects>,
    /// Hears of every execution queued or woken.
    pub queued: Arc<dyn RunQueued>,
    /// The time, ids and paging.
    pub context: ServiceContext,
}

/// The executions of the caller's tenant.
pub struct ExecutionService {
    ports: ExecutionPorts,
}

impl ExecutionService {
    /// The use cases over `ports`.
    pub fn new(ports: ExecutionPorts) -> ExecutionService {
        ExecutionService { ports }
    }

    /// Starts an execution of the automation `automation_id` at its current revision
    /// with `request.parameters`, and returns its operation, which names the
    /// execution (`metadata.debug.execution`) and is done with the execution when it
    /// ends. The request id (the body's, else `query_request_id`) makes the call
    /// idempotent.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a bad request id and for every parameter the input schema
    /// refuses, at once; NOT_FOUND for an unknown automation; FAILED_PRECONDITION for
    /// a deleted one.
    pub async fn run(
        &self,
        principal: &Principal,
        automation_id: &str,
        query_request_id: Option<&str>,
        request: RunAutomationRequest,
    ) -> Result<Operation> {
        let request_id = request
            .request_id
            .as_deref()
            .or(query_request_id)
            .map(parse_request_id)
            .transpose()?;
        let automation = self.automation(principal, automation_id).await?;
        if automation.delete_time.is_some() {
            return Err(Error::failed_precondition(
                "RESOURCE_DELETED",
                format!("'{}' is deleted; undelete it to run it", automation.name),
            ));
        }
        let parameters = check_parameters(&automation, request.parameters)?;
        let now = self.ports.context.clock.now();
        let id = self.ports.context.ids.resource_id();
        let operation_id = self.ports.context.ids.resource_id();
        let entity_id = parameters
            .get("entity")
            .and_then(Value::as_str)
            .and_then(|name| name.strip_prefix("entities/"))
            .filter(|id| is_well_formed_id(id))
            .map(str::to_owned);
        let execution = Execution {
            id,
            automation_id: automation_id.to_owned(),
            automation_revision: automation.revision_id.clone(),
            uid: self.ports.context.ids.uid(),
            revision: 1,
            state: ExecutionState::Pending,
            input_parameters: parameters.clone(),
            entity_id,
            forms: vec![],
            error: None,
            steps: automation
                .steps
                .iter()
                .map(|step| ExecutionStep {
                    key: step.key.clone(),
                    state: StepState::Pending,
                    ..ExecutionStep::default()
                })
                .collect(),
            current: 0,
            operation: format!("{}/operations/{operation_id}", automation.name),
            start_time: None,
            end_time: None,
            create_time: now,
            update_time: now,
        };
        let operation = Operation {
            name: execution.operation.clone(),
            metadata: metadata(&execution),
            done: false,
            error: None,
            response: None,
            create_time: Some(now),
            redact_after: None,
        };
        let key = request_id.map(|request_id| IdempotencyKey {
            request_id: request_id.to_string(),
            method: RUN_METHOD,
            fingerprint: fingerprint(
                RUN_METHOD,
                &[
                    ("automation", &json!(automation.name)),
                    ("parameters", &Value::Object(parameters)),
                ],
            ),
            resource_name: operation.name.clone(),
        });
        let events = [execution_event(
            self.ports.context.ids.resource_id(),
            "automation_execution.created",
            None,
            &execution,
            principal,
            now,
        )];
        let replayed = lifecycle::create_once(&execution.name(), key.as_ref(), || {
            self.ports.executions.start(
                &principal.tenant,
                &execution,
                &operation,
                key.as_ref(),
                &events,
            )
        })
        .await?;
        match replayed {
            None => {
                self.ports.queued.queued();
                Ok(operation)
            }
            Some(name) => self.operation_named(principal, &name).await,
        }
    }

    /// The operation `operation_id` of a `:run` of the automation.
    ///
    /// # Errors
    /// NOT_FOUND when the automation has no such operation.
    pub async fn get_operation(
        &self,
        principal: &Principal,
        automation_id: &str,
        operation_id: &str,
    ) -> Result<Operation> {
        let name = format!("automations/{automation_id}/operations/{operation_id}");
        if !is_well_formed_id(automation_id) || !is_well_formed_id(operation_id) {
            return Err(Error::not_found(&name));
        }
        self.operation_named(principal, &name).await
    }

    /// The execution `id` of the automation, as JSON.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed name; NOT_FOUND.
    pub async fn get(&self, principal: &Principal, automation_id: &str, id: &str) -> Result<Value> {
        Ok(self.load(principal, automation_id, id).await?.to_json())
    }

    /// One page of the automation's executions, newest first, filtered on `state` and
    /// times.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for bad list parameters; NOT_FOUND for an unknown automation.
    pub async fn list(
        &self,
        principal: &Principal,
        automation_id: &str,
        request: &ListRequest,
    ) -> Result<ListResponse<Value>> {
        self.automation(principal, automation_id).await?;
        let parent = format!("automations/{automation_id}");
        let (query, context) =
            self.ports
                .context
                .paging
                .prepare(&LIST, &principal.tenant, Some(&parent), request)?;
        let page = self
            .ports
            .executions
            .list(&principal.tenant, automation_id, &query)
            .await?;
        let page = Page {
            items: page.items.iter().map(Execution::to_json).collect(),
            next: page.next,
            total_size: page.total_size,
        };
        Ok(self.ports.context.paging.finish(context, page))
    }

    /// Cancels a running or waiting execution: CANCELLED with `error` code 1 and
    /// `endTime`, its operation done with that error; the form it awaits is expired
    /// and a queued job run of its current step cancelled (a run a worker claimed
    /// finishes, and the execution ignores its result).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed name; NOT_FOUND; ABORTED for a stale etag or
    /// a concurrent change; FAILED_PRECONDITION `EXECUTION_ENDED` when it already
    /// ended.
    pub async fn cancel(
        &self,
        principal: &Principal,
        automation_id: &str,
        id: &str,
        etag: Option<&str>,
    ) -> Result<Value> {
        let current = self.load(principal, automation_id, id).await?;
        let name = current.name();
        lifecycle::check_etag(
            &name,
            &crate::resource::etag(&current.uid, current.revision),
            etag,
        )?;
        if current.state.is_terminal() {
            return Err(Error::failed_precondition(
                "EXECUTION_ENDED",
                format!(
                    "'{name}' already ended ({}); only a running or waiting execution can be cancelled",
                    current.state.as_str()
                ),
            )
            .with_metadata("resource", name));
        }
        let now = self.ports.context.clock.now();
        let mut cancelled = current.clone();
        cancelled.revision += 1;
        cancelled.update_time = now;
        cancelled.state = ExecutionState::Cancelled;
        cancelled.end_time = Some(now);
        cancelled.error = Some(OperationError::from(&Error::new(
            Code::Cancelled,
            "EXECUTION_CANCELLED",
            format!("'{name}' was cancelled"),
        )));
        cancelled.forms.clear();
        if let Some(step) = cancelled.steps.get_mut(current.current)
            && matches!(
                step.state,
                StepState::Running | StepState::WaitingForInput | StepState::Pending
            )
        {
            step.state = StepState::Cancelled;
            step.end_time = Some(now);
        }
        let events = [execution_event(
            self.ports.context.ids.resource_id(),
            "automation_execution.cancelled",
            Some(&current),
            &cancelled,
            principal,
            now,
        )];
        self.ports
            .executions
            .cancel(&principal.tenant, &cancelled, current.revision, &events)
            .await
            .map_err(|e| e.for_resource(&name))?;
        self.undo_waits(principal, &current).await?;
        self.ports
            .effects
            .execution_ended(&principal.tenant, &cancelled)
            .await?;
        Ok(cancelled.to_json())
    }

    /// Expires the form `current` awaits and cancels its queued job run, as the
    /// tenant's worker.
    async fn undo_waits(&self, principal: &Principal, current: &Execution) -> Result<()> {
        let worker = worker_principal(&principal.tenant);
        for form in &current.forms {
            self.ports.effects.expire_form(&worker, form).await?;
        }
        if let Some(step) = current.steps.get(current.current)
            && step.state == StepState::Running
            && let Some(operation) = step
                .resources
                .iter()
                .find(|name| name.contains("/operations/"))
        {
            self.ports.effects.cancel_job(&worker, operation).await?;
        }
        Ok(())
    }

    /// The automation `id`, deleted or not.
    async fn automation(&self, principal: &Principal, id: &str) -> Result<Automation> {
        lifecycle::read(id, self.ports.automations.get(&principal.tenant, id)).await
    }

    /// The execution `id` of the automation.
    async fn load(
        &self,
        principal: &Principal,
        automation_id: &str,
        id: &str,
    ) -> Result<Execution> {
        let name = format!("automations/{automation_id}/executions/{id}");
        if !is_well_formed_id(automation_id) || !is_well_formed_id(id) {
            return Err(Error::invalid_field(
                "name",
                "INVALID_NAME",
                format!("'{name}' is not a valid execution name"),
            ));
        }
        self.ports
            .executions
            .get(&principal.tenant, Some(automation_id), id)
            .await
            .map_err(|e| e.for_resource(&name))?
            .ok_or_else(|| Error::not_found(&name))
    }

    async fn operation_named(&self, principal: &Principal, name: &str) -> Result<Operation> {
        self.ports
            .operations
            .get(&principal.tenant, name)
            .await
            .map_err(|e| e.for_resource(name))?
            .ok_or_else(|| Error::not_found(name))
    }
}

/// The parameters of a run as `automation`'s input schema admits them, defaults filled
/// in.
///
/// # Errors
/// INVALID_ARGUMENT with every violation: a missing required parameter, an unknown
/// one, a value its schema refuses.
pub fn check_parameters(
    automation: &Automation,
    mut given: Map<String, Value>,
) -> Result<Map<String, Value>> {
    let mut violations = Vec::new();
    let mut parameters = Map::new();
    for (name, schema) in &automation.input_schema {
        let field = format!("parameters.{name}");
        let schema = schema.as_object().cloned().unwrap_or_default();
        match given.remove(name) {
            Some(value) => {
                match PayloadSchema::compile(&schema) {
                    Ok(compiled) => violations.extend(compiled.violations(&value, &field)),
                    Err(problem) => violations.push(FieldViolation {
                        field: field.clone(),
                        description: problem,
                        reason: "INVALID_SCHEMA",
                    }),
                }
                parameters.insert(name.clone(), value);
            }
            None => match schema.get("default") {
                Some(default) => {
                    parameters.insert(name.clone(), default.clone());
                }
                None => violations.push(FieldViolation {
                    field,
                    description: format!("the automation requires the parameter '{name}'"),
                    reason: "REQUIRED",
                }),
            },
        }
    }
    for name in given.keys() {
        violations.push(FieldViolation {
            field: format!("parameters.{name}"),
            description: format!("the automation takes no parameter '{name}'"),
            reason: "UNKNOWN_PARAMETER",
        });
    }
    if violations.is_empty() {
        Ok(parameters)
    } else {
        Err(Error::invalid_fields(violations))
    }
}

/// Resumes the executions awaiting a submitted form: makes their tasks ready now and
/// wakes this process's workers (other processes' workers find them at their poll).
pub struct WakeOnSubmit {
    executions: Arc<dyn ExecutionRepository>,
    queued: Arc<dyn RunQueued>,
    clock: Arc<dyn Clock>,
}

impl WakeOnSubmit {
    /// The listener over the executions, the workers' wake and the clock.
    pub fn new(
        executions: Arc<dyn ExecutionRepository>,
        queued: Arc<dyn RunQueued>,
        clock: Arc<dyn Clock>,
    ) -> WakeOnSubmit {
        WakeOnSubmit {
            executions,
            queued,
            clock,
        }
    }
}

#[async_trait]
impl FormSubmitted for WakeOnSubmit {
    async fn submitted(&self, tenant: &TenantId, form: &str) {
        // A wake that fails leaves the execution to see the submission at its next
        // look at the form (see FORM_POLL in the engine).
        if let Ok(woken) = self.executions.wake(tenant, form, self.clock.now()).await
            && woken > 0
        {
            self.queued.queued();
        }
    }
}
