//! The error envelope (AIP-193) and the one place where canonical codes become HTTP
//! statuses.
//!
//! Every failure, including malformed JSON, unknown routes and oversized bodies, is
//! answered with `{"error": {code, message, status, details}}`. Server faults (5xx)
//! carry a generic message and the request id; their details go to the log only.

use std::collections::BTreeMap;

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use rics_domain::error::{Code, Error};
use serde::Serialize;
use utoipa::ToSchema;

use crate::request_id;

/// The `ErrorInfo.domain` of every error of this service.
pub const ERROR_DOMAIN: &str = "rics";

/// The `ErrorInfo.reason` of a request for a method its path does not have.
pub const METHOD_NOT_ALLOWED: &str = "METHOD_NOT_ALLOWED";

/// The HTTP status of an error: its canonical code's, as `google/rpc/code.proto` maps
/// them, with one exception. A method the path does not have is UNIMPLEMENTED (the
/// method is not supported there, as grpc-gateway reports it too) but answers HTTP 405,
/// which RFC 9110 requires and no canonical code maps to.
pub fn http_status(error: &Error) -> StatusCode {
    let status = match error.code {
        Code::Unimplemented if error.reason == METHOD_NOT_ALLOWED => 405,
        Code::Cancelled => 499,
        Code::Unknown | Code::Internal | Code::DataLoss => 500,
        Code::InvalidArgument | Code::FailedPrecondition | Code::OutOfRange => 400,
        Code::DeadlineExceeded => 504,
        Code::NotFound => 404,
        Code::AlreadyExists | Code::Aborted => 409,
        Code::PermissionDenied => 403,
        Code::ResourceExhausted => 429,
        Code::Unimplemented => 501,
        Code::Unavailable => 503,
        Code::Unauthenticated => 401,
    };
    StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// The HTTP error body.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ErrorEnvelope {
    /// The status.
    pub error: ErrorStatus,
}

/// A `google.rpc.Status` in its HTTP form.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ErrorStatus {
    /// The HTTP status code.
    pub code: u16,
    /// Developer-facing English message.
    pub message: String,
    /// The canonical code name, such as `INVALID_ARGUMENT`.
    pub status: String,
    /// `ErrorInfo`, then `BadRequest` (for input errors), then `RequestInfo`.
    pub details: Vec<ErrorDetail>,
}

/// One typed detail of an error.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(tag = "@type")]
pub enum ErrorDetail {
    /// Why the error happened, machine-readably.
    #[serde(rename = "type.googleapis.com/google.rpc.ErrorInfo")]
    ErrorInfo {
        /// UPPER_SNAKE reason.
        reason: String,
        /// Always `rics`.
        domain: String,
        /// Every dynamic value of the message.
        metadata: BTreeMap<String, String>,
    },
    /// Which request fields are invalid.
    #[serde(rename = "type.googleapis.com/google.rpc.BadRequest")]
    BadRequest {
        /// The violations.
        #[serde(rename = "fieldViolations")]
        field_violations: Vec<FieldViolationBody>,
    },
    /// The request id, to quote when asking for help.
    #[serde(rename = "type.googleapis.com/google.rpc.RequestInfo")]
    RequestInfo {
        /// The request id (`X-Request-Id`).
        #[serde(rename = "requestId")]
        request_id: String,
    },
}

/// One field violation.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FieldViolationBody {
    /// Path of the field in the request.
    pub field: String,
    /// What is wrong.
    pub description: String,
    /// UPPER_SNAKE reason.
    pub reason: String,
}

/// A domain error on its way to becoming a response.
#[derive(Debug)]
pub struct ApiError(pub Error);

impl From<Error> for ApiError {
    fn from(error: Error) -> ApiError {
        ApiError(error)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl ApiError {
    /// The envelope sent for this error, with `request_id` in its `RequestInfo`.
    pub fn envelope(&self, request_id: &str) -> ErrorEnvelope {
        let error = &self.0;
        let status = http_status(error);
        let (message, metadata) = if error.code.is_server_fault() {
            let message = match error.code {
                Code::Unavailable => format!(
                    "The service is temporarily unavailable; retry with backoff (request id {request_id})."
                ),
                _ => format!("The service failed to handle the request (request id {request_id})."),
            };
            (
                message,
                BTreeMap::from([("requestId".to_owned(), request_id.to_owned())]),
            )
        } else {
            (error.message.clone(), error.complete_metadata())
        };
        let reason = if error.code.is_server_fault() && error.code != Code::Unavailable {
            "INTERNAL".to_owned()
        } else {
            error.reason.to_owned()
        };
        let mut details = vec![ErrorDetail::ErrorInfo {
            reason,
            domain: ERROR_DOMAIN.to_owned(),
            metadata,
        }];
        if !error.field_violations.is_empty() && !error.code.is_server_fault() {
            details.push(ErrorDetail::BadRequest {
                field_violations: error
                    .field_violations
                    .iter()
                    .map(|v| FieldViolationBody {
                        field: v.field.clone(),
                        description: v.description.clone(),
                        reason: v.reason.to_owned(),
                    })
                    .collect(),
            });
        }
        details.push(ErrorDetail::RequestInfo {
            request_id: request_id.to_owned(),
        });
        ErrorEnvelope {
            error: ErrorStatus {
                code: status.as_u16(),
                message,
                status: error.code.name().to_owned(),
                details,
            },
        }
    }
}

/// The `WWW-Authenticate` challenge of a 401 (RFC 6750 section 3): `Bearer` alone when
/// the request carried no bearer token, with `error="invalid_token"` when it carried
/// one that was refused (malformed, expired, badly signed, of an unknown tenant, ...).
fn bearer_challenge(reason: &str) -> HeaderValue {
    if rics_domain::principal::reasons::no_bearer_token(reason) {
        HeaderValue::from_static("Bearer")
    } else {
        HeaderValue::from_static("Bearer error=\"invalid_token\"")
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        http_status(&self.0)
    }

    fn error_response(&self) -> HttpResponse {
        let request_id = request_id::current();
        let mut response = HttpResponse::build(self.status_code());
        if self.0.code == Code::Unauthenticated {
            response.insert_header((header::WWW_AUTHENTICATE, bearer_challenge(self.0.reason)));
        }
        response.json(self.envelope(&request_id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn code_to_http_follows_code_proto() {
        let table: Vec<(Code, u16)> = Code::ALL
            .iter()
            .map(|c| (*c, http_status(&Error::new(*c, "ANY_REASON", "m")).as_u16()))
            .collect();
        assert_eq!(
            table,
            vec![
                (Code::Cancelled, 499),
                (Code::Unknown, 500),
                (Code::InvalidArgument, 400),
                (Code::DeadlineExceeded, 504),
                (Code::NotFound, 404),
                (Code::AlreadyExists, 409),
                (Code::PermissionDenied, 403),
                (Code::ResourceExhausted, 429),
                (Code::FailedPrecondition, 400),
                (Code::Aborted, 409),
                (Code::OutOfRange, 400),
                (Code::Unimplemented, 501),
                (Code::Internal, 500),
                (Code::Unavailable, 503),
                (Code::DataLoss, 500),
                (Code::Unauthenticated, 401),
            ]
        );
    }

    #[test]
    fn a_method_the_path_lacks_is_405() {
        let error = Error::new(Code::Unimplemented, METHOD_NOT_ALLOWED, "m");
        assert_eq!(http_status(&error).as_u16(), 405);
        let body = serde_json::to_value(ApiError(error).envelope("r3")).unwrap();
        assert_eq!(body["error"]["code"], 405);
        assert_eq!(body["error"]["status"], "UNIMPLEMENTED");
        assert_eq!(
            http_status(&Error::new(Code::NotFound, METHOD_NOT_ALLOWED, "m")).as_u16(),
            404,
            "only UNIMPLEMENTED becomes 405"
        );
    }

    #[test]
    fn a_refused_token_is_challenged_with_invalid_token() {
        let challenge = |reason: &'static str| {
            let response =
                ApiError(Error::new(Code::Unauthenticated, reason, "refused")).error_response();
            response.headers().get(header::WWW_AUTHENTICATE).cloned()
        };
        for reason in ["MISSING_TOKEN", "UNSUPPORTED_AUTHORIZATION_SCHEME"] {
            assert_eq!(challenge(reason).unwrap(), "Bearer", "{reason}");
        }
        for reason in ["UNKNOWN_TENANT", "TOKEN_EXPIRED", "BAD_SIGNATURE"] {
            assert_eq!(
                challenge(reason).unwrap(),
                "Bearer error=\"invalid_token\"",
                "{reason}"
            );
        }
        let forbidden = ApiError(Error::new(
            Code::PermissionDenied,
            "INSUFFICIENT_SCOPE",
            "no",
        ));
        assert!(
            forbidden
                .error_response()
                .headers()
                .get(header::WWW_AUTHENTICATE)
                .is_none()
        );
    }

    #[test]
    fn input_errors_carry_error_info_and_bad_request() {
        let error = ApiError(Error::invalid_field(
            "pageSize",
            "INVALID_PAGE_SIZE",
            "must not be negative",
        ));
        let body = serde_json::to_value(error.envelope("r1")).unwrap();
        assert_eq!(body["error"]["code"], 400);
        assert_eq!(body["error"]["status"], "INVALID_ARGUMENT");
        assert_eq!(
            body["error"]["details"][0],
            json!({"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "INVALID_PAGE_SIZE",
                   "domain": "rics", "metadata": {"field": "pageSize"}})
        );
        assert_eq!(
            body["error"]["details"][1]["fieldViolations"][0]["field"],
            "pageSize"
        );
        assert_eq!(body["error"]["details"][2]["requestId"], "r1");
    }

    #[test]
    fn server_faults_hide_internal_text() {
        let error = ApiError(Error::internal(
            "connection to 10.0.0.5 refused: password wrong",
        ));
        let body = serde_json::to_string(&error.envelope("r2")).unwrap();
        assert!(!body.contains("10.0.0.5"));
        assert!(!body.contains("password"));
        assert!(body.contains("r2"));
        assert!(body.contains("\"status\":\"INTERNAL\""));
    }
}
