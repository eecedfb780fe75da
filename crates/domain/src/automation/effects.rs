//! The side effects of steps over the tenant's use cases: jobs, forms, entities,
//! alerts and activity logs. Each effect is idempotent for the id it is given (a
//! request id derived from it, an alert or log id, a form id), so a step retried after
//! a crash acts once.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Map, Value, json};

use super::execution::Execution;
use super::ports::{FormStatus, StartedJob, StepEffects};
use crate::activity::model::{ActivityLog, ActivityType};
use crate::alert::model::NewAlert;
use crate::document::{DocumentHolder, DocumentService};
use crate::entity::EntityService;
use crate::entity::repository::EntityRepository;
use crate::error::{Code, Error, Result};
use crate::form::FormService;
use crate::form::model::FormState;
use crate::id::derived_request_id;
use crate::job::JobService;
use crate::job::ports::JobRepository;
use crate::job::records::RunRecords;
use crate::methods::{CreateMethod, UpdateMethod};
use crate::onboarding::journey::{DecideArgs, Journey};
use crate::operation::{OperationError, OperationRepository};
use crate::principal::{Principal, TenantId};
use crate::time::{Clock, Timestamp};
use crate::verification::VerificationService;
use crate::verification::capture::Capture;

/// The family whose output adds `previousRiskLevel` and `riskLevelRose`.
const RATING_FAMILY: &str = "individualEntityRiskRatingJobs";

/// The use cases steps act through.
pub struct ServiceEffects {
    /// The job services, by family collection.
    pub jobs: HashMap<&'static str, Arc<JobService>>,
    /// The job queue, to cancel a queued run.
    pub queue: Arc<dyn JobRepository>,
    /// The runs' operations.
    pub operations: Arc<dyn OperationRepository>,
    /// Forms.
    pub forms: Arc<FormService>,
    /// Identity documents (a DOCUMENT answer becomes one).
    pub documents: Arc<DocumentService>,
    /// Entities (tags, updates).
    pub entities: Arc<EntityService>,
    /// The stored entities (a rating's level before the run).
    pub entity_store: Arc<dyn EntityRepository>,
    /// Alerts and activity logs, idempotent by id.
    pub records: Arc<dyn RunRecords>,
    /// The clock.
    pub clock: Arc<dyn Clock>,
    /// The onboarding journey's own steps.
    pub onboarding: Arc<Journey>,
    /// Completes the built-in identity verification's sessions.
    pub verification: Arc<VerificationService>,
}

/// The last segment of a resource name.
fn last_segment(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// The text of a form answer.
fn text(response: &Map<String, Value>, key: &str) -> Option<String> {
    response
        .get(key)
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
}

#[async_trait]
impl StepEffects for ServiceEffects {
    async fn start_job(
        &self,
        principal: &Principal,
        family: &str,
        entity_id: &str,
        id: &str,
        input: Value,
    ) -> Result<StartedJob> {
        let service = self.jobs.get(family).ok_or_else(|| {
            Error::new(
                Code::InvalidArgument,
                "UNKNOWN_JOB_FAMILY",
                format!("there are no '{family}' jobs"),
            )
        })?;
        let mut before = Map::new();
        if family == RATING_FAMILY {
            let entity = self.entity_store.get(&principal.tenant, entity_id).await?;
            let level = entity
                .and_then(|e| e.risk_details)
                .map(|d| d.risk_level.as_str().to_owned())
                .filter(|level| level != "RISK_LEVEL_UNSPECIFIED");
            before.insert("previousRiskLevel".into(), json!(level));
        }
        let mut body = input;
        let path_entity = if service.job_name(entity_id, "x").starts_with("entities/") {
            Some(entity_id)
        } else {
            if let Some(map) = body.as_object_mut() {
                map.insert("entity".into(), json!(format!("entities/{entity_id}")));
            }
            None
        };
        let job = service
            .create(
                principal,
                path_entity,
                body,
                Some(&derived_request_id(id, "create")),
            )
            .await?;
        let job_name = job
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let run = service.read_run_request(json!({}))?;
        let operation = service
            .run(
                principal,
                path_entity.unwrap_or("-"),
                last_segment(&job_name),
                Some(&derived_request_id(id, "run")),
                run,
            )
            .await?;
        before.insert("job".into(), json!(job_name));
        Ok(StartedJob {
            job: job_name,
            operation: operation.name,
            before,
        })
    }

    async fn job_outcome(
        &self,
        principal: &Principal,
        operation: &str,
    ) -> Result<Option<std::result::Result<Value, OperationError>>> {
        let stored = self
            .operations
            .get(&principal.tenant, operation)
            .await?
            .ok_or_else(|| Error::not_found(operation))?;
        if !stored.done {
            return Ok(None);
        }
        Ok(Some(match (stored.error, stored.response) {
            (Some(error), _) => Err(error),
            (None, Some(job)) => Ok(job.get("result").cloned().unwrap_or(Value::Null)),
            (None, None) => Ok(Value::Null),
        }))
    }

    async fn cancel_job(&self, principal: &Principal, operation: &str) -> Result<()> {
        self.queue
            .cancel_queued(&principal.tenant, operation, self.clock.now())
            .await?;
        Ok(())
    }

    async fn create_form(
        &self,
        principal: &Principal,
        id: &str,
        definition: &str,
        entity_id: Option<String>,
        display_name: Option<String>,
        expire_time: Timestamp,
    ) -> Result<String> {
        let mut body = json!({"formDefinition": definition, "expireTime": expire_time});
        if let Some(entity) = entity_id {
            body["entity"] = json!(format!("entities/{entity}"));
        }
        if let Some(display_name) = display_name {
            body["displayName"] = json!(display_name);
        }
        match self
            .forms
            .create(
                principal,
                body,
                Some(id),
                Some(&derived_request_id(id, "form")),
            )
            .await
        {
            Ok(form) => Ok(form.name),
            Err(error) if error.code == Code::AlreadyExists => Ok(format!("forms/{id}")),
            Err(error) => Err(error),
        }
    }

    async fn form_status(&self, principal: &Principal, form: &str) -> Result<FormStatus> {
        match self.forms.get(principal, last_segment(form)).await {
            Ok(form) => Ok(match form.state {
                FormState::Submitted => FormStatus::Submitted,
                FormState::Draft => FormStatus::Draft,
                _ => FormStatus::Expired,
            }),
            Err(error) if error.code == Code::NotFound => Ok(FormStatus::Expired),
            Err(error) => Err(error),
        }
    }

    async fn expire_form(&self, principal: &Principal, form: &str) -> Result<()> {
        match self.forms.expire(principal, last_segment(form), None).await {
            Ok(_) => Ok(()),
            Err(error) if matches!(error.code, Code::FailedPrecondition | Code::NotFound) => Ok(()),
            Err(error) => Err(error),
        }
    }

    async fn upsert_entity_from_form(
        &self,
        principal: &Principal,
        form: &str,
        entity_id: Option<String>,
        id: &str,
    ) -> Result<Value> {
        let form = self.forms.get(principal, last_segment(form)).await?;
        if form.state != FormState::Submitted {
            return Err(Error::failed_precondition(
                "FORM_NOT_SUBMITTED",
                format!("'{}' is not submitted", form.name),
            ));
        }
        let response = form.response.clone().unwrap_or_default();
        let entity_id = entity_id
            .or_else(|| form.entity.strip_prefix("entities/").map(str::to_owned))
            .ok_or_else(|| {
                Error::failed_precondition(
                    "NO_ENTITY",
                    format!("'{}' names no entity to update", form.name),
                )
            })?;
        let mut name = Map::new();
        for (key, field) in [
            ("given_name", "givenName"),
            ("middle_names", "middleNames"),
            ("family_name", "familyName"),
        ] {
            if let Some(value) = text(&response, key) {
                name.insert(field.into(), json!(value));
            }
        }
        let mut individual = Map::new();
        if !name.is_empty() {
            individual.insert("legalName".into(), Value::Object(name));
        }
        if let Some(date) = text(&response, "date_of_birth") {
            individual.insert("dateOfBirth".into(), json!(date));
        }
        if let Some(country) = text(&response, "nationality") {
            individual.insert("nationalities".into(), json!([country]));
        }
        if let Some(occupation) = text(&response, "occupation") {
            individual.insert("occupation".into(), json!(occupation));
        }
        let mut body = Map::new();
        let mut mask: Vec<String> = individual
            .keys()
            .map(|key| format!("individual.{key}"))
            .collect();
        body.insert("individual".into(), Value::Object(individual));
        if let Some(email) = text(&response, "email") {
            body.insert("contactInfo".into(), json!({"emails": [email]}));
            mask.push("contactInfo.emails".into());
        }
        let entity_name = format!("entities/{entity_id}");
        if !mask.is_empty() {
            self.entities
                .update(
                    principal,
                    &entity_id,
                    Value::Object(body),
                    Some(&mask.join(",")),
                )
                .await?;
        }
        let mut output = Map::new();
        output.insert("entity".into(), json!(entity_name));
        if let Some(Value::Object(answer)) = response.get("identity_document") {
            let holder = DocumentHolder {
                given_name: text(&response, "given_name"),
                family_name: text(&response, "family_name"),
                date_of_birth: text(&response, "date_of_birth"),
            };
            let document = self
                .documents
                .create_from_answer(principal, &entity_name, answer, &holder, id)
                .await?;
            output.insert("document".into(), json!(document));
        }
        Ok(Value::Object(output))
    }

    async fn raise_alert(
        &self,
        principal: &Principal,
        id: &str,
        alert_type: &str,
        entity_id: &str,
        description: &str,
    ) -> Result<String> {
        let alert = NewAlert {
            alert_type: alert_type.to_owned(),
            entities: vec![format!("entities/{entity_id}")],
            title: description.chars().take(200).collect(),
            description: description.to_owned(),
            ..NewAlert::default()
        };
        let alert = self
            .records
            .alert(principal, id, "automation", alert)
            .await?;
        Ok(alert.name)
    }

    async fn add_tag(&self, principal: &Principal, entity_id: &str, tag: &str) -> Result<()> {
        self.entities.add_tag(principal, entity_id, tag).await?;
        Ok(())
    }

    async fn map_onboarding(
        &self,
        principal: &Principal,
        id: &str,
        job: &str,
        form: &str,
    ) -> Result<Value> {
        self.onboarding.map(principal, id, job, form).await
    }

    async fn decide_onboarding(
        &self,
        principal: &Principal,
        id: &str,
        args: &DecideArgs,
    ) -> Result<Value> {
        self.onboarding.decide(principal, id, args).await
    }

    async fn complete_capture(
        &self,
        principal: &Principal,
        session: &str,
        form: &str,
        document: &str,
        document_outcome: &str,
    ) -> Result<Value> {
        let submitted = self.forms.get(principal, last_segment(form)).await?;
        if submitted.state != FormState::Submitted {
            return Err(Error::failed_precondition(
                "FORM_NOT_SUBMITTED",
                format!("'{}' is not submitted", submitted.name),
            ));
        }
        let capture = Capture::of_response(
            last_segment(session),
            form,
            document,
            document_outcome,
            &submitted.response.unwrap_or_default(),
        );
        self.verification
            .complete_capture(&principal.tenant, &capture)
            .await
    }

    async fn execution_ended(&self, tenant: &TenantId, execution: &Execution) -> Result<()> {
        self.onboarding.execution_ended(tenant, execution).await?;
        self.verification.capture_ended(tenant, execution).await
    }

    async fn write_activity_log(
        &self,
        principal: &Principal,
        id: &str,
        entity_id: &str,
        description: &str,
    ) -> Result<String> {
        let log = ActivityLog {
            activity_type: ActivityType::Custom,
            entity_names: vec![format!("entities/{entity_id}")],
            description: description.to_owned(),
            ..ActivityLog::default()
        };
        Ok(self.records.log(principal, id, log).await?.name)
    }
}
