//! Reading requests: the JSON body, the query string and the caller, each failing
//! with the error envelope rather than actix's plain-text errors.

use std::future::Future;
use std::pin::Pin;

use actix_web::ResponseError;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::middleware::Next;
use actix_web::web::{Bytes, BytesMut, Data};
use actix_web::{FromRequest, HttpRequest, mime};
use futures_util::StreamExt;
use rics_domain::error::{Code, Error};
use rics_domain::list::ListRequest;
use rics_domain::principal::Principal;
use serde_json::Value;

use crate::error::ApiError;
use crate::json::BodyError;
use crate::state::ApiState;

/// A JSON request body. An empty body reads as `{}` (custom methods such as
/// `:undelete` take an empty object). The content type must be `application/json`
/// when there is a body, with no charset but `utf-8`; bodies over the configured limit
/// are refused without being read further. The JSON is read strictly
/// ([`crate::json`]): a key given twice is `DUPLICATE_JSON_KEY`, U+0000 in a string or
/// key is `CONTROL_CHARACTER`, each naming the path from the body's root.
#[derive(Debug)]
pub struct JsonBody(pub Value);

fn body_error(reason: &'static str, message: String) -> ApiError {
    ApiError(Error::new(Code::InvalidArgument, reason, message))
}

/// Refuses U+0000 in one piece of request text, naming `field` (the JSON path, the
/// query parameter, the path variable): PostgreSQL cannot store it, so it is refused
/// everywhere, on both backends, before any handler sees it. The JSON body reader, the
/// query string and the path variables call this; so will the multipart extractor (the
/// files issue) for each text part, naming the part.
///
/// # Errors
/// INVALID_ARGUMENT `CONTROL_CHARACTER` naming `field`.
pub fn refuse_nul(text: &str, field: impl FnOnce() -> String) -> Result<(), ApiError> {
    if text.contains('\0') {
        return Err(nul_error(field()));
    }
    Ok(())
}

fn nul_error(field: String) -> ApiError {
    ApiError(Error::invalid_field(
        field,
        "CONTROL_CHARACTER",
        "must not contain U+0000",
    ))
}

/// INVALID_ARGUMENT `INVALID_UTF8` naming the parameter or path variable whose
/// percent-decoded bytes are not UTF-8.
fn invalid_utf8(field: String) -> ApiError {
    ApiError(Error::invalid_field(
        field,
        "INVALID_UTF8",
        "is not UTF-8 once percent-decoded",
    ))
}

/// Percent-decodes one component of a URL strictly: bytes that are not UTF-8 are an
/// error, never replaced by U+FFFD.
fn percent_decode(raw: &str) -> Result<String, std::str::Utf8Error> {
    percent_encoding::percent_decode_str(raw)
        .decode_utf8()
        .map(std::borrow::Cow::into_owned)
}

/// The answer to a body that is not `application/json` in UTF-8.
fn unsupported_content_type(message: String, content_type: &str) -> ApiError {
    ApiError(
        Error::new(Code::InvalidArgument, "UNSUPPORTED_CONTENT_TYPE", message)
            .with_metadata("contentType", content_type),
    )
}

/// Checks the `Content-Type` of a body: `application/json`, in any case, with no
/// `charset` but `utf-8` (in any case, quoted or not).
fn check_content_type(header: Option<&str>) -> Result<(), ApiError> {
    let Some(header) = header else {
        return Err(unsupported_content_type(
            "The request body must be application/json, not 'none'.".to_owned(),
            "",
        ));
    };
    let parsed: Option<mime::Mime> = header.parse().ok();
    let essence = parsed.as_ref().map(mime::Mime::essence_str);
    if essence != Some("application/json") {
        let shown = essence.unwrap_or(header);
        return Err(unsupported_content_type(
            format!("The request body must be application/json, not '{shown}'."),
            shown,
        ));
    }
    let charset = parsed
        .as_ref()
        .and_then(|m| m.get_param(mime::CHARSET))
        .map(|c| c.as_str().trim_matches('"').to_owned());
    match charset {
        Some(charset) if !charset.eq_ignore_ascii_case("utf-8") => Err(ApiError(
            unsupported_content_type(
                format!("The request body must be UTF-8 JSON, not charset '{charset}'."),
                header,
            )
            .0
            .with_metadata("charset", charset),
        )),
        _ => Ok(()),
    }
}

impl FromRequest for JsonBody {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<JsonBody, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let limit = req
            .app_data::<Data<ApiState>>()
            .map_or(1024 * 1024, |s| s.body_limit);
        let head = BodyHead::of(req);
        let payload = payload.take();
        Box::pin(async move { read_json(head, payload, limit).await.map(JsonBody) })
    }
}

/// What [`read_json`] needs of a request's headers, taken before its body is read.
#[derive(Debug, Clone)]
pub struct BodyHead {
    /// The `Content-Type`, as text.
    pub content_type: Option<String>,
    /// The `Content-Length`, when given and a number.
    pub declared_length: Option<usize>,
}

impl BodyHead {
    /// The head of `req`.
    pub fn of(req: &HttpRequest) -> BodyHead {
        BodyHead {
            content_type: req
                .headers()
                .get(header::CONTENT_TYPE)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned()),
            declared_length: req
                .headers()
                .get(header::CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<usize>().ok()),
        }
    }
}

/// INVALID_ARGUMENT `REQUEST_BODY_TOO_LARGE` for a body over `limit` bytes.
pub fn body_too_large(limit: usize) -> ApiError {
    body_error(
        "REQUEST_BODY_TOO_LARGE",
        format!("The request body is larger than the limit of {limit} bytes."),
    )
    .with_metadata("limit", limit.to_string())
}

/// Reads a JSON request body as [`JsonBody`] describes, of at most `limit` bytes: a
/// body declared larger is refused unread, and one that grows larger is refused as
/// soon as it does.
///
/// # Errors
/// INVALID_ARGUMENT: `REQUEST_BODY_TOO_LARGE`, `UNREADABLE_BODY`,
/// `UNSUPPORTED_CONTENT_TYPE`, `MALFORMED_JSON`, `DUPLICATE_JSON_KEY`,
/// `CONTROL_CHARACTER`.
pub async fn read_json<S>(head: BodyHead, mut payload: S, limit: usize) -> Result<Value, ApiError>
where
    S: futures_util::Stream<Item = Result<Bytes, actix_web::error::PayloadError>> + Unpin,
{
    if head.declared_length.is_some_and(|n| n > limit) {
        return Err(body_too_large(limit));
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
            return Err(body_too_large(limit));
        }
        body.extend_from_slice(&chunk);
    }
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    check_content_type(head.content_type.as_deref())?;
    crate::json::read(&body).map_err(|e| match e {
        BodyError::Malformed(e) => body_error(
            "MALFORMED_JSON",
            format!("The request body is not valid JSON: {e}."),
        )
        .with_metadata("line", e.line().to_string())
        .with_metadata("column", e.column().to_string()),
        BodyError::DuplicateKey(path) => ApiError(Error::invalid_field(
            path,
            "DUPLICATE_JSON_KEY",
            "is given twice in its object; give each key once",
        )),
        BodyError::Nul(path) => nul_error(path),
    })
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
    /// Parses a raw query string (`application/x-www-form-urlencoded`: pairs split on
    /// `&`, `+` for a space, percent-encoding). Decoding is strict: a name or value
    /// that is not UTF-8 once decoded, or holds U+0000, is refused naming the
    /// parameter (lowerCamelCase, as the errors of its value name it).
    ///
    /// # Errors
    /// INVALID_ARGUMENT `INVALID_UTF8` or `CONTROL_CHARACTER`.
    pub fn parse(raw: &str) -> Result<QueryParams, ApiError> {
        let mut pairs = Vec::new();
        for pair in raw.split('&').filter(|pair| !pair.is_empty()) {
            let (raw_name, raw_value) = pair.split_once('=').unwrap_or((pair, ""));
            let raw_name = raw_name.replace('+', " ");
            let name = percent_decode(&raw_name).map_err(|_| {
                let lossy = percent_encoding::percent_decode_str(&raw_name).decode_utf8_lossy();
                invalid_utf8(crate::json::show_path(&lossy))
            })?;
            refuse_nul(&name, || crate::json::show_path(&name))?;
            let name = snake_to_camel(&name);
            let value = percent_decode(&raw_value.replace('+', " "))
                .map_err(|_| invalid_utf8(name.clone()))?;
            refuse_nul(&value, || name.clone())?;
            pairs.push((name, value));
        }
        Ok(QueryParams { pairs })
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

/// Refuses a path variable of a request routed to `template` (the route table's
/// `/v1alpha/entities/{entity}:undelete`) whose value in `raw_path` is not UTF-8 once
/// percent-decoded or holds U+0000, naming the variable as the OpenAPI document does
/// (`entity`). actix decodes paths lossily (a bad sequence becomes U+FFFD), so the raw
/// path is read against the template: a matched route has as many `/`-separated
/// segments, and a variable runs to the segment's end or to the `:` of a custom verb.
///
/// # Errors
/// INVALID_ARGUMENT `INVALID_UTF8` or `CONTROL_CHARACTER` naming the variable.
pub fn check_path_variables(template: &str, raw_path: &str) -> Result<(), ApiError> {
    for (pattern, segment) in template.split('/').zip(raw_path.split('/')) {
        let Some((name, _)) = pattern
            .strip_prefix('{')
            .and_then(|rest| rest.split_once('}'))
        else {
            continue;
        };
        let raw_value = segment.split(':').next().unwrap_or(segment);
        let value = percent_decode(raw_value).map_err(|_| invalid_utf8(name.to_owned()))?;
        refuse_nul(&value, || name.to_owned())?;
    }
    Ok(())
}

/// The middleware of every route (see [`crate::routes`]): [`check_path_variables`]
/// against the route's `template`, after the gate and before the handler.
///
/// # Errors
/// Errors of the wrapped service pass through; a refusal becomes the response.
pub async fn path_variables(
    template: &'static str,
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    if let Err(error) = check_path_variables(template, req.uri().path()) {
        let response = error.error_response();
        return Ok(req.into_response(response));
    }
    Ok(next.call(req).await?.map_into_boxed_body())
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
        let mut q = QueryParams::parse("filter=tags%3Ared%20AND%20a+b&&flag&e=caf%C3%A9").unwrap();
        assert_eq!(
            q.take("filter").unwrap().as_deref(),
            Some("tags:red AND a b")
        );
        assert_eq!(q.take("flag").unwrap().as_deref(), Some(""));
        assert_eq!(q.take("e").unwrap().as_deref(), Some("café"));
        assert!(q.finish().is_ok());
    }

    fn refusal(error: ApiError) -> (&'static str, String) {
        (error.0.reason, error.0.field_violations[0].field.clone())
    }

    #[test]
    fn query_text_is_utf8_without_nul() {
        for (raw, reason, field) in [
            ("filter=%FF", "INVALID_UTF8", "filter"),
            ("page_token=%C3", "INVALID_UTF8", "pageToken"),
            ("filter=a%00b", "CONTROL_CHARACTER", "filter"),
            ("a%00b=1", "CONTROL_CHARACTER", "a\\u0000b"),
            ("%FF=1", "INVALID_UTF8", "\u{fffd}"),
        ] {
            let error = QueryParams::parse(raw).unwrap_err();
            assert_eq!(refusal(error), (reason, field.to_owned()), "{raw}");
        }
    }

    #[test]
    fn path_variables_are_utf8_without_nul() {
        let template = "/v1alpha/entities/{entity}/notes/{note}:undelete";
        assert!(
            check_path_variables(template, "/v1alpha/entities/caf%C3%A9/notes/n:undelete").is_ok()
        );
        for (path, reason, field) in [
            (
                "/v1alpha/entities/a%FF/notes/n:undelete",
                "INVALID_UTF8",
                "entity",
            ),
            (
                "/v1alpha/entities/a/notes/%00:undelete",
                "CONTROL_CHARACTER",
                "note",
            ),
            (
                "/v1alpha/entities/a/notes/%ED%A0%80",
                "INVALID_UTF8",
                "note",
            ),
        ] {
            let error = check_path_variables(template, path).unwrap_err();
            assert_eq!(refusal(error), (reason, field.to_owned()), "{path}");
        }
        assert!(
            check_path_variables("/v1alpha/entities:batchGet", "/v1alpha/entities:batchGet")
                .is_ok()
        );
    }

    #[test]
    fn bodies_are_json_in_utf8() {
        for accepted in [
            "application/json",
            "Application/JSON",
            "application/json; charset=utf-8",
            "application/json;charset=UTF-8",
            "application/json; charset=\"utf-8\"",
        ] {
            assert!(check_content_type(Some(accepted)).is_ok(), "{accepted}");
        }
        for (refused, charset) in [
            ("application/json; charset=latin1", Some("latin1")),
            ("application/json; charset=utf8", Some("utf8")),
            ("application/json; charset=\"utf-16\"", Some("utf-16")),
            ("text/plain; charset=utf-8", None),
            ("application/jsonx", None),
            ("not a type", None),
        ] {
            let error = check_content_type(Some(refused)).unwrap_err().0;
            assert_eq!(error.reason, "UNSUPPORTED_CONTENT_TYPE", "{refused}");
            assert_eq!(
                error.metadata.get("charset").map(String::as_str),
                charset,
                "{refused}"
            );
        }
        assert!(check_content_type(None).is_err());
    }
}
