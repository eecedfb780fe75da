//! The tenant routes.

use actix_web::HttpRequest;
use actix_web::web::{Data, Path};
use rics_domain::operation::Operation;
use rics_domain::principal::Scope;
use rics_domain::tenant::Tenant;
use rics_domain::webhook::tenant_secret::TenantWebhookSecret;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{Response, ok};
use crate::error::ErrorEnvelope;
use crate::extract::{Caller, JsonBody, NoQuery, QueryParams};
use crate::state::ApiState;

resource_routes! {
    service: tenants, resource: Tenant, tag: "tenants",
    id: ("tenant" = String, Path, description = "`current` or the caller's tenant id");

    POST "/v1alpha/tenants" => create, Some(Scope::Admin);
    POST "/v1alpha/tenants/{tenant}:rotateWebhookSecret" => rotate_webhook_secret, Some(Scope::Admin);
    /// The caller's tenant, as `tenants/current` or by its own name; any other tenant is
    /// NOT_FOUND.
    get_by get "/v1alpha/tenants/{tenant}", Some(Scope::Read),
        params(("tenant" = String, Path, description = "`current` or the caller's tenant id")) => Tenant,
        |caller, state, tenant| state.tenants.get(caller, &tenant);
    /// The caller's child tenants (partners only have children).
    list_by children "/v1alpha/tenants/{tenant}/children" as "ListTenantChildren", Some(Scope::Read),
        lists rics_domain::tenant::service::CHILD_LIST => ListTenantsResponse,
        params(("tenant" = String, Path, description = "`current` or the caller's tenant id"),
            ("pageSize" = Option<i32>, Query, description = "Default 50, at most 1000"),
            ("pageToken" = Option<String>, Query, description = "Token from a previous response"),
            ("skip" = Option<i32>, Query, description = "Items to skip"),
            ("filter" = Option<String>, Query, description = "AIP-160 over displayName and createTime"),
            ("orderBy" = Option<String>, Query, description = "displayName, createTime, optionally desc")),
        |caller, state, request, tenant| state.tenants.list_children(caller, &tenant, request);
    /// The state of a tenant creation operation of the caller's tenant.
    get_by operation "/v1alpha/tenants/{tenant}/operations/{operation}", Some(Scope::Read),
        params(("tenant" = String, Path, description = "`current` or the caller's tenant id"), ("operation" = String, Path, description = "Operation id")) => Operation,
        |caller, state, tenant, operation| state.tenants.get_operation(caller, &tenant, &operation);
}

list_response! {
    /// A page of child tenants.
    ListTenantsResponse {
        /// The tenants.
        tenants: Tenant,
        /// How many children match.
        total_size,
    }
}

/// Creates a child tenant of the caller's partner tenant: provisions it and its first
/// client. Returns a long-running operation, already done, whose response holds the
/// tenant and the client's credentials (the secret is removed from it after 24 hours).
#[utoipa::path(post, path = "/v1alpha/tenants", tag = "tenants", request_body = Tenant,
    responses((status = 200, body = Operation), (status = 400, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope)))]
pub async fn create(
    caller: Caller,
    req: HttpRequest,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    QueryParams::parse(req.query_string())?.finish()?;
    let operation = state.tenants.create_child(&caller.0, body.0).await?;
    ok(&operation)
}

/// The body of `:rotateWebhookSecret`: empty.
#[derive(Debug, Default, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RotateWebhookSecretRequest {}

/// Gives the caller's tenant a new webhook signing secret, shown in the answer, for the
/// deliveries to URLs (the jobs' `webhookUri`, NOTIFY_WEBHOOK steps with a `url`); the
/// one it replaces goes on signing beside it for 24 hours. The first call makes the
/// first secret if no delivery made it yet.
#[utoipa::path(post, path = "/v1alpha/tenants/{tenant}:rotateWebhookSecret", tag = "tenants",
    params(("tenant" = String, Path, description = "`current` or the caller's tenant id")),
    request_body = RotateWebhookSecretRequest,
    responses((status = 200, body = TenantWebhookSecret), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn rotate_webhook_secret(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let _: RotateWebhookSecretRequest =
        rics_domain::resource::parse_body(body.0, "rotateWebhookSecret")?;
    ok(&state
        .tenant_webhook_secrets
        .rotate(&caller.0, &path)
        .await?)
}
