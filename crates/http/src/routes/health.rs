//! Health probes: `/healthz` (the process runs) and `/readyz` (its database answers).

use actix_web::web::Data;
use actix_web::{HttpResponse, Responder};
use rics_domain::error::Error;
use serde_json::json;

use crate::error::ApiError;
use crate::state::ApiState;

route_table! {
    GET "/healthz" as "CheckHealth" => healthz, None;
    GET "/readyz" as "CheckReadiness" => readyz, None;
    GET "/v1alpha/openapi.json" as "GetOpenApiDocument" => crate::openapi::document, None;
}

/// Liveness: the process is up.
#[utoipa::path(get, path = "/healthz", tag = "health", responses((status = 200, description = "The process is up")))]
pub async fn healthz() -> impl Responder {
    HttpResponse::Ok().json(json!({"status": "SERVING"}))
}

/// Readiness: the database answers.
#[utoipa::path(
    get,
    path = "/readyz",
    tag = "health",
    responses(
        (status = 200, description = "Ready to serve"),
        (status = 503, description = "Not ready", body = crate::error::ErrorEnvelope)
    )
)]
pub async fn readyz(state: Data<ApiState>) -> Result<HttpResponse, ApiError> {
    state
        .readiness
        .check()
        .await
        .map_err(|reason| ApiError(Error::unavailable("NOT_READY", reason)))?;
    Ok(HttpResponse::Ok().json(json!({"status": "SERVING"})))
}
