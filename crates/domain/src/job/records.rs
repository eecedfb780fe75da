//! Where job runs (and ratings) record what they found: one narrow port for the
//! activity log, the alert and the entity's output-only status field a run writes, so
//! every family is unit-tested against a mock of it. Two implementations:
//! [`ServiceRecords`] writes each record at once, through the activity log and alert
//! services and the entity's [`OutputWriter`] (a rating by `:evaluate`, a verification
//! session's end); [`StagedRecords`], which the runner hands each run, checks and
//! completes each record the same way but keeps it, so that the run's records are
//! written with its end in one transaction ([`RunEffects`]).

use std::sync::{Arc, Mutex, PoisonError};

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
use crate::repository::Staged;
use crate::resource;
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

/// Checks and completes the records of a run without writing them: what
/// [`StagedRecords`] keeps for the run's end. Each method does what the same method of
/// [`RunRecords`] does before it writes, with the same errors; none reads what an
/// earlier attempt stored, since a run's records are written only with its end.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait RecordPreparer: Send + Sync {
    /// The log `log` as [`RunRecords::log`] would write it under `id`, with its event.
    /// The entities named in `live` (`entities/{id}`), which the run read live, are not
    /// read again to check that they exist.
    ///
    /// # Errors
    /// As [`RunRecords::log`].
    async fn prepare_log(
        &self,
        principal: &Principal,
        id: &str,
        log: ActivityLog,
        live: &[String],
    ) -> Result<Staged<ActivityLog>>;

    /// The alert as [`RunRecords::alert`] would raise it under `id`, with its event;
    /// `live` as for [`RecordPreparer::prepare_log`].
    ///
    /// # Errors
    /// As [`RunRecords::alert`].
    async fn prepare_alert(
        &self,
        principal: &Principal,
        id: &str,
        source: &str,
        alert: NewAlert,
        live: &[String],
    ) -> Result<Staged<Alert>>;

    /// The entity `entity` with `output` set, its next revision and its
    /// `entity.updated` event; `None` when it has the value already.
    ///
    /// # Errors
    /// INTERNAL when the entity does not convert to JSON.
    fn prepare_output(
        &self,
        tenant: &TenantId,
        entity: &Entity,
        output: &EntityOutput,
        cause: &OutputCause,
    ) -> Result<Option<Staged<Entity>>>;

    /// The entity `id` of `tenant` as it is stored now: what an output is set on
    /// again when the run's end found the entity changed since the run read it.
    ///
    /// # Errors
    /// NOT_FOUND when the entity is gone.
    async fn current_entity(&self, tenant: &TenantId, id: &str) -> Result<Entity>;

    /// Resolves the alert at once, as [`RunRecords::resolve_alert`] does: a resolve
    /// is no record of the run, and is idempotent.
    ///
    /// # Errors
    /// As [`RunRecords::resolve_alert`].
    async fn resolve_alert(
        &self,
        principal: &Principal,
        alert: &str,
        disposition: Disposition,
        comment: String,
    ) -> Result<()>;
}

#[async_trait]
impl RecordPreparer for ServiceRecords {
    async fn prepare_log(
        &self,
        principal: &Principal,
        id: &str,
        log: ActivityLog,
        live: &[String],
    ) -> Result<Staged<ActivityLog>> {
        let (resource, events) = self.logs.prepare_record(principal, id, log, live).await?;
        Ok(Staged { resource, events })
    }

    async fn prepare_alert(
        &self,
        principal: &Principal,
        id: &str,
        source: &str,
        alert: NewAlert,
        live: &[String],
    ) -> Result<Staged<Alert>> {
        let (resource, events) = self
            .alerts
            .prepare_raise(principal, id, source, alert, live)
            .await?;
        Ok(Staged { resource, events })
    }

    fn prepare_output(
        &self,
        tenant: &TenantId,
        entity: &Entity,
        output: &EntityOutput,
        cause: &OutputCause,
    ) -> Result<Option<Staged<Entity>>> {
        let cause = (cause.field, json!(cause.name));
        let prepared = self
            .output
            .prepare(tenant, entity, output.field(), &cause, |e| {
                output.applied_to(e)
            })?;
        Ok(prepared.map(|(resource, event)| Staged {
            resource,
            events: vec![event],
        }))
    }

    async fn current_entity(&self, tenant: &TenantId, id: &str) -> Result<Entity> {
        self.output.current(tenant, id).await
    }

    async fn resolve_alert(
        &self,
        principal: &Principal,
        alert: &str,
        disposition: Disposition,
        comment: String,
    ) -> Result<()> {
        RunRecords::resolve_alert(self, principal, alert, disposition, comment).await
    }
}

/// What a run records, written with its end in the end's transaction
/// ([`JobRepository::finish`](super::ports::JobRepository::finish)), so that an
/// attempt leaves all of it or none: an attempt that fails, or is cut short by a crash,
/// records nothing, and the attempt after it records afresh.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunEffects {
    /// New activity logs; one stored already under its id (by an attempt of a version
    /// of rics that wrote records at once) is kept as stored.
    pub logs: Vec<Staged<ActivityLog>>,
    /// New alerts, as the logs.
    pub alerts: Vec<Staged<Alert>>,
    /// Entities with their output fields set, each stored only if its revision is
    /// still the one before [`Staged::resource`]'s: otherwise the end is refused
    /// (CONFLICT) and the run is tried again.
    pub entities: Vec<Staged<Entity>>,
}

impl RunEffects {
    /// Whether the run records nothing.
    pub fn is_empty(&self) -> bool {
        self.logs.is_empty() && self.alerts.is_empty() && self.entities.is_empty()
    }
}

/// The [`RunRecords`] the runner hands a run: each record is checked and completed by
/// `preparer` and kept, to be written with the run's end ([`StagedRecords::into_effects`]).
/// A record the run asks for twice under one id is kept once; an entity given several
/// outputs is kept once, with all of them, expecting the revision the run read.
pub struct StagedRecords<'a> {
    preparer: &'a dyn RecordPreparer,
    effects: Mutex<RunEffects>,
    outputs: Mutex<Vec<SetOutput>>,
    /// The entities the run handed over as it read them live (`entities/{id}`), whose
    /// existence a log or an alert naming them need not read again.
    read_live: Mutex<Vec<String>>,
}

/// An output a run set on an entity, kept to be set again on the entity as it is
/// stored now when the run's end found it changed ([`StagedRecords::set_again`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SetOutput {
    tenant: TenantId,
    entity_id: String,
    output: EntityOutput,
    cause: OutputCause,
}

impl<'a> StagedRecords<'a> {
    /// Records that `preparer` checks and completes, none kept yet.
    pub fn new(preparer: &'a dyn RecordPreparer) -> StagedRecords<'a> {
        StagedRecords {
            preparer,
            effects: Mutex::new(RunEffects::default()),
            outputs: Mutex::new(Vec::new()),
            read_live: Mutex::new(Vec::new()),
        }
    }

    /// What the run recorded, and the outputs it set on entities.
    pub fn into_effects(self) -> (RunEffects, Vec<SetOutput>) {
        let effects = self
            .effects
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        let outputs = self
            .outputs
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        (effects, outputs)
    }

    /// The entities of `outputs` as they are stored now with those outputs set again,
    /// for the end to store in place of the ones the run staged: the end found an
    /// entity changed since the run read it (a user's update, another run's output).
    /// As [`OutputWriter`] does for an output written at once, neither change is lost.
    ///
    /// # Errors
    /// NOT_FOUND when an entity is gone; what reading it fails with.
    pub async fn set_again(
        preparer: &dyn RecordPreparer,
        outputs: &[SetOutput],
    ) -> Result<Vec<Staged<Entity>>> {
        let again = StagedRecords::new(preparer);
        for set in outputs {
            let current = preparer.current_entity(&set.tenant, &set.entity_id).await?;
            again
                .entity_output(&set.tenant, current, set.output.clone(), set.cause.clone())
                .await?;
        }
        Ok(again.into_effects().0.entities)
    }

    /// The entities the run read live so far.
    fn read_live(&self) -> Vec<String> {
        self.read_live
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Runs `f` over the records kept so far.
    fn with_effects<T>(&self, f: impl FnOnce(&mut RunEffects) -> T) -> T {
        f(&mut self.effects.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// The record named `name` among those `kind` picks of the kept ones, when the run
    /// asked for it before; else the one `prepared` makes, kept.
    async fn once<R: Clone>(
        &self,
        kind: fn(&mut RunEffects) -> &mut Vec<Staged<R>>,
        name: &str,
        name_of: fn(&R) -> &str,
        prepared: impl Future<Output = Result<Staged<R>>>,
    ) -> Result<R> {
        let kept = self.with_effects(|effects| {
            kind(effects)
                .iter()
                .find(|staged| name_of(&staged.resource) == name)
                .map(|staged| staged.resource.clone())
        });
        if let Some(kept) = kept {
            return Ok(kept);
        }
        let staged = prepared.await?;
        let record = staged.resource.clone();
        self.with_effects(|effects| kind(effects).push(staged));
        Ok(record)
    }
}

#[async_trait]
impl RunRecords for StagedRecords<'_> {
    async fn log(&self, principal: &Principal, id: &str, log: ActivityLog) -> Result<ActivityLog> {
        let live = self.read_live();
        let prepared = self.preparer.prepare_log(principal, id, log, &live);
        self.once(
            |e| &mut e.logs,
            &ActivityLog::name_of(id),
            |l| &l.name,
            prepared,
        )
        .await
    }

    async fn alert(
        &self,
        principal: &Principal,
        id: &str,
        source: &str,
        alert: NewAlert,
    ) -> Result<Alert> {
        let live = self.read_live();
        let prepared = self
            .preparer
            .prepare_alert(principal, id, source, alert, &live);
        self.once(
            |e| &mut e.alerts,
            &Alert::name_of(id),
            |a| &a.name,
            prepared,
        )
        .await
    }

    async fn entity_output(
        &self,
        tenant: &TenantId,
        read: Entity,
        output: EntityOutput,
        cause: OutputCause,
    ) -> Result<()> {
        if !read.is_deleted() {
            let name = format!("entities/{}", read.id());
            let mut live = self
                .read_live
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if !live.contains(&name) {
                live.push(name);
            }
        }
        self.outputs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(SetOutput {
                tenant: tenant.clone(),
                entity_id: read.id().to_owned(),
                output: output.clone(),
                cause: cause.clone(),
            });
        self.with_effects(|effects| {
            let kept = effects
                .entities
                .iter_mut()
                .find(|staged| staged.resource.id() == read.id());
            let Some(kept) = kept else {
                let staged = self
                    .preparer
                    .prepare_output(tenant, &read, &output, &cause)?;
                effects.entities.extend(staged);
                return Ok(());
            };
            // Applied over the outputs kept already, stored as one change of the
            // revision the run read.
            let Some(mut staged) =
                self.preparer
                    .prepare_output(tenant, &kept.resource, &output, &cause)?
            else {
                return Ok(());
            };
            staged.resource.revision = kept.resource.revision;
            staged.resource.etag = resource::etag(&staged.resource.uid, staged.resource.revision);
            kept.resource = staged.resource;
            kept.events.append(&mut staged.events);
            Ok(())
        })
    }

    async fn resolve_alert(
        &self,
        principal: &Principal,
        alert: &str,
        disposition: Disposition,
        comment: String,
    ) -> Result<()> {
        self.preparer
            .resolve_alert(principal, alert, disposition, comment)
            .await
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
    use crate::event::NewEvent;

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

    #[tokio::test]
    async fn outputs_of_one_entity_are_kept_as_one_change_of_the_revision_read() {
        let mut preparer = MockRecordPreparer::new();
        preparer
            .expect_prepare_output()
            .returning(|tenant, entity, output, _| {
                Ok(output.applied_to(entity).map(|mut changed| {
                    changed.revision = entity.revision + 1;
                    let event = NewEvent::new(
                        "event".into(),
                        "entity.updated",
                        "entities/e",
                        &crate::job::model::worker_principal(tenant),
                        crate::time::Timestamp::parse_rfc3339("2026-11-29T10:00:00Z").unwrap(),
                    );
                    Staged {
                        resource: changed,
                        events: vec![event],
                    }
                }))
            });
        let staged = StagedRecords::new(&preparer);
        let read = Entity {
            revision: 4,
            ..Entity::default()
        };
        let tenant = TenantId::new("t1");
        let cause = || OutputCause {
            field: "job",
            name: "entities/e/jobs/j".into(),
        };
        for output in [
            EntityOutput::ScreeningStatus(ScreeningStatus::PotentialMatch),
            EntityOutput::VerificationStatus(VerificationStatus::Verified),
            EntityOutput::VerificationStatus(VerificationStatus::Verified),
        ] {
            staged
                .entity_output(&tenant, read.clone(), output, cause())
                .await
                .unwrap();
        }
        let (effects, outputs) = staged.into_effects();
        assert_eq!(outputs.len(), 3, "each output is kept to be set again");
        let [kept] = effects.entities.as_slice() else {
            panic!("one entity: {effects:?}");
        };
        assert_eq!(kept.resource.revision, 5, "one change of revision 4");
        assert_eq!(
            kept.resource.screening_status,
            ScreeningStatus::PotentialMatch
        );
        assert_eq!(
            kept.resource.verification_status,
            VerificationStatus::Verified
        );
        assert_eq!(
            kept.events.len(),
            2,
            "the output it had already adds nothing"
        );
    }

    #[tokio::test]
    async fn a_log_and_an_alert_do_not_check_again_the_entities_the_run_read_live() {
        let mut preparer = MockRecordPreparer::new();
        preparer
            .expect_prepare_output()
            .returning(|_, _, _, _| Ok(None));
        preparer
            .expect_prepare_log()
            .withf(|_, _, _, live| live == ["entities/amy".to_owned()])
            .times(1)
            .returning(|_, _, log, _| {
                Ok(Staged {
                    resource: log,
                    events: Vec::new(),
                })
            });
        preparer
            .expect_prepare_alert()
            .withf(|_, _, _, _, live| live == ["entities/amy".to_owned()])
            .times(1)
            .returning(|_, id, _, _, _| {
                Ok(Staged {
                    resource: Alert {
                        name: Alert::name_of(id),
                        ..Alert::default()
                    },
                    events: Vec::new(),
                })
            });
        let staged = StagedRecords::new(&preparer);
        let tenant = TenantId::new("t1");
        let worker = crate::job::model::worker_principal(&tenant);
        let read = |id: &str, deleted: bool| Entity {
            name: format!("entities/{id}"),
            delete_time: deleted
                .then(|| crate::time::Timestamp::parse_rfc3339("2026-11-29T10:00:00Z").unwrap()),
            ..Entity::default()
        };
        for entity in [read("amy", false), read("bob", true)] {
            let cause = OutputCause {
                field: "job",
                name: "entities/amy/jobs/j".into(),
            };
            let output = EntityOutput::ScreeningStatus(ScreeningStatus::Clear);
            staged
                .entity_output(&tenant, entity, output, cause)
                .await
                .unwrap();
        }
        let log = ActivityLog {
            entity_names: vec!["entities/amy".into(), "entities/bob".into()],
            ..ActivityLog::default()
        };
        staged.log(&worker, "log-1", log).await.unwrap();
        staged
            .alert(&worker, "alert-1", "job", NewAlert::default())
            .await
            .unwrap();
    }
}
