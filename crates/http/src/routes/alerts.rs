//! The alert type routes (read-only) and the alert routes.

use actix_web::HttpRequest;
use actix_web::web::{Data, Path};
use rics_domain::alert::{Alert, AlertType};
use rics_domain::principal::Scope;
use serde::Serialize;
use utoipa::ToSchema;

use super::{EtagRequest, Response, body_etag, check_name_param, ok, standard, total_size};
use crate::error::ErrorEnvelope;
use crate::extract::{Caller, JsonBody, NoQuery, QueryParams};
use crate::state::ApiState;

route_table! {
    GET "/v1alpha/alertTypes" => list_types, Some(Scope::Read);
    GET "/v1alpha/alertTypes/{alertType}" => get_type, Some(Scope::Read);
    GET "/v1alpha/alerts" => list, Some(Scope::Read);
    POST "/v1alpha/alerts" => create, Some(Scope::Write);
    GET "/v1alpha/alerts/{alert}" => get, Some(Scope::Read);
    DELETE "/v1alpha/alerts/{alert}" => delete, Some(Scope::Write);
    POST "/v1alpha/alerts/{alert}:undelete" => undelete, Some(Scope::Write);
    POST "/v1alpha/alerts/{alert}:acknowledge" => acknowledge, Some(Scope::Write);
}

/// A page of alert types.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListAlertTypesResponse {
    /// The alert types.
    pub alert_types: Vec<AlertType>,
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// How many alert types match the filter.
    pub total_size: i32,
}

/// A page of alerts.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListAlertsResponse {
    /// The alerts, newest first unless `orderBy` says otherwise.
    pub alerts: Vec<Alert>,
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// How many alerts match the filter.
    pub total_size: i32,
}

/// Lists the caller's alert types.
#[utoipa::path(get, path = "/v1alpha/alertTypes", tag = "alerts",
    params(
        ("pageSize" = Option<i32>, Query, description = "Default 50, at most 1000 (larger values are coerced)"),
        ("pageToken" = Option<String>, Query, description = "Token from a previous response; every other parameter must be unchanged"),
        ("skip" = Option<i32>, Query, description = "Items to skip before the page"),
        ("filter" = Option<String>, Query, description = "AIP-160 over displayName, defaultSeverity"),
        ("orderBy" = Option<String>, Query, description = "displayName or createTime, optionally ` desc`; default displayName")),
    responses((status = 200, body = ListAlertTypesResponse), (status = 400, body = ErrorEnvelope)))]
pub async fn list_types(caller: Caller, req: HttpRequest, state: Data<ApiState>) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let request = query.take_list(false)?;
    query.finish()?;
    let page = state.alerts.list_types(&caller.0, &request).await?;
    ok(&ListAlertTypesResponse {
        alert_types: page.items,
        next_page_token: page.next_page_token,
        total_size: total_size(page.total_size),
    })
}

/// Gets an alert type.
#[utoipa::path(get, path = "/v1alpha/alertTypes/{alertType}", tag = "alerts",
    params(("alertType" = String, Path, description = "Alert type id, such as `pep-and-sanctions-match-found`"), ("name" = Option<String>, Query, description = "Redundant resource name; must match the path")),
    responses((status = 200, body = AlertType), (status = 404, body = ErrorEnvelope)))]
pub async fn get_type(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    check_name_param(&mut query, &[&AlertType::name_of(&path), &path])?;
    query.finish()?;
    ok(&state.alerts.get_type(&caller.0, &path).await?)
}

/// Lists alerts, newest first.
#[utoipa::path(get, path = "/v1alpha/alerts", tag = "alerts",
    params(
        ("pageSize" = Option<i32>, Query, description = "Default 50, at most 1000 (larger values are coerced)"),
        ("pageToken" = Option<String>, Query, description = "Token from a previous response; every other parameter must be unchanged"),
        ("skip" = Option<i32>, Query, description = "Items to skip before the page"),
        ("filter" = Option<String>, Query, description = "AIP-160 over state, severity, alertType, entities, workspace, createTime, updateTime, acknowledgeTime, deleteTime"),
        ("orderBy" = Option<String>, Query, description = "createTime or updateTime, optionally ` desc`; default createTime desc (newest first)"),
        ("showDeleted" = Option<bool>, Query, description = "Include soft-deleted alerts")),
    responses((status = 200, body = ListAlertsResponse), (status = 400, body = ErrorEnvelope)))]
pub async fn list(caller: Caller, req: HttpRequest, state: Data<ApiState>) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let request = query.take_list(true)?;
    query.finish()?;
    let page = state.alerts.list(&caller.0, &request).await?;
    ok(&ListAlertsResponse {
        alerts: page.items,
        next_page_token: page.next_page_token,
        total_size: total_size(page.total_size),
    })
}

/// Creates an ACTIVE alert raised by the caller.
#[utoipa::path(post, path = "/v1alpha/alerts", tag = "alerts",
    params(
        ("alertId" = Option<String>, Query, description = "The id to give the alert: 4 to 63 of `[a-z0-9-]`, starting with a letter; generated when absent"),
        ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent")),
    request_body = Alert,
    responses((status = 200, body = Alert), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn create(
    caller: Caller,
    req: HttpRequest,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let alert_id = query.take("alertId")?;
    let request_id = query.take("requestId")?;
    query.finish()?;
    ok(&state
        .alerts
        .create(
            &caller.0,
            body.0,
            alert_id.as_deref(),
            request_id.as_deref(),
        )
        .await?)
}

/// Gets an alert, deleted or not.
#[utoipa::path(get, path = "/v1alpha/alerts/{alert}", tag = "alerts",
    params(("alert" = String, Path, description = "Alert id"), ("name" = Option<String>, Query, description = "Redundant resource name; must match the path")),
    responses((status = 200, body = Alert), (status = 404, body = ErrorEnvelope)))]
pub async fn get(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    check_name_param(&mut query, &[&Alert::name_of(&path), &path])?;
    query.finish()?;
    ok(&state.alerts.get(&caller.0, &path).await?)
}

/// Soft-deletes an alert.
#[utoipa::path(delete, path = "/v1alpha/alerts/{alert}", tag = "alerts",
    params(("alert" = String, Path, description = "Alert id"),
        ("etag" = Option<String>, Query, description = "When given, must be the current etag"),
        ("allowMissing" = Option<bool>, Query, description = "Succeed when the alert is missing or already deleted")),
    responses((status = 200, body = Alert), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn delete(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    standard::delete(state.alerts.as_ref(), &caller.0, &req, &path).await
}

/// Restores a soft-deleted alert.
#[utoipa::path(post, path = "/v1alpha/alerts/{alert}:undelete", tag = "alerts",
    params(("alert" = String, Path, description = "Alert id")), request_body = EtagRequest,
    responses((status = 200, body = Alert), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn undelete(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    standard::undelete(state.alerts.as_ref(), &caller.0, &path, body).await
}

/// Acknowledges an ACTIVE alert as the caller.
#[utoipa::path(post, path = "/v1alpha/alerts/{alert}:acknowledge", tag = "alerts",
    params(("alert" = String, Path, description = "Alert id")), request_body = EtagRequest,
    responses((status = 200, body = Alert), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn acknowledge(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let etag = body_etag(body, "acknowledge")?;
    ok(&state
        .alerts
        .acknowledge(&caller.0, &path, etag.as_deref())
        .await?)
}
