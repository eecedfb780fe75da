//! Request ids: taken from a well-formed `X-Request-Id` header or generated, echoed on
//! the response, attached to the request's log span, and quoted in error bodies.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{Error, HttpMessage};

/// The header carrying the request id.
pub static HEADER: HeaderName = HeaderName::from_static("x-request-id");

tokio::task_local! {
    static CURRENT: String;
}

/// The id of the request being handled, set by the middleware for its duration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestId(pub String);

/// The id of the request this task is handling, or `unknown` outside a request.
pub fn current() -> String {
    CURRENT
        .try_with(Clone::clone)
        .unwrap_or_else(|_| "unknown".into())
}

/// Whether a client-supplied id is safe to echo and log: 1 to 128 visible ASCII
/// characters without spaces.
fn acceptable(id: &str) -> bool {
    !id.is_empty() && id.len() <= 128 && id.bytes().all(|b| b.is_ascii_graphic())
}

/// The middleware: assigns the id, runs the request with it, echoes it.
///
/// # Errors
/// Whatever the wrapped service returns.
pub async fn middleware(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let id = req
        .headers()
        .get(&HEADER)
        .and_then(|v| v.to_str().ok())
        .filter(|v| acceptable(v))
        .map_or_else(|| uuid::Uuid::now_v7().to_string(), str::to_owned);
    req.extensions_mut().insert(RequestId(id.clone()));
    let mut response = CURRENT.scope(id.clone(), next.call(req)).await?;
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(HEADER.clone(), value);
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_safe_ids_are_kept() {
        assert!(acceptable("abc-123"));
        assert!(!acceptable(""));
        assert!(!acceptable("has space"));
        assert!(!acceptable(&"x".repeat(129)));
    }
}
