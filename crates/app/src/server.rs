//! Wiring: the database, the repositories, the services and the HTTP server.

use std::num::NonZeroU32;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use actix_web::HttpServer;
use actix_web::dev::ServerHandle;
use actix_web::web::Data;
use anyhow::{Context, bail};
use async_trait::async_trait;
use rics_auth::{Auth, AuthSettings, ExternalIssuerSettings, SecretBox};
use rics_domain::activity::ports::ActivityLogTypeRepository;
use rics_domain::activity::{ActivityLogPorts, ActivityLogService, ActivityLogTypeService};
use rics_domain::alert::{AlertService, DefaultAlertTypes};
use rics_domain::automation::effects::ServiceEffects;
use rics_domain::automation::engine::ExecutionEngine;
use rics_domain::automation::execution_service::{ExecutionPorts, ExecutionService, WakeOnSubmit};
use rics_domain::automation::ports::ExecutionRepository;
use rics_domain::automation::{AutomationService, DefaultAutomations};
use rics_domain::document::DocumentRepository;
use rics_domain::document::DocumentService;
use rics_domain::entity::EntityService;
use rics_domain::entity::output::OutputWriter;
use rics_domain::entity::repository::EntityRepository;
use rics_domain::event::EventService;
use rics_domain::file::content::FileStore;
use rics_domain::file::sweep::ContentSweeper;
use rics_domain::file::{FilePorts, FileService};
use rics_domain::form::service::{FormPorts, FormService};
use rics_domain::form_definition::{DefaultFormDefinitions, FormDefinitionService};
use rics_domain::hosted::HostedLinks;
use rics_domain::hosted_form::HostedForms;
use rics_domain::housekeeping::{Housekeeping, Purge, Sweep};
use rics_domain::id::{IdGenerator, UuidGenerator};
use rics_domain::identity::admin::Registrar;
use rics_domain::identity::authorization::AuthorizationService;
use rics_domain::identity::ports::IdentityRepository;
use rics_domain::job::dismissals::DismissalRepository;
use rics_domain::job::id_verification::{IdVerificationJobs, IdVerificationPorts};
use rics_domain::job::match_review::MatchReviews;
use rics_domain::job::onboarding::{OnboardingJobs, OnboardingPorts};
use rics_domain::job::pep_sanction::PepSanctionJobs;
use rics_domain::job::ports::RunQueued;
use rics_domain::job::records::ServiceRecords;
use rics_domain::job::risk_rating::RiskRatingJobs;
use rics_domain::job::{
    JobKind, JobPorts, JobRepository, JobRunner, JobService, RunRecords, RunnerSettings,
};
use rics_domain::lifecycle::ServiceContext;
use rics_domain::list::Paging;
use rics_domain::monitoring::{ListChangeWork, ListMonitor, ListVersionRepository, Rescreens};
use rics_domain::note::NoteService;
use rics_domain::onboarding::{Journey, MappingEngine};
use rics_domain::principal::{Principal, TenantId};
use rics_domain::risk::{RiskEvaluator, RiskEvaluatorPorts, RiskModelService};
use rics_domain::screen::Screener;
use rics_domain::tenant::service::{BootstrapReport, BootstrapSpec, FirstClient, ProvisioningStep};
use rics_domain::tenant::{TenantAdmission, TenantService};
use rics_domain::time::{Clock, Pause, SystemClock};
use rics_domain::verification::capture::HostedCapture;
use rics_domain::verification::jobs::{VerificationJobPorts, VerificationJobs};
use rics_domain::verification::{RunEnding, VerificationPorts, VerificationService};
use rics_domain::webhook::dispatch::{DeliveryPorts, DeliverySettings};
use rics_domain::webhook::tenant_secret::SecretPurpose;
use rics_domain::webhook::{
    DeliveryService, DeliveryWorker, SecretCipher, TenantSecretService, WebhookEndpointService,
};
use rics_domain::workspace::{WorkspaceRepository, WorkspaceService};
use rics_http::guard::{Limiter, RateLimit};
use rics_http::{ApiState, Discovery, Readiness, UseCases};
use rics_jsonata::JsonataEngine;
use rics_storage::connection::redact;
use rics_storage::{
    Database, DatabaseFileStore, DieselActivityLogRepository, DieselActivityLogTypeRepository,
    DieselAlertRepository, DieselAutomationRepository, DieselDeliveryRepository,
    DieselDismissalRepository, DieselDocumentRepository, DieselEntityRepository,
    DieselEventRepository, DieselExecutionRepository, DieselFileRepository,
    DieselFormDefinitionRepository, DieselFormRepository, DieselIdempotencyKeys,
    DieselIdentityRepository, DieselJobRepository, DieselKeyRepository,
    DieselListVersionRepository, DieselNoteRepository, DieselOperationRepository,
    DieselRiskModelRepository, DieselTenantRepository, DieselTenantSecretRepository,
    DieselVerificationSessionRepository, DieselWebhookEndpointRepository,
    DieselWorkspaceRepository, ObjectFileStore, PoolOptions, migrations, secrets,
};
use serde_json::Value;

use crate::config::{Config, FileStoreSetting};
use crate::screener::{EngineNameMatcher, ListScreener};
use crate::truuth::TruuthProvider;
use crate::webhook_sender::HttpSender;

/// How often database housekeeping runs (planner statistics, SQLite's log).
const DATABASE_MAINTENANCE_INTERVAL: Duration = Duration::from_secs(30);

/// The database answers ([`Database::ping`]).
struct DatabaseReadiness(Database);

#[async_trait]
impl Readiness for DatabaseReadiness {
    async fn check(&self) -> Result<(), String> {
        self.0.ping().await.map_err(|e| e.to_string())
    }
}

/// Wakes this process's job workers when a run is queued.
struct WakeWorkers(Arc<tokio::sync::Notify>);

impl RunQueued for WakeWorkers {
    fn queued(&self) {
        self.0.notify_waiters();
    }
}

/// How often an execution's step waiting for a job looks at the job's run.
const EXECUTION_JOB_POLL: Duration = Duration::from_millis(200);

/// How long an idle worker waits before looking at the queue again (runs queued by
/// other processes are found this way; this process's own wake the workers at once).
const WORKER_POLL_INTERVAL: Duration = Duration::from_millis(250);

/// The embedded authorization server's issuer and keys, for the discovery documents.
struct EmbeddedIssuer {
    issuer: String,
    auth: Arc<Auth>,
}

#[async_trait]
impl Discovery for EmbeddedIssuer {
    fn issuer(&self) -> String {
        self.issuer.clone()
    }

    async fn jwks(&self) -> Value {
        self.auth.keys.jwks()
    }
}

/// The store of file content RICS_FILE_STORE names: the database (`file_contents`),
/// which buffers at most one file per upload, a local directory or S3-compatible
/// storage, which stream; each takes `file_uploads_at_once` uploads at once.
///
/// # Errors
/// When the directory cannot be made, the S3 location is incomplete, or the binary
/// was built without the `s3` feature.
fn file_store(config: &Config, db: &Database) -> anyhow::Result<Arc<dyn FileStore>> {
    let (max_bytes, at_once) = (config.file_rules.max_bytes, config.file_uploads_at_once);
    Ok(match &config.file_store {
        FileStoreSetting::Database => {
            Arc::new(DatabaseFileStore::new(db.clone(), max_bytes, at_once))
        }
        FileStoreSetting::Directory(root) => Arc::new(
            ObjectFileStore::directory(root, max_bytes, at_once).map_err(anyhow::Error::msg)?,
        ),
        #[cfg(feature = "s3")]
        FileStoreSetting::S3(location) => {
            Arc::new(ObjectFileStore::s3(location, max_bytes, at_once).map_err(anyhow::Error::msg)?)
        }
        #[cfg(not(feature = "s3"))]
        FileStoreSetting::S3(_) => {
            anyhow::bail!(
                "file_store: this rics was built without S3 support (cargo build --release -p rics --features s3)"
            )
        }
    })
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

/// Migrates (or checks that nothing is pending) and returns the page-token secret.
async fn prepare(
    config: &Config,
    db: &Database,
    now: rics_domain::time::Timestamp,
) -> anyhow::Result<Vec<u8>> {
    let setup = db.clone();
    let migrate_on_start = config.migrate_on_start;
    tokio::task::spawn_blocking(move || -> anyhow::Result<Vec<u8>> {
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
    .context("start-up task failed")?
}

/// Every service of the application, built from the configuration.
pub struct Services {
    /// The use cases the API serves.
    pub use_cases: UseCases,
    /// The database.
    pub db: Database,
    /// The sanctions and PEP lists.
    pub screener: Arc<ListScreener>,
    /// Runs queued jobs.
    pub job_runner: Arc<JobRunner>,
    /// Wakes the job workers.
    pub job_wake: Arc<tokio::sync::Notify>,
    /// Sends queued webhook deliveries.
    pub delivery_worker: Arc<DeliveryWorker>,
    /// Builds clients and users.
    pub registrar: Arc<Registrar>,
    /// Clients, users and grants.
    pub identity: Arc<dyn IdentityRepository>,
    /// Token signing and verification.
    pub auth: Arc<Auth>,
    /// Random ids and secrets.
    pub ids: Arc<dyn IdGenerator>,
    /// The clock.
    pub clock: Arc<dyn Clock>,
    /// Purges and expiries, run periodically.
    pub housekeeping: Arc<Housekeeping>,
}

/// The authentication settings of the configuration.
fn auth_settings(config: &Config) -> AuthSettings {
    let mut settings = AuthSettings::new(config.public_url.clone(), config.token_audience.clone());
    settings.access_token_lifetime = config.access_token_lifetime;
    for issuer in &config.oidc_issuers {
        settings = settings.with_external_issuer(
            ExternalIssuerSettings::new(issuer.clone())
                .with_tenant_claim(config.oidc_tenant_claim.clone()),
        );
    }
    settings
}

/// Opens the database, migrates it as configured and builds every service.
///
/// # Errors
/// When the database is unreachable or not migrated, or the settings are invalid.
pub async fn services(config: &Config) -> anyhow::Result<Services> {
    let db = open_database(config)?;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let ids: Arc<dyn IdGenerator> = Arc::new(UuidGenerator);
    let secret = prepare(config, &db, clock.now()).await?;
    let auth = Arc::new(
        Auth::start(
            &auth_settings(config),
            Arc::new(DieselKeyRepository::new(db.clone())),
            clock.clone(),
        )
        .await
        .map_err(|e| anyhow::anyhow!("authentication set-up failed: {}", e.message))?,
    );
    let paging =
        Arc::new(Paging::new(&secret, clock.clone()).map_err(|e| anyhow::anyhow!(e.message))?);
    let identity: Arc<dyn IdentityRepository> = Arc::new(DieselIdentityRepository::new(db.clone()));
    let registrar = Arc::new(Registrar::new(
        auth.hasher.clone(),
        ids.clone(),
        clock.clone(),
    ));
    let steps: Vec<Arc<dyn ProvisioningStep>> = vec![
        Arc::new(FirstClient::new(registrar.clone())),
        Arc::new(DefaultAlertTypes),
        Arc::new(DefaultFormDefinitions),
        Arc::new(DefaultAutomations),
    ];
    let context = ServiceContext {
        clock: clock.clone(),
        ids: ids.clone(),
        paging: paging.clone(),
        retention: config.soft_delete_retention,
    };
    let tenants = Arc::new(TenantService::new(
        Arc::new(DieselTenantRepository::new(db.clone())),
        Arc::new(DieselOperationRepository::new(db.clone())),
        steps,
        context.clone(),
    ));
    let authorization = Arc::new(AuthorizationService::new(
        identity.clone(),
        auth.hasher.clone(),
        auth.signer.clone(),
        clock.clone(),
        ids.clone(),
    ));
    let entity_repository: Arc<dyn EntityRepository> =
        Arc::new(DieselEntityRepository::new(db.clone()));
    let events = Arc::new(EventService::new(
        Arc::new(DieselEventRepository::new(db.clone())),
        entity_repository.clone(),
        context.clone(),
    ));
    let workspace_repository: Arc<dyn WorkspaceRepository> =
        Arc::new(DieselWorkspaceRepository::new(db.clone()));
    let definition_repository = Arc::new(DieselFormDefinitionRepository::new(db.clone()));
    let form_definitions = Arc::new(FormDefinitionService::new(
        definition_repository.clone(),
        definition_repository,
        context.clone(),
    ));
    let automation_repository = Arc::new(DieselAutomationRepository::new(db.clone()));
    let automations = Arc::new(AutomationService::new(
        automation_repository.clone(),
        context.clone(),
    ));
    let job_wake = Arc::new(tokio::sync::Notify::new());
    let execution_repository: Arc<dyn ExecutionRepository> =
        Arc::new(DieselExecutionRepository::new(db.clone()));
    let form_repository = Arc::new(DieselFormRepository::new(db.clone()));
    let file_repository = Arc::new(DieselFileRepository::new(db.clone()));
    let forms = Arc::new(
        FormService::new(
            FormPorts {
                forms: form_repository.clone(),
                records: form_repository,
                definitions: form_definitions.clone(),
                entities: entity_repository.clone(),
                workspaces: workspace_repository.clone(),
                files: file_repository.clone(),
            },
            context.clone(),
        )
        .with_after_submit(Arc::new(WakeOnSubmit::new(
            execution_repository.clone(),
            Arc::new(WakeWorkers(job_wake.clone())),
            clock.clone(),
        ))),
    );
    let workspaces = Arc::new(WorkspaceService::new(
        workspace_repository.clone(),
        entity_repository.clone(),
        forms.clone(),
        context.clone(),
    ));
    let notes = Arc::new(NoteService::new(
        Arc::new(DieselNoteRepository::new(db.clone())),
        entity_repository.clone(),
        workspace_repository.clone(),
        context.clone(),
    ));
    let alert_repository = Arc::new(DieselAlertRepository::new(db.clone()));
    let alerts = Arc::new(AlertService::new(
        alert_repository.clone(),
        alert_repository,
        entity_repository.clone(),
        workspace_repository.clone(),
        context.clone(),
    ));
    let file_store = file_store(config, &db)?;
    let files = Arc::new(FileService::new(
        FilePorts {
            files: file_repository.clone(),
            removals: file_repository.clone(),
            content: file_store.clone(),
            entities: entity_repository.clone(),
            forms: forms.clone(),
        },
        config.file_rules.clone(),
        context.clone(),
    ));
    let content_sweeper = Arc::new(ContentSweeper::new(
        file_repository.clone(),
        file_store,
        clock.clone(),
    ));
    let document_repository: Arc<dyn DocumentRepository> =
        Arc::new(DieselDocumentRepository::new(db.clone()));
    let documents = Arc::new(DocumentService::new(
        document_repository.clone(),
        entity_repository.clone(),
        workspace_repository.clone(),
        file_repository,
        context.clone(),
    ));
    let type_repository: Arc<dyn ActivityLogTypeRepository> =
        Arc::new(DieselActivityLogTypeRepository::new(db.clone()));
    let activity_log_types = Arc::new(ActivityLogTypeService::new(
        type_repository.clone(),
        context.clone(),
    ));
    let activity_logs = Arc::new(ActivityLogService::new(
        ActivityLogPorts {
            logs: Arc::new(DieselActivityLogRepository::new(db.clone())),
            types: type_repository,
            entities: entity_repository.clone(),
            workspaces: workspace_repository.clone(),
        },
        context.clone(),
    ));
    let job_repository: Arc<dyn JobRepository> = Arc::new(DieselJobRepository::new(db.clone()));
    let job_ports = JobPorts {
        jobs: job_repository.clone(),
        operations: Arc::new(DieselOperationRepository::new(db.clone())),
        entities: entity_repository.clone(),
        queued: Arc::new(WakeWorkers(job_wake.clone())),
        context: context.clone(),
    };
    let service_records = Arc::new(ServiceRecords::new(
        activity_logs.clone(),
        alerts.clone(),
        OutputWriter::new(entity_repository.clone(), clock.clone(), ids.clone()),
    ));
    let records: Arc<dyn RunRecords> = service_records.clone();
    let screener = Arc::new(ListScreener::new(
        config.screening_lists.clone(),
        clock.clone(),
    ));
    let dismissals: Arc<dyn DismissalRepository> =
        Arc::new(DieselDismissalRepository::new(db.clone()));
    let screening: Arc<dyn JobKind> = Arc::new(PepSanctionJobs::new(
        screener.clone(),
        entity_repository.clone(),
        dismissals.clone(),
        clock.clone(),
    ));
    let risk = Arc::new(RiskEvaluator::new(RiskEvaluatorPorts {
        models: Arc::new(RiskModelService::new(
            Arc::new(DieselRiskModelRepository::new(db.clone())),
            context.clone(),
        )),
        entities: entity_repository.clone(),
        documents: document_repository.clone(),
        logs: activity_logs.clone(),
        records: records.clone(),
        clock: clock.clone(),
        ids: ids.clone(),
    }));
    let rating: Arc<dyn JobKind> = Arc::new(RiskRatingJobs::new(risk.clone()));
    let verification: Arc<dyn JobKind> = Arc::new(IdVerificationJobs::new(IdVerificationPorts {
        documents: document_repository,
        entities: entity_repository.clone(),
        names: Arc::new(EngineNameMatcher),
        clock: clock.clone(),
    }));
    let cipher = match &config.secret_key.0 {
        Some(key) => Some(Arc::new(
            SecretBox::from_base64(key).map_err(|e| anyhow::anyhow!("secret_key: {e}"))?,
        ) as Arc<dyn SecretCipher>),
        None => None,
    };
    let truuth_callback_secrets = Arc::new(
        TenantSecretService::new(
            Arc::new(DieselTenantSecretRepository::for_purpose(
                db.clone(),
                SecretPurpose::TruuthCallback,
            )),
            cipher.clone(),
            context.clone(),
        )
        .with_purpose(SecretPurpose::TruuthCallback),
    );
    let hosted_links = Arc::new(HostedLinks::new(cipher.clone(), &config.public_url));
    let hosted_capture = Arc::new(HostedCapture::new(
        forms.clone(),
        hosted_links.clone(),
        &config.public_url,
    ));
    let identity_verification = Arc::new(VerificationService::new(VerificationPorts {
        sessions: Arc::new(DieselVerificationSessionRepository::new(db.clone())),
        truuth: Arc::new(TruuthProvider::new(
            config.truuth_api_url.clone(),
            config.truuth_api_key.0.clone(),
        )?),
        hosted: hosted_capture.clone(),
        callback_secrets: truuth_callback_secrets.clone(),
        entities: entity_repository.clone(),
        records: records.clone(),
        context: context.clone(),
    }));
    let identity_verification_kind: Arc<dyn JobKind> =
        Arc::new(VerificationJobs::new(VerificationJobPorts {
            verification: identity_verification.clone(),
            entities: entity_repository.clone(),
            policy: config.webhook_targets.clone(),
            resolver: Arc::new(crate::dns::SystemResolver),
        }));
    let verification_jobs = Arc::new(JobService::new(
        identity_verification_kind.clone(),
        job_ports.clone(),
    ));
    let verification_runs: Arc<dyn RunEnding> = verification_jobs.clone();
    identity_verification.attach_runs(&verification_runs);
    let pep_sanction_jobs = Arc::new(JobService::new(screening.clone(), job_ports.clone()));
    let match_reviews = Arc::new(MatchReviews::new(
        pep_sanction_jobs.clone(),
        entity_repository.clone(),
        dismissals,
        records.clone(),
        clock.clone(),
    ));
    let list_versions: Arc<dyn ListVersionRepository> =
        Arc::new(DieselListVersionRepository::new(db.clone()));
    screener.monitor_with(Arc::new(ListMonitor::new(
        list_versions.clone(),
        Arc::new(WakeWorkers(job_wake.clone())),
        clock.clone(),
    )));
    let rescreens = Arc::new(Rescreens::new(pep_sanction_jobs.clone()));
    let risk_rating_jobs = Arc::new(JobService::new(rating.clone(), job_ports.clone()));
    let id_verification_jobs = Arc::new(JobService::new(verification.clone(), job_ports.clone()));
    let runner_settings = RunnerSettings {
        lease: config.job_lease,
        max_attempts: config.job_max_attempts,
        batch: config.job_batch,
        ..RunnerSettings::default()
    };
    let list_changes = Arc::new(ListChangeWork::new(
        screener.clone(),
        entity_repository.clone(),
        list_versions,
        job_repository.clone(),
        rescreens.clone(),
        clock.clone(),
        runner_settings,
    ));
    let webhook_endpoints = Arc::new(WebhookEndpointService::new(
        Arc::new(DieselWebhookEndpointRepository::new(db.clone())),
        cipher.clone(),
        Arc::new(crate::dns::SystemResolver),
        config.webhook_targets.clone(),
        context.clone(),
    ));
    let tenant_webhook_secrets = Arc::new(TenantSecretService::new(
        Arc::new(DieselTenantSecretRepository::new(db.clone())),
        cipher.clone(),
        context.clone(),
    ));
    let delivery_repository = Arc::new(DieselDeliveryRepository::new(db.clone()));
    let webhook_deliveries = Arc::new(DeliveryService::new(
        delivery_repository.clone(),
        webhook_endpoints.clone(),
        config.webhook_delivery_retention,
        context.clone(),
    ));
    let delivery_worker = Arc::new(DeliveryWorker::new(
        DeliveryPorts {
            deliveries: delivery_repository,
            sender: Arc::new(HttpSender::default()),
            cipher: cipher.clone(),
            resolver: Arc::new(crate::dns::SystemResolver),
            policy: config.webhook_targets.clone(),
            endpoints: webhook_endpoints.clone(),
            tenant_secrets: tenant_webhook_secrets.clone(),
            alerts: alerts.clone(),
            clock: clock.clone(),
            ids: ids.clone(),
        },
        DeliverySettings {
            lease: config.job_lease,
            schedule: config.webhook_retry_schedule.clone(),
            timeout: config.webhook_timeout,
            ..DeliverySettings::default()
        },
    ));
    let hosted = Arc::new(HostedForms::new(
        hosted_links.clone(),
        forms.clone(),
        files.clone(),
        clock.clone(),
    ));
    let entities = Arc::new(
        EntityService::new(entity_repository.clone(), context.clone())
            .with_after_erasure(content_sweeper.clone())
            .with_rescreens(rescreens),
    );
    let mapping_engine: Arc<dyn MappingEngine> = Arc::new(JsonataEngine);
    let onboarding = Arc::new(OnboardingJobs::new(OnboardingPorts {
        definitions: form_definitions.clone(),
        forms: forms.clone(),
        links: hosted_links,
        engine: mapping_engine.clone(),
        policy: config.webhook_targets.clone(),
        resolver: Arc::new(crate::dns::SystemResolver),
        clock: clock.clone(),
    }));
    let onboarding_kind: Arc<dyn JobKind> = onboarding.clone();
    let onboarding_jobs = Arc::new(JobService::new(onboarding_kind.clone(), job_ports));
    let journey = Arc::new(Journey {
        jobs: onboarding_jobs.clone(),
        job_store: job_repository.clone(),
        forms: forms.clone(),
        entities: entities.clone(),
        documents: documents.clone(),
        records: records.clone(),
        engine: mapping_engine,
        accept_document_only: config.onboarding_accept_document_only,
        clock: clock.clone(),
    });
    let effects = Arc::new(ServiceEffects {
        jobs: [&pep_sanction_jobs, &risk_rating_jobs, &id_verification_jobs]
            .into_iter()
            .map(|service| (service.collection(), service.clone()))
            .collect(),
        queue: job_repository.clone(),
        operations: Arc::new(DieselOperationRepository::new(db.clone())),
        forms: forms.clone(),
        documents: documents.clone(),
        entities: entities.clone(),
        entity_store: entity_repository,
        records,
        clock: clock.clone(),
        onboarding: journey,
        verification: identity_verification.clone(),
    });
    let executions = Arc::new(ExecutionService::new(ExecutionPorts {
        automations: automation_repository.clone(),
        executions: execution_repository.clone(),
        operations: Arc::new(DieselOperationRepository::new(db.clone())),
        effects: effects.clone(),
        queued: Arc::new(WakeWorkers(job_wake.clone())),
        context,
    }));
    onboarding.start_journeys_with(&executions);
    hosted_capture.complete_with(&executions);
    let engine = Arc::new(ExecutionEngine::new(
        execution_repository,
        automation_repository,
        effects,
        job_repository.clone(),
        clock.clone(),
        ids.clone(),
        runner_settings,
        EXECUTION_JOB_POLL,
    ));
    let job_runner = Arc::new(
        JobRunner::new(
            format!("pid-{}-{}", std::process::id(), ids.uid()),
            job_repository,
            vec![
                screening,
                rating,
                verification,
                onboarding_kind,
                identity_verification_kind,
            ],
            service_records,
            clock.clone(),
            ids.clone(),
            runner_settings,
        )
        .with_work(engine)
        .with_work(list_changes)
        .with_lease_renewals(Arc::new(TokioPause)),
    );
    // The sweep of file content comes last: it removes the content of the files the
    // purges before it removed.
    let purges: Vec<Arc<dyn Purge>> = vec![
        entities.clone(),
        workspaces.clone(),
        activity_log_types.clone(),
        activity_logs.clone(),
        alerts.clone(),
        documents.clone(),
        form_definitions.clone(),
        automations.clone(),
        files.clone(),
        webhook_endpoints.clone(),
        verification_jobs.clone(),
        content_sweeper,
    ];
    let sweeps: Vec<Arc<dyn Sweep>> = vec![forms.clone(), webhook_deliveries.clone()];
    let housekeeping = Arc::new(Housekeeping::new(
        purges,
        sweeps,
        Arc::new(DieselIdempotencyKeys::new(db.clone())),
        identity.clone(),
        Arc::new(DieselOperationRepository::new(db.clone())),
        clock.clone(),
        system_principal(),
    ));
    let use_cases = UseCases {
        entities,
        tenants,
        events,
        workspaces,
        notes,
        pep_sanction_jobs,
        match_reviews,
        risk_rating_jobs,
        id_verification_jobs,
        onboarding_jobs,
        risk,
        screener: screener.clone(),
        activity_log_types,
        activity_logs,
        alerts,
        documents,
        form_definitions,
        forms,
        files,
        automations,
        executions,
        authorization,
        webhook_endpoints,
        webhook_deliveries,
        hosted,
        tenant_webhook_secrets,
        verification_jobs,
        verification: identity_verification,
        truuth_callback_secrets,
    };
    Ok(Services {
        use_cases,
        housekeeping,
        screener,
        job_runner,
        job_wake,
        delivery_worker,
        db,
        registrar,
        identity,
        auth,
        ids,
        clock,
    })
}

/// A running server.
pub struct Running {
    /// The address it listens on (useful with port 0).
    pub address: std::net::SocketAddr,
    /// Stops it.
    pub handle: ServerHandle,
    /// Completes when it stops.
    pub server: actix_web::dev::Server,
    /// What the first start of an empty database provisioned, if this was it.
    pub bootstrap: Option<BootstrapReport>,
    /// The sanctions and PEP lists it screens against (see [`spawn_list_reloads`]).
    pub screener: Arc<ListScreener>,
    /// Where `/metrics` is served, when it is.
    pub metrics_address: Option<std::net::SocketAddr>,
}

/// The principal background maintenance acts as.
fn system_principal() -> Principal {
    Principal {
        tenant: TenantId::new("system"),
        subject: "system".into(),
        display_name: "rics".into(),
        scopes: Default::default(),
    }
}

/// Builds everything, provisions the partner tenant on a first start, and starts
/// listening. Call inside an actix/tokio runtime.
///
/// # Errors
/// When the database is unreachable or not migrated, a setting is invalid, or the
/// address cannot be bound.
pub async fn start(config: &Config) -> anyhow::Result<Running> {
    let services = services(config).await?;
    let bootstrap = services
        .use_cases
        .tenants
        .bootstrap(
            &services.registrar,
            BootstrapSpec {
                client_id: config.bootstrap.client_id.clone(),
                client_secret: config.bootstrap.client_secret.clone(),
                user: config.bootstrap.user.clone(),
            },
        )
        .await
        .map_err(|e| anyhow::anyhow!("first-start provisioning failed: {}", e.message))?;
    let per_minute = NonZeroU32::new(config.rate_limit_per_minute)
        .context("rate_limit_per_minute must be at least 1")?;
    let state = Data::new(ApiState {
        use_cases: services.use_cases.clone(),
        discovery: Arc::new(EmbeddedIssuer {
            issuer: config.public_url.clone(),
            auth: services.auth.clone(),
        }),
        authenticator: Arc::new(TenantAdmission::new(
            services.auth.authenticator.clone(),
            Arc::new(DieselTenantRepository::new(services.db.clone())),
            services.clock.clone(),
        )),
        limiter: Limiter::new(RateLimit { per_minute }),
        ids: services.ids.clone(),
        readiness: Arc::new(DatabaseReadiness(services.db.clone())),
        body_limit: config.request_body_limit,
        record_metrics: config.metrics_address.is_some(),
    });
    let metrics_address = match &config.metrics_address {
        Some(address) => Some(crate::metrics::serve(
            address,
            crate::metrics::Scrape {
                handle: crate::metrics::install()?,
                db: services.db.clone(),
                families: services.job_runner.families(),
                screener: services.screener.clone(),
                clock: services.clock.clone(),
            },
        )?),
        None => None,
    };
    spawn_database_maintenance(services.db.clone());
    spawn_maintenance(&services, state.clone(), config.purge_interval);
    if let Some(every) = config.screening_reload_interval {
        spawn_scheduled_list_reloads(services.screener.clone(), every);
    }
    for _ in 0..config.job_concurrency {
        spawn_job_worker(services.job_runner.clone(), services.job_wake.clone());
    }
    if config.job_concurrency > 0 {
        spawn_delivery_worker(services.delivery_worker.clone());
    }
    let authenticator = services.auth.authenticator.clone();
    actix_web::rt::spawn(async move { authenticator.discover().await });

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
        bootstrap,
        screener: services.screener.clone(),
        metrics_address,
    })
}

/// One job worker: claims a queued run, executes it, and again; when the queue is
/// empty it sleeps until a run is queued here or the poll interval passes.
fn spawn_job_worker(runner: Arc<JobRunner>, wake: Arc<tokio::sync::Notify>) {
    actix_web::rt::spawn(async move {
        loop {
            // Listen before looking, so a run queued meanwhile is not missed.
            let queued = wake.notified();
            match runner.run_once().await {
                Ok(report) => {
                    crate::metrics::record_job_runs(&report);
                    for (operation, error) in &report.unfinished {
                        tracing::warn!(operation, error = %error, "a job run could not be finished; it runs again when its lease ends");
                    }
                    if report.claimed > 0 {
                        continue;
                    }
                }
                Err(e) => tracing::warn!(error = %e, "claiming job runs failed"),
            }
            tokio::select! {
                () = queued => {}
                () = tokio::time::sleep(WORKER_POLL_INTERVAL) => {}
            }
        }
    });
}

/// Pauses on the tokio timer: the pace of the job runner's lease renewals.
struct TokioPause;

#[async_trait]
impl Pause for TokioPause {
    async fn pause(&self, duration: Duration) {
        tokio::time::sleep(duration).await;
    }
}

/// The webhook delivery worker: claims a batch of ready deliveries, sends them
/// concurrently, and again; when none is ready it looks again after the poll interval
/// (deliveries are queued in the transactions of events, by any process).
fn spawn_delivery_worker(worker: Arc<DeliveryWorker>) {
    actix_web::rt::spawn(async move {
        loop {
            match worker.run_once().await {
                Ok(0) => {}
                Ok(_) => continue,
                Err(e) => tracing::warn!(error = %e, "sending webhook deliveries failed"),
            }
            tokio::time::sleep(WORKER_POLL_INTERVAL).await;
        }
    });
}

/// Reloads the screening lists on SIGHUP, without stopping: `setting` reads the list
/// setting again (`rics serve` resolves its settings anew, so the configuration file is
/// read again, while flags and environment variables are those of the start) and the
/// lists it names are swapped in; screens already running finish on the lists they
/// started with. A setting that cannot be read, or whose lists do not load, leaves the
/// lists in use, and the log says why.
pub fn spawn_list_reloads(
    screener: Arc<ListScreener>,
    setting: impl Fn() -> anyhow::Result<Vec<PathBuf>> + 'static,
) {
    actix_web::rt::spawn(async move {
        let Ok(mut hangups) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
        else {
            tracing::warn!("cannot listen for SIGHUP: the screening lists reload only on restart");
            return;
        };
        while hangups.recv().await.is_some() {
            let paths = match setting() {
                Ok(paths) => paths,
                Err(e) => {
                    tracing::warn!(
                        error = format!("{e:#}"),
                        "reading the screening list setting failed; the lists in use stay"
                    );
                    continue;
                }
            };
            match screener.reload_from(paths).await {
                Ok(lists) => {
                    let versions: Vec<String> = lists
                        .iter()
                        .map(|l| {
                            format!(
                                "{} ({} records, sha256 {})",
                                l.dataset, l.records, l.content_hash
                            )
                        })
                        .collect();
                    tracing::info!(lists = ?versions, "screening lists reloaded");
                }
                Err(e) => {
                    tracing::warn!(error = %e, "reloading the screening lists failed; the lists in use stay")
                }
            }
        }
    });
}

/// Reloads the screening lists from their files every `every` (ongoing monitoring):
/// a reload that finds a list changed records the change and queues its re-screen; one
/// that fails keeps the lists in use (the screener logs, counts and shows the failure).
fn spawn_scheduled_list_reloads(screener: Arc<ListScreener>, every: Duration) {
    actix_web::rt::spawn(async move {
        let mut ticker = tokio::time::interval(every);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // The first tick is at once: the lists load when first used, not at start.
        ticker.tick().await;
        loop {
            ticker.tick().await;
            if screener.loaded().is_some() {
                let _ = screener.reload().await;
            }
        }
    });
}

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

/// Runs housekeeping ([`Housekeeping`]) periodically, logging what each task did,
/// and drops idle rate-limit buckets.
fn spawn_maintenance(services: &Services, state: Data<ApiState>, every: Duration) {
    let housekeeping = services.housekeeping.clone();
    actix_web::rt::spawn(async move {
        let mut ticker = tokio::time::interval(every);
        loop {
            ticker.tick().await;
            for (task, outcome) in housekeeping.run().await.tasks {
                match outcome {
                    Ok(0) => {}
                    Ok(count) => tracing::info!(task, count, "housekeeping"),
                    Err(e) => tracing::warn!(task, error = %e, "housekeeping failed"),
                }
            }
            state.limiter.shrink();
        }
    });
}
