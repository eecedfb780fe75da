//! Links to the hosted pages, where a person who is no API client fills a form.
//!
//! A link's token is its [`HostedLinkGrant`] sealed with the operator's key
//! ([`SecretCipher`]: authenticated encryption), in URL-safe base64. So a token is
//! unguessable, names no tenant or form in the clear, cannot be altered or pointed at
//! another form, and needs no storage. Whether a link still works follows from the
//! grant's `expire_time` and from its form: a link is used once its form is no longer a
//! DRAFT.

use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::principal::TenantId;
use crate::time::Timestamp;
use crate::webhook::SecretCipher;

/// The path the hosted pages are served under, outside `/v1alpha`.
pub const HOSTED_PATH: &str = "/hosted";

/// What a link lets its holder do: fill the DRAFT form `form` of `tenant` until
/// `expire_time`, then land on `redirect_uri` if there is one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostedLinkGrant {
    /// The tenant the form belongs to.
    #[serde(rename = "t")]
    pub tenant: String,
    /// The form's id (`forms/{form}` without the collection).
    #[serde(rename = "f")]
    pub form: String,
    /// When the link stops working, whatever the form's own deadline.
    #[serde(rename = "e")]
    pub expire_time: Timestamp,
    /// Where the end page sends the person, when the link's issuer named a place.
    #[serde(rename = "r", default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
}

impl HostedLinkGrant {
    /// The grant's tenant.
    pub fn tenant_id(&self) -> TenantId {
        TenantId::new(self.tenant.clone())
    }

    /// Whether the link has expired at `now`.
    pub fn is_expired(&self, now: Timestamp) -> bool {
        self.expire_time <= now
    }
}

/// An issued link: the page's absolute URL and when it stops working.
#[derive(Debug, Clone, PartialEq)]
pub struct HostedLink {
    /// `{public URL}/hosted/{token}`.
    pub uri: String,
    /// The grant's `expire_time`.
    pub expire_time: Timestamp,
}

/// Issues links and reads their tokens back.
pub struct HostedLinks {
    /// Seals grants; absent when the operator configured no key, and then no link is
    /// issued.
    cipher: Option<Arc<dyn SecretCipher>>,
    /// The server's public base URL, without a trailing slash.
    public_url: String,
}

impl HostedLinks {
    /// Links under `public_url` (the server's public base URL), sealed by `cipher`.
    pub fn new(cipher: Option<Arc<dyn SecretCipher>>, public_url: &str) -> HostedLinks {
        HostedLinks {
            cipher,
            public_url: public_url.trim_end_matches('/').to_owned(),
        }
    }

    /// The link that grants `grant`.
    ///
    /// # Errors
    /// FAILED_PRECONDITION `SECRET_KEY_NOT_CONFIGURED` when the operator configured no
    /// key; INTERNAL when the system has no randomness to give.
    pub fn issue(&self, grant: &HostedLinkGrant) -> Result<HostedLink> {
        let cipher = self.cipher.as_ref().ok_or_else(|| {
            Error::failed_precondition(
                "SECRET_KEY_NOT_CONFIGURED",
                "Hosted form links are sealed with the operator's key \
                 (RICS_SECRET_KEY or RICS_SECRET_KEY_FILE), and none is configured.",
            )
        })?;
        let plaintext = serde_json::to_string(grant).map_err(|e| Error::internal(e.to_string()))?;
        let sealed = cipher.seal(&plaintext).map_err(Error::internal)?;
        let token =
            sealed_to_token(&sealed).ok_or_else(|| Error::internal("unexpected sealed form"))?;
        Ok(HostedLink {
            uri: format!("{}{HOSTED_PATH}/{token}", self.public_url),
            expire_time: grant.expire_time,
        })
    }

    /// The grant of `token`, or `None` when it was not issued with this key, was
    /// altered or is not a token at all. Says nothing of expiry: see
    /// [`HostedLinkGrant::is_expired`].
    pub fn open(&self, token: &str) -> Option<HostedLinkGrant> {
        let cipher = self.cipher.as_ref()?;
        let bytes = URL_SAFE_NO_PAD.decode(token).ok()?;
        let plaintext = cipher
            .open(&format!("{SEALED_VERSION}{}", STANDARD.encode(bytes)))
            .ok()?;
        serde_json::from_str(&plaintext).ok()
    }
}

/// What a [`SecretCipher`]'s sealed text starts with; the token leaves it out.
const SEALED_VERSION: &str = "v1.";

/// The URL-safe token of a sealed text (`v1.` and standard base64).
fn sealed_to_token(sealed: &str) -> Option<String> {
    let bytes = STANDARD.decode(sealed.strip_prefix(SEALED_VERSION)?).ok()?;
    Some(URL_SAFE_NO_PAD.encode(bytes))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Mutex;

    use super::*;

    /// A cipher that "seals" by remembering: enough to see the token round trip
    /// without the real cipher (tested in the auth crate).
    #[derive(Default)]
    struct RememberingCipher {
        sealed: Mutex<HashMap<String, String>>,
    }

    impl SecretCipher for RememberingCipher {
        fn seal(&self, plaintext: &str) -> std::result::Result<String, String> {
            let mut sealed = self.sealed.lock().map_err(|e| e.to_string())?;
            let text = format!(
                "{SEALED_VERSION}{}",
                STANDARD.encode(format!("sealed-{}", sealed.len()))
            );
            sealed.insert(text.clone(), plaintext.to_owned());
            Ok(text)
        }

        fn open(&self, sealed: &str) -> std::result::Result<String, String> {
            let known = self.sealed.lock().map_err(|e| e.to_string())?;
            known
                .get(sealed)
                .cloned()
                .ok_or_else(|| "not sealed here".to_owned())
        }
    }

    fn grant() -> HostedLinkGrant {
        HostedLinkGrant {
            tenant: "t1".to_owned(),
            form: "onboarding-1".to_owned(),
            expire_time: Timestamp::parse_rfc3339("2026-01-02T03:04:05Z").unwrap(),
            redirect_uri: Some("https://example.com/done".to_owned()),
        }
    }

    #[test]
    fn an_issued_link_opens_to_its_grant() {
        let links = HostedLinks::new(
            Some(Arc::new(RememberingCipher::default())),
            "https://rics.example/",
        );
        let link = links.issue(&grant()).unwrap();
        let token = link
            .uri
            .strip_prefix("https://rics.example/hosted/")
            .unwrap();
        assert!(!token.contains(['/', '+', '=']), "{token}");
        assert_eq!(links.open(token), Some(grant()));
        assert_eq!(link.expire_time, grant().expire_time);
    }

    #[test]
    fn an_unknown_or_malformed_token_opens_to_nothing() {
        let links = HostedLinks::new(
            Some(Arc::new(RememberingCipher::default())),
            "https://rics.example",
        );
        assert_eq!(links.open("c2VhbGVkLTA"), None);
        assert_eq!(links.open("not base64!"), None);
    }

    #[test]
    fn without_a_key_no_link_is_issued() {
        let links = HostedLinks::new(None, "https://rics.example");
        let error = links.issue(&grant()).unwrap_err();
        assert_eq!(error.reason, "SECRET_KEY_NOT_CONFIGURED");
        assert_eq!(links.open("anything"), None);
    }

    #[test]
    fn a_grant_expires_at_its_expire_time() {
        let grant = grant();
        assert!(!grant.is_expired(grant.expire_time.minus(std::time::Duration::from_secs(1))));
        assert!(grant.is_expired(grant.expire_time));
    }
}
