//! The identity document routes, in the collection and under an entity.

use actix_web::HttpRequest;
use actix_web::web::{Data, Path};
use rics_domain::document::Document;
use rics_domain::list::ListResponse;
use rics_domain::principal::Scope;
use serde::Serialize;
use utoipa::ToSchema;

use super::{EtagRequest, Response, check_name_param, ok, standard, total_size};
use crate::error::ErrorEnvelope;
use crate::extract::{Caller, JsonBody, NoQuery, QueryParams};
use crate::state::ApiState;

route_table! {
    GET "/v1alpha/documents" => list, Some(Scope::Read);
    POST "/v1alpha/documents" => create, Some(Scope::Write);
    GET "/v1alpha/documents/{document}" => get, Some(Scope::Read);
    PATCH "/v1alpha/documents/{document}" => update, Some(Scope::Write);
    DELETE "/v1alpha/documents/{document}" => delete, Some(Scope::Write);
    POST "/v1alpha/documents/{document}:undelete" => undelete, Some(Scope::Write);
    GET "/v1alpha/entities/{entity}/documents" => list_for_entity, Some(Scope::Read);
}

/// A page of identity documents.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListDocumentsResponse {
    /// The documents, oldest first unless `orderBy` says otherwise.
    pub documents: Vec<Document>,
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// How many documents match the filter.
    pub total_size: i32,
}

/// Lists identity documents.
#[utoipa::path(get, path = "/v1alpha/documents", tag = "documents",
    params(
        ("pageSize" = Option<i32>, Query, description = "Default 50, at most 1000 (larger values are coerced)"),
        ("pageToken" = Option<String>, Query, description = "Token from a previous response; every other parameter must be unchanged"),
        ("skip" = Option<i32>, Query, description = "Items to skip before the page"),
        ("filter" = Option<String>, Query, description = "AIP-160 over displayName (`=` exact, `:` fuzzy: `displayName:\"jane pasport\"`), entity, documentType, issuingCountry, expiryDate (YYYY-MM-DD text), createTime, updateTime, deleteTime"),
        ("orderBy" = Option<String>, Query, description = "Comma-separated displayName, createTime, updateTime, each optionally ` desc`; default createTime; a fuzzy search without orderBy ranks by similarity"),
        ("showDeleted" = Option<bool>, Query, description = "Include soft-deleted documents")),
    responses((status = 200, body = ListDocumentsResponse), (status = 400, body = ErrorEnvelope)))]
pub async fn list(caller: Caller, req: HttpRequest, state: Data<ApiState>) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let request = query.take_list(true)?;
    query.finish()?;
    respond(state.documents.list(&caller.0, &request).await?)
}

/// Lists the identity documents of a live entity.
#[utoipa::path(get, path = "/v1alpha/entities/{entity}/documents", tag = "documents",
    params(
        ("entity" = String, Path, description = "Entity id; NOT_FOUND when it is missing or deleted"),
        ("pageSize" = Option<i32>, Query, description = "Default 50, at most 1000 (larger values are coerced)"),
        ("pageToken" = Option<String>, Query, description = "Token from a previous response; every other parameter must be unchanged"),
        ("skip" = Option<i32>, Query, description = "Items to skip before the page"),
        ("filter" = Option<String>, Query, description = "As for the collection"),
        ("orderBy" = Option<String>, Query, description = "Comma-separated displayName, createTime, updateTime, each optionally ` desc`; default createTime; a fuzzy search without orderBy ranks by similarity"),
        ("showDeleted" = Option<bool>, Query, description = "Include soft-deleted documents")),
    responses((status = 200, body = ListDocumentsResponse), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn list_for_entity(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let request = query.take_list(true)?;
    query.finish()?;
    respond(
        state
            .documents
            .list_for_entity(&caller.0, &path, &request)
            .await?,
    )
}

/// The answer of both lists.
fn respond(page: ListResponse<Document>) -> Response {
    ok(&ListDocumentsResponse {
        documents: page.items,
        next_page_token: page.next_page_token,
        total_size: total_size(page.total_size),
    })
}

/// Records an identity document of an entity.
#[utoipa::path(post, path = "/v1alpha/documents", tag = "documents",
    params(
        ("documentId" = Option<String>, Query, description = "The id to give the document: 4 to 63 of `[a-z0-9-]`, starting with a letter; generated when absent"),
        ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent")),
    request_body = Document,
    responses((status = 200, body = Document), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn create(
    caller: Caller,
    req: HttpRequest,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let document_id = query.take("documentId")?;
    let request_id = query.take("requestId")?;
    query.finish()?;
    ok(&state
        .documents
        .create(
            &caller.0,
            body.0,
            document_id.as_deref(),
            request_id.as_deref(),
        )
        .await?)
}

/// Gets an identity document, deleted or not.
#[utoipa::path(get, path = "/v1alpha/documents/{document}", tag = "documents",
    params(("document" = String, Path, description = "Document id"), ("name" = Option<String>, Query, description = "Redundant resource name; must match the path")),
    responses((status = 200, body = Document), (status = 404, body = ErrorEnvelope)))]
pub async fn get(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    check_name_param(&mut query, &[&Document::name_of(&path), &path])?;
    query.finish()?;
    ok(&state.documents.get(&caller.0, &path).await?)
}

/// Updates an identity document; its entity cannot change.
#[utoipa::path(patch, path = "/v1alpha/documents/{document}", tag = "documents",
    params(("document" = String, Path, description = "Document id"), ("updateMask" = Option<String>, Query, description = "Comma-separated field paths; `*` replaces the document; absent = the populated fields of the body")),
    request_body = Document,
    responses((status = 200, body = Document), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
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
        .documents
        .update(&caller.0, &path, body.0, mask.as_deref())
        .await?)
}

/// Soft-deletes an identity document.
#[utoipa::path(delete, path = "/v1alpha/documents/{document}", tag = "documents",
    params(("document" = String, Path, description = "Document id"),
        ("etag" = Option<String>, Query, description = "When given, must be the current etag"),
        ("allowMissing" = Option<bool>, Query, description = "Succeed when the document is missing or already deleted")),
    responses((status = 200, body = Document), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn delete(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    standard::delete(state.documents.as_ref(), &caller.0, &req, &path).await
}

/// Restores a soft-deleted identity document.
#[utoipa::path(post, path = "/v1alpha/documents/{document}:undelete", tag = "documents",
    params(("document" = String, Path, description = "Document id")), request_body = EtagRequest,
    responses((status = 200, body = Document), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn undelete(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    standard::undelete(state.documents.as_ref(), &caller.0, &path, body).await
}
