//! Risk rating jobs (`entities/{entity}/individualEntityRiskRatingJobs`): a run rates
//! the individual with the tenant's risk model (the newest version, or the one the job
//! names) and records the rating as `:evaluate` does: a RISK_RATING activity log with
//! the input and the result, the entity's `riskDetails`, and an "Enhanced Due
//! Diligence Required" alert when the level rises to High. The records take ids
//! derived from the run, so a run repeated after a crash writes each once.

use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::kind::{JobKind, retry_unless_final};
use super::model::{ClaimedTask, JobRecord, worker_principal};
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::principal::Principal;
use crate::resource::parse_body;
use crate::risk::model::parse_version;
use crate::risk::{RatingRun, RiskEvaluator};

/// The inputs of a risk rating job.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RiskRatingInput {
    /// The model version to rate with, `riskModels/{version}`; absent: the tenant's
    /// newest version when the job runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_version: Option<String>,
}

/// Risk rating of individuals.
pub struct RiskRatingJobs {
    evaluator: Arc<RiskEvaluator>,
}

impl RiskRatingJobs {
    /// The family over the evaluator it rates with.
    pub fn new(evaluator: Arc<RiskEvaluator>) -> RiskRatingJobs {
        RiskRatingJobs { evaluator }
    }
}

#[async_trait]
impl JobKind for RiskRatingJobs {
    fn collection(&self) -> &'static str {
        "individualEntityRiskRatingJobs"
    }

    fn event_prefix(&self) -> &'static str {
        "risk_rating_job"
    }

    fn operation_type(&self) -> &'static str {
        "rics.v1alpha.IndividualEntityRiskRatingJob"
    }

    async fn check_input(
        &self,
        principal: &Principal,
        _entity_id: &str,
        input: Value,
    ) -> Result<Value> {
        let mut parsed: RiskRatingInput = parse_body(input, "job")?;
        if let Some(version) = &parsed.model_version {
            let number = parse_version("job.modelVersion", version)?;
            let model = self
                .evaluator
                .models()
                .get(principal, "job.modelVersion", &number.to_string())
                .await?;
            parsed.model_version = Some(model.name);
        }
        serde_json::to_value(&parsed).map_err(|e| Error::internal(e.to_string()))
    }

    fn admits(&self, entity: &Entity) -> Result<()> {
        crate::risk::evaluation::require_individual(entity)
    }

    async fn execute(&self, job: &JobRecord, task: &ClaimedTask) -> Result<Value> {
        let input: RiskRatingInput = serde_json::from_value(job.input.clone())
            .map_err(|e| Error::internal(format!("stored risk rating input: {e}")))?;
        let worker = worker_principal(&task.tenant);
        let job_name = job.name();
        let run = RatingRun {
            job: &job_name,
            operation: &task.operation_name,
            task_id: &task.id,
        };
        let evaluated = self
            .evaluator
            .evaluate(
                &worker,
                &job.entity_id,
                input.model_version.as_deref(),
                Some(run),
            )
            .await
            .map_err(retry_unless_final)?;
        let mut result =
            serde_json::to_value(&evaluated.rating).map_err(|e| Error::internal(e.to_string()))?;
        result["activityLog"] = json!(evaluated.log.name);
        if let Some(alert) = evaluated.alert {
            result["alert"] = json!(alert.name);
        }
        Ok(result)
    }
}
