//! The steps of an onboarding's journey that are its own, as the built-in automation
//! `automations/onboard-individual` runs them (step kinds MAP_ONBOARDING and
//! DECIDE_ONBOARDING), and the end of the job's run when the journey's execution fails
//! or is cancelled.
//!
//! Each step is idempotent for the id the engine gives it (derived from the execution
//! and the step): the entity and the document take ids derived from it, the alert and
//! the activity log too, and ending the run twice writes nothing the second time.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::decision::{Decision, Findings, Reason, decide};
use super::input::OnboardingInput;
use super::mapping::{MappingEngine, entity_body};
use crate::activity::model::{ActivityLog, ActivityType, RESERVED_SOURCE};
use crate::alert::model::{NewAlert, ONBOARDING_REFERRED};
use crate::automation::execution::{Execution, ExecutionState};
use crate::document::verification::Outcome;
use crate::document::{DocumentHolder, DocumentService};
use crate::entity::EntityService;
use crate::entity::model::{RiskLevel, ScreeningStatus};
use crate::error::{Code, Error, Result};
use crate::event::NewEvent;
use crate::form::FormService;
use crate::form::model::FormState;
use crate::form_definition::model::FieldType;
use crate::id::derived_request_id;
use crate::job::JobService;
use crate::job::kind::JobFamily;
use crate::job::model::JobRecord;
use crate::job::onboarding::{ONBOARD_AUTOMATION, OnboardingJobs};
use crate::job::ports::JobRepository;
use crate::job::records::RunRecords;
use crate::methods::{CreateMethod, UpdateMethod};
use crate::principal::{Principal, TenantId};
use crate::time::{Clock, Timestamp};

/// The event type that tells the job's `webhookUri` the decision.
pub const DECIDED_EVENT: &str = "onboard_individual_entity_job.decided";

/// What a DECIDE_ONBOARDING step reads: the job, its run, and what the steps before
/// it found (empty text for what a step did not find).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DecideArgs {
    /// The job, its name.
    pub job: String,
    /// The run's operation, its name.
    pub operation: String,
    /// The entity the journey made or updated.
    pub entity: String,
    /// The identity document stored from the form, if any.
    pub document: String,
    /// The document verification's outcome (`PASSED`, `FAILED`).
    pub document_outcome: String,
    /// The screen's status (`CLEAR`, `POTENTIAL_MATCH`, ...).
    pub screening_status: String,
    /// The rating's level.
    pub risk_level: String,
    /// The screening job, its name.
    pub screening_job: String,
    /// The rating job, its name.
    pub rating_job: String,
}

/// What an onboarding decided: the job's `result`, the run's response, and the
/// payload of its activity log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OnboardingResult {
    /// APPROVED, REFER or REJECTED.
    pub decision: Decision,
    /// Why, never empty.
    pub reasons: Vec<Reason>,
    /// The entity the journey made or updated, `entities/{entity}`.
    pub entity: String,
    /// The identity document stored from the form, `documents/{document}`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub document: String,
    /// The screening job, `entities/{entity}/pepSanctionIndividualEntityJobs/{job}`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub screening_job: String,
    /// The risk rating job.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub rating_job: String,
    /// The alert `alertTypes/onboarding-referred` raised for a REFER.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alert: Option<String>,
    /// The activity log that records the decision.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub activity_log: String,
    /// When the decision was made.
    pub decide_time: Timestamp,
}

/// The use cases the journey's own steps act through.
pub struct Journey {
    /// The onboarding jobs' service: ends their runs.
    pub jobs: Arc<JobService>,
    /// The stored jobs: reads a job, records the entity its run made.
    pub job_store: Arc<dyn JobRepository>,
    /// The submitted forms.
    pub forms: Arc<FormService>,
    /// Creates or updates the entity, validated as the API validates it.
    pub entities: Arc<EntityService>,
    /// Stores the identity document.
    pub documents: Arc<DocumentService>,
    /// The alert and the activity log, idempotent by id.
    pub records: Arc<dyn RunRecords>,
    /// Evaluates the job's mapping.
    pub engine: Arc<dyn MappingEngine>,
    /// Whether an identity resting on a document alone (the built-in hosted capture,
    /// which stores the selfie but does not compare it) may be APPROVED; otherwise such
    /// an onboarding ends in REFER.
    pub accept_document_only: bool,
    /// The time.
    pub clock: Arc<dyn Clock>,
}

/// The last segment of a resource name.
fn last_segment(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// An id derived from a step's `id` for a second record of the same step.
fn derived_id(id: &str, suffix: &str) -> String {
    format!("{}-{suffix}", &id[..id.len().min(50)])
}

impl Journey {
    /// The onboarding job `name`.
    async fn job(&self, tenant: &TenantId, name: &str) -> Result<JobRecord> {
        let collection = OnboardingJobs::COLLECTION;
        if !name.contains(&format!("/{collection}/")) {
            return Err(Error::new(
                Code::InvalidArgument,
                "INVALID_STEP_ARGUMENT",
                format!("'{name}' is not an onboarding job"),
            ));
        }
        self.job_store
            .get(tenant, collection, last_segment(name))
            .await?
            .ok_or_else(|| Error::not_found(name))
    }

    /// MAP_ONBOARDING: maps the submitted response of `form` with the job's JSONata
    /// expression to an entity body, creates the entity (id `id`) for a job created at
    /// `entities/-`, records it as the entity the job made and names it as the form's
    /// entity (so that its erasure erases the form's answers), or updates the job's
    /// entity; stores the identity document of the form's first DOCUMENT answer (id
    /// `id`). Returns `{entity, document, hasDocument}`.
    ///
    /// # Errors
    /// FAILED_PRECONDITION `FORM_NOT_SUBMITTED`; `JSONATA_EVALUATION_FAILED` naming
    /// `job.jsonataExpression`; INVALID_ARGUMENT `MAPPED_ENTITY_INVALID` naming every
    /// path of the mapped entity that the entities API refuses (no entity is made).
    pub async fn map(
        &self,
        principal: &Principal,
        id: &str,
        job_name: &str,
        form_name: &str,
    ) -> Result<Value> {
        let mut job = self.job(&principal.tenant, job_name).await?;
        let input: OnboardingInput = serde_json::from_value(job.input.clone())
            .map_err(|e| Error::internal(format!("stored onboarding input: {e}")))?;
        let form = self.forms.get(principal, last_segment(form_name)).await?;
        if form.state != FormState::Submitted {
            return Err(Error::failed_precondition(
                "FORM_NOT_SUBMITTED",
                format!("'{}' is not submitted", form.name),
            ));
        }
        let response = form.response.clone().unwrap_or_default();
        let mapping = input.mapping(self.engine.as_ref())?;
        let body = entity_body(mapping.as_ref(), &response)?;
        let entity_id = match job.subject().map(str::to_owned) {
            Some(entity_id) => {
                let mask: Vec<&str> = body
                    .as_object()
                    .map(|b| b.keys().map(String::as_str))
                    .into_iter()
                    .flatten()
                    .filter(|key| *key != "entityType")
                    .collect();
                if !mask.is_empty() {
                    let mask = mask.join(",");
                    self.entities
                        .update(principal, &entity_id, body.clone(), Some(&mask))
                        .await
                        .map_err(mapped_entity_invalid)?;
                }
                entity_id
            }
            None => {
                match self
                    .entities
                    .create(
                        principal,
                        body.clone(),
                        Some(id),
                        Some(&derived_request_id(id, "entity")),
                    )
                    .await
                {
                    Ok(_) => {}
                    Err(error) if error.code == Code::AlreadyExists => {}
                    Err(error) => return Err(mapped_entity_invalid(error)),
                }
                let expected = job.revision;
                job.made_entity_id = Some(id.to_owned());
                job.revision += 1;
                job.update_time = self.clock.now();
                self.job_store
                    .update(&principal.tenant, &job, expected, &[])
                    .await?;
                // The form holds the person's answers: it is about the entity made
                // from them, and goes with its erasure.
                self.forms
                    .attach_entity(
                        principal,
                        last_segment(form_name),
                        &format!("entities/{id}"),
                    )
                    .await?;
                id.to_owned()
            }
        };
        let entity = format!("entities/{entity_id}");
        let schema = self.forms.schema_of(principal, &form).await?;
        let document_answer = schema
            .steps
            .iter()
            .flat_map(|step| step.fields.iter())
            .filter(|field| field.field_type == FieldType::Document)
            .find_map(|field| response.get(&field.key).and_then(Value::as_object));
        let mut output = Map::new();
        output.insert("entity".into(), json!(entity));
        output.insert("hasDocument".into(), json!(document_answer.is_some()));
        if let Some(answer) = document_answer {
            let individual = &body["individual"];
            let text = |value: &Value| value.as_str().map(str::to_owned);
            let holder = DocumentHolder {
                given_name: text(&individual["legalName"]["givenName"]),
                family_name: text(&individual["legalName"]["familyName"]),
                date_of_birth: text(&individual["dateOfBirth"]),
            };
            let document = self
                .documents
                .create_from_answer(principal, &entity, answer, &holder, id)
                .await
                .map_err(|error| error.within("document"))?;
            output.insert("document".into(), json!(document));
        }
        Ok(Value::Object(output))
    }

    /// DECIDE_ONBOARDING: decides by the default rules on what the journey found,
    /// raises `alertTypes/onboarding-referred` for a REFER, writes an IDENTITY_CHECK
    /// activity log, and ends the job's run with the result, telling the job's
    /// `webhookUri` (event `onboard_individual_entity_job.decided`, the job as its
    /// object) in the same transaction. Returns the result.
    ///
    /// # Errors
    /// What the records and the job's store fail with.
    pub async fn decide(
        &self,
        principal: &Principal,
        id: &str,
        args: &DecideArgs,
    ) -> Result<Value> {
        let job = self.job(&principal.tenant, &args.job).await?;
        let input: OnboardingInput = serde_json::from_value(job.input.clone())
            .map_err(|e| Error::internal(format!("stored onboarding input: {e}")))?;
        let findings = Findings {
            document: Outcome::parse(&args.document_outcome).unwrap_or(Outcome::Unspecified),
            screening: ScreeningStatus::parse(&args.screening_status)
                .unwrap_or(ScreeningStatus::Unspecified),
            risk: RiskLevel::parse(&args.risk_level).unwrap_or(RiskLevel::Unspecified),
            document_only: true,
            accept_document_only: self.accept_document_only,
        };
        let (decision, reasons) = decide(findings);
        let now = self.clock.now();
        let entity_id = last_segment(&args.entity).to_owned();
        let alert = if decision == Decision::Refer {
            let description = reasons
                .iter()
                .map(|r| r.message.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            let alert = NewAlert {
                alert_type: format!("alertTypes/{ONBOARDING_REFERRED}"),
                entities: vec![args.entity.clone()],
                title: "An onboarding awaits an analyst's decision".to_owned(),
                description,
                details: Map::from_iter([
                    ("job".to_owned(), json!(args.job)),
                    ("reasons".to_owned(), json!(reasons)),
                ]),
                ..NewAlert::default()
            };
            let raised = self
                .records
                .alert(principal, &derived_id(id, "alert"), &args.job, alert)
                .await?;
            Some(raised.name)
        } else {
            None
        };
        let mut result = OnboardingResult {
            decision,
            reasons,
            entity: args.entity.clone(),
            document: args.document.clone(),
            screening_job: args.screening_job.clone(),
            rating_job: args.rating_job.clone(),
            alert,
            activity_log: String::new(),
            decide_time: now,
        };
        let payload = match serde_json::to_value(&result) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        };
        let log = ActivityLog {
            activity_type: ActivityType::IdentityCheck,
            source: RESERVED_SOURCE.to_owned(),
            entity_names: vec![args.entity.clone()],
            description: format!("Onboarding {}: {}", result.decision.as_str(), job.name()),
            payload: Some(payload),
            ..ActivityLog::default()
        };
        let log = self
            .records
            .log(principal, &derived_id(id, "log"), log)
            .await?;
        result.activity_log = log.name;
        let value = serde_json::to_value(&result).map_err(|e| Error::internal(e.to_string()))?;
        let webhook_uri = input.webhook_uri.clone();
        let event_id = derived_request_id(id, "decided");
        let decider = principal.clone();
        let decided = move |ended: &JobRecord| {
            let event = NewEvent::new(
                event_id.clone(),
                DECIDED_EVENT,
                &ended.name(),
                &decider,
                now,
            )
            .with_field("object", ended.to_json())
            .deliver_to(webhook_uri.clone());
            vec![match ended.subject() {
                Some(entity) => event.for_entity(entity),
                None => event.for_entity(&entity_id),
            }]
        };
        self.jobs
            .end_run(
                &principal.tenant,
                &args.operation,
                Ok(value.clone()),
                &decided,
            )
            .await?;
        Ok(value)
    }

    /// Ends the job's run when the journey's execution ended without deciding: FAILED
    /// with the execution's error (code 1, CANCELLED, for a cancel), the run's form
    /// expired if it is still a draft, so its link ends too. Does nothing for an
    /// execution of another automation, one still going, or one that succeeded (its
    /// DECIDE_ONBOARDING step ended the run).
    ///
    /// # Errors
    /// What the job's store fails with.
    pub async fn execution_ended(&self, tenant: &TenantId, execution: &Execution) -> Result<()> {
        if execution.automation_id != ONBOARD_AUTOMATION
            || !matches!(
                execution.state,
                ExecutionState::Failed | ExecutionState::Cancelled
            )
        {
            return Ok(());
        }
        let Some(operation) = execution
            .input_parameters
            .get("operation")
            .and_then(Value::as_str)
        else {
            return Ok(());
        };
        let (code, message) = match &execution.error {
            _ if execution.state == ExecutionState::Cancelled => (
                Code::Cancelled,
                format!(
                    "the onboarding's journey '{}' was cancelled",
                    execution.name()
                ),
            ),
            Some(error) => (
                Code::ALL
                    .into_iter()
                    .find(|code| code.number() == error.code)
                    .unwrap_or(Code::Unknown),
                error.message.clone(),
            ),
            None => (
                Code::Unknown,
                format!("the onboarding's journey '{}' failed", execution.name()),
            ),
        };
        let reason = if code == Code::Cancelled {
            "JOURNEY_CANCELLED"
        } else {
            "JOURNEY_FAILED"
        };
        // The link ends with the journey: its form, if still a draft, expires.
        if let Some(form) = execution
            .input_parameters
            .get("form")
            .and_then(Value::as_str)
        {
            let worker = crate::job::model::worker_principal(tenant);
            match self.forms.expire(&worker, last_segment(form), None).await {
                Ok(_) => {}
                Err(error) if matches!(error.code, Code::FailedPrecondition | Code::NotFound) => {}
                Err(error) => return Err(error),
            }
        }
        let error = Error::new(code, reason, message).with_metadata("execution", execution.name());
        self.jobs
            .end_run(tenant, operation, Err(error), &|_| Vec::new())
            .await?;
        Ok(())
    }
}

/// The error of a mapped entity the entities API refused: INVALID_ARGUMENT
/// `MAPPED_ENTITY_INVALID`, its message naming each refused path, so the run's error
/// says what to fix in the mapping. Other errors pass unchanged.
fn mapped_entity_invalid(error: Error) -> Error {
    if error.code != Code::InvalidArgument {
        return error;
    }
    let problems: Vec<String> = if error.field_violations.is_empty() {
        vec![error.message.clone()]
    } else {
        error
            .field_violations
            .iter()
            .map(|v| format!("{}: {}", v.field, v.description))
            .collect()
    };
    let mut mapped = Error::new(
        Code::InvalidArgument,
        "MAPPED_ENTITY_INVALID",
        format!(
            "the entity that 'job.jsonataExpression' mapped from the form is invalid: {}",
            problems.join("; ")
        ),
    )
    .with_metadata("field", "job.jsonataExpression");
    mapped.field_violations = error.field_violations;
    mapped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_mapped_entity_names_each_path_in_its_message() {
        let refused = Error::invalid_field(
            "entity.individual.dateOfBirth",
            "DATE_TOO_EARLY",
            "must be after 1900",
        );
        let error = mapped_entity_invalid(refused);
        assert_eq!(error.code, Code::InvalidArgument);
        assert_eq!(error.reason, "MAPPED_ENTITY_INVALID");
        assert!(
            error
                .message
                .contains("entity.individual.dateOfBirth: must be after 1900"),
            "{}",
            error.message
        );
        assert_eq!(error.field_violations.len(), 1);
        let unavailable = Error::unavailable("DOWN", "the store is down");
        assert_eq!(mapped_entity_invalid(unavailable).reason, "DOWN");
    }

    #[test]
    fn derived_ids_stay_ids() {
        let id = crate::automation::engine::step_id("uid", "decide");
        for suffix in ["alert", "log"] {
            let derived = derived_id(&id, suffix);
            assert!(crate::id::is_well_formed_id(&derived), "{derived}");
            assert_ne!(derived, id);
        }
    }
}
