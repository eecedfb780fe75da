//! The activity log routes: logs are written once, then only deleted (softly) and
//! restored; an entity's logs are listed under it.

use actix_web::HttpRequest;
use actix_web::web::{Data, Path};
use rics_domain::activity::ActivityLog;
use rics_domain::principal::Scope;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::{EtagRequest, Response, check_name_param, ok, standard, total_size};
use crate::error::ErrorEnvelope;
use crate::extract::{Caller, JsonBody, NoQuery, QueryParams};
use crate::state::ApiState;

route_table! {
    POST "/v1alpha/activityLogs" => create, Some(Scope::Write);
    GET "/v1alpha/activityLogs:batchGet" => batch_get, Some(Scope::Read);
    GET "/v1alpha/activityLogs/{activityLog}" => get, Some(Scope::Read);
    DELETE "/v1alpha/activityLogs/{activityLog}" => delete, Some(Scope::Write);
    POST "/v1alpha/activityLogs/{activityLog}:undelete" => undelete, Some(Scope::Write);
    GET "/v1alpha/entities/{entity}/activityLogs" => list_for_entity, Some(Scope::Read);
}

/// A page of an entity's activity logs.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListActivityLogsResponse {
    /// The logs, most recent activity first unless `orderBy` says otherwise.
    pub activity_logs: Vec<ActivityLog>,
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// How many logs match the filter.
    pub total_size: i32,
}

/// The logs asked for, in order.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BatchGetActivityLogsResponse {
    /// The logs.
    pub activity_logs: Vec<ActivityLog>,
}

/// The list parameters (documentation of the query string).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(non_snake_case, dead_code)]
pub struct ListActivityLogsParams {
    /// Page size: default 50, at most 1000 (larger values are coerced).
    pageSize: Option<i32>,
    /// Token from a previous response; every other parameter must be unchanged.
    pageToken: Option<String>,
    /// Items to skip before the page.
    skip: Option<i32>,
    /// AIP-160 filter over type, activityLogType, source, occurTime, createTime.
    filter: Option<String>,
    /// Comma-separated occurTime, createTime, each optionally ` desc`. Default:
    /// `occurTime desc`.
    orderBy: Option<String>,
    /// Include soft-deleted logs.
    showDeleted: Option<bool>,
}

/// The create parameters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(non_snake_case, dead_code)]
pub struct CreateActivityLogParams {
    /// The id to give the log: 4 to 63 of `[a-z0-9-]` in any order (`2024-kyc`), but
    /// not a UUID. Generated (UUID v7) when absent.
    activityLogId: Option<String>,
    /// A UUID making the call idempotent for at least 24 hours.
    requestId: Option<String>,
}

/// The delete parameters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(non_snake_case, dead_code)]
pub struct DeleteActivityLogParams {
    /// When given, must be the log's current etag.
    etag: Option<String>,
    /// Succeed when the log is missing or already deleted.
    allowMissing: Option<bool>,
}

/// Writes an activity log about one or more entities.
#[utoipa::path(post, path = "/v1alpha/activityLogs", tag = "activityLogs", params(CreateActivityLogParams),
    request_body = ActivityLog,
    responses((status = 200, body = ActivityLog), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn create(
    caller: Caller,
    req: HttpRequest,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let log_id = query.take("activityLogId")?;
    let request_id = query.take("requestId")?;
    query.finish()?;
    ok(&state
        .activity_logs
        .create(&caller.0, body.0, log_id.as_deref(), request_id.as_deref())
        .await?)
}

/// Gets an activity log, deleted or not.
#[utoipa::path(get, path = "/v1alpha/activityLogs/{activityLog}", tag = "activityLogs",
    params(("activityLog" = String, Path, description = "Activity log id"),
        ("name" = Option<String>, Query, description = "Redundant resource name; must match the path")),
    responses((status = 200, body = ActivityLog), (status = 404, body = ErrorEnvelope)))]
pub async fn get(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    let id = path.into_inner();
    let mut query = QueryParams::parse(req.query_string())?;
    check_name_param(&mut query, &[&ActivityLog::name_of(&id), &id])?;
    query.finish()?;
    ok(&state.activity_logs.get(&caller.0, &id).await?)
}

/// Gets several activity logs, all or nothing.
#[utoipa::path(get, path = "/v1alpha/activityLogs:batchGet", tag = "activityLogs",
    params(("names" = Vec<String>, Query, description = "Activity log names (activityLogs/{activityLog}), 1 to 1000, repeated")),
    responses((status = 200, body = BatchGetActivityLogsResponse), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn batch_get(caller: Caller, req: HttpRequest, state: Data<ApiState>) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let names = query.take_all("names");
    query.finish()?;
    let activity_logs = state.activity_logs.batch_get(&caller.0, &names).await?;
    ok(&BatchGetActivityLogsResponse { activity_logs })
}

/// Soft-deletes an activity log; returns it with `deleteTime` and `purgeTime`.
#[utoipa::path(delete, path = "/v1alpha/activityLogs/{activityLog}", tag = "activityLogs",
    params(("activityLog" = String, Path, description = "Activity log id"), DeleteActivityLogParams),
    responses((status = 200, body = ActivityLog), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn delete(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    standard::delete(state.activity_logs.as_ref(), &caller.0, &req, &path).await
}

/// Restores a soft-deleted activity log.
#[utoipa::path(post, path = "/v1alpha/activityLogs/{activityLog}:undelete", tag = "activityLogs",
    params(("activityLog" = String, Path, description = "Activity log id")), request_body = EtagRequest,
    responses((status = 200, body = ActivityLog), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn undelete(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    standard::undelete(state.activity_logs.as_ref(), &caller.0, &path, body).await
}

/// The activity logs naming an entity (soft-deleted entities included).
#[utoipa::path(get, path = "/v1alpha/entities/{entity}/activityLogs", tag = "activityLogs",
    params(("entity" = String, Path, description = "Entity id"), ListActivityLogsParams),
    responses((status = 200, body = ListActivityLogsResponse), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn list_for_entity(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let request = query.take_list(true)?;
    query.finish()?;
    let page = state
        .activity_logs
        .list_for_entity(&caller.0, &path, &request)
        .await?;
    ok(&ListActivityLogsResponse {
        activity_logs: page.items,
        next_page_token: page.next_page_token,
        total_size: total_size(page.total_size),
    })
}
