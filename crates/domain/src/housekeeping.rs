//! Housekeeping: the periodic work that keeps stored data within its promises. It
//! purges soft-deleted resources whose purge time has passed, forgets idempotency keys
//! past their window, expires OAuth grants, and removes one-time secrets from
//! operations. The app only schedules [`Housekeeping::run`] and logs its report.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use crate::error::{Error, Result};
use crate::identity::ports::IdentityRepository;
use crate::operation::OperationRepository;
use crate::principal::Principal;
use crate::repository::RepositoryError;
use crate::time::{Clock, Timestamp};

/// How long idempotency keys are honoured (AIP-155 asks for at least an hour).
pub const IDEMPOTENCY_WINDOW: Duration = Duration::from_secs(24 * 3600);

/// Most resources of one collection purged by one run; the rest wait for the next.
pub const PURGE_BATCH: u32 = 500;

/// A collection whose soft-deleted resources are purged when their purge time passes.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait Purge: Send + Sync {
    /// The collection, as the report names it (`entities`).
    fn collection(&self) -> &'static str;

    /// Purges soft-deleted resources whose purge time has passed (at most `limit`),
    /// each with its `{kind}.purged` event; returns how many were purged.
    ///
    /// # Errors
    /// UNAVAILABLE or INTERNAL when storage fails.
    async fn purge_expired(&self, system: &Principal, limit: u32) -> Result<u64>;
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
pub struct Housekeeping {
    purges: Vec<Arc<dyn Purge>>,
    idempotency_keys: Arc<dyn IdempotencyKeyStore>,
    identity: Arc<dyn IdentityRepository>,
    operations: Arc<dyn OperationRepository>,
    clock: Arc<dyn Clock>,
    system: Principal,
}

impl Housekeeping {
    /// Housekeeping over these collections and stores, acting as `system`.
    pub fn new(
        purges: Vec<Arc<dyn Purge>>,
        idempotency_keys: Arc<dyn IdempotencyKeyStore>,
        identity: Arc<dyn IdentityRepository>,
        operations: Arc<dyn OperationRepository>,
        clock: Arc<dyn Clock>,
        system: Principal,
    ) -> Self {
        Self {
            purges,
            idempotency_keys,
            identity,
            operations,
            clock,
            system,
        }
    }

    /// Runs every task once; a failed task does not stop the others.
    pub async fn run(&self) -> Report {
        let mut report = Report::default();
        for purge in &self.purges {
            let purged = purge.purge_expired(&self.system, PURGE_BATCH).await;
            report
                .tasks
                .push((format!("purge {}", purge.collection()), purged));
        }
        let now = self.clock.now();
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
    use crate::principal::TenantId;
    use crate::time::MockClock;

    fn purge(collection: &'static str, outcome: Result<u64>) -> Arc<dyn Purge> {
        let mut purge = MockPurge::new();
        purge.expect_collection().return_const(collection);
        purge
            .expect_purge_expired()
            .withf(|system, limit| system.subject == "system" && *limit == PURGE_BATCH)
            .return_once(move |_, _| outcome);
        Arc::new(purge)
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
            Arc::new(keys),
            Arc::new(identity),
            Arc::new(operations),
            Arc::new(clock),
            Principal {
                tenant: TenantId::new("system"),
                subject: "system".into(),
                display_name: "rics".into(),
                scopes: Default::default(),
            },
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
                ("expire idempotency keys", Some(3)),
                ("expire grants", None),
                ("redact operation secrets", Some(1)),
            ]
        );
    }
}
