//! The note routes, the same five under `entities/{entity}` and under
//! `workspaces/{workspace}`: each pair of handlers shares one implementation.

use actix_web::HttpRequest;
use actix_web::web::{Data, Path};
use rics_domain::error::Error;
use rics_domain::note::{Note, NoteParent};
use serde::Serialize;
use utoipa::ToSchema;

use super::{Response, check_name_param, ok, total_size};
use crate::error::{ApiError, ErrorEnvelope};
use crate::extract::{Caller, JsonBody, QueryParams};
use crate::state::ApiState;

/// A page of notes.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListNotesResponse {
    /// The notes, oldest first unless `orderBy` says otherwise.
    pub notes: Vec<Note>,
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// How many notes match.
    pub total_size: i32,
}

async fn list(
    caller: Caller,
    req: HttpRequest,
    parent: NoteParent,
    state: Data<ApiState>,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    if let Some(given) = query.take("parent")?
        && given != parent.name()
    {
        return Err(ApiError(Error::invalid_field(
            "parent",
            "PARENT_MISMATCH",
            format!("'{given}' does not match the path's '{}'", parent.name()),
        )));
    }
    let request = query.take_list(false)?;
    query.finish()?;
    let page = state.notes.list(&caller.0, &parent, &request).await?;
    ok(&ListNotesResponse {
        notes: page.items,
        next_page_token: page.next_page_token,
        total_size: total_size(page.total_size),
    })
}

async fn create(
    caller: Caller,
    req: HttpRequest,
    parent: NoteParent,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let request_id = query.take("requestId")?;
    query.finish()?;
    ok(&state
        .notes
        .create(&caller.0, &parent, body.0, request_id.as_deref())
        .await?)
}

/// Checks the redundant `name` parameter: the note's full name or `notes/{note}`.
fn check_note_name(query: &mut QueryParams, parent: &NoteParent, id: &str) -> Result<(), ApiError> {
    check_name_param(query, &[&parent.note_name(id), &format!("notes/{id}")])
}

async fn get(
    caller: Caller,
    req: HttpRequest,
    (parent, id): (NoteParent, String),
    state: Data<ApiState>,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    check_note_name(&mut query, &parent, &id)?;
    query.finish()?;
    ok(&state.notes.get(&caller.0, &parent, &id).await?)
}

async fn update(
    caller: Caller,
    req: HttpRequest,
    (parent, id): (NoteParent, String),
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let mask = query.take("updateMask")?;
    query.finish()?;
    ok(&state
        .notes
        .update(&caller.0, &parent, &id, body.0, mask.as_deref())
        .await?)
}

async fn delete(
    caller: Caller,
    req: HttpRequest,
    (parent, id): (NoteParent, String),
    state: Data<ApiState>,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    check_note_name(&mut query, &parent, &id)?;
    let etag = query.take("etag")?;
    query.finish()?;
    ok(&state
        .notes
        .delete(&caller.0, &parent, &id, etag.as_deref())
        .await?)
}

fn entity_note(path: Path<(String, String)>) -> (NoteParent, String) {
    let (entity, note) = path.into_inner();
    (NoteParent::Entity(entity), note)
}

fn workspace_note(path: Path<(String, String)>) -> (NoteParent, String) {
    let (workspace, note) = path.into_inner();
    (NoteParent::Workspace(workspace), note)
}

/// Lists an entity's notes.
#[utoipa::path(get, path = "/v1alpha/entities/{entity}/notes", tag = "notes",
    params(("entity" = String, Path, description = "Entity id"),
        ("parent" = Option<String>, Query, description = "Redundant parent name (`entities/{entity}`); must match the path"),
        ("pageSize" = Option<i32>, Query, description = "Default 50, at most 1000 (larger values are coerced to 1000)"),
        ("pageToken" = Option<String>, Query, description = "Token from a previous response; every other parameter must be unchanged"),
        ("skip" = Option<i32>, Query, description = "Items to skip before the page"),
        ("filter" = Option<String>, Query, description = "AIP-160 over authorId, isEdited, createTime, updateTime"),
        ("orderBy" = Option<String>, Query, description = "createTime or updateTime, optionally ` desc`; default createTime")),
    responses((status = 200, body = ListNotesResponse), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn list_for_entity(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    list(caller, req, NoteParent::Entity(path.into_inner()), state).await
}

/// Lists a workspace's notes.
#[utoipa::path(get, path = "/v1alpha/workspaces/{workspace}/notes", tag = "notes",
    params(("workspace" = String, Path, description = "Workspace id"),
        ("parent" = Option<String>, Query, description = "Redundant parent name (`workspaces/{workspace}`); must match the path"),
        ("pageSize" = Option<i32>, Query, description = "Default 50, at most 1000 (larger values are coerced to 1000)"),
        ("pageToken" = Option<String>, Query, description = "Token from a previous response; every other parameter must be unchanged"),
        ("skip" = Option<i32>, Query, description = "Items to skip before the page"),
        ("filter" = Option<String>, Query, description = "AIP-160 over authorId, isEdited, createTime, updateTime"),
        ("orderBy" = Option<String>, Query, description = "createTime or updateTime, optionally ` desc`; default createTime")),
    responses((status = 200, body = ListNotesResponse), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn list_for_workspace(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    list(caller, req, NoteParent::Workspace(path.into_inner()), state).await
}

/// Writes a note about an entity as the caller.
#[utoipa::path(post, path = "/v1alpha/entities/{entity}/notes", tag = "notes",
    params(("entity" = String, Path, description = "Entity id"), ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent")),
    request_body(content = Note, description = "`content` required; `name` optional, choosing the note's id"),
    responses((status = 200, body = Note), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn create_for_entity(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    create(
        caller,
        req,
        NoteParent::Entity(path.into_inner()),
        state,
        body,
    )
    .await
}

/// Writes a note in a workspace as the caller; refused while the workspace is closed.
#[utoipa::path(post, path = "/v1alpha/workspaces/{workspace}/notes", tag = "notes",
    params(("workspace" = String, Path, description = "Workspace id"), ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent")),
    request_body(content = Note, description = "`content` required; `name` optional, choosing the note's id"),
    responses((status = 200, body = Note), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn create_for_workspace(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    create(
        caller,
        req,
        NoteParent::Workspace(path.into_inner()),
        state,
        body,
    )
    .await
}

/// Gets a note about an entity.
#[utoipa::path(get, path = "/v1alpha/entities/{entity}/notes/{note}", tag = "notes",
    params(("entity" = String, Path, description = "Entity id"), ("note" = String, Path, description = "Note id"),
        ("name" = Option<String>, Query, description = "Redundant name (`notes/{note}` or the full name); must match the path")),
    responses((status = 200, body = Note), (status = 404, body = ErrorEnvelope)))]
pub async fn get_for_entity(
    caller: Caller,
    req: HttpRequest,
    path: Path<(String, String)>,
    state: Data<ApiState>,
) -> Response {
    get(caller, req, entity_note(path), state).await
}

/// Gets a note of a workspace.
#[utoipa::path(get, path = "/v1alpha/workspaces/{workspace}/notes/{note}", tag = "notes",
    params(("workspace" = String, Path, description = "Workspace id"), ("note" = String, Path, description = "Note id"),
        ("name" = Option<String>, Query, description = "Redundant name (`notes/{note}` or the full name); must match the path")),
    responses((status = 200, body = Note), (status = 404, body = ErrorEnvelope)))]
pub async fn get_for_workspace(
    caller: Caller,
    req: HttpRequest,
    path: Path<(String, String)>,
    state: Data<ApiState>,
) -> Response {
    get(caller, req, workspace_note(path), state).await
}

/// Changes a note about an entity; only its author may.
#[utoipa::path(patch, path = "/v1alpha/entities/{entity}/notes/{note}", tag = "notes",
    params(("entity" = String, Path, description = "Entity id"), ("note" = String, Path, description = "Note id"),
        ("updateMask" = Option<String>, Query, description = "`content` or `*`; absent = the populated fields of the body")),
    request_body(content = Note, description = "The note; its `name`, when given, must be the note's"),
    responses((status = 200, body = Note), (status = 400, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn update_for_entity(
    caller: Caller,
    req: HttpRequest,
    path: Path<(String, String)>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    update(caller, req, entity_note(path), state, body).await
}

/// Changes a note of a workspace; only its author may, while the workspace is open.
#[utoipa::path(patch, path = "/v1alpha/workspaces/{workspace}/notes/{note}", tag = "notes",
    params(("workspace" = String, Path, description = "Workspace id"), ("note" = String, Path, description = "Note id"),
        ("updateMask" = Option<String>, Query, description = "`content` or `*`; absent = the populated fields of the body")),
    request_body(content = Note, description = "The note; its `name`, when given, must be the note's"),
    responses((status = 200, body = Note), (status = 400, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn update_for_workspace(
    caller: Caller,
    req: HttpRequest,
    path: Path<(String, String)>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    update(caller, req, workspace_note(path), state, body).await
}

/// Deletes a note about an entity for good and returns it; only its author may.
#[utoipa::path(delete, path = "/v1alpha/entities/{entity}/notes/{note}", tag = "notes",
    params(("entity" = String, Path, description = "Entity id"), ("note" = String, Path, description = "Note id"),
        ("name" = Option<String>, Query, description = "Redundant name (`notes/{note}` or the full name); must match the path"),
        ("etag" = Option<String>, Query, description = "When given, must be the note's current etag")),
    responses((status = 200, body = Note), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn delete_for_entity(
    caller: Caller,
    req: HttpRequest,
    path: Path<(String, String)>,
    state: Data<ApiState>,
) -> Response {
    delete(caller, req, entity_note(path), state).await
}

/// Deletes a note of a workspace for good and returns it; only its author may.
#[utoipa::path(delete, path = "/v1alpha/workspaces/{workspace}/notes/{note}", tag = "notes",
    params(("workspace" = String, Path, description = "Workspace id"), ("note" = String, Path, description = "Note id"),
        ("name" = Option<String>, Query, description = "Redundant name (`notes/{note}` or the full name); must match the path"),
        ("etag" = Option<String>, Query, description = "When given, must be the note's current etag")),
    responses((status = 200, body = Note), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn delete_for_workspace(
    caller: Caller,
    req: HttpRequest,
    path: Path<(String, String)>,
    state: Data<ApiState>,
) -> Response {
    delete(caller, req, workspace_note(path), state).await
}

/// The notes of an entity, in the route table.
pub mod of_entities {
    use rics_domain::principal::Scope;

    route_table! {
        GET "/v1alpha/entities/{entity}/notes" => super::list_for_entity, Some(Scope::Read);
        POST "/v1alpha/entities/{entity}/notes" => super::create_for_entity, Some(Scope::Write);
        GET "/v1alpha/entities/{entity}/notes/{note}" => super::get_for_entity, Some(Scope::Read);
        PATCH "/v1alpha/entities/{entity}/notes/{note}" => super::update_for_entity, Some(Scope::Write);
        DELETE "/v1alpha/entities/{entity}/notes/{note}" => super::delete_for_entity, Some(Scope::Write);
    }
}

/// The notes of a workspace, in the route table.
pub mod of_workspaces {
    use rics_domain::principal::Scope;

    route_table! {
        GET "/v1alpha/workspaces/{workspace}/notes" => super::list_for_workspace, Some(Scope::Read);
        POST "/v1alpha/workspaces/{workspace}/notes" => super::create_for_workspace, Some(Scope::Write);
        GET "/v1alpha/workspaces/{workspace}/notes/{note}" => super::get_for_workspace, Some(Scope::Read);
        PATCH "/v1alpha/workspaces/{workspace}/notes/{note}" => super::update_for_workspace, Some(Scope::Write);
        DELETE "/v1alpha/workspaces/{workspace}/notes/{note}" => super::delete_for_workspace, Some(Scope::Write);
    }
}
