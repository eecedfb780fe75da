//! Identity verification routes: verification sessions (`rics.write`), naming a
//! session's entity after it started, the tenant's Truuth callback secret
//! (`rics.admin`), and Truuth's callback, which is public: no OAuth token, but the
//! tenant's callback secret as a Bearer token. Every refused callback is logged with
//! its reason.

use actix_web::HttpRequest;
use actix_web::http::header::AUTHORIZATION;
use actix_web::web::{Data, Path};
use rics_domain::principal::Scope;
use rics_domain::verification::service::{
    CreateSessionRequest, LinkEntityRequest, SessionAnswer, SessionView,
};
use rics_domain::webhook::tenant_secret::TenantWebhookSecret;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{Response, ok};
use crate::error::ErrorEnvelope;
use crate::extract::{Caller, JsonBody, NoQuery};
use crate::state::ApiState;

/// The path of Truuth's callback, the one public route under `/v1alpha` besides the
/// OpenAPI document.
pub const TRUUTH_CALLBACK: &str = "/v1alpha/truuth/webhooks/callback";

route_table! {
    POST "/v1alpha/verificationSessions" => create_session, Some(Scope::Write);
    POST "/v1alpha/verificationSessions/{verificationSession}:linkEntity" => link_entity, Some(Scope::Write);
    POST "/v1alpha/tenants/{tenant}:rotateTruuthCallbackSecret" => rotate_truuth_callback_secret, Some(Scope::Admin);
    POST "/v1alpha/truuth/webhooks/callback" as "ReceiveTruuthCallback" => truuth_callback, None;
}

/// Starts identity capture with the tenant's provider (Truuth) for the identity owner,
/// and answers what a front end needs to start it with the provider's SDK. Without an
/// `entity`, the outcome waits for `:linkEntity` to be written about one.
#[utoipa::path(post, path = "/v1alpha/verificationSessions", tag = "verificationSessions",
    request_body = CreateSessionRequest,
    responses((status = 200, body = SessionAnswer), (status = 400, body = ErrorEnvelope),
        (status = 404, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope)))]
pub async fn create_session(
    caller: Caller,
    _query: NoQuery,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    ok(&state.verification.create_session(&caller.0, body.0).await?)
}

/// Names the entity a session started without one verified: the outcome's
/// IDENTITY_CHECK activity log (with `verificationStatus` and, when asked, the missing
/// details) is written now if the outcome arrived, else when it arrives.
#[utoipa::path(post, path = "/v1alpha/verificationSessions/{verificationSession}:linkEntity", tag = "verificationSessions",
    params(("verificationSession" = String, Path, description = "Verification session id")),
    request_body = LinkEntityRequest,
    responses((status = 200, body = SessionView), (status = 400, body = ErrorEnvelope),
        (status = 404, body = ErrorEnvelope), (status = 412, body = ErrorEnvelope)))]
pub async fn link_entity(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    ok(&state
        .verification
        .link_entity(&caller.0, &path, body.0)
        .await?)
}

/// The body of `:rotateTruuthCallbackSecret`: empty.
#[derive(Debug, Default, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RotateTruuthCallbackSecretRequest {}

/// Gives the caller's tenant a new Truuth callback secret, shown in the answer: the
/// Bearer token Truuth's callbacks for the tenant's sessions must carry. The one it
/// replaces stays good for 24 hours. The first call makes the first secret; until
/// then every callback of the tenant is refused.
#[utoipa::path(post, path = "/v1alpha/tenants/{tenant}:rotateTruuthCallbackSecret", tag = "tenants",
    params(("tenant" = String, Path, description = "`current` or the caller's tenant id")),
    request_body = RotateTruuthCallbackSecretRequest,
    responses((status = 200, body = TenantWebhookSecret), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn rotate_truuth_callback_secret(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let _: RotateTruuthCallbackSecretRequest =
        rics_domain::resource::parse_body(body.0, "rotateTruuthCallbackSecret")?;
    ok(&state
        .truuth_callback_secrets
        .rotate(&caller.0, &path)
        .await?)
}

/// Truuth's callback with a verification's status. Public: authenticated by the
/// Bearer secret of the session's tenant (`:rotateTruuthCallbackSecret`). Refused:
/// no or a wrong secret (401), an unknown session (404), a verification's status
/// received already (409 `CALLBACK_REPLAYED`), a session expired more than an hour
/// ago (412 `CALLBACK_TOO_OLD`).
#[utoipa::path(post, path = "/v1alpha/truuth/webhooks/callback", tag = "verificationSessions",
    request_body = rics_domain::verification::truuth::TruuthCallback,
    responses((status = 200, body = Object), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope),
        (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope), (status = 412, body = ErrorEnvelope)))]
pub async fn truuth_callback(
    req: HttpRequest,
    _query: NoQuery,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let bearer = req
        .headers()
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    match state.verification.truuth_callback(bearer, body.0).await {
        Ok(receipt) => ok(&receipt),
        Err(error) => {
            tracing::warn!(
                code = error.code.name(),
                reason = error.reason,
                message = %error.message,
                "refused a Truuth callback"
            );
            Err(error.into())
        }
    }
}
