//! ID document verification jobs (`individualEntityIDVerificationJobs`, top-level, the
//! entity an input): a run checks one identity document of the individual (the one the
//! job names, or the newest live one of the job's `idType`) with the named checks of
//! [`crate::document::verification`], writes a DOCUMENT_VERIFICATION activity log, sets
//! the entity's `verificationStatus` (VERIFIED or FAILED), and raises "Individual
//! Verification Failed" when a check failed. The log and the alert take ids derived
//! from the run, so a run repeated after a crash writes each once and reports what the
//! first attempt recorded.

use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::kind::{JobKind, retry_unless_final};
use super::model::{ClaimedTask, JobRecord, worker_principal};
use crate::activity::ActivityLogService;
use crate::activity::model::{ActivityLog, ActivityType};
use crate::alert::AlertService;
use crate::alert::model::{INDIVIDUAL_VERIFICATION_FAILED, NewAlert};
use crate::document::model::{Document, DocumentType};
use crate::document::ports::DocumentRepository;
use crate::document::verification::{CheckStatus, Outcome, Verification, verify};
use crate::entity::model::{Entity, VerificationStatus};
use crate::entity::output::OutputWriter;
use crate::entity::repository::EntityRepository;
use crate::error::{Error, Result};
use crate::id::{IdGenerator, is_well_formed_id};
use crate::lifecycle::{Referred, deleted, referred_deleted};
use crate::list::{ListQuery, SortBy, SortKey};
use crate::principal::{Principal, TenantId};
use crate::resource::parse_body;
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
    /// The document to verify, `documents/{document}`, of the job's entity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document: Option<String>,
    /// Or the type of document to verify: the entity's newest live document of this
    /// type when the job runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_type: Option<DocumentType>,
}

/// What a `:run` of an ID document verification job may give, as the ID document
/// verification guide gives it: the job's `entity` again, and an `idType` for that run
/// only.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IdVerificationRunInput {
    /// The job's entity, `entities/{entity}`; any other is refused (`ENTITY_MISMATCH`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity: Option<String>,
    /// For this run only: verify the entity's newest live document of this type,
    /// whatever the job names. The run's result records it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_type: Option<DocumentType>,
}

/// What the run's task carries: the checked `idType`, if any.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RunOverride {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id_type: Option<DocumentType>,
}

/// The ports and services the family uses.
pub struct IdVerificationPorts {
    /// Identity documents.
    pub documents: Arc<dyn DocumentRepository>,
    /// Entities.
    pub entities: Arc<dyn EntityRepository>,
    /// The screening engine's name comparison.
    pub names: Arc<dyn NameMatcher>,
    /// Where results are recorded.
    pub logs: Arc<ActivityLogService>,
    /// Where alerts are raised.
    pub alerts: Arc<AlertService>,
    /// The time.
    pub clock: Arc<dyn Clock>,
    /// Ids.
    pub ids: Arc<dyn IdGenerator>,
}

/// ID document verification of individuals.
pub struct IdVerificationJobs {
    documents: Arc<dyn DocumentRepository>,
    entities: Arc<dyn EntityRepository>,
    names: Arc<dyn NameMatcher>,
    logs: Arc<ActivityLogService>,
    alerts: Arc<AlertService>,
    clock: Arc<dyn Clock>,
    output: OutputWriter,
}

impl IdVerificationJobs {
    /// The family over its ports.
    pub fn new(ports: IdVerificationPorts) -> IdVerificationJobs {
        IdVerificationJobs {
            output: OutputWriter::new(ports.entities.clone(), ports.clock.clone(), ports.ids),
            documents: ports.documents,
            entities: ports.entities,
            names: ports.names,
            logs: ports.logs,
            alerts: ports.alerts,
            clock: ports.clock,
        }
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

    async fn document(
        &self,
        tenant: &TenantId,
        entity_id: &str,
        input: &IdVerificationInput,
    ) -> Result<Document> {
        match (&input.document, input.id_type) {
            (Some(name), _) => {
                self.named_document(tenant, entity_id, "job.document", name)
                    .await
            }
            (None, Some(id_type)) => self.newest_of_type(tenant, entity_id, id_type).await,
            (None, None) => Err(Error::internal(
                "stored ID verification input names no document",
            )),
        }
    }

    async fn raise(
        &self,
        principal: &Principal,
        job: &JobRecord,
        task: &ClaimedTask,
        entity: &Entity,
        log: &ActivityLog,
        verification: &Verification,
    ) -> Result<String> {
        let failed: Vec<&str> = verification
            .checks
            .iter()
            .filter(|c| c.status == CheckStatus::Failed)
            .map(|c| c.check.as_str())
            .collect();
        let details = json!({
            "job": job.name(),
            "operation": task.operation_name,
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
        let alert = self
            .alerts
            .raise(
                principal,
                &format!("idv-failed-{}", task.id),
                &job.name(),
                new,
            )
            .await?;
        Ok(alert.name)
    }
}

#[async_trait]
impl JobKind for IdVerificationJobs {
    fn collection(&self) -> &'static str {
        "individualEntityIDVerificationJobs"
    }

    fn event_prefix(&self) -> &'static str {
        "id_verification_job"
    }

    fn operation_type(&self) -> &'static str {
        "rics.v1alpha.IndividualEntityIDVerificationJob"
    }

    async fn check_input(
        &self,
        principal: &Principal,
        entity_id: &str,
        input: Value,
    ) -> Result<Value> {
        let parsed: IdVerificationInput = parse_body(input, "job")?;
        match (&parsed.document, parsed.id_type) {
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
        serde_json::to_value(&parsed).map_err(|e| Error::internal(e.to_string()))
    }

    fn check_run_input(&self, job: &JobRecord, input: Value) -> Result<Value> {
        let parsed: IdVerificationRunInput = parse_body(input, "run")?;
        let entity = format!("entities/{}", job.entity_id);
        if let Some(given) = parsed.entity.filter(|given| *given != entity) {
            return Err(Error::invalid_field(
                "run.entity",
                "ENTITY_MISMATCH",
                format!("'{given}' is not the job's entity, {entity}"),
            ));
        }
        let id_type = parsed.id_type.filter(|t| !t.is_unspecified());
        if id_type.is_none() {
            return Ok(Value::Null);
        }
        serde_json::to_value(RunOverride { id_type }).map_err(|e| Error::internal(e.to_string()))
    }

    fn admits(&self, entity: &Entity) -> Result<()> {
        require_individual(entity)
    }

    async fn execute(&self, job: &JobRecord, task: &ClaimedTask) -> Result<Value> {
        let mut input: IdVerificationInput = serde_json::from_value(job.input.clone())
            .map_err(|e| Error::internal(format!("stored ID verification input: {e}")))?;
        let run: RunOverride = if task.run_input.is_null() {
            RunOverride::default()
        } else {
            serde_json::from_value(task.run_input.clone())
                .map_err(|e| Error::internal(format!("stored ID verification run input: {e}")))?
        };
        if let Some(id_type) = run.id_type {
            input = IdVerificationInput {
                document: None,
                id_type: Some(id_type),
            };
        }
        let name = format!("entities/{}", job.entity_id);
        let entity = self
            .entities
            .get(&task.tenant, &job.entity_id)
            .await?
            .ok_or_else(|| Error::not_found(&name))?;
        if entity.is_deleted() {
            return Err(deleted(&name));
        }
        let document = self
            .document(&task.tenant, &job.entity_id, &input)
            .await
            .map_err(retry_unless_final)?;
        let today = self.clock.now().datetime().date();
        let verification = verify(&document, &entity, today, self.names.as_ref());
        let worker = worker_principal(&task.tenant);
        let mut payload =
            serde_json::to_value(&verification).map_err(|e| Error::internal(e.to_string()))?;
        payload["document"] = json!(document.name);
        payload["documentType"] = json!(document.document_type);
        if let Some(id_type) = run.id_type {
            payload["idType"] = json!(id_type);
        }
        payload["verifyDate"] = json!(today.to_string());
        let log = ActivityLog {
            activity_type: ActivityType::DocumentVerification,
            entity_names: vec![name.clone()],
            payload: payload.as_object().cloned(),
            description: summary(&entity, &document, &verification),
            ..ActivityLog::default()
        };
        let log = self
            .logs
            .record(&worker, &format!("id-verification-{}", task.id), log)
            .await
            .map_err(retry_unless_final)?;
        // A repeated attempt reports what the first attempt recorded.
        let mut result = Value::Object(log.payload.clone().unwrap_or_default());
        let recorded = recorded(&log)?;
        let status = match recorded.outcome {
            Outcome::Failed => VerificationStatus::Failed,
            _ => VerificationStatus::Verified,
        };
        self.output
            .write(
                &task.tenant,
                &job.entity_id,
                entity.clone(),
                "verificationStatus",
                ("job", json!(job.name())),
                |current| {
                    (current.verification_status != status).then(|| Entity {
                        verification_status: status,
                        ..current.clone()
                    })
                },
            )
            .await
            .map_err(retry_unless_final)?;
        result["activityLog"] = json!(log.name);
        if recorded.outcome == Outcome::Failed {
            let alert = self
                .raise(&worker, job, task, &entity, &log, &recorded)
                .await
                .map_err(retry_unless_final)?;
            result["alert"] = json!(alert);
        }
        Ok(result)
    }
}

/// The verification an activity log recorded.
fn recorded(log: &ActivityLog) -> Result<Verification> {
    let payload = log.payload.clone().unwrap_or_default();
    let stored = json!({
        "outcome": payload.get("outcome").cloned().unwrap_or(Value::Null),
        "checks": payload.get("checks").cloned().unwrap_or(Value::Null),
    });
    serde_json::from_value(stored)
        .map_err(|e| Error::internal(format!("{}: stored verification: {e}", log.name)))
}

/// One sentence on a verification, for its activity log.
fn summary(entity: &Entity, document: &Document, verification: &Verification) -> String {
    let failed: Vec<&str> = verification
        .checks
        .iter()
        .filter(|c| c.status == CheckStatus::Failed)
        .map(|c| c.check.as_str())
        .collect();
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
