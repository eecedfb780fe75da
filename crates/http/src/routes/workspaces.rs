//! The workspace routes (their notes are in [`super::notes`]).

use actix_web::HttpRequest;
use actix_web::web::{Data, Path};
use rics_domain::workspace::Workspace;
use serde::Serialize;
use utoipa::ToSchema;

use super::{
    EtagRequest, Response, body_etag, check_name_param, ok, standard_delete, standard_undelete,
    total_size,
};
use crate::error::ErrorEnvelope;
use crate::extract::{Caller, JsonBody, NoQuery, QueryParams};
use crate::state::ApiState;

/// A page of workspaces.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListWorkspacesResponse {
    /// The workspaces.
    pub workspaces: Vec<Workspace>,
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// How many workspaces match the filter.
    pub total_size: i32,
}

/// Lists workspaces.
#[utoipa::path(get, path = "/v1alpha/workspaces", tag = "workspaces",
    params(
        ("pageSize" = Option<i32>, Query, description = "Default 50, at most 1000 (larger values are coerced)"),
        ("pageToken" = Option<String>, Query, description = "Token from a previous response; every other parameter must be unchanged"),
        ("skip" = Option<i32>, Query, description = "Items to skip before the page"),
        ("filter" = Option<String>, Query, description = "AIP-160 over displayName, state, entities, createTime, updateTime, deleteTime"),
        ("orderBy" = Option<String>, Query, description = "displayName, createTime, updateTime, each optionally ` desc`; default createTime"),
        ("showDeleted" = Option<bool>, Query, description = "Include soft-deleted workspaces")),
    responses((status = 200, body = ListWorkspacesResponse), (status = 400, body = ErrorEnvelope)))]
pub async fn list(caller: Caller, req: HttpRequest, state: Data<ApiState>) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let request = query.take_list(true)?;
    query.finish()?;
    let page = state.workspaces.list(&caller.0, &request).await?;
    ok(&ListWorkspacesResponse {
        workspaces: page.items,
        next_page_token: page.next_page_token,
        total_size: total_size(page.total_size),
    })
}

/// Creates an OPEN workspace.
#[utoipa::path(post, path = "/v1alpha/workspaces", tag = "workspaces",
    params(
        ("workspaceId" = Option<String>, Query, description = "The id to give the workspace: 4 to 63 of `[a-z0-9-]`, starting with a letter; generated when absent"),
        ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent")),
    request_body = Workspace,
    responses((status = 200, body = Workspace), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn create(
    caller: Caller,
    req: HttpRequest,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let workspace_id = query.take("workspaceId")?;
    let request_id = query.take("requestId")?;
    query.finish()?;
    ok(&state
        .workspaces
        .create(
            &caller.0,
            body.0,
            workspace_id.as_deref(),
            request_id.as_deref(),
        )
        .await?)
}

/// Gets a workspace, deleted or not.
#[utoipa::path(get, path = "/v1alpha/workspaces/{workspace}", tag = "workspaces",
    params(("workspace" = String, Path, description = "Workspace id"), ("name" = Option<String>, Query, description = "Redundant resource name; must match the path")),
    responses((status = 200, body = Workspace), (status = 404, body = ErrorEnvelope)))]
pub async fn get(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    check_name_param(&mut query, &[&Workspace::name_of(&path), &path])?;
    query.finish()?;
    ok(&state.workspaces.get(&caller.0, &path).await?)
}

/// Updates a workspace; refused while it is closed.
#[utoipa::path(patch, path = "/v1alpha/workspaces/{workspace}", tag = "workspaces",
    params(("workspace" = String, Path, description = "Workspace id"), ("updateMask" = Option<String>, Query, description = "Comma-separated field paths; `*` replaces the workspace; absent = the populated fields of the body")),
    request_body = Workspace,
    responses((status = 200, body = Workspace), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
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
        .workspaces
        .update(&caller.0, &path, body.0, mask.as_deref())
        .await?)
}

/// Soft-deletes a workspace; its notes are unreachable until it is restored.
#[utoipa::path(delete, path = "/v1alpha/workspaces/{workspace}", tag = "workspaces",
    params(("workspace" = String, Path, description = "Workspace id"),
        ("etag" = Option<String>, Query, description = "When given, must be the current etag"),
        ("allowMissing" = Option<bool>, Query, description = "Succeed when the workspace is missing or already deleted")),
    responses((status = 200, body = Workspace), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn delete(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    standard_delete(state.workspaces.as_ref(), &caller.0, &req, &path).await
}

/// Restores a soft-deleted workspace.
#[utoipa::path(post, path = "/v1alpha/workspaces/{workspace}:undelete", tag = "workspaces",
    params(("workspace" = String, Path, description = "Workspace id")), request_body = EtagRequest,
    responses((status = 200, body = Workspace), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn undelete(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    standard_undelete(state.workspaces.as_ref(), &caller.0, &path, body).await
}

/// Closes an OPEN workspace: it and its notes are frozen until reopened.
#[utoipa::path(post, path = "/v1alpha/workspaces/{workspace}:close", tag = "workspaces",
    params(("workspace" = String, Path, description = "Workspace id")), request_body = EtagRequest,
    responses((status = 200, body = Workspace), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn close(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let etag = body_etag(body, "close")?;
    ok(&state
        .workspaces
        .close(&caller.0, &path, etag.as_deref())
        .await?)
}

/// Reopens a CLOSED workspace.
#[utoipa::path(post, path = "/v1alpha/workspaces/{workspace}:reopen", tag = "workspaces",
    params(("workspace" = String, Path, description = "Workspace id")), request_body = EtagRequest,
    responses((status = 200, body = Workspace), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn reopen(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let etag = body_etag(body, "reopen")?;
    ok(&state
        .workspaces
        .reopen(&caller.0, &path, etag.as_deref())
        .await?)
}
