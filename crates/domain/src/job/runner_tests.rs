//! Unit tests of the job runner with a mocked repository and scripted job kinds.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::kind::{JobFamily, NoRunInput, Run, RunRequest};
use super::model::{ClaimedTask, JobRecord, JobState, RunEnd, TaskFinish};
use super::ports::{MockJobRepository, QueuedWork};
use super::records::{EntityOutput, MockRecordPreparer, OutputCause};
use super::runner::{AttemptOutcome, FinishedAttempt, JobRunner, RunReport, RunnerSettings};
use crate::activity::model::ActivityLog;
use crate::entity::model::{Entity, ScreeningStatus};
use crate::error::{Error, Result};
use crate::event::NewEvent;
use crate::id::MockIdGenerator;
use crate::principal::TenantId;
use crate::repository::{RepositoryError, Staged};
use crate::time::{MockClock, Pause, Timestamp};

/// Declares the test family `$family`: a family of `testJobs` that takes any inputs,
/// with the items given (its `execute`, and `ENDS_ELSEWHERE` for one that ends
/// elsewhere).
macro_rules! test_family {
    ($family:ident { $($items:tt)* }) => {
        #[async_trait]
        impl JobFamily for $family {
            const COLLECTION: &'static str = "testJobs";
            const EVENT_PREFIX: &'static str = "test_job";
            const OPERATION_TYPE: &'static str = "rics.v1alpha.TestJob";

            type Input = Value;
            type RunRequest = RunRequest;
            type RunInput = NoRunInput;
            type Output = Value;

            async fn check_input(
                &self,
                _principal: &crate::principal::Principal,
                _entity_id: &str,
                input: Value,
            ) -> Result<Value> {
                Ok(input)
            }

            $($items)*
        }
    };
}

fn now() -> Timestamp {
    Timestamp::parse_rfc3339("2026-11-22T10:00:00Z").unwrap()
}

/// A family that takes any inputs and whose runs do what the test says (given the
/// attempt); the service tests use it too.
pub(super) struct Scripted(pub(super) fn(u32) -> Result<Value>);

test_family!(Scripted {
    async fn execute(&self, run: Run<'_, Self>) -> Result<Value> {
        (self.0)(run.task.attempt)
    }
});

/// A family whose runs go on elsewhere once started: an automation execution, say.
struct HandsOff(Result<Value>);

test_family!(HandsOff {
    const ENDS_ELSEWHERE: bool = true;
    async fn execute(&self, _run: Run<'_, Self>) -> Result<Value> {
        self.0.clone()
    }
});

#[tokio::test]
async fn a_run_that_ends_elsewhere_is_handed_off_with_what_its_start_gave() {
    let (finish, report) = run_attempt(
        HandsOff(Ok(json!({"execution": "automations/a/executions/x"}))),
        1,
    )
    .await;
    let TaskFinish::HandedOff { metadata, effects } = finish else {
        panic!("handed off, not {finish:?}");
    };
    assert_eq!(metadata.value, "RUNNING");
    assert!(effects.is_empty(), "it recorded nothing");
    assert_eq!(metadata.kind, "rics.v1alpha.TestJob");
    assert_eq!(metadata.debug["execution"], "automations/a/executions/x");
    assert_eq!(metadata.debug["worker"], "worker-1");
    assert_eq!(report.attempts[0].outcome, AttemptOutcome::HandedOff);

    let (failed, _) = run_attempt(HandsOff(Err(Error::not_found("forms/f"))), 1).await;
    assert!(
        matches!(failed, TaskFinish::Complete(RunEnd { error: Some(_), .. })),
        "a start that fails for good fails the run"
    );
}

fn task(attempt: u32) -> ClaimedTask {
    ClaimedTask {
        tenant: TenantId::new("t1"),
        id: "op-1".into(),
        job_id: "job-1".into(),
        family: "testJobs".into(),
        operation_name: "entities/e/testJobs/job-1/operations/op-1".into(),
        attempt,
        claim: "claim".into(),
        queue_time: now(),
        claim_time: now(),
        run_input: Value::Null,
        job: Some(job()),
    }
}

fn job() -> JobRecord {
    JobRecord {
        id: "job-1".into(),
        family: "testJobs".into(),
        entity_id: "e".into(),
        made_entity_id: None,
        delete_time: None,
        purge_time: None,
        uid: "u".into(),
        revision: 2,
        state: JobState::Running,
        input: json!({}),
        result: None,
        latest_operation: Some("entities/e/testJobs/job-1/operations/op-1".into()),
        create_time: now(),
        update_time: now(),
    }
}

/// Runs one claimed attempt through `kind` and returns how it was finished.
async fn finish_of(kind: Scripted, attempt: u32) -> TaskFinish {
    run_attempt(kind, attempt).await.0
}

/// Runs one claimed attempt through `kind`: how it was finished, and the runner's report.
async fn run_attempt<F: JobFamily>(kind: F, attempt: u32) -> (TaskFinish, RunReport) {
    let (mut finishes, report) =
        run_recording(kind, attempt, MockRecordPreparer::new(), |_| Ok(true)).await;
    (finishes.remove(0), report)
}

/// Runs one claimed attempt through `kind`, whose records `preparer` prepares and
/// whose finishes the store answers with `store`: every finish written, in order,
/// and the runner's report.
async fn run_recording<F: JobFamily>(
    kind: F,
    attempt: u32,
    preparer: MockRecordPreparer,
    store: fn(&TaskFinish) -> std::result::Result<bool, RepositoryError>,
) -> (Vec<TaskFinish>, RunReport) {
    let mut jobs = MockJobRepository::new();
    jobs.expect_claim()
        .returning(move |_, _, _, _| Ok(vec![task(attempt)]));
    let (sender, receiver) = std::sync::mpsc::channel();
    jobs.expect_finish().returning(move |_, finish, _| {
        sender.send((*finish).clone()).unwrap();
        store(&finish)
    });
    let runner = runner_of(
        jobs,
        Arc::new(kind),
        preparer,
        RunnerSettings {
            max_attempts: 3,
            backoff_base: Duration::from_secs(2),
            backoff_max: Duration::from_secs(5),
            ..RunnerSettings::default()
        },
    );
    let report = runner.run_once().await.unwrap();
    assert_eq!(report.claimed, 1);
    assert!(report.unfinished.is_empty());
    (receiver.try_iter().collect(), report)
}

/// A runner of `kind` over `jobs` and `preparer`, at [`now`], whose claims and ids
/// are `claim` and `id`.
fn runner_of(
    jobs: MockJobRepository,
    kind: Arc<dyn super::kind::JobKind>,
    preparer: MockRecordPreparer,
    settings: RunnerSettings,
) -> JobRunner {
    let mut clock = MockClock::new();
    clock.expect_now().returning(now);
    let mut ids = MockIdGenerator::new();
    ids.expect_resource_id().returning(|| "id".into());
    ids.expect_uid().returning(|| "claim".into());
    JobRunner::new(
        "worker-1".into(),
        Arc::new(jobs),
        vec![kind],
        Arc::new(preparer),
        Arc::new(clock),
        Arc::new(ids),
        settings,
    )
}

/// A family whose runs record an activity log, then end as the test says.
struct Recording(fn(u32) -> Result<Value>);

test_family!(Recording {
    async fn execute(&self, run: Run<'_, Self>) -> Result<Value> {
        let worker = super::model::worker_principal(&run.task.tenant);
        let log = ActivityLog {
            description: "screened".into(),
            ..ActivityLog::default()
        };
        let first = run.records.log(&worker, "log-op-1", log.clone()).await?;
        let again = run.records.log(&worker, "log-op-1", log).await?;
        assert_eq!(first, again, "a record asked for twice is kept once");
        (self.0)(run.task.attempt)
    }
});

/// A preparer that completes each log with its name and one event.
fn preparing_logs() -> MockRecordPreparer {
    let mut preparer = MockRecordPreparer::new();
    preparer
        .expect_prepare_log()
        .times(1)
        .returning(|principal, id, mut log, _| {
            log.name = format!("activityLogs/{id}");
            let event = NewEvent::new(
                "event-1".into(),
                "activity_log.created",
                &log.name,
                principal,
                now(),
            );
            Ok(Staged {
                resource: log,
                events: vec![event],
            })
        });
    preparer
}

#[tokio::test]
async fn the_report_tells_how_each_attempt_ended_for_the_metrics() {
    fn busy(_: u32) -> Result<Value> {
        Err(Error::unavailable("BUSY", "try later"))
    }
    let cases = [
        (Scripted(|_| Ok(json!({}))), 1, AttemptOutcome::Succeeded),
        (Scripted(busy), 1, AttemptOutcome::Retried),
        (Scripted(busy), 3, AttemptOutcome::Failed),
        (
            Scripted(|_| Err(Error::not_found("entities/e"))),
            1,
            AttemptOutcome::Failed,
        ),
    ];
    for (kind, attempt, outcome) in cases {
        let (_, report) = run_attempt(kind, attempt).await;
        assert_eq!(
            report.attempts,
            vec![FinishedAttempt {
                family: "testJobs".into(),
                outcome,
                duration: Duration::ZERO,
            }],
            "attempt {attempt} should end {outcome:?}"
        );
    }
}

#[tokio::test]
async fn a_success_completes_the_job_with_its_result() {
    let finish = finish_of(Scripted(|_| Ok(json!({"status": "CLEAR"}))), 1).await;
    let TaskFinish::Complete(RunEnd {
        job,
        response,
        error,
        events,
        metadata,
        effects,
    }) = finish
    else {
        panic!("not completed: {finish:?}");
    };
    assert_eq!(job.state, JobState::Succeeded);
    assert_eq!(job.revision, 3);
    assert_eq!(job.result, Some(json!({"status": "CLEAR"})));
    assert_eq!(response.unwrap()["state"], "SUCCEEDED");
    assert!(error.is_none());
    assert!(effects.is_empty(), "it recorded nothing");
    assert_eq!(metadata.kind, "rics.v1alpha.TestJob");
    assert_eq!(metadata.debug["worker"], "worker-1");
    assert_eq!(events[0].event_type, "test_job.succeeded");
    assert_eq!(events[0].entity_id.as_deref(), Some("e"));
}

#[tokio::test]
async fn transient_failures_retry_with_backoff_until_the_last_attempt() {
    let busy = |_| Err(Error::unavailable("BUSY", "try later"));
    let first = finish_of(Scripted(busy), 1).await;
    assert_eq!(
        first,
        TaskFinish::Retry {
            error: "try later".into(),
            at: now().plus(Duration::from_secs(2))
        }
    );
    let second = finish_of(Scripted(busy), 2).await;
    assert!(
        matches!(second, TaskFinish::Retry { at, .. } if at == now().plus(Duration::from_secs(4)))
    );
    let TaskFinish::Complete(RunEnd { job, error, .. }) = finish_of(Scripted(busy), 3).await else {
        panic!("the last attempt completes the run");
    };
    assert_eq!(job.state, JobState::Failed);
    assert_eq!(error.unwrap().code, 14, "UNAVAILABLE's number");
}

#[tokio::test]
async fn permanent_failures_and_panics_fail_at_once() {
    let TaskFinish::Complete(RunEnd { job, error, .. }) =
        finish_of(Scripted(|_| Err(Error::not_found("entities/e"))), 1).await
    else {
        panic!("a NOT_FOUND is not retried");
    };
    assert_eq!((job.state, error.unwrap().code), (JobState::Failed, 5));
    let TaskFinish::Complete(RunEnd {
        job, error, events, ..
    }) = finish_of(Scripted(|_| panic!("handler bug")), 1).await
    else {
        panic!("a panic fails the run");
    };
    assert_eq!(job.state, JobState::Failed);
    assert_eq!(error.unwrap().code, 13, "INTERNAL's number");
    assert_eq!(events[0].event_type, "test_job.failed");
}

#[tokio::test]
async fn what_a_run_records_is_written_with_its_end_and_a_failed_attempt_records_nothing() {
    let (finishes, _) = run_recording(Recording(|_| Ok(json!({}))), 1, preparing_logs(), |_| {
        Ok(true)
    })
    .await;
    let [TaskFinish::Complete(end)] = finishes.as_slice() else {
        panic!("one end: {finishes:?}");
    };
    let names: Vec<&str> = end
        .effects
        .logs
        .iter()
        .map(|l| l.resource.name.as_str())
        .collect();
    assert_eq!(names, ["activityLogs/log-op-1"]);
    assert_eq!(
        end.effects.logs[0].events[0].event_type,
        "activity_log.created"
    );

    let (finishes, _) = run_recording(
        Recording(|_| Err(Error::unavailable("BUSY", "try later"))),
        1,
        preparing_logs(),
        |_| Ok(true),
    )
    .await;
    assert!(matches!(finishes.as_slice(), [TaskFinish::Retry { .. }]));

    let (finishes, _) = run_recording(
        Recording(|_| Err(Error::not_found("entities/e"))),
        1,
        preparing_logs(),
        |_| Ok(true),
    )
    .await;
    let [TaskFinish::Complete(end)] = finishes.as_slice() else {
        panic!("one end: {finishes:?}");
    };
    assert_eq!(end.job.state, JobState::Failed);
    assert!(end.effects.is_empty(), "a failed run records nothing");
}

#[tokio::test]
async fn an_entity_changed_during_the_run_makes_the_attempt_fail_without_its_records() {
    // The store refuses an end with records: one of them is the entity's change.
    let refused = |finish: &TaskFinish| match finish {
        TaskFinish::Complete(end) if !end.effects.is_empty() => Err(RepositoryError::Conflict),
        _ => Ok(true),
    };
    let (finishes, report) =
        run_recording(Recording(|_| Ok(json!({}))), 1, preparing_logs(), refused).await;
    let [TaskFinish::Complete(_), retry] = finishes.as_slice() else {
        panic!("an end refused, then another: {finishes:?}");
    };
    assert_eq!(
        retry,
        &TaskFinish::Retry {
            error: Error::concurrent_modification("entities/e").message,
            at: now().plus(Duration::from_secs(2)),
        }
    );
    assert_eq!(report.attempts[0].outcome, AttemptOutcome::Retried);

    let (finishes, report) =
        run_recording(Recording(|_| Ok(json!({}))), 3, preparing_logs(), refused).await;
    let [_, TaskFinish::Complete(end)] = finishes.as_slice() else {
        panic!("the last attempt fails the run: {finishes:?}");
    };
    assert_eq!(
        end.error.as_ref().map(|e| e.code),
        Some(10),
        "ABORTED's number"
    );
    assert!(end.effects.is_empty());
    assert_eq!(report.attempts[0].outcome, AttemptOutcome::Failed);
}

/// A family whose runs set the screening status of the entity they read at
/// revision 1.
struct SettingStatus;

test_family!(SettingStatus {
    async fn execute(&self, run: Run<'_, Self>) -> Result<Value> {
        let read = Entity {
            name: "entities/e".into(),
            revision: 1,
            ..Entity::default()
        };
        let cause = OutputCause {
            field: "job",
            name: run.job.name(),
        };
        let status = EntityOutput::ScreeningStatus(ScreeningStatus::PotentialMatch);
        run.records
            .entity_output(&run.task.tenant, read, status, cause)
            .await?;
        Ok(json!({}))
    }
});

#[tokio::test]
async fn an_entity_changed_during_the_run_gets_the_output_set_again_at_its_end() {
    let mut preparer = MockRecordPreparer::new();
    preparer
        .expect_prepare_output()
        .returning(|_, entity, output, _| {
            Ok(output.applied_to(entity).map(|mut changed| {
                changed.revision = entity.revision + 1;
                Staged {
                    resource: changed,
                    events: Vec::new(),
                }
            }))
        });
    // Another writer took the entity to revision 7 meanwhile.
    preparer.expect_current_entity().times(1).returning(|_, _| {
        Ok(Entity {
            name: "entities/e".into(),
            display_name: "Renamed".into(),
            revision: 7,
            ..Entity::default()
        })
    });
    let first_refused = |finish: &TaskFinish| match finish {
        TaskFinish::Complete(end) if end.effects.entities[0].resource.revision == 2 => {
            Err(RepositoryError::Conflict)
        }
        _ => Ok(true),
    };
    let (finishes, report) = run_recording(SettingStatus, 1, preparer, first_refused).await;
    let [TaskFinish::Complete(_), TaskFinish::Complete(end)] = finishes.as_slice() else {
        panic!("an end refused, then the end again: {finishes:?}");
    };
    let entity = &end.effects.entities[0].resource;
    assert_eq!(
        (
            entity.revision,
            entity.display_name.as_str(),
            entity.screening_status
        ),
        (8, "Renamed", ScreeningStatus::PotentialMatch),
        "set on the entity as it is now, keeping the other change"
    );
    assert_eq!(end.job.state, JobState::Succeeded);
    assert_eq!(report.attempts[0].outcome, AttemptOutcome::Succeeded);
}

#[test]
fn backoff_doubles_up_to_its_ceiling() {
    let runner = JobRunner::new(
        "worker-1".into(),
        Arc::new(MockJobRepository::new()),
        vec![],
        Arc::new(MockRecordPreparer::new()),
        Arc::new(MockClock::new()),
        Arc::new(MockIdGenerator::new()),
        RunnerSettings::default(),
    );
    let waits: Vec<u64> = (1..=11).map(|a| runner.backoff(a).as_secs()).collect();
    assert_eq!(waits, [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300]);
}

/// Counts the pauses it makes, returning at once (after letting other futures run).
#[derive(Default)]
struct CountedPause(std::sync::atomic::AtomicU32);

#[async_trait]
impl Pause for CountedPause {
    async fn pause(&self, duration: Duration) {
        assert_eq!(duration, Duration::from_secs(20), "a third of the lease");
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        tokio::task::yield_now().await;
    }
}

/// Work of the queue `longWork` that ends once its lease was renewed three times.
struct LongWork(Arc<std::sync::atomic::AtomicU32>);

#[async_trait]
impl QueuedWork for LongWork {
    fn queue(&self) -> &'static str {
        "longWork"
    }

    async fn work(&self, _task: &ClaimedTask) -> Result<AttemptOutcome> {
        while self.0.load(std::sync::atomic::Ordering::SeqCst) < 3 {
            tokio::task::yield_now().await;
        }
        Ok(AttemptOutcome::Succeeded)
    }
}

#[tokio::test]
async fn a_run_outlasting_its_lease_has_it_renewed_while_it_works() {
    let pause = Arc::new(CountedPause::default());
    let renewals = Arc::new(std::sync::atomic::AtomicU32::new(0));
    let mut jobs = MockJobRepository::new();
    jobs.expect_claim().returning(|_, _, _, _| {
        Ok(vec![ClaimedTask {
            family: "longWork".into(),
            ..task(1)
        }])
    });
    let lease_end = now().plus(Duration::from_secs(60));
    jobs.expect_renew()
        .withf(move |task, until| task.claim == "claim" && *until == lease_end)
        .times(3)
        .returning({
            let renewals = renewals.clone();
            move |_, _| {
                renewals.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                Ok(true)
            }
        });
    let mut clock = MockClock::new();
    clock.expect_now().returning(now);
    let mut ids = MockIdGenerator::new();
    ids.expect_uid().returning(|| "claim".into());
    let runner = JobRunner::new(
        "worker-1".into(),
        Arc::new(jobs),
        vec![],
        Arc::new(MockRecordPreparer::new()),
        Arc::new(clock),
        Arc::new(ids),
        RunnerSettings::default(),
    )
    .with_work(Arc::new(LongWork(renewals.clone())))
    .with_lease_renewals(pause.clone());
    let report = tokio::time::timeout(Duration::from_secs(10), runner.run_once())
        .await
        .expect("the work ends once its lease was renewed three times")
        .unwrap();
    assert_eq!(report.attempts.len(), 1);
    assert!(report.unfinished.is_empty());
    // Once it ended, nothing renews it any more.
    assert_eq!(pause.0.load(std::sync::atomic::Ordering::SeqCst), 4);
}

/// The claimed run `i` of a batch: its own operation, job and claim.
fn task_of_batch(i: usize) -> ClaimedTask {
    ClaimedTask {
        id: format!("op-{i}"),
        operation_name: format!("entities/e/testJobs/job-1/operations/op-{i}"),
        ..task(1)
    }
}

/// Runs a claimed batch of `runs` successful runs, the store answering each write of
/// several ends with `together`: the operations of the ends written alone and those
/// of each write of several, in order, and the runner's report.
async fn run_batch(
    runs: usize,
    together: fn() -> std::result::Result<Vec<bool>, RepositoryError>,
) -> (Vec<String>, Vec<Vec<String>>, RunReport) {
    let mut jobs = MockJobRepository::new();
    jobs.expect_claim()
        .returning(move |_, _, _, _| Ok((0..runs).map(task_of_batch).collect()));
    let (alone, written_alone) = std::sync::mpsc::channel();
    jobs.expect_finish().returning(move |task, _, _| {
        alone.send(task.id.clone()).unwrap();
        Ok(true)
    });
    let (batch, written_together) = std::sync::mpsc::channel();
    jobs.expect_finish_all().returning(move |ends| {
        batch
            .send(ends.iter().map(|end| end.task.id.clone()).collect())
            .unwrap();
        together()
    });
    let runner = runner_of(
        jobs,
        Arc::new(Scripted(|_| Ok(json!({})))),
        MockRecordPreparer::new(),
        RunnerSettings::default(),
    );
    let report = runner.run_once().await.unwrap();
    (
        written_alone.try_iter().collect(),
        written_together.try_iter().collect(),
        report,
    )
}

#[tokio::test]
async fn the_ends_of_a_batch_that_arrive_during_a_write_are_written_together() {
    let (alone, together, report) = run_batch(4, || Ok(vec![true; 3])).await;
    assert!(
        together.iter().any(|ends| ends.len() > 1),
        "ends written together: {together:?}"
    );
    let mut written: Vec<String> = alone.into_iter().chain(together.concat()).collect();
    written.sort();
    assert_eq!(written, ["op-0", "op-1", "op-2", "op-3"], "each end once");
    assert_eq!(report.attempts.len(), 4);
    assert!(
        report
            .attempts
            .iter()
            .all(|a| a.outcome == AttemptOutcome::Succeeded)
    );
    assert!(report.unfinished.is_empty());
}

#[tokio::test]
async fn ends_that_cannot_be_written_together_are_written_each_alone() {
    let (alone, together, report) = run_batch(4, || Err(RepositoryError::Conflict)).await;
    let refused: Vec<String> = together.concat();
    assert!(!refused.is_empty(), "a write of several was tried");
    for id in &refused {
        assert!(alone.contains(id), "{id} written alone after: {alone:?}");
    }
    assert_eq!(report.attempts.len(), 4);
    assert!(report.unfinished.is_empty());
}
