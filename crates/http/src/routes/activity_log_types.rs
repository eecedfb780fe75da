//! The activity log type routes (administrators' resource: writes need `rics.admin`).

use actix_web::HttpRequest;
use actix_web::web::{Data, Path};
use rics_domain::activity::ActivityLogType;
use rics_domain::principal::Scope;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::{EtagRequest, Response, check_name_param, ok, standard, total_size};
use crate::error::ErrorEnvelope;
use crate::extract::{Caller, JsonBody, NoQuery, QueryParams};
use crate::state::ApiState;

route_table! {
    GET "/v1alpha/activityLogTypes" => list, Some(Scope::Read);
    POST "/v1alpha/activityLogTypes" => create, Some(Scope::Admin);
    GET "/v1alpha/activityLogTypes/{activityLogType}" => get, Some(Scope::Read);
    PATCH "/v1alpha/activityLogTypes/{activityLogType}" => update, Some(Scope::Admin);
    DELETE "/v1alpha/activityLogTypes/{activityLogType}" => delete, Some(Scope::Admin);
    POST "/v1alpha/activityLogTypes/{activityLogType}:undelete" => undelete, Some(Scope::Admin);
}

/// A page of activity log types.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListActivityLogTypesResponse {
    /// The activity log types.
    pub activity_log_types: Vec<ActivityLogType>,
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// How many types match the filter.
    pub total_size: i32,
}

/// The list parameters (documentation of the query string).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(non_snake_case, dead_code)]
pub struct ListActivityLogTypesParams {
    /// Page size: default 50, at most 1000 (larger values are coerced).
    pageSize: Option<i32>,
    /// Token from a previous response; every other parameter must be unchanged.
    pageToken: Option<String>,
    /// Items to skip before the page.
    skip: Option<i32>,
    /// AIP-160 filter over displayName (also fuzzy: `displayName:"kyc reveiw"`, or a
    /// bare word), activityType, createTime, updateTime, deleteTime.
    filter: Option<String>,
    /// Comma-separated displayName, createTime, updateTime, each optionally ` desc`.
    /// Default: createTime; a fuzzy search without orderBy ranks by similarity.
    orderBy: Option<String>,
    /// Include soft-deleted types.
    showDeleted: Option<bool>,
}

/// The create parameters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(non_snake_case, dead_code)]
pub struct CreateActivityLogTypeParams {
    /// The id to give the type: 4 to 63 of `[a-z0-9-]` in any order (`2024-kyc`), but
    /// not a UUID. Generated (UUID v7) when absent.
    activityLogTypeId: Option<String>,
    /// A UUID making the call idempotent for at least 24 hours.
    requestId: Option<String>,
}

/// The delete parameters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(non_snake_case, dead_code)]
pub struct DeleteActivityLogTypeParams {
    /// When given, must be the type's current etag.
    etag: Option<String>,
    /// Succeed when the type is missing or already deleted.
    allowMissing: Option<bool>,
}

/// Lists activity log types.
#[utoipa::path(get, path = "/v1alpha/activityLogTypes", tag = "activityLogs", params(ListActivityLogTypesParams),
    responses((status = 200, body = ListActivityLogTypesResponse), (status = 400, body = ErrorEnvelope)))]
pub async fn list(caller: Caller, req: HttpRequest, state: Data<ApiState>) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let request = query.take_list(true)?;
    query.finish()?;
    let page = state.activity_log_types.list(&caller.0, &request).await?;
    ok(&ListActivityLogTypesResponse {
        activity_log_types: page.items,
        next_page_token: page.next_page_token,
        total_size: total_size(page.total_size),
    })
}

/// Creates an activity log type.
#[utoipa::path(post, path = "/v1alpha/activityLogTypes", tag = "activityLogs", params(CreateActivityLogTypeParams),
    request_body = ActivityLogType,
    responses((status = 200, body = ActivityLogType), (status = 400, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn create(
    caller: Caller,
    req: HttpRequest,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let type_id = query.take("activityLogTypeId")?;
    let request_id = query.take("requestId")?;
    query.finish()?;
    ok(&state
        .activity_log_types
        .create(&caller.0, body.0, type_id.as_deref(), request_id.as_deref())
        .await?)
}

/// Gets an activity log type, deleted or not.
#[utoipa::path(get, path = "/v1alpha/activityLogTypes/{activityLogType}", tag = "activityLogs",
    params(("activityLogType" = String, Path, description = "Activity log type id"),
        ("name" = Option<String>, Query, description = "Redundant resource name; must match the path")),
    responses((status = 200, body = ActivityLogType), (status = 404, body = ErrorEnvelope)))]
pub async fn get(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    let id = path.into_inner();
    let mut query = QueryParams::parse(req.query_string())?;
    check_name_param(&mut query, &[&ActivityLogType::name_of(&id), &id])?;
    query.finish()?;
    ok(&state.activity_log_types.get(&caller.0, &id).await?)
}

/// Updates an activity log type.
#[utoipa::path(patch, path = "/v1alpha/activityLogTypes/{activityLogType}", tag = "activityLogs",
    params(("activityLogType" = String, Path, description = "Activity log type id"),
        ("updateMask" = Option<String>, Query, description = "Comma-separated field paths; `*` replaces the type; absent = the populated fields of the body")),
    request_body = ActivityLogType,
    responses((status = 200, body = ActivityLogType), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn update(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let mask = query.take("updateMask")?;
    query.finish()?;
    ok(&state
        .activity_log_types
        .update(&caller.0, &path, body.0, mask.as_deref())
        .await?)
}

/// Soft-deletes an activity log type; returns it with `deleteTime` and `purgeTime`.
#[utoipa::path(delete, path = "/v1alpha/activityLogTypes/{activityLogType}", tag = "activityLogs",
    params(("activityLogType" = String, Path, description = "Activity log type id"), DeleteActivityLogTypeParams),
    responses((status = 200, body = ActivityLogType), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn delete(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    standard::delete(state.activity_log_types.as_ref(), &caller.0, &req, &path).await
}

/// Restores a soft-deleted activity log type.
#[utoipa::path(post, path = "/v1alpha/activityLogTypes/{activityLogType}:undelete", tag = "activityLogs",
    params(("activityLogType" = String, Path, description = "Activity log type id")), request_body = EtagRequest,
    responses((status = 200, body = ActivityLogType), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn undelete(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    standard::undelete(state.activity_log_types.as_ref(), &caller.0, &path, body).await
}
