//! Wiring: the database, the repositories, the services and the HTTP server.

use std::sync::Arc;

use actix_web::HttpServer;
use actix_web::dev::ServerHandle;
use actix_web::web::Data;
use anyhow::{Context, bail};
use async_trait::async_trait;
use diesel::RunQueryDsl;
use rics_auth::SingleTenantAuthenticator;
use rics_domain::entity::EntityService;
use rics_domain::id::UuidGenerator;
use rics_domain::list::Paging;
use rics_domain::principal::{Principal, TenantId};
use rics_domain::time::{Clock, SystemClock};
use rics_http::{ApiState, Readiness};
use rics_storage::connection::redact;
use rics_storage::{Database, DieselEntityRepository, PoolOptions, migrations, secrets};

use crate::config::Config;

/// How long idempotency keys are honoured (AIP-155 asks for at least an hour).
pub const IDEMPOTENCY_WINDOW: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

/// The database answers `SELECT 1`.
struct DatabaseReadiness(Database);

#[async_trait]
impl Readiness for DatabaseReadiness {
    async fn check(&self) -> Result<(), String> {
        self.0
            .run(|conn| {
                diesel::sql_query("SELECT 1")
                    .execute(conn)
                    .map(|_| ())
                    .map_err(|e| {
                        rics_domain::repository::RepositoryError::Unavailable(e.to_string())
                    })
            })
            .await
            .map_err(|e| e.to_string())
    }
}

/// Opens the database with the configured pool.
///
/// # Errors
/// When the URL is bad or the database cannot be reached.
pub fn open_database(config: &Config) -> anyhow::Result<Database> {
    Database::open(
        &config.database_url,
        PoolOptions {
            max_size: config.database_pool_size,
            acquire_timeout: config.database_timeout,
            ..PoolOptions::default()
        },
    )
    .with_context(|| format!("cannot open the database {}", redact(&config.database_url)))
}

/// Applies pending migrations and returns their versions.
///
/// # Errors
/// When a migration fails.
pub fn migrate(db: &Database) -> anyhow::Result<Vec<String>> {
    db.blocking(migrations::run_pending)
        .context("migration failed")
}

/// A running server.
pub struct Running {
    /// The address it listens on (useful with port 0).
    pub address: std::net::SocketAddr,
    /// Stops it.
    pub handle: ServerHandle,
    /// Completes when it stops.
    pub server: actix_web::dev::Server,
}

/// The principal background maintenance acts as.
fn system_principal() -> Principal {
    Principal {
        tenant: TenantId::default_tenant(),
        subject: "system".into(),
        display_name: "rics".into(),
        scopes: Default::default(),
    }
}

/// Builds everything and starts listening. Call inside an actix/tokio runtime.
///
/// # Errors
/// When the database is unreachable, not migrated, or the address cannot be bound.
pub async fn start(config: &Config) -> anyhow::Result<Running> {
    let db = open_database(config)?;
    let setup = db.clone();
    let migrate_on_start = config.migrate_on_start;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let now = clock.now();
    let secret = tokio::task::spawn_blocking(move || -> anyhow::Result<Vec<u8>> {
        if migrate_on_start {
            let applied = migrate(&setup)?;
            if !applied.is_empty() {
                tracing::info!(versions = ?applied, "applied migrations");
            }
        } else {
            let pending = setup.blocking(migrations::pending)?;
            if !pending.is_empty() {
                bail!(
                    "the database has {} pending migrations ({}): run `rics migrate` first",
                    pending.len(),
                    pending.join(", ")
                );
            }
        }
        Ok(setup.blocking(|conn| secrets::get_or_create(conn, "page_tokens", 32, now))?)
    })
    .await
    .context("start-up task failed")??;

    let paging =
        Arc::new(Paging::new(&secret, clock.clone()).map_err(|e| anyhow::anyhow!(e.message))?);
    let entities = Arc::new(EntityService::new(
        Arc::new(DieselEntityRepository::new(db.clone())),
        clock,
        Arc::new(UuidGenerator),
        paging,
        config.soft_delete_retention,
    ));
    let state = Data::new(ApiState {
        entities: entities.clone(),
        authenticator: Arc::new(SingleTenantAuthenticator),
        readiness: Arc::new(DatabaseReadiness(db.clone())),
        body_limit: config.request_body_limit,
    });
    spawn_database_maintenance(db.clone());
    spawn_maintenance(
        entities,
        DieselEntityRepository::new(db),
        config.purge_interval,
    );

    let server = HttpServer::new(move || rics_http::app(state.clone()))
        .workers(config.http_workers)
        .shutdown_timeout(30)
        .bind(&config.bind_address)
        .with_context(|| format!("cannot listen on {}", config.bind_address))?;
    let address = server
        .addrs()
        .first()
        .copied()
        .context("the server has no address")?;
    let server = server.run();
    Ok(Running {
        address,
        handle: server.handle(),
        server,
    })
}

/// How often database housekeeping runs (planner statistics, SQLite's log).
const DATABASE_MAINTENANCE_INTERVAL: std::time::Duration = std::time::Duration::from_secs(30);

/// Keeps planner statistics fresh and SQLite's write-ahead log small, from the start.
fn spawn_database_maintenance(db: Database) {
    actix_web::rt::spawn(async move {
        let mut ticker = tokio::time::interval(DATABASE_MAINTENANCE_INTERVAL);
        loop {
            ticker.tick().await;
            if let Err(e) = db.maintain().await {
                tracing::warn!(error = %e, "database maintenance failed");
            }
        }
    });
}

/// Purges expired soft-deleted entities and forgets old idempotency keys, periodically.
fn spawn_maintenance(
    entities: Arc<EntityService>,
    repository: DieselEntityRepository,
    every: std::time::Duration,
) {
    use rics_domain::entity::repository::EntityRepository;
    actix_web::rt::spawn(async move {
        let mut ticker = tokio::time::interval(every);
        let system = system_principal();
        loop {
            ticker.tick().await;
            match entities.purge_expired(&system, 500).await {
                Ok(0) => {}
                Ok(purged) => tracing::info!(purged, "purged expired entities"),
                Err(e) => tracing::warn!(error = %e, "purge failed"),
            }
            let before = SystemClock.now().minus(IDEMPOTENCY_WINDOW);
            if let Err(e) = repository.expire_idempotency_keys(before).await {
                tracing::warn!(error = %e, "expiring idempotency keys failed");
            }
        }
    });
}
