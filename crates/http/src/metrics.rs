//! Request metrics for Prometheus: how many requests each route answered with each
//! status, and how long they took. Labels carry the route template, never a path, so
//! their number is bounded by the route table (ids are chosen by clients).

use std::sync::Arc;
use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;

use crate::routes;

/// Requests answered, by `route`, `method` and `status`.
pub const REQUESTS: &str = "rics_http_requests_total";
/// Seconds from a request's arrival to its answer's head, by `route` and `method`.
pub const REQUEST_DURATION: &str = "rics_http_request_duration_seconds";

/// Records each request in [`REQUESTS`] and [`REQUEST_DURATION`]. A request refused by
/// a middleware (an error, not a response) counts with the error's status.
///
/// # Errors
/// None of its own: the inner service's error is passed on.
pub async fn record(
    request: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let route = routes::label_of(&request);
    let method = request.method().as_str().to_owned();
    let outcome = next.call(request).await;
    let status = match &outcome {
        Ok(response) => response.status(),
        Err(error) => error.as_response_error().status_code(),
    };
    metrics::counter!(REQUESTS, "route" => Arc::clone(&route), "method" => method.clone(),
        "status" => status.as_str().to_owned())
    .increment(1);
    metrics::histogram!(REQUEST_DURATION, "route" => route, "method" => method)
        .record(started.elapsed().as_secs_f64());
    outcome
}
