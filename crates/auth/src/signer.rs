//! Signing the embedded server's access tokens.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use jsonwebtoken::{Algorithm, Header};
use rics_domain::Error;
use rics_domain::identity::model::{AccessClaims, AccessToken};
use rics_domain::identity::ports::TokenSigner;
use rics_domain::time::Timestamp;
use serde::Serialize;

use crate::keys::KeyRing;

/// The claims of the access tokens the server signs.
#[derive(Serialize)]
struct Claims<'a> {
    iss: &'a str,
    aud: &'a str,
    sub: &'a str,
    exp: i64,
    iat: i64,
    nbf: i64,
    jti: String,
    tenant: &'a str,
    scope: String,
    name: &'a str,
    client_id: &'a str,
}

/// The [`TokenSigner`]: JWT access tokens (RFC 9068 `at+jwt`) signed with EdDSA by the
/// key ring's current key, named in the `kid` header. Claims: `iss`, `aud`, `sub`,
/// `exp`, `iat`, `nbf`, `jti`, `tenant`, `scope` (space separated), `name` and
/// `client_id`. The lifetime is the key ring's token lifetime.
pub struct JwtSigner {
    keys: Arc<KeyRing>,
    issuer: String,
    audience: String,
}

impl fmt::Debug for JwtSigner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JwtSigner")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .finish_non_exhaustive()
    }
}

impl JwtSigner {
    /// A signer of tokens from `issuer` for `audience`, living as long as `keys` was
    /// told tokens live.
    pub fn new(keys: Arc<KeyRing>, issuer: String, audience: String) -> JwtSigner {
        JwtSigner {
            keys,
            issuer,
            audience,
        }
    }
}

#[async_trait]
impl TokenSigner for JwtSigner {
    async fn sign(
        &self,
        claims: &AccessClaims,
        now: Timestamp,
    ) -> rics_domain::Result<AccessToken> {
        let key = self.keys.current().await?;
        let lifetime = self.keys.token_lifetime().as_secs().max(1);
        let issued = now.unix_micros().div_euclid(1_000_000);
        let expires = issued.saturating_add(i64::try_from(lifetime).unwrap_or(i64::MAX));
        let scope = claims
            .scopes
            .iter()
            .map(|scope| scope.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let body = Claims {
            iss: &self.issuer,
            aud: &self.audience,
            sub: &claims.subject,
            exp: expires,
            iat: issued,
            nbf: issued,
            jti: uuid::Uuid::new_v4().simple().to_string(),
            tenant: claims.tenant.as_str(),
            scope,
            name: &claims.display_name,
            client_id: &claims.client_id,
        };
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = Some(key.kid.clone());
        header.typ = Some("at+jwt".to_owned());
        let token = jsonwebtoken::encode(&header, &body, &key.encoding)
            .map_err(|e| Error::internal(format!("could not sign with key '{}': {e}", key.kid)))?;
        Ok(AccessToken {
            token,
            expires_in: lifetime,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::time::Duration;

    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use rics_domain::principal::{Scope, TenantId};
    use rics_domain::time::Clock;
    use serde_json::Value;

    use super::*;
    use crate::testing::{ManualClock, MemoryKeyRepository};

    fn part(token: &str, index: usize) -> Value {
        let segment = token.split('.').nth(index).unwrap();
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(segment).unwrap()).unwrap()
    }

    pub(crate) fn claims() -> AccessClaims {
        AccessClaims {
            subject: "client-1".into(),
            tenant: TenantId::new("acme"),
            display_name: "Acme batch".into(),
            scopes: BTreeSet::from([Scope::Write, Scope::Read]),
            client_id: "client-1".into(),
        }
    }

    #[tokio::test]
    async fn signs_eddsa_tokens_with_the_current_kid_and_every_claim() {
        let clock = Arc::new(ManualClock::default());
        let keys = Arc::new(
            KeyRing::start(
                Arc::new(MemoryKeyRepository::default()),
                clock.clone(),
                Duration::from_secs(600),
            )
            .await
            .unwrap(),
        );
        let signer = JwtSigner::new(keys.clone(), "https://rics.test".into(), "rics".into());
        let token = signer.sign(&claims(), clock.now()).await.unwrap();
        assert_eq!(token.expires_in, 600);

        let header = part(&token.token, 0);
        assert_eq!(header["alg"], "EdDSA");
        assert_eq!(header["typ"], "at+jwt");
        assert_eq!(header["kid"], keys.jwks()["keys"][0]["kid"]);

        let body = part(&token.token, 1);
        let now = clock.unix();
        assert_eq!(body["iss"], "https://rics.test");
        assert_eq!(body["aud"], "rics");
        assert_eq!(body["sub"], "client-1");
        assert_eq!(body["iat"], now);
        assert_eq!(body["nbf"], now);
        assert_eq!(body["exp"], now + 600);
        assert_eq!(body["tenant"], "acme");
        assert_eq!(body["scope"], "rics.read rics.write");
        assert_eq!(body["name"], "Acme batch");
        assert_eq!(body["client_id"], "client-1");
        assert_eq!(body["jti"].as_str().unwrap().len(), 32);
        let again = signer.sign(&claims(), clock.now()).await.unwrap();
        assert_ne!(part(&again.token, 1)["jti"], body["jti"]);
    }
}
