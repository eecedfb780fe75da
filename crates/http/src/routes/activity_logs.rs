//! The activity log routes: logs are written once, then only deleted (softly) and
//! restored; an entity's logs are listed under it.

use actix_web::HttpRequest;
use actix_web::web::{Data, Path};
use rics_domain::activity::ActivityLog;
use rics_domain::principal::Scope;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::{Response, ok, standard};
use crate::error::ErrorEnvelope;
use crate::extract::{Caller, QueryParams};
use crate::state::ApiState;

resource_routes! {
    service: activity_logs, resource: ActivityLog, tag: "activityLogs",
    id: ("activityLog" = String, Path, description = "Activity log id");

    /// Writes an activity log about one or more entities.
    create "/v1alpha/activityLogs", Some(Scope::Write),
        params(CreateActivityLogParams);
    GET "/v1alpha/activityLogs:batchGet" => batch_get, Some(Scope::Read);
    /// Gets an activity log, deleted or not.
    get "/v1alpha/activityLogs/{activityLog}", Some(Scope::Read);
    /// Soft-deletes an activity log; returns it with `deleteTime` and `purgeTime`.
    delete "/v1alpha/activityLogs/{activityLog}", Some(Scope::Write),
        params(DeleteActivityLogParams);
    /// Restores a soft-deleted activity log.
    undelete "/v1alpha/activityLogs/{activityLog}:undelete", Some(Scope::Write);
    GET "/v1alpha/entities/{entity}/activityLogs" => list_for_entity, Some(Scope::Read), lists rics_domain::activity::fields::LOG_LIST;
}

list_response! {
    /// A page of an entity's activity logs.
    ListActivityLogsResponse {
        /// The logs, most recent activity first unless `orderBy` says otherwise.
        activity_logs: ActivityLog,
        /// How many logs match the filter.
        total_size,
    }
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
    standard::list::<_, ListActivityLogsResponse>(&req, true, async |request| {
        state
            .activity_logs
            .list_for_entity(&caller.0, &path, request)
            .await
    })
    .await
}
