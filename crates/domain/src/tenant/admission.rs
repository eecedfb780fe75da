//! Admission by tenant: a verified token names its tenant, and only a tenant that
//! exists here and is ACTIVE may act. An external OpenID Connect issuer is trusted to
//! name tenants, not to make them up: rows are never written under a tenant id that
//! has no tenant.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;

use super::model::TenantState;
use super::ports::TenantRepository;
use crate::error::{Code, Error};
use crate::principal::{Authenticator, Principal, TenantId, reasons};
use crate::time::{Clock, Timestamp};

/// How long a tenant found ACTIVE is admitted without asking the repository again.
pub const ADMISSION_TTL: Duration = Duration::from_secs(30);

/// How many admitted tenants are remembered at most.
pub const ADMISSION_CAPACITY: usize = 10_000;

/// An [`Authenticator`] that passes on the principal of the one it wraps only when the
/// principal's tenant exists and is ACTIVE; otherwise UNAUTHENTICATED with reason
/// [`reasons::UNKNOWN_TENANT`], exactly as for a tenant that does not exist, so a token
/// learns nothing about a tenant's state.
///
/// Tenants found ACTIVE are remembered for [`ADMISSION_TTL`] (at most
/// [`ADMISSION_CAPACITY`] of them), so that each tenant costs one repository lookup per
/// TTL, not one per request. A tenant not found is never remembered: it is looked up
/// on every request, is never admitted while it does not exist, and is admitted as soon
/// as it does. A repository failure refuses the request (UNAVAILABLE or INTERNAL).
pub struct TenantAdmission {
    inner: Arc<dyn Authenticator>,
    tenants: Arc<dyn TenantRepository>,
    clock: Arc<dyn Clock>,
    capacity: usize,
    /// The tenants found ACTIVE, each with the instant its admission ends.
    admitted: Mutex<HashMap<TenantId, Timestamp>>,
}

impl std::fmt::Debug for TenantAdmission {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TenantAdmission")
            .field("capacity", &self.capacity)
            .finish_non_exhaustive()
    }
}

impl TenantAdmission {
    /// Admission in front of `inner`, looking tenants up in `tenants`.
    pub fn new(
        inner: Arc<dyn Authenticator>,
        tenants: Arc<dyn TenantRepository>,
        clock: Arc<dyn Clock>,
    ) -> TenantAdmission {
        TenantAdmission::with_capacity(inner, tenants, clock, ADMISSION_CAPACITY)
    }

    fn with_capacity(
        inner: Arc<dyn Authenticator>,
        tenants: Arc<dyn TenantRepository>,
        clock: Arc<dyn Clock>,
        capacity: usize,
    ) -> TenantAdmission {
        TenantAdmission {
            inner,
            tenants,
            clock,
            capacity,
            admitted: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `tenant` was found ACTIVE less than [`ADMISSION_TTL`] before `now`.
    fn remembered(&self, tenant: &TenantId, now: Timestamp) -> bool {
        self.admitted
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(tenant)
            .is_some_and(|until| *until > now)
    }

    /// Remembers `tenant` as ACTIVE at `now`. When full, forgets the expired entries,
    /// and every entry if none has expired.
    fn remember(&self, tenant: &TenantId, now: Timestamp) {
        let mut admitted = self.admitted.lock().unwrap_or_else(PoisonError::into_inner);
        if admitted.len() >= self.capacity && !admitted.contains_key(tenant) {
            admitted.retain(|_, until| *until > now);
            if admitted.len() >= self.capacity {
                admitted.clear();
            }
        }
        admitted.insert(tenant.clone(), now.plus(ADMISSION_TTL));
    }

    /// Checks that `tenant` exists and is ACTIVE.
    async fn admit(&self, tenant: &TenantId) -> crate::Result<()> {
        let now = self.clock.now();
        if self.remembered(tenant, now) {
            return Ok(());
        }
        match self.tenants.get(tenant).await.map_err(Error::from)? {
            Some(found) if found.state == TenantState::Active => {
                self.remember(tenant, now);
                Ok(())
            }
            _ => Err(Error::new(
                Code::Unauthenticated,
                reasons::UNKNOWN_TENANT,
                "The token names a tenant that does not exist in this service.",
            )),
        }
    }
}

#[async_trait]
impl Authenticator for TenantAdmission {
    async fn authenticate<'a>(&self, authorization: Option<&'a str>) -> crate::Result<Principal> {
        let principal = self.inner.authenticate(authorization).await?;
        self.admit(&principal.tenant).await?;
        Ok(principal)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicI64, Ordering};

    use super::*;
    use crate::principal::MockAuthenticator;
    use crate::repository::RepositoryError;
    use crate::tenant::Tenant;
    use crate::tenant::ports::MockTenantRepository;

    /// A clock the test moves, in seconds from 2026-01-01T00:00:00Z.
    #[derive(Default)]
    struct SteppedClock(AtomicI64);

    impl SteppedClock {
        fn advance(&self, seconds: i64) {
            self.0.fetch_add(seconds, Ordering::SeqCst);
        }
    }

    impl Clock for SteppedClock {
        fn now(&self) -> Timestamp {
            let seconds = 1_767_225_600 + self.0.load(Ordering::SeqCst);
            Timestamp::from_unix_micros(seconds * 1_000_000).unwrap()
        }
    }

    /// An authenticator whose token is the tenant id.
    fn inner() -> MockAuthenticator {
        let mut inner = MockAuthenticator::new();
        inner.expect_authenticate().returning(|token| {
            Ok(Principal {
                tenant: TenantId::new(token.unwrap_or_default()),
                subject: "s".into(),
                display_name: "S".into(),
                scopes: Default::default(),
            })
        });
        inner
    }

    fn active(id: &str) -> Tenant {
        Tenant {
            name: Tenant::name_of(id),
            state: TenantState::Active,
            ..Tenant::default()
        }
    }

    /// Admission over tenants that answer `lookup`, counting the lookups.
    fn admission(
        lookup: impl Fn(&str) -> Result<Option<Tenant>, RepositoryError> + Send + Sync + 'static,
        capacity: usize,
    ) -> (TenantAdmission, Arc<SteppedClock>, Arc<AtomicI64>) {
        let lookups = Arc::new(AtomicI64::new(0));
        let counted = lookups.clone();
        let mut tenants = MockTenantRepository::new();
        tenants.expect_get().returning(move |id| {
            counted.fetch_add(1, Ordering::SeqCst);
            lookup(id.as_str())
        });
        let clock = Arc::new(SteppedClock::default());
        let admission = TenantAdmission::with_capacity(
            Arc::new(inner()),
            Arc::new(tenants),
            clock.clone(),
            capacity,
        );
        (admission, clock, lookups)
    }

    #[tokio::test]
    async fn an_active_tenant_is_admitted_and_remembered_for_the_ttl() {
        let (admission, clock, lookups) = admission(|id| Ok(Some(active(id))), 10);
        for _ in 0..3 {
            let principal = admission.authenticate(Some("acme")).await.unwrap();
            assert_eq!(principal.tenant, TenantId::new("acme"));
        }
        assert_eq!(lookups.load(Ordering::SeqCst), 1);
        clock.advance(29);
        admission.authenticate(Some("acme")).await.unwrap();
        assert_eq!(lookups.load(Ordering::SeqCst), 1);
        clock.advance(1);
        admission.authenticate(Some("acme")).await.unwrap();
        assert_eq!(
            lookups.load(Ordering::SeqCst),
            2,
            "looked up again after the TTL"
        );
    }

    #[tokio::test]
    async fn an_unknown_tenant_is_refused_every_time_until_it_exists() {
        let exists = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let seen = exists.clone();
        let (admission, _, lookups) = admission(
            move |id| Ok(seen.load(Ordering::SeqCst).then(|| active(id))),
            10,
        );
        for attempt in 1..=3 {
            let error = admission.authenticate(Some("ghost")).await.unwrap_err();
            assert_eq!(error.code, Code::Unauthenticated);
            assert_eq!(error.reason, reasons::UNKNOWN_TENANT);
            assert_eq!(lookups.load(Ordering::SeqCst), attempt, "never remembered");
        }
        exists.store(true, Ordering::SeqCst);
        admission.authenticate(Some("ghost")).await.unwrap();
    }

    #[tokio::test]
    async fn a_tenant_that_is_not_active_is_refused_like_a_missing_one() {
        let (admission, _, _) = admission(
            |id| {
                Ok(Some(Tenant {
                    state: TenantState::Unspecified,
                    ..active(id)
                }))
            },
            10,
        );
        let error = admission.authenticate(Some("dormant")).await.unwrap_err();
        assert_eq!(
            (error.code, error.reason),
            (Code::Unauthenticated, reasons::UNKNOWN_TENANT)
        );
    }

    #[tokio::test]
    async fn failures_refuse_and_pass_through() {
        let (admission, _, _) = admission(|_| Err(RepositoryError::Unavailable("down".into())), 10);
        let error = admission.authenticate(Some("acme")).await.unwrap_err();
        assert_eq!(error.code, Code::Unavailable);
        let mut refusing = MockAuthenticator::new();
        refusing.expect_authenticate().returning(|_| {
            Err(Error::new(
                Code::Unauthenticated,
                reasons::MISSING_TOKEN,
                "no token",
            ))
        });
        let mut tenants = MockTenantRepository::new();
        tenants.expect_get().never();
        let admission = TenantAdmission::new(
            Arc::new(refusing),
            Arc::new(tenants),
            Arc::new(SteppedClock::default()),
        );
        let error = admission.authenticate(None).await.unwrap_err();
        assert_eq!(error.reason, reasons::MISSING_TOKEN);
    }

    #[tokio::test]
    async fn the_memory_is_bounded() {
        let (admission, clock, lookups) = admission(|id| Ok(Some(active(id))), 2);
        for tenant in ["a", "b"] {
            admission.authenticate(Some(tenant)).await.unwrap();
        }
        // Full and nothing expired: a third tenant makes room by forgetting all.
        admission.authenticate(Some("c")).await.unwrap();
        assert_eq!(admission.admitted.lock().unwrap().len(), 1);
        admission.authenticate(Some("a")).await.unwrap();
        assert_eq!(lookups.load(Ordering::SeqCst), 4);
        // Full again: the expired entries go first, the live ones stay.
        clock.advance(31);
        admission.authenticate(Some("d")).await.unwrap();
        admission.authenticate(Some("e")).await.unwrap();
        let remembered = admission.admitted.lock().unwrap().len();
        assert!(remembered <= 2, "{remembered}");
        assert_eq!(lookups.load(Ordering::SeqCst), 6);
    }
}
