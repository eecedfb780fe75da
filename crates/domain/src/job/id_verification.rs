//! ID document verification jobs (`individualEntityIDVerificationJobs`, top-level, the
//! entity an input): a run checks one identity document of the individual (the one the
//! job names, or the newest live one of the job's `idType`) with the named checks of
//! [`crate::document::verification`], writes a DOCUMENT_VERIFICATION activity log, sets
//! the entity's `verificationStatus` (VERIFIED or FAILED), and raises "Individual
//! Verification Failed" when a check failed. The log and the alert take ids derived
//! from the run and are written with its end, so a run repeated after a crash writes
//! each once; the result reports what the log records.

use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::kind::{JobFamily, Run, RunRequestBody, retry_unless_final};
use super::model::{JobRecord, worker_principal};
use super::records::{EntityOutput, OutputCause};
use crate::activity::model::{ActivityLog, ActivityType};
use crate::alert::model::{INDIVIDUAL_VERIFICATION_FAILED, NewAlert};
use crate::document::model::{Document, DocumentType};
use crate::document::ports::DocumentRepository;
use crate::document::verification::{Check, CheckStatus, Outcome, Verification, verify};
use crate::entity::model::{Entity, VerificationStatus};
use crate::entity::repository::EntityRepository;
use crate::error::{Error, Result};
use crate::id::is_well_formed_id;
use crate::lifecycle::{Referred, deleted, referred_deleted};
use crate::list::{ListQuery, SortBy, SortKey};
use crate::principal::{Principal, TenantId};
use crate::resource::to_json;
use crate::risk::evaluation::require_individual;
use crate::screen::NameMatcher;
use crate::time::Clock;

/// How many of an entity's documents are looked through for the newest of a type.
const DOCUMENT_PAGE: u32 = 1000;

/// The inputs of an ID document verification job: exactly one of `document` and
/// `idType`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IdVerificationInput {
    /// The document to verify, `documents/{document}`, of the job's entity; or else
    /// `idType`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(pattern = "^documents/[a-z0-9-]{1,63}$"))]
    pub document: Option<String>,
    /// Or the type of document to verify: the entity's newest live document of this
    /// type when the job runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(schema_with = DocumentType::specified_schema))]
    pub id_type: Option<DocumentType>,
}

/// The body of an ID document verification job's `:run`, as the ID document
/// verification guide gives it: a request id, the job's `entity` again, and an
/// `idType` for that run only.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IdVerificationRunRequest {
    /// A UUID making the call idempotent (also accepted as a query parameter).
    #[serde(default)]
    pub request_id: Option<String>,
    /// The job's entity, `entities/{entity}`: any other is 400 `ENTITY_MISMATCH`.
    #[serde(default)]
    pub entity: Option<String>,
    /// For this run only: verify the entity's newest live document of this type,
    /// whatever the job names. The run's result records it.
    #[serde(default)]
    pub id_type: Option<DocumentType>,
}

impl RunRequestBody for IdVerificationRunRequest {
    fn request_id(&self) -> Option<&str> {
        self.request_id.as_deref()
    }
}

/// What a run's task carries: the `idType` its `:run` gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IdTypeOverride {
    /// The type of the entity's newest live document to verify in this run.
    pub id_type: DocumentType,
}

/// What a verification found: the job's `result`, and (without `activityLog` and
/// `alert`) the payload of its DOCUMENT_VERIFICATION activity log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct IdVerificationResult {
    /// FAILED when any check failed, else PASSED.
    pub outcome: Outcome,
    /// Every check, in a fixed order.
    pub checks: Vec<Check>,
    /// The verified document, `documents/{document}`.
    pub document: String,
    /// Its type.
    pub document_type: DocumentType,
    /// The `idType` the run's `:run` gave, when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_type: Option<DocumentType>,
    /// The day the document was verified on (expiry is judged against it).
    pub verify_date: String,
    /// The DOCUMENT_VERIFICATION activity log that records the verification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activity_log: Option<String>,
    /// The "Individual Verification Failed" alert, when a check failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alert: Option<String>,
}

/// The ports the family uses.
pub struct IdVerificationPorts {
    /// Identity documents.
    pub documents: Arc<dyn DocumentRepository>,
    /// Entities.
    pub entities: Arc<dyn EntityRepository>,
    /// The screening engine's name comparison.
    pub names: Arc<dyn NameMatcher>,
    /// The time.
    pub clock: Arc<dyn Clock>,
}

/// ID document verification of individuals.
pub struct IdVerificationJobs {
    ports: IdVerificationPorts,
}

impl IdVerificationJobs {
    /// The family over its ports.
    pub fn new(ports: IdVerificationPorts) -> IdVerificationJobs {
        IdVerificationJobs { ports }
    }

    /// The live document `name` of the entity `entity_id`.
    async fn named_document(
        &self,
        tenant: &TenantId,
        entity_id: &str,
        field: &str,
        name: &str,
    ) -> Result<Document> {
        let id = name
            .strip_prefix("documents/")
            .filter(|id| is_well_formed_id(id))
            .ok_or_else(|| {
                Error::invalid_field(
                    field,
                    "INVALID_NAME",
                    format!("'{name}' is not a document name (documents/{{document}})"),
                )
            })?;
        let document = self
            .ports
            .documents
            .get(tenant, id)
            .await
            .map_err(|e| e.for_resource(name))?
            .ok_or_else(|| Error::not_found(name))?;
        if document.is_deleted() {
            return Err(referred_deleted(Referred::Document, name));
        }
        if document.entity != format!("entities/{entity_id}") {
            return Err(Error::invalid_field(
                field,
                "DOCUMENT_OF_ANOTHER_ENTITY",
                format!(
                    "'{name}' is a document of {}, not of entities/{entity_id}",
                    document.entity
                ),
            ));
        }
        Ok(document)
    }

    /// The entity's newest live document of `id_type`.
    async fn newest_of_type(
        &self,
        tenant: &TenantId,
        entity_id: &str,
        id_type: DocumentType,
    ) -> Result<Document> {
        let entity = format!("entities/{entity_id}");
        let newest_first = SortKey {
            by: SortBy::Field("createTime"),
            descending: true,
        };
        let query = ListQuery::first(newest_first, DOCUMENT_PAGE);
        let page = self
            .ports
            .documents
            .list(tenant, Some(&entity), &query)
            .await
            .map_err(|e| e.for_resource(&entity))?;
        page.items
            .into_iter()
            .find(|d| d.document_type == id_type)
            .ok_or_else(|| {
                Error::failed_precondition(
                    "NO_DOCUMENT",
                    format!("{entity} has no live document of type {id_type} to verify"),
                )
            })
    }

    /// The document a run verifies: the one its `:run` asked for, else the one the
    /// job names, else the newest of the job's `idType`.
    async fn document(
        &self,
        tenant: &TenantId,
        entity_id: &str,
        input: &IdVerificationInput,
        run: Option<&IdTypeOverride>,
    ) -> Result<Document> {
        match (run, &input.document, input.id_type) {
            (Some(run), _, _) => self.newest_of_type(tenant, entity_id, run.id_type).await,
            (None, Some(name), _) => {
                self.named_document(tenant, entity_id, "job.document", name)
                    .await
            }
            (None, None, Some(id_type)) => self.newest_of_type(tenant, entity_id, id_type).await,
            (None, None, None) => Err(Error::internal(
                "stored ID verification input names no document",
            )),
        }
    }

    async fn raise(
        &self,
        principal: &Principal,
        run: &Run<'_, Self>,
        entity: &Entity,
        log: &ActivityLog,
        verification: &Verification,
    ) -> Result<String> {
        let failed = failed_checks(verification);
        let details = json!({
            "job": run.job.name(),
            "operation": run.task.operation_name,
            "activityLog": log.name,
            "failedChecks": failed,
        });
        let new = NewAlert {
            alert_type: format!("alertTypes/{INDIVIDUAL_VERIFICATION_FAILED}"),
            entities: vec![entity.name.clone()],
            title: format!("Individual Verification Failed: {}", entity.display_name)
                .chars()
                .take(200)
                .collect(),
            description: format!(
                "The identity document check of '{}' failed: {}.",
                entity.display_name,
                failed.join(", ")
            ),
            details: details.as_object().cloned().unwrap_or_default(),
            ..NewAlert::default()
        };
        let alert = run
            .records
            .alert(
                principal,
                &format!("idv-failed-{}", run.task.id),
                &run.job.name(),
                new,
            )
            .await?;
        Ok(alert.name)
    }
}

#[async_trait]
impl JobFamily for IdVerificationJobs {
    const COLLECTION: &'static str = "individualEntityIDVerificationJobs";
    const EVENT_PREFIX: &'static str = "id_verification_job";
    const OPERATION_TYPE: &'static str = "rics.v1alpha.IndividualEntityIDVerificationJob";

    type Input = IdVerificationInput;
    type RunRequest = IdVerificationRunRequest;
    type RunInput = IdTypeOverride;
    type Output = IdVerificationResult;

    async fn check_input(
        &self,
        principal: &Principal,
        entity_id: &str,
        input: IdVerificationInput,
    ) -> Result<IdVerificationInput> {
        match (&input.document, input.id_type) {
            (Some(_), Some(_)) => {
                return Err(Error::invalid_field(
                    "job.idType",
                    "ONE_OF",
                    "give either `document` or `idType`, not both",
                ));
            }
            (None, None) | (None, Some(DocumentType::Unspecified)) => {
                return Err(Error::invalid_field(
                    "job.document",
                    "REQUIRED",
                    "name the document to verify, or give `idType`",
                ));
            }
            (Some(name), None) => {
                self.named_document(&principal.tenant, entity_id, "job.document", name)
                    .await?;
            }
            (None, Some(_)) => {}
        }
        Ok(input)
    }

    fn check_run(
        &self,
        job: &JobRecord,
        request: IdVerificationRunRequest,
    ) -> Result<Option<IdTypeOverride>> {
        let entity = format!("entities/{}", job.entity_id);
        if let Some(given) = request.entity.filter(|given| *given != entity) {
            return Err(Error::invalid_field(
                "run.entity",
                "ENTITY_MISMATCH",
                format!("'{given}' is not the job's entity, {entity}"),
            ));
        }
        Ok(request
            .id_type
            .filter(|t| !t.is_unspecified())
            .map(|id_type| IdTypeOverride { id_type }))
    }

    fn admits(&self, entity: &Entity) -> Result<()> {
        require_individual(entity)
    }

    async fn execute(&self, run: Run<'_, Self>) -> Result<IdVerificationResult> {
        let (job, task) = (run.job, run.task);
        let name = format!("entities/{}", job.entity_id);
        let entity = self
            .ports
            .entities
            .get(&task.tenant, &job.entity_id)
            .await?
            .ok_or_else(|| Error::not_found(&name))?;
        if entity.is_deleted() {
            return Err(deleted(&name));
        }
        let document = self
            .document(
                &task.tenant,
                &job.entity_id,
                &run.input,
                run.run_input.as_ref(),
            )
            .await
            .map_err(retry_unless_final)?;
        let today = self.ports.clock.now().datetime().date();
        let verification = verify(&document, &entity, today, self.ports.names.as_ref());
        let worker = worker_principal(&task.tenant);
        let found = IdVerificationResult {
            outcome: verification.outcome,
            checks: verification.checks.clone(),
            document: document.name.clone(),
            document_type: document.document_type,
            id_type: run.run_input.as_ref().map(|r| r.id_type),
            verify_date: today.to_string(),
            activity_log: None,
            alert: None,
        };
        let log = ActivityLog {
            activity_type: ActivityType::DocumentVerification,
            entity_names: vec![name.clone()],
            payload: to_json(&found)?.as_object().cloned(),
            description: summary(&entity, &document, &verification),
            ..ActivityLog::default()
        };
        let log = run
            .records
            .log(&worker, &format!("id-verification-{}", task.id), log)
            .await
            .map_err(retry_unless_final)?;
        // A repeated attempt reports what the first attempt recorded.
        let mut result = recorded(&log)?;
        let recorded = Verification {
            outcome: result.outcome,
            checks: result.checks.clone(),
        };
        let status = match recorded.outcome {
            Outcome::Failed => VerificationStatus::Failed,
            _ => VerificationStatus::Verified,
        };
        let cause = OutputCause {
            field: "job",
            name: job.name(),
        };
        run.records
            .entity_output(
                &task.tenant,
                entity.clone(),
                EntityOutput::VerificationStatus(status),
                cause,
            )
            .await
            .map_err(retry_unless_final)?;
        if recorded.outcome == Outcome::Failed {
            let alert = self
                .raise(&worker, &run, &entity, &log, &recorded)
                .await
                .map_err(retry_unless_final)?;
            result.alert = Some(alert);
        }
        result.activity_log = Some(log.name);
        Ok(result)
    }
}

/// The names of the checks that failed.
fn failed_checks(verification: &Verification) -> Vec<&str> {
    verification
        .checks
        .iter()
        .filter(|c| c.status == CheckStatus::Failed)
        .map(|c| c.check.as_str())
        .collect()
}

/// The verification an activity log recorded.
fn recorded(log: &ActivityLog) -> Result<IdVerificationResult> {
    let payload = serde_json::Value::Object(log.payload.clone().unwrap_or_default());
    serde_json::from_value(payload)
        .map_err(|e| Error::internal(format!("{}: stored verification: {e}", log.name)))
}

/// One sentence on a verification, for its activity log.
fn summary(entity: &Entity, document: &Document, verification: &Verification) -> String {
    let failed = failed_checks(verification);
    if failed.is_empty() {
        format!(
            "The {} {} of '{}' passed every applicable check.",
            document.document_type, document.name, entity.display_name
        )
    } else {
        format!(
            "The {} {} of '{}' failed {}.",
            document.document_type,
            document.name,
            entity.display_name,
            failed.join(", ")
        )
    }
}
