//! The webhook endpoint routes, with their deliveries: all `rics.admin`, since an
//! endpoint decides where the tenant's data is sent, and a delivery's attempts show
//! what its receiver answered.

use actix_web::web::{Data, Path};
use rics_domain::principal::Scope;
use rics_domain::webhook::WebhookEndpoint;
use rics_domain::webhook::delivery::WebhookDelivery;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{EtagRequest, PageParams, Response, body_etag, ok};
use crate::error::ErrorEnvelope;
use crate::extract::{Caller, JsonBody, NoQuery};
use crate::state::ApiState;

resource_routes! {
    service: webhook_endpoints, resource: WebhookEndpoint, tag: "webhookEndpoints",
    id: ("webhookEndpoint" = String, Path, description = "Webhook endpoint id");

    /// Lists webhook endpoints (never with their secrets).
    list "/v1alpha/webhookEndpoints", Some(Scope::Admin), lists rics_domain::webhook::fields::LIST => ListWebhookEndpointsResponse, params(PageParams,
        ("filter" = Option<String>, Query, description = "AIP-160 over url, state, createTime, updateTime, deleteTime"),
        ("orderBy" = Option<String>, Query, description = "url, createTime, updateTime, each optionally ` desc`; default createTime"),
        ("showDeleted" = Option<bool>, Query, description = "Include soft-deleted endpoints"));
    /// Creates a webhook endpoint; the answer shows its signing secret, once.
    create "/v1alpha/webhookEndpoints", Some(Scope::Admin), params(
        ("webhookEndpointId" = Option<String>, Query, description = "The id to give the endpoint: 4 to 63 of `[a-z0-9-]`, starting with a letter; generated when absent"),
        ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent"));
    /// Gets a webhook endpoint, deleted or not, without its secret.
    get "/v1alpha/webhookEndpoints/{webhookEndpoint}", Some(Scope::Admin);
    /// Updates a webhook endpoint; `state` ENABLED re-enables a disabled one.
    update "/v1alpha/webhookEndpoints/{webhookEndpoint}", Some(Scope::Admin), params(
        ("updateMask" = Option<String>, Query, description = "Comma-separated field paths; `*` replaces the endpoint; absent = the populated fields of the body"));
    /// Soft-deletes a webhook endpoint: nothing is delivered to it until it is restored.
    delete "/v1alpha/webhookEndpoints/{webhookEndpoint}", Some(Scope::Admin), params(
        ("etag" = Option<String>, Query, description = "When given, must be the current etag"),
        ("allowMissing" = Option<bool>, Query, description = "Succeed when the endpoint is missing or already deleted"));
    /// Restores a soft-deleted webhook endpoint.
    undelete "/v1alpha/webhookEndpoints/{webhookEndpoint}:undelete", Some(Scope::Admin);
    POST "/v1alpha/webhookEndpoints/{webhookEndpoint}:rotateSecret" => rotate_secret, Some(Scope::Admin);
    /// Lists an endpoint's deliveries, newest first, each with its attempts.
    list_by list_deliveries "/v1alpha/webhookEndpoints/{webhookEndpoint}/deliveries", Some(Scope::Admin),
        lists rics_domain::webhook::delivery_service::LIST => ListWebhookDeliveriesResponse,
        params(("webhookEndpoint" = String, Path, description = "Webhook endpoint id"),
            ("pageSize" = Option<i32>, Query, description = "Default 50, at most 1000 (larger values are coerced)"),
            ("pageToken" = Option<String>, Query, description = "Token from a previous response; every other parameter must be unchanged"),
            ("skip" = Option<i32>, Query, description = "Items to skip before the page"),
            ("filter" = Option<String>, Query, description = "AIP-160 over state, eventType, createTime"),
            ("orderBy" = Option<String>, Query, description = "createTime, optionally ` desc`; default createTime desc (newest first)")),
        |caller, state, request, endpoint| state.webhook_deliveries.list(caller, &endpoint, request);
    /// Gets a delivery of an endpoint, with its attempts.
    get_by get_delivery "/v1alpha/webhookEndpoints/{webhookEndpoint}/deliveries/{delivery}", Some(Scope::Admin),
        params(("webhookEndpoint" = String, Path, description = "Webhook endpoint id"),
            ("delivery" = String, Path, description = "Delivery id: the id of the event delivered"),
            ("name" = Option<String>, Query, description = "Redundant resource name; must match the path")),
        names [&format!("webhookEndpoints/{endpoint}/deliveries/{delivery}")] => WebhookDelivery,
        |caller, state, endpoint, delivery| state.webhook_deliveries.get(caller, &endpoint, &delivery);
    POST "/v1alpha/webhookEndpoints/{webhookEndpoint}/deliveries/{delivery}:redeliver" => redeliver, Some(Scope::Admin);
}

list_response! {
    /// A page of webhook endpoints.
    ListWebhookEndpointsResponse {
        /// The webhook endpoints.
        webhook_endpoints: WebhookEndpoint,
        /// How many endpoints match the filter.
        total_size,
    }
}

list_response! {
    /// A page of an endpoint's deliveries.
    ListWebhookDeliveriesResponse {
        /// The deliveries, newest first unless `orderBy` says otherwise.
        deliveries: WebhookDelivery,
        /// How many deliveries match the filter.
        total_size,
    }
}

/// The body of `:redeliver`: empty.
#[derive(Debug, Default, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RedeliverRequest {}

/// Queues a new attempt of a delivery now, its retry schedule anew, and returns the
/// delivery; it still waits for earlier pending deliveries of its entity, and for its
/// endpoint to be enabled.
#[utoipa::path(post, path = "/v1alpha/webhookEndpoints/{webhookEndpoint}/deliveries/{delivery}:redeliver", tag = "webhookEndpoints",
    params(("webhookEndpoint" = String, Path, description = "Webhook endpoint id"),
        ("delivery" = String, Path, description = "Delivery id: the id of the event delivered")),
    request_body = RedeliverRequest,
    responses((status = 200, body = WebhookDelivery), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn redeliver(
    caller: Caller,
    _query: NoQuery,
    path: Path<(String, String)>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let _: RedeliverRequest = rics_domain::resource::parse_body(body.0, "redeliver")?;
    let (endpoint, delivery) = path.into_inner();
    ok(&state
        .webhook_deliveries
        .redeliver(&caller.0, &endpoint, &delivery)
        .await?)
}

/// Gives a webhook endpoint a new signing secret, shown in the answer; the old one
/// goes on signing for 24 hours beside it.
#[utoipa::path(post, path = "/v1alpha/webhookEndpoints/{webhookEndpoint}:rotateSecret", tag = "webhookEndpoints",
    params(("webhookEndpoint" = String, Path, description = "Webhook endpoint id")), request_body = EtagRequest,
    responses((status = 200, body = WebhookEndpoint), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn rotate_secret(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let etag = body_etag(body, "rotateSecret")?;
    ok(&state
        .webhook_endpoints
        .rotate_secret(&caller.0, &path, etag.as_deref())
        .await?)
}
