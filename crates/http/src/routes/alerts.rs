//! The alert type routes (read-only) and the alert routes.

use actix_web::HttpRequest;
use actix_web::web::{Data, Path};
use rics_domain::alert::{Alert, AlertType, ResolveRequest};
use rics_domain::principal::Scope;

use super::{EtagRequest, PageParams, Response, body_etag, check_name_param, ok, standard};
use crate::error::ErrorEnvelope;
use crate::extract::{Caller, JsonBody, NoQuery, QueryParams};
use crate::state::ApiState;

resource_routes! {
    service: alerts, resource: Alert, tag: "alerts",
    id: ("alert" = String, Path, description = "Alert id");

    GET "/v1alpha/alertTypes" => list_types, Some(Scope::Read), lists rics_domain::alert::fields::TYPE_LIST;
    GET "/v1alpha/alertTypes/{alertType}" => get_type, Some(Scope::Read);
    /// Lists alerts, newest first.
    list "/v1alpha/alerts", Some(Scope::Read), lists rics_domain::alert::fields::LIST => ListAlertsResponse, params(PageParams,
        ("filter" = Option<String>, Query, description = "AIP-160 over state, severity, alertType, entities, workspace, createTime, updateTime, acknowledgeTime, resolveTime, disposition, deleteTime"),
        ("orderBy" = Option<String>, Query, description = "createTime or updateTime, optionally ` desc`; default createTime desc (newest first)"),
        ("showDeleted" = Option<bool>, Query, description = "Include soft-deleted alerts"));
    /// Creates an ACTIVE alert raised by the caller.
    create "/v1alpha/alerts", Some(Scope::Write), params(
        ("alertId" = Option<String>, Query, description = "The id to give the alert: 4 to 63 of `[a-z0-9-]`, starting with a letter; generated when absent"),
        ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent"));
    /// Gets an alert, deleted or not.
    get "/v1alpha/alerts/{alert}", Some(Scope::Read);
    /// Soft-deletes an alert.
    delete "/v1alpha/alerts/{alert}", Some(Scope::Write), params(
        ("etag" = Option<String>, Query, description = "When given, must be the current etag"),
        ("allowMissing" = Option<bool>, Query, description = "Succeed when the alert is missing or already deleted"));
    /// Restores a soft-deleted alert.
    undelete "/v1alpha/alerts/{alert}:undelete", Some(Scope::Write);
    POST "/v1alpha/alerts/{alert}:acknowledge" => acknowledge, Some(Scope::Write);
    POST "/v1alpha/alerts/{alert}:resolve" => resolve, Some(Scope::Write);
}

list_response! {
    /// A page of alert types.
    ListAlertTypesResponse {
        /// The alert types.
        alert_types: AlertType,
        /// How many alert types match the filter.
        total_size,
    }
}

list_response! {
    /// A page of alerts.
    ListAlertsResponse {
        /// The alerts, newest first unless `orderBy` says otherwise.
        alerts: Alert,
        /// How many alerts match the filter.
        total_size,
    }
}

/// Lists the caller's alert types.
#[utoipa::path(get, path = "/v1alpha/alertTypes", tag = "alerts",
    params(PageParams,
        ("filter" = Option<String>, Query, description = "AIP-160 over displayName, defaultSeverity"),
        ("orderBy" = Option<String>, Query, description = "displayName or createTime, optionally ` desc`; default displayName")),
    responses((status = 200, body = ListAlertTypesResponse), (status = 400, body = ErrorEnvelope)))]
pub async fn list_types(caller: Caller, req: HttpRequest, state: Data<ApiState>) -> Response {
    standard::list::<_, ListAlertTypesResponse>(&req, false, async |request| {
        state.alerts.list_types(&caller.0, request).await
    })
    .await
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

/// Resolves an ACTIVE or ACKNOWLEDGED alert as the caller, with a disposition
/// (TRUE_POSITIVE, FALSE_POSITIVE, NOT_RELEVANT) and a comment.
#[utoipa::path(post, path = "/v1alpha/alerts/{alert}:resolve", tag = "alerts",
    params(("alert" = String, Path, description = "Alert id")), request_body = ResolveRequest,
    responses((status = 200, body = Alert), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn resolve(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let request: ResolveRequest = rics_domain::resource::parse_body(body.0, "resolve")?;
    ok(&state.alerts.resolve(&caller.0, &path, &request).await?)
}
