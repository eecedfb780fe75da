//! Bearer-token verification: the domain's [`Authenticator`].
//!
//! A token is checked in this order, and the first failure answers:
//!
//! 1. `Authorization: Bearer <token>` is present (`MISSING_TOKEN`,
//!    `UNSUPPORTED_AUTHORIZATION_SCHEME`) and the token is a compact JWS with JSON
//!    header and claims (`MALFORMED_TOKEN`).
//! 2. The header's `alg` is on the allow-list: EdDSA, RS256/384/512, PS256/384/512,
//!    ES256/384. `none` and HS* are always refused (`ALGORITHM_NOT_ALLOWED`).
//! 3. The (unverified) `iss` is the embedded issuer or a configured external one
//!    (`WRONG_ISSUER`); the key is that issuer's key named by `kid` (`UNKNOWN_KEY`),
//!    and it must fit the algorithm (`ALGORITHM_NOT_ALLOWED`). Keys are never taken
//!    from the token (`jwk`, `jku`, `x5u` are ignored).
//! 4. The signature verifies with jsonwebtoken (`BAD_SIGNATURE`).
//! 5. The verified claims: `exp` is required and not past (`MISSING_CLAIM`,
//!    `TOKEN_EXPIRED`); `nbf` and `iat` are not in the future (`TOKEN_NOT_YET_VALID`),
//!    all with [`CLOCK_LEEWAY`]; `aud` names the configured audience
//!    (`WRONG_AUDIENCE`); `sub` is present (`MISSING_CLAIM`); the tenant claim is
//!    present (`MISSING_TENANT_CLAIM`).
//!
//! Every failure is UNAUTHENTICATED, except an external issuer whose keys could never
//! be fetched: that is UNAVAILABLE (`ISSUER_UNAVAILABLE`), since retrying later may
//! succeed with the same token. Messages never quote the token or its claims.
//!
//! A token that passed is kept, by its SHA-256, in a bounded cache of
//! [`VERIFIED_TOKEN_CACHE`] tokens, so that its signature is checked once rather than
//! on every request. A cached token is still checked on every use: its `exp` against
//! the clock, and the key that signed it must still be the issuer's published key;
//! otherwise it is verified in full again. Refusals are never cached. The tenant check
//! that follows verification (tenant admission) runs on every request either way.

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use rics_domain::principal::{Authenticator, Principal, Scope, TenantId};
use rics_domain::time::Clock;
use rics_domain::{Code, Error};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::jwk::{VerificationKey, allowed_algorithm};
use crate::keys::KeyRing;
use crate::oidc::{ExternalIssuer, KeyLookup, http_client};
use crate::settings::{AuthSettings, DEFAULT_TENANT_CLAIM};

/// The clock skew tolerated between the issuer and this service when checking `exp`,
/// `nbf` and `iat`.
pub const CLOCK_LEEWAY: Duration = Duration::from_secs(30);

/// Longest token accepted, in bytes.
const MAX_TOKEN_BYTES: usize = 16 * 1024;

/// How many verified tokens are kept: one per client or user session of the token
/// lifetime, far more than a deployment has at once.
pub const VERIFIED_TOKEN_CACHE: usize = 10_000;

/// The `ErrorInfo` reasons of authentication failures.
pub mod reasons {
    pub use rics_domain::principal::reasons::{MISSING_TOKEN, UNSUPPORTED_AUTHORIZATION_SCHEME};
    /// Not a JWT: wrong shape, bad base64url, header or claims not JSON objects, a
    /// claim of the wrong type, or unsupported critical header parameters.
    pub const MALFORMED_TOKEN: &str = "MALFORMED_TOKEN";
    /// `none`, HS*, an unknown algorithm, or one that does not fit the key.
    pub const ALGORITHM_NOT_ALLOWED: &str = "ALGORITHM_NOT_ALLOWED";
    /// `iss` missing or not a configured issuer.
    pub const WRONG_ISSUER: &str = "WRONG_ISSUER";
    /// No `kid`, or no key of the issuer with that `kid`.
    pub const UNKNOWN_KEY: &str = "UNKNOWN_KEY";
    /// The signature does not verify.
    pub const BAD_SIGNATURE: &str = "BAD_SIGNATURE";
    /// `exp` has passed.
    pub const TOKEN_EXPIRED: &str = "TOKEN_EXPIRED";
    /// `nbf` or `iat` is in the future.
    pub const TOKEN_NOT_YET_VALID: &str = "TOKEN_NOT_YET_VALID";
    /// `aud` missing or not naming this service.
    pub const WRONG_AUDIENCE: &str = "WRONG_AUDIENCE";
    /// `exp` or `sub` missing (metadata `claim`).
    pub const MISSING_CLAIM: &str = "MISSING_CLAIM";
    /// The tenant claim is missing or empty (metadata `claim`).
    pub const MISSING_TENANT_CLAIM: &str = "MISSING_TENANT_CLAIM";
    /// UNAVAILABLE: the external issuer's keys could never be fetched.
    pub const ISSUER_UNAVAILABLE: &str = "ISSUER_UNAVAILABLE";
}

fn unauthenticated(reason: &'static str, message: impl Into<String>) -> Error {
    Error::new(Code::Unauthenticated, reason, message)
}

fn malformed(message: &str) -> Error {
    unauthenticated(
        reasons::MALFORMED_TOKEN,
        format!("The bearer token is not a well-formed JWT: {message}."),
    )
}

/// A token whose signature and claims have verified.
#[derive(Clone)]
struct VerifiedToken {
    principal: Principal,
    /// The `iss` claim.
    issuer: String,
    /// The key the signature verified with.
    key: Arc<VerificationKey>,
    /// The `exp` claim, in Unix seconds.
    expires: i64,
}

/// Who issued a token.
enum Source<'a> {
    /// The embedded authorization server.
    Embedded,
    /// A configured OpenID Connect issuer.
    External(&'a ExternalIssuer),
}

/// The [`Authenticator`]: verifies JWT bearer tokens of the embedded issuer (keys from
/// the [`KeyRing`]) and of external OpenID Connect issuers (keys by discovery and
/// JWKS), and maps their claims to a [`Principal`]: `tenant` (or the issuer's
/// configured claim), `sub`, `scope` (space separated) or `scp` (array or string)
/// through [`Scope::parse`] ignoring unknown scopes, and `name` (else `sub`) as the
/// display name.
pub struct JwtAuthenticator {
    issuer: String,
    audience: String,
    keys: Arc<KeyRing>,
    external: HashMap<String, ExternalIssuer>,
    clock: Arc<dyn Clock>,
    /// Tokens verified before, by the SHA-256 of the token.
    verified: quick_cache::sync::Cache<[u8; 32], Arc<VerifiedToken>>,
}

impl fmt::Debug for JwtAuthenticator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JwtAuthenticator")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("external", &self.external.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl JwtAuthenticator {
    /// An authenticator trusting the embedded issuer (`settings.issuer`, keys from
    /// `keys`) and `settings.external_issuers`, for `settings.audience`. External keys
    /// are fetched on first use; [`JwtAuthenticator::discover`] fetches them ahead.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for bad settings; INTERNAL when the HTTP client cannot be
    /// built.
    pub fn new(
        settings: &AuthSettings,
        keys: Arc<KeyRing>,
        clock: Arc<dyn Clock>,
    ) -> rics_domain::Result<JwtAuthenticator> {
        settings.validate()?;
        let mut external = HashMap::new();
        if !settings.external_issuers.is_empty() {
            let http = http_client()
                .map_err(|e| Error::internal(format!("cannot build the HTTP client: {e}")))?;
            for issuer in &settings.external_issuers {
                external.insert(
                    issuer.issuer.clone(),
                    ExternalIssuer::new(issuer, http.clone(), clock.clone()),
                );
            }
        }
        Ok(JwtAuthenticator {
            issuer: settings.issuer.clone(),
            audience: settings.audience.clone(),
            keys,
            external,
            clock,
            verified: quick_cache::sync::Cache::new(VERIFIED_TOKEN_CACHE),
        })
    }

    /// Fetches every external issuer's keys now (discovery, then JWKS), so the first
    /// requests need not wait. Failures are logged; tokens retry later.
    pub async fn discover(&self) {
        for issuer in self.external.values() {
            issuer.refresh_if_due().await;
        }
    }

    fn source(&self, iss: &str) -> Option<Source<'_>> {
        if iss == self.issuer {
            Some(Source::Embedded)
        } else {
            self.external.get(iss).map(Source::External)
        }
    }

    /// The verified principal of `token`: from the cache when the token verified
    /// before and is still good, else by verifying it in full.
    async fn verify(&self, token: &str) -> rics_domain::Result<Principal> {
        if token.len() > MAX_TOKEN_BYTES {
            return Err(malformed("it is too long"));
        }
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if let Some(verified) = self.verified.get(&digest) {
            if self.still_good(&verified).await {
                return Ok(verified.principal.clone());
            }
            self.verified.remove(&digest);
        }
        let verified = Arc::new(self.verify_in_full(token).await?);
        let principal = verified.principal.clone();
        self.verified.insert(digest, verified);
        Ok(principal)
    }

    /// Whether a token verified before may be accepted again without checking its
    /// signature: it has not expired, and its issuer still publishes the key that
    /// signed it. The other checks cannot turn: `nbf` and `iat` only move into the
    /// past, and the audience and claims are the token's own.
    async fn still_good(&self, verified: &VerifiedToken) -> bool {
        if self.unix_now() >= verified.expires.saturating_add(leeway_seconds()) {
            return false;
        }
        let Some(source) = self.source(&verified.issuer) else {
            return false;
        };
        self.key(&source, &verified.key.kid)
            .await
            .is_ok_and(|key| Arc::ptr_eq(&key, &verified.key))
    }

    /// Every check of the module's list, in its order.
    async fn verify_in_full(&self, token: &str) -> rics_domain::Result<VerifiedToken> {
        let (header, payload) = parts(token)?;
        let header = json_object(header, "the header")?;
        let algorithm = header
            .get("alg")
            .and_then(Value::as_str)
            .ok_or_else(|| malformed("the header has no algorithm"))?;
        let Some(algorithm) = allowed_algorithm(algorithm) else {
            return Err(unauthenticated(
                reasons::ALGORITHM_NOT_ALLOWED,
                "The token's signing algorithm is not allowed: tokens must be signed with \
                 EdDSA, RS256, RS384, RS512, PS256, PS384, PS512, ES256 or ES384.",
            ));
        };
        if header.contains_key("crit") {
            return Err(malformed("critical header parameters are not supported"));
        }
        let claims = json_object(payload, "the claims")?;
        let issuer = claims
            .get("iss")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let source = self.source(issuer).ok_or_else(|| {
            unauthenticated(
                reasons::WRONG_ISSUER,
                "The token's issuer is missing or not trusted by this service.",
            )
        })?;
        let kid = header.get("kid").and_then(Value::as_str).ok_or_else(|| {
            unauthenticated(reasons::UNKNOWN_KEY, "The token header names no key id.")
        })?;
        let key = self.key(&source, kid).await?;
        if !key.accepts(algorithm) {
            return Err(unauthenticated(
                reasons::ALGORITHM_NOT_ALLOWED,
                "The token's signing algorithm does not fit the issuer's key.",
            ));
        }
        let claims = verified_claims(token, &key, algorithm)?;
        let expires = self.check_claims(&claims)?;
        let tenant_claim = match source {
            Source::Embedded => DEFAULT_TENANT_CLAIM,
            Source::External(issuer) => issuer.tenant_claim.as_str(),
        };
        Ok(VerifiedToken {
            principal: principal(&claims, tenant_claim)?,
            issuer: issuer.to_owned(),
            key,
            expires,
        })
    }

    /// The issuer's key named `kid`.
    async fn key(
        &self,
        source: &Source<'_>,
        kid: &str,
    ) -> rics_domain::Result<Arc<VerificationKey>> {
        let unknown = || {
            unauthenticated(
                reasons::UNKNOWN_KEY,
                "The token was signed with a key the issuer does not publish.",
            )
        };
        match source {
            Source::Embedded => self.keys.verification_key(kid).await.ok_or_else(unknown),
            Source::External(issuer) => match issuer.key(kid).await {
                KeyLookup::Found(key) => Ok(key),
                KeyLookup::Unknown => Err(unknown()),
                KeyLookup::Unavailable => Err(Error::unavailable(
                    reasons::ISSUER_UNAVAILABLE,
                    "The token's issuer could not be reached to fetch its keys; retry later.",
                )),
            },
        }
    }

    /// The clock's time in whole Unix seconds, as NumericDate claims count.
    fn unix_now(&self) -> i64 {
        self.clock.now().unix_micros().div_euclid(1_000_000)
    }

    /// The time and audience checks of verified claims; returns `exp`.
    fn check_claims(&self, claims: &Map<String, Value>) -> rics_domain::Result<i64> {
        let now = self.unix_now();
        let leeway = leeway_seconds();
        let exp = numeric_date(claims, "exp")?.ok_or_else(|| missing_claim("exp"))?;
        if now >= exp.saturating_add(leeway) {
            return Err(unauthenticated(
                reasons::TOKEN_EXPIRED,
                "The token has expired: obtain a new one.",
            ));
        }
        if numeric_date(claims, "nbf")?.is_some_and(|nbf| nbf > now.saturating_add(leeway)) {
            return Err(unauthenticated(
                reasons::TOKEN_NOT_YET_VALID,
                "The token is not valid yet (nbf is in the future).",
            ));
        }
        if numeric_date(claims, "iat")?.is_some_and(|iat| iat > now.saturating_add(leeway)) {
            return Err(unauthenticated(
                reasons::TOKEN_NOT_YET_VALID,
                "The token is not valid yet (iat is in the future).",
            ));
        }
        let audience_ok = match claims.get("aud") {
            Some(Value::String(aud)) => *aud == self.audience,
            Some(Value::Array(auds)) => auds.iter().any(|aud| *aud == *self.audience),
            _ => false,
        };
        if !audience_ok {
            return Err(unauthenticated(
                reasons::WRONG_AUDIENCE,
                format!(
                    "The token is not meant for this service: its audience must include '{}'.",
                    self.audience
                ),
            )
            .with_metadata("audience", self.audience.clone()));
        }
        Ok(exp)
    }
}

#[async_trait]
impl Authenticator for JwtAuthenticator {
    async fn authenticate<'a>(
        &self,
        authorization: Option<&'a str>,
    ) -> rics_domain::Result<Principal> {
        let token = bearer_token(authorization)?;
        self.verify(token).await
    }
}

/// [`CLOCK_LEEWAY`] in whole seconds.
fn leeway_seconds() -> i64 {
    i64::try_from(CLOCK_LEEWAY.as_secs()).unwrap_or(0)
}

/// The token of an `Authorization: Bearer <token>` header value.
fn bearer_token(authorization: Option<&str>) -> rics_domain::Result<&str> {
    let value = authorization.map(str::trim).unwrap_or_default();
    if value.is_empty() {
        return Err(unauthenticated(
            reasons::MISSING_TOKEN,
            "The request has no bearer token: send an Authorization header with Bearer and \
             an access token.",
        ));
    }
    let (scheme, token) = value
        .split_once(|c: char| c.is_ascii_whitespace())
        .unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("Bearer") {
        return Err(unauthenticated(
            reasons::UNSUPPORTED_AUTHORIZATION_SCHEME,
            "Only Bearer access tokens are accepted in the Authorization header.",
        ));
    }
    let token = token.trim();
    if token.is_empty() {
        return Err(unauthenticated(
            reasons::MISSING_TOKEN,
            "The Authorization header has the Bearer scheme but no token.",
        ));
    }
    Ok(token)
}

/// The base64url header and claims segments of a compact JWS.
fn parts(token: &str) -> rics_domain::Result<(&str, &str)> {
    let segments: Vec<&str> = token.split('.').collect();
    let [header, payload, signature] = segments[..] else {
        return Err(malformed("a JWT has three dot-separated parts"));
    };
    let base64url = |s: &str| {
        s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    if header.is_empty()
        || payload.is_empty()
        || ![header, payload, signature].iter().all(|s| base64url(s))
    {
        return Err(malformed("its parts must be base64url"));
    }
    Ok((header, payload))
}

/// A base64url segment holding a JSON object.
fn json_object(segment: &str, what: &str) -> rics_domain::Result<Map<String, Value>> {
    let bytes = URL_SAFE_NO_PAD
        .decode(segment)
        .map_err(|_| malformed(&format!("{what} is not base64url")))?;
    match serde_json::from_slice(&bytes) {
        Ok(Value::Object(object)) => Ok(object),
        _ => Err(malformed(&format!("{what} is not a JSON object"))),
    }
}

/// The claims of `token` once its signature has verified with `key`.
fn verified_claims(
    token: &str,
    key: &VerificationKey,
    algorithm: Algorithm,
) -> rics_domain::Result<Map<String, Value>> {
    // jsonwebtoken checks the signature only: the claims are checked afterwards against
    // the Clock port (jsonwebtoken reads the system clock).
    let mut validation = Validation::new(algorithm);
    validation.required_spec_claims.clear();
    validation.validate_exp = false;
    validation.validate_nbf = false;
    validation.validate_aud = false;
    match jsonwebtoken::decode::<Map<String, Value>>(token, &key.decoding, &validation) {
        Ok(data) => Ok(data.claims),
        Err(error) => Err(match error.kind() {
            ErrorKind::InvalidToken
            | ErrorKind::Base64(_)
            | ErrorKind::Json(_)
            | ErrorKind::Utf8(_) => malformed("it could not be decoded"),
            ErrorKind::InvalidAlgorithm
            | ErrorKind::InvalidAlgorithmName
            | ErrorKind::UnsupportedAlgorithm
            | ErrorKind::MissingAlgorithm => unauthenticated(
                reasons::ALGORITHM_NOT_ALLOWED,
                "The token's signing algorithm does not fit the issuer's key.",
            ),
            kind => {
                if !matches!(kind, ErrorKind::InvalidSignature) {
                    tracing::debug!(kid = %key.kid, error = %error, "signature check failed");
                }
                unauthenticated(
                    reasons::BAD_SIGNATURE,
                    "The token's signature does not verify.",
                )
            }
        }),
    }
}

fn missing_claim(claim: &str) -> Error {
    unauthenticated(
        reasons::MISSING_CLAIM,
        format!("The token has no '{claim}' claim."),
    )
    .with_metadata("claim", claim)
}

/// The NumericDate claim `name` in whole seconds, if present.
fn numeric_date(claims: &Map<String, Value>, name: &str) -> rics_domain::Result<Option<i64>> {
    match claims.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(number)) => number
            .as_i64()
            .or_else(|| {
                number
                    .as_f64()
                    .filter(|f| f.is_finite())
                    // Saturating float-to-int conversion.
                    .map(|f| f.floor() as i64)
            })
            .map(Some)
            .ok_or_else(|| malformed("a date claim is not a number")),
        Some(_) => Err(malformed("a date claim is not a number")),
    }
}

/// The non-empty string claim `name`.
fn string_claim<'a>(claims: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    claims
        .get(name)
        .and_then(Value::as_str)
        .filter(|value| !value.trim().is_empty())
}

/// The principal named by verified, checked claims.
fn principal(claims: &Map<String, Value>, tenant_claim: &str) -> rics_domain::Result<Principal> {
    let subject = string_claim(claims, "sub").ok_or_else(|| missing_claim("sub"))?;
    let tenant = string_claim(claims, tenant_claim).ok_or_else(|| {
        unauthenticated(
            reasons::MISSING_TENANT_CLAIM,
            format!("The token names no tenant: the '{tenant_claim}' claim is required."),
        )
        .with_metadata("claim", tenant_claim)
    })?;
    let names: Vec<&str> = match claims.get("scope").or_else(|| claims.get("scp")) {
        Some(Value::String(scopes)) => scopes.split_whitespace().collect(),
        Some(Value::Array(scopes)) => scopes.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let scopes: BTreeSet<Scope> = names.into_iter().filter_map(Scope::parse).collect();
    let display_name = string_claim(claims, "name").unwrap_or(subject);
    Ok(Principal {
        tenant: TenantId::new(tenant),
        subject: subject.to_owned(),
        display_name: display_name.to_owned(),
        scopes,
    })
}

#[cfg(test)]
mod tests {
    use base64::engine::general_purpose::STANDARD;
    use jsonwebtoken::{EncodingKey, Header};
    use rics_domain::identity::model::AccessClaims;
    use rics_domain::identity::ports::TokenSigner;
    use serde_json::json;

    use super::*;
    use crate::keys::{KEY_REFETCH_INTERVAL, generate_key};
    use crate::settings::ExternalIssuerSettings;
    use crate::signer::JwtSigner;
    use crate::testing::{
        EC_TEST_DER, EC_TEST_X, EC_TEST_Y, ManualClock, MemoryKeyRepository, RSA_TEST_DER,
        RSA_TEST_E, RSA_TEST_N, StubServer,
    };

    const ISSUER: &str = "https://rics.test";
    const AUDIENCE: &str = "rics-api";
    const DISCOVERY: &str = "/.well-known/openid-configuration";

    struct Fixture {
        clock: Arc<ManualClock>,
        keys: Arc<KeyRing>,
        auth: JwtAuthenticator,
    }

    async fn fixture(external: Vec<ExternalIssuerSettings>) -> Fixture {
        let clock = Arc::new(ManualClock::default());
        let keys = Arc::new(
            KeyRing::start(
                Arc::new(MemoryKeyRepository::default()),
                clock.clone(),
                Duration::from_secs(900),
            )
            .await
            .unwrap(),
        );
        let mut settings = AuthSettings::new(ISSUER, AUDIENCE);
        settings.external_issuers = external;
        let auth = JwtAuthenticator::new(&settings, keys.clone(), clock.clone()).unwrap();
        Fixture { clock, keys, auth }
    }

    impl Fixture {
        /// Valid claims of the embedded issuer.
        fn claims(&self) -> Value {
            let now = self.clock.unix();
            json!({
                "iss": ISSUER, "aud": AUDIENCE, "sub": "client-1", "exp": now + 300,
                "iat": now, "nbf": now, "tenant": "acme", "scope": "rics.read rics.write",
                "name": "Acme batch", "client_id": "client-1", "jti": "j1",
            })
        }

        /// `claims` signed by the embedded issuer's current key.
        async fn sign(&self, claims: &Value) -> String {
            let key = self.keys.current().await.unwrap();
            let mut header = Header::new(Algorithm::EdDSA);
            header.kid = Some(key.kid.clone());
            jsonwebtoken::encode(&header, claims, &key.encoding).unwrap()
        }

        /// `claims` changed by `change`, signed by the embedded issuer.
        async fn sign_with(&self, change: impl FnOnce(&mut Value)) -> String {
            let mut claims = self.claims();
            change(&mut claims);
            self.sign(&claims).await
        }

        async fn kid(&self) -> String {
            self.keys.current().await.unwrap().kid.clone()
        }

        async fn accept(&self, token: &str) -> Principal {
            self.auth
                .authenticate(Some(&format!("Bearer {token}")))
                .await
                .unwrap()
        }

        /// The reason `token` is refused; checks that the error is UNAUTHENTICATED
        /// and does not echo the token.
        async fn refuse(&self, token: &str) -> &'static str {
            refused(&self.auth, Some(&format!("Bearer {token}")), token).await
        }
    }

    async fn refused(auth: &JwtAuthenticator, header: Option<&str>, token: &str) -> &'static str {
        let error = auth.authenticate(header).await.unwrap_err();
        assert_eq!(error.code, Code::Unauthenticated, "{error:?}");
        for segment in token.split('.').filter(|s| s.len() > 3) {
            assert!(!error.message.contains(segment), "{error:?}");
            assert!(
                error
                    .complete_metadata()
                    .values()
                    .all(|v| !v.contains(segment)),
                "{error:?}"
            );
        }
        error.reason
    }

    fn b64(value: &Value) -> String {
        URL_SAFE_NO_PAD.encode(value.to_string())
    }

    /// A token from raw parts.
    fn raw(header: &Value, claims: &Value, signature: &str) -> String {
        format!("{}.{}.{signature}", b64(header), b64(claims))
    }

    #[tokio::test]
    async fn accepts_the_embedded_servers_tokens() {
        let f = fixture(Vec::new()).await;
        let signer = JwtSigner::new(f.keys.clone(), ISSUER.into(), AUDIENCE.into());
        let claims = AccessClaims {
            subject: "user-7".into(),
            tenant: TenantId::new("acme"),
            display_name: "Ada".into(),
            scopes: BTreeSet::from([Scope::Read, Scope::Admin]),
            client_id: "web".into(),
        };
        let token = signer.sign(&claims, f.clock.now()).await.unwrap();
        let principal = f.accept(&token.token).await;
        assert_eq!(
            principal,
            Principal {
                tenant: TenantId::new("acme"),
                subject: "user-7".into(),
                display_name: "Ada".into(),
                scopes: BTreeSet::from([Scope::Read, Scope::Admin]),
            }
        );
        // The scheme is case-insensitive and surrounding spaces are ignored.
        let header = format!("  bearer   {}  ", token.token);
        assert!(f.auth.authenticate(Some(&header)).await.is_ok());
    }

    #[tokio::test]
    async fn missing_token_or_another_scheme_is_refused() {
        let f = fixture(Vec::new()).await;
        let token = f.sign(&f.claims()).await;
        let cases = [
            (None, reasons::MISSING_TOKEN),
            (Some(String::new()), reasons::MISSING_TOKEN),
            (Some("   ".to_owned()), reasons::MISSING_TOKEN),
            (Some("Bearer".to_owned()), reasons::MISSING_TOKEN),
            (Some("Bearer    ".to_owned()), reasons::MISSING_TOKEN),
            (
                Some(format!("Basic {token}")),
                reasons::UNSUPPORTED_AUTHORIZATION_SCHEME,
            ),
            (
                Some(format!("DPoP {token}")),
                reasons::UNSUPPORTED_AUTHORIZATION_SCHEME,
            ),
            (
                Some(token.clone()),
                reasons::UNSUPPORTED_AUTHORIZATION_SCHEME,
            ),
        ];
        for (header, reason) in cases {
            assert_eq!(
                refused(&f.auth, header.as_deref(), &token).await,
                reason,
                "{header:?}"
            );
        }
    }

    #[tokio::test]
    async fn expired_tokens_are_refused_after_the_leeway() {
        let f = fixture(Vec::new()).await;
        let token = f.sign(&f.claims()).await; // exp = now + 300
        f.clock
            .advance(Duration::from_secs(300) + CLOCK_LEEWAY - Duration::from_secs(1));
        f.accept(&token).await;
        f.clock.advance(Duration::from_secs(1));
        assert_eq!(f.refuse(&token).await, reasons::TOKEN_EXPIRED);
    }

    #[tokio::test]
    async fn tokens_not_yet_valid_are_refused_beyond_the_leeway() {
        let f = fixture(Vec::new()).await;
        let now = f.clock.unix();
        let leeway = CLOCK_LEEWAY.as_secs() as i64;
        let token = f.sign_with(|c| c["nbf"] = json!(now + leeway + 1)).await;
        assert_eq!(f.refuse(&token).await, reasons::TOKEN_NOT_YET_VALID);
        let token = f.sign_with(|c| c["iat"] = json!(now + leeway + 1)).await;
        assert_eq!(f.refuse(&token).await, reasons::TOKEN_NOT_YET_VALID);
        // Within the leeway, a clock slightly ahead is tolerated.
        let token = f
            .sign_with(|c| {
                c["nbf"] = json!(now + leeway);
                c["iat"] = json!(now + leeway);
            })
            .await;
        f.accept(&token).await;
        // Fractional NumericDates are fine.
        let token = f.sign_with(|c| c["nbf"] = json!(now as f64 + 0.5)).await;
        f.accept(&token).await;
    }

    #[tokio::test]
    async fn wrong_or_missing_issuer_is_refused() {
        let f = fixture(Vec::new()).await;
        for iss in [
            json!("https://evil.test"),
            json!("https://rics.test/"),
            json!(null),
            json!(1),
        ] {
            let token = f.sign_with(|c| c["iss"] = iss.clone()).await;
            assert_eq!(f.refuse(&token).await, reasons::WRONG_ISSUER, "{iss}");
        }
    }

    #[tokio::test]
    async fn wrong_or_missing_audience_is_refused() {
        let f = fixture(Vec::new()).await;
        for aud in [
            json!("other"),
            json!(["other", "x"]),
            json!([]),
            json!(null),
            json!(7),
        ] {
            let token = f.sign_with(|c| c["aud"] = aud.clone()).await;
            assert_eq!(f.refuse(&token).await, reasons::WRONG_AUDIENCE, "{aud}");
        }
        let token = f.sign_with(|c| c["aud"] = json!(["other", AUDIENCE])).await;
        f.accept(&token).await;
    }

    #[tokio::test]
    async fn unknown_or_missing_kid_is_refused() {
        let f = fixture(Vec::new()).await;
        let key = f.keys.current().await.unwrap();
        for kid in [Some("no-such-key".to_owned()), None] {
            let mut header = Header::new(Algorithm::EdDSA);
            header.kid = kid.clone();
            let token = jsonwebtoken::encode(&header, &f.claims(), &key.encoding).unwrap();
            assert_eq!(f.refuse(&token).await, reasons::UNKNOWN_KEY, "{kid:?}");
        }
    }

    #[tokio::test]
    async fn bad_signatures_are_refused() {
        let f = fixture(Vec::new()).await;
        let token = f.sign(&f.claims()).await;
        let signature = token.rsplit('.').next().unwrap();

        // Claims changed after signing (another tenant, more scopes).
        let mut claims = f.claims();
        claims["tenant"] = json!("victim");
        claims["scope"] = json!("rics.admin");
        let header = json!({"alg": "EdDSA", "kid": f.kid().await});
        let tampered = raw(&header, &claims, signature);
        assert_eq!(f.refuse(&tampered).await, reasons::BAD_SIGNATURE);

        // Signed by another key that claims the server's kid.
        let other = generate_key(f.clock.now()).unwrap();
        let other = EncodingKey::from_ed_der(&STANDARD.decode(&other.private_key).unwrap());
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = Some(f.kid().await);
        let forged = jsonwebtoken::encode(&header, &f.claims(), &other).unwrap();
        assert_eq!(f.refuse(&forged).await, reasons::BAD_SIGNATURE);

        // A signature of the wrong length, or none at all.
        let short = format!("{}.AAAA", token.rsplit_once('.').unwrap().0);
        assert_eq!(f.refuse(&short).await, reasons::BAD_SIGNATURE);
        let empty = format!("{}.", token.rsplit_once('.').unwrap().0);
        assert_eq!(f.refuse(&empty).await, reasons::BAD_SIGNATURE);
    }

    #[tokio::test]
    async fn alg_none_is_refused() {
        let f = fixture(Vec::new()).await;
        let kid = f.kid().await;
        for alg in ["none", "None", "NONE", "nOnE", ""] {
            let token = raw(&json!({"alg": alg, "kid": kid}), &f.claims(), "");
            assert_eq!(
                f.refuse(&token).await,
                reasons::ALGORITHM_NOT_ALLOWED,
                "{alg}"
            );
        }
        let token = raw(&json!({"typ": "JWT", "kid": kid}), &f.claims(), "");
        assert_eq!(f.refuse(&token).await, reasons::MALFORMED_TOKEN);
    }

    #[tokio::test]
    async fn hs256_signed_with_the_public_key_is_refused() {
        // The classic key confusion: an HMAC "signature" whose secret is the server's
        // public key, in every form an attacker could find it.
        let f = fixture(Vec::new()).await;
        let jwk = f.keys.jwks()["keys"][0].clone();
        let x = jwk["x"].as_str().unwrap().to_owned();
        let secrets = [
            URL_SAFE_NO_PAD.decode(&x).unwrap(),
            x.clone().into_bytes(),
            jwk.to_string().into_bytes(),
        ];
        for alg in [Algorithm::HS256, Algorithm::HS384, Algorithm::HS512] {
            for secret in &secrets {
                let mut header = Header::new(alg);
                header.kid = Some(f.kid().await);
                let token =
                    jsonwebtoken::encode(&header, &f.claims(), &EncodingKey::from_secret(secret))
                        .unwrap();
                assert_eq!(f.refuse(&token).await, reasons::ALGORITHM_NOT_ALLOWED);
            }
        }
    }

    #[tokio::test]
    async fn an_algorithm_that_does_not_fit_the_key_is_refused() {
        let f = fixture(Vec::new()).await;
        let rsa = EncodingKey::from_rsa_der(&STANDARD.decode(RSA_TEST_DER).unwrap());
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some(f.kid().await);
        let token = jsonwebtoken::encode(&header, &f.claims(), &rsa).unwrap();
        assert_eq!(f.refuse(&token).await, reasons::ALGORITHM_NOT_ALLOWED);
    }

    #[tokio::test]
    async fn missing_tenant_claim_is_refused() {
        let f = fixture(Vec::new()).await;
        for tenant in [
            json!(null),
            json!(""),
            json!("  "),
            json!(42),
            json!(["acme"]),
        ] {
            let token = f.sign_with(|c| c["tenant"] = tenant.clone()).await;
            assert_eq!(
                f.refuse(&token).await,
                reasons::MISSING_TENANT_CLAIM,
                "{tenant}"
            );
        }
        let token = f
            .sign_with(|c| drop(c.as_object_mut().unwrap().remove("tenant")))
            .await;
        let error = f
            .auth
            .authenticate(Some(&format!("Bearer {token}")))
            .await
            .unwrap_err();
        assert_eq!(error.metadata["claim"], "tenant");
    }

    #[tokio::test]
    async fn missing_subject_or_expiry_is_refused() {
        let f = fixture(Vec::new()).await;
        for claim in ["sub", "exp"] {
            let token = f
                .sign_with(|c| drop(c.as_object_mut().unwrap().remove(claim)))
                .await;
            assert_eq!(f.refuse(&token).await, reasons::MISSING_CLAIM, "{claim}");
        }
        let token = f.sign_with(|c| c["exp"] = json!("tomorrow")).await;
        assert_eq!(f.refuse(&token).await, reasons::MALFORMED_TOKEN);
    }

    #[tokio::test]
    async fn garbage_is_refused() {
        let f = fixture(Vec::new()).await;
        let valid = f.sign(&f.claims()).await;
        let (head, rest) = valid.split_once('.').unwrap();
        let cases = [
            "garbage".to_owned(),
            "a.b".to_owned(),
            "a.b.c.d".to_owned(),
            "..".to_owned(),
            "!!!.###.$$$".to_owned(),
            format!("{head}.{rest}.extra"),
            format!("{}.{rest}", URL_SAFE_NO_PAD.encode("not json")),
            format!("{}.{rest}", URL_SAFE_NO_PAD.encode("[1,2]")),
            format!("{head}.{}.sig", URL_SAFE_NO_PAD.encode("not json")),
            format!("{head}.{}.sig", URL_SAFE_NO_PAD.encode("\"claims\"")),
            format!("{head}=.{rest}"),
            "x".repeat(MAX_TOKEN_BYTES + 1),
            format!("{valid} {valid}"),
        ];
        for token in cases {
            assert_eq!(f.refuse(&token).await, reasons::MALFORMED_TOKEN, "{token}");
        }
    }

    #[tokio::test]
    async fn critical_header_parameters_are_refused() {
        let f = fixture(Vec::new()).await;
        let key = f.keys.current().await.unwrap();
        let header = json!({"alg": "EdDSA", "kid": key.kid, "crit": ["exp"], "exp": 1});
        let message = format!("{}.{}", b64(&header), b64(&f.claims()));
        let signature =
            jsonwebtoken::crypto::sign(message.as_bytes(), &key.encoding, Algorithm::EdDSA)
                .unwrap();
        let token = format!("{message}.{signature}");
        assert_eq!(f.refuse(&token).await, reasons::MALFORMED_TOKEN);
    }

    #[tokio::test]
    async fn claims_map_to_the_principal() {
        let f = fixture(Vec::new()).await;
        let token = f
            .sign_with(|c| c["scope"] = json!("rics.read openid rics.admin  rics.unknown"))
            .await;
        let principal = f.accept(&token).await;
        assert_eq!(
            principal.scopes,
            BTreeSet::from([Scope::Read, Scope::Admin])
        );
        assert_eq!(principal.tenant, TenantId::new("acme"));
        assert_eq!(principal.subject, "client-1");
        assert_eq!(principal.display_name, "Acme batch");

        let token = f
            .sign_with(|c| {
                let c = c.as_object_mut().unwrap();
                c.remove("scope");
                c.remove("name");
                c.insert("scp".into(), json!(["rics.write", "profile", 3]));
            })
            .await;
        let principal = f.accept(&token).await;
        assert_eq!(principal.scopes, BTreeSet::from([Scope::Write]));
        assert_eq!(
            principal.display_name, "client-1",
            "sub when there is no name"
        );

        let token = f
            .sign_with(|c| drop(c.as_object_mut().unwrap().remove("scope")))
            .await;
        assert!(f.accept(&token).await.scopes.is_empty());
    }

    #[tokio::test]
    async fn tokens_of_a_rotated_key_stay_valid() {
        let f = fixture(Vec::new()).await;
        let old = f.sign(&f.claims()).await;
        f.keys.rotate().await.unwrap();
        let new = f.sign(&f.claims()).await;
        f.accept(&old).await;
        f.accept(&new).await;
    }

    #[tokio::test]
    async fn a_verified_token_is_kept_until_it_expires() {
        let f = fixture(Vec::new()).await;
        let token = f.sign(&f.claims()).await;
        let first = f.accept(&token).await;
        assert_eq!(f.auth.verified.len(), 1);
        assert_eq!(f.accept(&token).await, first, "the cached principal");
        assert_eq!(f.auth.verified.len(), 1, "one entry per token");

        let other = f.sign_with(|c| c["sub"] = json!("client-2")).await;
        assert_eq!(f.accept(&other).await.subject, "client-2");
        assert_eq!(f.auth.verified.len(), 2);

        // exp is now + 300; the leeway is 30 s.
        f.clock.advance(Duration::from_secs(300 + 29));
        f.accept(&token).await;
        f.clock.advance(Duration::from_secs(1));
        assert_eq!(f.refuse(&token).await, reasons::TOKEN_EXPIRED);
        assert_eq!(f.refuse(&other).await, reasons::TOKEN_EXPIRED);
        assert_eq!(f.auth.verified.len(), 0, "expired tokens leave the cache");
    }

    #[tokio::test]
    async fn refused_tokens_are_never_kept() {
        let f = fixture(Vec::new()).await;
        let good = f.sign(&f.claims()).await;
        // The good token's claims, upgraded after signing.
        let mut claims = f.claims();
        claims["scope"] = json!("rics.admin");
        let header = json!({"alg": "EdDSA", "kid": f.kid().await});
        let forged = raw(&header, &claims, good.rsplit('.').next().unwrap());
        for _ in 0..2 {
            assert_eq!(f.refuse(&forged).await, reasons::BAD_SIGNATURE);
        }
        let future = f
            .sign_with(|c| c["nbf"] = json!(f.clock.unix() + 3600))
            .await;
        assert_eq!(f.refuse(&future).await, reasons::TOKEN_NOT_YET_VALID);
        assert_eq!(f.auth.verified.len(), 0);
        // Keeping the good token lets no twin with other claims through: the cache is
        // keyed by the whole token.
        f.accept(&good).await;
        assert_eq!(f.refuse(&forged).await, reasons::BAD_SIGNATURE);
    }

    // External OpenID Connect issuers, served by a stub on 127.0.0.1.

    struct Idp {
        server: StubServer,
        ed_kid: String,
        ed_key: EncodingKey,
        ed_jwk: Value,
    }

    impl Idp {
        async fn start() -> Idp {
            let server = StubServer::start().await;
            let ed = generate_key(ManualClock::default().now()).unwrap();
            let idp = Idp {
                ed_kid: ed.kid.clone(),
                ed_key: EncodingKey::from_ed_der(&STANDARD.decode(&ed.private_key).unwrap()),
                ed_jwk: serde_json::from_str(&ed.public_jwk).unwrap(),
                server,
            };
            idp.server.set(
                DISCOVERY,
                200,
                json!({"issuer": idp.issuer(), "jwks_uri": format!("{}/jwks", idp.issuer())})
                    .to_string(),
            );
            idp.publish(std::slice::from_ref(&idp.ed_jwk));
            idp
        }

        fn issuer(&self) -> String {
            self.server.url.clone()
        }

        fn publish(&self, keys: &[Value]) {
            self.server
                .set("/jwks", 200, json!({ "keys": keys }).to_string());
        }

        fn rsa_jwk() -> Value {
            json!({"kty": "RSA", "kid": "rsa-1", "use": "sig", "alg": "RS256",
                   "n": RSA_TEST_N, "e": RSA_TEST_E})
        }

        fn ec_jwk() -> Value {
            json!({"kty": "EC", "kid": "ec-1", "crv": "P-256", "x": EC_TEST_X, "y": EC_TEST_Y})
        }

        fn claims(&self, now: i64) -> Value {
            json!({
                "iss": self.issuer(), "aud": [AUDIENCE, "account"], "sub": "kc-user",
                "exp": now + 300, "iat": now, "org": "globex",
                "scp": ["rics.read"], "name": "Grace",
            })
        }

        fn sign(&self, alg: Algorithm, kid: &str, key: &EncodingKey, claims: &Value) -> String {
            let mut header = Header::new(alg);
            header.kid = Some(kid.to_owned());
            jsonwebtoken::encode(&header, claims, key).unwrap()
        }

        fn sign_ed(&self, claims: &Value) -> String {
            self.sign(Algorithm::EdDSA, &self.ed_kid, &self.ed_key, claims)
        }
    }

    fn rsa_key() -> EncodingKey {
        EncodingKey::from_rsa_der(&STANDARD.decode(RSA_TEST_DER).unwrap())
    }

    fn ec_key() -> EncodingKey {
        EncodingKey::from_ec_der(&STANDARD.decode(EC_TEST_DER).unwrap())
    }

    async fn with_idp(tenant_claim: &str) -> (Fixture, Idp) {
        let idp = Idp::start().await;
        let f = fixture(vec![
            ExternalIssuerSettings::new(idp.issuer()).with_tenant_claim(tenant_claim),
        ])
        .await;
        (f, idp)
    }

    #[tokio::test]
    async fn external_issuer_keys_are_found_by_discovery_and_cached() {
        let (f, idp) = with_idp("org").await;
        idp.publish(&[idp.ed_jwk.clone(), Idp::rsa_jwk(), Idp::ec_jwk()]);
        let claims = idp.claims(f.clock.unix());
        let tokens = [
            idp.sign_ed(&claims),
            idp.sign(Algorithm::RS256, "rsa-1", &rsa_key(), &claims),
            idp.sign(Algorithm::ES256, "ec-1", &ec_key(), &claims),
        ];
        for token in &tokens {
            let principal = f.accept(token).await;
            assert_eq!(principal.tenant, TenantId::new("globex"));
            assert_eq!(principal.subject, "kc-user");
            assert_eq!(principal.display_name, "Grace");
            assert_eq!(principal.scopes, BTreeSet::from([Scope::Read]));
        }
        assert_eq!(idp.server.hits(DISCOVERY), 1);
        assert_eq!(idp.server.hits("/jwks"), 1, "keys are cached by kid");

        // The JWK pins RS256: the same key under PS256 is refused.
        let token = idp.sign(Algorithm::PS256, "rsa-1", &rsa_key(), &claims);
        assert_eq!(f.refuse(&token).await, reasons::ALGORITHM_NOT_ALLOWED);
    }

    #[tokio::test]
    async fn external_tokens_are_checked_like_embedded_ones() {
        let (f, idp) = with_idp("org").await;
        let now = f.clock.unix();
        let mut claims = idp.claims(now);
        claims["aud"] = json!("account");
        assert_eq!(
            f.refuse(&idp.sign_ed(&claims)).await,
            reasons::WRONG_AUDIENCE
        );
        let mut claims = idp.claims(now);
        claims["exp"] = json!(now - 60);
        assert_eq!(
            f.refuse(&idp.sign_ed(&claims)).await,
            reasons::TOKEN_EXPIRED
        );
        // The configured claim, not `tenant`, names the tenant.
        let mut claims = idp.claims(now);
        claims.as_object_mut().unwrap().remove("org");
        claims["tenant"] = json!("acme");
        assert_eq!(
            f.refuse(&idp.sign_ed(&claims)).await,
            reasons::MISSING_TENANT_CLAIM
        );
        // An HMAC token naming the issuer is refused before any fetch.
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some(idp.ed_kid.clone());
        let hs = jsonwebtoken::encode(
            &header,
            &idp.claims(now),
            &EncodingKey::from_secret(idp.ed_jwk["x"].as_str().unwrap().as_bytes()),
        )
        .unwrap();
        assert_eq!(f.refuse(&hs).await, reasons::ALGORITHM_NOT_ALLOWED);
    }

    #[tokio::test]
    async fn a_kept_token_is_refused_once_its_issuer_withdraws_the_key() {
        let (f, idp) = with_idp("org").await;
        let token = idp.sign_ed(&idp.claims(f.clock.unix()));
        f.accept(&token).await;
        assert_eq!(f.auth.verified.len(), 1);

        idp.publish(&[Idp::rsa_jwk()]);
        f.clock.advance(KEY_REFETCH_INTERVAL);
        f.auth.discover().await;
        assert_eq!(f.refuse(&token).await, reasons::UNKNOWN_KEY);
        assert_eq!(f.auth.verified.len(), 0);
    }

    #[tokio::test]
    async fn keys_are_looked_up_per_issuer() {
        // The embedded issuer's name with the external issuer's key: unknown kid.
        let (f, idp) = with_idp("tenant").await;
        f.auth.discover().await;
        let mut claims = f.claims();
        claims["iss"] = json!(ISSUER);
        let token = idp.sign_ed(&claims);
        assert_eq!(f.refuse(&token).await, reasons::UNKNOWN_KEY);
        // And the external issuer's name with the embedded issuer's key.
        let token = f.sign_with(|c| c["iss"] = json!(idp.issuer())).await;
        assert_eq!(f.refuse(&token).await, reasons::UNKNOWN_KEY);
    }

    #[tokio::test]
    async fn an_unknown_external_kid_refetches_the_jwks_at_most_once_a_minute() {
        let (f, idp) = with_idp("org").await;
        f.auth.discover().await;
        assert_eq!(idp.server.hits("/jwks"), 1);

        // The provider rotates to an RSA key this service has not seen.
        let claims = idp.claims(f.clock.unix());
        let rsa = idp.sign(Algorithm::RS256, "rsa-1", &rsa_key(), &claims);
        assert_eq!(f.refuse(&rsa).await, reasons::UNKNOWN_KEY);
        assert_eq!(
            idp.server.hits("/jwks"),
            1,
            "fetched less than a minute ago"
        );
        idp.publish(&[idp.ed_jwk.clone(), Idp::rsa_jwk()]);
        f.clock
            .advance(KEY_REFETCH_INTERVAL - Duration::from_secs(1));
        let claims = idp.claims(f.clock.unix());
        let rsa = idp.sign(Algorithm::RS256, "rsa-1", &rsa_key(), &claims);
        assert_eq!(f.refuse(&rsa).await, reasons::UNKNOWN_KEY);
        assert_eq!(idp.server.hits("/jwks"), 1);

        f.clock.advance(Duration::from_secs(1));
        f.accept(&rsa).await;
        assert_eq!(idp.server.hits("/jwks"), 2);
        assert_eq!(
            idp.server.hits(DISCOVERY),
            2,
            "discovery is repeated with the JWKS"
        );

        // Forged kids cannot make it fetch again within the minute.
        for kid in ["x1", "x2", "x3"] {
            let token = idp.sign(Algorithm::EdDSA, kid, &idp.ed_key, &claims);
            assert_eq!(f.refuse(&token).await, reasons::UNKNOWN_KEY);
        }
        assert_eq!(idp.server.hits("/jwks"), 2);
        // Known keys keep working meanwhile.
        f.accept(&idp.sign_ed(&claims)).await;
    }

    #[tokio::test]
    async fn discovery_must_name_the_configured_issuer() {
        let (f, idp) = with_idp("org").await;
        idp.server.set(
            DISCOVERY,
            200,
            json!({"issuer": "https://elsewhere.test", "jwks_uri": format!("{}/jwks", idp.issuer())})
                .to_string(),
        );
        let token = idp.sign_ed(&idp.claims(f.clock.unix()));
        let error = f
            .auth
            .authenticate(Some(&format!("Bearer {token}")))
            .await
            .unwrap_err();
        assert_eq!(error.code, Code::Unavailable);
        assert_eq!(error.reason, reasons::ISSUER_UNAVAILABLE);
        assert_eq!(
            idp.server.hits("/jwks"),
            0,
            "keys of an impostor are never fetched"
        );
        assert!(!error.message.contains(&token));

        // Fixed at the provider: picked up after the refetch interval.
        idp.server.set(
            DISCOVERY,
            200,
            json!({"issuer": idp.issuer(), "jwks_uri": format!("{}/jwks", idp.issuer())})
                .to_string(),
        );
        assert!(
            f.auth
                .authenticate(Some(&format!("Bearer {token}")))
                .await
                .is_err()
        );
        assert_eq!(idp.server.hits(DISCOVERY), 1);
        f.clock.advance(KEY_REFETCH_INTERVAL);
        let token = idp.sign_ed(&idp.claims(f.clock.unix()));
        f.accept(&token).await;
    }

    #[tokio::test]
    async fn an_unreachable_or_broken_provider_keeps_the_keys_held() {
        let (f, idp) = with_idp("org").await;
        f.auth.discover().await;
        idp.server.set("/jwks", 500, "{}");
        f.clock.advance(KEY_REFETCH_INTERVAL);
        let claims = idp.claims(f.clock.unix());
        let unknown = idp.sign(Algorithm::RS256, "rsa-1", &rsa_key(), &claims);
        assert_eq!(f.refuse(&unknown).await, reasons::UNKNOWN_KEY);
        assert_eq!(idp.server.hits("/jwks"), 2);
        f.accept(&idp.sign_ed(&claims)).await;
    }

    #[tokio::test]
    async fn a_plain_http_jwks_uri_off_loopback_is_never_fetched() {
        let (f, idp) = with_idp("org").await;
        idp.server.set(
            DISCOVERY,
            200,
            json!({"issuer": idp.issuer(), "jwks_uri": "http://keys.example.com/jwks"}).to_string(),
        );
        let token = idp.sign_ed(&idp.claims(f.clock.unix()));
        let error = f
            .auth
            .authenticate(Some(&format!("Bearer {token}")))
            .await
            .unwrap_err();
        assert_eq!(error.reason, reasons::ISSUER_UNAVAILABLE);
    }

    #[tokio::test]
    async fn malformed_provider_keys_are_skipped() {
        let (f, idp) = with_idp("org").await;
        let mut short = idp.ed_jwk.clone();
        short["kid"] = json!("short");
        short["x"] = json!("AAAA");
        let hmac = json!({"kty": "oct", "kid": "hmac", "k": "c2VjcmV0"});
        idp.publish(&[short, hmac, json!(42), idp.ed_jwk.clone()]);
        let claims = idp.claims(f.clock.unix());
        f.accept(&idp.sign_ed(&claims)).await;
        let token = idp.sign(Algorithm::EdDSA, "short", &idp.ed_key, &claims);
        assert_eq!(f.refuse(&token).await, reasons::UNKNOWN_KEY);
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some("hmac".into());
        let token =
            jsonwebtoken::encode(&header, &claims, &EncodingKey::from_secret(b"secret")).unwrap();
        assert_eq!(f.refuse(&token).await, reasons::ALGORITHM_NOT_ALLOWED);
    }
}
