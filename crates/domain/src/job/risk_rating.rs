//! Risk rating jobs (`entities/{entity}/individualEntityRiskRatingJobs`): a run rates
//! the individual with the tenant's risk model (the newest version, or the one the job
//! names) and records the rating as `:evaluate` does: a RISK_RATING activity log with
//! the input and the result, the entity's `riskDetails`, and an "Enhanced Due
//! Diligence Required" alert when the level rises to High. The records take ids
//! derived from the run, so a run repeated after a crash writes each once.

use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::kind::{JobFamily, NoRunInput, Run, RunRequest, retry_unless_final};
use super::model::worker_principal;
use crate::entity::Entity;
use crate::error::Result;
use crate::principal::Principal;
use crate::risk::model::parse_version;
use crate::risk::rating::Rating;
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

/// What a rating found: the rating, and the records it wrote.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RiskRatingResult {
    /// The rating: `riskScore`, `riskLevel`, the `contributions` whose points sum
    /// exactly to the score, and the `modelVersion` that rated.
    #[serde(flatten)]
    pub rating: Rating,
    /// The RISK_RATING activity log holding the input and the rating.
    pub activity_log: String,
    /// The "Enhanced Due Diligence Required" alert, when the level rose to High.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alert: Option<String>,
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
impl JobFamily for RiskRatingJobs {
    const COLLECTION: &'static str = "individualEntityRiskRatingJobs";
    const EVENT_PREFIX: &'static str = "risk_rating_job";
    const OPERATION_TYPE: &'static str = "rics.v1alpha.IndividualEntityRiskRatingJob";

    type Input = RiskRatingInput;
    type RunRequest = RunRequest;
    type RunInput = NoRunInput;
    type Output = RiskRatingResult;

    async fn check_input(
        &self,
        principal: &Principal,
        _entity_id: &str,
        mut input: RiskRatingInput,
    ) -> Result<RiskRatingInput> {
        if let Some(version) = &input.model_version {
            let number = parse_version("job.modelVersion", version)?;
            let model = self
                .evaluator
                .models()
                .get(principal, "job.modelVersion", &number.to_string())
                .await?;
            input.model_version = Some(model.name);
        }
        Ok(input)
    }

    fn admits(&self, entity: &Entity) -> Result<()> {
        crate::risk::evaluation::require_individual(entity)
    }

    async fn execute(&self, run: Run<'_, Self>) -> Result<RiskRatingResult> {
        let (job, task) = (run.job, run.task);
        let worker = worker_principal(&task.tenant);
        let job_name = job.name();
        let rating_run = RatingRun {
            job: &job_name,
            operation: &task.operation_name,
            task_id: &task.id,
            records: run.records,
        };
        let evaluated = self
            .evaluator
            .evaluate(
                &worker,
                &job.entity_id,
                run.input.model_version.as_deref(),
                Some(rating_run),
            )
            .await
            .map_err(retry_unless_final)?;
        Ok(RiskRatingResult {
            rating: evaluated.rating,
            activity_log: evaluated.log.name,
            alert: evaluated.alert.map(|alert| alert.name),
        })
    }
}
