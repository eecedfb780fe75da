//! The verification use cases: starting a session with a provider (for
//! `POST /v1alpha/verificationSessions`, and for a verification job's `:run`), and
//! taking the provider's callback, which completes the session.
//!
//! A final callback (DONE or ERROR) of a session:
//! - about an entity writes an IDENTITY_CHECK activity log with the provider as its
//!   source, sets the entity's `verificationStatus` (VERIFIED when the person passed,
//!   FAILED otherwise; an ERROR leaves it) and, when the session asks, fills the
//!   individual's missing names and date of birth;
//! - of a job's run ends that run (see [`RunEnding`]);
//! - writes the event `verification_session.completed` (delivered to the job's
//!   `webhookUri` for a job's run).
//!
//! A session started without an entity keeps its outcome; its IDENTITY_CHECK log is
//! written once `:linkEntity` names the entity ([`VerificationService::link_entity`]).
//!
//! The built-in provider, the hosted capture ([`super::capture`]), completes its
//! sessions on the same path: an execution of `automations/capture-identity` hands the
//! submitted capture to [`VerificationService::complete_capture`], which records it
//! as a callback would be.
//!
//! Every step is idempotent (the log's id derives from the session, an output the
//! entity has already writes nothing, a run already ended is left as it is), so a
//! callback that failed half-way may come again; the callback is recorded with the
//! session's completion, and the same verification's same status arriving after that
//! is refused as a replay.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::capture::{Capture, failed_capture};
use super::provider::{
    IdentityOwner, IdentityVerificationProvider, Provider, ProviderSession, ProviderStatus,
    SessionRequest, VerificationOutcome,
};
use super::session::{
    ReceivedCallback, SessionState, VerificationSession, VerificationSessionRepository,
    read_reference, session_reference,
};
use super::truuth::read_callback;
use crate::activity::model::{ActivityLog, ActivityType};
use crate::automation::execution::Execution;
use crate::entity::model::{Entity, VerificationStatus};
use crate::entity::repository::EntityRepository;
use crate::error::{Code, Error, Result};
use crate::event::NewEvent;
use crate::id::is_well_formed_id;
use crate::job::model::worker_principal;
use crate::job::records::{EntityOutput, OutputCause, RunRecords, VerifiedDetails};
use crate::lifecycle::{Referred, ServiceContext, referred_deleted};
use crate::principal::{Principal, TenantId};
use crate::resource::{parse_body, to_json};
use crate::time::Timestamp;
use crate::values::PartialDate;
use crate::webhook::TenantSecretService;

/// The reason of a provider the operator configured no access to.
const NOT_CONFIGURED: &str = "PROVIDER_NOT_CONFIGURED";

/// How long a session takes evidence.
pub const SESSION_LIFETIME: Duration = Duration::from_secs(86_400);

/// How long after its session expired a callback is still taken: a provider may judge
/// evidence given just before the expiry a little later. A callback later than that
/// is refused as too old.
pub const CALLBACK_GRACE: Duration = Duration::from_secs(3_600);

/// The event type of a session started.
pub const SESSION_CREATED: &str = "verification_session.created";
/// The event type of a session's final callback.
pub const SESSION_COMPLETED: &str = "verification_session.completed";
/// The event type of a session's entity named after it started.
pub const SESSION_ENTITY_LINKED: &str = "verification_session.entity_linked";

/// Ends the run a session was started for: the verification jobs' service, which the
/// app attaches once it has made it.
#[async_trait]
pub trait RunEnding: Send + Sync {
    /// Ends the run of operation `operation` of `tenant` with `outcome` (the job's
    /// result, or the run's error), writing `events` with the end; nothing when the run
    /// ended already.
    ///
    /// # Errors
    /// What ending the run fails with (UNAVAILABLE).
    async fn end(
        &self,
        tenant: &TenantId,
        operation: &str,
        outcome: Result<Value>,
        events: Vec<NewEvent>,
    ) -> Result<()>;
}

/// The ports the use cases work through.
pub struct VerificationPorts {
    /// Sessions and callbacks.
    pub sessions: Arc<dyn VerificationSessionRepository>,
    /// The external provider, Truuth.
    pub truuth: Arc<dyn IdentityVerificationProvider>,
    /// The built-in provider, the hosted capture.
    pub hosted: Arc<dyn IdentityVerificationProvider>,
    /// Each tenant's Truuth callback secret.
    pub callback_secrets: Arc<TenantSecretService>,
    /// Entities.
    pub entities: Arc<dyn EntityRepository>,
    /// Where completions record their log and the entity's fields.
    pub records: Arc<dyn RunRecords>,
    /// The clock and ids.
    pub context: ServiceContext,
}

/// The body of `POST /v1alpha/verificationSessions`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateSessionRequest {
    /// The person. Required, with an `email`.
    #[serde(default)]
    pub identity_owner: Option<IdentityOwner>,
    /// The entity verified, `entities/{entity}`; or none, and `:linkEntity` names it
    /// later.
    #[serde(default)]
    pub entity: Option<String>,
    /// Whether the outcome fills the individual's missing names and date of birth.
    #[serde(default)]
    pub enrich_entity: bool,
}

/// The answer of `POST /v1alpha/verificationSessions`: what a front end needs to start
/// capture with the provider's SDK.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SessionAnswer {
    /// The session, `verificationSessions/{session}`.
    pub name: String,
    /// The token the provider's SDK takes.
    pub token: String,
    /// The provider-side tenant alias.
    pub tenant: String,
    /// The provider's API base URL.
    pub api_url: String,
    /// Where the person gives their evidence.
    pub session_uri: String,
    /// When the session stops taking evidence.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub expire_time: Timestamp,
    /// The person, as given.
    pub identity_owner: IdentityOwner,
    /// The entity verified, when named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entity: Option<String>,
}

/// The body of `verificationSessions/{session}:linkEntity`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LinkEntityRequest {
    /// The entity the session verified, `entities/{entity}`. Required.
    #[serde(default)]
    pub entity: String,
}

/// A session as `:linkEntity` answers it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    /// `verificationSessions/{session}`.
    pub name: String,
    /// `ACTIVE` or `COMPLETED`.
    pub state: String,
    /// The entity verified.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entity: Option<String>,
    /// The IDENTITY_CHECK activity log, once written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activity_log: Option<String>,
    /// The provider's outcome, once final.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub outcome: Option<Value>,
}

/// What a completion found: the verification job's `result`, and the payload of the
/// IDENTITY_CHECK activity log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct VerificationResult {
    /// The session, `verificationSessions/{session}`.
    pub verification_session: String,
    /// The provider (`TRUUTH`).
    pub provider: String,
    /// The provider's id of the verification.
    pub verification_id: String,
    /// The provider's final status.
    pub status: String,
    /// VERIFIED or FAILED; absent after an ERROR.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification_status: Option<String>,
    /// How strongly the outcome ties the person to the evidence.
    pub assurance: String,
    /// The proofing outcomes' statuses, as the provider gave them.
    pub proofing_outcomes: Vec<String>,
    /// What the provider read of the person.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub identity_owner: Value,
    /// The fields of the entity filled in (with `enrichEntity`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub enriched_fields: Vec<String>,
    /// The IDENTITY_CHECK activity log, once written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activity_log: Option<String>,
}

/// What the callback route answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallbackReceipt {
    /// The session the callback was for.
    pub verification_session: String,
    /// `ACTIVE`, or `COMPLETED` after a final status.
    pub state: String,
}

/// What a verification job's run asks a session for.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSession {
    /// The job's entity.
    pub entity: Entity,
    /// The run's operation id (the session's id) and name.
    pub operation_id: String,
    /// The run's operation name.
    pub operation_name: String,
    /// Whether the outcome fills the individual's missing details.
    pub enrich_entity: bool,
    /// Where the completion's event is also delivered.
    pub webhook_uri: Option<String>,
    /// The provider of the job's `providerConfig`.
    pub provider: Provider,
}

/// The verification use cases.
pub struct VerificationService {
    ports: VerificationPorts,
    /// Weak: the job family holds this service, and the job service the family, so a
    /// strong reference would make a cycle that keeps the database pool alive after a
    /// server stops.
    runs: std::sync::OnceLock<std::sync::Weak<dyn RunEnding>>,
}

impl VerificationService {
    /// The use cases over `ports`.
    pub fn new(ports: VerificationPorts) -> VerificationService {
        VerificationService {
            ports,
            runs: std::sync::OnceLock::new(),
        }
    }

    /// Attaches what ends the runs of verification jobs (made after this service,
    /// which the job family holds). A second call changes nothing.
    pub fn attach_runs(&self, runs: &Arc<dyn RunEnding>) {
        let _ = self.runs.set(Arc::downgrade(runs));
    }

    /// Starts a session for the body of `POST /v1alpha/verificationSessions`, with
    /// Truuth where the operator configured it, else with the built-in hosted capture
    /// (which completes once the session names its entity).
    ///
    /// # Errors
    /// INVALID_ARGUMENT on `session.identityOwner...` or `session.entity`; NOT_FOUND
    /// or FAILED_PRECONDITION for an entity missing or deleted; what the provider
    /// fails with.
    pub async fn create_session(
        &self,
        principal: &Principal,
        body: Value,
    ) -> Result<SessionAnswer> {
        let request: CreateSessionRequest = parse_body(body, "session")?;
        let owner = request.identity_owner.ok_or_else(|| {
            Error::invalid_field(
                "session.identityOwner",
                "REQUIRED",
                "give the person to verify, with at least an email",
            )
        })?;
        owner.check("session.identityOwner")?;
        let entity = match request.entity.as_deref().filter(|e| !e.is_empty()) {
            Some(name) => Some(
                self.live_entity(&principal.tenant, "session.entity", name)
                    .await?,
            ),
            None => None,
        };
        let id = self.ports.context.ids.resource_id();
        let (session, started) = self
            .start(
                Provider::Unspecified,
                &principal.tenant,
                &id,
                owner,
                entity.as_ref().map(|e| e.id().to_owned()),
                None,
                request.enrich_entity,
                None,
            )
            .await?;
        let event = self
            .event(SESSION_CREATED, principal, &session)
            .with_field("object", self.view_json(&session)?);
        self.ports
            .sessions
            .create(&session, &[event])
            .await
            .map_err(|e| e.for_resource(&session_name(&session.id)))?;
        Ok(SessionAnswer {
            name: session_name(&session.id),
            token: started.token,
            tenant: started.provider_tenant,
            api_url: started.api_url,
            session_uri: started.verification_uri,
            expire_time: started.expire_time,
            identity_owner: session.identity_owner,
            entity: entity.map(|e| e.name),
        })
    }

    /// Starts the session of a verification job's run: its id is the run's operation
    /// id, so the run's retry of this step finds it (a second start of the same run is
    /// refused by the store, and the first session's answer cannot be read back: the
    /// caller's `:run` fails and may be repeated).
    ///
    /// # Errors
    /// FAILED_PRECONDITION `NO_EMAIL` when the entity has no email to give the
    /// provider; what the provider and the store fail with.
    pub async fn start_for_run(
        &self,
        tenant: &TenantId,
        run: RunSession,
    ) -> Result<ProviderSession> {
        let owner = owner_of(&run.entity)?;
        let (session, started) = self
            .start(
                run.provider,
                tenant,
                &run.operation_id,
                owner,
                Some(run.entity.id().to_owned()),
                Some(run.operation_name.clone()),
                run.enrich_entity,
                run.webhook_uri,
            )
            .await?;
        let event = self
            .event(SESSION_CREATED, &worker_principal(tenant), &session)
            .with_field("object", self.view_json(&session)?);
        self.ports
            .sessions
            .create(&session, &[event])
            .await
            .map_err(|e| e.for_resource(&session_name(&session.id)))?;
        Ok(started)
    }

    /// Starts a session with `provider` (Unspecified: the tenant's provider, Truuth
    /// where the operator configured it, else the built-in hosted capture).
    #[allow(clippy::too_many_arguments)]
    async fn start(
        &self,
        provider: Provider,
        tenant: &TenantId,
        id: &str,
        owner: IdentityOwner,
        entity_id: Option<String>,
        operation: Option<String>,
        enrich_entity: bool,
        webhook_uri: Option<String>,
    ) -> Result<(VerificationSession, ProviderSession)> {
        let now = self.ports.context.clock.now();
        let expire_time = now.plus(SESSION_LIFETIME);
        let request = SessionRequest {
            tenant: tenant.clone(),
            reference: session_reference(tenant, id),
            session_id: id.to_owned(),
            entity_id: entity_id.clone(),
            owner: owner.clone(),
            expire_time,
        };
        let (truuth, hosted) = (self.ports.truuth.as_ref(), self.ports.hosted.as_ref());
        let (provider, started) = match provider {
            Provider::HostedCapture => (hosted, hosted.start(&request).await?),
            Provider::Truuth => (truuth, truuth.start(&request).await?),
            // The tenant's provider: Truuth where the operator configured it, else the
            // built-in.
            _ => match truuth.start(&request).await {
                Err(error) if error.reason == NOT_CONFIGURED => {
                    (hosted, hosted.start(&request).await?)
                }
                started => (truuth, started?),
            },
        };
        let session = VerificationSession {
            tenant: tenant.clone(),
            id: id.to_owned(),
            provider: provider.provider(),
            provider_session_id: started.provider_session_id.clone(),
            entity_id,
            operation,
            identity_owner: owner,
            enrich_entity,
            webhook_uri,
            state: SessionState::Active,
            outcome: None,
            activity_log: None,
            create_time: now,
            expire_time: started.expire_time.min(expire_time),
            complete_time: None,
        };
        Ok((session, started))
    }

    /// Takes a Truuth callback: `bearer` is the secret its `Authorization` header
    /// carried, `body` its JSON.
    ///
    /// # Errors
    /// UNAUTHENTICATED `MISSING_CALLBACK_SECRET` without a secret, and
    /// `INVALID_CALLBACK_SECRET` when it is not the session's tenant's; INVALID_ARGUMENT
    /// for a body that does not read; NOT_FOUND `UNKNOWN_SESSION` for a reference rics
    /// did not give; FAILED_PRECONDITION `CALLBACK_TOO_OLD` when the session expired
    /// more than [`CALLBACK_GRACE`] ago; ALREADY_EXISTS `CALLBACK_REPLAYED` for a
    /// verification's status received already; UNAVAILABLE when a store is.
    pub async fn truuth_callback(
        &self,
        bearer: Option<&str>,
        body: Value,
    ) -> Result<CallbackReceipt> {
        let bearer = bearer.filter(|b| !b.is_empty()).ok_or_else(|| {
            Error::new(
                Code::Unauthenticated,
                "MISSING_CALLBACK_SECRET",
                "A Truuth callback carries its tenant's callback secret as a Bearer token.",
            )
        })?;
        let outcome = read_callback(body.clone())?;
        let unknown = || {
            Error::new(
                Code::NotFound,
                "UNKNOWN_SESSION",
                format!(
                    "'{}' is not a verification session of rics",
                    outcome.reference
                ),
            )
        };
        let (tenant, id) = read_reference(&outcome.reference).ok_or_else(unknown)?;
        let session = self
            .ports
            .sessions
            .get(&tenant, &id)
            .await?
            .ok_or_else(unknown)?;
        if !self.ports.callback_secrets.matches(&tenant, bearer).await? {
            return Err(Error::new(
                Code::Unauthenticated,
                "INVALID_CALLBACK_SECRET",
                "The Bearer token is not the tenant's Truuth callback secret.",
            ));
        }
        let now = self.ports.context.clock.now();
        if now > session.expire_time.plus(CALLBACK_GRACE) {
            return Err(Error::failed_precondition(
                "CALLBACK_TOO_OLD",
                format!(
                    "{} expired at {}; its callbacks are taken for an hour after",
                    session_name(&session.id),
                    session.expire_time
                ),
            ));
        }
        if self
            .ports
            .sessions
            .has_callback(&tenant, &outcome.verification_id, outcome.status)
            .await?
        {
            return Err(Error::new(
                Code::AlreadyExists,
                "CALLBACK_REPLAYED",
                format!(
                    "verification '{}' reported {} already",
                    outcome.verification_id, outcome.status
                ),
            ));
        }
        let callback = ReceivedCallback {
            verification_id: outcome.verification_id.clone(),
            status: outcome.status,
            session_id: session.id.clone(),
            receive_time: now,
            body,
        };
        let session = if outcome.status.is_final() && session.state == SessionState::Active {
            self.complete(session, outcome, &callback, now).await?
        } else {
            self.ports
                .sessions
                .update(&session, Some(&callback), &[])
                .await?;
            session
        };
        Ok(CallbackReceipt {
            verification_session: session_name(&session.id),
            state: session.state.as_str().to_owned(),
        })
    }

    /// Completes the hosted capture session of `capture` (the built-in provider's
    /// counterpart of a callback, from the execution that waited for its form) on the
    /// path a callback's completion takes, recording the capture as its callback; a
    /// session completed already is left as it is. Returns the session as
    /// `:linkEntity` shows it.
    ///
    /// # Errors
    /// NOT_FOUND for an unknown session; what completing fails with (UNAVAILABLE).
    pub async fn complete_capture(&self, tenant: &TenantId, capture: &Capture) -> Result<Value> {
        let name = session_name(&capture.session_id);
        let session = self
            .ports
            .sessions
            .get(tenant, &capture.session_id)
            .await?
            .ok_or_else(|| Error::not_found(&name))?;
        if session.state == SessionState::Completed {
            return self.view_json(&session);
        }
        let now = self.ports.context.clock.now();
        let outcome = capture.outcome(&session_reference(tenant, &session.id), now);
        let callback = ReceivedCallback {
            verification_id: outcome.verification_id.clone(),
            status: outcome.status,
            session_id: session.id.clone(),
            receive_time: now,
            body: capture.record(),
        };
        let session = self.complete(session, outcome, &callback, now).await?;
        self.view_json(&session)
    }

    /// Ends the run of the hosted capture session whose completing `execution`
    /// failed or was cancelled, with the execution's error; does nothing for another
    /// execution, a session without a run, or one completed.
    ///
    /// # Errors
    /// What the stores fail with.
    pub async fn capture_ended(&self, tenant: &TenantId, execution: &Execution) -> Result<()> {
        let Some(id) =
            failed_capture(execution).and_then(|s| s.strip_prefix("verificationSessions/"))
        else {
            return Ok(());
        };
        let Some(session) = self.ports.sessions.get(tenant, id).await? else {
            return Ok(());
        };
        let Some(operation) = session
            .operation
            .as_ref()
            .filter(|_| session.state == SessionState::Active)
        else {
            return Ok(());
        };
        let runs = self.runs()?;
        let message = execution.error.as_ref().map_or_else(
            || {
                format!(
                    "the hosted capture '{}' ended without a verification",
                    execution.name()
                )
            },
            |e| e.message.clone(),
        );
        let error = Error::new(Code::Aborted, "CAPTURE_FAILED", message)
            .with_metadata("execution", execution.name());
        runs.end(tenant, operation, Err(error), Vec::new()).await
    }

    fn runs(&self) -> Result<Arc<dyn RunEnding>> {
        self.runs
            .get()
            .and_then(std::sync::Weak::upgrade)
            .ok_or_else(|| Error::unavailable("SHUTTING_DOWN", "no job service to end the run"))
    }

    /// Completes `session` with its provider's final `outcome`.
    async fn complete(
        &self,
        mut session: VerificationSession,
        outcome: VerificationOutcome,
        callback: &ReceivedCallback,
        now: Timestamp,
    ) -> Result<VerificationSession> {
        let tenant = session.tenant.clone();
        session.state = SessionState::Completed;
        session.outcome = Some(outcome);
        session.complete_time = Some(now);
        let mut result = self.record_outcome(&mut session).await?;
        let worker = worker_principal(&tenant);
        let mut event = self
            .event(SESSION_COMPLETED, &worker, &session)
            .with_field("object", self.view_json(&session)?);
        if let Some(operation) = session.operation.clone() {
            let runs = self.runs()?;
            if let Some(url) = &session.webhook_uri {
                event = event.deliver_to(url.clone());
            }
            result.activity_log.clone_from(&session.activity_log);
            let ended = match session.outcome.as_ref().map(|o| o.status) {
                Some(ProviderStatus::Error) => Err(Error::new(
                    Code::Aborted,
                    "PROVIDER_ERROR",
                    "The provider could not complete the verification.",
                )),
                _ => to_json(&result),
            };
            runs.end(&tenant, &operation, ended, vec![event]).await?;
            self.ports
                .sessions
                .update(&session, Some(callback), &[])
                .await?;
        } else {
            self.ports
                .sessions
                .update(&session, Some(callback), &[event])
                .await?;
        }
        Ok(session)
    }

    /// Writes what a completed session's outcome says of its entity, when it has one
    /// (the IDENTITY_CHECK log, `verificationStatus`, the missing details), and returns
    /// the result. Idempotent.
    async fn record_outcome(
        &self,
        session: &mut VerificationSession,
    ) -> Result<VerificationResult> {
        let outcome = session
            .outcome
            .clone()
            .ok_or_else(|| Error::internal("a completed session without its outcome"))?;
        let status = match outcome.status {
            ProviderStatus::Error => None,
            _ if outcome.passed => Some(VerificationStatus::Verified),
            _ => Some(VerificationStatus::Failed),
        };
        let mut result = VerificationResult {
            verification_session: session_name(&session.id),
            provider: session.provider.as_str().to_owned(),
            verification_id: outcome.verification_id.clone(),
            status: outcome.status.as_str().to_owned(),
            verification_status: status.map(|s| s.as_str().to_owned()),
            assurance: outcome.assurance.as_str().to_owned(),
            proofing_outcomes: outcome.proofing_outcomes.clone(),
            identity_owner: to_json(&outcome.identity_owner)?,
            enriched_fields: Vec::new(),
            activity_log: None,
        };
        let Some(entity_id) = session.entity_id.clone() else {
            return Ok(result);
        };
        let tenant = session.tenant.clone();
        let name = format!("entities/{entity_id}");
        let entity = self
            .ports
            .entities
            .get(&tenant, &entity_id)
            .await?
            .ok_or_else(|| Error::not_found(&name))?;
        if session.enrich_entity
            && let Some(individual) = &entity.individual
        {
            let details = verified_details(&outcome);
            result.enriched_fields = details
                .fill(individual)
                .1
                .into_iter()
                .map(str::to_owned)
                .collect();
        }
        let log = ActivityLog {
            activity_type: ActivityType::IdentityCheck,
            source: session.provider.source().to_owned(),
            entity_names: vec![name.clone()],
            payload: to_json(&result)?.as_object().cloned(),
            description: summary(&entity, &outcome),
            ..ActivityLog::default()
        };
        let log = self
            .ports
            .records
            .log(
                &worker_principal(&tenant),
                &format!("identity-check-{}", session.id),
                log,
            )
            .await?;
        let cause = || OutputCause {
            field: "activityLog",
            name: log.name.clone(),
        };
        if let Some(status) = status {
            self.ports
                .records
                .entity_output(
                    &tenant,
                    entity.clone(),
                    EntityOutput::VerificationStatus(status),
                    cause(),
                )
                .await?;
        }
        if session.enrich_entity && !result.enriched_fields.is_empty() {
            let entity = self
                .ports
                .entities
                .get(&tenant, &entity_id)
                .await?
                .ok_or_else(|| Error::not_found(&name))?;
            self.ports
                .records
                .entity_output(
                    &tenant,
                    entity,
                    EntityOutput::MissingDetails(verified_details(&outcome)),
                    cause(),
                )
                .await?;
        }
        session.activity_log = Some(log.name.clone());
        result.activity_log = Some(log.name);
        Ok(result)
    }

    /// Names the entity of session `id`, started without one: a completed session's
    /// IDENTITY_CHECK log (and status, details) is written at once; an active one's
    /// when its outcome arrives. Naming the same entity again changes nothing.
    ///
    /// # Errors
    /// INVALID_ARGUMENT on `entity`; NOT_FOUND for an unknown session or entity;
    /// FAILED_PRECONDITION `SESSION_HAS_ENTITY` when the session names another entity,
    /// or for a deleted entity.
    pub async fn link_entity(
        &self,
        principal: &Principal,
        id: &str,
        body: Value,
    ) -> Result<SessionView> {
        let request: LinkEntityRequest = parse_body(body, "link")?;
        let name = session_name(id);
        if !is_well_formed_id(id) {
            return Err(Error::not_found(&name));
        }
        let mut session = self
            .ports
            .sessions
            .get(&principal.tenant, id)
            .await?
            .ok_or_else(|| Error::not_found(&name))?;
        let entity = self
            .live_entity(&principal.tenant, "link.entity", &request.entity)
            .await?;
        match session.entity_id.as_deref() {
            Some(held) if held == entity.id() => {
                // Again, in case the provider was not told the first time.
                self.tell_linked(&session).await?;
                return self.view(&session);
            }
            Some(held) => {
                return Err(Error::failed_precondition(
                    "SESSION_HAS_ENTITY",
                    format!("{name} verifies entities/{held} already"),
                ));
            }
            None => {}
        }
        session.entity_id = Some(entity.id().to_owned());
        if session.state == SessionState::Completed {
            self.record_outcome(&mut session).await?;
        }
        let event = self
            .event(SESSION_ENTITY_LINKED, principal, &session)
            .with_field("object", self.view_json(&session)?);
        self.ports
            .sessions
            .update(&session, None, &[event])
            .await
            .map_err(|e| e.for_resource(&name))?;
        self.tell_linked(&session).await?;
        self.view(&session)
    }

    /// Tells the provider of an active session the entity it now names: the built-in
    /// hosted capture starts its completion then.
    async fn tell_linked(&self, session: &VerificationSession) -> Result<()> {
        let (Some(entity_id), SessionState::Active, Provider::HostedCapture) =
            (&session.entity_id, session.state, session.provider)
        else {
            return Ok(());
        };
        self.ports
            .hosted
            .entity_linked(&session.tenant, &session.id, entity_id)
            .await
    }

    fn view(&self, session: &VerificationSession) -> Result<SessionView> {
        Ok(SessionView {
            name: session_name(&session.id),
            state: session.state.as_str().to_owned(),
            entity: session.entity_id.as_ref().map(|e| format!("entities/{e}")),
            activity_log: session.activity_log.clone(),
            outcome: session.outcome.as_ref().map(to_json).transpose()?,
        })
    }

    fn view_json(&self, session: &VerificationSession) -> Result<Value> {
        to_json(&self.view(session)?)
    }

    async fn live_entity(&self, tenant: &TenantId, field: &str, name: &str) -> Result<Entity> {
        let id = name
            .strip_prefix("entities/")
            .filter(|id| is_well_formed_id(id) && *id != "-")
            .ok_or_else(|| {
                Error::invalid_field(
                    field,
                    "INVALID_NAME",
                    format!("'{name}' is not an entity name (entities/{{entity}})"),
                )
            })?;
        let entity = self
            .ports
            .entities
            .get(tenant, id)
            .await
            .map_err(|e| e.for_resource(name))?
            .ok_or_else(|| Error::not_found(name))?;
        if entity.is_deleted() {
            return Err(referred_deleted(Referred::Entity, name));
        }
        Ok(entity)
    }

    fn event(
        &self,
        event_type: &str,
        principal: &Principal,
        session: &VerificationSession,
    ) -> NewEvent {
        let event = NewEvent::new(
            self.ports.context.ids.resource_id(),
            event_type,
            &session_name(&session.id),
            principal,
            self.ports.context.clock.now(),
        );
        match &session.entity_id {
            Some(entity_id) => event.for_entity(entity_id),
            None => event,
        }
    }
}

/// `verificationSessions/{id}`.
pub fn session_name(id: &str) -> String {
    format!("verificationSessions/{id}")
}

/// The identity owner a job's entity gives a provider: its first email and its
/// legal name.
///
/// # Errors
/// FAILED_PRECONDITION `NO_EMAIL` when the entity has no email.
pub fn owner_of(entity: &Entity) -> Result<IdentityOwner> {
    let email = entity
        .contact_info
        .as_ref()
        .and_then(|c| c.emails.first())
        .cloned()
        .ok_or_else(|| {
            Error::failed_precondition(
                "NO_EMAIL",
                format!(
                    "{} has no email address (contactInfo.emails) for the provider to reach the person",
                    entity.name
                ),
            )
        })?;
    let name = entity
        .individual
        .as_ref()
        .and_then(|i| i.legal_name.clone())
        .unwrap_or_default();
    let part = |text: String| (!text.is_empty()).then_some(text);
    Ok(IdentityOwner {
        email,
        given_name: part(name.given_name),
        family_name: part(name.family_name),
        middle_name: part(name.middle_names),
    })
}

/// What an outcome read of the person, for enrichment; a date of birth that does not
/// read is left out.
fn verified_details(outcome: &VerificationOutcome) -> VerifiedDetails {
    let owner = &outcome.identity_owner;
    VerifiedDetails {
        given_name: owner.given_name.clone(),
        middle_names: owner.middle_name.clone(),
        family_name: owner.family_name.clone(),
        date_of_birth: owner
            .date_of_birth
            .as_deref()
            .and_then(|d| PartialDate::parse(d).ok()),
    }
}

/// One sentence on an outcome, for its activity log.
fn summary(entity: &Entity, outcome: &VerificationOutcome) -> String {
    match outcome.status {
        ProviderStatus::Error => format!(
            "The identity verification of '{}' ended in an error at the provider.",
            entity.display_name
        ),
        _ if outcome.passed => format!(
            "'{}' passed the identity verification ({}).",
            entity.display_name, outcome.assurance
        ),
        _ => format!(
            "'{}' failed the identity verification: {}.",
            entity.display_name,
            if outcome.proofing_outcomes.is_empty() {
                "no proofing outcome".to_owned()
            } else {
                outcome.proofing_outcomes.join(", ")
            }
        ),
    }
}

#[cfg(test)]
#[path = "service_tests.rs"]
mod tests;
