//! Configuration: built-in defaults, overridden by `rics.toml`, overridden by `RICS_*`
//! environment variables and command-line flags. `rics serve --help` lists every
//! setting with its variable; the other commands take only the settings they read.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use rics_domain::file::inspect::{AllowedTypes, DEFAULT_MAX_BYTES, UploadRules};
use rics_domain::job::RunnerSettings;
use rics_domain::webhook::{RetrySchedule, TargetPolicy};
use rics_storage::object_files::S3Location;
use serde::Deserialize;

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// JSON when standard error is not a terminal, text otherwise.
    Auto,
    /// One JSON object per line.
    Json,
    /// Human-readable text.
    Text,
}

/// Where the configuration file and the database are: what every command that opens
/// the database reads.
#[derive(Debug, Clone, Default, Args)]
pub struct DatabaseLocation {
    /// Configuration file [default: ./rics.toml when it exists].
    #[arg(long, env = "RICS_CONFIG", value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Database URL: sqlite://PATH or postgres://... [default: sqlite://data/rics.db].
    #[arg(long, env = "RICS_DATABASE_URL", value_name = "URL")]
    pub database_url: Option<String>,
}

/// The settings `rics migrate` reads: the database and the log. The others come from the
/// configuration file or their defaults.
#[derive(Debug, Clone, Default, Args)]
pub struct MigrateSettings {
    /// Where the database is.
    #[command(flatten)]
    pub location: DatabaseLocation,
    /// Log filter, in tracing's EnvFilter syntax [default: info].
    #[arg(long, env = "RICS_LOG", value_name = "FILTER")]
    pub log: Option<String>,
    /// Log format [default: auto].
    #[arg(long, env = "RICS_LOG_FORMAT", value_name = "FORMAT")]
    pub log_format: Option<LogFormat>,
}

impl MigrateSettings {
    /// Resolves these settings as [`Settings::resolve`] does.
    ///
    /// # Errors
    /// As [`Settings::resolve`].
    pub fn resolve(&self) -> anyhow::Result<Config> {
        Settings {
            location: self.location.clone(),
            log: self.log.clone(),
            log_format: self.log_format,
            ..Settings::default()
        }
        .resolve()
    }
}

/// The settings the operator's commands (`rics clients create`, `rics users create`,
/// `rics keys rotate`) read: the database, whether to migrate it first, and the URL their
/// output names. The others come from the configuration file or their defaults.
#[derive(Debug, Clone, Default, Args)]
pub struct AdminSettings {
    /// Where the database is.
    #[command(flatten)]
    pub location: DatabaseLocation,
    /// Apply pending migrations first [default: true for SQLite, false for PostgreSQL,
    /// where `rics migrate` is the primary path].
    #[arg(long, env = "RICS_MIGRATE_ON_START", value_name = "BOOL")]
    pub migrate_on_start: Option<bool>,
    /// The URL clients reach the server at, for the token and authorization URLs printed
    /// [default: http://127.0.0.1:8080].
    #[arg(long, env = "RICS_PUBLIC_URL", value_name = "URL")]
    pub public_url: Option<String>,
}

impl AdminSettings {
    /// Resolves these settings as [`Settings::resolve`] does.
    ///
    /// # Errors
    /// As [`Settings::resolve`].
    pub fn resolve(&self) -> anyhow::Result<Config> {
        Settings {
            location: self.location.clone(),
            migrate_on_start: self.migrate_on_start,
            public_url: self.public_url.clone(),
            ..Settings::default()
        }
        .resolve()
    }
}

/// The settings of `rics serve`, as flags and environment variables. Every one is
/// optional here; a missing one falls back to `rics.toml`, then to the default in its
/// help text.
#[derive(Debug, Clone, Default, Args)]
pub struct Settings {
    /// Where the database is.
    #[command(flatten)]
    pub location: DatabaseLocation,
    /// Address to listen on [default: 127.0.0.1:8080].
    #[arg(long, env = "RICS_BIND_ADDRESS", value_name = "HOST:PORT")]
    pub bind_address: Option<String>,
    /// Address of a second listener serving Prometheus metrics at /metrics, without
    /// authentication: keep it off the API's network [default: off].
    #[arg(long, env = "RICS_METRICS_ADDRESS", value_name = "HOST:PORT")]
    pub metrics_address: Option<String>,
    /// Most database connections [default: 16].
    #[arg(long, env = "RICS_DATABASE_POOL_SIZE", value_name = "N")]
    pub database_pool_size: Option<u32>,
    /// Seconds a request waits for a database connection before 503 [default: 5].
    #[arg(long, env = "RICS_DATABASE_TIMEOUT_SECONDS", value_name = "SECONDS")]
    pub database_timeout_seconds: Option<u64>,
    /// Apply pending migrations at start [default: true for SQLite, false for PostgreSQL,
    /// where `rics migrate` is the primary path].
    #[arg(long, env = "RICS_MIGRATE_ON_START", value_name = "BOOL")]
    pub migrate_on_start: Option<bool>,
    /// Largest JSON request body in bytes [default: 1048576]. File uploads have their
    /// own limit (RICS_FILE_MAX_BYTES).
    #[arg(long, env = "RICS_REQUEST_BODY_LIMIT", value_name = "BYTES")]
    pub request_body_limit: Option<usize>,
    /// Largest file in bytes [default: 10485760, 10 MiB]. File routes take JSON bodies
    /// of about 4/3 of it (base64) plus 64 KiB, and multipart bodies of it plus 64 KiB.
    #[arg(long, env = "RICS_FILE_MAX_BYTES", value_name = "BYTES")]
    pub file_max_bytes: Option<u64>,
    /// The types files may have, comma separated: extensions rics knows (pdf, jpg,
    /// jpeg, png, txt, csv, json, doc, docx, xls, xlsx, ppt, pptx, odt, ods, odp) or
    /// media types (image/webp) [default: all those extensions].
    #[arg(
        long,
        env = "RICS_FILE_ALLOWED_TYPES",
        value_name = "TYPE,...",
        value_delimiter = ','
    )]
    pub file_allowed_types: Option<Vec<String>>,
    /// Uploads the database file store reads at once; each holds at most one file in
    /// memory, so the store's memory stays below this times RICS_FILE_MAX_BYTES; later
    /// uploads wait their turn [default: 4].
    #[arg(long, env = "RICS_FILE_UPLOADS_AT_ONCE", value_name = "N")]
    pub file_uploads_at_once: Option<usize>,
    /// Where the content of files is kept: `database` (rows beside the rest; SQLite, or
    /// replicas on one PostgreSQL), `directory:PATH` (a local directory, made when
    /// missing) or `s3://BUCKET/PREFIX` (S3-compatible storage; see the RICS_S3_*
    /// settings) [default: database]. Uploads and downloads stream to and from a
    /// directory or S3; RICS_FILE_UPLOADS_AT_ONCE bounds every store.
    #[arg(long, env = "RICS_FILE_STORE", value_name = "STORE")]
    pub file_store: Option<String>,
    /// The endpoint of an S3-compatible service (http://127.0.0.1:9000) [default:
    /// AWS's].
    #[arg(long, env = "RICS_S3_ENDPOINT", value_name = "URL")]
    pub s3_endpoint: Option<String>,
    /// The S3 region [default: us-east-1].
    #[arg(long, env = "RICS_S3_REGION", value_name = "REGION")]
    pub s3_region: Option<String>,
    /// The S3 access key id (environment or flag only, never the file).
    #[arg(long, env = "RICS_S3_ACCESS_KEY_ID", value_name = "ID")]
    pub s3_access_key_id: Option<String>,
    /// The S3 secret access key (environment or flag only, never the file).
    #[arg(
        long,
        env = "RICS_S3_SECRET_ACCESS_KEY",
        value_name = "SECRET",
        hide_env_values = true
    )]
    pub s3_secret_access_key: Option<String>,
    /// Allow a plain http:// S3 endpoint, such as a local test service [default: false].
    #[arg(long, env = "RICS_S3_ALLOW_HTTP", value_name = "BOOL")]
    pub s3_allow_http: Option<bool>,
    /// Days a soft-deleted resource is kept before it is purged [default: 30].
    #[arg(long, env = "RICS_SOFT_DELETE_RETENTION_DAYS", value_name = "DAYS")]
    pub soft_delete_retention_days: Option<u64>,
    /// Seconds between purges of expired soft-deleted resources [default: 3600].
    #[arg(long, env = "RICS_PURGE_INTERVAL_SECONDS", value_name = "SECONDS")]
    pub purge_interval_seconds: Option<u64>,
    /// HTTP worker threads [default: the number of CPUs].
    #[arg(long, env = "RICS_HTTP_WORKERS", value_name = "N")]
    pub http_workers: Option<usize>,
    /// Log filter, in tracing's EnvFilter syntax [default: info].
    #[arg(long, env = "RICS_LOG", value_name = "FILTER")]
    pub log: Option<String>,
    /// Log format [default: auto].
    #[arg(long, env = "RICS_LOG_FORMAT", value_name = "FORMAT")]
    pub log_format: Option<LogFormat>,
    /// The URL clients reach this server at: the issuer (`iss`) of its tokens and the
    /// base of its OAuth endpoints [default: http:// and the bind address].
    #[arg(long, env = "RICS_PUBLIC_URL", value_name = "URL")]
    pub public_url: Option<String>,
    /// The audience (`aud`) access tokens must carry [default: rics].
    #[arg(long, env = "RICS_TOKEN_AUDIENCE", value_name = "AUDIENCE")]
    pub token_audience: Option<String>,
    /// Lifetime of the access tokens this server issues, in minutes [default: 15].
    #[arg(long, env = "RICS_ACCESS_TOKEN_MINUTES", value_name = "MINUTES")]
    pub access_token_minutes: Option<u64>,
    /// External OpenID Connect issuers whose tokens are accepted too (Keycloak, Auth0,
    /// ...), comma separated; their keys are found by discovery [default: none].
    #[arg(
        long,
        env = "RICS_OIDC_ISSUERS",
        value_name = "URL,...",
        value_delimiter = ','
    )]
    pub oidc_issuers: Option<Vec<String>>,
    /// The claim of external issuers' tokens that names the tenant [default: tenant].
    #[arg(long, env = "RICS_OIDC_TENANT_CLAIM", value_name = "CLAIM")]
    pub oidc_tenant_claim: Option<String>,
    /// Requests per minute each caller may make (bursts up to the same) [default: 600].
    #[arg(long, env = "RICS_RATE_LIMIT_PER_MINUTE", value_name = "N")]
    pub rate_limit_per_minute: Option<u32>,
    /// Sanctions and PEP list files or folders to screen against, comma separated
    /// [default: the dated lists bundled in the repository's data/ folder].
    #[arg(
        long,
        env = "RICS_SCREENING_LISTS",
        value_name = "PATH,...",
        value_delimiter = ','
    )]
    pub screening_lists: Option<Vec<PathBuf>>,
    /// Seconds between reloads of the screening lists from their files (ongoing
    /// monitoring: a changed list re-screens the entities it may affect); 0 reloads
    /// only on SIGHUP [default: 0].
    #[arg(
        long,
        env = "RICS_SCREENING_RELOAD_INTERVAL_SECONDS",
        value_name = "SECONDS"
    )]
    pub screening_reload_interval_seconds: Option<u64>,
    /// Job workers this process runs, each claiming up to `RICS_JOB_BATCH` runs at
    /// once; 0 runs no worker in this process (another `rics serve` on the same
    /// database runs the jobs) [default: 8].
    #[arg(long, env = "RICS_JOB_CONCURRENCY", value_name = "N")]
    pub job_concurrency: Option<u32>,
    /// Ready job runs a worker claims in one transaction and executes concurrently;
    /// it claims again when all of them are done [default: 16].
    #[arg(long, env = "RICS_JOB_BATCH", value_name = "N")]
    pub job_batch: Option<u32>,
    /// Seconds a worker's claim on a job run lasts; a run not finished by then (its
    /// worker died) runs again [default: 60].
    #[arg(long, env = "RICS_JOB_LEASE_SECONDS", value_name = "SECONDS")]
    pub job_lease_seconds: Option<u64>,
    /// Attempts of a failing job run before it fails for good [default: 5].
    #[arg(long, env = "RICS_JOB_MAX_ATTEMPTS", value_name = "N")]
    pub job_max_attempts: Option<u32>,
    /// The key secrets the server must read back (webhook signing secrets) are sealed
    /// with: the base64 of 32 random bytes (`openssl rand -base64 32`), kept outside the
    /// database. Without it (or a key file) no webhook endpoint can be made.
    #[arg(
        long,
        env = "RICS_SECRET_KEY",
        value_name = "BASE64",
        hide_env_values = true
    )]
    pub secret_key: Option<String>,
    /// A file holding that key instead (its base64 text).
    #[arg(long, env = "RICS_SECRET_KEY_FILE", value_name = "PATH")]
    pub secret_key_file: Option<PathBuf>,
    /// What webhook endpoints may reach beyond public https URLs, comma separated: IPs,
    /// CIDRs or host names, which may then be private or loopback and use http (for tests
    /// and private deployments) [default: none].
    #[arg(long, env = "RICS_WEBHOOK_ALLOW_HOSTS", value_name = "HOST,...")]
    pub webhook_allow_hosts: Option<String>,
    /// The waits between attempts of a webhook delivery, comma separated, each a number
    /// and `ms`, `s`, `m` or `h`; each is jittered by ±20 %, and once they are used up
    /// the delivery fails [default: 5s,5m,30m,2h,5h,10h,10h].
    #[arg(long, env = "RICS_WEBHOOK_RETRY_SCHEDULE", value_name = "WAITS")]
    pub webhook_retry_schedule: Option<String>,
    /// Seconds an attempt of a webhook delivery may take, answer included, at most 10
    /// [default: 10].
    #[arg(long, env = "RICS_WEBHOOK_TIMEOUT_SECONDS", value_name = "SECONDS")]
    pub webhook_timeout_seconds: Option<u64>,
    /// Whether an onboarding whose identity rests on the document alone (the built-in
    /// hosted capture, which stores the selfie without comparing it: assurance
    /// DOCUMENT_ONLY) may be APPROVED; otherwise it ends in REFER [default: false].
    #[arg(
        long,
        env = "RICS_ONBOARDING_ACCEPT_DOCUMENT_ONLY",
        value_name = "BOOL"
    )]
    pub onboarding_accept_document_only: Option<bool>,
    /// Days a finished webhook delivery (with its attempts and response excerpts) is
    /// kept before it is purged [default: 30].
    #[arg(
        long,
        env = "RICS_WEBHOOK_DELIVERY_RETENTION_DAYS",
        value_name = "DAYS"
    )]
    pub webhook_delivery_retention_days: Option<u64>,
    /// The base URL of Truuth's API, where `truuthVerificationConfig` sessions start
    /// (`POST {url}/v1/verificationSessions`) [default: none, and Truuth sessions are
    /// refused with PROVIDER_NOT_CONFIGURED].
    #[arg(long, env = "RICS_TRUUTH_API_URL", value_name = "URL")]
    pub truuth_api_url: Option<String>,
    /// The API key rics sends Truuth as a Bearer token (environment or flag only)
    /// [default: none].
    #[arg(
        long,
        env = "RICS_TRUUTH_API_KEY",
        value_name = "KEY",
        hide_env_values = true
    )]
    pub truuth_api_key: Option<String>,
    /// On the first start of an empty database: the admin client's id [default:
    /// generated].
    #[arg(long, env = "RICS_BOOTSTRAP_CLIENT_ID", value_name = "ID")]
    pub bootstrap_client_id: Option<String>,
    /// On the first start: the admin client's secret, at least 12 characters
    /// [default: generated and printed once].
    #[arg(
        long,
        env = "RICS_BOOTSTRAP_CLIENT_SECRET",
        value_name = "SECRET",
        hide_env_values = true
    )]
    pub bootstrap_client_secret: Option<String>,
    /// On the first start: an admin user's username, for the authorization code flow.
    #[arg(long, env = "RICS_BOOTSTRAP_USER", value_name = "USERNAME")]
    pub bootstrap_user: Option<String>,
    /// On the first start: that user's password, at least 12 characters.
    #[arg(
        long,
        env = "RICS_BOOTSTRAP_PASSWORD",
        value_name = "PASSWORD",
        hide_env_values = true
    )]
    pub bootstrap_password: Option<String>,
}

/// The file form of the settings (`rics.toml`), keys in snake_case.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSettings {
    database_url: Option<String>,
    bind_address: Option<String>,
    metrics_address: Option<String>,
    database_pool_size: Option<u32>,
    database_timeout_seconds: Option<u64>,
    migrate_on_start: Option<bool>,
    request_body_limit: Option<usize>,
    file_max_bytes: Option<u64>,
    file_allowed_types: Option<Vec<String>>,
    file_uploads_at_once: Option<usize>,
    file_store: Option<String>,
    s3_endpoint: Option<String>,
    s3_region: Option<String>,
    s3_allow_http: Option<bool>,
    soft_delete_retention_days: Option<u64>,
    purge_interval_seconds: Option<u64>,
    http_workers: Option<usize>,
    log: Option<String>,
    log_format: Option<LogFormat>,
    public_url: Option<String>,
    token_audience: Option<String>,
    access_token_minutes: Option<u64>,
    oidc_issuers: Option<Vec<String>>,
    oidc_tenant_claim: Option<String>,
    rate_limit_per_minute: Option<u32>,
    screening_lists: Option<Vec<PathBuf>>,
    screening_reload_interval_seconds: Option<u64>,
    job_concurrency: Option<u32>,
    job_batch: Option<u32>,
    job_lease_seconds: Option<u64>,
    job_max_attempts: Option<u32>,
    secret_key_file: Option<PathBuf>,
    webhook_allow_hosts: Option<String>,
    webhook_retry_schedule: Option<String>,
    webhook_timeout_seconds: Option<u64>,
    webhook_delivery_retention_days: Option<u64>,
    onboarding_accept_document_only: Option<bool>,
    truuth_api_url: Option<String>,
}

/// The resolved configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Database URL.
    pub database_url: String,
    /// Listen address.
    pub bind_address: String,
    /// The metrics listener's address; `None`: no metrics are kept or served.
    pub metrics_address: Option<String>,
    /// Most database connections.
    pub database_pool_size: u32,
    /// Wait for a database connection.
    pub database_timeout: Duration,
    /// Whether `serve` migrates at start.
    pub migrate_on_start: bool,
    /// Largest JSON body.
    pub request_body_limit: usize,
    /// What uploads must keep: the largest file and the allowed types.
    pub file_rules: UploadRules,
    /// Uploads a file store takes at once.
    pub file_uploads_at_once: usize,
    /// Where the content of files is kept.
    pub file_store: FileStoreSetting,
    /// Retention of soft-deleted resources.
    pub soft_delete_retention: Duration,
    /// Time between purges.
    pub purge_interval: Duration,
    /// HTTP worker threads.
    pub http_workers: usize,
    /// Log filter.
    pub log: String,
    /// Log format.
    pub log_format: LogFormat,
    /// The issuer URL (no trailing slash).
    pub public_url: String,
    /// The audience tokens must carry.
    pub token_audience: String,
    /// Lifetime of issued access tokens.
    pub access_token_lifetime: Duration,
    /// External OpenID Connect issuers.
    pub oidc_issuers: Vec<String>,
    /// Their tenant claim.
    pub oidc_tenant_claim: String,
    /// Requests per minute per caller.
    pub rate_limit_per_minute: u32,
    /// The list files or folders to screen against; empty for the bundled lists.
    pub screening_lists: Vec<PathBuf>,
    /// Time between scheduled reloads of the screening lists; `None` reloads only on
    /// SIGHUP.
    pub screening_reload_interval: Option<Duration>,
    /// Job workers this process runs (0: none).
    pub job_concurrency: u32,
    /// Runs a worker claims at once and executes concurrently.
    pub job_batch: u32,
    /// How long a worker's claim on a run lasts.
    pub job_lease: Duration,
    /// Attempts of a failing run.
    pub job_max_attempts: u32,
    /// The key secrets are sealed with, if configured.
    pub secret_key: SecretKey,
    /// What webhook endpoints may reach beyond public https URLs.
    pub webhook_targets: TargetPolicy,
    /// The waits between attempts of a webhook delivery.
    pub webhook_retry_schedule: RetrySchedule,
    /// How long an attempt of a webhook delivery may take.
    pub webhook_timeout: Duration,
    /// Whether an onboarding on document-only assurance may be APPROVED.
    pub onboarding_accept_document_only: bool,
    /// How long a finished webhook delivery is kept.
    pub webhook_delivery_retention: Duration,
    /// Truuth's API base URL (no trailing slash), when configured.
    pub truuth_api_url: Option<String>,
    /// The API key sent to Truuth.
    pub truuth_api_key: SecretKey,
    /// First-start credentials (environment or flags only, never the file).
    pub bootstrap: Bootstrap,
}

/// The key secrets are sealed with (base64 of 32 bytes), from the environment, a flag or
/// a key file, never the configuration file itself; its `Debug` hides it.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct SecretKey(pub Option<String>);

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "SecretKey(***)"
        } else {
            "SecretKey(None)"
        })
    }
}

/// Where the content of files is kept (RICS_FILE_STORE).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum FileStoreSetting {
    /// Rows of the database.
    #[default]
    Database,
    /// A local directory.
    Directory(PathBuf),
    /// S3-compatible object storage.
    S3(S3Location),
}

impl Settings {
    /// The file store the settings name, the S3 ones from here or `file`.
    fn file_store(&self, file: &FileSettings) -> anyhow::Result<FileStoreSetting> {
        let named = self.file_store.clone().or(file.file_store.clone());
        let Some(named) = named.filter(|n| n != "database") else {
            return Ok(FileStoreSetting::Database);
        };
        if let Some(path) = named.strip_prefix("directory:") {
            if path.is_empty() {
                bail!("file_store: directory: names no path");
            }
            return Ok(FileStoreSetting::Directory(PathBuf::from(path)));
        }
        if named.starts_with("s3://") {
            let location =
                S3Location::parse(&named).map_err(|e| anyhow::anyhow!("file_store: {e}"))?;
            return Ok(FileStoreSetting::S3(S3Location {
                endpoint: self
                    .s3_endpoint
                    .clone()
                    .or(file.s3_endpoint.clone())
                    .unwrap_or_default(),
                region: self
                    .s3_region
                    .clone()
                    .or(file.s3_region.clone())
                    .unwrap_or_else(|| "us-east-1".to_owned()),
                access_key_id: self.s3_access_key_id.clone().unwrap_or_default(),
                secret_access_key: self.s3_secret_access_key.clone().unwrap_or_default(),
                allow_http: self.s3_allow_http.or(file.s3_allow_http).unwrap_or(false),
                ..location
            }));
        }
        bail!("file_store: '{named}' is none of database, directory:PATH, s3://BUCKET/PREFIX")
    }
}

/// First-start credentials for automated deployments.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Bootstrap {
    /// The admin client's id.
    pub client_id: Option<String>,
    /// The admin client's secret.
    pub client_secret: Option<String>,
    /// An admin user: username and password.
    pub user: Option<(String, String)>,
}

impl std::fmt::Debug for Bootstrap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bootstrap")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "***"))
            .field("user", &self.user.as_ref().map(|(name, _)| (name, "***")))
            .finish()
    }
}

/// The longest an attempt of a webhook delivery may take, in seconds.
const MAX_WEBHOOK_TIMEOUT_SECONDS: u64 = 10;

/// The default database of `make run`.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://data/rics.db";

impl Settings {
    /// Resolves the settings: these values, else the configuration file's, else the
    /// defaults.
    ///
    /// # Errors
    /// When the configuration file cannot be read or parsed, or a value is invalid.
    pub fn resolve(&self) -> anyhow::Result<Config> {
        let file = match &self.location.config {
            Some(path) => read_file(path)?,
            None if Path::new("rics.toml").exists() => read_file(Path::new("rics.toml"))?,
            None => FileSettings::default(),
        };
        let file_store = self.file_store(&file)?;
        // The job runner's own defaults, so that they are stated once.
        let runner_defaults = RunnerSettings::default();
        let database_url = self
            .location
            .database_url
            .clone()
            .or(file.database_url)
            .unwrap_or_else(|| DEFAULT_DATABASE_URL.to_owned());
        let is_sqlite = database_url.starts_with("sqlite:");
        if self.bootstrap_user.is_some() != self.bootstrap_password.is_some() {
            bail!("RICS_BOOTSTRAP_USER and RICS_BOOTSTRAP_PASSWORD go together");
        }
        let config = Config {
            bind_address: self
                .bind_address
                .clone()
                .or(file.bind_address)
                .unwrap_or_else(|| "127.0.0.1:8080".to_owned()),
            metrics_address: self.metrics_address.clone().or(file.metrics_address),
            database_pool_size: self
                .database_pool_size
                .or(file.database_pool_size)
                .unwrap_or(16),
            database_timeout: Duration::from_secs(
                self.database_timeout_seconds
                    .or(file.database_timeout_seconds)
                    .unwrap_or(5),
            ),
            migrate_on_start: self
                .migrate_on_start
                .or(file.migrate_on_start)
                .unwrap_or(is_sqlite),
            request_body_limit: self
                .request_body_limit
                .or(file.request_body_limit)
                .unwrap_or(1024 * 1024),
            file_rules: UploadRules {
                max_bytes: self
                    .file_max_bytes
                    .or(file.file_max_bytes)
                    .unwrap_or(DEFAULT_MAX_BYTES),
                allowed: match self.file_allowed_types.clone().or(file.file_allowed_types) {
                    Some(types) => AllowedTypes::parse(&types)
                        .map_err(|e| anyhow::anyhow!("file_allowed_types: {e}"))?,
                    None => AllowedTypes::default(),
                },
            },
            file_uploads_at_once: self
                .file_uploads_at_once
                .or(file.file_uploads_at_once)
                .unwrap_or(4),
            file_store,
            soft_delete_retention: Duration::from_secs(
                86_400
                    * self
                        .soft_delete_retention_days
                        .or(file.soft_delete_retention_days)
                        .unwrap_or(30),
            ),
            purge_interval: Duration::from_secs(
                self.purge_interval_seconds
                    .or(file.purge_interval_seconds)
                    .unwrap_or(3600),
            ),
            http_workers: self
                .http_workers
                .or(file.http_workers)
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get())),
            log: self
                .log
                .clone()
                .or(file.log)
                .unwrap_or_else(|| "info".to_owned()),
            log_format: self
                .log_format
                .or(file.log_format)
                .unwrap_or(LogFormat::Auto),
            public_url: String::new(),
            token_audience: self
                .token_audience
                .clone()
                .or(file.token_audience)
                .unwrap_or_else(|| "rics".to_owned()),
            access_token_lifetime: Duration::from_secs(
                60 * self
                    .access_token_minutes
                    .or(file.access_token_minutes)
                    .unwrap_or(15),
            ),
            oidc_issuers: self
                .oidc_issuers
                .clone()
                .or(file.oidc_issuers)
                .unwrap_or_default()
                .into_iter()
                .map(|url| url.trim().trim_end_matches('/').to_owned())
                .filter(|url| !url.is_empty())
                .collect(),
            oidc_tenant_claim: self
                .oidc_tenant_claim
                .clone()
                .or(file.oidc_tenant_claim)
                .unwrap_or_else(|| "tenant".to_owned()),
            rate_limit_per_minute: self
                .rate_limit_per_minute
                .or(file.rate_limit_per_minute)
                .unwrap_or(600),
            screening_lists: self
                .screening_lists
                .clone()
                .or(file.screening_lists)
                .unwrap_or_default(),
            screening_reload_interval: match self
                .screening_reload_interval_seconds
                .or(file.screening_reload_interval_seconds)
                .unwrap_or(0)
            {
                0 => None,
                seconds => Some(Duration::from_secs(seconds)),
            },
            job_concurrency: self.job_concurrency.or(file.job_concurrency).unwrap_or(8),
            job_batch: self
                .job_batch
                .or(file.job_batch)
                .unwrap_or(runner_defaults.batch),
            job_lease: self
                .job_lease_seconds
                .or(file.job_lease_seconds)
                .map_or(runner_defaults.lease, Duration::from_secs),
            job_max_attempts: self
                .job_max_attempts
                .or(file.job_max_attempts)
                .unwrap_or(runner_defaults.max_attempts),
            secret_key: SecretKey(
                match (
                    &self.secret_key,
                    self.secret_key_file.clone().or(file.secret_key_file),
                ) {
                    (Some(key), _) => Some(key.clone()),
                    (None, Some(path)) => {
                        Some(std::fs::read_to_string(&path).with_context(|| {
                            format!("cannot read the secret key file {}", path.display())
                        })?)
                    }
                    (None, None) => None,
                },
            ),
            webhook_targets: TargetPolicy::parse(
                self.webhook_allow_hosts
                    .as_deref()
                    .or(file.webhook_allow_hosts.as_deref())
                    .unwrap_or_default(),
            )
            .map_err(|e| anyhow::anyhow!("webhook_allow_hosts: {e}"))?,
            webhook_retry_schedule: match self
                .webhook_retry_schedule
                .as_deref()
                .or(file.webhook_retry_schedule.as_deref())
            {
                Some(text) => RetrySchedule::parse(text)
                    .map_err(|e| anyhow::anyhow!("webhook_retry_schedule: {e}"))?,
                None => RetrySchedule::default(),
            },
            webhook_timeout: Duration::from_secs(
                self.webhook_timeout_seconds
                    .or(file.webhook_timeout_seconds)
                    .unwrap_or(MAX_WEBHOOK_TIMEOUT_SECONDS),
            ),
            webhook_delivery_retention: Duration::from_secs(
                86_400
                    * self
                        .webhook_delivery_retention_days
                        .or(file.webhook_delivery_retention_days)
                        .unwrap_or(30),
            ),
            onboarding_accept_document_only: self
                .onboarding_accept_document_only
                .or(file.onboarding_accept_document_only)
                .unwrap_or(false),
            truuth_api_url: self
                .truuth_api_url
                .clone()
                .or(file.truuth_api_url)
                .map(|url| url.trim().trim_end_matches('/').to_owned())
                .filter(|url| !url.is_empty()),
            truuth_api_key: SecretKey(self.truuth_api_key.clone()),
            bootstrap: Bootstrap {
                client_id: self.bootstrap_client_id.clone(),
                client_secret: self.bootstrap_client_secret.clone(),
                user: self
                    .bootstrap_user
                    .clone()
                    .zip(self.bootstrap_password.clone()),
            },
            database_url,
        };
        let mut config = config;
        config.public_url = self
            .public_url
            .clone()
            .or(file.public_url)
            .unwrap_or_else(|| format!("http://{}", config.bind_address))
            .trim_end_matches('/')
            .to_owned();
        config.check()?;
        Ok(config)
    }
}

impl Config {
    fn check(&self) -> anyhow::Result<()> {
        if self.database_pool_size == 0 {
            bail!("database_pool_size must be at least 1");
        }
        if self.http_workers == 0 {
            bail!("http_workers must be at least 1");
        }
        if self.request_body_limit < 1024 {
            bail!("request_body_limit must be at least 1024 bytes");
        }
        if self.file_rules.max_bytes == 0 {
            bail!("file_max_bytes must be at least 1");
        }
        if self.file_uploads_at_once == 0 {
            bail!("file_uploads_at_once must be at least 1");
        }
        if self.purge_interval.is_zero() {
            bail!("purge_interval_seconds must be at least 1");
        }
        if self.rate_limit_per_minute == 0 {
            bail!("rate_limit_per_minute must be at least 1");
        }
        if self.access_token_lifetime.is_zero() {
            bail!("access_token_minutes must be at least 1");
        }
        if self.job_batch == 0 {
            bail!("job_batch must be at least 1");
        }
        if self.job_lease.is_zero() {
            bail!("job_lease_seconds must be at least 1");
        }
        if self.job_max_attempts == 0 {
            bail!("job_max_attempts must be at least 1");
        }
        if self.webhook_timeout.is_zero()
            || self.webhook_timeout > Duration::from_secs(MAX_WEBHOOK_TIMEOUT_SECONDS)
        {
            bail!("webhook_timeout_seconds must be between 1 and {MAX_WEBHOOK_TIMEOUT_SECONDS}");
        }
        if self.webhook_delivery_retention.is_zero() {
            bail!("webhook_delivery_retention_days must be at least 1");
        }
        if let Some(url) = &self.truuth_api_url
            && !(url.starts_with("http://") || url.starts_with("https://"))
        {
            bail!("truuth_api_url must be an http(s) URL, got '{url}'");
        }
        if !(self.public_url.starts_with("http://") || self.public_url.starts_with("https://")) {
            bail!(
                "public_url must be an http(s) URL, got '{}'",
                self.public_url
            );
        }
        Ok(())
    }
}

fn read_file(path: &Path) -> anyhow::Result<FileSettings> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the configuration file {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("invalid configuration file {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_apply_without_settings() {
        let config = Settings {
            location: DatabaseLocation {
                config: Some(PathBuf::from("/nonexistent/rics.toml")),
                ..DatabaseLocation::default()
            },
            ..Settings::default()
        }
        .resolve();
        assert!(config.is_err(), "a named file that is missing is an error");
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("rics.toml");
        std::fs::write(&empty, "").unwrap();
        let config = Settings {
            location: DatabaseLocation {
                config: Some(empty),
                ..DatabaseLocation::default()
            },
            ..Settings::default()
        }
        .resolve()
        .unwrap();
        assert_eq!(config.database_url, DEFAULT_DATABASE_URL);
        assert_eq!(config.bind_address, "127.0.0.1:8080");
        assert!(config.migrate_on_start);
        assert_eq!(
            config.soft_delete_retention,
            Duration::from_secs(30 * 86_400)
        );
        assert_eq!(config.file_rules, UploadRules::default());
        assert_eq!(config.file_uploads_at_once, 4);
        assert_eq!(config.file_store, FileStoreSetting::Database);
    }

    #[test]
    fn file_settings_are_read_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rics.toml");
        std::fs::write(
            &path,
            "file_max_bytes = 2048\nfile_allowed_types = [\"pdf\", \"image/webp\"]\n",
        )
        .unwrap();
        let settings = |types: Option<Vec<String>>| Settings {
            location: DatabaseLocation {
                config: Some(path.clone()),
                ..DatabaseLocation::default()
            },
            file_allowed_types: types,
            ..Settings::default()
        };
        let config = settings(None).resolve().unwrap();
        assert_eq!(config.file_rules.max_bytes, 2048);
        assert!(config.file_rules.allowed.allows("image/webp"));
        assert!(!config.file_rules.allowed.allows("image/png"));
        let error = settings(Some(vec!["exe".into()])).resolve().unwrap_err();
        assert!(format!("{error:#}").contains("file_allowed_types"));
    }

    #[test]
    fn webhook_delivery_settings_have_defaults_and_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rics.toml");
        std::fs::write(
            &path,
            "webhook_retry_schedule = \"100ms,2s\"\nwebhook_delivery_retention_days = 7\n",
        )
        .unwrap();
        let settings = |timeout: Option<u64>, schedule: Option<&str>| Settings {
            location: DatabaseLocation {
                config: Some(path.clone()),
                ..DatabaseLocation::default()
            },
            webhook_timeout_seconds: timeout,
            webhook_retry_schedule: schedule.map(str::to_owned),
            ..Settings::default()
        };
        let config = settings(None, None).resolve().unwrap();
        assert_eq!(config.webhook_timeout, Duration::from_secs(10));
        assert_eq!(
            config.webhook_retry_schedule,
            RetrySchedule::parse("100ms,2s").unwrap()
        );
        assert_eq!(
            config.webhook_delivery_retention,
            Duration::from_secs(7 * 86_400)
        );
        let config = settings(Some(3), Some("1s")).resolve().unwrap();
        assert_eq!(config.webhook_timeout, Duration::from_secs(3));
        assert_eq!(config.webhook_retry_schedule.wait(2, 0.5), None);
        for (timeout, schedule, complaint) in [
            (Some(11), None, "webhook_timeout_seconds"),
            (Some(0), None, "webhook_timeout_seconds"),
            (None, Some("5 minutes"), "webhook_retry_schedule"),
        ] {
            let error = settings(timeout, schedule).resolve().unwrap_err();
            assert!(format!("{error:#}").contains(complaint), "{error:#}");
        }
    }

    #[test]
    fn the_file_store_is_the_database_a_directory_or_s3() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rics.toml");
        std::fs::write(&path, "s3_region = \"eu-west-1\"\ns3_allow_http = true\n").unwrap();
        let store = |named: &str| {
            Settings {
                location: DatabaseLocation {
                    config: Some(path.clone()),
                    ..DatabaseLocation::default()
                },
                file_store: Some(named.to_owned()),
                s3_endpoint: Some("http://127.0.0.1:9000".into()),
                s3_access_key_id: Some("id".into()),
                s3_secret_access_key: Some("hush-hush".into()),
                ..Settings::default()
            }
            .resolve()
            .map(|config| config.file_store)
        };
        assert_eq!(store("database").unwrap(), FileStoreSetting::Database);
        assert_eq!(
            store("directory:/var/lib/rics/files").unwrap(),
            FileStoreSetting::Directory(PathBuf::from("/var/lib/rics/files"))
        );
        let FileStoreSetting::S3(location) = store("s3://bucket/rics/files/").unwrap() else {
            panic!("an s3:// store is S3");
        };
        assert_eq!(
            (
                location.bucket.as_str(),
                location.prefix.as_str(),
                location.region.as_str()
            ),
            ("bucket", "rics/files", "eu-west-1")
        );
        assert_eq!(location.endpoint, "http://127.0.0.1:9000");
        assert!(location.allow_http);
        assert!(
            !format!("{location:?}").contains("hush-hush"),
            "the secret never prints"
        );
        for bad in ["directory:", "s3://", "ftp://x"] {
            let error = store(bad).unwrap_err();
            assert!(format!("{error:#}").contains("file_store"), "{bad}");
        }
    }

    #[test]
    fn job_workers_claim_runs_in_batches_of_at_least_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rics.toml");
        std::fs::write(&path, "job_concurrency = 2\n").unwrap();
        let settings = |batch: Option<u32>| Settings {
            location: DatabaseLocation {
                config: Some(path.clone()),
                ..DatabaseLocation::default()
            },
            job_batch: batch,
            ..Settings::default()
        };
        let config = settings(None).resolve().unwrap();
        assert_eq!((config.job_concurrency, config.job_batch), (2, 16));
        assert_eq!(settings(Some(4)).resolve().unwrap().job_batch, 4);
        let error = settings(Some(0)).resolve().unwrap_err();
        assert!(format!("{error:#}").contains("job_batch"), "{error:#}");
    }

    #[test]
    fn flags_override_the_file_which_overrides_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rics.toml");
        std::fs::write(
            &path,
            "database_url = \"postgres://db/rics\"\nbind_address = \"0.0.0.0:9000\"\n",
        )
        .unwrap();
        let config = Settings {
            location: DatabaseLocation {
                config: Some(path),
                ..DatabaseLocation::default()
            },
            bind_address: Some("127.0.0.1:1".into()),
            ..Settings::default()
        }
        .resolve()
        .unwrap();
        assert_eq!(config.database_url, "postgres://db/rics");
        assert_eq!(config.bind_address, "127.0.0.1:1");
        assert!(
            !config.migrate_on_start,
            "PostgreSQL does not migrate at start by default"
        );
    }

    #[test]
    fn unknown_file_keys_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rics.toml");
        std::fs::write(&path, "databse_url = \"x\"\n").unwrap();
        let error = Settings {
            location: DatabaseLocation {
                config: Some(path),
                ..DatabaseLocation::default()
            },
            ..Settings::default()
        }
        .resolve()
        .unwrap_err();
        assert!(format!("{error:#}").contains("databse_url"));
    }
}

#[cfg(test)]
mod security_tests {
    use super::*;

    #[test]
    fn bootstrap_secrets_never_print() {
        let config = Bootstrap {
            client_id: Some("ops".into()),
            client_secret: Some("top-secret-value".into()),
            user: Some(("root".into(), "root-password-value".into())),
        };
        let printed = format!("{config:?}");
        assert!(printed.contains("ops") && printed.contains("root"));
        assert!(!printed.contains("top-secret-value") && !printed.contains("root-password-value"));
    }

    #[test]
    fn a_bootstrap_user_needs_a_password() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("rics.toml");
        std::fs::write(&empty, "").unwrap();
        let half = Settings {
            location: DatabaseLocation {
                config: Some(empty),
                ..DatabaseLocation::default()
            },
            bootstrap_user: Some("root".into()),
            ..Settings::default()
        };
        assert!(half.resolve().is_err());
    }

    #[test]
    fn issuers_are_normalised() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rics.toml");
        std::fs::write(&path, "public_url = \"https://rics.example/\"\noidc_issuers = [\"https://idp.example/realms/x/\", \" \"]\n").unwrap();
        let config = Settings {
            location: DatabaseLocation {
                config: Some(path),
                ..DatabaseLocation::default()
            },
            ..Settings::default()
        }
        .resolve()
        .unwrap();
        assert_eq!(config.public_url, "https://rics.example");
        assert_eq!(
            config.oidc_issuers,
            vec!["https://idp.example/realms/x".to_string()]
        );
    }
}
