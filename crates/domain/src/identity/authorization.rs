//! The embedded OAuth 2.0 authorization server: the token endpoint's grants
//! (client credentials, authorization code with PKCE S256, refresh token with
//! rotation) and the authorization endpoint's checks and sign-in.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

use super::model::{AccessClaims, AuthorizationCode, Client, RefreshToken, Rotation};
use super::ports::{IdentityRepository, SecretHasher, TokenSigner};
use crate::id::IdGenerator;
use crate::principal::Scope;
use crate::repository::RepositoryError;
use crate::time::Clock;

/// How long an authorization code may wait for its exchange.
pub const CODE_LIFETIME: Duration = Duration::from_secs(60);
/// How long a refresh token lives.
pub const REFRESH_LIFETIME: Duration = Duration::from_secs(30 * 86_400);

/// The error codes of RFC 6749 section 5.2 (token endpoint).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OAuthErrorCode {
    /// A required parameter is missing or malformed.
    InvalidRequest,
    /// Client authentication failed (HTTP 401).
    InvalidClient,
    /// The code, refresh token or PKCE verifier is invalid, expired or reused.
    InvalidGrant,
    /// The client may not use this grant type.
    UnauthorizedClient,
    /// The grant type is not supported.
    UnsupportedGrantType,
    /// The requested scope is invalid or exceeds what the client may have.
    InvalidScope,
    /// The server failed.
    ServerError,
    /// The server is temporarily unavailable.
    TemporarilyUnavailable,
}

impl OAuthErrorCode {
    /// The `error` value on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            OAuthErrorCode::InvalidRequest => "invalid_request",
            OAuthErrorCode::InvalidClient => "invalid_client",
            OAuthErrorCode::InvalidGrant => "invalid_grant",
            OAuthErrorCode::UnauthorizedClient => "unauthorized_client",
            OAuthErrorCode::UnsupportedGrantType => "unsupported_grant_type",
            OAuthErrorCode::InvalidScope => "invalid_scope",
            OAuthErrorCode::ServerError => "server_error",
            OAuthErrorCode::TemporarilyUnavailable => "temporarily_unavailable",
        }
    }
}

/// A token endpoint error: a code and a description for developers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {description}", code.as_str())]
pub struct OAuthError {
    /// The error code.
    pub code: OAuthErrorCode,
    /// What went wrong.
    pub description: String,
}

impl OAuthError {
    fn new(code: OAuthErrorCode, description: impl Into<String>) -> OAuthError {
        OAuthError {
            code,
            description: description.into(),
        }
    }
}

impl From<RepositoryError> for OAuthError {
    fn from(error: RepositoryError) -> OAuthError {
        match error {
            RepositoryError::Unavailable(_) => OAuthError::new(
                OAuthErrorCode::TemporarilyUnavailable,
                "the service is temporarily unavailable",
            ),
            _ => OAuthError::new(OAuthErrorCode::ServerError, "the service failed"),
        }
    }
}

impl From<crate::Error> for OAuthError {
    fn from(error: crate::Error) -> OAuthError {
        match error.code {
            crate::Code::Unavailable => OAuthError::new(
                OAuthErrorCode::TemporarilyUnavailable,
                "the service is temporarily unavailable",
            ),
            _ => OAuthError::new(OAuthErrorCode::ServerError, "the service failed"),
        }
    }
}

/// The parameters of a token request (form fields, with the client's credentials from
/// HTTP Basic authentication or the body).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TokenRequest {
    /// `grant_type`.
    pub grant_type: Option<String>,
    /// The client id.
    pub client_id: Option<String>,
    /// The client secret.
    pub client_secret: Option<String>,
    /// `code` (authorization code grant).
    pub code: Option<String>,
    /// `redirect_uri` (authorization code grant).
    pub redirect_uri: Option<String>,
    /// `code_verifier` (PKCE).
    pub code_verifier: Option<String>,
    /// `refresh_token` (refresh grant).
    pub refresh_token: Option<String>,
    /// `scope`: space-separated scopes.
    pub scope: Option<String>,
}

/// A successful token response (RFC 6749 section 5.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenResponse {
    /// The access token (a JWT).
    pub access_token: String,
    /// Seconds until it expires.
    pub expires_in: u64,
    /// A refresh token (authorization code and refresh grants only).
    pub refresh_token: Option<String>,
    /// The scopes granted, space separated.
    pub scope: String,
}

/// The parameters of an authorization request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthorizeRequest {
    /// `response_type`: must be `code`.
    pub response_type: Option<String>,
    /// `client_id`.
    pub client_id: Option<String>,
    /// `redirect_uri`: must be registered for the client, exactly.
    pub redirect_uri: Option<String>,
    /// `scope`: space-separated scopes.
    pub scope: Option<String>,
    /// `state`: echoed to the client.
    pub state: Option<String>,
    /// `code_challenge`: base64url(SHA-256(verifier)).
    pub code_challenge: Option<String>,
    /// `code_challenge_method`: must be `S256`.
    pub code_challenge_method: Option<String>,
}

/// Why an authorization request is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthorizeError {
    /// The client or redirect URI cannot be trusted: show the error, never redirect.
    Invalid(String),
    /// Redirect back to the client with `error` (RFC 6749 section 4.1.2.1).
    Redirect {
        /// Where to send the user.
        redirect_uri: String,
        /// The error code.
        error: &'static str,
        /// What went wrong.
        description: String,
        /// The client's `state`.
        state: Option<String>,
    },
}

/// A checked authorization request waiting for the user to sign in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingAuthorization {
    /// The client.
    pub client_id: String,
    /// Its display name, for the sign-in page.
    pub client_name: String,
    /// The redirect URI.
    pub redirect_uri: String,
    /// The scopes asked for.
    pub scopes: BTreeSet<Scope>,
    /// The client's `state`.
    pub state: Option<String>,
    /// The PKCE challenge.
    pub code_challenge: String,
}

/// Why signing in failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignInError {
    /// Wrong username or password (the page says so, without saying which).
    BadCredentials,
    /// The user may not grant any of the scopes asked for: redirect with this error.
    Denied(AuthorizeError),
    /// The service failed.
    Failed(OAuthError),
}

/// Parses space-separated scope names.
///
/// # Errors
/// `invalid_scope` naming an unknown scope.
pub fn parse_scopes(text: &str) -> Result<BTreeSet<Scope>, OAuthError> {
    text.split_whitespace()
        .map(|name| {
            Scope::parse(name).ok_or_else(|| {
                OAuthError::new(
                    OAuthErrorCode::InvalidScope,
                    format!("unknown scope '{name}'"),
                )
            })
        })
        .collect()
}

/// Space-separated scope names.
pub fn scope_text(scopes: &BTreeSet<Scope>) -> String {
    scopes
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// SHA-256 hex of a high-entropy token (codes, refresh tokens): fast is fine, as
/// guessing one is hopeless.
pub fn token_hash(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether `verifier` is a valid PKCE verifier (43 to 128 unreserved characters) whose
/// S256 transform is `challenge`.
pub fn pkce_matches(verifier: &str, challenge: &str) -> bool {
    let valid = (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'));
    valid && URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes())) == challenge
}

/// The authorization server.
#[derive(derive_new::new)]
pub struct AuthorizationService {
    identity: Arc<dyn IdentityRepository>,
    hasher: Arc<dyn SecretHasher>,
    signer: Arc<dyn TokenSigner>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
}

impl AuthorizationService {
    /// Checks an authorization request before the sign-in page is shown.
    ///
    /// # Errors
    /// [`AuthorizeError::Invalid`] for an unknown client or an unregistered redirect
    /// URI (never redirect there); [`AuthorizeError::Redirect`] for the rest: a
    /// response type other than `code`, a missing or non-S256 PKCE challenge, a scope
    /// the client may not have.
    pub async fn check_authorization(
        &self,
        request: &AuthorizeRequest,
    ) -> Result<PendingAuthorization, AuthorizeError> {
        let client_id = request.client_id.as_deref().unwrap_or("");
        let client = match self.identity.find_client(client_id).await {
            Ok(Some(client)) => client,
            Ok(None) => return Err(AuthorizeError::Invalid("unknown client_id".into())),
            Err(_) => return Err(AuthorizeError::Invalid("the service is unavailable".into())),
        };
        let redirect_uri = request.redirect_uri.clone().unwrap_or_default();
        if !client.redirect_uris.contains(&redirect_uri) {
            return Err(AuthorizeError::Invalid(
                "redirect_uri is not registered for this client".into(),
            ));
        }
        let refuse = |error: &'static str, description: &str| AuthorizeError::Redirect {
            redirect_uri: redirect_uri.clone(),
            error,
            description: description.to_owned(),
            state: request.state.clone(),
        };
        if request.response_type.as_deref() != Some("code") {
            return Err(refuse(
                "unsupported_response_type",
                "only response_type=code is supported",
            ));
        }
        let challenge = request.code_challenge.clone().unwrap_or_default();
        let well_formed = challenge.len() == 43
            && challenge
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if request.code_challenge_method.as_deref() != Some("S256") || !well_formed {
            return Err(refuse(
                "invalid_request",
                "PKCE is required: code_challenge (43 base64url characters) with code_challenge_method=S256",
            ));
        }
        let scopes = granted_scopes(request.scope.as_deref(), &client.scopes)
            .map_err(|e| refuse("invalid_scope", &e.description))?;
        Ok(PendingAuthorization {
            client_id: client.client_id,
            client_name: client.display_name,
            redirect_uri,
            scopes,
            state: request.state.clone(),
            code_challenge: challenge,
        })
    }

    /// Signs the user in for a checked authorization request and returns where to
    /// send the browser: the redirect URI with `code` and `state`.
    ///
    /// # Errors
    /// [`SignInError::BadCredentials`] for a wrong username or password, or a user of
    /// another tenant than the client's; [`SignInError::Denied`] when the user may
    /// grant none of the scopes asked for.
    pub async fn sign_in(
        &self,
        pending: &PendingAuthorization,
        username: &str,
        password: &str,
    ) -> Result<String, SignInError> {
        let failed = |e: OAuthError| SignInError::Failed(e);
        let client = self
            .identity
            .find_client(&pending.client_id)
            .await
            .map_err(|e| failed(e.into()))?
            .ok_or(SignInError::BadCredentials)?;
        let user = self
            .identity
            .find_user(&username.trim().to_lowercase())
            .await
            .map_err(|e| failed(e.into()))?;
        let Some(user) = user else {
            // Spend the time a password check would, so unknown users do not answer faster.
            let _ = self.hasher.verify(password, "").await;
            return Err(SignInError::BadCredentials);
        };
        if !self.hasher.verify(password, &user.password_hash).await || user.tenant != client.tenant
        {
            return Err(SignInError::BadCredentials);
        }
        let scopes: BTreeSet<Scope> = pending.scopes.intersection(&user.scopes).copied().collect();
        if scopes.is_empty() {
            return Err(SignInError::Denied(AuthorizeError::Redirect {
                redirect_uri: pending.redirect_uri.clone(),
                error: "access_denied",
                description: "the user may not grant any of the scopes asked for".into(),
                state: pending.state.clone(),
            }));
        }
        let code = self.ids.secret().map_err(|e| failed(e.into()))?;
        let grant = AuthorizationCode {
            code_hash: token_hash(&code),
            client_id: client.client_id,
            tenant: user.tenant,
            user_id: user.user_id,
            display_name: user.display_name,
            redirect_uri: pending.redirect_uri.clone(),
            code_challenge: pending.code_challenge.clone(),
            scopes,
            expire_time: self.clock.now().plus(CODE_LIFETIME),
        };
        self.identity
            .save_code(&grant)
            .await
            .map_err(|e| failed(e.into()))?;
        let mut query = vec![("code", code.as_str())];
        if let Some(state) = pending.state.as_deref() {
            query.push(("state", state));
        }
        Ok(with_query(&pending.redirect_uri, &query))
    }

    /// Answers a token request.
    ///
    /// # Errors
    /// The RFC 6749 error for the request: `invalid_client` for failed client
    /// authentication, `invalid_grant` for bad codes, verifiers, redirect URIs and
    /// refresh tokens, `invalid_scope`, `unsupported_grant_type`, `invalid_request`.
    pub async fn token(&self, request: &TokenRequest) -> Result<TokenResponse, OAuthError> {
        match request.grant_type.as_deref() {
            Some("client_credentials") => self.client_credentials(request).await,
            Some("authorization_code") => self.authorization_code(request).await,
            Some("refresh_token") => self.refresh(request).await,
            Some(other) => Err(OAuthError::new(
                OAuthErrorCode::UnsupportedGrantType,
                format!("grant type '{other}' is not supported"),
            )),
            None => Err(OAuthError::new(
                OAuthErrorCode::InvalidRequest,
                "grant_type is required",
            )),
        }
    }

    /// The client, authenticated: a confidential client must give its secret; a public
    /// one may only use `allow_public` grants.
    async fn client(
        &self,
        request: &TokenRequest,
        allow_public: bool,
    ) -> Result<Client, OAuthError> {
        let invalid = || {
            OAuthError::new(
                OAuthErrorCode::InvalidClient,
                "client authentication failed",
            )
        };
        let client_id = request
            .client_id
            .as_deref()
            .filter(|id| !id.is_empty())
            .ok_or_else(invalid)?;
        let client = self.identity.find_client(client_id).await?;
        let Some(client) = client else {
            // Spend the time a hash check would, so unknown ids do not answer faster.
            let _ = self
                .hasher
                .verify(request.client_secret.as_deref().unwrap_or(""), "")
                .await;
            return Err(invalid());
        };
        match (&client.secret_hash, request.client_secret.as_deref()) {
            (Some(hash), Some(secret)) if self.hasher.verify(secret, hash).await => Ok(client),
            (None, None) if allow_public => Ok(client),
            (None, None) => Err(OAuthError::new(
                OAuthErrorCode::UnauthorizedClient,
                "a public client may only use the authorization code grant",
            )),
            _ => Err(invalid()),
        }
    }

    async fn client_credentials(
        &self,
        request: &TokenRequest,
    ) -> Result<TokenResponse, OAuthError> {
        let client = self.client(request, false).await?;
        let scopes = granted_scopes(request.scope.as_deref(), &client.scopes)?;
        let claims = AccessClaims {
            subject: client.client_id.clone(),
            tenant: client.tenant.clone(),
            display_name: client.display_name.clone(),
            scopes: scopes.clone(),
            client_id: client.client_id.clone(),
        };
        let token = self.signer.sign(&claims, self.clock.now()).await?;
        Ok(TokenResponse {
            access_token: token.token,
            expires_in: token.expires_in,
            refresh_token: None,
            scope: scope_text(&scopes),
        })
    }

    /// The authorization code grant. Every refusal (client, redirect URI, PKCE
    /// verifier) is decided on the stored code before it is spent, so a refused
    /// request leaves the code usable by the request that should have been made; the
    /// code is spent, and the first refresh token stored, in one transaction.
    async fn authorization_code(
        &self,
        request: &TokenRequest,
    ) -> Result<TokenResponse, OAuthError> {
        let client = self.client(request, true).await?;
        let code = request
            .code
            .as_deref()
            .filter(|c| !c.is_empty())
            .ok_or_else(|| OAuthError::new(OAuthErrorCode::InvalidRequest, "code is required"))?;
        let now = self.clock.now();
        let code_hash = token_hash(code);
        let invalid = |why: &str| OAuthError::new(OAuthErrorCode::InvalidGrant, why);
        let spent = || invalid("the authorization code is invalid, expired or already used");
        let grant = self
            .identity
            .find_code(&code_hash, now)
            .await?
            .ok_or_else(spent)?;
        if grant.client_id != client.client_id {
            return Err(invalid(
                "the authorization code was issued to another client",
            ));
        }
        if request.redirect_uri.as_deref() != Some(grant.redirect_uri.as_str()) {
            return Err(invalid(
                "redirect_uri does not match the authorization request",
            ));
        }
        let verifier = request.code_verifier.as_deref().unwrap_or("");
        if !pkce_matches(verifier, &grant.code_challenge) {
            return Err(invalid(
                "the PKCE code_verifier does not match the code_challenge",
            ));
        }
        let (first, response) = self
            .prepare(
                &client,
                Grant {
                    family_id: self.ids.resource_id(),
                    subject: grant.user_id,
                    display_name: grant.display_name,
                    tenant: grant.tenant,
                    scopes: grant.scopes,
                },
            )
            .await?;
        if self.identity.exchange_code(&code_hash, now, &first).await? {
            Ok(response)
        } else {
            Err(spent())
        }
    }

    /// The refresh token grant. Every refusal (scope, client) is decided on the
    /// stored token before it is spent, so a refused request leaves the token usable;
    /// the token is spent, and its successor stored, in one transaction. A spent
    /// token presented with a request that would otherwise be granted revokes its
    /// family.
    async fn refresh(&self, request: &TokenRequest) -> Result<TokenResponse, OAuthError> {
        let client = self.client(request, true).await?;
        let presented = request
            .refresh_token
            .as_deref()
            .filter(|t| !t.is_empty())
            .ok_or_else(|| {
                OAuthError::new(OAuthErrorCode::InvalidRequest, "refresh_token is required")
            })?;
        let now = self.clock.now();
        let presented_hash = token_hash(presented);
        let invalid = |why: &str| OAuthError::new(OAuthErrorCode::InvalidGrant, why);
        let unknown = || invalid("the refresh token is invalid, expired or revoked");
        let old = self
            .identity
            .find_refresh_token(&presented_hash, &client.client_id, now)
            .await?
            .ok_or_else(unknown)?;
        let scopes = granted_scopes(request.scope.as_deref(), &old.scopes)?;
        let (successor, response) = self
            .prepare(
                &client,
                Grant {
                    family_id: old.family_id,
                    subject: old.subject,
                    display_name: old.display_name,
                    tenant: old.tenant,
                    scopes,
                },
            )
            .await?;
        match self
            .identity
            .rotate_refresh_token(&presented_hash, &client.client_id, now, &successor)
            .await?
        {
            Rotation::Rotated => Ok(response),
            Rotation::Unknown => Err(unknown()),
            Rotation::Reused => Err(invalid(
                "the refresh token was already used: the whole grant is revoked",
            )),
        }
    }

    /// The refresh token and the signed access token for `grant`. Nothing is stored:
    /// the caller stores the refresh token in the transaction that spends what paid
    /// for it, and answers only once that has committed.
    async fn prepare(
        &self,
        client: &Client,
        grant: Grant,
    ) -> Result<(RefreshToken, TokenResponse), OAuthError> {
        let now = self.clock.now();
        let refresh_secret = self.ids.secret()?;
        let refresh = RefreshToken {
            token_hash: token_hash(&refresh_secret),
            family_id: grant.family_id,
            client_id: client.client_id.clone(),
            tenant: grant.tenant,
            subject: grant.subject,
            display_name: grant.display_name,
            scopes: grant.scopes,
            expire_time: now.plus(REFRESH_LIFETIME),
        };
        let claims = AccessClaims {
            subject: refresh.subject.clone(),
            tenant: refresh.tenant.clone(),
            display_name: refresh.display_name.clone(),
            scopes: refresh.scopes.clone(),
            client_id: client.client_id.clone(),
        };
        let token = self.signer.sign(&claims, now).await?;
        let response = TokenResponse {
            access_token: token.token,
            expires_in: token.expires_in,
            refresh_token: Some(refresh_secret),
            scope: scope_text(&refresh.scopes),
        };
        Ok((refresh, response))
    }
}

/// What a refresh token grants: carried from the authorization to every successor.
struct Grant {
    family_id: String,
    subject: String,
    display_name: String,
    tenant: crate::principal::TenantId,
    scopes: BTreeSet<Scope>,
}

/// `uri` with `pairs` appended to its query string, form-encoded.
pub fn with_query(uri: &str, pairs: &[(&str, &str)]) -> String {
    let encoded = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish();
    let separator = if uri.contains('?') { '&' } else { '?' };
    format!("{uri}{separator}{encoded}")
}

/// The scopes granted: those requested (all of them allowed), or all allowed when none
/// are requested.
fn granted_scopes(
    requested: Option<&str>,
    allowed: &BTreeSet<Scope>,
) -> Result<BTreeSet<Scope>, OAuthError> {
    match requested.filter(|s| !s.trim().is_empty()) {
        None => Ok(allowed.clone()),
        Some(text) => {
            let wanted = parse_scopes(text)?;
            match wanted.iter().find(|s| !allowed.contains(s)) {
                Some(extra) => Err(OAuthError::new(
                    OAuthErrorCode::InvalidScope,
                    format!("scope '{}' is not allowed", extra.as_str()),
                )),
                None => Ok(wanted),
            }
        }
    }
}
