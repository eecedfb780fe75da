//! The tenant routes.

use actix_web::HttpRequest;
use actix_web::web::{Data, Path};
use rics_domain::operation::Operation;
use rics_domain::principal::Scope;
use rics_domain::tenant::Tenant;

use super::{Response, ok, standard};
use crate::error::ErrorEnvelope;
use crate::extract::{Caller, JsonBody, QueryParams};
use crate::state::ApiState;

route_table! {
    POST "/v1alpha/tenants" => create, Some(Scope::Admin);
    GET "/v1alpha/tenants/{tenant}" => get, Some(Scope::Read);
    GET "/v1alpha/tenants/{tenant}/children" as "ListTenantChildren" => children, Some(Scope::Read);
    GET "/v1alpha/tenants/{tenant}/operations/{operation}" => operation, Some(Scope::Read);
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

/// The caller's tenant, as `tenants/current` or by its own name; any other tenant is
/// NOT_FOUND.
#[utoipa::path(get, path = "/v1alpha/tenants/{tenant}", tag = "tenants",
    params(("tenant" = String, Path, description = "`current` or the caller's tenant id")),
    responses((status = 200, body = Tenant), (status = 404, body = ErrorEnvelope)))]
pub async fn get(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    QueryParams::parse(req.query_string())?.finish()?;
    ok(&state.tenants.get(&caller.0, &path).await?)
}

/// The caller's child tenants (partners only have children).
#[utoipa::path(get, path = "/v1alpha/tenants/{tenant}/children", tag = "tenants",
    params(("tenant" = String, Path, description = "`current` or the caller's tenant id"),
        ("pageSize" = Option<i32>, Query, description = "Default 50, at most 1000"),
        ("pageToken" = Option<String>, Query, description = "Token from a previous response"),
        ("skip" = Option<i32>, Query, description = "Items to skip"),
        ("filter" = Option<String>, Query, description = "AIP-160 over displayName and createTime"),
        ("orderBy" = Option<String>, Query, description = "displayName, createTime, optionally desc")),
    responses((status = 200, body = ListTenantsResponse), (status = 404, body = ErrorEnvelope)))]
pub async fn children(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    standard::list::<_, ListTenantsResponse>(&req, false, async |request| {
        state.tenants.list_children(&caller.0, &path, request).await
    })
    .await
}

/// The state of a tenant creation operation of the caller's tenant.
#[utoipa::path(get, path = "/v1alpha/tenants/{tenant}/operations/{operation}", tag = "tenants",
    params(("tenant" = String, Path, description = "`current` or the caller's tenant id"), ("operation" = String, Path, description = "Operation id")),
    responses((status = 200, body = Operation), (status = 404, body = ErrorEnvelope)))]
pub async fn operation(
    caller: Caller,
    req: HttpRequest,
    path: Path<(String, String)>,
    state: Data<ApiState>,
) -> Response {
    QueryParams::parse(req.query_string())?.finish()?;
    let (tenant, operation) = path.into_inner();
    ok(&state
        .tenants
        .get_operation(&caller.0, &tenant, &operation)
        .await?)
}
