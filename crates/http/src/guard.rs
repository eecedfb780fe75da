//! The gate in front of every API route: authenticate the bearer token, check the
//! route's scope, and apply the caller's rate limit. It is attached to each route of
//! the route table that names a scope, so no handler can forget it.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use actix_web::HttpMessage;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::web::Data;
use governor::clock::{Clock as _, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::{Quota, RateLimiter};
use rics_domain::error::{Code, Error};
use rics_domain::principal::{Principal, Scope};

use crate::error::ApiError;
use crate::state::ApiState;

/// Requests per minute each caller (token subject) may make, with bursts up to the
/// same number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Requests per minute.
    pub per_minute: NonZeroU32,
}

/// A keyed token-bucket limiter (governor) reporting the remaining capacity.
pub struct Limiter {
    limit: NonZeroU32,
    buckets: RateLimiter<
        String,
        governor::state::keyed::DefaultKeyedStateStore<String>,
        DefaultClock,
        StateInformationMiddleware,
    >,
}

impl std::fmt::Debug for Limiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limiter")
            .field("limit", &self.limit)
            .finish()
    }
}

/// What one request found in its caller's bucket, for the `RateLimit-*` headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Allowance {
    limit: u32,
    remaining: u32,
    reset_seconds: u64,
}

impl Limiter {
    /// A limiter allowing `limit` requests per minute per key.
    pub fn new(limit: RateLimit) -> Limiter {
        let quota = Quota::per_minute(limit.per_minute).allow_burst(limit.per_minute);
        Limiter {
            limit: limit.per_minute,
            buckets: RateLimiter::keyed(quota).with_middleware::<StateInformationMiddleware>(),
        }
    }

    /// Takes one request from `key`'s bucket.
    fn take(&self, key: &str) -> Result<Allowance, u64> {
        let limit = self.limit.get();
        let period = Duration::from_secs(60) / limit;
        match self.buckets.check_key(&key.to_owned()) {
            Ok(state) => {
                let remaining = state.remaining_burst_capacity();
                let missing = limit.saturating_sub(remaining);
                Ok(Allowance {
                    limit,
                    remaining,
                    reset_seconds: (period * missing).as_secs_f64().ceil() as u64,
                })
            }
            Err(not_until) => {
                let wait = not_until.wait_time_from(DefaultClock::default().now());
                Err(wait.as_secs_f64().ceil().max(1.0) as u64)
            }
        }
    }

    /// Forgets idle buckets (call now and then).
    pub fn shrink(&self) {
        self.buckets.retain_recent();
        self.buckets.shrink_to_fit();
    }
}

/// A principal admitted by the gate, for the `Caller` extractor.
#[derive(Debug, Clone)]
pub struct Admitted(pub Arc<Principal>);

static LIMIT: HeaderName = HeaderName::from_static("ratelimit-limit");
static REMAINING: HeaderName = HeaderName::from_static("ratelimit-remaining");
static RESET: HeaderName = HeaderName::from_static("ratelimit-reset");

fn number(n: u64) -> HeaderValue {
    HeaderValue::from_str(&n.to_string()).unwrap_or_else(|_| HeaderValue::from_static("0"))
}

/// Admits the request if its token is valid, carries `scope` and has rate left.
///
/// # Errors
/// Errors of the wrapped service pass through; refusals become responses.
pub async fn admit(
    scope: Scope,
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let state = req.app_data::<Data<ApiState>>().cloned();
    let authorization = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let refused = |req: ServiceRequest, error: ApiError, retry: Option<u64>| {
        // Built from the error, which stays attached for the request's log line.
        let mut response = req.error_response(error);
        if let Some(seconds) = retry {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, number(seconds));
        }
        Ok(response.map_into_right_body())
    };
    let Some(state) = state else {
        return refused(req, ApiError(Error::internal("API state missing")), None);
    };
    let principal = match state
        .authenticator
        .authenticate(authorization.as_deref())
        .await
    {
        Ok(principal) => principal,
        Err(error) => return refused(req, ApiError(error), None),
    };
    if !principal.has_scope(scope) {
        let error = Error::new(
            Code::PermissionDenied,
            "INSUFFICIENT_SCOPE",
            format!("This method needs the scope '{}'.", scope.as_str()),
        )
        .with_metadata("requiredScope", scope.as_str());
        return refused(req, ApiError(error), None);
    }
    let allowance = match state
        .limiter
        .take(&format!("{}/{}", principal.tenant, principal.subject))
    {
        Ok(allowance) => allowance,
        Err(retry) => {
            let error = Error::new(
                Code::ResourceExhausted,
                "RATE_LIMITED",
                format!("Too many requests: retry in '{retry}' seconds."),
            )
            .with_metadata("retryAfterSeconds", retry.to_string());
            return refused(req, ApiError(error), Some(retry));
        }
    };
    req.extensions_mut().insert(Admitted(Arc::new(principal)));
    let mut response = next.call(req).await?.map_into_left_body();
    let headers = response.headers_mut();
    headers.insert(LIMIT.clone(), number(u64::from(allowance.limit)));
    headers.insert(REMAINING.clone(), number(u64::from(allowance.remaining)));
    headers.insert(RESET.clone(), number(allowance.reset_seconds));
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_empties_and_tells_when_to_retry() {
        let limiter = Limiter::new(RateLimit {
            per_minute: NonZeroU32::new(2).unwrap(),
        });
        let first = limiter.take("a").unwrap();
        assert_eq!((first.limit, first.remaining), (2, 1));
        assert_eq!(limiter.take("a").unwrap().remaining, 0);
        let retry = limiter.take("a").unwrap_err();
        assert!((1..=30).contains(&retry), "{retry}");
        assert_eq!(
            limiter.take("b").unwrap().remaining,
            1,
            "buckets are per key"
        );
    }
}
