//! The form routes: the standard methods but Delete (forms are never deleted),
//! `:submit` and `:expire`, and the forms of a workspace.

use actix_web::web::{Data, Path};
use rics_domain::form::Form;
use rics_domain::principal::Scope;

use super::{EtagRequest, PageParams, Response, body_etag, ok};
use crate::error::ErrorEnvelope;
use crate::extract::{Caller, JsonBody, NoQuery};
use crate::state::ApiState;

resource_routes! {
    service: forms, resource: Form, tag: "forms",
    id: ("form" = String, Path, description = "Form id");

    /// Lists forms.
    list "/v1alpha/forms", Some(Scope::Read), lists rics_domain::form::fields::LIST => ListFormsResponse, params(PageParams,
        ("filter" = Option<String>, Query, description = "AIP-160 over displayName, state (as the forms read now), formDefinition, entity, workspaces, createTime, updateTime, submitTime, expireTime"),
        ("orderBy" = Option<String>, Query, description = "displayName, createTime, updateTime, each optionally ` desc`; default createTime"));
    /// Creates a DRAFT form of a form definition's revision.
    create "/v1alpha/forms", Some(Scope::Write), params(
        ("formId" = Option<String>, Query, description = "The id to give the form: 4 to 63 of `[a-z0-9-]`, starting with a letter; generated when absent"),
        ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent"));
    /// Gets a form, in the state it is in now.
    get "/v1alpha/forms/{form}", Some(Scope::Read);
    /// Updates a DRAFT form: saves the response so far.
    update "/v1alpha/forms/{form}", Some(Scope::Write), params(
        ("updateMask" = Option<String>, Query, description = "Comma-separated field paths; `*` replaces the form; absent = the populated fields of the body"));
    POST "/v1alpha/forms/{form}:submit" => submit, Some(Scope::Write);
    POST "/v1alpha/forms/{form}:expire" => expire, Some(Scope::Write);
    /// Lists the forms collected for a live workspace.
    list_by list_in_workspace "/v1alpha/workspaces/{workspace}/forms", Some(Scope::Read),
        lists rics_domain::form::fields::LIST => ListFormsResponse,
        params(
            ("workspace" = String, Path, description = "Workspace id; NOT_FOUND when it is missing or deleted"),
            PageParams,
            ("filter" = Option<String>, Query, description = "As for the collection"),
            ("orderBy" = Option<String>, Query, description = "displayName, createTime, updateTime, each optionally ` desc`; default createTime")),
        |caller, state, request, workspace| state.forms.list_in_workspace(caller, &workspace, request);
}

list_response! {
    /// A page of forms.
    ListFormsResponse {
        /// The forms, in the state each is in now.
        forms: Form,
        /// How many forms match the filter.
        total_size,
    }
}

/// Submits a DRAFT form: its whole response must be valid against its revision's
/// `responseSchema`; the form is then SUBMITTED and read-only.
#[utoipa::path(post, path = "/v1alpha/forms/{form}:submit", tag = "forms",
    params(("form" = String, Path, description = "Form id")), request_body = EtagRequest,
    responses((status = 200, body = Form), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn submit(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let etag = body_etag(body, "submit")?;
    ok(&state
        .forms
        .submit(&caller.0, &path, etag.as_deref())
        .await?)
}

/// Expires a DRAFT form: it is then EXPIRED and read-only.
#[utoipa::path(post, path = "/v1alpha/forms/{form}:expire", tag = "forms",
    params(("form" = String, Path, description = "Form id")), request_body = EtagRequest,
    responses((status = 200, body = Form), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn expire(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let etag = body_etag(body, "expire")?;
    ok(&state
        .forms
        .expire(&caller.0, &path, etag.as_deref())
        .await?)
}
