//! The embedded OAuth 2.0 authorization server's endpoints: token, authorize (a small
//! sign-in page), OpenID Connect discovery and the JWKS.

use actix_web::cookie::{Cookie, SameSite};
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::web::{Bytes, Data, Payload};
use actix_web::{HttpRequest, HttpResponse};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rics_domain::identity::authorization::{
    AuthorizeError, AuthorizeRequest, OAuthError, OAuthErrorCode, SignInError, TokenRequest,
    with_query,
};
use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;

use crate::state::ApiState;

route_table! {
    POST "/oauth2/token" as "IssueToken" => token, None;
    GET "/oauth2/authorize" as "ShowAuthorizationPage" => authorize_page, None;
    POST "/oauth2/authorize" as "SubmitAuthorization" => authorize_submit, None;
    GET "/.well-known/openid-configuration" as "GetOpenIdConfiguration" => discovery, None;
    GET "/.well-known/jwks.json" as "GetJsonWebKeySet" => jwks, None;
}

/// The token endpoint's form (RFC 6749 sections 4.1.3, 4.4.2 and 6). Documentation of
/// the body [`form_fields`] reads; the client may authenticate with HTTP Basic instead
/// of `client_id` and `client_secret`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct TokenForm {
    /// `client_credentials`, `authorization_code` or `refresh_token`.
    #[schema(pattern = "^(client_credentials|authorization_code|refresh_token)$")]
    grant_type: String,
    /// The client, unless given by HTTP Basic.
    client_id: Option<String>,
    /// The client's secret, unless given by HTTP Basic.
    client_secret: Option<String>,
    /// The authorization code (`authorization_code`).
    code: Option<String>,
    /// The redirect URI of the authorization request (`authorization_code`).
    redirect_uri: Option<String>,
    /// The PKCE verifier (`authorization_code`).
    code_verifier: Option<String>,
    /// The refresh token (`refresh_token`).
    refresh_token: Option<String>,
    /// Space-separated scopes: all the client's when absent; a refresh may only narrow.
    scope: Option<String>,
}

/// The sign-in form of `/oauth2/authorize`: the credentials, the CSRF token of the
/// page, and the authorization request's parameters again.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct AuthorizeForm {
    /// The user's name.
    username: String,
    /// The user's password.
    password: String,
    /// The CSRF token the page carried (also in its cookie).
    csrf: String,
    /// `code`.
    response_type: String,
    /// The client.
    client_id: String,
    /// A redirect URI registered for the client.
    redirect_uri: String,
    /// Space-separated scopes.
    scope: Option<String>,
    /// Echoed back to the client.
    state: Option<String>,
    /// The PKCE S256 challenge.
    code_challenge: String,
    /// `S256`.
    code_challenge_method: String,
}

/// An issued token (RFC 6749 section 5.1).
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenBody {
    /// The access token, a JWT.
    access_token: String,
    /// Always `Bearer`.
    token_type: &'static str,
    /// Seconds until the access token expires.
    expires_in: u64,
    /// A refresh token: authorization code and refresh grants only.
    #[serde(skip_serializing_if = "Option::is_none")]
    refresh_token: Option<String>,
    /// The scopes granted, space separated.
    scope: String,
}

/// A refusal (RFC 6749 section 5.2).
#[derive(Debug, Serialize, ToSchema)]
pub struct OAuthErrorBody {
    /// The RFC 6749 error code, such as `invalid_grant`.
    error: &'static str,
    /// What went wrong, in English.
    error_description: String,
}

/// The cookie holding the sign-in form's CSRF token.
const CSRF_COOKIE: &str = "rics_csrf";

/// Longest form body the OAuth endpoints read, in bytes. Their requests take a few
/// hundred bytes; a longer body is refused without being read further.
pub const FORM_LIMIT: usize = 64 * 1024;

/// Why a form body was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FormError {
    /// Longer than [`FORM_LIMIT`], declared or counted.
    TooLarge,
    /// The body broke off or was malformed on the wire.
    Unreadable,
}

impl FormError {
    fn description(self) -> String {
        match self {
            FormError::TooLarge => {
                format!("the request body is larger than the limit of {FORM_LIMIT} bytes")
            }
            FormError::Unreadable => "the request body could not be read".to_owned(),
        }
    }
}

/// The request body, at most [`FORM_LIMIT`] bytes: a larger declared length is refused
/// before anything is read, a longer body as soon as the limit is passed.
async fn read_form(req: &HttpRequest, payload: Payload) -> Result<Bytes, FormError> {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<usize>().ok());
    if declared.is_some_and(|length| length > FORM_LIMIT) {
        return Err(FormError::TooLarge);
    }
    match payload.to_bytes_limited(FORM_LIMIT).await {
        Ok(Ok(body)) => Ok(body),
        Ok(Err(_)) => Err(FormError::Unreadable),
        Err(_) => Err(FormError::TooLarge),
    }
}

/// Form fields of a request body (`application/x-www-form-urlencoded`), first value
/// of each name.
fn form_fields(body: &[u8]) -> Vec<(String, String)> {
    form_urlencoded::parse(body)
        .map(|(name, value)| (name.into_owned(), value.into_owned()))
        .collect()
}

/// Whether any name or value holds U+0000, which no request may carry (PostgreSQL
/// cannot store it; the API refuses it as `CONTROL_CHARACTER`, these endpoints as a
/// malformed request).
fn holds_nul<'a>(texts: impl IntoIterator<Item = &'a String>) -> bool {
    texts.into_iter().any(|text| text.contains('\0'))
}

/// The names and values of form or query pairs, for [`holds_nul`].
fn pair_texts(pairs: &[(String, String)]) -> impl Iterator<Item = &String> {
    pairs.iter().flat_map(|(name, value)| [name, value])
}

/// The page refusing an authorization request that holds U+0000.
fn nul_page() -> HttpResponse {
    error_page("The request must not contain the character U+0000.")
}

fn field(fields: &[(String, String)], name: &str) -> Option<String> {
    fields
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
        .filter(|v| !v.is_empty())
}

/// The client credentials of HTTP Basic authentication (RFC 6749 section 2.3.1: id
/// and secret are form-encoded, then joined by `:` and base64-encoded).
fn basic_credentials(req: &HttpRequest) -> Option<(String, String)> {
    let value = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let encoded = value
        .strip_prefix("Basic ")
        .or_else(|| value.strip_prefix("basic "))?;
    let decoded = String::from_utf8(STANDARD.decode(encoded.trim()).ok()?).ok()?;
    let (id, secret) = decoded.split_once(':')?;
    let unescape = |s: &str| {
        form_urlencoded::parse(format!("v={s}").as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
    };
    Some((unescape(id)?, unescape(secret)?))
}

fn oauth_error(error: &OAuthError, basic: bool) -> HttpResponse {
    let status = match error.code {
        OAuthErrorCode::InvalidClient => StatusCode::UNAUTHORIZED,
        OAuthErrorCode::ServerError => StatusCode::INTERNAL_SERVER_ERROR,
        OAuthErrorCode::TemporarilyUnavailable => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::BAD_REQUEST,
    };
    let mut response = HttpResponse::build(status);
    response
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::PRAGMA, "no-cache"));
    if error.code == OAuthErrorCode::InvalidClient && basic {
        response.insert_header((header::WWW_AUTHENTICATE, "Basic realm=\"rics\""));
    }
    response.json(OAuthErrorBody {
        error: error.code.as_str(),
        error_description: error.description.clone(),
    })
}

/// The token endpoint (RFC 6749 section 3.2): grant types `client_credentials`,
/// `authorization_code` (PKCE S256 required) and `refresh_token`. Every refusal is an
/// RFC 6749 section 5.2 JSON error, a body over [`FORM_LIMIT`] included (400
/// `invalid_request`).
#[utoipa::path(post, path = "/oauth2/token", tag = "oauth2",
    request_body(content = TokenForm, content_type = "application/x-www-form-urlencoded"),
    responses((status = 200, description = "The token", body = TokenBody),
              (status = 400, description = "Refused", body = OAuthErrorBody),
              (status = 401, description = "`invalid_client`", body = OAuthErrorBody),
              (status = 500, description = "`server_error`", body = OAuthErrorBody),
              (status = 503, description = "`temporarily_unavailable`", body = OAuthErrorBody)))]
pub async fn token(req: HttpRequest, state: Data<ApiState>, payload: Payload) -> HttpResponse {
    let invalid_request = |description: String| {
        let error = OAuthError {
            code: OAuthErrorCode::InvalidRequest,
            description,
        };
        oauth_error(&error, false)
    };
    if !form_content(&req) {
        return invalid_request("the body must be application/x-www-form-urlencoded".into());
    }
    let body = match read_form(&req, payload).await {
        Ok(body) => body,
        Err(error) => return invalid_request(error.description()),
    };
    let fields = form_fields(&body);
    let basic = basic_credentials(&req);
    let basic_texts = basic.iter().flat_map(|(id, secret)| [id, secret]);
    if holds_nul(pair_texts(&fields).chain(basic_texts)) {
        let error = OAuthError {
            code: OAuthErrorCode::InvalidRequest,
            description: "parameters must not contain the character U+0000".into(),
        };
        return oauth_error(&error, false);
    }
    let (client_id, client_secret) = match &basic {
        Some((id, secret)) => (Some(id.clone()), Some(secret.clone())),
        None => (field(&fields, "client_id"), field(&fields, "client_secret")),
    };
    let request = TokenRequest {
        grant_type: field(&fields, "grant_type"),
        client_id,
        client_secret,
        code: field(&fields, "code"),
        redirect_uri: field(&fields, "redirect_uri"),
        code_verifier: field(&fields, "code_verifier"),
        refresh_token: field(&fields, "refresh_token"),
        scope: field(&fields, "scope"),
    };
    match state.authorization.token(&request).await {
        Ok(response) => {
            let body = TokenBody {
                access_token: response.access_token,
                token_type: "Bearer",
                expires_in: response.expires_in,
                refresh_token: response.refresh_token,
                scope: response.scope,
            };
            HttpResponse::Ok()
                .insert_header((header::CACHE_CONTROL, "no-store"))
                .insert_header((header::PRAGMA, "no-cache"))
                .json(body)
        }
        Err(error) => oauth_error(&error, basic.is_some()),
    }
}

fn form_content(req: &HttpRequest) -> bool {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| {
            v.trim()
                .eq_ignore_ascii_case("application/x-www-form-urlencoded")
        })
}

fn authorize_request(pairs: &[(String, String)]) -> AuthorizeRequest {
    AuthorizeRequest {
        response_type: field(pairs, "response_type"),
        client_id: field(pairs, "client_id"),
        redirect_uri: field(pairs, "redirect_uri"),
        scope: field(pairs, "scope"),
        state: field(pairs, "state"),
        code_challenge: field(pairs, "code_challenge"),
        code_challenge_method: field(pairs, "code_challenge_method"),
    }
}

/// The parameters of an authorization request carried by the sign-in form.
const CARRIED: [&str; 7] = [
    "response_type",
    "client_id",
    "redirect_uri",
    "scope",
    "state",
    "code_challenge",
    "code_challenge_method",
];

fn escape(text: &str) -> String {
    html_escape::encode_double_quoted_attribute(text).into_owned()
}

/// A page of the authorization server, with headers that keep it from being framed,
/// cached or scripted.
fn page(status: StatusCode) -> actix_web::HttpResponseBuilder {
    let mut response = HttpResponse::build(status);
    response
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"))
        .insert_header((
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
        ))
        .insert_header((header::REFERRER_POLICY, "no-referrer"));
    response
}

fn html(title: &str, content: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>\
         <style>body{{font-family:sans-serif;max-width:24rem;margin:4rem auto}}label,input,button{{display:block;width:100%;margin:.4rem 0}}.error{{color:#a00}}</style>\
         </head><body><h1>{title}</h1>{content}</body></html>",
        title = escape(title)
    )
}

fn error_page(message: &str) -> HttpResponse {
    let content = format!("<p class=\"error\">{}</p>", escape(message));
    page(StatusCode::BAD_REQUEST).body(html("Sign-in refused", &content))
}

fn redirect(location: &str) -> HttpResponse {
    HttpResponse::Found()
        .insert_header((header::LOCATION, location))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish()
}

fn redirect_error(error: &AuthorizeError) -> HttpResponse {
    match error {
        AuthorizeError::Invalid(message) => error_page(message),
        AuthorizeError::Redirect {
            redirect_uri,
            error,
            description,
            state,
        } => {
            let mut pairs = vec![
                ("error", *error),
                ("error_description", description.as_str()),
            ];
            if let Some(state) = state.as_deref() {
                pairs.push(("state", state));
            }
            redirect(&with_query(redirect_uri, &pairs))
        }
    }
}

fn sign_in_form(
    client_name: &str,
    pairs: &[(String, String)],
    csrf: &str,
    problem: Option<&str>,
) -> String {
    let hidden: String = CARRIED
        .iter()
        .filter_map(|name| field(pairs, name).map(|value| (name, value)))
        .map(|(name, value)| {
            format!(
                "<input type=\"hidden\" name=\"{name}\" value=\"{}\">",
                escape(&value)
            )
        })
        .collect();
    let problem = problem
        .map(|p| format!("<p class=\"error\">{}</p>", escape(p)))
        .unwrap_or_default();
    html(
        "Sign in to rics",
        &format!(
            "<p>{client} asks to act on your behalf.</p>{problem}\
             <form method=\"post\" action=\"/oauth2/authorize\">{hidden}\
             <input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
             <label>Username <input name=\"username\" autocomplete=\"username\" required></label>\
             <label>Password <input name=\"password\" type=\"password\" autocomplete=\"current-password\" required></label>\
             <button type=\"submit\">Sign in</button></form>",
            client = escape(client_name),
            csrf = escape(csrf),
        ),
    )
}

/// The CSRF cookie; `Secure` whenever the server is reached over HTTPS.
fn csrf_cookie(state: &ApiState, value: &str) -> Cookie<'static> {
    Cookie::build(CSRF_COOKIE, value.to_owned())
        .path("/oauth2")
        .http_only(true)
        .secure(state.discovery.issuer().starts_with("https://"))
        .same_site(SameSite::Strict)
        .finish()
}

/// The authorization endpoint (RFC 6749 section 3.1): checks the request and shows the
/// sign-in page.
#[utoipa::path(get, path = "/oauth2/authorize", tag = "oauth2",
    params(("response_type" = String, Query, description = "code"), ("client_id" = String, Query, description = "The client"),
           ("redirect_uri" = String, Query, description = "A redirect URI registered for the client"),
           ("scope" = Option<String>, Query, description = "Space-separated scopes"), ("state" = Option<String>, Query, description = "Echoed back"),
           ("code_challenge" = String, Query, description = "PKCE S256 challenge"), ("code_challenge_method" = String, Query, description = "S256")),
    responses((status = 200, description = "The sign-in page"), (status = 302, description = "Back to the client with an error"), (status = 400, description = "Untrusted client or redirect URI")))]
pub async fn authorize_page(req: HttpRequest, state: Data<ApiState>) -> HttpResponse {
    let pairs = form_fields(req.query_string().as_bytes());
    if holds_nul(pair_texts(&pairs)) {
        return nul_page();
    }
    match state
        .authorization
        .check_authorization(&authorize_request(&pairs))
        .await
    {
        Err(error) => redirect_error(&error),
        Ok(pending) => {
            let csrf = match state.ids.secret() {
                Ok(csrf) => csrf,
                Err(_) => return error_page("The service is unavailable; try again."),
            };
            let body = sign_in_form(&pending.client_name, &pairs, &csrf, None);
            page(StatusCode::OK)
                .cookie(csrf_cookie(&state, &csrf))
                .body(body)
        }
    }
}

/// The sign-in form's submission: checks the CSRF token and the authorization request
/// again, signs the user in and redirects back to the client with a code. A form that
/// cannot be read (over [`FORM_LIMIT`], broken off) gets the error page like any other
/// untrusted submission: its redirect URI was not read, so it is never redirected to.
#[utoipa::path(post, path = "/oauth2/authorize", tag = "oauth2",
    request_body(content = AuthorizeForm, content_type = "application/x-www-form-urlencoded"),
    responses((status = 302, description = "Back to the client with code and state"), (status = 200, description = "The sign-in page again, after bad credentials"), (status = 400, description = "Refused")))]
pub async fn authorize_submit(
    req: HttpRequest,
    state: Data<ApiState>,
    payload: Payload,
) -> HttpResponse {
    if !form_content(&req) {
        return error_page("The form must be submitted as application/x-www-form-urlencoded.");
    }
    let body = match read_form(&req, payload).await {
        Ok(body) => body,
        Err(FormError::TooLarge) => {
            return error_page("The form is larger than this server accepts; start again.");
        }
        Err(FormError::Unreadable) => {
            return error_page("The form could not be read; start again.");
        }
    };
    let pairs = form_fields(&body);
    if holds_nul(pair_texts(&pairs)) {
        return nul_page();
    }
    let cookie = req.cookie(CSRF_COOKIE).map(|c| c.value().to_owned());
    let submitted = field(&pairs, "csrf");
    let csrf_ok = match (cookie.as_deref(), submitted.as_deref()) {
        (Some(cookie), Some(submitted)) => {
            !cookie.is_empty()
                && cookie.len() == submitted.len()
                && cookie
                    .bytes()
                    .zip(submitted.bytes())
                    .fold(0_u8, |acc, (a, b)| acc | (a ^ b))
                    == 0
        }
        _ => false,
    };
    if !csrf_ok {
        return error_page(
            "The sign-in form expired or did not come from this server; start again.",
        );
    }
    let pending = match state
        .authorization
        .check_authorization(&authorize_request(&pairs))
        .await
    {
        Ok(pending) => pending,
        Err(error) => return redirect_error(&error),
    };
    let username = field(&pairs, "username").unwrap_or_default();
    let password = field(&pairs, "password").unwrap_or_default();
    match state
        .authorization
        .sign_in(&pending, &username, &password)
        .await
    {
        Ok(location) => {
            let mut response = redirect(&location);
            let mut expired = csrf_cookie(&state, "");
            expired.make_removal();
            let _ = response.add_cookie(&expired);
            response
        }
        Err(SignInError::BadCredentials) => {
            let csrf = cookie.unwrap_or_default();
            let body = sign_in_form(
                &pending.client_name,
                &pairs,
                &csrf,
                Some("Wrong username or password."),
            );
            page(StatusCode::OK).body(body)
        }
        Err(SignInError::Denied(error)) => redirect_error(&error),
        Err(SignInError::Failed(_)) => error_page("The service is unavailable; try again."),
    }
}

/// OpenID Connect discovery for the embedded authorization server.
#[utoipa::path(get, path = "/.well-known/openid-configuration", tag = "oauth2",
    responses((status = 200, description = "Issuer metadata")))]
pub async fn discovery(state: Data<ApiState>) -> HttpResponse {
    let issuer = state.discovery.issuer();
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, HeaderValue::from_static("max-age=300")))
        .json(json!({
            "issuer": issuer,
            "authorization_endpoint": format!("{issuer}/oauth2/authorize"),
            "token_endpoint": format!("{issuer}/oauth2/token"),
            "jwks_uri": format!("{issuer}/.well-known/jwks.json"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["client_credentials", "authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "scopes_supported": ["rics.read", "rics.write", "rics.admin"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["EdDSA"],
        }))
}

/// The public keys that verify the embedded server's tokens.
#[utoipa::path(get, path = "/.well-known/jwks.json", tag = "oauth2",
    responses((status = 200, description = "JSON Web Key Set")))]
pub async fn jwks(state: Data<ApiState>) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((
            header::CACHE_CONTROL,
            HeaderValue::from_static("max-age=60"),
        ))
        .json(state.discovery.jwks().await)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_credentials_are_form_decoded() {
        let req = actix_web::test::TestRequest::default()
            .insert_header((
                header::AUTHORIZATION,
                format!("Basic {}", STANDARD.encode("my%20client:s%3Acret")),
            ))
            .to_http_request();
        assert_eq!(
            basic_credentials(&req),
            Some(("my client".into(), "s:cret".into()))
        );
    }

    async fn read(request: actix_web::test::TestRequest) -> Result<Bytes, FormError> {
        use actix_web::FromRequest;
        let (req, mut payload) = request.to_http_parts();
        let payload = Payload::from_request(&req, &mut payload).await.unwrap();
        read_form(&req, payload).await
    }

    #[actix_web::test]
    async fn form_bodies_are_read_up_to_the_limit() {
        let full = vec![b'a'; FORM_LIMIT];
        let body = read(actix_web::test::TestRequest::default().set_payload(full.clone()))
            .await
            .unwrap();
        assert_eq!(body.len(), FORM_LIMIT);
        let over = vec![b'a'; FORM_LIMIT + 1];
        assert_eq!(
            read(actix_web::test::TestRequest::default().set_payload(over.clone())).await,
            Err(FormError::TooLarge),
            "declared"
        );
        let understated = actix_web::test::TestRequest::default()
            .set_payload(over)
            .insert_header((header::CONTENT_LENGTH, "10"));
        assert_eq!(
            read(understated).await,
            Err(FormError::TooLarge),
            "counted, whatever the declared length"
        );
        assert!(FormError::TooLarge.description().contains("65536"));
    }

    #[test]
    fn the_sign_in_form_escapes_what_it_carries() {
        let pairs = vec![("state".to_string(), "\"><script>".to_string())];
        let page = sign_in_form("<Evil> app", &pairs, "tok", None);
        assert!(!page.contains("<script>"));
        assert!(!page.contains("<Evil>"));
        assert!(page.contains("&lt;Evil&gt;"));
    }
}
