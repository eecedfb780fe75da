//! The worker side of jobs: claim queued runs with a lease, execute them outside any
//! transaction, retry failures with exponential backoff, and complete each run once.

use std::collections::HashMap;
use std::convert::Infallible;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::{BoxFuture, Either, join_all};
use futures_util::stream::FuturesUnordered;
use futures_util::{FutureExt, StreamExt};
use serde_json::json;

use super::kind::JobKind;
use super::model::{
    ClaimedTask, JobRecord, JobState, RunEnd, TaskEnd, TaskFinish, worker_principal,
};
use super::ports::{JobRepository, QueuedWork};
use super::records::{RecordPreparer, RunEffects, SetOutput, StagedRecords};
use crate::error::{Code, Error, Result};
use crate::event::NewEvent;
use crate::id::IdGenerator;
use crate::operation::{OperationError, OperationMetadata};
use crate::principal::TenantId;
use crate::repository::RepositoryError;
use crate::time::{Clock, Pause, Timestamp};

/// How often a run's end is tried again after the entities it set outputs on changed
/// since the run read them, before the attempt fails: as often as
/// [`OutputWriter`](crate::entity::output::OutputWriter) retries a write at once.
const OUTPUT_TRIES: usize = 5;

/// How workers treat queued runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunnerSettings {
    /// How long a claim lasts: a run not finished by then is claimed again (its worker
    /// is presumed dead).
    pub lease: Duration,
    /// Attempts before a run fails for good.
    pub max_attempts: u32,
    /// The wait before the first retry; each further retry waits twice as long.
    pub backoff_base: Duration,
    /// The longest wait between attempts.
    pub backoff_max: Duration,
    /// Most runs claimed, and executed concurrently, at once.
    pub batch: u32,
}

impl RunnerSettings {
    /// The wait before the retry that follows attempt `attempt` (1-based): the base,
    /// doubled with each further attempt, at most the longest wait.
    pub fn backoff(&self, attempt: u32) -> Duration {
        let doublings = attempt.saturating_sub(1).min(30);
        self.backoff_base
            .saturating_mul(1_u32 << doublings)
            .min(self.backoff_max)
    }
}

impl Default for RunnerSettings {
    fn default() -> RunnerSettings {
        RunnerSettings {
            lease: Duration::from_secs(60),
            max_attempts: 5,
            backoff_base: Duration::from_secs(1),
            backoff_max: Duration::from_secs(300),
            batch: 16,
        }
    }
}

/// Runs queued jobs of the families it knows.
pub struct JobRunner {
    worker: String,
    jobs: Arc<dyn JobRepository>,
    kinds: HashMap<&'static str, Arc<dyn JobKind>>,
    /// Checks and completes what runs record, which their ends write.
    records: Arc<dyn RecordPreparer>,
    work: HashMap<&'static str, Arc<dyn QueuedWork>>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    settings: RunnerSettings,
    /// Paces the renewals of the leases of runs under way; none without it.
    renewals: Option<Arc<dyn Pause>>,
}

impl JobRunner {
    /// A runner of the families `kinds`, whose runs record through `records`;
    /// `worker` names it in the operations it finishes (`metadata.debug.worker`), so
    /// an operator sees which process ran what.
    pub fn new(
        worker: String,
        jobs: Arc<dyn JobRepository>,
        kinds: Vec<Arc<dyn JobKind>>,
        records: Arc<dyn RecordPreparer>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        settings: RunnerSettings,
    ) -> JobRunner {
        JobRunner {
            worker,
            jobs,
            kinds: kinds.into_iter().map(|k| (k.collection(), k)).collect(),
            records,
            work: HashMap::new(),
            clock,
            ids,
            settings,
            renewals: None,
        }
    }

    /// The same runner, renewing the lease of each run under way every third of the
    /// lease, paced by `pause`.
    #[must_use]
    pub fn with_lease_renewals(mut self, pause: Arc<dyn Pause>) -> JobRunner {
        self.renewals = Some(pause);
        self
    }

    /// The same runner, also working on the tasks of `work`'s queue.
    #[must_use]
    pub fn with_work(mut self, work: Arc<dyn QueuedWork>) -> JobRunner {
        self.work.insert(work.queue(), work);
        self
    }

    /// The collections of the families it runs, sorted.
    pub fn families(&self) -> Vec<&'static str> {
        let mut families: Vec<&'static str> = self.kinds.keys().copied().collect();
        families.sort_unstable();
        families
    }

    /// Claims a batch of ready runs and executes them concurrently. The ends are
    /// written as the runs end, by one write at a time: the ends that arrive while a
    /// write is under way go together in the next, in one transaction
    /// ([`JobRepository::finish_all`]), so a batch's ends cost few statements.
    ///
    /// # Errors
    /// UNAVAILABLE or INTERNAL when the queue cannot be read. A run's own failure is
    /// not an error here: it is retried or recorded on the run; the report lists the
    /// runs that could not be finished (their claims stay, so they run again when
    /// their leases end).
    pub async fn run_once(&self) -> Result<RunReport> {
        let now = self.clock.now();
        let tasks = self
            .jobs
            .claim(
                &self.ids.uid(),
                now,
                self.settings.lease,
                self.settings.batch,
            )
            .await?;
        let mut report = RunReport {
            claimed: tasks.len(),
            ..RunReport::default()
        };
        let mut steps: FuturesUnordered<BoxFuture<'_, Step<'_>>> = tasks
            .iter()
            .map(|task| {
                self.run_task(task)
                    .map(move |ran| Step::Ran(task, ran))
                    .boxed()
            })
            .collect();
        let mut waiting = Vec::new();
        let mut writing = false;
        while let Some(step) = steps.next().await {
            match step {
                Step::Ran(_, Ok(None)) => {}
                Step::Ran(_, Ok(Some(Executed::Worked(attempt)))) => report.attempts.push(attempt),
                Step::Ran(_, Ok(Some(Executed::Ended(ended)))) => waiting.push(ended),
                Step::Ran(task, Err(e)) => report.unfinished.push((task.operation_name.clone(), e)),
                Step::Wrote(written) => {
                    writing = false;
                    for (task, outcome) in written {
                        match outcome {
                            Ok(attempt) => report.attempts.push(attempt),
                            Err(e) => report.unfinished.push((task.operation_name.clone(), e)),
                        }
                    }
                }
            }
            if !writing && !waiting.is_empty() {
                writing = true;
                let ends = std::mem::take(&mut waiting);
                steps.push(self.write_ends(ends).map(Step::Wrote).boxed());
            }
        }
        Ok(report)
    }

    /// The wait before the retry that follows attempt `attempt` (1-based).
    pub fn backoff(&self, attempt: u32) -> Duration {
        self.settings.backoff(attempt)
    }

    /// Executes one claimed run, renewing its lease while it works; `None` when its
    /// job is gone.
    async fn run_task<'a>(&'a self, task: &'a ClaimedTask) -> Result<Option<Executed<'a>>> {
        let work = std::pin::pin!(self.execute_task(task));
        let renewals = std::pin::pin!(self.keep_claimed(task));
        match futures_util::future::select(work, renewals).await {
            Either::Left((ended, _)) => ended,
            Either::Right((never, _)) => match never {},
        }
    }

    /// Renews `task`'s lease every third of it, for as long as it is awaited: a task
    /// whose work outlasts the lease (the re-screen of a list change over a million
    /// entities takes minutes) is then never claimed by a second worker while the first
    /// still works on it, while a worker that dies stops renewing and its task is
    /// claimed again at most a lease later. A renewal that finds the claim gone stops
    /// renewing (the task's end finds it gone too); one that fails (the database
    /// unavailable) is tried again at the next turn. Without a pace
    /// ([`Self::with_lease_renewals`]) it only waits.
    async fn keep_claimed(&self, task: &ClaimedTask) -> Infallible {
        let Some(pause) = &self.renewals else {
            return futures_util::future::pending().await;
        };
        let lease = self.settings.lease;
        loop {
            pause.pause(lease / 3).await;
            let renewed = self.jobs.renew(task, self.clock.now().plus(lease)).await;
            if let Ok(false) = renewed {
                return futures_util::future::pending().await;
            }
        }
    }

    /// Executes one claimed run: how it ends, for [`Self::write_ends`] to write; `None`
    /// when its job is gone. Queued work other than job runs ends itself.
    async fn execute_task<'a>(&'a self, task: &'a ClaimedTask) -> Result<Option<Executed<'a>>> {
        let started = self.clock.now();
        if let Some(work) = self.work.get(task.family.as_str()) {
            let outcome = work.work(task).await?;
            return Ok(Some(Executed::Worked(FinishedAttempt {
                family: task.family.clone(),
                outcome,
                duration: self.clock.now().since(started),
            })));
        }
        let Some(job) = &task.job else {
            // The job was erased with its entity, and its task with it.
            return Ok(None);
        };
        let records = StagedRecords::new(&*self.records);
        let outcome = match self.kinds.get(task.family.as_str()) {
            Some(kind) => match AssertUnwindSafe(kind.execute(job, task, &records))
                .catch_unwind()
                .await
            {
                Ok(result) => result.map_err(Attempt::Failed),
                Err(_) => Err(Attempt::Panicked),
            },
            None => Err(Attempt::Failed(Error::unavailable(
                "UNKNOWN_JOB_FAMILY",
                format!("this worker cannot run '{}' jobs", task.family),
            ))),
        };
        let now = self.clock.now();
        let (effects, outputs) = records.into_effects();
        let finish = match outcome {
            Ok(output)
                if self
                    .kinds
                    .get(task.family.as_str())
                    .is_some_and(|k| k.ends_elsewhere()) =>
            {
                let mut debug = self.attempt_debug(task, now);
                if let (Some(debug), Some(output)) = (debug.as_object_mut(), output.as_object()) {
                    debug.extend(output.iter().map(|(k, v)| (k.clone(), v.clone())));
                }
                TaskFinish::HandedOff {
                    metadata: OperationMetadata {
                        kind: self.operation_type(task),
                        value: JobState::Running.as_str().to_owned(),
                        debug,
                    },
                    effects,
                }
            }
            Ok(result) => self.complete(task, job, Ok(result), effects),
            Err(Attempt::Failed(error)) => self.after_failure(task, job, error, now),
            Err(Attempt::Panicked) => self.complete(
                task,
                job,
                Err(Error::internal(format!(
                    "the '{}' job handler panicked",
                    task.family
                ))),
                RunEffects::default(),
            ),
        };
        Ok(Some(Executed::Ended(Ended {
            task,
            job,
            finish: Arc::new(finish),
            outputs,
            started,
            time: now,
        })))
    }

    /// Writes the ends of runs: together in one transaction when there are several,
    /// else, or when one of them cannot be written (an entity it set an output of
    /// changed), each alone ([`Self::write_alone`]), so that each learns its own
    /// outcome. Returns each run's attempt, or the storage error that kept its end
    /// from being written.
    async fn write_ends<'a>(
        &'a self,
        ends: Vec<Ended<'a>>,
    ) -> Vec<(&'a ClaimedTask, Result<FinishedAttempt>)> {
        if ends.len() > 1 {
            let batch = ends
                .iter()
                .map(|end| TaskEnd {
                    task: end.task.clone(),
                    finish: Arc::clone(&end.finish),
                    time: end.time,
                })
                .collect();
            if self.jobs.finish_all(batch).await.is_ok() {
                return ends
                    .into_iter()
                    .map(|end| (end.task, Ok(end.attempt())))
                    .collect();
            }
        }
        join_all(
            ends.into_iter()
                .map(|end| async move { (end.task, self.write_alone(end).await) }),
        )
        .await
    }

    /// Writes the end of one run in a transaction of its own. When an entity the run
    /// set an output of changed after the run read it, the outputs are set again on
    /// the entity as it is now and the end tried again, as often as a write at once
    /// would be; then the attempt fails, with nothing stored.
    async fn write_alone(&self, mut end: Ended<'_>) -> Result<FinishedAttempt> {
        let (task, job, now) = (end.task, end.job, end.time);
        let mut tries = 0;
        loop {
            match self.jobs.finish(task, Arc::clone(&end.finish), now).await {
                Ok(_) => return Ok(end.attempt()),
                Err(RepositoryError::Conflict)
                    if !end.outputs.is_empty() && tries < OUTPUT_TRIES =>
                {
                    tries += 1;
                    match StagedRecords::set_again(&*self.records, &end.outputs).await {
                        Ok(entities) => Arc::make_mut(&mut end.finish).set_entities(entities),
                        Err(error) => {
                            end.finish = Arc::new(self.after_failure(task, job, error, now));
                        }
                    }
                }
                Err(RepositoryError::Conflict) => {
                    let changed =
                        Error::concurrent_modification(&format!("entities/{}", job.entity_id));
                    end.finish = Arc::new(self.after_failure(task, job, changed, now));
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// How an attempt that failed with `error` ends: released for a retry while the
    /// error is worth retrying and attempts remain, else the run's failure.
    fn after_failure(
        &self,
        task: &ClaimedTask,
        job: &JobRecord,
        error: Error,
        now: Timestamp,
    ) -> TaskFinish {
        if is_retryable(error.code) && task.attempt < self.settings.max_attempts {
            TaskFinish::Retry {
                error: error.message,
                at: now.plus(self.backoff(task.attempt)),
            }
        } else {
            self.complete(task, job, Err(error), RunEffects::default())
        }
    }

    /// The end of a run: the job's new state and result, the operation's outcome, the
    /// event and what the run recorded.
    fn complete(
        &self,
        task: &ClaimedTask,
        job: &JobRecord,
        outcome: std::result::Result<serde_json::Value, Error>,
        effects: RunEffects,
    ) -> TaskFinish {
        let now = self.clock.now();
        let prefix = self
            .kinds
            .get(task.family.as_str())
            .map_or("job", |k| k.event_prefix());
        TaskFinish::Complete(run_end(RunEnding {
            tenant: &task.tenant,
            job,
            outcome,
            kind: self.operation_type(task),
            event_prefix: prefix,
            event_id: self.ids.resource_id(),
            debug: self.attempt_debug(task, now),
            now,
            effects,
        }))
    }

    /// The operation's `metadata.type` for the task's family.
    fn operation_type(&self, task: &ClaimedTask) -> String {
        self.kinds
            .get(task.family.as_str())
            .map_or_else(String::new, |k| k.operation_type().to_owned())
    }

    /// What the operation's `metadata.debug` tells of the attempt that ends at `now`.
    fn attempt_debug(&self, task: &ClaimedTask, now: Timestamp) -> serde_json::Value {
        json!({
            "attempts": task.attempt,
            "queueTime": task.queue_time,
            "startTime": task.claim_time,
            "endTime": now,
            "worker": self.worker,
        })
    }
}

/// What ends a run, wherever it ends: in the runner, or outside it
/// ([`JobService::end_run`](super::JobService::end_run)).
pub(super) struct RunEnding<'a> {
    /// The job's tenant.
    pub tenant: &'a TenantId,
    /// The job as it was while running.
    pub job: &'a JobRecord,
    /// The result, or the error that failed the run.
    pub outcome: std::result::Result<serde_json::Value, Error>,
    /// The operation's `metadata.type`.
    pub kind: String,
    /// The family's event prefix.
    pub event_prefix: &'a str,
    /// The id of the event recording the end.
    pub event_id: String,
    /// The operation's `metadata.debug` at the end.
    pub debug: serde_json::Value,
    /// When the run ends.
    pub now: Timestamp,
    /// What the run recorded.
    pub effects: RunEffects,
}

/// The job's new state and result, the operation's outcome and the event
/// `{prefix}.succeeded` or `.failed` about the job's subject.
pub(super) fn run_end(ending: RunEnding<'_>) -> RunEnd {
    let RunEnding {
        tenant,
        job,
        outcome,
        kind,
        event_prefix,
        event_id,
        debug,
        now,
        effects,
    } = ending;
    let mut ended = job.clone();
    ended.revision = job.revision + 1;
    ended.update_time = now;
    let (state, error) = match outcome {
        Ok(result) => {
            ended.result = Some(result);
            (JobState::Succeeded, None)
        }
        Err(error) => (
            if error.code == Code::Cancelled {
                JobState::Cancelled
            } else {
                JobState::Failed
            },
            Some(OperationError::from(&error)),
        ),
    };
    ended.state = state;
    let response = error.is_none().then(|| ended.to_json());
    let verb = match state {
        JobState::Succeeded => "succeeded",
        JobState::Cancelled => "cancelled",
        _ => "failed",
    };
    let event = NewEvent::new(
        event_id,
        &format!("{event_prefix}.{verb}"),
        &job.name(),
        &worker_principal(tenant),
        now,
    )
    .with_changes(Some(&job.to_json()), Some(&ended.to_json()));
    let event = match ended.subject() {
        Some(entity_id) => event.for_entity(entity_id),
        None => event,
    };
    RunEnd {
        metadata: OperationMetadata {
            kind,
            value: state.as_str().to_owned(),
            debug,
        },
        job: ended,
        response,
        error,
        events: vec![event],
        effects,
    }
}

/// How executing a claimed task went.
enum Executed<'a> {
    /// Queued work other than a job run, which wrote its end itself.
    Worked(FinishedAttempt),
    /// A job run, whose end is still to be written.
    Ended(Ended<'a>),
}

/// A job run executed, whose end is still to be written.
struct Ended<'a> {
    task: &'a ClaimedTask,
    job: &'a JobRecord,
    finish: Arc<TaskFinish>,
    /// The outputs it set on entities, set again if they changed before its end.
    outputs: Vec<SetOutput>,
    started: Timestamp,
    /// When it ended.
    time: Timestamp,
}

impl Ended<'_> {
    /// The attempt, once its end is written.
    fn attempt(&self) -> FinishedAttempt {
        let outcome = match &*self.finish {
            TaskFinish::Retry { .. } => AttemptOutcome::Retried,
            TaskFinish::HandedOff { .. } => AttemptOutcome::HandedOff,
            TaskFinish::Complete(RunEnd { error: None, .. }) => AttemptOutcome::Succeeded,
            TaskFinish::Complete(_) => AttemptOutcome::Failed,
        };
        FinishedAttempt {
            family: self.task.family.clone(),
            outcome,
            duration: self.time.since(self.started),
        }
    }
}

/// A step of [`JobRunner::run_once`]: a run executed, or a write of ends done.
enum Step<'a> {
    Ran(&'a ClaimedTask, Result<Option<Executed<'a>>>),
    Wrote(Vec<(&'a ClaimedTask, Result<FinishedAttempt>)>),
}

/// What one pass of [`JobRunner::run_once`] did.
#[derive(Debug, Default)]
pub struct RunReport {
    /// How many runs it claimed (0: nothing was ready).
    pub claimed: usize,
    /// The runs it could not finish, by operation name, with the storage error.
    pub unfinished: Vec<(String, Error)>,
    /// The attempts it finished, for the operator's metrics.
    pub attempts: Vec<FinishedAttempt>,
}

/// One finished attempt of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinishedAttempt {
    /// The job's family (its collection).
    pub family: String,
    /// How it ended.
    pub outcome: AttemptOutcome,
    /// From its claim being read to its end being written, on the runner's clock.
    pub duration: Duration,
}

/// How an attempt of a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttemptOutcome {
    /// The run succeeded.
    Succeeded,
    /// The run failed for good.
    Failed,
    /// The attempt failed and the run waits for another.
    Retried,
    /// The runner's part is done and the run goes on elsewhere.
    HandedOff,
}

impl AttemptOutcome {
    /// Its name as a label (`succeeded`, `failed`, `retried`).
    pub fn as_str(self) -> &'static str {
        match self {
            AttemptOutcome::Succeeded => "succeeded",
            AttemptOutcome::Failed => "failed",
            AttemptOutcome::Retried => "retried",
            AttemptOutcome::HandedOff => "handed_off",
        }
    }
}

/// How an attempt went wrong.
enum Attempt {
    /// The handler returned an error.
    Failed(Error),
    /// The handler panicked.
    Panicked,
}

/// Whether a failure may pass on a later attempt.
fn is_retryable(code: Code) -> bool {
    matches!(code, Code::Unavailable | Code::Internal | Code::Aborted)
}
