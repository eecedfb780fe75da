//! The identity document routes, in the collection and under an entity.

use actix_web::HttpRequest;
use actix_web::web::{Data, Path};
use rics_domain::document::Document;
use rics_domain::principal::Scope;

use super::{PageParams, Response, standard};
use crate::error::ErrorEnvelope;
use crate::extract::Caller;
use crate::state::ApiState;

resource_routes! {
    service: documents, resource: Document, tag: "documents",
    id: ("document" = String, Path, description = "Document id");

    /// Lists identity documents.
    list "/v1alpha/documents", Some(Scope::Read), lists rics_domain::document::fields::LIST => ListDocumentsResponse, params(PageParams,
        ("filter" = Option<String>, Query, description = "AIP-160 over displayName (`=` exact, `:` fuzzy: `displayName:\"jane pasport\"`), entity, workspace, documentType, issuingCountry, expiryDate (YYYY-MM-DD text), createTime, updateTime, deleteTime"),
        ("orderBy" = Option<String>, Query, description = "Comma-separated displayName, createTime, updateTime, each optionally ` desc`; default createTime; a fuzzy search without orderBy ranks by similarity"),
        ("showDeleted" = Option<bool>, Query, description = "Include soft-deleted documents"));
    /// Records an identity document of an entity.
    create "/v1alpha/documents", Some(Scope::Write), params(
        ("documentId" = Option<String>, Query, description = "The id to give the document: 4 to 63 of `[a-z0-9-]`, starting with a letter; generated when absent"),
        ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent"));
    /// Gets an identity document, deleted or not.
    get "/v1alpha/documents/{document}", Some(Scope::Read);
    /// Updates an identity document; its entity cannot change.
    update "/v1alpha/documents/{document}", Some(Scope::Write), params(
        ("updateMask" = Option<String>, Query, description = "Comma-separated field paths; `*` replaces the document; absent = the populated fields of the body"));
    /// Soft-deletes an identity document.
    delete "/v1alpha/documents/{document}", Some(Scope::Write), params(
        ("etag" = Option<String>, Query, description = "When given, must be the current etag"),
        ("allowMissing" = Option<bool>, Query, description = "Succeed when the document is missing or already deleted"));
    /// Restores a soft-deleted identity document.
    undelete "/v1alpha/documents/{document}:undelete", Some(Scope::Write);
    GET "/v1alpha/entities/{entity}/documents" => list_for_entity, Some(Scope::Read), lists rics_domain::document::fields::LIST;
    /// Lists the identity documents collected for a live workspace.
    list_by list_for_workspace "/v1alpha/workspaces/{workspace}/documents", Some(Scope::Read),
        lists rics_domain::document::fields::LIST => ListDocumentsResponse,
        params(
            ("workspace" = String, Path, description = "Workspace id; NOT_FOUND when it is missing or deleted"),
            PageParams,
            ("filter" = Option<String>, Query, description = "As for the collection"),
            ("orderBy" = Option<String>, Query, description = "Comma-separated displayName, createTime, updateTime, each optionally ` desc`; default createTime; a fuzzy search without orderBy ranks by similarity"),
            ("showDeleted" = Option<bool>, Query, description = "Include soft-deleted documents")),
        |caller, state, request, workspace| state.documents.list_in_workspace(caller, &workspace, request);
}

list_response! {
    /// A page of identity documents.
    ListDocumentsResponse {
        /// The documents, oldest first unless `orderBy` says otherwise.
        documents: Document,
        /// How many documents match the filter.
        total_size,
    }
}

/// Lists the identity documents of a live entity.
#[utoipa::path(get, path = "/v1alpha/entities/{entity}/documents", tag = "documents",
    params(
        ("entity" = String, Path, description = "Entity id; NOT_FOUND when it is missing or deleted"),
        PageParams,
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
    standard::list::<_, ListDocumentsResponse>(&req, true, async |request| {
        state
            .documents
            .list_for_entity(&caller.0, &path, request)
            .await
    })
    .await
}
