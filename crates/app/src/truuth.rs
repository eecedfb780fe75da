//! [`TruuthProvider`]: the domain's [`IdentityVerificationProvider`] over Truuth's
//! HTTP API, with reqwest. `CreateVerificationSession` is
//! `POST {RICS_TRUUTH_API_URL}/v1/verificationSessions`, Bearer `RICS_TRUUTH_API_KEY`,
//! with the shapes of design.md: the request gives `identityOwner` {`email`,
//! `givenName`, `familyName`, `middleName`} and `externalRefId` (rics's session
//! reference, echoed by the callback); the answer gives `token` (for Truuth's SDK),
//! `tenant` (the Truuth-side alias, `^[a-z0-9-]+$`), `apiUrl`, the echoed
//! `identityOwner`, and optionally `sessionUri` (where the person goes; `apiUrl`
//! when absent), `verificationSessionId` and `expireTime`.

use std::time::Duration;

use async_trait::async_trait;
use reqwest::Client;
use reqwest::redirect::Policy;
use rics_domain::error::{Code, Error, Result};
use rics_domain::time::Timestamp;
use rics_domain::verification::provider::{
    IdentityOwner, IdentityVerificationProvider, Provider, ProviderSession, SessionRequest,
};
use serde::{Deserialize, Serialize};

/// How long a call to Truuth may take, answer included.
const TIMEOUT: Duration = Duration::from_secs(10);

/// The longest answer read from Truuth.
const MAX_ANSWER: usize = 64 * 1024;

/// Truuth, reached at its configured API URL.
#[derive(Debug, Clone)]
pub struct TruuthProvider {
    /// The API base URL, without a trailing slash; `None` when not configured.
    api_url: Option<String>,
    /// The API key.
    api_key: Option<String>,
    client: Client,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct CreateSession<'a> {
    identity_owner: &'a IdentityOwner,
    external_ref_id: &'a str,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CreatedSession {
    token: String,
    tenant: String,
    api_url: String,
    #[serde(default)]
    session_uri: Option<String>,
    #[serde(default)]
    verification_session_id: Option<String>,
    #[serde(default)]
    expire_time: Option<String>,
}

impl TruuthProvider {
    /// Truuth at `api_url` with `api_key`.
    ///
    /// # Errors
    /// A description when the HTTP client cannot be made.
    pub fn new(api_url: Option<String>, api_key: Option<String>) -> anyhow::Result<TruuthProvider> {
        let client = Client::builder()
            .redirect(Policy::none())
            .connect_timeout(TIMEOUT)
            .timeout(TIMEOUT)
            .user_agent(concat!("rics/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(TruuthProvider {
            api_url,
            api_key,
            client,
        })
    }
}

/// UNAVAILABLE `PROVIDER_UNAVAILABLE`: Truuth could not be reached or failed.
fn unavailable(detail: impl std::fmt::Display) -> Error {
    Error::unavailable(
        "PROVIDER_UNAVAILABLE",
        format!("Truuth could not start the session: {detail}"),
    )
}

#[async_trait]
impl IdentityVerificationProvider for TruuthProvider {
    fn provider(&self) -> Provider {
        Provider::Truuth
    }

    async fn start(&self, request: &SessionRequest) -> Result<ProviderSession> {
        let api_url = self.api_url.as_deref().ok_or_else(|| {
            Error::failed_precondition(
                "PROVIDER_NOT_CONFIGURED",
                "Truuth is not configured on this server (RICS_TRUUTH_API_URL).",
            )
        })?;
        let mut call = self
            .client
            .post(format!("{api_url}/v1/verificationSessions"))
            .json(&CreateSession {
                identity_owner: &request.owner,
                external_ref_id: &request.reference,
            });
        if let Some(key) = &self.api_key {
            call = call.bearer_auth(key);
        }
        let response = call.send().await.map_err(unavailable)?;
        let status = response.status();
        let body = response.bytes().await.map_err(unavailable)?;
        let body = &body[..body.len().min(MAX_ANSWER)];
        if status.as_u16() == 400 || status.as_u16() == 422 {
            return Err(Error::invalid_field(
                "identityOwner",
                "REFUSED_BY_PROVIDER",
                format!(
                    "Truuth refused the identity owner: {}",
                    String::from_utf8_lossy(body)
                        .chars()
                        .take(200)
                        .collect::<String>()
                ),
            ));
        }
        if !status.is_success() {
            return Err(unavailable(format!("it answered {status}")));
        }
        let created: CreatedSession = serde_json::from_slice(body).map_err(|e| {
            Error::new(
                Code::Internal,
                "PROVIDER_ANSWER_UNREADABLE",
                format!("Truuth's answer does not read: {e}"),
            )
        })?;
        if created.tenant.is_empty()
            || !created
                .tenant
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            return Err(Error::new(
                Code::Internal,
                "PROVIDER_ANSWER_UNREADABLE",
                format!(
                    "Truuth's tenant alias '{}' is not ^[a-z0-9-]+$",
                    created.tenant
                ),
            ));
        }
        let expire_time = created
            .expire_time
            .as_deref()
            .and_then(|t| Timestamp::parse_rfc3339(t).ok())
            .map_or(request.expire_time, |t| t.min(request.expire_time));
        Ok(ProviderSession {
            verification_uri: created
                .session_uri
                .unwrap_or_else(|| created.api_url.clone()),
            token: created.token,
            provider_tenant: created.tenant,
            api_url: created.api_url,
            expire_time,
            provider_session_id: created.verification_session_id,
        })
    }
}
