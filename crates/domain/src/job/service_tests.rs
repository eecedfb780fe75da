//! Unit tests of the job service with mocked ports.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::kind::{JobFamily, JobKind, NoRunInput, Run, RunRequest};
use super::model::{JobRecord, JobState};
use super::ports::{MockJobRepository, MockRunQueued};
use super::runner_tests::Scripted;
use super::service::{JobPorts, JobService, RunBody};
use crate::entity::model::Entity;
use crate::entity::repository::MockEntityRepository;
use crate::error::{Code, Result};
use crate::id::MockIdGenerator;
use crate::lifecycle::ServiceContext;
use crate::list::Paging;
use crate::operation::MockOperationRepository;
use crate::principal::{Principal, TenantId};
use crate::repository::CreateOutcome;
use crate::time::{MockClock, Timestamp};

fn now() -> Timestamp {
    Timestamp::parse_rfc3339("2026-11-22T10:00:00Z").unwrap()
}

fn principal() -> Principal {
    Principal {
        tenant: TenantId::new("t1"),
        subject: "alice".into(),
        display_name: "Alice".into(),
        scopes: Default::default(),
    }
}

fn stored(state: JobState) -> JobRecord {
    JobRecord {
        id: "job-1".into(),
        family: "testJobs".into(),
        entity_id: "amy-lee".into(),
        made_entity_id: None,
        delete_time: None,
        purge_time: None,
        uid: "u".into(),
        revision: 1,
        state,
        input: json!({"threshold": 0.5}),
        result: None,
        latest_operation: None,
        create_time: now(),
        update_time: now(),
    }
}

fn service(jobs: MockJobRepository, queued: MockRunQueued) -> JobService {
    service_of(Arc::new(Scripted(|_| Ok(json!({})))), jobs, queued)
}

/// The service of `kind`, over an entity store that holds every entity but `-`.
fn service_of(
    kind: Arc<dyn JobKind>,
    jobs: MockJobRepository,
    queued: MockRunQueued,
) -> JobService {
    let mut clock = MockClock::new();
    clock.expect_now().returning(now);
    let clock = Arc::new(clock);
    let mut ids = MockIdGenerator::new();
    ids.expect_resource_id().returning(|| "gen-id".into());
    ids.expect_uid().returning(|| "uid".into());
    let mut entities = MockEntityRepository::new();
    entities.expect_get().returning(|_, id| {
        Ok((id != "-").then(|| Entity {
            name: Entity::name_of(id),
            ..Entity::default()
        }))
    });
    let paging = Arc::new(Paging::new(&[7; 32], clock.clone()).unwrap());
    let ports = JobPorts {
        jobs: Arc::new(jobs),
        operations: Arc::new(MockOperationRepository::new()),
        entities: Arc::new(entities),
        queued: Arc::new(queued),
        context: ServiceContext {
            clock,
            ids: Arc::new(ids),
            paging,
            retention: std::time::Duration::ZERO,
        },
    };
    JobService::new(kind, ports)
}

/// A family whose runs create the entity their job is about, give a link at their
/// `:run` and end elsewhere.
struct Onboards;

#[async_trait]
impl JobFamily for Onboards {
    const COLLECTION: &'static str = "testOnboardings";
    const EVENT_PREFIX: &'static str = "test_onboarding";
    const OPERATION_TYPE: &'static str = "rics.v1alpha.TestOnboarding";
    const CREATES_ENTITY: bool = true;
    const ENDS_ELSEWHERE: bool = true;

    type Input = Value;
    type RunRequest = RunRequest;
    type RunInput = NoRunInput;
    type Output = Value;

    async fn check_input(
        &self,
        _principal: &Principal,
        _entity_id: &str,
        input: Value,
    ) -> Result<Value> {
        Ok(input)
    }

    async fn prepare_run(
        &self,
        _principal: &Principal,
        _job: &JobRecord,
        operation_id: &str,
        _now: Timestamp,
    ) -> Result<serde_json::Map<String, Value>> {
        let link = json!({"hostedFormUri": format!("https://rics.example/hosted/{operation_id}")});
        Ok(link.as_object().cloned().unwrap_or_default())
    }

    async fn execute(&self, _run: Run<'_, Self>) -> Result<Value> {
        Ok(json!({}))
    }
}

#[tokio::test]
async fn a_family_that_creates_its_entity_takes_a_job_at_dash_and_runs_it() {
    let mut jobs = MockJobRepository::new();
    jobs.expect_create()
        .withf(|_, job, _, events| {
            job.entity_id == "-"
                && job.name() == "entities/-/testOnboardings/gen-id"
                && events[0].event_type == "test_onboarding.created"
                && events[0].entity_id.is_none()
        })
        .times(1)
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    let created = service_of(Arc::new(Onboards), jobs, MockRunQueued::new())
        .create(&principal(), Some("-"), json!({"form": "f"}), None)
        .await
        .unwrap();
    assert_eq!(created["name"], "entities/-/testOnboardings/gen-id");
    assert_eq!(created["form"], "f");

    let mut jobs = MockJobRepository::new();
    jobs.expect_get().returning(|_, _, _| {
        let mut job = stored(JobState::Pending);
        job.family = "testOnboardings".into();
        job.entity_id = "-".into();
        Ok(Some(job))
    });
    jobs.expect_start_run()
        .withf(|_, start, _, events| {
            start.operation.name == "entities/-/testOnboardings/job-1/operations/gen-id"
                && events[0].entity_id.is_none()
        })
        .times(1)
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    let mut queued = MockRunQueued::new();
    queued.expect_queued().times(1).return_const(());
    let service = service_of(Arc::new(Onboards), jobs, queued);
    let body = service.read_run_request(json!({})).unwrap();
    let operation = service
        .run(&principal(), "-", "job-1", None, body)
        .await
        .unwrap();
    assert_eq!(operation.metadata.kind, "rics.v1alpha.TestOnboarding");
    assert_eq!(
        operation.metadata.debug["hostedFormUri"], "https://rics.example/hosted/gen-id",
        "what the family prepared for the run"
    );
    assert_eq!(operation.metadata.debug["queueTime"], json!(now()));
}

/// An onboarding job at `-` whose run `gen-id` is in `state`.
fn onboarding_in(state: JobState) -> JobRecord {
    let mut job = stored(state);
    job.family = "testOnboardings".into();
    job.entity_id = "-".into();
    job.made_entity_id = Some("amy-lee".into());
    job.latest_operation = Some(RUN.into());
    job
}

const RUN: &str = "entities/-/testOnboardings/job-1/operations/gen-id";

#[tokio::test]
async fn a_run_that_ends_elsewhere_ends_once_with_the_events_its_caller_adds() {
    let mut jobs = MockJobRepository::new();
    jobs.expect_get()
        .returning(|_, _, _| Ok(Some(onboarding_in(JobState::Running))));
    jobs.expect_end_run()
        .withf(|_, operation_id, end, expected_revision, _| {
            operation_id == "gen-id"
                && *expected_revision == 1
                && end.job.state == JobState::Succeeded
                && end.job.result == Some(json!({"decision": "APPROVED"}))
                && end.response.is_some()
                && end.metadata.value == "SUCCEEDED"
                && end.events.len() == 2
                && end.events[0].event_type == "test_onboarding.succeeded"
                && end.events[0].entity_id.as_deref() == Some("amy-lee")
                && end.events[1].event_type == "test_onboarding.decided"
        })
        .times(1)
        .returning(|_, _, _, _, _| Ok(true));
    let service = service_of(Arc::new(Onboards), jobs, MockRunQueued::new());
    let decided = |job: &JobRecord| {
        vec![crate::event::NewEvent::new(
            "ev".into(),
            "test_onboarding.decided",
            &job.name(),
            &principal(),
            now(),
        )]
    };
    let ended = service
        .end_run(
            &TenantId::new("t1"),
            RUN,
            Ok(json!({"decision": "APPROVED"})),
            &decided,
        )
        .await
        .unwrap();
    assert_eq!(ended.state, JobState::Succeeded);
    assert_eq!(ended.revision, 2);
}

#[tokio::test]
async fn a_cancelled_run_ends_cancelled_and_an_ended_run_is_left_as_it_is() {
    let mut jobs = MockJobRepository::new();
    jobs.expect_get()
        .returning(|_, _, _| Ok(Some(onboarding_in(JobState::Running))));
    jobs.expect_end_run()
        .withf(|_, _, end, _, _| {
            end.job.state == JobState::Cancelled
                && end.error.as_ref().map(|e| e.code) == Some(1)
                && end.events[0].event_type == "test_onboarding.cancelled"
        })
        .times(1)
        .returning(|_, _, _, _, _| Ok(true));
    let service = service_of(Arc::new(Onboards), jobs, MockRunQueued::new());
    let cancelled = crate::error::Error::new(Code::Cancelled, "CANCELLED", "cancelled");
    let ended = service
        .end_run(&TenantId::new("t1"), RUN, Err(cancelled), &|_| vec![])
        .await
        .unwrap();
    assert_eq!(ended.state, JobState::Cancelled);

    let mut jobs = MockJobRepository::new();
    jobs.expect_get()
        .returning(|_, _, _| Ok(Some(onboarding_in(JobState::Succeeded))));
    jobs.expect_end_run().never();
    let service = service_of(Arc::new(Onboards), jobs, MockRunQueued::new());
    let ended = service
        .end_run(&TenantId::new("t1"), RUN, Ok(json!({})), &|_| vec![])
        .await
        .unwrap();
    assert_eq!(ended.state, JobState::Succeeded, "nothing written");
}

#[tokio::test]
async fn other_families_find_no_entity_at_dash() {
    let error = service(MockJobRepository::new(), MockRunQueued::new())
        .create(&principal(), Some("-"), json!({}), None)
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::NotFound);
}

#[tokio::test]
async fn a_run_queues_an_operation_under_the_job_and_wakes_the_workers() {
    let mut jobs = MockJobRepository::new();
    jobs.expect_get()
        .returning(|_, _, _| Ok(Some(stored(JobState::Succeeded))));
    jobs.expect_start_run()
        .withf(|_, start, key, events| {
            let (job, operation, task) = (&start.job, &start.operation, &start.task);
            job.state == JobState::Running
                && job.revision == 2
                && start.expected_revision == 1
                && job.latest_operation.as_deref() == Some(operation.name.as_str())
                && operation.name == "entities/amy-lee/testJobs/job-1/operations/gen-id"
                && !operation.done
                && task.id == "gen-id"
                && key.is_none()
                && events[0].event_type == "test_job.started"
        })
        .times(1)
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    let mut queued = MockRunQueued::new();
    queued.expect_queued().times(1).return_const(());
    let operation = service(jobs, queued)
        .run(&principal(), "amy-lee", "job-1", None, run_body())
        .await
        .unwrap();
    assert_eq!(operation.metadata.kind, "rics.v1alpha.TestJob");
}

#[tokio::test]
async fn a_running_job_cannot_run_again_and_others_jobs_are_not_found() {
    let mut jobs = MockJobRepository::new();
    jobs.expect_get()
        .returning(|_, _, _| Ok(Some(stored(JobState::Running))));
    let service = service(jobs, MockRunQueued::new());
    let error = service
        .run(&principal(), "amy-lee", "job-1", None, run_body())
        .await
        .unwrap_err();
    assert_eq!(
        (error.code, error.reason),
        (Code::FailedPrecondition, "JOB_RUNNING")
    );
    // The job exists, but under another entity.
    let error = service
        .get(&principal(), "bob-smith", "job-1")
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::NotFound);
}

#[test]
fn the_json_holds_the_inputs_beside_the_standard_fields() {
    let mut job = stored(JobState::Succeeded);
    job.result = Some(json!({"status": "CLEAR"}));
    let rendered = job.to_json();
    assert_eq!(rendered["name"], "entities/amy-lee/testJobs/job-1");
    assert_eq!(rendered["entity"], "entities/amy-lee");
    assert_eq!(rendered["threshold"], 0.5);
    assert_eq!(rendered["state"], "SUCCEEDED");
    assert_eq!(rendered["result"]["status"], "CLEAR");
    assert!(rendered["etag"].as_str().unwrap().starts_with('"'));
}

#[test]
fn a_job_at_dash_names_its_entity_once_its_run_made_one() {
    let mut job = stored(JobState::Running);
    job.entity_id = "-".into();
    assert_eq!(job.subject(), None);
    assert!(job.to_json().get("entity").is_none());
    job.made_entity_id = Some("amy-lee".into());
    assert_eq!(job.subject(), Some("amy-lee"));
    let rendered = job.to_json();
    assert_eq!(rendered["name"], "entities/-/testJobs/job-1");
    assert_eq!(rendered["entity"], "entities/amy-lee");
}

/// A `:run` body without a request id.
fn run_body() -> RunBody {
    service(MockJobRepository::new(), MockRunQueued::new())
        .read_run_request(json!({}))
        .unwrap()
}

/// A family whose jobs may be changed and deleted: one input, `threshold`, at most 1.
struct Changeable;

#[async_trait]
impl JobFamily for Changeable {
    const COLLECTION: &'static str = "testJobs";
    const EVENT_PREFIX: &'static str = "test_job";
    const OPERATION_TYPE: &'static str = "rics.v1alpha.TestJob";

    type Input = Value;
    type RunRequest = RunRequest;
    type RunInput = NoRunInput;
    type Output = Value;

    fn input_fields(&self) -> Option<rics_aip::field_mask::FieldTable> {
        use rics_aip::field_mask::{Behavior, FieldKind, FieldTable};
        Some(FieldTable::new().field("threshold", FieldKind::Scalar, Behavior::Mutable))
    }

    async fn check_input(
        &self,
        _principal: &Principal,
        _entity_id: &str,
        input: Value,
    ) -> Result<Value> {
        if input["threshold"].as_f64().is_some_and(|t| t > 1.0) {
            return Err(crate::error::Error::invalid_field(
                "job.threshold",
                "OUT_OF_RANGE",
                "at most 1",
            ));
        }
        Ok(input)
    }

    async fn execute(&self, _run: Run<'_, Self>) -> Result<Value> {
        Ok(json!({}))
    }
}

/// A store holding `job` that expects `updates` updates.
fn holding(job: JobRecord, updates: usize) -> MockJobRepository {
    let mut jobs = MockJobRepository::new();
    jobs.expect_get()
        .returning(move |_, _, _| Ok(Some(job.clone())));
    jobs.expect_update()
        .times(updates)
        .returning(|_, _, _, _| Ok(()));
    jobs
}

fn deleted_job() -> JobRecord {
    let mut job = stored(JobState::Succeeded);
    job.delete_time = Some(now());
    job.purge_time = Some(now());
    job
}

#[tokio::test]
async fn an_update_changes_the_inputs_the_mask_names_and_the_family_checks_them() {
    let mut jobs = MockJobRepository::new();
    jobs.expect_get()
        .returning(|_, _, _| Ok(Some(stored(JobState::Succeeded))));
    jobs.expect_update()
        .withf(|_, job, expected, events| {
            job.input == json!({"threshold": 0.9})
                && job.revision == 2
                && *expected == 1
                && events.len() == 1
                && events[0].event_type == "test_job.updated"
                && events[0].entity_id.as_deref() == Some("amy-lee")
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let service = service_of(Arc::new(Changeable), jobs, MockRunQueued::new());
    let updated = service
        .update(
            &principal(),
            "amy-lee",
            "job-1",
            json!({"threshold": 0.9, "state": "FAILED"}),
            None,
        )
        .await
        .unwrap();
    assert_eq!(updated["threshold"], 0.9);
    assert_eq!(updated["state"], "SUCCEEDED", "output only: ignored");

    // The same value, a refused value, an immutable entity: nothing is stored.
    let service = service_of(
        Arc::new(Changeable),
        holding(stored(JobState::Succeeded), 0),
        MockRunQueued::new(),
    );
    let same = service
        .update(
            &principal(),
            "amy-lee",
            "job-1",
            json!({"threshold": 0.5}),
            None,
        )
        .await
        .unwrap();
    assert_eq!(same["etag"], stored(JobState::Succeeded).to_json()["etag"]);
    let refused = service
        .update(
            &principal(),
            "amy-lee",
            "job-1",
            json!({"threshold": 2}),
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(refused.field_violations[0].field, "job.threshold");
    let moved = service
        .update(
            &principal(),
            "amy-lee",
            "job-1",
            json!({"entity": "entities/bob"}),
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(moved.field_violations[0].field, "job.entity");
    let stale = service
        .update(
            &principal(),
            "amy-lee",
            "job-1",
            json!({"threshold": 0.7, "etag": "\"old\""}),
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(stale.code, Code::Aborted);
}

#[tokio::test]
async fn a_running_or_deleted_job_is_not_changed() {
    let service = service_of(
        Arc::new(Changeable),
        holding(stored(JobState::Running), 0),
        MockRunQueued::new(),
    );
    let running = service
        .update(
            &principal(),
            "amy-lee",
            "job-1",
            json!({"threshold": 0.7}),
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(
        (running.code, running.reason),
        (Code::FailedPrecondition, "JOB_RUNNING")
    );
    let running = service
        .delete(&principal(), "amy-lee", "job-1", None, false)
        .await
        .unwrap_err();
    assert_eq!(running.reason, "JOB_RUNNING");

    let service = service_of(
        Arc::new(Changeable),
        holding(deleted_job(), 0),
        MockRunQueued::new(),
    );
    let deleted = service
        .update(
            &principal(),
            "amy-lee",
            "job-1",
            json!({"threshold": 0.7}),
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(
        (deleted.code, deleted.reason),
        (Code::FailedPrecondition, "RESOURCE_DELETED")
    );
    let body = service.read_run_request(json!({})).unwrap();
    let run = service
        .run(&principal(), "amy-lee", "job-1", None, body)
        .await
        .unwrap_err();
    assert_eq!(run.reason, "RESOURCE_DELETED");
    let again = service
        .delete(&principal(), "amy-lee", "job-1", None, false)
        .await
        .unwrap_err();
    assert_eq!(again.code, Code::NotFound);
    let allowed = service
        .delete(&principal(), "amy-lee", "job-1", None, true)
        .await
        .unwrap();
    assert_eq!(allowed, Some(deleted_job().to_json()));
}

#[tokio::test]
async fn delete_and_undelete_store_the_deletion_with_their_events() {
    let mut jobs = MockJobRepository::new();
    jobs.expect_get()
        .returning(|_, _, _| Ok(Some(stored(JobState::Failed))));
    jobs.expect_update()
        .withf(|_, job, _, events| {
            job.delete_time == Some(now())
                && job.purge_time == Some(now())
                && events[0].event_type == "test_job.deleted"
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let service = service_of(Arc::new(Changeable), jobs, MockRunQueued::new());
    let deleted = service
        .delete(&principal(), "amy-lee", "job-1", None, false)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(deleted["deleteTime"], json!(now()));
    let live = service
        .undelete(&principal(), "amy-lee", "job-1", None)
        .await
        .unwrap_err();
    assert_eq!(
        (live.code, live.reason),
        (Code::AlreadyExists, "RESOURCE_NOT_DELETED")
    );

    let mut jobs = MockJobRepository::new();
    jobs.expect_get()
        .returning(|_, _, _| Ok(Some(deleted_job())));
    jobs.expect_update()
        .withf(|_, job, _, events| {
            job.delete_time.is_none()
                && job.purge_time.is_none()
                && events[0].event_type == "test_job.undeleted"
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let service = service_of(Arc::new(Changeable), jobs, MockRunQueued::new());
    let restored = service
        .undelete(&principal(), "amy-lee", "job-1", None)
        .await
        .unwrap();
    assert!(restored.get("deleteTime").is_none(), "{restored}");
}

#[tokio::test]
async fn a_family_that_declares_no_input_fields_takes_no_changes() {
    let service = service(MockJobRepository::new(), MockRunQueued::new());
    assert!(!service.changeable());
    let update = service
        .update(&principal(), "amy-lee", "job-1", json!({}), None)
        .await
        .unwrap_err();
    assert_eq!(update.code, Code::Unimplemented);
    let delete = service
        .delete(&principal(), "amy-lee", "job-1", None, true)
        .await
        .unwrap_err();
    assert_eq!(delete.code, Code::Unimplemented);
}
