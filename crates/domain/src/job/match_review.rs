//! Review of screening matches (`:reviewMatch` of a PEP and sanctions job): an
//! analyst decides whether a match is the party (TRUE_POSITIVE) or someone else
//! (FALSE_POSITIVE). The decision is stored on the match in the job's result (a later
//! one replaces it; the events keep both), recorded in a PEP_AND_SANCTIONS activity
//! log, and followed by the entity's `screeningStatus`: CONFIRMED_MATCH when any match
//! is confirmed, CLEAR when every match is dismissed, POTENTIAL_MATCH while any is
//! unreviewed. When every match is reviewed, the job's alert is resolved. A dismissal
//! is remembered for the entity ([`super::dismissals`]); a confirmation forgets it.
//!
//! The decision is stored first; the log, the status and the alert follow it, each
//! written once under an id derived from the job's revision, so a retry of the same
//! review (which stores nothing new) completes what a failure left undone.

use std::sync::{Arc, LazyLock};

use rics_aip::field_mask::{Behavior, FieldKind, FieldTable};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::JobService;
use super::dismissals::{Dismissal, DismissalRepository, record_hash};
use super::model::JobRecord;
use super::records::{EntityOutput, OutputCause, RunRecords};
use crate::activity::model::{ActivityLog, ActivityType};
use crate::alert::model::Disposition;
use crate::entity::model::ScreeningStatus;
use crate::entity::repository::EntityRepository;
use crate::error::{Error, Result};
use crate::principal::Principal;
use crate::screen::{MatchDecision, MatchReview};
use crate::time::Clock;
use crate::validate::{Lines, Violations};

/// The event type of a review.
pub const MATCH_REVIEWED: &str = "pep_sanction_job.match_reviewed";

/// The most characters of a review's reason.
pub const MAX_REASON: usize = 2_000;

/// The body of `:reviewMatch`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReviewMatchRequest {
    /// The match's `id` in the job's result. Required.
    #[serde(
        default,
        rename = "match",
        deserialize_with = "crate::serde_util::null_as_default"
    )]
    pub match_id: String,
    /// What the match is. Required.
    #[serde(default, deserialize_with = "crate::serde_util::null_as_default")]
    pub decision: MatchDecision,
    /// Why, for the record: 1 to 2,000 characters; line breaks allowed. Required.
    #[serde(default, deserialize_with = "crate::serde_util::null_as_default")]
    pub reason: String,
}

/// The fields of the `:reviewMatch` body: all three required (a decision's zero value
/// is not one), the reason may span lines.
pub static REVIEW_TABLE: LazyLock<FieldTable> = LazyLock::new(|| {
    use Behavior::Required;
    use FieldKind::{MultiLineText, Scalar};
    FieldTable::new()
        .field("match", Scalar, Required)
        .field("decision", Scalar, Required)
        .field("reason", MultiLineText, Required)
});

/// The review of screening matches.
#[derive(derive_new::new)]
pub struct MatchReviews {
    jobs: Arc<JobService>,
    entities: Arc<dyn EntityRepository>,
    dismissals: Arc<dyn DismissalRepository>,
    records: Arc<dyn RunRecords>,
    clock: Arc<dyn Clock>,
}

impl MatchReviews {
    /// Records `principal`'s decision on a match of the screening job `job_id` of the
    /// entity, and what follows from it; returns the job.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a bad request or a match that is not in the job's result
    /// (`UNKNOWN_MATCH`); NOT_FOUND for the job or its entity; FAILED_PRECONDITION
    /// when the job has no result; ABORTED when the job changed concurrently.
    pub async fn review(
        &self,
        principal: &Principal,
        entity_id: &str,
        job_id: &str,
        request: &ReviewMatchRequest,
    ) -> Result<Value> {
        let mut v = Violations::new();
        if request.match_id.is_empty() {
            v.add(
                "match",
                "REQUIRED",
                "name a match by its id in the job's result",
            );
        }
        if request.decision.is_unspecified() {
            v.add(
                "decision",
                "REQUIRED",
                "is required: TRUE_POSITIVE or FALSE_POSITIVE",
            );
        }
        v.required_text("reason", &request.reason, MAX_REASON);
        v.control_characters("reason", &request.reason, Lines::Multi);
        v.finish()?;
        let review = MatchReview {
            decision: request.decision,
            reason: request.reason.clone(),
            reviewer: principal.subject.clone(),
            review_time: self.clock.now(),
        };
        let job = self
            .jobs
            .amend(principal, entity_id, job_id, MATCH_REVIEWED, |job| {
                with_review(job, &request.match_id, review)
            })
            .await?;
        self.follow(principal, &job, request).await?;
        Ok(self.jobs.render(&job))
    }

    /// The log, the entity's status and the alert that follow the review of
    /// `request.match_id` in `job`.
    async fn follow(
        &self,
        principal: &Principal,
        job: &JobRecord,
        request: &ReviewMatchRequest,
    ) -> Result<()> {
        let entity_name = format!("entities/{}", job.entity_id);
        let result = job.result.clone().unwrap_or(Value::Null);
        let log = ActivityLog {
            activity_type: ActivityType::PepAndSanctions,
            entity_names: vec![entity_name.clone()],
            payload: json!({
                "job": job.name(),
                "match": request.match_id,
                "decision": request.decision.as_str(),
                "reason": request.reason,
            })
            .as_object()
            .cloned(),
            description: format!(
                "Match {} of {} reviewed as {}: {}",
                request.match_id,
                job.name(),
                request.decision.as_str(),
                request.reason
            )
            .chars()
            .take(crate::activity::log_service::MAX_DESCRIPTION)
            .collect(),
            ..ActivityLog::default()
        };
        let log_id = format!("review-{}-{}", job.id, job.revision);
        self.records.log(principal, &log_id, log).await?;
        self.remember(principal, job, &result, request).await?;
        let status = review_status(&result);
        let entity = self
            .entities
            .get(&principal.tenant, &job.entity_id)
            .await
            .map_err(|e| e.for_resource(&entity_name))?
            .ok_or_else(|| Error::not_found(&entity_name))?;
        self.records
            .entity_output(
                &principal.tenant,
                entity,
                EntityOutput::ScreeningStatus(status),
                OutputCause {
                    field: "job",
                    name: job.name(),
                },
            )
            .await?;
        if status != ScreeningStatus::PotentialMatch
            && let Some(alert) = result.get("alert").and_then(Value::as_str)
        {
            let (disposition, comment) = if status == ScreeningStatus::ConfirmedMatch {
                (Disposition::TruePositive, "A match was confirmed on review")
            } else {
                (
                    Disposition::FalsePositive,
                    "Every match was dismissed on review",
                )
            };
            let comment = format!("{comment} of {}.", job.name());
            self.records
                .resolve_alert(principal, alert, disposition, comment)
                .await?;
        }
        Ok(())
    }
}

impl MatchReviews {
    /// Remembers a dismissed match for the entity, or forgets the entry once it is
    /// confirmed ([`super::dismissals`]).
    async fn remember(
        &self,
        principal: &Principal,
        job: &JobRecord,
        result: &Value,
        request: &ReviewMatchRequest,
    ) -> Result<()> {
        let Some(reviewed) = result
            .get("matches")
            .and_then(Value::as_array)
            .and_then(|matches| {
                matches.iter().find(|m| {
                    m.get("id").and_then(Value::as_str) == Some(request.match_id.as_str())
                })
            })
        else {
            return Ok(());
        };
        let text = |key: &str| {
            reviewed
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let (dataset, list_entry) = (text("dataset"), text("listEntry"));
        let tenant = &principal.tenant;
        match request.decision {
            MatchDecision::FalsePositive => {
                let dismissal = Dismissal {
                    entity_id: job.entity_id.clone(),
                    record_hash: record_hash(reviewed.get("record").unwrap_or(&Value::Null)),
                    dataset,
                    list_entry,
                    job: job.name(),
                    reviewer: principal.subject.clone(),
                    dismiss_time: job.update_time,
                };
                self.dismissals.remember(tenant, &dismissal).await?;
            }
            _ => {
                self.dismissals
                    .forget(tenant, &job.entity_id, &dataset, &list_entry)
                    .await?;
            }
        }
        Ok(())
    }
}

/// The job's result with `review` on the match `match_id`; `None` when the match has
/// that decision and reason already (a retry).
///
/// # Errors
/// INVALID_ARGUMENT `UNKNOWN_MATCH` when the result has no such match.
fn with_review(job: &JobRecord, match_id: &str, review: MatchReview) -> Result<Option<Value>> {
    let mut result = job.result.clone().unwrap_or(Value::Null);
    let found = result
        .get_mut("matches")
        .and_then(Value::as_array_mut)
        .and_then(|matches| {
            matches
                .iter_mut()
                .find(|m| m.get("id").and_then(Value::as_str) == Some(match_id))
        });
    let Some(found) = found else {
        return Err(Error::invalid_field(
            "match",
            "UNKNOWN_MATCH",
            format!(
                "'{match_id}' is not a match in the result of '{}'",
                job.name()
            ),
        ));
    };
    let held: Option<MatchReview> = found
        .get("review")
        .and_then(|r| serde_json::from_value(r.clone()).ok());
    if held.is_some_and(|held| held.decision == review.decision && held.reason == review.reason) {
        return Ok(None);
    }
    found["review"] = serde_json::to_value(&review).map_err(|e| Error::internal(e.to_string()))?;
    Ok(Some(result))
}

/// The screening status a result's reviews give: CONFIRMED_MATCH when any match is
/// confirmed, CLEAR when there is none or every one is dismissed, else
/// POTENTIAL_MATCH.
pub fn review_status(result: &Value) -> ScreeningStatus {
    let decisions: Vec<Option<MatchDecision>> = result
        .get("matches")
        .and_then(Value::as_array)
        .map(|matches| {
            matches
                .iter()
                .map(|m| {
                    m.get("review")
                        .and_then(|r| serde_json::from_value::<MatchReview>(r.clone()).ok())
                        .map(|r| r.decision)
                })
                .collect()
        })
        .unwrap_or_default();
    if decisions.contains(&Some(MatchDecision::TruePositive)) {
        ScreeningStatus::ConfirmedMatch
    } else if decisions
        .iter()
        .all(|d| *d == Some(MatchDecision::FalsePositive))
    {
        ScreeningStatus::Clear
    } else {
        ScreeningStatus::PotentialMatch
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::job::model::JobState;
    use crate::time::Timestamp;

    fn review(decision: MatchDecision, reason: &str) -> MatchReview {
        MatchReview {
            decision,
            reason: reason.into(),
            reviewer: "analyst".into(),
            review_time: Timestamp::from_unix_micros(0).unwrap(),
        }
    }

    fn job_with(matches: Value) -> JobRecord {
        JobRecord {
            id: "job-1".into(),
            family: "pepSanctionIndividualEntityJobs".into(),
            entity_id: "e".into(),
            made_entity_id: None,
            delete_time: None,
            purge_time: None,
            uid: "u".into(),
            revision: 3,
            state: JobState::Succeeded,
            input: json!({}),
            result: Some(json!({"status": "POTENTIAL_MATCH", "matches": matches})),
            latest_operation: None,
            create_time: Timestamp::from_unix_micros(0).unwrap(),
            update_time: Timestamp::from_unix_micros(0).unwrap(),
        }
    }

    #[test]
    fn the_status_follows_the_decisions() {
        let with = |decisions: &[Option<MatchDecision>]| {
            let matches: Vec<Value> = decisions
                .iter()
                .enumerate()
                .map(|(i, d)| match d {
                    Some(d) => json!({"id": format!("m{i}"), "review": review(*d, "r")}),
                    None => json!({"id": format!("m{i}")}),
                })
                .collect();
            review_status(&json!({ "matches": matches }))
        };
        use MatchDecision::{FalsePositive, TruePositive};
        assert_eq!(with(&[]), ScreeningStatus::Clear);
        assert_eq!(with(&[None]), ScreeningStatus::PotentialMatch);
        assert_eq!(
            with(&[Some(FalsePositive), None]),
            ScreeningStatus::PotentialMatch
        );
        assert_eq!(
            with(&[Some(FalsePositive), Some(FalsePositive)]),
            ScreeningStatus::Clear
        );
        assert_eq!(
            with(&[Some(TruePositive), None]),
            ScreeningStatus::ConfirmedMatch,
            "one confirmed match is enough"
        );
        assert_eq!(
            with(&[Some(FalsePositive), Some(TruePositive)]),
            ScreeningStatus::ConfirmedMatch
        );
    }

    #[test]
    fn a_review_lands_on_its_match_and_a_repeat_changes_nothing() {
        let job = job_with(json!([{"id": "un_sc:A"}, {"id": "un_sc:B"}]));
        let dismissed = review(MatchDecision::FalsePositive, "another person");
        let result = with_review(&job, "un_sc:B", dismissed.clone())
            .unwrap()
            .unwrap();
        assert!(result["matches"][0].get("review").is_none());
        assert_eq!(result["matches"][1]["review"]["decision"], "FALSE_POSITIVE");
        let reviewed = JobRecord {
            result: Some(result),
            ..job
        };
        assert_eq!(with_review(&reviewed, "un_sc:B", dismissed).unwrap(), None);
        let confirmed = with_review(
            &reviewed,
            "un_sc:B",
            review(MatchDecision::TruePositive, "same passport"),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            confirmed["matches"][1]["review"]["decision"],
            "TRUE_POSITIVE"
        );
    }

    #[test]
    fn a_match_not_in_the_result_is_refused() {
        let error = with_review(
            &job_with(json!([{"id": "un_sc:A"}])),
            "un_sc:Z",
            review(MatchDecision::FalsePositive, "r"),
        )
        .unwrap_err();
        assert_eq!(error.reason, "UNKNOWN_MATCH");
        assert!(error.message.contains("'un_sc:Z'"), "{}", error.message);
    }
}
