//! The automation routes: the standard methods, `:run` and its operations, and the
//! executions (list, get, `:cancel`). Reads need `rics.read`, runs and cancels
//! `rics.write`, changes `rics.admin`; built-in automations cannot be changed.

use actix_web::HttpRequest;
use actix_web::web::{Data, Path};
use rics_domain::automation::Automation;
use rics_domain::automation::execution_service::RunAutomationRequest;
use rics_domain::operation::{Operation, OperationError};
use rics_domain::principal::Scope;
use rics_domain::resource::parse_body;
use serde::Deserialize;
use serde_json::Value;

use super::{EtagRequest, PageParams, Response, body_etag, check_name_param, ok, total_size};
use crate::error::ErrorEnvelope;
use crate::extract::{Caller, JsonBody, QueryParams};
use crate::state::ApiState;

resource_routes! {
    service: automations, resource: Automation, tag: "automations",
    id: ("automation" = String, Path, description = "Automation id");

    /// Lists automations at their latest revision.
    list "/v1alpha/automations", Some(Scope::Read), lists rics_domain::automation::fields::LIST => ListAutomationsResponse, params(PageParams,
        ("filter" = Option<String>, Query, description = "AIP-160 over displayName, revisionId, createTime, updateTime, deleteTime"),
        ("orderBy" = Option<String>, Query, description = "displayName, createTime, updateTime, each optionally ` desc`; default createTime"),
        ("showDeleted" = Option<bool>, Query, description = "Include soft-deleted automations"));
    /// Creates an automation: its first revision. Its definition is checked whole.
    create "/v1alpha/automations", Some(Scope::Admin), params(
        ("automationId" = Option<String>, Query, description = "The id to give the automation: 4 to 63 of `[a-z0-9-]`, starting with a letter; generated when absent"),
        ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent"));
    /// Gets an automation, deleted or not, at its latest revision.
    get "/v1alpha/automations/{automation}", Some(Scope::Read);
    /// Updates an automation; a change of its parameters or steps makes a new
    /// revision. Built-in automations cannot be changed.
    update "/v1alpha/automations/{automation}", Some(Scope::Admin), params(
        ("updateMask" = Option<String>, Query, description = "Comma-separated field paths; `*` replaces the automation; absent = the populated fields of the body"));
    /// Soft-deletes an automation: it starts no new executions. Built-in automations
    /// cannot be deleted.
    delete "/v1alpha/automations/{automation}", Some(Scope::Admin), params(
        ("etag" = Option<String>, Query, description = "When given, must be the current etag"),
        ("allowMissing" = Option<bool>, Query, description = "Succeed when the automation is missing or already deleted"));
    /// Restores a soft-deleted automation.
    undelete "/v1alpha/automations/{automation}:undelete", Some(Scope::Admin);
    POST "/v1alpha/automations/{automation}:run" => run, Some(Scope::Write);
    GET "/v1alpha/automations/{automation}/operations/{operation}" => operation, Some(Scope::Read);
    GET "/v1alpha/automations/{automation}/executions" => list_executions, Some(Scope::Read),
        lists rics_domain::automation::execution_service::LIST;
    GET "/v1alpha/automations/{automation}/executions/{execution}" => get_execution, Some(Scope::Read);
    POST "/v1alpha/automations/{automation}/executions/{execution}:cancel" => cancel_execution, Some(Scope::Write);
}

list_response! {
    /// A page of automations.
    ListAutomationsResponse {
        /// The automations, at their latest revision.
        automations: Automation,
        /// How many automations match the filter.
        total_size,
    }
}

/// The path variables of an automation's operations and executions.
#[derive(Debug, Deserialize)]
pub struct ExecutionPath {
    automation: String,
    operation: Option<String>,
    execution: Option<String>,
}

/// An execution of an automation, as the API shows it.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
#[schema(as = AutomationExecution)]
#[serde(rename_all = "camelCase")]
pub struct AutomationExecutionSchema {
    /// `automations/{automation}/executions/{execution}`.
    name: String,
    /// `uid` (AIP-148).
    uid: String,
    /// The automation run, `automations/{automation}`.
    automation: String,
    /// The automation's revision the execution follows.
    automation_revision: String,
    /// The parameters it started with, defaults filled in.
    #[schema(value_type = Object)]
    input_parameters: Value,
    /// PENDING, RUNNING, WAITING_FOR_INPUT, SUCCEEDED, FAILED or CANCELLED.
    state: String,
    /// The forms awaited.
    forms: Vec<String>,
    /// Why it failed or was cancelled; only in FAILED and CANCELLED.
    error: Option<OperationError>,
    /// When its first step started.
    start_time: Option<String>,
    /// When it ended.
    end_time: Option<String>,
    /// Each step: `key`, `state` (PENDING, RUNNING, WAITING_FOR_INPUT, SUCCEEDED,
    /// FAILED, SKIPPED, CANCELLED), `startTime`, `endTime`, `output`, `resources`.
    #[schema(value_type = Vec<Object>)]
    steps: Vec<Value>,
    /// Creation time.
    create_time: String,
    /// Last change time.
    update_time: String,
    /// Etag.
    etag: String,
}

/// A page of executions.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
#[serde(rename_all = "camelCase")]
pub struct ListAutomationExecutionsResponse {
    /// The executions, newest first.
    automation_executions: Vec<AutomationExecutionSchema>,
    /// Token of the next page; absent on the last.
    next_page_token: Option<String>,
    /// How many executions match the filter.
    total_size: i32,
}

/// Runs an automation with `parameters` (checked against its `inputSchema`, every
/// violation at once): returns the run's operation, whose `metadata.debug.execution`
/// names the execution and which is done with the execution when it ends.
#[utoipa::path(post, path = "/v1alpha/automations/{automation}:run", tag = "automations",
    params(("automation" = String, Path, description = "Automation id"),
        ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent")),
    request_body = RunAutomationRequest,
    responses((status = 200, body = Operation), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn run(
    caller: Caller,
    req: HttpRequest,
    path: Path<ExecutionPath>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let request: RunAutomationRequest = parse_body(body.0, "run")?;
    let mut query = QueryParams::parse(req.query_string())?;
    let request_id = query.take("requestId")?;
    query.finish()?;
    ok(&state
        .executions
        .run(&caller.0, &path.automation, request_id.as_deref(), request)
        .await?)
}

/// A run's operation.
#[utoipa::path(get, path = "/v1alpha/automations/{automation}/operations/{operation}", tag = "automations",
    params(("automation" = String, Path, description = "Automation id"), ("operation" = String, Path, description = "Operation id")),
    responses((status = 200, body = Operation), (status = 404, body = ErrorEnvelope)))]
pub async fn operation(
    caller: Caller,
    req: HttpRequest,
    path: Path<ExecutionPath>,
    state: Data<ApiState>,
) -> Response {
    QueryParams::parse(req.query_string())?.finish()?;
    let operation = path.operation.as_deref().unwrap_or_default();
    ok(&state
        .executions
        .get_operation(&caller.0, &path.automation, operation)
        .await?)
}

/// Lists an automation's executions, newest first.
#[utoipa::path(get, path = "/v1alpha/automations/{automation}/executions", tag = "automations",
    params(("automation" = String, Path, description = "Automation id"), PageParams,
        ("filter" = Option<String>, Query, description = "AIP-160 over state, startTime, endTime, createTime, updateTime"),
        ("orderBy" = Option<String>, Query, description = "createTime or updateTime, optionally ` desc`; default createTime desc")),
    responses((status = 200, body = ListAutomationExecutionsResponse), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn list_executions(
    caller: Caller,
    req: HttpRequest,
    path: Path<ExecutionPath>,
    state: Data<ApiState>,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let request = query.take_list(false)?;
    query.finish()?;
    let page = state
        .executions
        .list(&caller.0, &path.automation, &request)
        .await?;
    let mut body = serde_json::Map::new();
    body.insert("automationExecutions".into(), Value::Array(page.items));
    if let Some(token) = page.next_page_token {
        body.insert("nextPageToken".into(), Value::String(token));
    }
    body.insert("totalSize".into(), total_size(page.total_size).into());
    ok(&Value::Object(body))
}

/// Gets an execution.
#[utoipa::path(get, path = "/v1alpha/automations/{automation}/executions/{execution}", tag = "automations",
    params(("automation" = String, Path, description = "Automation id"), ("execution" = String, Path, description = "Execution id"),
        ("name" = Option<String>, Query, description = "Redundant resource name; must match the path")),
    responses((status = 200, body = AutomationExecutionSchema), (status = 404, body = ErrorEnvelope)))]
pub async fn get_execution(
    caller: Caller,
    req: HttpRequest,
    path: Path<ExecutionPath>,
    state: Data<ApiState>,
) -> Response {
    let execution = path.execution.as_deref().unwrap_or_default();
    let mut query = QueryParams::parse(req.query_string())?;
    let name = format!("automations/{}/executions/{execution}", path.automation);
    check_name_param(&mut query, &[&name])?;
    query.finish()?;
    ok(&state
        .executions
        .get(&caller.0, &path.automation, execution)
        .await?)
}

/// Cancels a running or waiting execution: CANCELLED, with `error` code 1; the form
/// it awaits is expired and its queued job run cancelled. FAILED_PRECONDITION when it
/// already ended.
#[utoipa::path(post, path = "/v1alpha/automations/{automation}/executions/{execution}:cancel", tag = "automations",
    params(("automation" = String, Path, description = "Automation id"), ("execution" = String, Path, description = "Execution id")),
    request_body = EtagRequest,
    responses((status = 200, body = AutomationExecutionSchema), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn cancel_execution(
    caller: Caller,
    req: HttpRequest,
    path: Path<ExecutionPath>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    QueryParams::parse(req.query_string())?.finish()?;
    let etag = body_etag(body, "cancel")?;
    let execution = path.execution.as_deref().unwrap_or_default();
    ok(&state
        .executions
        .cancel(&caller.0, &path.automation, execution, etag.as_deref())
        .await?)
}
