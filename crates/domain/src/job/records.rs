//! Where job runs (and ratings) record what they found: one narrow port for the
//! activity log, the alert and the entity's output-only status field a run writes, so
//! every family is unit-tested against a mock of it, and [`ServiceRecords`], the
//! implementation over the activity log and alert services and the entity's
//! [`OutputWriter`].

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::json;

use crate::activity::ActivityLogService;
use crate::activity::model::ActivityLog;
use crate::alert::AlertService;
use crate::alert::model::{Alert, Disposition, NewAlert, ResolveRequest};
use crate::entity::model::{
    Entity, Individual, PersonName, RiskDetails, ScreeningStatus, VerificationStatus,
};
use crate::entity::output::OutputWriter;
use crate::error::Result;
use crate::principal::{Principal, TenantId};
use crate::values::PartialDate;

/// An output-only field of an entity that a run sets.
#[derive(Debug, Clone, PartialEq)]
pub enum EntityOutput {
    /// `screeningStatus`, set by screening.
    ScreeningStatus(ScreeningStatus),
    /// `verificationStatus`, set by document verification.
    VerificationStatus(VerificationStatus),
    /// `riskDetails`, set by a rating unless the entity holds this rating's or a newer
    /// one already.
    RiskDetails(RiskDetails),
    /// Parts of `individual` an identity verification read, filling only those the
    /// individual lacks (names of its `legalName`, its `dateOfBirth`).
    MissingDetails(VerifiedDetails),
}

/// What an identity verification read of a person, to fill what an individual lacks.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VerifiedDetails {
    /// Given name.
    pub given_name: Option<String>,
    /// Middle names.
    pub middle_names: Option<String>,
    /// Family name.
    pub family_name: Option<String>,
    /// Date of birth.
    pub date_of_birth: Option<PartialDate>,
}

impl VerifiedDetails {
    /// The individual `individual` with what it lacks filled in from these details,
    /// and the JSON paths of the fields filled (`individual.legalName.givenName`).
    pub fn fill(&self, individual: &Individual) -> (Individual, Vec<&'static str>) {
        let mut filled = individual.clone();
        let mut paths = Vec::new();
        let mut name = filled.legal_name.clone().unwrap_or_default();
        for (part, given, path) in [
            (
                &mut name.given_name,
                &self.given_name,
                "individual.legalName.givenName",
            ),
            (
                &mut name.middle_names,
                &self.middle_names,
                "individual.legalName.middleNames",
            ),
            (
                &mut name.family_name,
                &self.family_name,
                "individual.legalName.familyName",
            ),
        ] {
            if let Some(given) = given.as_ref().map(|g| g.trim()).filter(|g| !g.is_empty())
                && part.trim().is_empty()
            {
                given.clone_into(part);
                paths.push(path);
            }
        }
        if name != PersonName::default() {
            filled.legal_name = Some(name);
        }
        if filled.date_of_birth.is_none()
            && let Some(date) = self.date_of_birth
        {
            filled.date_of_birth = Some(date);
            paths.push("individual.dateOfBirth");
        }
        (filled, paths)
    }
}

/// What caused an output to change, named in the `entity.updated` event: the field
/// (`job` or `activityLog`) and the resource's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputCause {
    /// `job` or `activityLog`.
    pub field: &'static str,
    /// The job's or the activity log's name.
    pub name: String,
}

/// Records the results of runs and ratings. Every record takes an id the caller
/// derives from the run, so an attempt repeated after a crash records each once.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait RunRecords: Send + Sync {
    /// Writes `log` under the id `id` as `principal`, or returns the log an earlier
    /// attempt wrote under it.
    ///
    /// # Errors
    /// What the activity log service fails with (NOT_FOUND for an entity it names
    /// that is gone, UNAVAILABLE when the store is).
    async fn log(&self, principal: &Principal, id: &str, log: ActivityLog) -> Result<ActivityLog>;

    /// Raises `alert` under the id `id` from `source` (the job or log behind it), or
    /// returns the alert an earlier attempt raised under it.
    ///
    /// # Errors
    /// What the alert service fails with.
    async fn alert(
        &self,
        principal: &Principal,
        id: &str,
        source: &str,
        alert: NewAlert,
    ) -> Result<Alert>;

    /// Sets `output` on the entity `read` (as the run read it; read again after a
    /// lost race). Writes nothing when the entity has the value already.
    ///
    /// # Errors
    /// NOT_FOUND when the entity is gone; ABORTED when it kept changing.
    async fn entity_output(
        &self,
        tenant: &TenantId,
        read: Entity,
        output: EntityOutput,
        cause: OutputCause,
    ) -> Result<()>;

    /// Resolves the alert `alert` (`alerts/{id}`, one a run raised) as
    /// `disposition` on behalf of `principal`; nothing when it is resolved already.
    ///
    /// # Errors
    /// What the alert service fails with (NOT_FOUND, FAILED_PRECONDITION for a deleted
    /// alert, ABORTED).
    async fn resolve_alert(
        &self,
        principal: &Principal,
        alert: &str,
        disposition: Disposition,
        comment: String,
    ) -> Result<()>;
}

/// [`RunRecords`] over the activity log and alert services and the entity store.
#[derive(derive_new::new)]
pub struct ServiceRecords {
    logs: Arc<ActivityLogService>,
    alerts: Arc<AlertService>,
    output: OutputWriter,
}

#[async_trait]
impl RunRecords for ServiceRecords {
    async fn log(&self, principal: &Principal, id: &str, log: ActivityLog) -> Result<ActivityLog> {
        self.logs.record(principal, id, log).await
    }

    async fn alert(
        &self,
        principal: &Principal,
        id: &str,
        source: &str,
        alert: NewAlert,
    ) -> Result<Alert> {
        self.alerts.raise(principal, id, source, alert).await
    }

    async fn entity_output(
        &self,
        tenant: &TenantId,
        read: Entity,
        output: EntityOutput,
        cause: OutputCause,
    ) -> Result<()> {
        let id = read.id().to_owned();
        let field = output.field();
        let cause = (cause.field, json!(cause.name));
        self.output
            .write(tenant, &id, read, field, cause, |entity| {
                output.applied_to(entity)
            })
            .await
            .map(|_| ())
    }

    async fn resolve_alert(
        &self,
        principal: &Principal,
        alert: &str,
        disposition: Disposition,
        comment: String,
    ) -> Result<()> {
        let id = alert.strip_prefix("alerts/").unwrap_or(alert);
        let request = ResolveRequest {
            disposition,
            comment,
            etag: None,
        };
        match self.alerts.resolve(principal, id, &request).await {
            Err(e) if e.reason == "ALERT_ALREADY_RESOLVED" => Ok(()),
            outcome => outcome.map(|_| ()),
        }
    }
}

impl EntityOutput {
    /// The entity's JSON field it sets.
    pub fn field(&self) -> &'static str {
        match self {
            EntityOutput::ScreeningStatus(_) => "screeningStatus",
            EntityOutput::VerificationStatus(_) => "verificationStatus",
            EntityOutput::RiskDetails(_) => "riskDetails",
            EntityOutput::MissingDetails(_) => "individual",
        }
    }

    /// The entity with this output, or `None` when it has it already (or, for a
    /// rating, holds this rating or a newer one).
    pub fn applied_to(&self, entity: &Entity) -> Option<Entity> {
        match self {
            EntityOutput::ScreeningStatus(status) => {
                (entity.screening_status != *status).then(|| Entity {
                    screening_status: *status,
                    ..entity.clone()
                })
            }
            EntityOutput::VerificationStatus(status) => (entity.verification_status != *status)
                .then(|| Entity {
                    verification_status: *status,
                    ..entity.clone()
                }),
            EntityOutput::RiskDetails(details) => {
                let newer = entity.risk_details.as_ref().is_some_and(|held| {
                    held.activity_log == details.activity_log
                        || held.last_rated_time > details.last_rated_time
                });
                (!newer).then(|| Entity {
                    risk_details: Some(details.clone()),
                    ..entity.clone()
                })
            }
            EntityOutput::MissingDetails(details) => {
                let individual = entity.individual.as_ref()?;
                let (filled, paths) = details.fill(individual);
                (!paths.is_empty()).then(|| Entity {
                    individual: Some(filled),
                    ..entity.clone()
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_the_entity_has_writes_nothing() {
        let entity = Entity {
            screening_status: ScreeningStatus::Clear,
            ..Entity::default()
        };
        assert_eq!(
            EntityOutput::ScreeningStatus(ScreeningStatus::Clear).applied_to(&entity),
            None
        );
        let changed = EntityOutput::ScreeningStatus(ScreeningStatus::PotentialMatch)
            .applied_to(&entity)
            .map(|e| e.screening_status);
        assert_eq!(changed, Some(ScreeningStatus::PotentialMatch));
    }

    #[test]
    fn a_rating_never_replaces_itself_or_a_newer_one() {
        let details = |log: &str, seconds: i64| RiskDetails {
            activity_log: log.into(),
            last_rated_time: crate::time::Timestamp::from_unix_micros(seconds * 1_000_000),
            ..RiskDetails::default()
        };
        let entity = Entity {
            risk_details: Some(details("activityLogs/b", 200)),
            ..Entity::default()
        };
        for held in [
            details("activityLogs/b", 100),
            details("activityLogs/a", 100),
        ] {
            assert_eq!(EntityOutput::RiskDetails(held).applied_to(&entity), None);
        }
        let newer = details("activityLogs/c", 300);
        let applied = EntityOutput::RiskDetails(newer.clone()).applied_to(&entity);
        assert_eq!(applied.and_then(|e| e.risk_details), Some(newer));
    }
}
