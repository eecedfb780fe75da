//! Unit tests of the job families' runs, each over mocks of its ports and of the
//! `RunRecords` port its results go through.

use std::sync::Arc;

use serde_json::{Value, json};

use super::dismissals::{Dismissal, MockDismissalRepository, record_hash};
use super::id_verification::{
    IdTypeOverride, IdVerificationInput, IdVerificationJobs, IdVerificationPorts,
    IdVerificationRunRequest,
};
use super::kind::{JobFamily, JobKind, Run};
use super::model::{ClaimedTask, JobRecord, JobState};
use super::pep_sanction::{PepSanctionInput, PepSanctionJobs};
use super::records::{EntityOutput, MockRunRecords, OutputCause};
use super::risk_rating::{RiskRatingInput, RiskRatingJobs, RiskRatingResult};
use crate::activity::ActivityLogService;
use crate::activity::log_service::ActivityLogPorts;
use crate::activity::model::ActivityLog;
use crate::activity::ports::{MockActivityLogRepository, MockActivityLogTypeRepository};
use crate::alert::model::Alert;
use crate::document::model::{Document, DocumentType};
use crate::document::ports::MockDocumentRepository;
use crate::document::verification::Outcome;
use crate::entity::model::{Entity, EntityType, RiskLevel, ScreeningStatus, VerificationStatus};
use crate::entity::repository::MockEntityRepository;
use crate::error::{Code, Error};
use crate::id::MockIdGenerator;
use crate::lifecycle::ServiceContext;
use crate::list::{Page, Paging};
use crate::principal::{Principal, TenantId};
use crate::risk::default_model::default_model;
use crate::risk::model::RiskModel;
use crate::risk::ports::MockRiskModelRepository;
use crate::risk::{RiskEvaluator, RiskEvaluatorPorts, RiskModelService};
use crate::screen::{
    ListVersionInfo, ListedRecord, MatchCategory, MockNameMatcher, MockScreener, ScreenMatch,
    ScreenOutcome,
};
use crate::time::{MockClock, Timestamp};
use crate::workspace::ports::MockWorkspaceRepository;

fn now() -> Timestamp {
    Timestamp::parse_rfc3339("2026-11-24T10:00:00Z").unwrap()
}

fn clock() -> Arc<MockClock> {
    let mut clock = MockClock::new();
    clock.expect_now().returning(now);
    Arc::new(clock)
}

fn tenant() -> TenantId {
    TenantId::new("t1")
}

fn job(family: &str, input: Value) -> JobRecord {
    JobRecord {
        id: "job-1".into(),
        family: family.into(),
        entity_id: "amy-lee".into(),
        made_entity_id: None,
        delete_time: None,
        purge_time: None,
        uid: "u".into(),
        revision: 2,
        state: JobState::Running,
        input,
        result: None,
        latest_operation: None,
        create_time: now(),
        update_time: now(),
    }
}

fn task() -> ClaimedTask {
    ClaimedTask {
        tenant: tenant(),
        id: "task-1".into(),
        job_id: "job-1".into(),
        family: String::new(),
        operation_name: "op".into(),
        attempt: 1,
        claim: "claim".into(),
        queue_time: now(),
        claim_time: now(),
        run_input: Value::Null,
        job: None,
    }
}

fn amy() -> Entity {
    Entity {
        name: "entities/amy-lee".into(),
        display_name: "Amy Lee".into(),
        entity_type: EntityType::Individual,
        ..Entity::default()
    }
}

fn entities_holding(entity: Entity) -> Arc<MockEntityRepository> {
    let mut entities = MockEntityRepository::new();
    entities
        .expect_get()
        .returning(move |_, _| Ok(Some(entity.clone())));
    Arc::new(entities)
}

/// The log `log` as the records store it under `id`.
fn stored_log(id: &str, log: ActivityLog) -> crate::error::Result<ActivityLog> {
    Ok(ActivityLog {
        name: format!("activityLogs/{id}"),
        ..log
    })
}

/// The log an earlier attempt stored under `id`, with its `payload`.
fn first_attempt_log(
    id: &str,
    log: ActivityLog,
    payload: Value,
) -> crate::error::Result<ActivityLog> {
    Ok(ActivityLog {
        payload: payload.as_object().cloned(),
        ..stored_log(id, log)?
    })
}

/// The alert the records raise under `id`.
fn raised_alert(id: &str) -> crate::error::Result<Alert> {
    Ok(Alert {
        name: format!("alerts/{id}"),
        ..Alert::default()
    })
}

/// Records that store the log and the alert as given, naming them by their ids.
fn recording(records: &mut MockRunRecords) {
    records
        .expect_log()
        .returning(|_, id, log| stored_log(id, log));
    records
        .expect_alert()
        .returning(|_, id, _, _| raised_alert(id));
}

fn screener(matches: Vec<ScreenMatch>) -> Arc<MockScreener> {
    let mut screener = MockScreener::new();
    screener.expect_lists().returning(|| {
        Ok(vec![ListVersionInfo {
            dataset: "un_sc".into(),
            content_hash: "h".into(),
            list_date: None,
            records: 1,
            topics: vec!["sanction".into()],
        }])
    });
    screener.expect_screen().returning(move |_| {
        Ok(ScreenOutcome {
            matches: matches.clone(),
            list_versions: Vec::new(),
        })
    });
    Arc::new(screener)
}

fn a_match() -> ScreenMatch {
    ScreenMatch {
        id: "un_sc:QDi.001".into(),
        list_entry: "QDi.001".into(),
        dataset: "un_sc".into(),
        matched_name: "AMY LEE".into(),
        screened_name: "Amy Lee".into(),
        score: 0.93,
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
    }
}

/// A family under test, with the records its runs are handed.
struct UnderTest<F> {
    jobs: F,
    records: MockRunRecords,
}

fn screening(matches: Vec<ScreenMatch>, records: MockRunRecords) -> UnderTest<PepSanctionJobs> {
    screening_remembering(matches, records, Vec::new())
}

/// Screening whose dismissal memory holds `dismissals` for every entity.
fn screening_remembering(
    matches: Vec<ScreenMatch>,
    records: MockRunRecords,
    dismissals: Vec<Dismissal>,
) -> UnderTest<PepSanctionJobs> {
    let mut memory = MockDismissalRepository::new();
    memory
        .expect_of_entity()
        .returning(move |_, _| Ok(dismissals.clone()));
    UnderTest {
        jobs: PepSanctionJobs::new(
            screener(matches),
            entities_holding(amy()),
            Arc::new(memory),
            clock(),
        ),
        records,
    }
}

async fn run_screening(screening: &UnderTest<PepSanctionJobs>) -> crate::error::Result<Value> {
    let job = job(
        PepSanctionJobs::COLLECTION,
        json!({"threshold": 0.7, "datasets": []}),
    );
    JobKind::execute(&screening.jobs, &job, &task(), &screening.records).await
}

#[tokio::test]
async fn a_screen_that_matches_sets_the_status_logs_it_and_raises_one_alert() {
    let mut records = MockRunRecords::new();
    records
        .expect_entity_output()
        .withf(|_, read, output, cause| {
            read.name == "entities/amy-lee"
                && *output == EntityOutput::ScreeningStatus(ScreeningStatus::PotentialMatch)
                && *cause
                    == OutputCause {
                        field: "job",
                        name: "entities/amy-lee/pepSanctionIndividualEntityJobs/job-1".into(),
                    }
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    records
        .expect_log()
        .withf(|_, id, log| {
            let payload = log.payload.clone().unwrap_or_default();
            id == "screening-task-1"
                && payload.get("status") == Some(&json!("POTENTIAL_MATCH"))
                && !payload.contains_key("activityLog")
                && !payload.contains_key("alert")
        })
        .times(1)
        .returning(|_, id, log| stored_log(id, log));
    records
        .expect_alert()
        .withf(|_, id, source, alert| {
            id == "screening-task-1"
                && source == "entities/amy-lee/pepSanctionIndividualEntityJobs/job-1"
                && alert.details.get("matchCount") == Some(&json!(1))
        })
        .times(1)
        .returning(|_, id, _, _| raised_alert(id));
    let result = run_screening(&screening(vec![a_match()], records))
        .await
        .unwrap();
    assert_eq!(result["status"], "POTENTIAL_MATCH");
    assert_eq!(result["screenedNames"], json!(["Amy Lee"]));
    assert_eq!(result["matches"][0]["listEntry"], "QDi.001");
    assert_eq!(result["screenTime"], json!(now()));
    assert_eq!(result["activityLog"], "activityLogs/screening-task-1");
    assert_eq!(result["alert"], "alerts/screening-task-1");
}

#[tokio::test]
async fn a_clear_screen_raises_no_alert() {
    let mut records = MockRunRecords::new();
    records
        .expect_entity_output()
        .withf(|_, _, output, _| *output == EntityOutput::ScreeningStatus(ScreeningStatus::Clear))
        .returning(|_, _, _, _| Ok(()));
    records
        .expect_log()
        .returning(|_, id, log| stored_log(id, log));
    records.expect_alert().never();
    let result = run_screening(&screening(Vec::new(), records))
        .await
        .unwrap();
    assert_eq!(result["status"], "CLEAR");
    assert!(result.get("alert").is_none());
}

#[tokio::test]
async fn a_match_dismissed_before_raises_no_alert_until_its_entry_changes() {
    let listed = a_match();
    let dismissal = Dismissal {
        entity_id: "amy-lee".into(),
        dataset: listed.dataset.clone(),
        list_entry: listed.list_entry.clone(),
        record_hash: record_hash(&serde_json::to_value(&listed.record).unwrap()),
        job: "entities/amy-lee/pepSanctionIndividualEntityJobs/job-0".into(),
        reviewer: "analyst".into(),
        dismiss_time: now(),
    };
    let mut records = MockRunRecords::new();
    records
        .expect_entity_output()
        .withf(|_, _, output, _| *output == EntityOutput::ScreeningStatus(ScreeningStatus::Clear))
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    records
        .expect_log()
        .returning(|_, id, log| stored_log(id, log));
    records.expect_alert().never();
    let result = run_screening(&screening_remembering(
        vec![listed.clone()],
        records,
        vec![dismissal.clone()],
    ))
    .await
    .unwrap();
    assert_eq!(result["status"], "CLEAR");
    assert_eq!(result["matches"][0]["previouslyDismissed"], true);
    assert!(result.get("alert").is_none());

    let mut changed = listed;
    changed.record.names.push("Amy B. Lee".into());
    let mut records = MockRunRecords::new();
    records
        .expect_entity_output()
        .withf(|_, _, output, _| {
            *output == EntityOutput::ScreeningStatus(ScreeningStatus::PotentialMatch)
        })
        .returning(|_, _, _, _| Ok(()));
    records
        .expect_log()
        .returning(|_, id, log| stored_log(id, log));
    records
        .expect_alert()
        .times(1)
        .returning(|_, id, _, _| raised_alert(id));
    let result = run_screening(&screening_remembering(
        vec![changed],
        records,
        vec![dismissal],
    ))
    .await
    .unwrap();
    assert!(
        result["matches"][0].get("previouslyDismissed").is_none(),
        "a changed entry is a new match"
    );
    assert_eq!(result["alert"], "alerts/screening-task-1");
}

#[tokio::test]
async fn a_store_that_fails_is_retried_but_a_gone_entity_fails_the_run() {
    let mut records = MockRunRecords::new();
    records
        .expect_entity_output()
        .returning(|_, _, _, _| Err(Error::internal("disk full")));
    let error = run_screening(&screening(Vec::new(), records))
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::Unavailable);

    let mut records = MockRunRecords::new();
    records
        .expect_entity_output()
        .returning(|_, _, _, _| Err(Error::not_found("entities/amy-lee")));
    let error = run_screening(&screening(Vec::new(), records))
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::NotFound);
}

#[tokio::test]
async fn screening_inputs_get_their_default_and_name_loaded_lists_once() {
    let mut records = MockRunRecords::new();
    recording(&mut records);
    let jobs = screening(Vec::new(), records).jobs;
    let principal = Principal {
        tenant: tenant(),
        subject: "alice".into(),
        display_name: String::new(),
        scopes: Default::default(),
    };
    let checked = JobKind::check_input(&jobs, &principal, "amy-lee", json!({}))
        .await
        .unwrap();
    assert_eq!(checked, json!({"threshold": 0.7}));
    for (input, field, reason) in [
        (json!({"threshold": 0}), "job.threshold", "OUT_OF_RANGE"),
        (
            json!({"datasets": ["nope"]}),
            "job.datasets[0]",
            "UNKNOWN_DATASET",
        ),
        (
            json!({"datasets": ["un_sc", "un_sc"]}),
            "job.datasets[1]",
            "DUPLICATE_DATASET",
        ),
        (json!({"color": "red"}), "job.color", "UNKNOWN_FIELD"),
    ] {
        let error = JobKind::check_input(&jobs, &principal, "amy-lee", input)
            .await
            .unwrap_err();
        assert_eq!(
            (field_of(&error), error.reason),
            (Some(field), reason),
            "{error:?}"
        );
    }
    let typed = PepSanctionInput {
        datasets: vec!["un_sc".into()],
        threshold: None,
    };
    let checked = JobFamily::check_input(&jobs, &principal, "amy-lee", typed)
        .await
        .unwrap();
    assert_eq!(checked.threshold, Some(0.7));
}

fn passport() -> Document {
    Document {
        name: "documents/passport-1".into(),
        entity: "entities/amy-lee".into(),
        document_type: DocumentType::Passport,
        mrz: vec!["NOT A MACHINE READABLE ZONE".into()],
        ..Document::default()
    }
}

fn verification(records: MockRunRecords) -> UnderTest<IdVerificationJobs> {
    let mut documents = MockDocumentRepository::new();
    documents
        .expect_get()
        .returning(|_, _| Ok(Some(passport())));
    let mut names = MockNameMatcher::new();
    names.expect_similarity().return_const(1.0);
    UnderTest {
        jobs: IdVerificationJobs::new(IdVerificationPorts {
            documents: Arc::new(documents),
            entities: entities_holding(amy()),
            names: Arc::new(names),
            clock: clock(),
        }),
        records,
    }
}

fn verification_run<'a>(
    job: &'a JobRecord,
    task: &'a ClaimedTask,
    records: &'a MockRunRecords,
) -> Run<'a, IdVerificationJobs> {
    Run {
        job,
        input: IdVerificationInput {
            document: Some("documents/passport-1".into()),
            id_type: None,
        },
        run_input: None,
        task,
        records,
    }
}

fn verification_job() -> JobRecord {
    job(
        IdVerificationJobs::COLLECTION,
        json!({"document": "documents/passport-1"}),
    )
}

/// The field an INVALID_ARGUMENT names.
fn field_of(error: &Error) -> Option<&str> {
    error.metadata.get("field").map(String::as_str)
}

#[tokio::test]
async fn a_failed_check_sets_failed_and_raises_the_alert() {
    let mut records = MockRunRecords::new();
    records
        .expect_entity_output()
        .withf(|_, _, output, _| {
            *output == EntityOutput::VerificationStatus(VerificationStatus::Failed)
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    records
        .expect_log()
        .withf(|_, id, log| {
            let payload = log.payload.clone().unwrap_or_default();
            id == "id-verification-task-1"
                && payload.get("document") == Some(&json!("documents/passport-1"))
                && payload.get("verifyDate") == Some(&json!("2026-11-24"))
                && !payload.contains_key("activityLog")
        })
        .returning(|_, id, log| stored_log(id, log));
    records
        .expect_alert()
        .withf(|_, id, source, _| {
            id == "idv-failed-task-1" && source == "individualEntityIDVerificationJobs/job-1"
        })
        .times(1)
        .returning(|_, id, _, _| raised_alert(id));
    let jobs = verification(records);
    // The passport's machine readable zone does not read: MRZ_FORMAT fails.
    let (job, task) = (verification_job(), task());
    let result = JobFamily::execute(&jobs.jobs, verification_run(&job, &task, &jobs.records))
        .await
        .unwrap();
    assert_eq!(result.outcome, Outcome::Failed);
    assert_eq!(result.document_type, DocumentType::Passport);
    assert_eq!(
        result.activity_log.as_deref(),
        Some("activityLogs/id-verification-task-1")
    );
    assert_eq!(result.alert.as_deref(), Some("alerts/idv-failed-task-1"));
}

#[tokio::test]
async fn a_repeated_attempt_reports_what_the_first_attempt_recorded() {
    let mut records = MockRunRecords::new();
    records.expect_log().returning(|_, id, log| {
        first_attempt_log(
            id,
            log,
            json!({
                "outcome": "PASSED", "checks": [],
                "document": "documents/passport-1", "documentType": "PASSPORT",
                "verifyDate": "2026-11-23",
            }),
        )
    });
    records
        .expect_entity_output()
        .withf(|_, _, output, _| {
            *output == EntityOutput::VerificationStatus(VerificationStatus::Verified)
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    records.expect_alert().never();
    let jobs = verification(records);
    let (job, task) = (verification_job(), task());
    let result = JobFamily::execute(&jobs.jobs, verification_run(&job, &task, &jobs.records))
        .await
        .unwrap();
    assert_eq!(result.outcome, Outcome::Passed);
    assert_eq!(result.verify_date, "2026-11-23");
    assert_eq!(result.alert, None);
}

#[test]
fn a_run_may_ask_for_another_document_type_of_the_same_entity_only() {
    let jobs = verification(MockRunRecords::new()).jobs;
    let job = job(IdVerificationJobs::COLLECTION, json!({}));
    let request = |entity: Option<&str>, id_type| IdVerificationRunRequest {
        request_id: None,
        entity: entity.map(str::to_owned),
        id_type,
    };
    let asked = jobs.check_run(
        &job,
        request(Some("entities/amy-lee"), Some(DocumentType::DriversLicence)),
    );
    assert_eq!(
        asked.unwrap(),
        Some(IdTypeOverride {
            id_type: DocumentType::DriversLicence
        })
    );
    let unspecified = jobs.check_run(&job, request(None, Some(DocumentType::Unspecified)));
    assert_eq!(unspecified.unwrap(), None);
    let error = jobs
        .check_run(&job, request(Some("entities/bo"), None))
        .unwrap_err();
    assert_eq!(
        (field_of(&error), error.reason),
        (Some("run.entity"), "ENTITY_MISMATCH")
    );
    let (request_id, _) = JobKind::read_run_request(
        &jobs,
        json!({"requestId": "0b6f7c9e-4a1d-4c55-9f5e-2f1a8c3d7e90"}),
    )
    .unwrap();
    assert_eq!(
        request_id.as_deref(),
        Some("0b6f7c9e-4a1d-4c55-9f5e-2f1a8c3d7e90")
    );
    let error = JobKind::read_run_request(&jobs, json!({"colour": 1})).unwrap_err();
    assert_eq!(field_of(&error), Some("run.colour"));
}

fn context() -> ServiceContext {
    let clock = clock();
    let mut ids = MockIdGenerator::new();
    ids.expect_resource_id().returning(|| "gen-id".into());
    ids.expect_uid().returning(|| "uid".into());
    ServiceContext {
        paging: Arc::new(Paging::new(&[7; 32], clock.clone()).unwrap()),
        clock,
        ids: Arc::new(ids),
        retention: std::time::Duration::ZERO,
    }
}

/// Risk rating over a tenant whose newest model is the default, an individual with
/// no relationships, and `records`.
fn rating(records: MockRunRecords) -> UnderTest<RiskRatingJobs> {
    let context = context();
    let mut models = MockRiskModelRepository::new();
    models.expect_latest().returning(|_| {
        Ok(Some(RiskModel {
            name: "riskModels/1".into(),
            ..default_model().unwrap()
        }))
    });
    let mut entities = MockEntityRepository::new();
    entities.expect_get().returning(|_, _| Ok(Some(amy())));
    entities.expect_list_relationships().returning(|_, _, _| {
        Ok(Page {
            items: Vec::new(),
            next: None,
            total_size: 0,
        })
    });
    entities.expect_get_many().returning(|_, _| Ok(Vec::new()));
    let entities = Arc::new(entities);
    let logs = ActivityLogService::new(
        ActivityLogPorts {
            logs: Arc::new(MockActivityLogRepository::new()),
            types: Arc::new(MockActivityLogTypeRepository::new()),
            entities: entities.clone(),
            workspaces: Arc::new(MockWorkspaceRepository::new()),
        },
        context.clone(),
    );
    let mut documents = MockDocumentRepository::new();
    documents.expect_list().returning(|_, _, _| {
        Ok(Page {
            items: Vec::new(),
            next: None,
            total_size: 0,
        })
    });
    // A run records through the records it is handed, never the evaluator's own.
    let jobs = RiskRatingJobs::new(Arc::new(RiskEvaluator::new(RiskEvaluatorPorts {
        models: Arc::new(RiskModelService::new(Arc::new(models), context.clone())),
        entities,
        documents: Arc::new(documents),
        logs: Arc::new(logs),
        records: Arc::new(MockRunRecords::new()),
        clock: context.clock.clone(),
        ids: context.ids.clone(),
    })));
    UnderTest { jobs, records }
}

async fn run_rating(rating: &UnderTest<RiskRatingJobs>) -> crate::error::Result<RiskRatingResult> {
    let (job, task) = (job(RiskRatingJobs::COLLECTION, json!({})), task());
    let run = Run {
        job: &job,
        input: RiskRatingInput::default(),
        run_input: None,
        task: &task,
        records: &rating.records,
    };
    JobFamily::execute(&rating.jobs, run).await
}

#[tokio::test]
async fn a_rating_records_its_log_and_the_entity_risk_details() {
    let mut records = MockRunRecords::new();
    records
        .expect_log()
        .withf(|_, id, log| {
            let payload = log.payload.clone().unwrap_or_default();
            id == "risk-rating-task-1"
                && payload.get("job")
                    == Some(&json!(
                        "entities/amy-lee/individualEntityRiskRatingJobs/job-1"
                    ))
                && payload.contains_key("rating")
                && payload.contains_key("input")
        })
        .times(1)
        .returning(|_, id, log| stored_log(id, log));
    records
        .expect_entity_output()
        .withf(|_, _, output, cause| match output {
            EntityOutput::RiskDetails(details) => {
                details.activity_log == "activityLogs/risk-rating-task-1"
                    && details.rating_job == "entities/amy-lee/individualEntityRiskRatingJobs/job-1"
                    && details.model_version == "riskModels/1"
                    && cause.field == "job"
            }
            _ => false,
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    records.expect_alert().never();
    let result = run_rating(&rating(records)).await.unwrap();
    assert_eq!(result.rating.model_version, "riskModels/1");
    assert_ne!(result.rating.risk_level, RiskLevel::High);
    assert_eq!(result.activity_log, "activityLogs/risk-rating-task-1");
    assert_eq!(result.alert, None);
}

#[tokio::test]
async fn a_repeated_attempt_rates_as_recorded_and_a_rise_to_high_raises_edd() {
    let mut records = MockRunRecords::new();
    records.expect_log().returning(|_, id, log| {
        first_attempt_log(
            id,
            log,
            json!({
                "input": {},
                "rating": {"riskScore": 80, "riskLevel": "HIGH", "contributions": [],
                           "modelVersion": "riskModels/1"},
                "previousRiskLevel": "MEDIUM",
            }),
        )
    });
    records
        .expect_alert()
        .withf(|_, id, source, alert| {
            id == "edd-risk-rating-task-1"
                && source == "entities/amy-lee/individualEntityRiskRatingJobs/job-1"
                && alert.details.get("previousRiskLevel") == Some(&json!("MEDIUM"))
        })
        .times(1)
        .returning(|_, id, _, _| raised_alert(id));
    records
        .expect_entity_output()
        .withf(|_, _, output, _| {
            matches!(output, EntityOutput::RiskDetails(d) if d.risk_level == RiskLevel::High)
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let result = run_rating(&rating(records)).await.unwrap();
    assert_eq!(result.rating.risk_score, 80);
    assert_eq!(
        result.alert.as_deref(),
        Some("alerts/edd-risk-rating-task-1")
    );
}
