//! The workspace routes (their notes are in [`super::notes`]).

use actix_web::web::{Data, Path};
use rics_domain::principal::Scope;
use rics_domain::workspace::Workspace;

use super::{EtagRequest, PageParams, Response, body_etag, ok};
use crate::error::ErrorEnvelope;
use crate::extract::{Caller, JsonBody, NoQuery};
use crate::state::ApiState;

resource_routes! {
    service: workspaces, resource: Workspace, tag: "workspaces",
    id: ("workspace" = String, Path, description = "Workspace id");

    /// Lists workspaces.
    list "/v1alpha/workspaces", Some(Scope::Read), lists rics_domain::workspace::fields::LIST => ListWorkspacesResponse, params(PageParams,
        ("filter" = Option<String>, Query, description = "AIP-160 over displayName, state, entities, createTime, updateTime, deleteTime"),
        ("orderBy" = Option<String>, Query, description = "displayName, createTime, updateTime, each optionally ` desc`; default createTime"),
        ("showDeleted" = Option<bool>, Query, description = "Include soft-deleted workspaces"));
    /// Creates an OPEN workspace.
    create "/v1alpha/workspaces", Some(Scope::Write), params(
        ("workspaceId" = Option<String>, Query, description = "The id to give the workspace: 4 to 63 of `[a-z0-9-]`, starting with a letter; generated when absent"),
        ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent"));
    /// Gets a workspace, deleted or not.
    get "/v1alpha/workspaces/{workspace}", Some(Scope::Read);
    /// Updates a workspace; refused while it is closed.
    update "/v1alpha/workspaces/{workspace}", Some(Scope::Write), params(
        ("updateMask" = Option<String>, Query, description = "Comma-separated field paths; `*` replaces the workspace; absent = the populated fields of the body"));
    /// Soft-deletes a workspace; its notes are unreachable until it is restored.
    delete "/v1alpha/workspaces/{workspace}", Some(Scope::Write), params(
        ("etag" = Option<String>, Query, description = "When given, must be the current etag"),
        ("allowMissing" = Option<bool>, Query, description = "Succeed when the workspace is missing or already deleted"));
    /// Restores a soft-deleted workspace.
    undelete "/v1alpha/workspaces/{workspace}:undelete", Some(Scope::Write);
    POST "/v1alpha/workspaces/{workspace}:close" => close, Some(Scope::Write);
    POST "/v1alpha/workspaces/{workspace}:reopen" => reopen, Some(Scope::Write);
}

list_response! {
    /// A page of workspaces.
    ListWorkspacesResponse {
        /// The workspaces.
        workspaces: Workspace,
        /// How many workspaces match the filter.
        total_size,
    }
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
