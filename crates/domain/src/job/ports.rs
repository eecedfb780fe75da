//! The job repository port: jobs, their runs' operations and the queue, so that a
//! run's start and its end are each one transaction.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use super::model::{ClaimedTask, JobRecord, RunEnd, RunStart, TaskEnd, TaskFinish};
use crate::event::NewEvent;
use crate::list::{ListQuery, Page};
use crate::principal::TenantId;
use crate::repository::{CreateOutcome, IdempotencyKey, RepositoryError};
use crate::time::Timestamp;

/// Stores jobs, queues their runs and hands them to workers.
///
/// The methods taking a tenant never see another tenant's rows; the queue methods
/// work across tenants (any worker may run any tenant's job). Any method may fail with
/// [`RepositoryError::Unavailable`] (retry later) or [`RepositoryError::Internal`];
/// the other errors are listed per method.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait JobRepository: Send + Sync {
    /// Stores a new job with its events; with an idempotency key, a used key replays.
    ///
    /// # Errors
    /// [`RepositoryError::AlreadyExists`] when the id is taken;
    /// [`RepositoryError::Conflict`] when a concurrent request stored the same key.
    async fn create<'a>(
        &self,
        tenant: &TenantId,
        job: &JobRecord,
        key: Option<&'a IdempotencyKey>,
        events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError>;

    /// The job `id` of `family`; `None` when there is none.
    ///
    /// # Errors
    /// Only the common errors.
    async fn get(
        &self,
        tenant: &TenantId,
        family: &str,
        id: &str,
    ) -> Result<Option<JobRecord>, RepositoryError>;

    /// One page of the jobs of `family`, of one entity or (with `None`) of all.
    ///
    /// # Errors
    /// Only the common errors.
    async fn list<'a>(
        &self,
        tenant: &TenantId,
        family: &str,
        entity_id: Option<&'a str>,
        query: &ListQuery,
    ) -> Result<Page<JobRecord>, RepositoryError>;

    /// Stores `job` (a changed result) with its events if its stored revision is
    /// still `expected_revision`.
    ///
    /// # Errors
    /// [`RepositoryError::NotFound`] when the job is gone; [`RepositoryError::Conflict`]
    /// when it changed.
    async fn update(
        &self,
        tenant: &TenantId,
        job: &JobRecord,
        expected_revision: i64,
        events: &[NewEvent],
    ) -> Result<(), RepositoryError>;

    /// The ids of the soft-deleted jobs of `family` whose purge time is before `now`,
    /// across tenants, oldest first, at most `limit`.
    ///
    /// # Errors
    /// Only the common errors.
    async fn find_purge_due(
        &self,
        family: &str,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<(TenantId, String)>, RepositoryError>;

    /// Removes `job` with its runs' operations and tasks, if it is still soft-deleted
    /// with a purge time before `now`, and writes `events`, in one transaction.
    ///
    /// # Errors
    /// [`RepositoryError::NotFound`] when it is gone or no longer due.
    async fn purge(
        &self,
        tenant: &TenantId,
        job: &JobRecord,
        now: Timestamp,
        events: &[NewEvent],
    ) -> Result<(), RepositoryError>;

    /// Starts a run in one transaction: stores the start's job if its stored revision
    /// is still the expected one, the operation, its queued task and the events. With an idempotency key, a used key replays
    /// and nothing is written.
    ///
    /// # Errors
    /// [`RepositoryError::NotFound`] when the job is gone; [`RepositoryError::Conflict`]
    /// when it changed, or a concurrent request stored the same key.
    async fn start_run<'a>(
        &self,
        tenant: &TenantId,
        start: &RunStart,
        key: Option<&'a IdempotencyKey>,
        events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError>;

    /// The method, fingerprint and resource of the idempotency key `request_id`, when
    /// it was used.
    ///
    /// # Errors
    /// Only the common errors.
    async fn find_request(
        &self,
        tenant: &TenantId,
        request_id: &str,
    ) -> Result<Option<(String, String, String)>, RepositoryError>;

    /// Claims up to `limit` ready tasks of any tenant, oldest first, for `lease`, under
    /// the token `claim` (unique per call): each counts an attempt and becomes ready
    /// again when the lease ends unless finished.
    /// Concurrent claimers never get the same task (`FOR UPDATE SKIP LOCKED` on
    /// PostgreSQL, the write lock on SQLite). Each task carries its job
    /// ([`ClaimedTask::job`]) as the claim's transaction read it, so a run needs no
    /// second read of it.
    ///
    /// # Errors
    /// Only the common errors.
    async fn claim(
        &self,
        claim: &str,
        now: Timestamp,
        lease: Duration,
        limit: u32,
    ) -> Result<Vec<ClaimedTask>, RepositoryError>;

    /// Extends a claimed task's lease to `until`, if its claim still holds and the task
    /// is not done; `false`, writing nothing, otherwise. The runner renews the lease
    /// of a task whose work outlasts it, so no other worker claims a task still running.
    ///
    /// # Errors
    /// Only the common errors.
    async fn renew(&self, task: &ClaimedTask, until: Timestamp) -> Result<bool, RepositoryError>;

    /// Finishes a claimed task in one transaction, if its claim still holds: releases
    /// it for a retry, completes it (the job, the operation, the events), or marks it
    /// done with the operation's metadata updated for a run handed off. Stored
    /// operation metadata keeps its `debug` fields that the finish does not set. Returns
    /// `false`, writing nothing, when the claim was lost (the lease ran out and
    /// another worker took the task) or the task is already done. The finish is shared,
    /// not borrowed, so that the write can hold it on a database thread without a copy
    /// of the run's result, records and events.
    ///
    /// # Errors
    /// [`RepositoryError::Conflict`] or [`RepositoryError::NotFound`] when an entity
    /// the run set an output of changed or is gone, writing nothing; the common errors.
    async fn finish(
        &self,
        task: &ClaimedTask,
        finish: Arc<TaskFinish>,
        now: Timestamp,
    ) -> Result<bool, RepositoryError>;

    /// Finishes claimed tasks as [`Self::finish`] finishes each, all in one
    /// transaction, each table's rows of the batch in few statements (a run's end
    /// costs its statements, not its commit). Returns, for each end in order, whether
    /// it was written (`false`: its claim was lost or the task is done). When one end
    /// cannot be written, none is: the caller then writes each alone to learn which.
    ///
    /// # Errors
    /// [`RepositoryError::Conflict`] or [`RepositoryError::NotFound`] when an entity
    /// a run set an output of changed or is gone; the common errors.
    async fn finish_all(&self, ends: Vec<TaskEnd>) -> Result<Vec<bool>, RepositoryError>;

    /// Ends the run of the operation `operation_id` of `tenant` whose runner's part
    /// was handed off ([`TaskFinish::HandedOff`]), in one transaction: if the
    /// operation is not done and the job's stored revision is still
    /// `expected_revision`, stores the end's job, the operation's outcome (its metadata
    /// `debug` merged over the stored one) and the events. Returns `false`, writing
    /// nothing, when the operation is already done.
    ///
    /// # Errors
    /// [`RepositoryError::NotFound`] when the job or the operation is gone;
    /// [`RepositoryError::Conflict`] when the job changed.
    async fn end_run(
        &self,
        tenant: &TenantId,
        operation_id: &str,
        end: &RunEnd,
        expected_revision: i64,
        now: Timestamp,
    ) -> Result<bool, RepositoryError>;

    /// Cancels the run of the operation `operation` of `tenant` if no worker claimed
    /// it yet, in one transaction: its task done, its job CANCELLED, the operation done
    /// with an error of code 1 (CANCELLED). Returns `false`, writing nothing, when
    /// the run is claimed (it finishes), done, or unknown.
    ///
    /// # Errors
    /// Only the common errors.
    async fn cancel_queued(
        &self,
        tenant: &TenantId,
        operation: &str,
        now: Timestamp,
    ) -> Result<bool, RepositoryError>;
}

/// Tells this process's workers that a run was queued, so they claim it at once
/// instead of at their next poll (workers of other processes find it by polling).
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
pub trait RunQueued: Send + Sync {
    /// A run was queued.
    fn queued(&self);
}

/// Work other than job runs that waits in the same queue: tasks whose `family` is the
/// work's [`QueuedWork::queue`] (an execution's steps). The [`JobRunner`](super::JobRunner)
/// claims them with the job runs, under the same lease, and hands each to its work,
/// which ends the task itself (for a retry with [`JobRepository::finish`]).
#[async_trait]
pub trait QueuedWork: Send + Sync {
    /// The queue name its tasks carry in `family`.
    fn queue(&self) -> &'static str;

    /// Works on one claimed task and ends it; returns how the attempt ended.
    ///
    /// # Errors
    /// UNAVAILABLE or INTERNAL when the task could not be ended: its claim stays, so
    /// it is claimed again when its lease ends.
    async fn work(&self, task: &ClaimedTask) -> crate::error::Result<super::AttemptOutcome>;
}
