//! Registering clients and users (the CLI, bootstrap and tenant provisioning).

use std::collections::BTreeSet;
use std::sync::Arc;

use super::model::{Client, User};
use super::ports::{IdentityRepository, SecretHasher};
use crate::error::{Error, Result};
use crate::id::IdGenerator;
use crate::principal::{Scope, TenantId};
use crate::time::Clock;

/// A client and, for a confidential client, its secret in clear (shown once).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewClient {
    /// The stored client.
    pub client: Client,
    /// The secret to give its owner; `None` for a public client.
    pub secret: Option<String>,
}

/// How to register a client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientSpec {
    /// The tenant it acts for.
    pub tenant: TenantId,
    /// Human-readable name.
    pub display_name: String,
    /// The scopes it may obtain.
    pub scopes: BTreeSet<Scope>,
    /// Exact redirect URIs for the authorization code flow.
    pub redirect_uris: Vec<String>,
    /// A public client has no secret (authorization code with PKCE only).
    pub public: bool,
    /// Use this id instead of a generated one.
    pub client_id: Option<String>,
    /// Use this secret instead of a generated one (automated deployments).
    pub secret: Option<String>,
}

/// Builds clients and users with hashed secrets.
pub struct Registrar {
    hasher: Arc<dyn SecretHasher>,
    ids: Arc<dyn IdGenerator>,
    clock: Arc<dyn Clock>,
}

/// The shortest client secret or password accepted.
pub const MIN_SECRET_LENGTH: usize = 12;

impl Registrar {
    /// A registrar over its ports.
    pub fn new(
        hasher: Arc<dyn SecretHasher>,
        ids: Arc<dyn IdGenerator>,
        clock: Arc<dyn Clock>,
    ) -> Registrar {
        Registrar { hasher, ids, clock }
    }

    /// A client ready to store (not stored).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for an empty name, no scope, a bad redirect URI or a short
    /// secret; INTERNAL when hashing fails.
    pub async fn client(&self, spec: ClientSpec) -> Result<NewClient> {
        if spec.display_name.trim().is_empty() {
            return Err(Error::invalid_field(
                "displayName",
                "REQUIRED",
                "is required",
            ));
        }
        if spec.scopes.is_empty() {
            return Err(Error::invalid_field(
                "scopes",
                "REQUIRED",
                "give at least one scope",
            ));
        }
        for uri in &spec.redirect_uris {
            let absolute = uri.starts_with("https://") || uri.starts_with("http://");
            if !absolute || uri.contains('#') {
                return Err(Error::invalid_field(
                    "redirectUris",
                    "INVALID_REDIRECT_URI",
                    format!("'{uri}' must be an absolute http(s) URI without a fragment"),
                ));
            }
        }
        let client_id = match spec.client_id {
            Some(id) if !id.trim().is_empty() => id,
            _ => self.ids.resource_id(),
        };
        let secret = if spec.public {
            None
        } else {
            let secret = match spec.secret {
                Some(secret) => secret,
                None => self.ids.secret()?,
            };
            if secret.len() < MIN_SECRET_LENGTH {
                return Err(Error::invalid_field(
                    "secret",
                    "TOO_SHORT",
                    format!("must be at least {MIN_SECRET_LENGTH} characters"),
                ));
            }
            Some(secret)
        };
        let secret_hash = match &secret {
            Some(secret) => Some(self.hasher.hash(secret).await?),
            None => None,
        };
        Ok(NewClient {
            client: Client {
                client_id,
                tenant: spec.tenant,
                display_name: spec.display_name,
                secret_hash,
                scopes: spec.scopes,
                redirect_uris: spec.redirect_uris,
                create_time: self.clock.now(),
            },
            secret,
        })
    }

    /// A user ready to store (not stored).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for an empty username or name, no scope or a short password;
    /// INTERNAL when hashing fails.
    pub async fn user(
        &self,
        tenant: TenantId,
        username: &str,
        display_name: &str,
        password: &str,
        scopes: BTreeSet<Scope>,
    ) -> Result<User> {
        let username = username.trim().to_lowercase();
        if username.is_empty() || username.chars().any(char::is_whitespace) {
            return Err(Error::invalid_field(
                "username",
                "INVALID_USERNAME",
                "must be non-empty, without whitespace",
            ));
        }
        if display_name.trim().is_empty() {
            return Err(Error::invalid_field(
                "displayName",
                "REQUIRED",
                "is required",
            ));
        }
        if scopes.is_empty() {
            return Err(Error::invalid_field(
                "scopes",
                "REQUIRED",
                "give at least one scope",
            ));
        }
        if password.chars().count() < MIN_SECRET_LENGTH {
            return Err(Error::invalid_field(
                "password",
                "TOO_SHORT",
                format!("must be at least {MIN_SECRET_LENGTH} characters"),
            ));
        }
        Ok(User {
            user_id: self.ids.resource_id(),
            tenant,
            username,
            display_name: display_name.trim().to_owned(),
            password_hash: self.hasher.hash(password).await?,
            scopes,
            create_time: self.clock.now(),
        })
    }

    /// Stores a client.
    ///
    /// # Errors
    /// ALREADY_EXISTS for a taken id; NOT_FOUND for an unknown tenant.
    pub async fn store_client(
        &self,
        identity: &dyn IdentityRepository,
        client: &Client,
    ) -> Result<()> {
        identity
            .create_client(client)
            .await
            .map_err(|e| e.for_resource(&format!("clients/{}", client.client_id)))
    }

    /// Stores a user.
    ///
    /// # Errors
    /// ALREADY_EXISTS for a taken username; NOT_FOUND for an unknown tenant.
    pub async fn store_user(&self, identity: &dyn IdentityRepository, user: &User) -> Result<()> {
        identity
            .create_user(user)
            .await
            .map_err(|e| e.for_resource(&format!("users/{}", user.username)))
    }
}
