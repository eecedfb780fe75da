//! The hosted form's pages (`/hosted/{token}`): public, outside `/v1alpha`, for a
//! person who holds a link and no token. Each step of the form's definition is a page
//! whose POST saves the step as the form's DRAFT response and moves on; the last step
//! submits. The rules of links are the domain's ([`HostedForms::open`]); here requests
//! become calls and answers become HTML.
//!
//! Security: every page forbids framing, caching, referrers and any script or style
//! but the two files under `/hosted/assets`. Opening a link sets a cookie bound to it
//! (`Path=/hosted/{token}`, HttpOnly, SameSite=Strict, Secure over HTTPS) whose value
//! each page's form carries as its CSRF token; a POST without both, equal, is refused
//! before its body is read further.

use std::collections::BTreeMap;

use actix_multipart::{Field, Multipart};
use actix_web::cookie::{Cookie, SameSite};
use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::web::{Bytes, Data, Path, Payload};
use actix_web::{HttpRequest, HttpResponse};
use futures_util::StreamExt;
use rics_domain::error::{Code, Error};
use rics_domain::file::content::ContentStream;
use rics_domain::form_definition::model::{FieldType, FormField, FormStep};
use rics_domain::hosted_form::{HostedForm, Opened, RESPONSE_PATH, step_violations};
use serde_json::{Map, Number, Value, json};

use crate::error::ErrorEnvelope;
use crate::hosted_html::{StepPage, end_page, notice, step_path};
use crate::state::ApiState;

route_table! {
    GET "/hosted/{token}" as "ShowHostedForm" => show_form, None;
    GET "/hosted/{token}/steps/{step}" as "ShowHostedFormStep" => show_step, None;
    POST "/hosted/{token}/steps/{step}" as "SaveHostedFormStep" => save_step, None;
    GET "/hosted/assets/hosted.css" as "GetHostedFormStyle" => style, None;
    GET "/hosted/assets/hosted.js" as "GetHostedFormScript" => script, None;
}

/// The cookie that binds a browser to a link; its value is the pages' CSRF token.
pub const LINK_COOKIE: &str = "rics_hosted";

/// The Content-Security-Policy of every page.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' blob:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The longest text an input may send, in bytes.
const MAX_TEXT: usize = 16 * 1024;

/// Room in a step's body beyond its files: the texts, boundaries and part headers.
const ENVELOPE: usize = 256 * 1024;

/// The style sheet of the pages.
const STYLE: &str = include_str!("../../assets/hosted.css");

/// The script that enhances the pages (image previews, one submission at a time).
const SCRIPT: &str = include_str!("../../assets/hosted.js");

/// A response with the headers every hosted page has.
fn html(status: StatusCode, body: String) -> HttpResponse {
    let mut response = HttpResponse::build(status);
    secure_headers(&mut response);
    response.content_type("text/html; charset=utf-8").body(body)
}

/// The headers that keep a page from being framed, cached, scripted or referred from.
fn secure_headers(response: &mut actix_web::HttpResponseBuilder) {
    response
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"))
        .insert_header((header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"));
}

/// 404: the link does not exist; nothing else is said.
fn unknown_link() -> HttpResponse {
    html(
        StatusCode::NOT_FOUND,
        notice(
            "Link not found",
            "This link is not valid. Check that you copied all of it, or ask for a new one.",
        ),
    )
}

/// 410: the link expired or was used.
fn gone_link() -> HttpResponse {
    html(
        StatusCode::GONE,
        notice(
            "Link no longer valid",
            "This link has expired or has already been used. Ask for a new one if you need to.",
        ),
    )
}

/// The page of a failure that is not the person's: the service cannot answer now.
fn unavailable(error: &Error) -> HttpResponse {
    tracing::error!(reason = error.reason, detail = %error.message, "hosted form failed");
    html(
        StatusCode::SERVICE_UNAVAILABLE,
        notice(
            "Please try again",
            "Something went wrong on our side. Your saved answers are kept; try again in a moment.",
        ),
    )
}

/// 403: a POST without the link's cookie and its CSRF token.
fn forbidden() -> HttpResponse {
    html(
        StatusCode::FORBIDDEN,
        notice(
            "Page expired",
            "This page did not come from this link in this browser. Open your link again to continue.",
        ),
    )
}

/// What a token opens to, as a page when it is not an open form.
async fn open(state: &ApiState, token: &str) -> Result<Box<HostedForm>, HttpResponse> {
    match state.hosted.open(token).await {
        Ok(Opened::Open(form)) => Ok(form),
        Ok(Opened::Unknown) => Err(unknown_link()),
        Ok(Opened::Gone) => Err(gone_link()),
        Err(e) if e.code == Code::FailedPrecondition => Err(gone_link()),
        Err(e) => Err(unavailable(&e)),
    }
}

/// The link cookie of `token` holding `value`; `Secure` when the page is reached over
/// HTTPS or the server's public URL is HTTPS.
fn link_cookie(req: &HttpRequest, state: &ApiState, token: &str, value: &str) -> Cookie<'static> {
    let https = req.connection_info().scheme() == "https"
        || state.discovery.issuer().starts_with("https://");
    Cookie::build(LINK_COOKIE, value.to_owned())
        .path(format!("/hosted/{token}"))
        .http_only(true)
        .secure(https)
        .same_site(SameSite::Strict)
        .finish()
}

/// The CSRF token of this browser for the link: its cookie's, or a new one when it has
/// none (then `true`: the cookie must be set).
fn csrf_of(req: &HttpRequest, state: &ApiState) -> Result<(String, bool), Error> {
    match req.cookie(LINK_COOKIE) {
        Some(cookie) if !cookie.value().is_empty() => Ok((cookie.value().to_owned(), false)),
        _ => Ok((state.ids.secret()?, true)),
    }
}

/// Whether `a` and `b` are equal, in time that depends on their length only.
fn same_secret(a: &str, b: &str) -> bool {
    !a.is_empty()
        && a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0_u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Renders step `index` of `form` with `errors`, setting the link cookie when new.
fn step_page(
    req: &HttpRequest,
    state: &ApiState,
    token: &str,
    form: &HostedForm,
    index: usize,
    typed: &BTreeMap<String, String>,
    errors: &BTreeMap<String, String>,
) -> HttpResponse {
    let (csrf, new) = match csrf_of(req, state) {
        Ok(csrf) => csrf,
        Err(e) => return unavailable(&e),
    };
    let response = form.response();
    let title = if form.form.display_name.is_empty() {
        "Your details"
    } else {
        form.form.display_name.as_str()
    };
    let body = StepPage {
        form_title: title,
        token,
        steps: &form.schema.steps,
        index,
        response: &response,
        typed,
        errors,
        csrf: &csrf,
    }
    .render();
    let status = if errors.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    };
    let mut builder = HttpResponse::build(status);
    secure_headers(&mut builder);
    if new {
        builder.cookie(link_cookie(req, state, token, &csrf));
    }
    builder.content_type("text/html; charset=utf-8").body(body)
}

/// The first step with an answer missing or wrong, or the last: where a person who
/// opens the link again goes on.
fn resume_at(form: &HostedForm) -> usize {
    let response = form.response();
    form.schema
        .steps
        .iter()
        .position(|step| step_violations(step, &response).is_ok_and(|v| !v.is_empty()))
        .unwrap_or_else(|| form.schema.steps.len().saturating_sub(1))
}

/// Opens a link: sets its cookie and shows the step to go on with.
#[utoipa::path(get, path = "/hosted/{token}", tag = "hosted",
    params(("token" = String, Path, description = "The link's token")),
    responses((status = 200, description = "The step to go on with, as HTML", content_type = "text/html"), (status = 404, description = "Unknown or tampered link (HTML); a token or step of a shape no route matches gets the envelope", content(("text/html"), (ErrorEnvelope = "application/json"))), (status = 410, description = "Expired or used link", content_type = "text/html"),
              (status = 400, description = "A path variable that is not UTF-8 or holds U+0000", body = ErrorEnvelope), (status = 503, description = "The service cannot answer now", content_type = "text/html")))]
pub async fn show_form(
    req: HttpRequest,
    state: Data<ApiState>,
    path: Path<String>,
) -> HttpResponse {
    let token = path.into_inner();
    let form = match open(&state, &token).await {
        Ok(form) => form,
        Err(page) => return page,
    };
    let index = resume_at(&form);
    step_page(
        &req,
        &state,
        &token,
        &form,
        index,
        &BTreeMap::new(),
        &BTreeMap::new(),
    )
}

/// Shows one step of the form.
#[utoipa::path(get, path = "/hosted/{token}/steps/{step}", tag = "hosted",
    params(("token" = String, Path, description = "The link's token"), ("step" = String, Path, description = "The step's key")),
    responses((status = 200, description = "The step, as HTML", content_type = "text/html"), (status = 404, description = "Unknown link or step (HTML); a token or step of a shape no route matches gets the envelope", content(("text/html"), (ErrorEnvelope = "application/json"))), (status = 410, description = "Expired or used link", content_type = "text/html"),
              (status = 400, description = "A path variable that is not UTF-8 or holds U+0000", body = ErrorEnvelope), (status = 503, description = "The service cannot answer now", content_type = "text/html")))]
pub async fn show_step(
    req: HttpRequest,
    state: Data<ApiState>,
    path: Path<(String, String)>,
) -> HttpResponse {
    let (token, step) = path.into_inner();
    let form = match open(&state, &token).await {
        Ok(form) => form,
        Err(page) => return page,
    };
    let Some(index) = form.schema.steps.iter().position(|s| s.key == step) else {
        return unknown_link();
    };
    step_page(
        &req,
        &state,
        &token,
        &form,
        index,
        &BTreeMap::new(),
        &BTreeMap::new(),
    )
}

/// A file part of a step's body.
struct FilePart {
    /// The input's name.
    name: String,
    /// The file name the browser gave.
    file_name: String,
    /// The bytes.
    content: Bytes,
}

/// A step's body, read.
#[derive(Default)]
struct StepBody {
    /// The texts, by input name, several for a MULTISELECT.
    texts: Vec<(String, String)>,
    /// The files chosen.
    files: Vec<FilePart>,
}

impl StepBody {
    /// The first text of `name`, trimmed.
    fn text(&self, name: &str) -> Option<&str> {
        self.texts
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.trim())
    }

    /// Every text of `name`.
    fn all(&self, name: &str) -> Vec<&str> {
        self.texts
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }
}

/// Why a step's body was not read.
enum BodyError {
    /// The CSRF token is missing or is not the link cookie's.
    Forbidden,
    /// The body is malformed, too large, or not multipart.
    Unreadable(String),
}

/// Reads a step's multipart body, at most `limit` bytes: the first part must be the
/// CSRF token equal to `cookie`, or nothing more is read.
async fn read_step(
    req: &HttpRequest,
    payload: Payload,
    cookie: Option<&str>,
    limit: usize,
) -> Result<StepBody, BodyError> {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<usize>().ok());
    if declared.is_some_and(|length| length > limit) {
        return Err(BodyError::Unreadable(format!(
            "The files are larger than this form accepts ({} MB at most).",
            limit / (1024 * 1024)
        )));
    }
    let mut parts = Multipart::new(req.headers(), payload);
    let mut body = StepBody::default();
    let mut read = 0_usize;
    let mut first = true;
    while let Some(part) = parts.next().await {
        let mut part =
            part.map_err(|_| BodyError::Unreadable("The form could not be read.".into()))?;
        let name = part.name().unwrap_or_default().to_owned();
        let file_name = part
            .content_disposition()
            .and_then(|d| d.get_filename())
            .map(|f| f.rsplit(['/', '\\']).next().unwrap_or(f).to_owned());
        let bytes = read_part(&mut part, &mut read, limit).await?;
        if first {
            first = false;
            let sent = String::from_utf8_lossy(&bytes);
            if name != "csrf" || !cookie.is_some_and(|cookie| same_secret(cookie, &sent)) {
                return Err(BodyError::Forbidden);
            }
            continue;
        }
        match file_name {
            Some(file_name) => {
                if !bytes.is_empty() || !file_name.is_empty() {
                    body.files.push(FilePart {
                        name,
                        file_name,
                        content: bytes,
                    });
                }
            }
            None => {
                if bytes.len() > MAX_TEXT {
                    return Err(BodyError::Unreadable(format!(
                        "An answer is longer than {MAX_TEXT} bytes."
                    )));
                }
                let text = String::from_utf8(bytes.to_vec())
                    .map_err(|_| BodyError::Unreadable("An answer is not UTF-8 text.".into()))?;
                if text.contains('\0') || name.contains('\0') {
                    return Err(BodyError::Unreadable(
                        "An answer holds the character U+0000.".into(),
                    ));
                }
                body.texts.push((name, text));
            }
        }
    }
    if first {
        return Err(BodyError::Forbidden);
    }
    Ok(body)
}

/// The bytes of one part, counting them against `limit` across the body.
async fn read_part(part: &mut Field, read: &mut usize, limit: usize) -> Result<Bytes, BodyError> {
    let mut bytes = Vec::new();
    while let Some(chunk) = part.next().await {
        let chunk =
            chunk.map_err(|_| BodyError::Unreadable("The form could not be read.".into()))?;
        *read += chunk.len();
        if *read > limit {
            return Err(BodyError::Unreadable(format!(
                "The files are larger than this form accepts ({} MB at most).",
                limit / (1024 * 1024)
            )));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(bytes))
}

/// The content of a file part as the store reads it.
fn stream(content: Bytes) -> ContentStream {
    Box::pin(futures_util::stream::once(async move { Ok(content) }))
}

/// The answers of `step` that `body` gives, over `response`: each field's answer
/// replaced (or removed when left empty), but for files, which are kept unless a new
/// one came. Answers that cannot be read go to `errors`.
fn answers(
    step: &FormStep,
    body: &StepBody,
    response: &mut Map<String, Value>,
    errors: &mut BTreeMap<String, String>,
) {
    for field in &step.fields {
        let key = field.key.as_str();
        let answer = match field.field_type {
            FieldType::File => continue,
            FieldType::Checkbox => Some(json!(body.text(key) == Some("true"))),
            FieldType::Multiselect => {
                let chosen: Vec<Value> = body.all(key).into_iter().map(|v| json!(v)).collect();
                (!chosen.is_empty()).then_some(Value::Array(chosen))
            }
            FieldType::Number => match body.text(key).filter(|t| !t.is_empty()) {
                None => None,
                Some(text) => match text.parse::<f64>().ok().and_then(Number::from_f64) {
                    Some(number) => Some(Value::Number(number)),
                    None => {
                        errors.insert(key.to_owned(), "Enter a number.".into());
                        None
                    }
                },
            },
            FieldType::Country => body
                .text(key)
                .filter(|t| !t.is_empty())
                .map(|t| json!(t.to_uppercase())),
            FieldType::Address => {
                let mut address = Map::new();
                let lines = lines_of(body.text(&format!("{key}.lines")), false);
                if !lines.is_empty() {
                    address.insert("lines".into(), json!(lines));
                }
                for part in ["locality", "region", "postalCode", "country"] {
                    if let Some(text) = body
                        .text(&format!("{key}.{part}"))
                        .filter(|t| !t.is_empty())
                    {
                        let text = if part == "country" {
                            text.to_uppercase()
                        } else {
                            text.to_owned()
                        };
                        address.insert(part.into(), json!(text));
                    }
                }
                (!address.is_empty()).then_some(Value::Object(address))
            }
            FieldType::Document => {
                let mut document = Map::new();
                for part in [
                    "documentType",
                    "documentNumber",
                    "issuingCountry",
                    "expiryDate",
                ] {
                    if let Some(text) = body
                        .text(&format!("{key}.{part}"))
                        .filter(|t| !t.is_empty())
                    {
                        let text = match part {
                            "documentNumber" | "issuingCountry" => text.to_uppercase(),
                            _ => text.to_owned(),
                        };
                        document.insert(part.into(), json!(text));
                    }
                }
                let mrz = lines_of(body.text(&format!("{key}.mrz")), true);
                if !mrz.is_empty() {
                    document.insert("mrz".into(), json!(mrz));
                }
                if let Some(files) = response.get(key).and_then(|a| a.get("files")) {
                    document.insert("files".into(), files.clone());
                }
                (!document.is_empty()).then_some(Value::Object(document))
            }
            _ => body.text(key).filter(|t| !t.is_empty()).map(|t| json!(t)),
        };
        match answer {
            Some(answer) => {
                response.insert(key.to_owned(), answer);
            }
            None => {
                response.remove(key);
            }
        }
    }
}

/// The non-empty lines of `text`, trimmed; with `mrz`, upper case and without spaces,
/// as an MRZ is printed.
fn lines_of(text: Option<&str>, mrz: bool) -> Vec<String> {
    text.unwrap_or_default()
        .lines()
        .map(|line| {
            if mrz {
                line.chars()
                    .filter(|c| !c.is_whitespace())
                    .collect::<String>()
                    .to_uppercase()
            } else {
                line.trim().to_owned()
            }
        })
        .filter(|line| !line.is_empty())
        .collect()
}

/// The field key a violation of the response names (`form.response.id_doc.files[0]`
/// names `id_doc`).
fn violation_key(field: &str) -> Option<String> {
    let rest = field.strip_prefix(RESPONSE_PATH)?.strip_prefix('.')?;
    let end = rest.find(['.', '[']).unwrap_or(rest.len());
    Some(rest[..end].to_owned())
}

/// Adds the violations of `error` to `errors`, by field key (the first of each); an
/// error that names no answer is returned.
fn add_violations(error: Error, errors: &mut BTreeMap<String, String>) -> Option<Error> {
    if error.code != Code::InvalidArgument || error.field_violations.is_empty() {
        return Some(error);
    }
    for violation in error.field_violations {
        let key = violation_key(&violation.field).unwrap_or_default();
        errors
            .entry(key)
            .or_insert_with(|| sentence(&violation.description));
    }
    None
}

/// A violation's description as a sentence.
fn sentence(description: &str) -> String {
    let mut chars = description.chars();
    let mut text = chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect::<String>())
        .unwrap_or_default();
    if !text.ends_with('.') {
        text.push('.');
    }
    text
}

/// A step's body, as the page's form sends it: the CSRF token first, then an input per
/// answer (named by field key, `{key}.{part}` for the parts of an ADDRESS or a
/// DOCUMENT, `{key}.files` for a DOCUMENT's images), files as file parts. Documentation
/// of what [`read_step`] reads.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct HostedStepForm {
    /// The page's CSRF token, its link cookie's value; the first part.
    csrf: String,
    /// `next`, or `submit` on the last step.
    action: Option<String>,
}

/// Saves a step: its answers as the form's DRAFT response, its files as the form's
/// files. With errors, the step again with each error next to its field; otherwise the
/// next step, or, from the last step, the submit and the end page.
#[utoipa::path(post, path = "/hosted/{token}/steps/{step}", tag = "hosted",
    params(("token" = String, Path, description = "The link's token"), ("step" = String, Path, description = "The step's key")),
    request_body(content = HostedStepForm, content_type = "multipart/form-data"),
    responses((status = 303, description = "On to the next step"), (status = 200, description = "The end page", content_type = "text/html"), (status = 422, description = "The step again, with errors", content_type = "text/html"),
              (status = 400, description = "An unreadable form (HTML), or a path variable that is not UTF-8 or holds U+0000 (the envelope)", content(("text/html"), (ErrorEnvelope = "application/json"))), (status = 403, description = "No link cookie or CSRF token", content_type = "text/html"), (status = 404, description = "Unknown link or step (HTML); a token or step of a shape no route matches gets the envelope", content(("text/html"), (ErrorEnvelope = "application/json"))), (status = 410, description = "Expired or used link", content_type = "text/html"), (status = 503, description = "The service cannot answer now", content_type = "text/html")))]
pub async fn save_step(
    req: HttpRequest,
    state: Data<ApiState>,
    path: Path<(String, String)>,
    payload: Payload,
) -> HttpResponse {
    let (token, step_key) = path.into_inner();
    let form = match open(&state, &token).await {
        Ok(form) => form,
        Err(page) => return page,
    };
    let Some(index) = form.schema.steps.iter().position(|s| s.key == step_key) else {
        return unknown_link();
    };
    let step = &form.schema.steps[index];
    let cookie = req.cookie(LINK_COOKIE).map(|c| c.value().to_owned());
    let limit = usize::try_from(state.files.rules().max_bytes)
        .unwrap_or(usize::MAX)
        .saturating_mul(step_file_inputs(step).max(1))
        .saturating_add(ENVELOPE);
    let body = match read_step(&req, payload, cookie.as_deref(), limit).await {
        Ok(body) => body,
        Err(BodyError::Forbidden) => return forbidden(),
        Err(BodyError::Unreadable(message)) => {
            return html(
                StatusCode::BAD_REQUEST,
                notice("The form could not be read", &message),
            );
        }
    };
    let mut errors = BTreeMap::new();
    let mut response = form.response();
    answers(step, &body, &mut response, &mut errors);
    for file in &body.files {
        let Some((field, document)) = file_field(step, &file.name) else {
            continue;
        };
        let path = format!("{RESPONSE_PATH}.{}", field.key);
        let accept = if document {
            vec!["image/*".to_owned()]
        } else {
            field.accept.clone()
        };
        match state
            .hosted
            .upload(
                &form,
                &path,
                &accept,
                &file.file_name,
                stream(file.content.clone()),
            )
            .await
        {
            Ok(stored) if document => {
                let answer = response
                    .entry(field.key.clone())
                    .or_insert_with(|| json!({}));
                if let Value::Object(members) = answer {
                    let files = members.entry("files").or_insert_with(|| json!([]));
                    if let Value::Array(files) = files {
                        files.push(json!(stored.name));
                    }
                }
            }
            Ok(stored) => {
                response.insert(field.key.clone(), json!(stored.name));
            }
            Err(e) if e.code == Code::InvalidArgument => {
                let message = e
                    .field_violations
                    .first()
                    .map_or_else(|| e.message.clone(), |v| v.description.clone());
                errors.insert(field.key.clone(), upload_message(&e, &message, &accept));
            }
            Err(e) if e.code == Code::FailedPrecondition => return gone_link(),
            Err(e) => return unavailable(&e),
        }
    }
    let mut saved = form.clone();
    match state.hosted.save(&form, response.clone()).await {
        Ok(stored) => saved.form = stored,
        Err(e) if e.code == Code::FailedPrecondition => return gone_link(),
        Err(e) => {
            if let Some(e) = add_violations(e, &mut errors) {
                return unavailable(&e);
            }
        }
    }
    match step_violations(step, &response) {
        Ok(violations) => {
            for violation in violations {
                if let Some(key) = violation_key(&violation.field) {
                    errors
                        .entry(key)
                        .or_insert_with(|| sentence(&violation.description));
                }
            }
        }
        Err(e) => return unavailable(&e),
    }
    let typed: BTreeMap<String, String> = if errors.is_empty() {
        BTreeMap::new()
    } else {
        body.texts.iter().cloned().collect()
    };
    if !errors.is_empty() {
        return step_page(&req, &state, &token, &saved, index, &typed, &errors);
    }
    let last = index + 1 == form.schema.steps.len();
    if !last || body.text("action") != Some("submit") {
        let next = form.schema.steps.get(index + 1).unwrap_or(step);
        let mut builder = HttpResponse::SeeOther();
        secure_headers(&mut builder);
        return builder
            .insert_header((header::LOCATION, step_path(&token, &next.key)))
            .finish();
    }
    match state.hosted.submit(&saved).await {
        Ok(submitted) => {
            let redirect = saved
                .grant
                .redirect_uri
                .as_deref()
                .filter(|uri| uri.starts_with("https://") || uri.starts_with("http://"));
            let title = if submitted.display_name.is_empty() {
                "this form"
            } else {
                submitted.display_name.as_str()
            };
            let mut builder = HttpResponse::Ok();
            secure_headers(&mut builder);
            let mut removal = link_cookie(&req, &state, &token, "");
            removal.make_removal();
            builder
                .cookie(removal)
                .content_type("text/html; charset=utf-8")
                .body(end_page(title, redirect))
        }
        Err(e) if e.code == Code::FailedPrecondition => gone_link(),
        Err(e) => {
            let mut errors = BTreeMap::new();
            if let Some(e) = add_violations(e, &mut errors) {
                return unavailable(&e);
            }
            let at = form
                .schema
                .steps
                .iter()
                .position(|s| s.fields.iter().any(|f| errors.contains_key(&f.key)))
                .unwrap_or(index);
            step_page(&req, &state, &token, &saved, at, &BTreeMap::new(), &errors)
        }
    }
}

/// How many file inputs `step` has.
fn step_file_inputs(step: &FormStep) -> usize {
    step.fields
        .iter()
        .filter(|f| matches!(f.field_type, FieldType::File | FieldType::Document))
        .count()
}

/// The FILE field the input `name` is, or the DOCUMENT field whose images it takes
/// (then `true`).
fn file_field<'a>(step: &'a FormStep, name: &str) -> Option<(&'a FormField, bool)> {
    step.fields.iter().find_map(|field| match field.field_type {
        FieldType::File if field.key == name => Some((field, false)),
        FieldType::Document if name.strip_suffix(".files") == Some(field.key.as_str()) => {
            Some((field, true))
        }
        _ => None,
    })
}

/// What to tell the person of a refused upload.
fn upload_message(error: &Error, message: &str, accept: &[String]) -> String {
    match error.field_violations.first().map(|v| v.reason) {
        Some("FILE_TYPE_NOT_ACCEPTED") if accept.iter().all(|a| a.starts_with("image/")) => {
            "This file is not an image. Take a photo or choose an image file.".to_owned()
        }
        _ => sentence(message),
    }
}

/// The pages' style sheet.
#[utoipa::path(get, path = "/hosted/assets/hosted.css", tag = "hosted",
    responses((status = 200, description = "The style sheet", content_type = "text/css")))]
pub async fn style() -> HttpResponse {
    asset("text/css; charset=utf-8", STYLE)
}

/// The pages' script.
#[utoipa::path(get, path = "/hosted/assets/hosted.js", tag = "hosted",
    responses((status = 200, description = "The script", content_type = "text/javascript")))]
pub async fn script() -> HttpResponse {
    asset("text/javascript; charset=utf-8", SCRIPT)
}

/// A static file of the pages.
fn asset(content_type: &str, body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(content_type)
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn violations_name_their_field_key() {
        assert_eq!(
            violation_key("form.response.email").as_deref(),
            Some("email")
        );
        assert_eq!(
            violation_key("form.response.id_doc.files[0]").as_deref(),
            Some("id_doc")
        );
        assert_eq!(violation_key("form.response[1]"), None);
    }

    #[test]
    fn mrz_lines_are_read_as_printed() {
        assert_eq!(
            lines_of(Some(" p<utoeriksson<<anna \r\n\n l898902c3 "), true),
            ["P<UTOERIKSSON<<ANNA", "L898902C3"]
        );
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abc", "abd"));
        assert!(!same_secret("", ""));
        assert!(!same_secret("abc", "ab"));
    }
}
