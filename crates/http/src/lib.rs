//! The actix-web adapter of rics: routes, extractors, the error envelope, request ids
//! and the OpenAPI document. Handlers translate HTTP to calls of the domain services
//! and back; they hold no business rules.

pub mod error;
pub mod extract;
pub mod guard;
pub mod json;
pub mod openapi;
pub mod request_id;
pub mod routes;
pub mod state;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::http::Uri;
use actix_web::middleware::{Next, from_fn};
use actix_web::web::Data;
use actix_web::{App, HttpRequest, HttpResponse};
use rics_domain::error::{Code, Error};
use tracing_actix_web::{DefaultRootSpanBuilder, RootSpanBuilder, TracingLogger};

pub use error::ApiError;
pub use state::{ApiState, Discovery, Readiness};

/// The answer to a request no route matches: NOT_FOUND in the error envelope
/// for unknown paths, unknown `:verbs` and methods a path does not have.
async fn route_not_found(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    Err(ApiError(
        Error::new(
            Code::NotFound,
            "ROUTE_NOT_FOUND",
            format!("No method {} {} exists.", req.method(), req.path()),
        )
        .with_metadata("method", req.method().as_str())
        .with_metadata("path", req.path()),
    ))
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

/// Log spans carrying our request id (the one echoed in `X-Request-Id`), in place of
/// tracing-actix-web's own, so each request has one id everywhere.
struct RequestSpan;

impl RootSpanBuilder for RequestSpan {
    fn on_request_start(request: &ServiceRequest) -> tracing::Span {
        let route = request
            .match_pattern()
            .unwrap_or_else(|| "unmatched".into());
        tracing::info_span!(
            "HTTP request",
            http.method = %request.method(),
            http.route = %route,
            http.target = %request.uri(),
            request_id = %request::id_of(request),
            http.status_code = tracing::field::Empty,
            otel.status_code = tracing::field::Empty,
            exception.message = tracing::field::Empty,
            exception.details = tracing::field::Empty,
        )
    }

    fn on_request_end<B: MessageBody>(
        span: tracing::Span,
        outcome: &Result<ServiceResponse<B>, actix_web::Error>,
    ) {
        DefaultRootSpanBuilder::on_request_end(span, outcome);
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

/// The whole API as an actix application.
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
    App::new()
        .app_data(state)
        .configure(routes::configure)
        .default_service(actix_web::web::to(route_not_found))
        .wrap(TracingLogger::<RequestSpan>::new())
        .wrap(from_fn(request_id::middleware))
        .wrap(from_fn(decode_colons))
}
