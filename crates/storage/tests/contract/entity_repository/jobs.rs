//! The job repository: a run starts in one transaction (job, operation, task,
//! events), workers claim ready tasks with a lease (never the same one twice), a lost
//! claim cannot finish, a retry waits its backoff, and erasure removes an entity's
//! jobs with their runs.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use rics_domain::activity::model::{ActivityLog, ActivityType};
use rics_domain::entity::model::{Entity, ScreeningStatus};
use rics_domain::entity::repository::EraseGuard;
use rics_domain::job::model::{
    JobRecord, JobState, NewTask, RunEnd, RunStart, TaskEnd, TaskFinish,
};
use rics_domain::job::ports::JobRepository;
use rics_domain::job::records::RunEffects;
use rics_domain::job::service::JOB_LIST;
use rics_domain::lifecycle::SoftDeletable;
use rics_domain::operation::{Operation, OperationError, OperationMetadata};
use rics_domain::repository::{RepositoryError, ResourceStore, Staged};
use rics_storage::{Backend, DieselActivityLogRepository};
use serde_json::json;

use super::support::{Fixture, as_stored, entity, event};
use crate::support::{at, t1, t2};

const FAMILY: &str = "pepSanctionIndividualEntityJobs";

fn job(id: &str, entity_id: &str) -> JobRecord {
    JobRecord {
        id: id.to_owned(),
        family: FAMILY.to_owned(),
        entity_id: entity_id.to_owned(),
        made_entity_id: None,
        delete_time: None,
        purge_time: None,
        uid: format!("uid-{id}"),
        revision: 1,
        state: JobState::Pending,
        input: json!({"threshold": 0.7}),
        result: None,
        latest_operation: None,
        create_time: at(1),
        update_time: at(1),
    }
}

/// Starts a run of `job` at `at(seconds)`; returns the running job.
async fn start(
    repo: &dyn JobRepository,
    tenant: &rics_domain::principal::TenantId,
    job: &JobRecord,
    run: &str,
    seconds: i64,
) -> JobRecord {
    let name = format!("{}/operations/{run}", job.name());
    let mut running = job.clone();
    running.state = JobState::Running;
    running.latest_operation = Some(name.clone());
    running.revision = job.revision + 1;
    let operation = Operation {
        name: name.clone(),
        metadata: OperationMetadata {
            kind: "t".into(),
            value: "QUEUED".into(),
            debug: json!({"link": run}),
        },
        done: false,
        error: None,
        response: None,
        create_time: Some(at(seconds)),
        redact_after: None,
    };
    // The first run carries an input for that run only; the others none.
    let run_input = if run == "run-1" {
        json!({"idType": "PASSPORT"})
    } else {
        serde_json::Value::Null
    };
    let task = NewTask {
        id: run.to_owned(),
        operation_name: name,
        queue_time: at(seconds),
        run_input,
    };
    let start = RunStart {
        job: running.clone(),
        expected_revision: job.revision,
        operation,
        task,
    };
    repo.start_run(
        tenant,
        &start,
        None,
        &[event(
            &format!("ev-{run}"),
            Some(&job.entity_id),
            "job.started",
            seconds,
        )],
    )
    .await
    .unwrap();
    running
}

fn complete(job: &JobRecord, run: &str) -> TaskFinish {
    let mut ended = job.clone();
    ended.state = JobState::Succeeded;
    ended.result = Some(json!({"status": "CLEAR"}));
    ended.revision = job.revision + 1;
    TaskFinish::Complete(RunEnd {
        response: Some(ended.to_json()),
        job: ended,
        metadata: OperationMetadata {
            kind: "t".into(),
            value: "SUCCEEDED".into(),
            debug: json!({"attempts": 1}),
        },
        error: None,
        events: vec![event(
            &format!("ev-{run}-done"),
            Some(&job.entity_id),
            "job.succeeded",
            9,
        )],
        effects: RunEffects::default(),
    })
}

async fn a_run_starts_is_claimed_and_completes_once(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.jobs.clone();
    let operations = f.operations.clone();
    let created = job("job-1", "amy");
    repo.create(
        &t1(),
        &created,
        None,
        &[event("ev-c", Some("amy"), "job.created", 1)],
    )
    .await
    .unwrap();
    assert_eq!(
        repo.get(&t1(), FAMILY, "job-1").await,
        Ok(Some(created.clone()))
    );
    assert_eq!(repo.get(&t1(), "otherJobs", "job-1").await, Ok(None));
    assert_eq!(repo.get(&t2(), FAMILY, "job-1").await, Ok(None));
    let running = start(repo.as_ref(), &t1(), &created, "run-1", 2).await;
    // A stale revision cannot start another run.
    let stale = start_again(repo.as_ref(), &created).await;
    assert_eq!(stale, Err(RepositoryError::Conflict));
    assert_eq!(
        repo.get(&t1(), FAMILY, "job-1")
            .await
            .unwrap()
            .unwrap()
            .state,
        JobState::Running
    );

    assert!(
        repo.claim("c0", at(1), Duration::from_secs(10), 5)
            .await
            .unwrap()
            .is_empty(),
        "not before it is queued"
    );
    let claimed = repo
        .claim("c1", at(3), Duration::from_secs(10), 5)
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    let task = &claimed[0];
    assert_eq!(
        (
            task.tenant.clone(),
            task.job_id.as_str(),
            task.attempt,
            task.claim.as_str()
        ),
        (t1(), "job-1", 1, "c1")
    );
    assert_eq!(
        task.run_input,
        json!({"idType": "PASSPORT"}),
        "the run's input"
    );
    assert_eq!(
        task.job.as_ref(),
        Some(&running),
        "the claim reads the running job with its task"
    );
    assert!(
        repo.claim("c2", at(4), Duration::from_secs(10), 5)
            .await
            .unwrap()
            .is_empty(),
        "claimed tasks are not ready"
    );

    assert_eq!(
        repo.finish(task, Arc::new(complete(&running, "run-1")), at(5))
            .await,
        Ok(true)
    );
    assert_eq!(
        repo.finish(task, Arc::new(complete(&running, "run-1")), at(6))
            .await,
        Ok(false),
        "completes once"
    );
    let stored = repo.get(&t1(), FAMILY, "job-1").await.unwrap().unwrap();
    assert_eq!(stored.state, JobState::Succeeded);
    assert_eq!(stored.result, Some(json!({"status": "CLEAR"})));
    let operation = operations
        .get(&t1(), &task.operation_name)
        .await
        .unwrap()
        .unwrap();
    assert!(operation.done);
    assert_eq!(operation.response.unwrap()["state"], "SUCCEEDED");
    assert_eq!(operation.metadata.value, "SUCCEEDED");
    assert!(
        repo.claim("c3", at(100), Duration::from_secs(10), 5)
            .await
            .unwrap()
            .is_empty(),
        "done tasks never come back"
    );
    assert_eq!(
        f.event_ids(&t1()).await,
        vec!["ev-c", "ev-run-1", "ev-run-1-done"]
    );
}

async fn start_again(
    repo: &dyn JobRepository,
    stale: &JobRecord,
) -> Result<rics_domain::repository::CreateOutcome, RepositoryError> {
    let mut running = stale.clone();
    running.revision = stale.revision + 1;
    let operation = Operation {
        name: format!("{}/operations/run-x", stale.name()),
        metadata: OperationMetadata::default(),
        done: false,
        error: None,
        response: None,
        create_time: Some(at(3)),
        redact_after: None,
    };
    let task = NewTask {
        id: "run-x".into(),
        operation_name: operation.name.clone(),
        queue_time: at(3),
        run_input: serde_json::Value::Null,
    };
    let start = RunStart {
        job: running,
        expected_revision: stale.revision,
        operation,
        task,
    };
    repo.start_run(&t1(), &start, None, &[]).await
}

contract!(a_run_starts_is_claimed_and_completes_once);

async fn a_run_records_with_its_end_or_not_at_all(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.jobs.clone();
    let logs = DieselActivityLogRepository::new(f.db.clone());
    let amy = entity("amy", "Amy", 0);
    f.create(&t1(), &amy).await;
    let created = job("job-1", "amy");
    repo.create(&t1(), &created, None, &[]).await.unwrap();
    let running = start(repo.as_ref(), &t1(), &created, "run-1", 2).await;
    let task = repo
        .claim("c1", at(3), Duration::from_secs(10), 5)
        .await
        .unwrap()
        .remove(0);
    let mut log = ActivityLog {
        activity_type: ActivityType::PepAndSanctions,
        source: "RICS".into(),
        entity_names: vec!["entities/amy".into()],
        occur_time: Some(at(4)),
        ..ActivityLog::default()
    };
    log.begin(
        ActivityLog::name_of("screening-run-1"),
        "uid-log".into(),
        at(4),
    );
    // The run read amy at revision 1 and sets her status: revision 2.
    let screened = |read: &Entity| {
        let mut changed = as_stored(read);
        changed.screening_status = ScreeningStatus::PotentialMatch;
        changed.revision = read.revision + 1;
        changed.etag = rics_domain::resource::etag(&changed.uid, changed.revision);
        Staged {
            resource: changed,
            events: vec![event("ev-amy", Some("amy"), "entity.updated", 4)],
        }
    };
    let recorded = |read: &Entity| {
        let TaskFinish::Complete(mut end) = complete(&running, "run-1") else {
            unreachable!("complete ends a run");
        };
        end.effects = RunEffects {
            logs: vec![Staged {
                resource: log.clone(),
                events: vec![event("ev-log", Some("amy"), "activity_log.created", 4)],
            }],
            alerts: Vec::new(),
            entities: vec![screened(read)],
        };
        TaskFinish::Complete(end)
    };

    // Amy changed after the run read her: nothing of the end is stored.
    let mut renamed = as_stored(&amy);
    renamed.display_name = "Amy Lee".into();
    renamed.revision = 2;
    f.repo.update(&t1(), &renamed, 1, &[]).await.unwrap();
    assert_eq!(
        repo.finish(&task, Arc::new(recorded(&amy)), at(5)).await,
        Err(RepositoryError::Conflict)
    );
    assert_eq!(
        ResourceStore::get(&logs, &t1(), "screening-run-1").await,
        Ok(None)
    );
    let job = repo.get(&t1(), FAMILY, "job-1").await.unwrap().unwrap();
    assert_eq!(job.state, JobState::Running, "the run is not over");
    assert!(f.event_ids(&t1()).await.iter().all(|id| id != "ev-log"));

    // A log stored already under its id (by an attempt of a version of rics that
    // wrote records at once) is kept as stored, without a second event.
    let mut earlier = log.clone();
    earlier.begin(
        ActivityLog::name_of("screening-run-0"),
        "uid-0".into(),
        at(2),
    );
    ResourceStore::create(&logs, &t1(), &earlier, None, &[])
        .await
        .unwrap();
    let mut again = log.clone();
    again.begin(
        ActivityLog::name_of("screening-run-0"),
        "uid-again".into(),
        at(6),
    );
    let TaskFinish::Complete(mut end) = recorded(&renamed) else {
        unreachable!("recorded completes the run");
    };
    end.effects.logs.push(Staged {
        resource: again,
        events: vec![event("ev-again", Some("amy"), "activity_log.created", 6)],
    });

    // Read again, the run ends with all it recorded.
    assert_eq!(
        repo.finish(&task, Arc::new(TaskFinish::Complete(end)), at(6))
            .await,
        Ok(true)
    );
    assert_eq!(
        ResourceStore::get(&logs, &t1(), "screening-run-0").await,
        Ok(Some(earlier))
    );
    let stored = f.repo.get(&t1(), "amy").await.unwrap().unwrap();
    assert_eq!(
        (
            stored.display_name.as_str(),
            stored.screening_status,
            stored.revision
        ),
        ("Amy Lee", ScreeningStatus::PotentialMatch, 3)
    );
    assert_eq!(
        ResourceStore::get(&logs, &t1(), "screening-run-1").await,
        Ok(Some(log.clone()))
    );
    let ids = f.event_ids(&t1()).await;
    for id in ["ev-amy", "ev-log", "ev-run-1-done"] {
        assert!(ids.iter().any(|stored| stored == id), "{id} in {ids:?}");
    }
    assert!(!ids.iter().any(|id| id == "ev-again"), "{ids:?}");
}

contract!(a_run_records_with_its_end_or_not_at_all);

/// A staged activity log about amy, named `screening-{id}`, with its event.
fn staged_log(id: &str) -> Staged<ActivityLog> {
    let mut log = ActivityLog {
        activity_type: ActivityType::PepAndSanctions,
        source: "RICS".into(),
        entity_names: vec!["entities/amy".into()],
        occur_time: Some(at(4)),
        ..ActivityLog::default()
    };
    log.begin(
        ActivityLog::name_of(&format!("screening-{id}")),
        format!("uid-{id}"),
        at(4),
    );
    Staged {
        resource: log,
        events: vec![event(
            &format!("ev-log-{id}"),
            Some("amy"),
            "activity_log.created",
            4,
        )],
    }
}

async fn a_batch_of_ends_is_written_together_as_each_alone(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.jobs.clone();
    let logs = DieselActivityLogRepository::new(f.db.clone());
    f.create(&t1(), &entity("amy", "Amy", 0)).await;
    let mut running = Vec::new();
    for (tenant, job_id, run) in [
        (t1(), "job-1", "run-1"),
        (t1(), "job-2", "run-2"),
        (t1(), "job-3", "run-3"),
        (t1(), "job-4", "run-4"),
        (t2(), "job-5", "run-5"),
    ] {
        let created = job(job_id, "amy");
        repo.create(&tenant, &created, None, &[]).await.unwrap();
        running.push(start(repo.as_ref(), &tenant, &created, run, 2).await);
    }
    let mut claimed = repo
        .claim("c1", at(3), Duration::from_secs(10), 10)
        .await
        .unwrap();
    claimed.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(claimed.len(), 5);
    let with_log = |run: usize, log: &str| {
        let TaskFinish::Complete(mut end) = complete(&running[run], &format!("run-{}", run + 1))
        else {
            unreachable!("complete ends a run");
        };
        end.effects.logs.push(staged_log(log));
        TaskFinish::Complete(end)
    };
    // The fourth run's claim was lost: its end is not written, the others' are.
    let mut lost = claimed[3].clone();
    lost.claim = "lost".into();
    let ends = vec![
        (claimed[0].clone(), with_log(0, "a")),
        (
            claimed[1].clone(),
            TaskFinish::Retry {
                error: "busy".into(),
                at: at(30),
            },
        ),
        (
            claimed[2].clone(),
            TaskFinish::HandedOff {
                metadata: OperationMetadata {
                    kind: "t".into(),
                    value: "RUNNING".into(),
                    debug: json!({"execution": "x"}),
                },
                effects: RunEffects {
                    logs: vec![staged_log("c")],
                    ..RunEffects::default()
                },
            },
        ),
        (lost, complete(&running[3], "run-4")),
        (claimed[4].clone(), complete(&running[4], "run-5")),
    ];
    let batch = ends
        .into_iter()
        .map(|(task, finish)| TaskEnd {
            task,
            finish: Arc::new(finish),
            time: at(5),
        })
        .collect();
    assert_eq!(
        repo.finish_all(batch).await,
        Ok(vec![true, true, true, false, true])
    );

    let state = |tenant, id| {
        let repo = repo.clone();
        async move { repo.get(&tenant, FAMILY, id).await.unwrap().unwrap().state }
    };
    assert_eq!(state(t1(), "job-1").await, JobState::Succeeded);
    assert_eq!(state(t1(), "job-2").await, JobState::Running, "retried");
    assert_eq!(state(t1(), "job-3").await, JobState::Running, "handed off");
    assert_eq!(state(t1(), "job-4").await, JobState::Running, "claim lost");
    assert_eq!(
        state(t2(), "job-5").await,
        JobState::Succeeded,
        "another tenant's"
    );
    let operation = |tenant, task: &rics_domain::job::model::ClaimedTask| {
        let (operations, name) = (f.operations.clone(), task.operation_name.clone());
        async move { operations.get(&tenant, &name).await.unwrap().unwrap() }
    };
    let first = operation(t1(), &claimed[0]).await;
    assert!(first.done);
    assert_eq!(
        first.metadata.debug,
        json!({"link": "run-1", "attempts": 1})
    );
    let handed_off = operation(t1(), &claimed[2]).await;
    assert!(!handed_off.done);
    assert_eq!(
        handed_off.metadata.debug,
        json!({"link": "run-3", "execution": "x"})
    );
    assert!(!operation(t1(), &claimed[3]).await.done);
    assert!(operation(t2(), &claimed[4]).await.done);
    for id in ["screening-a", "screening-c"] {
        let log = ResourceStore::get(&logs, &t1(), id).await.unwrap();
        assert_eq!(
            log.map(|l| l.entity_names),
            Some(vec!["entities/amy".to_owned()])
        );
    }
    assert_eq!(
        f.event_ids(&t1()).await,
        vec![
            "ev-log-a",
            "ev-log-c",
            "ev-run-1",
            "ev-run-1-done",
            "ev-run-2",
            "ev-run-3",
            "ev-run-4",
        ]
    );
    assert_eq!(f.event_ids(&t2()).await, vec!["ev-run-5", "ev-run-5-done"]);

    // The run whose claim was lost still holds its claim, and its worker's own end is
    // written; the retried run waits for its backoff.
    assert_eq!(
        repo.finish(&claimed[3], Arc::new(complete(&running[3], "run-4")), at(6))
            .await,
        Ok(true)
    );
    let ready = repo
        .claim("c2", at(30), Duration::from_secs(10), 10)
        .await
        .unwrap();
    assert_eq!(
        ready.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
        vec!["run-2"]
    );
}

contract!(a_batch_of_ends_is_written_together_as_each_alone);

async fn a_batch_with_one_end_refused_writes_none(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.jobs.clone();
    let amy = entity("amy", "Amy", 0);
    f.create(&t1(), &amy).await;
    let mut running = Vec::new();
    for (job_id, run) in [("job-1", "run-1"), ("job-2", "run-2")] {
        let created = job(job_id, "amy");
        repo.create(&t1(), &created, None, &[]).await.unwrap();
        running.push(start(repo.as_ref(), &t1(), &created, run, 2).await);
    }
    let mut claimed = repo
        .claim("c1", at(3), Duration::from_secs(10), 10)
        .await
        .unwrap();
    claimed.sort_by(|a, b| a.id.cmp(&b.id));
    // The second run set amy's status on the amy it read, who changed since.
    let TaskFinish::Complete(mut stale) = complete(&running[1], "run-2") else {
        unreachable!("complete ends a run");
    };
    let mut screened = as_stored(&amy);
    screened.screening_status = ScreeningStatus::PotentialMatch;
    screened.revision = 2;
    stale.effects.entities.push(Staged {
        resource: screened,
        events: Vec::new(),
    });
    let mut renamed = as_stored(&amy);
    renamed.display_name = "Amy Lee".into();
    renamed.revision = 2;
    f.repo.update(&t1(), &renamed, 1, &[]).await.unwrap();
    let batch = vec![
        TaskEnd {
            task: claimed[0].clone(),
            finish: Arc::new(complete(&running[0], "run-1")),
            time: at(5),
        },
        TaskEnd {
            task: claimed[1].clone(),
            finish: Arc::new(TaskFinish::Complete(stale)),
            time: at(5),
        },
    ];
    assert_eq!(repo.finish_all(batch).await, Err(RepositoryError::Conflict));
    for id in ["job-1", "job-2"] {
        let job = repo.get(&t1(), FAMILY, id).await.unwrap().unwrap();
        assert_eq!(job.state, JobState::Running, "{id} is not over");
    }
    assert_eq!(f.event_ids(&t1()).await, vec!["ev-run-1", "ev-run-2"]);
    // Alone, the first end is written.
    assert_eq!(
        repo.finish(&claimed[0], Arc::new(complete(&running[0], "run-1")), at(6))
            .await,
        Ok(true)
    );
}

contract!(a_batch_with_one_end_refused_writes_none);

async fn a_run_handed_off_ends_once_outside_the_runner(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.jobs.clone();
    let created = job("job-1", "amy");
    repo.create(&t1(), &created, None, &[]).await.unwrap();
    let running = start(repo.as_ref(), &t1(), &created, "run-2", 2).await;
    let task = repo
        .claim("c1", at(3), Duration::from_secs(10), 5)
        .await
        .unwrap()
        .remove(0);
    let handed_off = TaskFinish::HandedOff {
        metadata: OperationMetadata {
            kind: "t".into(),
            value: "RUNNING".into(),
            debug: json!({"execution": "automations/a/executions/x"}),
        },
        effects: RunEffects::default(),
    };
    assert_eq!(
        repo.finish(&task, Arc::new(handed_off), at(4)).await,
        Ok(true)
    );
    assert!(
        repo.claim("c2", at(100), Duration::from_secs(10), 5)
            .await
            .unwrap()
            .is_empty(),
        "a task handed off is done"
    );
    let name = task.operation_name.clone();
    let operation = f.operations.get(&t1(), &name).await.unwrap().unwrap();
    assert!(!operation.done);
    assert_eq!(operation.metadata.value, "RUNNING");
    assert_eq!(
        operation.metadata.debug,
        json!({"link": "run-2", "execution": "automations/a/executions/x"}),
        "the start's debug fields stay"
    );
    let stored = repo.get(&t1(), FAMILY, "job-1").await.unwrap().unwrap();
    assert_eq!(stored.state, JobState::Running);

    let TaskFinish::Complete(end) = complete(&running, "run-2") else {
        unreachable!("complete() builds a Complete");
    };
    assert_eq!(
        repo.end_run(&t1(), "run-2", &end, running.revision - 1, at(5))
            .await,
        Err(RepositoryError::Conflict),
        "a stale revision"
    );
    assert_eq!(
        repo.end_run(&t2(), "run-2", &end, running.revision, at(5))
            .await,
        Err(RepositoryError::NotFound),
        "another tenant's run"
    );
    assert_eq!(
        repo.end_run(&t1(), "run-2", &end, running.revision, at(5))
            .await,
        Ok(true)
    );
    assert_eq!(
        repo.end_run(&t1(), "run-2", &end, running.revision, at(6))
            .await,
        Ok(false),
        "ends once"
    );
    let stored = repo.get(&t1(), FAMILY, "job-1").await.unwrap().unwrap();
    assert_eq!(stored.state, JobState::Succeeded);
    let operation = f.operations.get(&t1(), &name).await.unwrap().unwrap();
    assert!(operation.done);
    assert_eq!(operation.metadata.value, "SUCCEEDED");
    assert_eq!(operation.metadata.debug["link"], "run-2");
    assert_eq!(operation.metadata.debug["attempts"], 1);
    assert_eq!(f.event_ids(&t1()).await, vec!["ev-run-2", "ev-run-2-done"]);
}

contract!(a_run_handed_off_ends_once_outside_the_runner);

async fn an_expired_lease_hands_the_run_to_another_worker(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.jobs.clone();
    let created = job("job-1", "amy");
    repo.create(&t1(), &created, None, &[]).await.unwrap();
    let running = start(repo.as_ref(), &t1(), &created, "run-1", 1).await;
    let first = repo
        .claim("dead", at(2), Duration::from_secs(10), 1)
        .await
        .unwrap()
        .remove(0);
    assert!(
        repo.claim("w", at(11), Duration::from_secs(10), 1)
            .await
            .unwrap()
            .is_empty()
    );
    let second = repo
        .claim("alive", at(12), Duration::from_secs(10), 1)
        .await
        .unwrap()
        .remove(0);
    assert_eq!((second.attempt, second.claim.as_str()), (2, "alive"));
    // The dead worker's late finish changes nothing; the live one's completes.
    assert_eq!(
        repo.finish(&first, Arc::new(complete(&running, "run-1")), at(13))
            .await,
        Ok(false)
    );
    assert_eq!(
        repo.finish(
            &first,
            Arc::new(TaskFinish::Retry {
                error: "x".into(),
                at: at(14)
            }),
            at(13)
        )
        .await,
        Ok(false)
    );
    assert_eq!(
        repo.finish(&second, Arc::new(complete(&running, "run-1")), at(14))
            .await,
        Ok(true)
    );
    assert_eq!(f.event_ids(&t1()).await, vec!["ev-run-1", "ev-run-1-done"]);
}

contract!(an_expired_lease_hands_the_run_to_another_worker);

async fn a_renewed_lease_keeps_the_run_from_other_workers(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.jobs.clone();
    let created = job("job-1", "amy");
    repo.create(&t1(), &created, None, &[]).await.unwrap();
    let running = start(repo.as_ref(), &t1(), &created, "run-1", 1).await;
    let held = repo
        .claim("long", at(2), Duration::from_secs(10), 1)
        .await
        .unwrap()
        .remove(0);
    assert_eq!(repo.renew(&held, at(25)).await, Ok(true));
    // Past the first lease (12) but within the renewed one, nobody else gets it.
    assert!(
        repo.claim("w", at(20), Duration::from_secs(10), 1)
            .await
            .unwrap()
            .is_empty()
    );
    // Another token cannot renew it.
    let mut stranger = held.clone();
    stranger.claim = "stranger".into();
    assert_eq!(repo.renew(&stranger, at(99)).await, Ok(false));
    assert_eq!(
        repo.finish(&held, Arc::new(complete(&running, "run-1")), at(24))
            .await,
        Ok(true)
    );
    // A finished run is not renewed, and no worker claims it again.
    assert_eq!(repo.renew(&held, at(99)).await, Ok(false));
    assert!(
        repo.claim("w", at(200), Duration::from_secs(10), 1)
            .await
            .unwrap()
            .is_empty()
    );
}

contract!(a_renewed_lease_keeps_the_run_from_other_workers);

async fn a_retry_waits_for_its_backoff(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.jobs.clone();
    let created = job("job-1", "amy");
    repo.create(&t1(), &created, None, &[]).await.unwrap();
    let running = start(repo.as_ref(), &t1(), &created, "run-1", 1).await;
    let task = repo
        .claim("c1", at(2), Duration::from_secs(60), 1)
        .await
        .unwrap()
        .remove(0);
    let retry = TaskFinish::Retry {
        error: "busy".into(),
        at: at(30),
    };
    assert_eq!(repo.finish(&task, Arc::new(retry), at(3)).await, Ok(true));
    assert!(
        repo.claim("c2", at(29), Duration::from_secs(60), 1)
            .await
            .unwrap()
            .is_empty()
    );
    let again = repo
        .claim("c3", at(30), Duration::from_secs(60), 1)
        .await
        .unwrap()
        .remove(0);
    assert_eq!(again.attempt, 2);
    let mut failed = running.clone();
    failed.state = JobState::Failed;
    failed.revision += 1;
    let finish = TaskFinish::Complete(RunEnd {
        job: failed,
        metadata: OperationMetadata::default(),
        response: None,
        error: Some(OperationError {
            code: 14,
            message: "still busy".into(),
            details: vec![],
        }),
        events: vec![],
        effects: RunEffects::default(),
    });
    assert_eq!(
        repo.finish(&again, Arc::new(finish), at(31)).await,
        Ok(true)
    );
    let operation = f
        .operations
        .clone()
        .get(&t1(), &again.operation_name)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(operation.error.map(|e| e.code), Some(14));
    assert_eq!(
        repo.get(&t1(), FAMILY, "job-1")
            .await
            .unwrap()
            .unwrap()
            .state,
        JobState::Failed
    );
}

contract!(a_retry_waits_for_its_backoff);

async fn concurrent_claimers_never_share_a_run(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.jobs.clone();
    for i in 0..30 {
        let created = job(&format!("job-{i}"), "amy");
        let tenant = if i % 2 == 0 { t1() } else { t2() };
        repo.create(&tenant, &created, None, &[]).await.unwrap();
        start(repo.as_ref(), &tenant, &created, &format!("run-{i}"), 1).await;
    }
    let mut claimers = Vec::new();
    for w in 0..4 {
        let repo = repo.clone();
        claimers.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            for round in 0..20 {
                let claim = format!("w{w}-{round}");
                for task in repo
                    .claim(&claim, at(2), Duration::from_secs(60), 3)
                    .await
                    .unwrap()
                {
                    mine.push(task.id);
                }
            }
            mine
        }));
    }
    let mut all = Vec::new();
    for claimer in claimers {
        all.extend(claimer.await.unwrap());
    }
    let distinct: BTreeSet<&String> = all.iter().collect();
    assert_eq!(all.len(), 30, "every run claimed once: {all:?}");
    assert_eq!(distinct.len(), 30);
}

contract!(concurrent_claimers_never_share_a_run);

async fn erasing_an_entity_removes_its_jobs_and_runs(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.jobs.clone();
    f.create(&t1(), &entity("amy", "Amy", 0)).await;
    f.create(&t1(), &entity("bob", "Bob", 0)).await;
    for (id, owner) in [("job-a", "amy"), ("job-b", "bob")] {
        let created = job(id, owner);
        repo.create(&t1(), &created, None, &[]).await.unwrap();
        start(repo.as_ref(), &t1(), &created, &format!("run-{id}"), 1).await;
    }
    let counts = f
        .repo
        .hard_delete(&t1(), "amy", EraseGuard::Always, &[])
        .await
        .unwrap();
    assert_eq!(counts.get("jobs"), Some(&1));
    assert_eq!(repo.get(&t1(), FAMILY, "job-a").await, Ok(None));
    let operations = f.operations.clone();
    assert_eq!(
        operations
            .get(
                &t1(),
                &format!("{}/operations/run-job-a", job("job-a", "amy").name())
            )
            .await,
        Ok(None)
    );
    let left = repo
        .claim("c", at(2), Duration::from_secs(60), 10)
        .await
        .unwrap();
    assert_eq!(
        left.iter().map(|t| t.job_id.as_str()).collect::<Vec<_>>(),
        ["job-b"]
    );
    assert_eq!(
        left[0].run_input,
        serde_json::Value::Null,
        "a run without input"
    );
}

contract!(erasing_an_entity_removes_its_jobs_and_runs);

/// The ids of the `FAMILY` jobs of `t1` listed for `entity` (every entity: `None`),
/// filtered by `filter`.
async fn listed(repo: &dyn JobRepository, entity: Option<&str>, filter: &str) -> Vec<String> {
    let (query, _) = crate::support::paging()
        .prepare(
            &JOB_LIST,
            &t1(),
            Some("p"),
            &crate::support::request(filter, "", 100),
        )
        .unwrap();
    let page = repo.list(&t1(), FAMILY, entity, &query).await.unwrap();
    let mut ids: Vec<String> = page.items.into_iter().map(|job| job.id).collect();
    ids.sort();
    ids
}

async fn a_job_at_dash_follows_the_entity_its_run_made(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.jobs.clone();
    f.create(&t1(), &entity("amy", "Amy", 0)).await;
    f.create(&t1(), &entity("bob", "Bob", 0)).await;
    let own = job("job-own", "amy");
    repo.create(&t1(), &own, None, &[]).await.unwrap();
    let pending = job("job-made", "-");
    repo.create(&t1(), &pending, None, &[]).await.unwrap();
    let running = start(repo.as_ref(), &t1(), &pending, "run-made", 1).await;
    assert_eq!(listed(repo.as_ref(), Some("amy"), "").await, ["job-own"]);

    let mut made = running.clone();
    made.made_entity_id = Some("amy".into());
    made.revision = running.revision + 1;
    repo.update(&t1(), &made, running.revision, &[])
        .await
        .unwrap();
    assert_eq!(
        repo.get(&t1(), FAMILY, "job-made").await,
        Ok(Some(made.clone()))
    );
    assert_eq!(made.name(), format!("entities/-/{FAMILY}/job-made"));
    assert_eq!(
        listed(repo.as_ref(), Some("amy"), "").await,
        ["job-made", "job-own"]
    );
    assert!(listed(repo.as_ref(), Some("bob"), "").await.is_empty());
    assert_eq!(
        listed(repo.as_ref(), None, "entity = \"entities/amy\"").await,
        ["job-made", "job-own"]
    );

    let counts = f
        .repo
        .hard_delete(&t1(), "amy", EraseGuard::Always, &[])
        .await
        .unwrap();
    assert_eq!(counts.get("jobs"), Some(&2));
    assert_eq!(repo.get(&t1(), FAMILY, "job-made").await, Ok(None));
    assert_eq!(
        f.operations
            .get(&t1(), &format!("{}/operations/run-made", made.name()))
            .await,
        Ok(None)
    );
    let left = repo
        .claim("c", at(2), Duration::from_secs(60), 10)
        .await
        .unwrap();
    assert!(
        left.is_empty(),
        "the made entity's runs go with it: {left:?}"
    );
}

contract!(a_job_at_dash_follows_the_entity_its_run_made);

/// A soft-deleted job is read as it is, listed only when deleted jobs are asked for,
/// and found due and purged (with its runs' operations and tasks) once its purge time
/// passed, and only then; other families' deleted jobs are not this family's.
async fn deleted_jobs_are_hidden_and_purged_when_due(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.jobs.clone();
    f.create(&t1(), &entity("amy", "Amy", 0)).await;
    let kept = job("job-kept", "amy");
    repo.create(&t1(), &kept, None, &[]).await.unwrap();
    let gone = job("job-gone", "amy");
    repo.create(&t1(), &gone, None, &[]).await.unwrap();
    let running = start(repo.as_ref(), &t1(), &gone, "run-gone", 1).await;
    let task = repo
        .claim("c", at(2), Duration::from_secs(60), 10)
        .await
        .unwrap()
        .remove(0);
    assert!(
        repo.finish(&task, Arc::new(complete(&running, "run-gone")), at(3))
            .await
            .unwrap()
    );
    let ended = repo.get(&t1(), FAMILY, "job-gone").await.unwrap().unwrap();
    let mut deleted = ended.clone();
    deleted.delete_time = Some(at(4));
    deleted.purge_time = Some(at(10));
    deleted.revision = ended.revision + 1;
    repo.update(&t1(), &deleted, ended.revision, &[])
        .await
        .unwrap();
    assert_eq!(
        repo.get(&t1(), FAMILY, "job-gone").await,
        Ok(Some(deleted.clone()))
    );
    assert_eq!(listed(repo.as_ref(), Some("amy"), "").await, ["job-kept"]);
    let (query, _) = crate::support::paging()
        .prepare(
            &rics_domain::job::service::DELETABLE_JOB_LIST,
            &t1(),
            Some("p"),
            &rics_domain::list::ListRequest {
                show_deleted: true,
                ..crate::support::request("", "", 100)
            },
        )
        .unwrap();
    let page = repo.list(&t1(), FAMILY, None, &query).await.unwrap();
    assert_eq!(page.items.len(), 2, "showDeleted lists it");

    assert!(
        repo.find_purge_due(FAMILY, at(9), 10)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        repo.find_purge_due("otherJobs", at(11), 10)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        repo.find_purge_due(FAMILY, at(11), 10).await.unwrap(),
        [(t1(), "job-gone".to_owned())]
    );
    assert_eq!(
        repo.purge(&t1(), &deleted, at(9), &[]).await,
        Err(RepositoryError::NotFound),
        "not due yet"
    );
    assert_eq!(
        repo.purge(&t2(), &deleted, at(11), &[]).await,
        Err(RepositoryError::NotFound),
        "another tenant's"
    );
    repo.purge(
        &t1(),
        &deleted,
        at(11),
        &[event("ev-purged", Some("amy"), "job.purged", 11)],
    )
    .await
    .unwrap();
    assert_eq!(repo.get(&t1(), FAMILY, "job-gone").await, Ok(None));
    assert_eq!(
        f.operations
            .get(&t1(), &format!("{}/operations/run-gone", gone.name()))
            .await,
        Ok(None)
    );
    assert!(repo.get(&t1(), FAMILY, "job-kept").await.unwrap().is_some());
    assert_eq!(
        repo.purge(&t1(), &deleted, at(12), &[]).await,
        Err(RepositoryError::NotFound),
        "gone"
    );
}

contract!(deleted_jobs_are_hidden_and_purged_when_due);
