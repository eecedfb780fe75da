//! Individual entity verification jobs (`individualEntityVerificationJobs`, top-level,
//! the entity an input): a `:run` starts a verification session with the provider of
//! the job's `providerConfig` (the oneof of `hostedCaptureConfig`, the built-in and
//! the default, and `truuthVerificationConfig`) for the individual (its first email
//! and legal name) and
//! answers its URL at once in the operation's `metadata.debug.verificationUri`; the
//! provider's callback ends the run ([`JobFamily::ENDS_ELSEWHERE`]) through
//! [`VerificationService`], with the result [`VerificationResult`].

use std::sync::{Arc, LazyLock};

use async_trait::async_trait;
use rics_aip::field_mask::{Behavior, FieldKind, FieldTable};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::provider::Provider;
use super::service::{RunEnding, RunSession, VerificationService, owner_of, session_name};
use crate::entity::model::Entity;
use crate::entity::repository::EntityRepository;
use crate::error::{Error, Result};
use crate::event::NewEvent;
use crate::job::JobService;
use crate::job::kind::{JobFamily, Run, RunRequest};
use crate::job::model::JobRecord;
use crate::job::service::job_table;
use crate::lifecycle::deleted;
use crate::principal::{Principal, TenantId};
use crate::risk::evaluation::require_individual;
use crate::time::Timestamp;
use crate::webhook::ports::HostResolver;
use crate::webhook::target::TargetPolicy;

/// The inputs a verification job's PATCH may change.
fn inputs() -> FieldTable {
    FieldTable::new()
        .field(
            "hostedCaptureConfig",
            FieldKind::Message(FieldTable::new()),
            Behavior::Mutable,
        )
        .field(
            "truuthVerificationConfig",
            FieldKind::Message(FieldTable::new()),
            Behavior::Mutable,
        )
        .field("enrichEntity", FieldKind::Scalar, Behavior::Mutable)
        .field("webhookUri", FieldKind::Scalar, Behavior::Mutable)
}

/// Every field of a verification job as PATCH reads it: its inputs and the standard
/// job fields (what an update mask may name).
pub static FIELDS: LazyLock<FieldTable> = LazyLock::new(|| job_table(inputs()));

/// The built-in provider's configuration of a job: empty. The person gives their
/// identity document and a selfie on a hosted page of rics; the ID document
/// verification judges the document (assurance `DOCUMENT_ONLY`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct HostedCaptureConfig {}

/// The Truuth provider's configuration of a job: empty, as rics reaches Truuth with
/// the operator's account (`RICS_TRUUTH_API_URL`, `RICS_TRUUTH_API_KEY`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct TruuthVerificationConfig {}

/// The inputs of a verification job.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VerificationJobInput {
    /// The provider, of the `providerConfig` oneof: the built-in hosted capture, the
    /// default when neither member is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hosted_capture_config: Option<HostedCaptureConfig>,
    /// The provider, of the `providerConfig` oneof: Truuth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truuth_verification_config: Option<TruuthVerificationConfig>,
    /// Whether the outcome fills the individual's missing names and date of birth.
    #[serde(default)]
    pub enrich_entity: bool,
    /// Where the event `verification_session.completed`, with the job, is also
    /// delivered (signed with the tenant's webhook secret). Checked by the webhook URL
    /// policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook_uri: Option<String>,
}

impl VerificationJobInput {
    /// The provider of the `providerConfig` oneof.
    pub fn provider(&self) -> Provider {
        if self.truuth_verification_config.is_some() {
            Provider::Truuth
        } else {
            Provider::HostedCapture
        }
    }
}

/// What the runner's part of a run reports in the operation's `metadata.debug`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HandedOff {
    /// The run's session, `verificationSessions/{operation id}`.
    pub verification_session: String,
}

/// The ports the family uses.
pub struct VerificationJobPorts {
    /// Sessions and completions.
    pub verification: Arc<VerificationService>,
    /// Entities.
    pub entities: Arc<dyn EntityRepository>,
    /// The webhook URL policy `webhookUri` must pass.
    pub policy: TargetPolicy,
    /// Resolves `webhookUri`'s host for the policy.
    pub resolver: Arc<dyn HostResolver>,
}

/// Identity verification of individuals with a provider.
pub struct VerificationJobs {
    ports: VerificationJobPorts,
}

impl VerificationJobs {
    /// The family over its ports.
    pub fn new(ports: VerificationJobPorts) -> VerificationJobs {
        VerificationJobs { ports }
    }

    async fn live_entity(&self, tenant: &TenantId, entity_id: &str) -> Result<Entity> {
        let name = format!("entities/{entity_id}");
        let entity = self
            .ports
            .entities
            .get(tenant, entity_id)
            .await?
            .ok_or_else(|| Error::not_found(&name))?;
        if entity.is_deleted() {
            return Err(deleted(&name));
        }
        Ok(entity)
    }
}

#[async_trait]
impl JobFamily for VerificationJobs {
    const COLLECTION: &'static str = "individualEntityVerificationJobs";
    const EVENT_PREFIX: &'static str = "individual_entity_verification_job";
    const OPERATION_TYPE: &'static str = "rics.v1alpha.IndividualEntityVerificationJob";
    const ENDS_ELSEWHERE: bool = true;

    type Input = VerificationJobInput;
    type RunRequest = RunRequest;
    type RunInput = crate::job::kind::NoRunInput;
    type Output = HandedOff;

    async fn check_input(
        &self,
        _principal: &Principal,
        _entity_id: &str,
        mut input: VerificationJobInput,
    ) -> Result<VerificationJobInput> {
        match (
            &input.hosted_capture_config,
            &input.truuth_verification_config,
        ) {
            (Some(_), Some(_)) => {
                return Err(Error::invalid_field(
                    "job.hostedCaptureConfig",
                    "ONE_OF",
                    "give one provider of providerConfig: hostedCaptureConfig or truuthVerificationConfig, not both",
                ));
            }
            (None, None) => input.hosted_capture_config = Some(HostedCaptureConfig {}),
            _ => {}
        }
        if let Some(url) = &input.webhook_uri {
            self.ports
                .policy
                .admit("job.webhookUri", url, self.ports.resolver.as_ref())
                .await?;
        }
        Ok(input)
    }

    /// Its jobs take PATCH of their inputs, DELETE and `:undelete`.
    fn input_fields(&self) -> Option<FieldTable> {
        Some(inputs())
    }

    async fn prepare_run(
        &self,
        principal: &Principal,
        job: &JobRecord,
        operation_id: &str,
        _now: Timestamp,
    ) -> Result<Map<String, Value>> {
        let input: VerificationJobInput = serde_json::from_value(job.input.clone())
            .map_err(|e| Error::internal(format!("stored verification job input: {e}")))?;
        let entity = self.live_entity(&principal.tenant, &job.entity_id).await?;
        let started = self
            .ports
            .verification
            .start_for_run(
                &principal.tenant,
                RunSession {
                    entity,
                    operation_id: operation_id.to_owned(),
                    operation_name: format!("{}/operations/{operation_id}", job.name()),
                    enrich_entity: input.enrich_entity,
                    provider: input.provider(),
                    webhook_uri: input.webhook_uri,
                },
            )
            .await?;
        let mut debug = Map::new();
        debug.insert("verificationUri".into(), json!(started.verification_uri));
        debug.insert("expireTime".into(), json!(started.expire_time));
        debug.insert(
            "verificationSession".into(),
            json!(session_name(operation_id)),
        );
        Ok(debug)
    }

    fn admits(&self, entity: &Entity) -> Result<()> {
        require_individual(entity)?;
        owner_of(entity).map(|_| ())
    }

    async fn execute(&self, run: Run<'_, Self>) -> Result<HandedOff> {
        Ok(HandedOff {
            verification_session: session_name(&run.task.id),
        })
    }
}

/// The verification jobs' service ends the runs their sessions started: the events
/// of a completion go with the end, each with the job as it ended as its object.
#[async_trait]
impl RunEnding for JobService {
    async fn end(
        &self,
        tenant: &TenantId,
        operation: &str,
        outcome: Result<Value>,
        events: Vec<NewEvent>,
    ) -> Result<()> {
        let with_job = move |job: &JobRecord| -> Vec<NewEvent> {
            let rendered = job.to_json();
            events
                .iter()
                .cloned()
                .map(|event| event.with_field("object", rendered.clone()))
                .collect()
        };
        self.end_run(tenant, operation, outcome, &with_job)
            .await
            .map(|_| ())
    }
}
