//! What the handlers share.

use std::sync::Arc;

use async_trait::async_trait;
use rics_domain::activity::{ActivityLogService, ActivityLogTypeService};
use rics_domain::alert::AlertService;
use rics_domain::automation::AutomationService;
use rics_domain::automation::execution_service::ExecutionService;
use rics_domain::document::DocumentService;
use rics_domain::entity::EntityService;
use rics_domain::event::EventService;
use rics_domain::file::FileService;
use rics_domain::form::FormService;
use rics_domain::form_definition::FormDefinitionService;
use rics_domain::hosted_form::HostedForms;
use rics_domain::id::IdGenerator;
use rics_domain::identity::authorization::AuthorizationService;
use rics_domain::job::JobService;
use rics_domain::job::match_review::MatchReviews;
use rics_domain::note::NoteService;
use rics_domain::principal::Authenticator;
use rics_domain::risk::RiskEvaluator;
use rics_domain::screen::Screener;
use rics_domain::tenant::TenantService;
use rics_domain::verification::VerificationService;
use rics_domain::webhook::{DeliveryService, TenantSecretService, WebhookEndpointService};
use rics_domain::workspace::WorkspaceService;
use serde_json::Value;

use crate::guard::Limiter;

/// Tells whether the service can serve requests (its database answers).
#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait Readiness: Send + Sync {
    /// `Ok` when ready.
    ///
    /// # Errors
    /// A short reason when not ready.
    async fn check(&self) -> Result<(), String>;
}

/// What the embedded authorization server publishes: its issuer URL and its keys.
#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait Discovery: Send + Sync {
    /// The issuer URL (`iss` of its tokens).
    fn issuer(&self) -> String;
    /// The JSON Web Key Set of the keys that verify its tokens.
    async fn jwks(&self) -> Value;
}

/// The use cases the handlers call, built by the app.
#[derive(Clone)]
pub struct UseCases {
    /// Entity use cases.
    pub entities: Arc<EntityService>,
    /// Tenant use cases.
    pub tenants: Arc<TenantService>,
    /// Reading the event log.
    pub events: Arc<EventService>,
    /// Workspace use cases.
    pub workspaces: Arc<WorkspaceService>,
    /// Note use cases.
    pub notes: Arc<NoteService>,
    /// PEP and sanctions screening jobs.
    pub pep_sanction_jobs: Arc<JobService>,
    /// The review of screening matches.
    pub match_reviews: Arc<MatchReviews>,
    /// Risk rating jobs.
    pub risk_rating_jobs: Arc<JobService>,
    /// ID document verification jobs.
    pub id_verification_jobs: Arc<JobService>,
    /// Onboarding jobs.
    pub onboarding_jobs: Arc<JobService>,
    /// Risk models and the rating of entities.
    pub risk: Arc<RiskEvaluator>,
    /// The lists they screen against.
    pub screener: Arc<dyn Screener>,
    /// Activity log type use cases.
    pub activity_log_types: Arc<ActivityLogTypeService>,
    /// Activity log use cases.
    pub activity_logs: Arc<ActivityLogService>,
    /// Alert and alert type use cases.
    pub alerts: Arc<AlertService>,
    /// Identity document use cases.
    pub documents: Arc<DocumentService>,
    /// Form definition use cases.
    pub form_definitions: Arc<FormDefinitionService>,
    /// Form use cases.
    pub forms: Arc<FormService>,
    /// File use cases.
    pub files: Arc<FileService>,
    /// Automation use cases.
    pub automations: Arc<AutomationService>,
    /// Automation runs and executions.
    pub executions: Arc<ExecutionService>,
    /// The embedded authorization server.
    pub authorization: Arc<AuthorizationService>,
    /// Webhook endpoint use cases.
    pub webhook_endpoints: Arc<WebhookEndpointService>,
    /// The deliveries of webhook endpoints, and those to URLs.
    pub webhook_deliveries: Arc<DeliveryService>,
    /// The hosted form's pages.
    pub hosted: Arc<HostedForms>,
    /// The tenants' webhook signing secrets.
    pub tenant_webhook_secrets: Arc<TenantSecretService>,
    /// Individual entity verification jobs (identity verification with a provider).
    pub verification_jobs: Arc<JobService>,
    /// Identity verification sessions and their providers' callbacks.
    pub verification: Arc<VerificationService>,
    /// The tenants' Truuth callback secrets.
    pub truuth_callback_secrets: Arc<TenantSecretService>,
}

/// The use cases and settings the handlers use.
pub struct ApiState {
    /// The use cases (also reached through `Deref`: `state.entities`).
    pub use_cases: UseCases,
    /// Its issuer and keys.
    pub discovery: Arc<dyn Discovery>,
    /// Identifies callers.
    pub authenticator: Arc<dyn Authenticator>,
    /// Per-caller rate limits of the API.
    pub limiter: Limiter,
    /// Random tokens (the sign-in form's CSRF token).
    pub ids: Arc<dyn IdGenerator>,
    /// Readiness probe for `/readyz`.
    pub readiness: Arc<dyn Readiness>,
    /// Largest JSON request body, in bytes.
    pub body_limit: usize,
    /// Whether requests are counted and timed for `/metrics` (served only when the
    /// operator asks for it).
    pub record_metrics: bool,
}

impl std::ops::Deref for ApiState {
    type Target = UseCases;

    fn deref(&self) -> &UseCases {
        &self.use_cases
    }
}
