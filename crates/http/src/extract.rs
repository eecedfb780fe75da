//! Reading requests: the JSON body, the query string and the caller, each failing
//! with the error envelope rather than actix's plain-text errors.

use std::future::Future;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::web::{Bytes, BytesMut, Data};
use actix_web::{FromRequest, HttpRequest};
use futures_util::StreamExt;
use rics_domain::error::{Code, Error};
use rics_domain::list::ListRequest;
use rics_domain::principal::Principal;
use serde_json::Value;

use crate::error::ApiError;
use crate::state::ApiState;

/// A JSON request body. An empty body reads as `{}` (custom methods such as
/// `:undelete` take an empty object). The content type must be `application/json`
/// when there is a body; bodies over the configured limit are refused without being
/// read further.
#[derive(Debug)]
pub struct JsonBody(pub Value);

fn body_error(reason: &'static str, message: String) -> ApiError {
    ApiError(Error::new(Code::InvalidArgument, reason, message))
}

impl FromRequest for JsonBody {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<JsonBody, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let limit = req
            .app_data::<Data<ApiState>>()
            .map_or(1024 * 1024, |s| s.body_limit);
        let content_type = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| {
                v.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            });
        let declared_length = req
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok());
        let mut payload = payload.take();
        Box::pin(async move {
            let too_large = || {
                body_error(
                    "REQUEST_BODY_TOO_LARGE",
                    format!("The request body is larger than the limit of {limit} bytes."),
                )
                .with_metadata("limit", limit.to_string())
            };
            if declared_length.is_some_and(|n| n > limit) {
                return Err(too_large());
            }
            let mut body = BytesMut::new();
            while let Some(chunk) = payload.next().await {
                let chunk: Bytes = chunk.map_err(|e| {
                    body_error(
                        "UNREADABLE_BODY",
                        format!("The request body could not be read: {e}"),
                    )
                })?;
                if body.len() + chunk.len() > limit {
                    return Err(too_large());
                }
                body.extend_from_slice(&chunk);
            }
            if body.iter().all(u8::is_ascii_whitespace) {
                return Ok(JsonBody(Value::Object(serde_json::Map::new())));
            }
            match content_type.as_deref() {
                Some("application/json") => {}
                other => {
                    return Err(body_error(
                        "UNSUPPORTED_CONTENT_TYPE",
                        format!(
                            "The request body must be application/json, not '{}'.",
                            other.unwrap_or("none")
                        ),
                    )
                    .with_metadata("contentType", other.unwrap_or("").to_owned()));
                }
            }
            serde_json::from_slice(&body).map(JsonBody).map_err(|e| {
                body_error(
                    "MALFORMED_JSON",
                    format!("The request body is not valid JSON: {e}."),
                )
                .with_metadata("line", e.line().to_string())
                .with_metadata("column", e.column().to_string())
            })
        })
    }
}

impl ApiError {
    fn with_metadata(self, key: &str, value: String) -> ApiError {
        ApiError(self.0.with_metadata(key, value))
    }
}

/// The query string as name/value pairs, consumed parameter by parameter; whatever is
/// left at the end is an unknown parameter and refused. Names are lowerCamelCase; the
/// snake_case spelling is accepted too.
#[derive(Debug)]
pub struct QueryParams {
    pairs: Vec<(String, String)>,
}

fn snake_to_camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

impl QueryParams {
    /// Parses a raw query string.
    ///
    /// # Errors
    /// INVALID_ARGUMENT when it is not valid `application/x-www-form-urlencoded`.
    pub fn parse(raw: &str) -> Result<QueryParams, ApiError> {
        let pairs: Vec<(String, String)> = serde_urlencoded::from_str(raw).map_err(|e| {
            body_error(
                "MALFORMED_QUERY",
                format!("The query string is malformed: {e}."),
            )
        })?;
        Ok(QueryParams {
            pairs: pairs
                .into_iter()
                .map(|(name, value)| (snake_to_camel(&name), value))
                .collect(),
        })
    }

    /// Every value of `name`, removing them.
    pub fn take_all(&mut self, name: &str) -> Vec<String> {
        let mut values = Vec::new();
        self.pairs.retain(|(n, v)| {
            if n == name {
                values.push(v.clone());
                false
            } else {
                true
            }
        });
        values
    }

    /// The value of `name`, if given once.
    ///
    /// # Errors
    /// INVALID_ARGUMENT when it is given more than once.
    pub fn take(&mut self, name: &str) -> Result<Option<String>, ApiError> {
        let mut values = self.take_all(name);
        match values.len() {
            0 => Ok(None),
            1 => Ok(values.pop()),
            _ => Err(ApiError(Error::invalid_field(
                name,
                "REPEATED_PARAMETER",
                "must be given at most once",
            ))),
        }
    }

    /// The value of `name` as an int32.
    ///
    /// # Errors
    /// INVALID_ARGUMENT when it is not an int32 or given twice.
    pub fn take_i32(&mut self, name: &str) -> Result<Option<i32>, ApiError> {
        self.take(name)?
            .map(|v| {
                v.trim().parse::<i32>().map_err(|_| {
                    ApiError(Error::invalid_field(
                        name,
                        "INVALID_INTEGER",
                        format!("'{v}' is not a 32-bit integer"),
                    ))
                })
            })
            .transpose()
    }

    /// The value of `name` as a boolean (`true` or `false`; missing = false).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for any other value.
    pub fn take_bool(&mut self, name: &str) -> Result<bool, ApiError> {
        match self.take(name)?.as_deref() {
            None | Some("false") => Ok(false),
            Some("true") => Ok(true),
            Some(other) => Err(ApiError(Error::invalid_field(
                name,
                "INVALID_BOOLEAN",
                format!("'{other}' is not true or false"),
            ))),
        }
    }

    /// The standard list parameters; `showDeleted` only when `soft_delete`.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed value.
    pub fn take_list(&mut self, soft_delete: bool) -> Result<ListRequest, ApiError> {
        Ok(ListRequest {
            page_size: self.take_i32("pageSize")?,
            page_token: self.take("pageToken")?,
            skip: self.take_i32("skip")?,
            filter: self.take("filter")?,
            order_by: self.take("orderBy")?,
            show_deleted: if soft_delete {
                self.take_bool("showDeleted")?
            } else {
                false
            },
        })
    }

    /// Refuses any parameter not taken.
    ///
    /// # Errors
    /// INVALID_ARGUMENT naming the first unknown parameter.
    pub fn finish(self) -> Result<(), ApiError> {
        match self.pairs.first() {
            None => Ok(()),
            Some((name, _)) => Err(ApiError(
                Error::invalid_field(
                    name.clone(),
                    "UNKNOWN_PARAMETER",
                    "is not a parameter of this method",
                )
                .with_metadata("parameter", name.clone()),
            )),
        }
    }
}

/// For custom methods whose whole request is the body (`body: "*"`, R-127.5): any
/// query parameter is refused as unknown.
#[derive(Debug, Clone, Copy)]
pub struct NoQuery;

impl FromRequest for NoQuery {
    type Error = ApiError;
    type Future = std::future::Ready<Result<NoQuery, ApiError>>;

    fn from_request(req: &HttpRequest, _payload: &mut Payload) -> Self::Future {
        std::future::ready(
            QueryParams::parse(req.query_string())
                .and_then(QueryParams::finish)
                .map(|()| NoQuery),
        )
    }
}

/// The authenticated caller, admitted by the route's gate (see [`crate::guard`]).
#[derive(Debug, Clone)]
pub struct Caller(pub Principal);

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Caller, ApiError>>;

    fn from_request(req: &HttpRequest, _payload: &mut Payload) -> Self::Future {
        use actix_web::HttpMessage;
        let admitted = req.extensions().get::<crate::guard::Admitted>().cloned();
        std::future::ready(match admitted {
            Some(admitted) => Ok(Caller((*admitted.0).clone())),
            // A handler asked for a caller on a route without a gate: a bug.
            None => Err(ApiError(Error::internal(
                "route without an authentication gate",
            ))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_params_are_typed_and_strict() {
        let mut q = QueryParams::parse("page_size=5&names=a&names=b&showDeleted=true").unwrap();
        assert_eq!(q.take_i32("pageSize").unwrap(), Some(5));
        assert_eq!(q.take_all("names"), vec!["a".to_string(), "b".to_string()]);
        assert!(q.take_bool("showDeleted").unwrap());
        assert!(q.finish().is_ok());
        let mut bad = QueryParams::parse("pageSize=abc").unwrap();
        assert!(bad.take_i32("pageSize").is_err());
        let unknown = QueryParams::parse("pagesize=1").unwrap();
        assert_eq!(
            unknown.finish().unwrap_err().0.field_violations[0].field,
            "pagesize"
        );
    }

    #[test]
    fn percent_encoding_is_decoded() {
        let mut q = QueryParams::parse("filter=tags%3Ared%20AND%20a").unwrap();
        assert_eq!(q.take("filter").unwrap().as_deref(), Some("tags:red AND a"));
    }
}
