//! Housekeeping: the periodic work that keeps stored data within its promises. It
//! purges soft-deleted resources whose purge time has passed, records what time made
//! due (forms past their deadline expire), forgets idempotency keys past their
//! window, expires OAuth grants, and removes one-time secrets from operations. The app only schedules [`Housekeeping::run`] and logs its report.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use crate::error::{Error, Result};
use crate::identity::ports::IdentityRepository;
use crate::operation::OperationRepository;
use crate::principal::{Principal, TenantId};
use crate::repository::RepositoryError;
use crate::time::{Clock, Timestamp};

/// How long idempotency keys are honoured (AIP-155 asks for at least an hour).
pub const IDEMPOTENCY_WINDOW: Duration = Duration::from_secs(24 * 3600);

/// Most resources of one collection purged by one run; the rest wait for the next.
pub const PURGE_BATCH: u32 = 500;

/// A collection whose soft-deleted resources are purged when their purge time passes.
/// A collection declares how it finds what is due and purges one; the run over a
/// batch is written once, in [`Purge::purge_expired`].
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait Purge: Send + Sync {
    /// The collection, as the report names it (`entities`).
    fn collection(&self) -> &'static str;

    /// The ids of soft-deleted resources whose purge time is before `now`, across
    /// tenants, oldest first, at most `limit`.
    ///
    /// # Errors
    /// Only the common storage errors.
    async fn find_purge_due(&self, now: Timestamp, limit: u32) -> Stored<Vec<(TenantId, String)>>;

    /// Removes the resource `due` names, with its `{kind}.purged` events written by
    /// `system`, if it is still soft-deleted with a purge time before `due.now`.
    ///
    /// # Errors
    /// [`RepositoryError::NotFound`] when it is gone or no longer due; the common
    /// storage errors.
    async fn purge_one(&self, system: &Principal, due: &PurgeDue) -> Stored<()>;

    /// Purges the resources due at `now` (at most `limit`); returns how many were
    /// purged. One that is restored or removed meanwhile is passed over.
    ///
    /// # Errors
    /// UNAVAILABLE or INTERNAL when storage fails.
    async fn purge_expired(&self, system: &Principal, now: Timestamp, limit: u32) -> Result<u64> {
        let due = self.find_purge_due(now, limit).await.map_err(Error::from)?;
        let mut purged = 0;
        for (tenant, id) in due {
            match self.purge_one(system, &PurgeDue { tenant, id, now }).await {
                Ok(()) => purged += 1,
                Err(RepositoryError::NotFound) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(purged)
    }
}

/// A change that time makes due, recorded by housekeeping: a DRAFT form whose
/// deadline passed is EXPIRED, with its `form.expired` event. Until a run records it,
/// the resource already reads as changed.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait Sweep: Send + Sync {
    /// The task, as the report names it (`expire forms`).
    fn task(&self) -> &'static str;

    /// Records the changes due at `now`, at most `limit`, made by `system` (in each
    /// resource's own tenant); returns how many were recorded. One that changed
    /// meanwhile is passed over.
    ///
    /// # Errors
    /// UNAVAILABLE or INTERNAL when storage fails.
    async fn sweep(&self, system: &Principal, now: Timestamp, limit: u32) -> Result<u64>;
}

/// Most changes of one [`Sweep`] recorded by one run; the rest wait for the next.
pub const SWEEP_BATCH: u32 = 500;

/// What storage answers: the value, or why it failed.
pub type Stored<T> = std::result::Result<T, RepositoryError>;

/// A soft-deleted resource whose purge time had passed when the run began.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PurgeDue {
    /// Its tenant.
    pub tenant: TenantId,
    /// Its id.
    pub id: String,
    /// The time of the run: it is purged only if it is still due then.
    pub now: Timestamp,
}

/// The idempotency keys of every tenant (AIP-155).
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait IdempotencyKeyStore: Send + Sync {
    /// Forgets keys created before `before`, across tenants; returns how many.
    ///
    /// # Errors
    /// Only the common errors.
    async fn expire(&self, before: Timestamp) -> std::result::Result<u64, RepositoryError>;
}

/// What one run did: each task with how many rows it changed, or why it failed.
#[derive(Debug, Default)]
pub struct Report {
    /// The tasks, in the order they ran (`purge entities`, `expire grants`, ...).
    pub tasks: Vec<(String, Result<u64>)>,
}

/// The housekeeping tasks and what they need.
#[derive(derive_new::new)]
pub struct Housekeeping {
    purges: Vec<Arc<dyn Purge>>,
    sweeps: Vec<Arc<dyn Sweep>>,
    idempotency_keys: Arc<dyn IdempotencyKeyStore>,
    identity: Arc<dyn IdentityRepository>,
    operations: Arc<dyn OperationRepository>,
    clock: Arc<dyn Clock>,
    system: Principal,
}

impl Housekeeping {
    /// Runs every task once; a failed task does not stop the others.
    pub async fn run(&self) -> Report {
        let mut report = Report::default();
        let now = self.clock.now();
        for purge in &self.purges {
            let purged = purge.purge_expired(&self.system, now, PURGE_BATCH).await;
            report
                .tasks
                .push((format!("purge {}", purge.collection()), purged));
        }
        for sweep in &self.sweeps {
            let swept = sweep.sweep(&self.system, now, SWEEP_BATCH).await;
            report.tasks.push((sweep.task().to_owned(), swept));
        }
        let expired = self
            .idempotency_keys
            .expire(now.minus(IDEMPOTENCY_WINDOW))
            .await
            .map_err(Error::from);
        report
            .tasks
            .push(("expire idempotency keys".into(), expired));
        let grants = self.identity.expire_grants(now).await.map_err(Error::from);
        report.tasks.push(("expire grants".into(), grants));
        let redacted = self
            .operations
            .redact_secrets(now)
            .await
            .map_err(Error::from);
        report
            .tasks
            .push(("redact operation secrets".into(), redacted));
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::ports::MockIdentityRepository;
    use crate::operation::MockOperationRepository;
    use crate::time::MockClock;

    fn purge(collection: &'static str, outcome: Result<u64>) -> Arc<dyn Purge> {
        let mut purge = MockPurge::new();
        purge.expect_collection().return_const(collection);
        purge
            .expect_purge_expired()
            .withf(|system, _, limit| system.subject == "system" && *limit == PURGE_BATCH)
            .return_once(move |_, _, _| outcome);
        Arc::new(purge)
    }

    fn sweep(task: &'static str, outcome: Result<u64>) -> Arc<dyn Sweep> {
        let mut sweep = MockSweep::new();
        sweep.expect_task().return_const(task);
        sweep
            .expect_sweep()
            .withf(|system, _, limit| system.subject == "system" && *limit == SWEEP_BATCH)
            .return_once(move |_, _, _| outcome);
        Arc::new(sweep)
    }

    /// A collection of three due resources: `b` was restored meanwhile, `x` fails.
    struct ThreeDue;

    #[async_trait]
    impl Purge for ThreeDue {
        fn collection(&self) -> &'static str {
            "things"
        }

        async fn find_purge_due(
            &self,
            _now: Timestamp,
            limit: u32,
        ) -> Stored<Vec<(TenantId, String)>> {
            let ids = ["a", "b", "c", "x"].into_iter().take(limit as usize);
            Ok(ids.map(|id| (TenantId::new("t"), id.into())).collect())
        }

        async fn purge_one(&self, _system: &Principal, due: &PurgeDue) -> Stored<()> {
            match due.id.as_str() {
                "b" => Err(RepositoryError::NotFound),
                "x" => Err(RepositoryError::Unavailable("down".into())),
                _ => Ok(()),
            }
        }
    }

    #[tokio::test]
    async fn a_purge_counts_what_it_removed_and_stops_at_a_failure() {
        let now = Timestamp::from_unix_micros(1_000_000).unwrap();
        assert_eq!(ThreeDue.purge_expired(&system(), now, 3).await, Ok(2));
        assert_eq!(
            ThreeDue
                .purge_expired(&system(), now, 4)
                .await
                .unwrap_err()
                .code,
            crate::error::Code::Unavailable
        );
    }

    fn system() -> Principal {
        Principal {
            tenant: TenantId::new("system"),
            subject: "system".into(),
            display_name: "rics".into(),
            scopes: Default::default(),
        }
    }

    #[tokio::test]
    async fn every_task_runs_though_one_fails() {
        let now = Timestamp::from_unix_micros(100_000 * 1_000_000).unwrap();
        let mut clock = MockClock::new();
        clock.expect_now().return_const(now);
        let mut keys = MockIdempotencyKeyStore::new();
        keys.expect_expire()
            .withf(move |before| *before == now.minus(IDEMPOTENCY_WINDOW))
            .return_once(|_| Ok(3));
        let mut identity = MockIdentityRepository::new();
        identity
            .expect_expire_grants()
            .withf(move |at| *at == now)
            .return_once(|_| Err(RepositoryError::Unavailable("down".into())));
        let mut operations = MockOperationRepository::new();
        operations
            .expect_redact_secrets()
            .withf(move |at| *at == now)
            .return_once(|_| Ok(1));
        let housekeeping = Housekeeping::new(
            vec![
                purge(
                    "entities",
                    Err(Error::from(RepositoryError::Internal("x".into()))),
                ),
                purge("workspaces", Ok(2)),
            ],
            vec![sweep("expire forms", Ok(4))],
            Arc::new(keys),
            Arc::new(identity),
            Arc::new(operations),
            Arc::new(clock),
            system(),
        );
        let report = housekeeping.run().await;
        let outcomes: Vec<(&str, Option<u64>)> = report
            .tasks
            .iter()
            .map(|(task, outcome)| (task.as_str(), outcome.as_ref().ok().copied()))
            .collect();
        assert_eq!(
            outcomes,
            [
                ("purge entities", None),
                ("purge workspaces", Some(2)),
                ("expire forms", Some(4)),
                ("expire idempotency keys", Some(3)),
                ("expire grants", None),
                ("redact operation secrets", Some(1)),
            ]
        );
    }
}
