//! The actix-web adapter of rics: routes, extractors, the error envelope, request ids
//! and the OpenAPI document. Handlers translate HTTP to calls of the domain services
//! and back; they hold no business rules.

pub mod error;
pub mod extract;
pub mod guard;
pub mod hosted_html;
pub mod json;
pub mod metrics;
pub mod openapi;
pub mod request_id;
pub mod routes;
pub mod state;
pub mod upload;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::http::{Method, Uri, header};
use actix_web::middleware::{Condition, Next, from_fn};
use actix_web::web::Data;
use actix_web::{App, HttpRequest, HttpResponse};
use rics_domain::error::{Code, Error};
use tracing_actix_web::{RootSpanBuilder, TracingLogger};

pub use error::ApiError;
pub use state::{ApiState, Discovery, Readiness, UseCases};

/// The answer to a request no route matches. On a path of the route table it is the
/// method that is wrong: OPTIONS answers 204 and any other method 405
/// `METHOD_NOT_ALLOWED`, both with `Allow` (RFC 9110). Other paths, unknown `:verbs`
/// included, are 404 `ROUTE_NOT_FOUND`. No route's gate runs here, so neither
/// answer needs a token.
async fn unrouted(req: HttpRequest) -> HttpResponse {
    let method = req.method().as_str();
    let path = req.path();
    let Some(allowed) = routes::allowed_methods(req.match_info().as_str()) else {
        return HttpResponse::from_error(ApiError(
            Error::new(
                Code::NotFound,
                "ROUTE_NOT_FOUND",
                format!("No method {method} {path} exists."),
            )
            .with_metadata("method", method)
            .with_metadata("path", path),
        ));
    };
    let allowed = allowed.join(", ");
    let mut response = if req.method() == Method::OPTIONS {
        HttpResponse::NoContent().finish()
    } else {
        HttpResponse::from_error(ApiError(
            Error::new(
                Code::Unimplemented,
                error::METHOD_NOT_ALLOWED,
                format!("The method {method} is not allowed on {path}; it allows {allowed}."),
            )
            .with_metadata("method", method)
            .with_metadata("path", path)
            .with_metadata("allowedMethods", allowed.as_str()),
        ))
    };
    if let Ok(value) = header::HeaderValue::from_str(&allowed) {
        response.headers_mut().insert(header::ALLOW, value);
    }
    response
}

/// Decodes a percent-encoded `:` in the path (`entities/abc%3Aundelete`) before routing,
/// so that custom methods are found in either spelling.
async fn decode_colons(
    mut req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let path = req.path();
    if path.contains("%3A") || path.contains("%3a") {
        let decoded = path.replace("%3A", ":").replace("%3a", ":");
        let rebuilt = match req.query_string() {
            "" => decoded,
            query => format!("{decoded}?{query}"),
        };
        if let Ok(uri) = rebuilt.parse::<Uri>() {
            req.match_info_mut().get_mut().update(&uri);
            req.head_mut().uri = uri;
        }
    }
    next.call(req).await
}

/// The log span of each request, and the one line logged when it fails.
///
/// The span carries the method, the route template and our request id (the one echoed
/// in `X-Request-Id`), in place of tracing-actix-web's own, so each request has one id
/// everywhere. It holds no request value: no path (ids are chosen by clients), no query
/// string (filters hold names; a misplaced token or secret would be written out).
///
/// A refused request (4xx) is one INFO line with the status and the `ErrorInfo` reason,
/// never the message, which may quote the input. A failed one (5xx) is one ERROR line
/// with the internal detail that its response leaves out.
struct RequestSpan;

impl RootSpanBuilder for RequestSpan {
    fn on_request_start(request: &ServiceRequest) -> tracing::Span {
        let route = routes::label_of(request);
        tracing::info_span!(
            "HTTP request",
            http.method = %request.method(),
            http.route = %route,
            request_id = %request::id_of(request),
        )
    }

    fn on_request_end<B: MessageBody>(
        span: tracing::Span,
        outcome: &Result<ServiceResponse<B>, actix_web::Error>,
    ) {
        span.in_scope(|| log_outcome(outcome));
    }
}

/// Logs a request's outcome when it is an error, as [`RequestSpan`] describes.
fn log_outcome<B>(outcome: &Result<ServiceResponse<B>, actix_web::Error>) {
    let (status, error) = match outcome {
        Ok(response) => (response.status(), response.response().error()),
        Err(error) => (error.as_response_error().status_code(), Some(error)),
    };
    let api_error = error.and_then(|e| e.as_error::<ApiError>());
    let reason = api_error.map(|e| e.0.reason);
    if status.is_server_error() {
        let detail = match (api_error, error) {
            (Some(api_error), _) => Some(api_error.0.message.clone()),
            (None, error) => error.map(|error| format!("{error:?}")),
        };
        tracing::error!(
            http.status_code = status.as_u16(),
            reason,
            detail,
            "request failed"
        );
    } else if status.is_client_error() {
        tracing::info!(
            http.status_code = status.as_u16(),
            reason,
            "request refused"
        );
    }
}

mod request {
    use actix_web::HttpMessage;
    use actix_web::dev::ServiceRequest;

    use crate::request_id::RequestId;

    pub(super) fn id_of(request: &ServiceRequest) -> String {
        request
            .extensions()
            .get::<RequestId>()
            .map_or_else(String::new, |id| id.0.clone())
    }
}

/// The whole API as an actix application; with `ApiState::record_metrics`, each request
/// is counted and timed ([`metrics::record`]).
pub fn app(
    state: Data<ApiState>,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    let record_metrics = state.record_metrics;
    App::new()
        .app_data(state)
        .configure(routes::configure)
        .default_service(actix_web::web::to(unrouted))
        .wrap(Condition::new(record_metrics, from_fn(metrics::record)))
        .wrap(TracingLogger::<RequestSpan>::new())
        .wrap(from_fn(request_id::middleware))
        .wrap(from_fn(decode_colons))
}
