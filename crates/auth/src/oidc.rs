//! External OpenID Connect issuers: their keys, found by discovery
//! (`{issuer}/.well-known/openid-configuration`) and fetched from their `jwks_uri`,
//! cached by `kid` and fetched again on an unknown `kid` at most once per
//! [`KEY_REFETCH_INTERVAL`].

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use reqwest::{Client, Url};
use rics_domain::time::{Clock, Timestamp};
use serde_json::Value;

use crate::jwk::VerificationKey;
use crate::keys::KEY_REFETCH_INTERVAL;
use crate::settings::{ExternalIssuerSettings, fetch_allowed};

/// Largest discovery document or JWKS read, in bytes.
const MAX_DOCUMENT_BYTES: usize = 1024 * 1024;
/// Time allowed to connect to an identity provider.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Time allowed for one request to an identity provider.
pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// What looking up a key found.
#[derive(Debug)]
pub(crate) enum KeyLookup {
    /// The key.
    Found(Arc<VerificationKey>),
    /// The issuer's keys are known and this `kid` is not among them.
    Unknown,
    /// The issuer's keys could never be fetched.
    Unavailable,
}

/// The keys of one issuer, as last fetched.
#[derive(Debug, Default)]
struct IssuerKeys {
    /// Whether a fetch ever succeeded.
    fetched: bool,
    /// The keys by `kid`.
    keys: HashMap<String, Arc<VerificationKey>>,
}

/// An external issuer and its cached keys.
pub(crate) struct ExternalIssuer {
    /// The issuer URL, compared exactly with `iss`.
    pub(crate) issuer: String,
    /// The claim naming the tenant.
    pub(crate) tenant_claim: String,
    http: Client,
    clock: Arc<dyn Clock>,
    keys: ArcSwap<IssuerKeys>,
    /// When the keys were last fetched (or a fetch was tried).
    last_fetch: tokio::sync::Mutex<Option<Timestamp>>,
}

impl fmt::Debug for ExternalIssuer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExternalIssuer")
            .field("issuer", &self.issuer)
            .field("tenant_claim", &self.tenant_claim)
            .finish_non_exhaustive()
    }
}

impl ExternalIssuer {
    /// An issuer whose keys are fetched on first use.
    pub(crate) fn new(
        settings: &ExternalIssuerSettings,
        http: Client,
        clock: Arc<dyn Clock>,
    ) -> ExternalIssuer {
        ExternalIssuer {
            issuer: settings.issuer.clone(),
            tenant_claim: settings.tenant_claim.clone(),
            http,
            clock,
            keys: ArcSwap::default(),
            last_fetch: tokio::sync::Mutex::new(None),
        }
    }

    /// The key `kid`; an unknown one fetches the keys again unless they were fetched
    /// less than [`KEY_REFETCH_INTERVAL`] ago.
    pub(crate) async fn key(&self, kid: &str) -> KeyLookup {
        if let Some(key) = self.keys.load().keys.get(kid) {
            return KeyLookup::Found(key.clone());
        }
        self.refresh_if_due().await;
        let keys = self.keys.load();
        match keys.keys.get(kid) {
            Some(key) => KeyLookup::Found(key.clone()),
            None if keys.fetched => KeyLookup::Unknown,
            None => KeyLookup::Unavailable,
        }
    }

    /// Fetches the keys unless that was tried less than [`KEY_REFETCH_INTERVAL`] ago.
    /// Concurrent callers wait for one fetch. A failed fetch keeps the keys held.
    pub(crate) async fn refresh_if_due(&self) {
        let mut last = self.last_fetch.lock().await;
        let now = self.clock.now();
        if last.is_some_and(|last| last.plus(KEY_REFETCH_INTERVAL) > now) {
            return;
        }
        *last = Some(now);
        match self.fetch().await {
            Ok(keys) => {
                tracing::debug!(issuer = %self.issuer, keys = keys.len(), "fetched the issuer's keys");
                self.keys.store(Arc::new(IssuerKeys {
                    fetched: true,
                    keys,
                }));
            }
            Err(reason) => {
                tracing::warn!(issuer = %self.issuer, %reason, "could not fetch the issuer's keys");
            }
        }
    }

    /// Discovery, then the JWKS: the usable keys by `kid`.
    async fn fetch(&self) -> Result<HashMap<String, Arc<VerificationKey>>, String> {
        let discovery_url = format!(
            "{}/.well-known/openid-configuration",
            self.issuer.trim_end_matches('/')
        );
        let discovery = self.get_json(&discovery_url).await?;
        if discovery.get("issuer").and_then(Value::as_str) != Some(self.issuer.as_str()) {
            return Err("the discovery document names another issuer".to_owned());
        }
        let jwks_uri = discovery
            .get("jwks_uri")
            .and_then(Value::as_str)
            .ok_or("the discovery document has no jwks_uri")?;
        let jwks_url = Url::parse(jwks_uri).map_err(|_| "the jwks_uri is not a URL")?;
        if !fetch_allowed(&jwks_url) {
            return Err("the jwks_uri must use https".to_owned());
        }
        let jwks = self.get_json(jwks_url.as_str()).await?;
        let entries = jwks
            .get("keys")
            .and_then(Value::as_array)
            .ok_or("the JWKS has no keys array")?;
        let mut keys = HashMap::new();
        for entry in entries {
            match VerificationKey::from_jwk(entry) {
                Ok(key) => {
                    keys.entry(key.kid.clone()).or_insert_with(|| Arc::new(key));
                }
                Err(reason) => {
                    let kid = entry.get("kid").and_then(Value::as_str).unwrap_or("");
                    tracing::debug!(issuer = %self.issuer, kid, reason, "skipped a key of the issuer");
                }
            }
        }
        Ok(keys)
    }

    /// GETs `url` and parses the JSON body (at most [`MAX_DOCUMENT_BYTES`]).
    async fn get_json(&self, url: &str) -> Result<Value, String> {
        let mut response = self
            .http
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| format!("GET {url} failed: {e}"))?;
        if !response.status().is_success() {
            return Err(format!("GET {url} answered {}", response.status()));
        }
        if response
            .content_length()
            .is_some_and(|length| length > MAX_DOCUMENT_BYTES as u64)
        {
            return Err(format!("GET {url}: the document is too large"));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| format!("GET {url} failed: {e}"))?
        {
            if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
                return Err(format!("GET {url}: the document is too large"));
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body).map_err(|_| format!("GET {url}: not a JSON document"))
    }
}

/// The HTTP client for identity providers: rustls with the system's root
/// certificates, short timeouts, few redirects, and the proxy of `HTTPS_PROXY` /
/// `NO_PROXY` when set (never in tests, which talk to 127.0.0.1).
pub(crate) fn http_client() -> Result<Client, reqwest::Error> {
    let builder = Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(REQUEST_TIMEOUT)
        .redirect(reqwest::redirect::Policy::limited(3))
        .user_agent(concat!("rics/", env!("CARGO_PKG_VERSION")));
    #[cfg(test)]
    let builder = builder.no_proxy();
    builder.build()
}
