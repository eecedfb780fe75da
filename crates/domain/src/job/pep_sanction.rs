//! PEP and sanctions screening jobs (`entities/{entity}/pepSanctionIndividualEntityJobs`):
//! a run screens the entity's names, date of birth and nationalities against the
//! loaded lists, stores the matches with their explanations and the list versions
//! used, sets the entity's `screeningStatus`, writes a PEP_AND_SANCTIONS activity log
//! and, when anything matched, raises a "PEP and Sanctions Match Found" alert. The log
//! and the alert take ids derived from the run, so a run repeated after a crash writes
//! each once.

use std::collections::BTreeSet;
use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::dismissals::{DismissalRepository, is_dismissed, record_hash};
use super::kind::{JobFamily, Run, RunRequest, retry_unless_final};
use super::model::worker_principal;
use super::records::{EntityOutput, OutputCause};
use crate::activity::model::{ActivityLog, ActivityType};
use crate::alert::model::{NewAlert, PEP_AND_SANCTIONS_MATCH_FOUND};
use crate::entity::model::{Entity, EntityType, Gender, ScreeningStatus};
use crate::entity::repository::EntityRepository;
use crate::error::{Error, Result};
use crate::principal::Principal;
use crate::resource::to_json;
use crate::screen::{ListVersionInfo, ScreenMatch, ScreenRequest, Screener};
use crate::time::{Clock, Timestamp};

/// The default score a match needs.
pub const DEFAULT_THRESHOLD: f64 = 0.7;

/// The inputs of a screening job.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PepSanctionInput {
    /// The datasets to screen against (`ofac_sdn`, `un_consolidated`, ...); empty or
    /// absent: every loaded one.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub datasets: Vec<String>,
    /// The score a match needs, more than 0 and at most 1; default 0.7.
    #[serde(default)]
    pub threshold: Option<f64>,
}

crate::proto_enum! {
    /// Why rics itself ran a screen (ongoing monitoring); a run an API caller started
    /// has none.
    pub enum ScreenReason("SCREEN_REASON_UNSPECIFIED") {
        /// A list the entity is screened against changed: the run alerts only on a
        /// match with a record the change added or changed.
        ListChange = "LIST_CHANGE",
        /// The entity's names, date of birth or nationalities changed.
        EntityChange = "ENTITY_CHANGE",
    }
}

/// What a run that rics starts carries: why, and for a list change the matches
/// (ids as [`ScreenMatch::id_for`] makes them) that are new to the entity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScreenTrigger {
    /// Why the run was started.
    pub reason: ScreenReason,
    /// The records of the change (`{dataset}:{id}`); empty for an entity change.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub records: Vec<String>,
}

impl ScreenTrigger {
    /// Whether a match with `id` raises an alert in this run: any match, except in a
    /// list change's run, where only a match with a record the change added or
    /// changed does (the others were alerted, or not, before).
    fn alerts_on(&self, id: &str) -> bool {
        self.reason != ScreenReason::ListChange || self.records.iter().any(|r| r == id)
    }
}

/// What a screen found: the job's `result`, and (without `activityLog` and `alert`)
/// the payload of its PEP_AND_SANCTIONS activity log.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PepSanctionResult {
    /// POTENTIAL_MATCH when any list entry matched that an analyst had not dismissed
    /// for this entity before (as it is listed now), else CLEAR.
    pub status: ScreeningStatus,
    /// The entity's names that were screened, each once.
    pub screened_names: Vec<String>,
    /// The score a match needed.
    pub threshold: f64,
    /// The list entries that matched, best first.
    pub matches: Vec<ScreenMatch>,
    /// The version of every list screened against.
    pub list_versions: Vec<ListVersionInfo>,
    /// When the screen ran.
    pub screen_time: Timestamp,
    /// Why rics ran it (ongoing monitoring); absent for a run an API caller started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<ScreenReason>,
    /// The PEP_AND_SANCTIONS activity log that records the screen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activity_log: Option<String>,
    /// The "PEP and Sanctions Match Found" alert, when anything matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alert: Option<String>,
}

/// PEP and sanctions screening of individuals (and of organisations, against
/// organisation entries).
#[derive(derive_new::new)]
pub struct PepSanctionJobs {
    screener: Arc<dyn Screener>,
    entities: Arc<dyn EntityRepository>,
    dismissals: Arc<dyn DismissalRepository>,
    clock: Arc<dyn Clock>,
}

impl PepSanctionJobs {
    /// Refuses datasets that are not loaded or are listed twice.
    async fn check_datasets(&self, datasets: &[String]) -> Result<()> {
        let loaded: BTreeSet<String> = self
            .screener
            .lists()
            .await?
            .into_iter()
            .map(|list| list.dataset)
            .collect();
        let mut seen = BTreeSet::new();
        for (i, dataset) in datasets.iter().enumerate() {
            if !loaded.contains(dataset) {
                return Err(Error::invalid_field(
                    format!("job.datasets[{i}]"),
                    "UNKNOWN_DATASET",
                    format!(
                        "'{dataset}' is not a loaded list (loaded: {})",
                        loaded.iter().cloned().collect::<Vec<_>>().join(", ")
                    ),
                ));
            }
            if !seen.insert(dataset) {
                return Err(Error::invalid_field(
                    format!("job.datasets[{i}]"),
                    "DUPLICATE_DATASET",
                    format!("'{dataset}' is listed twice"),
                ));
            }
        }
        Ok(())
    }
}

#[async_trait]
impl JobFamily for PepSanctionJobs {
    const COLLECTION: &'static str = "pepSanctionIndividualEntityJobs";
    const EVENT_PREFIX: &'static str = "pep_sanction_job";
    const OPERATION_TYPE: &'static str = "rics.v1alpha.PepSanctionIndividualEntityJob";

    type Input = PepSanctionInput;
    type RunRequest = RunRequest;
    type RunInput = ScreenTrigger;
    type Output = PepSanctionResult;

    async fn check_input(
        &self,
        _principal: &Principal,
        _entity_id: &str,
        mut input: PepSanctionInput,
    ) -> Result<PepSanctionInput> {
        let threshold = input.threshold.unwrap_or(DEFAULT_THRESHOLD);
        if !(threshold > 0.0 && threshold <= 1.0) {
            return Err(Error::invalid_field(
                "job.threshold",
                "OUT_OF_RANGE",
                "must be more than 0 and at most 1",
            ));
        }
        input.threshold = Some(threshold);
        if !input.datasets.is_empty() {
            self.check_datasets(&input.datasets).await?;
        }
        Ok(input)
    }

    async fn execute(&self, run: Run<'_, Self>) -> Result<PepSanctionResult> {
        let (job, task) = (run.job, run.task);
        let name = format!("entities/{}", job.entity_id);
        let entity = self
            .entities
            .get(&task.tenant, &job.entity_id)
            .await?
            .ok_or_else(|| Error::not_found(&name))?;
        if entity.is_deleted() {
            return Err(crate::lifecycle::deleted(&name));
        }
        let request = screen_request(
            &entity,
            &run.input.datasets,
            run.input.threshold.unwrap_or(DEFAULT_THRESHOLD),
        );
        let mut outcome = self.screener.screen(&request).await?;
        let dismissals = self
            .dismissals
            .of_entity(&task.tenant, &job.entity_id)
            .await?;
        for found in &mut outcome.matches {
            let hash = record_hash(&to_json(&found.record)?);
            found.previously_dismissed =
                is_dismissed(&dismissals, &found.dataset, &found.list_entry, &hash);
        }
        let open = outcome
            .matches
            .iter()
            .filter(|m| !m.previously_dismissed)
            .count();
        let status = if open == 0 {
            ScreeningStatus::Clear
        } else {
            ScreeningStatus::PotentialMatch
        };
        let cause = OutputCause {
            field: "job",
            name: job.name(),
        };
        run.records
            .entity_output(
                &task.tenant,
                entity.clone(),
                EntityOutput::ScreeningStatus(status),
                cause,
            )
            .await
            .map_err(retry_unless_final)?;
        let worker = worker_principal(&task.tenant);
        let result_id = format!("screening-{}", task.id);
        let description = summary(&entity, &outcome.matches, request.threshold);
        let mut result = PepSanctionResult {
            status,
            screened_names: request.names,
            threshold: request.threshold,
            matches: outcome.matches,
            list_versions: outcome.list_versions,
            screen_time: self.clock.now(),
            reason: run.run_input.as_ref().map(|trigger| trigger.reason),
            activity_log: None,
            alert: None,
        };
        let log = ActivityLog {
            activity_type: ActivityType::PepAndSanctions,
            entity_names: vec![name.clone()],
            payload: to_json(&result)?.as_object().cloned(),
            description: description.clone(),
            ..ActivityLog::default()
        };
        let log = run
            .records
            .log(&worker, &result_id, log)
            .await
            .map_err(retry_unless_final)?;
        let alerting = |m: &&ScreenMatch| {
            !m.previously_dismissed
                && run
                    .run_input
                    .as_ref()
                    .is_none_or(|trigger| trigger.alerts_on(&m.id))
        };
        if let Some(best) = result.matches.iter().find(alerting) {
            let details = json!({
                "job": job.name(),
                "operation": task.operation_name,
                "activityLog": log.name,
                "bestMatch": {"listEntry": best.list_entry, "dataset": best.dataset,
                              "matchedName": best.matched_name, "score": best.score},
                "matchCount": open,
            });
            let new = NewAlert {
                alert_type: format!("alertTypes/{PEP_AND_SANCTIONS_MATCH_FOUND}"),
                entities: vec![name.clone()],
                title: format!("PEP and Sanctions Match Found: {}", entity.display_name)
                    .chars()
                    .take(200)
                    .collect(),
                description,
                details: details.as_object().cloned().unwrap_or_default(),
                ..NewAlert::default()
            };
            let alert = run
                .records
                .alert(&worker, &result_id, &job.name(), new)
                .await
                .map_err(retry_unless_final)?;
            result.alert = Some(alert.name);
        }
        result.activity_log = Some(log.name);
        Ok(result)
    }
}

/// One sentence on what a screen found, for the activity log and the alert.
fn summary(entity: &Entity, matches: &[ScreenMatch], threshold: f64) -> String {
    match matches.first() {
        None => format!(
            "No list entry matched '{}' at a score of {threshold} or more.",
            entity.display_name
        ),
        Some(best) => format!(
            "{} list entr{} matched '{}' at a score of {threshold} or more; the best is '{}' ({} {}, score {:.2}).",
            matches.len(),
            if matches.len() == 1 { "y" } else { "ies" },
            entity.display_name,
            best.matched_name,
            best.dataset,
            best.list_entry,
            best.score
        ),
    }
}

/// What the entity gives the screen against `datasets` (empty: every loaded one) at
/// `threshold`: every name (display, legal, other and trading names), and for
/// individuals the date of birth, nationalities and gender.
pub(crate) fn screen_request(
    entity: &Entity,
    datasets: &[String],
    threshold: f64,
) -> ScreenRequest {
    let mut names = vec![entity.display_name.clone()];
    let mut request = ScreenRequest {
        organisation: !matches!(
            entity.entity_type,
            EntityType::Individual | EntityType::Unspecified
        ),
        datasets: datasets.to_vec(),
        threshold,
        ..ScreenRequest::default()
    };
    if let Some(individual) = &entity.individual {
        for person in individual.legal_name.iter().chain(&individual.other_names) {
            names.push(person.full());
        }
        request.date_of_birth = individual.date_of_birth.map(|d| d.to_string());
        request.nationalities = individual
            .nationalities
            .iter()
            .map(|c| c.as_str().to_owned())
            .collect();
        request.gender = match individual.gender {
            Gender::Male => Some("MALE".into()),
            Gender::Female => Some("FEMALE".into()),
            _ => None,
        };
    }
    if let Some(company) = &entity.company {
        names.push(company.legal_name.clone());
    }
    for party in [&entity.trust, &entity.partnership, &entity.sole_proprietor]
        .into_iter()
        .flatten()
    {
        names.push(party.legal_name.clone());
        names.push(party.trading_name.clone());
    }
    let mut seen = BTreeSet::new();
    names.retain(|n| !n.trim().is_empty() && seen.insert(n.to_lowercase()));
    request.names = names;
    request
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::screen::{ListedRecord, MatchCategory};

    fn person() -> Entity {
        serde_json::from_value(json!({
            "displayName": "Jane Doe",
            "entityType": "INDIVIDUAL",
            "individual": {
                "legalName": {"givenName": "Jane", "middleNames": "Q", "familyName": "Doe"},
                "otherNames": [{"givenName": "Janet", "familyName": "Doe"}, {"givenName": "jane", "familyName": "doe"}],
                "dateOfBirth": "1980-04",
                "nationalities": ["GB", "IE"],
                "gender": "FEMALE"
            }
        }))
        .unwrap()
    }

    #[test]
    fn a_person_is_screened_by_every_name_with_her_evidence() {
        let input = PepSanctionInput {
            datasets: vec!["un_sc".into()],
            threshold: Some(0.8),
        };
        let request = screen_request(&person(), &input.datasets, 0.8);
        assert_eq!(
            request.names,
            ["Jane Doe", "Jane Q Doe", "Janet Doe"],
            "names once each, any case"
        );
        assert!(!request.organisation);
        assert_eq!(request.date_of_birth.as_deref(), Some("1980-04"));
        assert_eq!(request.nationalities, ["GB", "IE"]);
        assert_eq!(request.gender.as_deref(), Some("FEMALE"));
        assert_eq!(
            (request.datasets, request.threshold),
            (vec!["un_sc".to_owned()], 0.8)
        );
    }

    #[test]
    fn a_company_is_screened_as_an_organisation_by_its_names() {
        let company: Entity = serde_json::from_value(json!({
            "displayName": "Acme",
            "entityType": "COMPANY",
            "company": {"legalName": "Acme Trading Ltd"}
        }))
        .unwrap();
        let request = screen_request(&company, &[], DEFAULT_THRESHOLD);
        assert!(request.organisation);
        assert_eq!(request.names, ["Acme", "Acme Trading Ltd"]);
        assert_eq!(request.threshold, DEFAULT_THRESHOLD);
        assert!(request.date_of_birth.is_none() && request.nationalities.is_empty());
    }

    #[test]
    fn the_summary_names_the_best_match() {
        let best = ScreenMatch {
            id: "un_sc:QDi.001".into(),
            list_entry: "QDi.001".into(),
            dataset: "un_sc".into(),
            matched_name: "JANE DOE".into(),
            screened_name: "Jane Doe".into(),
            score: 0.912,
            category: MatchCategory::Sanctions,
            record: ListedRecord {
                dataset: "un_sc".into(),
                id: "QDi.001".into(),
                names: vec!["LEE, Amy".into()],
                dates_of_birth: Vec::new(),
                nationalities: Vec::new(),
                programs: vec!["1267".into()],
                positions: Vec::new(),
                source_url: None,
            },
            explanation: json!({}),
            review: None,
            previously_dismissed: false,
        };
        assert_eq!(
            summary(&person(), &[best.clone(), best], 0.7),
            "2 list entries matched 'Jane Doe' at a score of 0.7 or more; the best is 'JANE DOE' (un_sc QDi.001, score 0.91)."
        );
        assert_eq!(
            summary(&person(), &[], 0.7),
            "No list entry matched 'Jane Doe' at a score of 0.7 or more."
        );
    }
}
