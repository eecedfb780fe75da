//! `rics clients create`, `rics users create` and `rics keys rotate`: credentials for a
//! tenant and the signing key, managed by an operator on the server's machine (the API
//! has no route that makes clients or users).
//!
//! ```text
//! rics clients create --tenant tenants/abc --name "Nightly import" --scope rics.read --scope rics.write
//! rics clients create --tenant tenants/abc --name "Web app" --scope rics.read --public \
//!     --redirect-uri https://app.example.com/callback
//! RICS_USER_PASSWORD=... rics users create --tenant tenants/abc --username ada --name "Ada L." --scope rics.read
//! rics keys rotate
//! ```
//!
//! Each prints one JSON object on standard output (the binary does; these functions
//! return it); a generated client secret appears there once and is stored only as an
//! Argon2 hash.

use std::collections::BTreeSet;

use anyhow::bail;
use clap::{Args, Subcommand};
use serde_json::{Value, json};

use crate::config::{AdminSettings, Config};
use crate::server;
use rics_domain::error::Error;
use rics_domain::identity::admin::ClientSpec;
use rics_domain::principal::{Scope, TenantId};

/// `rics clients ...`.
#[derive(Debug, Subcommand)]
pub enum ClientsCommand {
    /// Register an OAuth client for a tenant and print its credentials once.
    Create(CreateClient),
}

/// `rics users ...`.
#[derive(Debug, Subcommand)]
pub enum UsersCommand {
    /// Register a user (authorization code flow). The password is read from
    /// `RICS_USER_PASSWORD`, or else from the first line of standard input.
    Create(CreateUser),
}

/// `rics keys ...`.
#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Make a new signing key for the embedded authorization server. The previous key
    /// stays published in the JWKS until every token it signed has expired; running
    /// servers sign with the new key within a minute.
    Rotate(AdminSettings),
}

/// Arguments of `rics clients create`.
#[derive(Debug, Args)]
pub struct CreateClient {
    /// The tenant the client acts for (`tenants/{id}` or the id).
    #[arg(long)]
    pub tenant: String,
    /// Human-readable name.
    #[arg(long)]
    pub name: String,
    /// A scope the client may obtain (rics.read, rics.write, rics.admin); repeatable.
    #[arg(long = "scope", required = true, value_parser = parse_scope)]
    pub scopes: Vec<Scope>,
    /// An exact redirect URI for the authorization code flow; repeatable.
    #[arg(long = "redirect-uri")]
    pub redirect_uris: Vec<String>,
    /// A public client (no secret; authorization code with PKCE only).
    #[arg(long)]
    pub public: bool,
    /// Use this client id instead of a generated one.
    #[arg(long)]
    pub client_id: Option<String>,
    /// Where the database is (as for `rics serve`).
    #[command(flatten)]
    pub settings: AdminSettings,
}

/// Arguments of `rics users create`.
#[derive(Debug, Args)]
pub struct CreateUser {
    /// The tenant the user belongs to (`tenants/{id}` or the id).
    #[arg(long)]
    pub tenant: String,
    /// The sign-in name (stored in lower case).
    #[arg(long)]
    pub username: String,
    /// Human-readable name, recorded as the author of what the user does.
    #[arg(long)]
    pub name: String,
    /// A scope the user may grant (rics.read, rics.write, rics.admin); repeatable.
    #[arg(long = "scope", required = true, value_parser = parse_scope)]
    pub scopes: Vec<Scope>,
    /// Where the database is (as for `rics serve`).
    #[command(flatten)]
    pub settings: AdminSettings,
}

/// A scope by its name.
fn parse_scope(name: &str) -> Result<Scope, String> {
    Scope::parse(name).ok_or_else(|| {
        let known: Vec<&str> = Scope::ALL.iter().map(|s| s.as_str()).collect();
        format!("unknown scope '{name}' (known: {})", known.join(", "))
    })
}

/// The tenant id of `tenants/{id}` or `{id}`.
fn tenant_id(text: &str) -> anyhow::Result<TenantId> {
    let id = text.strip_prefix("tenants/").unwrap_or(text).trim();
    if id.is_empty() || id.contains('/') {
        bail!("--tenant takes tenants/{{id}} or the id, not '{text}'");
    }
    Ok(TenantId::new(id))
}

/// A domain error as a command-line error.
fn failed(error: Error) -> anyhow::Error {
    anyhow::anyhow!("{}", error.message)
}

/// Registers a client for `args.tenant` on the database of `config` and returns its
/// credentials (the secret, when generated, appears only here).
///
/// # Errors
/// When the database cannot be opened, the tenant does not exist, the id is taken, or an
/// argument is invalid.
pub async fn create_client(config: &Config, args: &CreateClient) -> anyhow::Result<Value> {
    let tenant = tenant_id(&args.tenant)?;
    let services = server::services(config).await?;
    let created = services
        .registrar
        .client(ClientSpec {
            tenant: tenant.clone(),
            display_name: args.name.clone(),
            scopes: args.scopes.iter().copied().collect(),
            redirect_uris: args.redirect_uris.clone(),
            public: args.public,
            client_id: args.client_id.clone(),
            secret: None,
        })
        .await
        .map_err(failed)?;
    services
        .registrar
        .store_client(services.identity.as_ref(), &created.client)
        .await
        .map_err(failed)?;
    let scopes: Vec<&str> = created.client.scopes.iter().map(|s| s.as_str()).collect();
    Ok(json!({
        "tenant": format!("tenants/{tenant}"),
        "clientId": created.client.client_id,
        "clientSecret": created.secret,
        "scopes": scopes,
        "redirectUris": created.client.redirect_uris,
        "tokenUrl": format!("{}/oauth2/token", config.public_url),
    }))
}

/// Registers a user for `args.tenant` with `password` on the database of `config`.
///
/// # Errors
/// When the database cannot be opened, the tenant does not exist, the username is taken,
/// or an argument (the password's length included) is invalid.
pub async fn create_user(
    config: &Config,
    args: &CreateUser,
    password: &str,
) -> anyhow::Result<Value> {
    let tenant = tenant_id(&args.tenant)?;
    let scopes: BTreeSet<Scope> = args.scopes.iter().copied().collect();
    let services = server::services(config).await?;
    let user = services
        .registrar
        .user(tenant.clone(), &args.username, &args.name, password, scopes)
        .await
        .map_err(failed)?;
    services
        .registrar
        .store_user(services.identity.as_ref(), &user)
        .await
        .map_err(failed)?;
    let scopes: Vec<&str> = user.scopes.iter().map(|s| s.as_str()).collect();
    Ok(json!({
        "tenant": format!("tenants/{tenant}"),
        "username": user.username,
        "displayName": user.display_name,
        "scopes": scopes,
        "authorizeUrl": format!("{}/oauth2/authorize", config.public_url),
    }))
}

/// Rotates the embedded server's signing key on the database of `config` and returns
/// the new key id and the key ids now published.
///
/// # Errors
/// When the database cannot be opened or the key cannot be stored.
pub async fn rotate_keys(config: &Config) -> anyhow::Result<Value> {
    let services = server::services(config).await?;
    let kid = services.auth.keys.rotate().await.map_err(failed)?;
    let published: Vec<Value> = services.auth.keys.jwks()["keys"]
        .as_array()
        .map(|keys| keys.iter().map(|key| key["kid"].clone()).collect())
        .unwrap_or_default();
    Ok(json!({"signingKey": kid, "publishedKeys": published}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tenant_ids_come_bare_or_as_names() {
        assert_eq!(tenant_id("tenants/abc").unwrap().as_str(), "abc");
        assert_eq!(tenant_id("abc").unwrap().as_str(), "abc");
        assert!(tenant_id("tenants/").is_err());
        assert!(tenant_id("tenants/a/b").is_err());
    }

    #[test]
    fn scopes_are_known_names() {
        assert_eq!(parse_scope("rics.admin"), Ok(Scope::Admin));
        assert!(parse_scope("admin").unwrap_err().contains("rics.read"));
    }
}
