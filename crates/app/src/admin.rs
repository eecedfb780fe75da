//! `rics clients create`, `rics users create`, `rics keys rotate` and `rics automations
//! load`: credentials for a tenant, the signing key and tenants' automations, managed by
//! an operator on the server's machine (the API has no route that makes clients or
//! users).
//!
//! ```text
//! rics clients create --tenant tenants/abc --name "Nightly import" --scope rics.read --scope rics.write
//! rics clients create --tenant tenants/abc --name "Web app" --scope rics.read --public \
//!     --redirect-uri https://app.example.com/callback
//! RICS_USER_PASSWORD=... rics users create --tenant tenants/abc --username ada --name "Ada L." --scope rics.read
//! rics keys rotate
//! rics automations load onboarding.json --tenant tenants/abc
//! rics automations load onboarding.json --all-tenants
//! ```
//!
//! Each prints one JSON object on standard output (the binary does; these functions
//! return it); a generated client secret appears there once and is stored only as an
//! Argon2 hash.

use std::collections::BTreeSet;

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use serde_json::{Value, json};

use crate::config::{AdminSettings, Config};
use crate::server;
use rics_domain::automation::service::check_file;
use rics_domain::error::Error;
use rics_domain::identity::admin::ClientSpec;
use rics_domain::principal::{Principal, Scope, TenantId};
use rics_domain::tenant::ports::TenantRepository;
use rics_storage::DieselTenantRepository;

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

/// `rics automations ...`.
#[derive(Debug, Subcommand)]
pub enum AutomationsCommand {
    /// Create or replace automations from a JSON file: an array of Automation resources
    /// as the API takes them (or an object with `automations`), each named
    /// `automations/{id}`. Every definition is checked before any is stored; built-in
    /// automations cannot be replaced.
    Load(LoadAutomations),
}

/// Arguments of `rics automations load`.
#[derive(Debug, Args)]
pub struct LoadAutomations {
    /// The JSON file.
    pub file: std::path::PathBuf,
    /// The tenant to load them into (`tenants/{id}` or the id).
    #[arg(
        long,
        required_unless_present = "all_tenants",
        conflicts_with = "all_tenants"
    )]
    pub tenant: Option<String>,
    /// Load them into every tenant.
    #[arg(long)]
    pub all_tenants: bool,
    /// Where the database is (as for `rics serve`).
    #[command(flatten)]
    pub settings: AdminSettings,
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

/// The tenant `text` names (`tenants/{id}` or the id), if it exists on the database of
/// `services`.
///
/// # Errors
/// When `text` names no tenant or the tenant does not exist.
pub(crate) async fn existing_tenant(
    services: &server::Services,
    text: &str,
) -> anyhow::Result<TenantId> {
    let tenant = tenant_id(text)?;
    if DieselTenantRepository::new(services.db.clone())
        .get(&tenant)
        .await
        .map_err(|e| failed(e.into()))?
        .is_none()
    {
        bail!("there is no tenant tenants/{tenant}");
    }
    Ok(tenant)
}

/// A domain error as a command-line error, with each field violation on a line.
pub(crate) fn failed(error: Error) -> anyhow::Error {
    let mut text = error.message;
    for fault in &error.field_violations {
        text.push_str(&format!(
            "\n  {}: {} ({})",
            fault.field, fault.description, fault.reason
        ));
    }
    anyhow::anyhow!("{text}")
}

/// Loads the automations of `args.file` into `args.tenant`, or every tenant, on the
/// database of `config`; returns what was done to each, by tenant.
///
/// # Errors
/// When the file does not read, a definition breaks a rule (nothing is stored), the
/// database cannot be opened, the tenant does not exist, or an id is a built-in
/// automation's.
pub async fn load_automations(config: &Config, args: &LoadAutomations) -> anyhow::Result<Value> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let file: Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not JSON", args.file.display()))?;
    let automations = check_file(&file).map_err(failed)?;
    let services = server::services(config).await?;
    let tenants = match &args.tenant {
        Some(tenant) => vec![existing_tenant(&services, tenant).await?],
        None => DieselTenantRepository::new(services.db.clone())
            .all_ids()
            .await
            .map_err(|e| failed(e.into()))?,
    };
    let mut report = Vec::with_capacity(tenants.len());
    for tenant in tenants {
        let operator = Principal {
            tenant: tenant.clone(),
            subject: "operator".into(),
            display_name: "rics automations load".into(),
            scopes: BTreeSet::from([Scope::Admin]),
        };
        let loaded = services
            .use_cases
            .automations
            .load(&operator, &automations)
            .await
            .map_err(|e| failed(e).context(format!("tenants/{tenant}")))?;
        let loaded: Vec<Value> = loaded
            .iter()
            .map(|(name, done)| json!({"name": name, "result": done.as_str()}))
            .collect();
        report.push(json!({"tenant": format!("tenants/{tenant}"), "automations": loaded}));
    }
    Ok(json!({ "tenants": report }))
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
