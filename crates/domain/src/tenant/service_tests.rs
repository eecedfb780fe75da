//! Unit tests of the tenant service over mocked ports.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;

use super::model::{Tenant, TenantType};
use super::ports::{MockTenantRepository, TenantPlan};
use super::service::{Credentials, ProvisioningStep, SECRET_RETENTION, TenantService};
use crate::error::{Code, Result};
use crate::id::MockIdGenerator;
use crate::lifecycle::ServiceContext;
use crate::list::Paging;
use crate::operation::MockOperationRepository;
use crate::principal::{Principal, Scope, TenantId};
use crate::time::{MockClock, Timestamp};

fn now() -> Timestamp {
    Timestamp::parse_rfc3339("2026-11-22T10:00:00Z").unwrap()
}

fn principal(tenant: &str) -> Principal {
    Principal {
        tenant: TenantId::new(tenant),
        subject: "admin".into(),
        display_name: "Admin".into(),
        scopes: BTreeSet::from(Scope::ALL),
    }
}

fn tenant(id: &str, kind: TenantType) -> Tenant {
    Tenant {
        name: Tenant::name_of(id),
        display_name: id.into(),
        tenant_type: kind,
        ..Tenant::default()
    }
}

/// A step recording that it ran (with the tenant's type), adding a client id and a
/// secret.
struct Recorder {
    name: &'static str,
    at_bootstrap: bool,
    log: Arc<Mutex<Vec<(&'static str, TenantType)>>>,
}

#[async_trait]
impl ProvisioningStep for Recorder {
    fn name(&self) -> &'static str {
        self.name
    }

    fn at_bootstrap(&self) -> bool {
        self.at_bootstrap
    }

    async fn apply(&self, plan: &mut TenantPlan, credentials: &mut Credentials) -> Result<()> {
        self.log
            .lock()
            .unwrap()
            .push((self.name, plan.tenant.tenant_type));
        credentials
            .clients
            .push((format!("{}-client", self.name), "s3cret".into()));
        Ok(())
    }
}

fn service(
    tenants: MockTenantRepository,
    operations: MockOperationRepository,
    log: Arc<Mutex<Vec<(&'static str, TenantType)>>>,
) -> TenantService {
    let mut clock = MockClock::new();
    clock.expect_now().returning(now);
    let clock = Arc::new(clock);
    let mut ids = MockIdGenerator::new();
    let mut n = 0;
    ids.expect_resource_id().returning(move || {
        n += 1;
        format!("id-{n}")
    });
    let steps: Vec<Arc<dyn ProvisioningStep>> = vec![
        Arc::new(Recorder {
            name: "first",
            at_bootstrap: true,
            log: log.clone(),
        }),
        Arc::new(Recorder {
            name: "second",
            at_bootstrap: false,
            log,
        }),
    ];
    TenantService::new(
        Arc::new(tenants),
        Arc::new(operations),
        steps,
        ServiceContext {
            clock: clock.clone(),
            ids: Arc::new(ids),
            paging: Arc::new(Paging::new(&[1; 32], clock).unwrap()),
            retention: Duration::from_secs(86_400),
        },
    )
}

#[tokio::test]
async fn a_partner_creates_a_child_through_every_step() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut tenants = MockTenantRepository::new();
    tenants
        .expect_get()
        .returning(|id| Ok(Some(tenant(id.as_str(), TenantType::Partner))));
    tenants
        .expect_provision()
        .withf(|plan, owner, operation, events| {
            plan.tenant.parent == "tenants/p1"
                && plan.tenant.tenant_type == TenantType::Standard
                && owner.as_str() == "p1"
                && operation.name.starts_with("tenants/p1/operations/")
                && operation.done
                && operation.redact_after == Some(now().plus(SECRET_RETENTION))
                && events[0].event_type == "tenant.created"
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let service = service(tenants, MockOperationRepository::new(), log.clone());
    let operation = service
        .create_child(&principal("p1"), json!({"displayName": "Acme Bank"}))
        .await
        .unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        vec![
            ("first", TenantType::Standard),
            ("second", TenantType::Standard)
        ]
    );
    let response = operation.response.unwrap();
    assert_eq!(response["tenant"]["displayName"], "Acme Bank");
    assert_eq!(response["tenant"]["parent"], "tenants/p1");
    assert_eq!(
        response["clients"][0],
        json!({"clientId": "first-client", "clientSecret": "s3cret"})
    );
    assert_eq!(operation.metadata.value, "2/2 steps");
}

#[tokio::test]
async fn standard_tenants_and_bad_bodies_are_refused() {
    let mut tenants = MockTenantRepository::new();
    tenants.expect_get().returning(|id| {
        let kind = if id.as_str() == "s1" {
            TenantType::Standard
        } else {
            TenantType::Partner
        };
        Ok(Some(tenant(id.as_str(), kind)))
    });
    tenants.expect_provision().never();
    let service = service(tenants, MockOperationRepository::new(), Arc::default());
    let error = service
        .create_child(&principal("s1"), json!({"displayName": "X"}))
        .await
        .unwrap_err();
    assert_eq!(
        (error.code, error.reason),
        (Code::PermissionDenied, "PARTNER_TENANT_REQUIRED")
    );
    let error = service
        .create_child(&principal("p1"), json!({}))
        .await
        .unwrap_err();
    assert_eq!(error.field_violations[0].field, "tenant.displayName");
    let error = service
        .create_child(&principal("p1"), json!({"displayName": "X", "colour": 1}))
        .await
        .unwrap_err();
    assert_eq!(error.reason, "UNKNOWN_FIELD");
}

#[tokio::test]
async fn only_the_callers_own_tenant_is_visible() {
    let mut tenants = MockTenantRepository::new();
    tenants
        .expect_get()
        .returning(|id| Ok(Some(tenant(id.as_str(), TenantType::Partner))));
    let mut operations = MockOperationRepository::new();
    operations
        .expect_get()
        .withf(|owner, name| owner.as_str() == "p1" && name == "tenants/p1/operations/op1")
        .returning(|_, _| Ok(None));
    let service = service(tenants, operations, Arc::default());
    assert_eq!(
        service.get(&principal("p1"), "current").await.unwrap().name,
        "tenants/p1"
    );
    assert_eq!(
        service.get(&principal("p1"), "p1").await.unwrap().name,
        "tenants/p1"
    );
    for other in ["child", "p2"] {
        let error = service.get(&principal("p1"), other).await.unwrap_err();
        assert_eq!(
            (error.code, error.metadata["resource"].clone()),
            (Code::NotFound, format!("tenants/{other}"))
        );
    }
    let error = service
        .get_operation(&principal("p1"), "p2", "op1")
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::NotFound);
    let error = service
        .get_operation(&principal("p1"), "current", "op1")
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::NotFound);
}

#[tokio::test]
async fn the_first_start_provisions_a_partner_through_the_bootstrap_steps() {
    use super::service::BootstrapSpec;
    use crate::identity::admin::Registrar;
    use crate::identity::ports::MockSecretHasher;
    let mut tenants = MockTenantRepository::new();
    let mut first = true;
    tenants
        .expect_bootstrap()
        .withf(|plan| {
            plan.tenant.tenant_type == TenantType::Partner
                && plan.clients[0].client_id == "ops"
                && plan.clients[0].secret_hash.as_deref() == Some("hashed")
                && plan.users[0].username == "root"
        })
        .times(2)
        .returning(move |_| {
            let created = first;
            first = false;
            Ok(created)
        });
    let log = Arc::new(Mutex::new(Vec::new()));
    let service = service(tenants, MockOperationRepository::new(), log.clone());
    let mut hasher = MockSecretHasher::new();
    hasher.expect_hash().returning(|_| Ok("hashed".into()));
    let mut ids = MockIdGenerator::new();
    ids.expect_resource_id().returning(|| "u1".into());
    let mut clock = MockClock::new();
    clock.expect_now().returning(now);
    let registrar = Registrar::new(Arc::new(hasher), Arc::new(ids), Arc::new(clock));
    let spec = BootstrapSpec {
        client_id: Some("ops".into()),
        client_secret: Some("a-long-enough-secret".into()),
        user: Some(("Root".into(), "a-long-enough-password".into())),
    };
    let report = service
        .bootstrap(&registrar, spec.clone())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(report.client_id, "ops");
    assert_eq!(
        report.generated_secret, None,
        "a chosen secret is not printed"
    );
    assert_eq!(report.username.as_deref(), Some("root"));
    assert_eq!(
        *log.lock().unwrap(),
        vec![("first", TenantType::Partner)],
        "only the steps that run at bootstrap"
    );
    assert!(
        service.bootstrap(&registrar, spec).await.unwrap().is_none(),
        "a second start does nothing"
    );
}
