//! Who may obtain tokens: OAuth 2.0 clients and users, with the short-lived grants the
//! authorization server hands out. Secrets are never stored: only their hashes.

use std::collections::BTreeSet;

use crate::principal::{Scope, TenantId};
use crate::time::Timestamp;

/// An OAuth 2.0 client registered in a tenant. Its `Debug` output masks the hash.
#[derive(Clone, PartialEq, Eq)]
pub struct Client {
    /// The client id, globally unique (it is presented before the tenant is known).
    pub client_id: String,
    /// The tenant it acts for.
    pub tenant: TenantId,
    /// Human-readable name, the principal's display name in client-credential tokens.
    pub display_name: String,
    /// Argon2 hash of the secret; `None` for a public client (authorization code with
    /// PKCE only).
    pub secret_hash: Option<String>,
    /// The scopes it may obtain.
    pub scopes: BTreeSet<Scope>,
    /// The exact redirect URIs the authorization code flow may use.
    pub redirect_uris: Vec<String>,
    /// When it was registered.
    pub create_time: Timestamp,
}

/// A user who signs in on the login page (authorization code flow). Its `Debug` output
/// masks the password hash.
#[derive(Clone, PartialEq, Eq)]
pub struct User {
    /// The user id (the token's subject).
    pub user_id: String,
    /// The tenant the user belongs to.
    pub tenant: TenantId,
    /// The sign-in name, globally unique, compared case-insensitively (stored lower
    /// case).
    pub username: String,
    /// Human-readable name, recorded as authors of notes.
    pub display_name: String,
    /// Argon2 hash of the password.
    pub password_hash: String,
    /// The scopes the user may grant to clients.
    pub scopes: BTreeSet<Scope>,
    /// When the user was created.
    pub create_time: Timestamp,
}

/// An authorization code awaiting exchange: single use, short-lived, bound to the
/// client, the redirect URI and the PKCE challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationCode {
    /// SHA-256 hex of the code.
    pub code_hash: String,
    /// The client it was issued to.
    pub client_id: String,
    /// The user's tenant.
    pub tenant: TenantId,
    /// The user who signed in.
    pub user_id: String,
    /// The user's display name.
    pub display_name: String,
    /// The redirect URI of the authorization request (the token request must repeat it).
    pub redirect_uri: String,
    /// The PKCE S256 challenge: base64url(SHA-256(verifier)).
    pub code_challenge: String,
    /// The scopes granted.
    pub scopes: BTreeSet<Scope>,
    /// After this instant the code is refused.
    pub expire_time: Timestamp,
}

/// A refresh token: rotated on every use; reusing an old one revokes its family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefreshToken {
    /// SHA-256 hex of the token.
    pub token_hash: String,
    /// The rotation family (all tokens descending from one authorization).
    pub family_id: String,
    /// The client it was issued to.
    pub client_id: String,
    /// The subject's tenant.
    pub tenant: TenantId,
    /// The subject (user id).
    pub subject: String,
    /// The subject's display name.
    pub display_name: String,
    /// The scopes granted.
    pub scopes: BTreeSet<Scope>,
    /// After this instant the token is refused.
    pub expire_time: Timestamp,
}

/// What rotating a refresh token found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rotation {
    /// The token was current: it is now spent and its successor stored.
    Rotated,
    /// The token was already spent: its whole family is now revoked (a stolen token
    /// was probably replayed).
    Reused,
    /// No such live token (unknown, expired or revoked).
    Unknown,
}

/// The claims of an access token the server issues.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessClaims {
    /// The subject: a client id or a user id.
    pub subject: String,
    /// The tenant (`tenant` claim).
    pub tenant: TenantId,
    /// The display name (`name` claim).
    pub display_name: String,
    /// The scopes (`scope` claim, space separated).
    pub scopes: BTreeSet<Scope>,
    /// The client the token was issued to (`client_id` claim).
    pub client_id: String,
}

/// A signed access token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessToken {
    /// The JWT.
    pub token: String,
    /// Seconds until it expires.
    pub expires_in: u64,
}

/// A key the server signs access tokens with. The newest unretired key signs; keys
/// stay published (JWKS) until every token they signed has expired. Its `Debug` output
/// masks the private key.
#[derive(Clone, PartialEq, Eq)]
pub struct SigningKey {
    /// The key id (`kid` header and JWK member).
    pub kid: String,
    /// The JWS algorithm, such as `EdDSA`.
    pub algorithm: String,
    /// The private key, PKCS#8 DER in base64. Secret: never logged, never sent.
    pub private_key: String,
    /// The public key as a JWK (JSON text), published at `/.well-known/jwks.json`.
    pub public_jwk: String,
    /// When it was created.
    pub create_time: Timestamp,
    /// When it stopped signing (a newer key took over); `None` while current.
    pub retire_time: Option<Timestamp>,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("kid", &self.kid)
            .field("algorithm", &self.algorithm)
            .field("private_key", &"***")
            .field("public_jwk", &self.public_jwk)
            .field("create_time", &self.create_time)
            .field("retire_time", &self.retire_time)
            .finish()
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("client_id", &self.client_id)
            .field("tenant", &self.tenant)
            .field("display_name", &self.display_name)
            .field("secret_hash", &self.secret_hash.as_ref().map(|_| "***"))
            .field("scopes", &self.scopes)
            .field("redirect_uris", &self.redirect_uris)
            .finish()
    }
}

impl std::fmt::Debug for User {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("User")
            .field("user_id", &self.user_id)
            .field("tenant", &self.tenant)
            .field("username", &self.username)
            .field("display_name", &self.display_name)
            .field("password_hash", &"***")
            .field("scopes", &self.scopes)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_masks_secrets() {
        let key = SigningKey {
            kid: "k1".into(),
            algorithm: "EdDSA".into(),
            private_key: "PRIVATE-MATERIAL".into(),
            public_jwk: "{}".into(),
            create_time: Timestamp::from_unix_micros(0).unwrap(),
            retire_time: None,
        };
        assert!(!format!("{key:?}").contains("PRIVATE-MATERIAL"));
        let user = User {
            user_id: "u".into(),
            tenant: TenantId::new("t"),
            username: "ada".into(),
            display_name: "Ada".into(),
            password_hash: "$argon2id$HASH".into(),
            scopes: BTreeSet::new(),
            create_time: Timestamp::from_unix_micros(0).unwrap(),
        };
        assert!(!format!("{user:?}").contains("HASH"));
    }
}
