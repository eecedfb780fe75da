//! Authentication of API callers and the cryptography of the embedded OAuth 2.0
//! authorization server.
//!
//! This crate implements the domain's security ports:
//!
//! - [`Argon2Hasher`] is the [`SecretHasher`](rics_domain::identity::ports::SecretHasher):
//!   Argon2id PHC strings with the OWASP parameters, computed off the async workers.
//! - [`KeyRing`] holds the server's Ed25519 signing keys, kept in the
//!   [`KeyRepository`](rics_domain::identity::ports::KeyRepository) port, and publishes
//!   the JSON Web Key Set.
//! - [`JwtSigner`] is the [`TokenSigner`](rics_domain::identity::ports::TokenSigner):
//!   EdDSA-signed JWT access tokens.
//! - [`JwtAuthenticator`] is the [`Authenticator`](rics_domain::principal::Authenticator):
//!   it verifies `Authorization: Bearer <token>` against the embedded issuer's keys
//!   and against external OpenID Connect issuers (discovery and JWKS), and turns the
//!   claims into a [`Principal`](rics_domain::principal::Principal).
//!
//! - [`SecretBox`] is the [`SecretCipher`](rics_domain::webhook::SecretCipher): secrets
//!   sealed with ChaCha20-Poly1305 under the operator's key.
//!
//! [`Auth::start`] builds all of them from [`AuthSettings`].

mod hasher;
mod jwk;
mod keys;
mod oidc;
mod secret_box;
mod settings;
mod signer;
mod verify;

#[cfg(test)]
mod testing;

use std::fmt;
use std::sync::Arc;

use rics_domain::identity::ports::KeyRepository;
use rics_domain::time::Clock;

pub use hasher::Argon2Hasher;
pub use keys::{KEY_REFETCH_INTERVAL, KEY_REFRESH_INTERVAL, KeyRing};
pub use secret_box::SecretBox;
pub use settings::{
    AuthSettings, DEFAULT_ACCESS_TOKEN_LIFETIME, DEFAULT_TENANT_CLAIM, ExternalIssuerSettings,
};
pub use signer::JwtSigner;
pub use verify::{CLOCK_LEEWAY, JwtAuthenticator, reasons};

/// Everything the binary wires from this crate, built from [`AuthSettings`].
#[derive(Clone)]
pub struct Auth {
    /// The signing keys; publishes the JWKS ([`KeyRing::jwks`]).
    pub keys: Arc<KeyRing>,
    /// Signs the embedded server's access tokens (the `TokenSigner` port).
    pub signer: Arc<JwtSigner>,
    /// Verifies bearer tokens (the `Authenticator` port).
    pub authenticator: Arc<JwtAuthenticator>,
    /// Hashes client secrets and passwords (the `SecretHasher` port).
    pub hasher: Arc<Argon2Hasher>,
}

impl Auth {
    /// Checks `settings`, loads the signing keys (creating the first one on an empty
    /// repository) and builds the signer, the authenticator and the hasher.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for bad settings; UNAVAILABLE or INTERNAL when the keys cannot
    /// be loaded or stored.
    pub async fn start(
        settings: &AuthSettings,
        key_repository: Arc<dyn KeyRepository>,
        clock: Arc<dyn Clock>,
    ) -> rics_domain::Result<Auth> {
        settings.validate()?;
        let keys = Arc::new(
            KeyRing::start(
                key_repository,
                clock.clone(),
                settings.access_token_lifetime,
            )
            .await?,
        );
        let signer = Arc::new(JwtSigner::new(
            keys.clone(),
            settings.issuer.clone(),
            settings.audience.clone(),
        ));
        let authenticator = Arc::new(JwtAuthenticator::new(settings, keys.clone(), clock)?);
        Ok(Auth {
            keys,
            signer,
            authenticator,
            hasher: Arc::new(Argon2Hasher::new()),
        })
    }
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Auth")
            .field("keys", &self.keys)
            .field("authenticator", &self.authenticator)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use rics_domain::identity::model::AccessClaims;
    use rics_domain::identity::ports::{SecretHasher, TokenSigner};
    use rics_domain::principal::{Authenticator, Scope, TenantId};
    use rics_domain::{Code, time::Clock};

    use super::*;
    use crate::testing::{ManualClock, MemoryKeyRepository};

    #[tokio::test]
    async fn start_wires_a_signer_the_authenticator_trusts() {
        let clock = Arc::new(ManualClock::default());
        let settings = AuthSettings::new("https://rics.test", "rics");
        let auth = Auth::start(
            &settings,
            Arc::new(MemoryKeyRepository::default()),
            clock.clone(),
        )
        .await
        .unwrap();
        let claims = AccessClaims {
            subject: "c1".into(),
            tenant: TenantId::new("acme"),
            display_name: "C1".into(),
            scopes: BTreeSet::from([Scope::Read]),
            client_id: "c1".into(),
        };
        let token = auth.signer.sign(&claims, clock.now()).await.unwrap();
        assert_eq!(token.expires_in, 900);
        let principal = auth
            .authenticator
            .authenticate(Some(&format!("Bearer {}", token.token)))
            .await
            .unwrap();
        assert_eq!(principal.tenant, TenantId::new("acme"));
        assert_eq!(auth.keys.jwks()["keys"].as_array().unwrap().len(), 1);
        let hash = auth.hasher.hash("pw").await.unwrap();
        assert!(auth.hasher.verify("pw", &hash).await);
    }

    #[tokio::test]
    async fn start_refuses_bad_settings() {
        let error = Auth::start(
            &AuthSettings::new("not a url", "rics"),
            Arc::new(MemoryKeyRepository::default()),
            Arc::new(ManualClock::default()),
        )
        .await
        .unwrap_err();
        assert_eq!(error.code, Code::InvalidArgument);
    }
}
