//! The OpenAPI 3.1 document, generated from the handlers' annotations and served at
//! `/v1alpha/openapi.json`.

use actix_web::HttpResponse;
use utoipa::OpenApi;

use crate::routes::{entities, health};

/// The API description.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "rics: Risk and Identity Compliance Service",
        version = "v1alpha",
        description = "Entities under assessment, screening, verification, risk rating, alerts and forms, behind OAuth 2.0. Errors follow AIP-193; lists follow AIP-132/158/160."
    ),
    paths(
        health::healthz,
        health::readyz,
        document,
        entities::list,
        entities::create,
        entities::batch_get,
        entities::get,
        entities::update,
        entities::delete,
        entities::undelete,
        entities::hard_delete,
        entities::add_tag,
        entities::remove_tag,
        entities::add_relationship,
        entities::remove_relationship,
        entities::list_relationships,
    ),
    tags(
        (name = "entities", description = "People and organisations under assessment"),
        (name = "health", description = "Probes"),
        (name = "meta", description = "This document")
    )
)]
pub struct ApiDoc;

/// The OpenAPI document.
#[utoipa::path(get, path = "/v1alpha/openapi.json", tag = "meta", responses((status = 200, description = "The OpenAPI 3.1 document")))]
pub async fn document() -> HttpResponse {
    HttpResponse::Ok().json(ApiDoc::openapi())
}
