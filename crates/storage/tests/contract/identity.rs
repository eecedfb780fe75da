//! The identity contract suite: clients, users, authorization codes, refresh tokens,
//! signing keys, tenants and operations. Every test runs once on SQLite and once on
//! PostgreSQL, as `<test>::sqlite` and `<test>::postgres`. Besides every method and
//! error, it checks the guarantees that hold under concurrency (a code is exchanged
//! once, a refresh token rotates once, racing key rotations and first starts write
//! once) and that tenants see neither each other's users nor operations.

use std::collections::BTreeSet;
use std::sync::{Arc, LazyLock};

use diesel::prelude::*;
use rics_aip::filter::{FieldType, FilterSchema};
use rics_domain::event::NewEvent;
use rics_domain::identity::model::{
    AuthorizationCode, Client, RefreshToken, Rotation, SigningKey, User,
};
use rics_domain::identity::ports::{IdentityRepository, KeyRepository};
use rics_domain::list::{ListRequest, ListSpec, Paging, SortBy, SortKey};
use rics_domain::operation::{Operation, OperationError, OperationMetadata, OperationRepository};
use rics_domain::principal::{Scope, TenantId};
use rics_domain::repository::RepositoryError;
use rics_domain::tenant::ports::{TenantPlan, TenantRepository};
use rics_domain::tenant::{Tenant, TenantState, TenantType};
use rics_domain::time::SystemClock;
use rics_storage::schema::{events, tenants};
use rics_storage::testing::TestDatabase;
use rics_storage::{
    Backend, Database, DieselIdentityRepository, DieselKeyRepository, DieselOperationRepository,
    DieselTenantRepository,
};
use serde_json::json;

use crate::support::at;

contract!(
    clients_round_trip_and_refuse_taken_ids_and_missing_tenants,
    users_round_trip_and_refuse_taken_names_and_missing_tenants,
    users_of_two_tenants_may_share_an_id,
    codes_are_single_use_and_refused_after_they_expire,
    concurrent_exchanges_of_a_code_succeed_once,
    refresh_tokens_rotate_and_reuse_revokes_the_family,
    refresh_tokens_of_others_expired_or_revoked_are_unknown,
    a_failed_rotation_spends_nothing,
    concurrent_spends_of_a_refresh_token_rotate_once,
    expired_grants_are_forgotten,
    keys_rotate_only_from_the_expected_current_key,
    racing_key_rotations_make_one_current_key,
    bootstrap_writes_the_plan_only_on_an_empty_database,
    concurrent_bootstraps_write_one_plan,
    provision_writes_tenant_clients_users_operation_and_events,
    provision_refuses_taken_ids_and_writes_nothing,
    children_are_listed_filtered_ordered_and_paged,
    operations_round_trip_and_stay_in_their_tenant,
    redaction_removes_client_secrets_once_due,
);

/// A migrated database with the four repositories over it.
struct Fixture {
    db: Database,
    identity: Arc<dyn IdentityRepository>,
    keys: Arc<dyn KeyRepository>,
    tenants: Arc<dyn TenantRepository>,
    operations: Arc<dyn OperationRepository>,
    _test_db: TestDatabase,
}

impl Fixture {
    fn new(backend: Backend) -> Fixture {
        let test_db = TestDatabase::new(backend);
        let db = test_db.open().unwrap();
        Fixture {
            identity: Arc::new(DieselIdentityRepository::new(db.clone())),
            keys: Arc::new(DieselKeyRepository::new(db.clone())),
            tenants: Arc::new(DieselTenantRepository::new(db.clone())),
            operations: Arc::new(DieselOperationRepository::new(db.clone())),
            db,
            _test_db: test_db,
        }
    }

    /// A fixture with the partner `p1` (bootstrapped) and its standard child `s1`.
    async fn with_tenants(backend: Backend) -> Fixture {
        let f = Fixture::new(backend);
        assert!(f.tenants.bootstrap(&plan(partner("p1", 0))).await.unwrap());
        f.provision(plan(child("s1", "p1", "Standard One", 1)), "p1")
            .await;
        f
    }

    /// Provisions `plan` for `owner` with an operation (without secrets to redact)
    /// and no events.
    async fn provision(&self, plan: TenantPlan, owner: &str) {
        let op = Operation {
            redact_after: None,
            ..operation(
                &format!("tenants/{owner}/operations/op-{}", plan.tenant.id()),
                0,
            )
        };
        self.tenants
            .provision(&plan, &TenantId::new(owner), &op, &[])
            .await
            .unwrap_or_else(|e| panic!("provision {}: {e}", plan.tenant.name));
    }

    /// How many tenants exist.
    async fn tenant_count(&self) -> i64 {
        self.db
            .read(|conn| {
                tenants::table
                    .count()
                    .get_result(conn)
                    .map_err(|e| RepositoryError::Internal(e.to_string()))
            })
            .await
            .unwrap()
    }

    /// The (event type, creator) of `tenant`'s events.
    async fn events(&self, tenant: &str) -> Vec<(String, String)> {
        let tenant = tenant.to_owned();
        self.db
            .read(move |conn| {
                events::table
                    .filter(events::tenant_id.eq(&tenant))
                    .order(events::id)
                    .select((events::event_type, events::creator))
                    .load(conn)
                    .map_err(|e| RepositoryError::Internal(e.to_string()))
            })
            .await
            .unwrap()
    }
}

fn scopes(list: &[Scope]) -> BTreeSet<Scope> {
    list.iter().copied().collect()
}

fn partner(id: &str, seconds: i64) -> Tenant {
    Tenant {
        name: Tenant::name_of(id),
        display_name: format!("Partner {id}"),
        tenant_type: TenantType::Partner,
        parent: String::new(),
        state: TenantState::Active,
        create_time: Some(at(seconds)),
        update_time: Some(at(seconds)),
    }
}

fn child(id: &str, parent: &str, display_name: &str, seconds: i64) -> Tenant {
    Tenant {
        name: Tenant::name_of(id),
        display_name: display_name.to_owned(),
        tenant_type: TenantType::Standard,
        parent: Tenant::name_of(parent),
        state: TenantState::Active,
        create_time: Some(at(seconds)),
        update_time: Some(at(seconds + 1)),
    }
}

/// A plan for `tenant` with its administrator client `{id}-admin`.
fn plan(tenant: Tenant) -> TenantPlan {
    let id = tenant.id().to_owned();
    TenantPlan {
        clients: vec![client(&format!("{id}-admin"), &id)],
        users: Vec::new(),
        alert_types: Vec::new(),
        form_definitions: Vec::new(),
        automations: Vec::new(),
        tenant,
    }
}

fn client(client_id: &str, tenant: &str) -> Client {
    Client {
        client_id: client_id.to_owned(),
        tenant: TenantId::new(tenant),
        display_name: format!("Client {client_id}"),
        secret_hash: Some(format!("$argon2id$v=19$hash-of-{client_id}")),
        scopes: scopes(&Scope::ALL),
        redirect_uris: Vec::new(),
        create_time: at(5),
    }
}

fn user(user_id: &str, tenant: &str, username: &str) -> User {
    User {
        user_id: user_id.to_owned(),
        tenant: TenantId::new(tenant),
        username: username.to_owned(),
        display_name: format!("User {username}"),
        password_hash: format!("$argon2id$v=19$password-of-{username}"),
        scopes: scopes(&[Scope::Read, Scope::Write]),
        create_time: at(6),
    }
}

fn code(code_hash: &str, expires: i64) -> AuthorizationCode {
    AuthorizationCode {
        code_hash: code_hash.to_owned(),
        client_id: "web".to_owned(),
        tenant: TenantId::new("s1"),
        user_id: "u1".to_owned(),
        display_name: "User one".to_owned(),
        redirect_uri: "https://app.example/callback".to_owned(),
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM".to_owned(),
        scopes: scopes(&[Scope::Read]),
        expire_time: at(expires),
    }
}

fn token(token_hash: &str, family_id: &str, expires: i64) -> RefreshToken {
    RefreshToken {
        token_hash: token_hash.to_owned(),
        family_id: family_id.to_owned(),
        client_id: "web".to_owned(),
        tenant: TenantId::new("s1"),
        subject: "u1".to_owned(),
        display_name: "User one".to_owned(),
        scopes: scopes(&[Scope::Read, Scope::Write]),
        expire_time: at(expires),
    }
}

fn key(kid: &str, seconds: i64) -> SigningKey {
    SigningKey {
        kid: kid.to_owned(),
        algorithm: "EdDSA".to_owned(),
        private_key: format!("private-{kid}"),
        public_jwk: format!(r#"{{"kty":"OKP","crv":"Ed25519","kid":"{kid}","x":"AA"}}"#),
        create_time: at(seconds),
        retire_time: None,
    }
}

/// A done operation whose response holds a client secret, redacted at `redact`.
fn operation(name: &str, seconds: i64) -> Operation {
    Operation {
        name: name.to_owned(),
        metadata: OperationMetadata {
            kind: "rics.v1alpha.CreateTenant".to_owned(),
            value: "1/1 steps".to_owned(),
            debug: json!({"steps": ["first-client"]}),
        },
        done: true,
        error: None,
        response: Some(json!({
            "@type": "type.googleapis.com/rics.v1alpha.CreateTenantResponse",
            "tenant": {"name": "tenants/x", "displayName": "X"},
            "clients": [{"clientId": "x-admin", "clientSecret": "s3cr3t"}],
        })),
        create_time: Some(at(seconds)),
        redact_after: Some(at(seconds + 86_400)),
    }
}

async fn clients_round_trip_and_refuse_taken_ids_and_missing_tenants(backend: Backend) {
    let f = Fixture::with_tenants(backend).await;
    let confidential = client("c1", "s1");
    let public = Client {
        secret_hash: None,
        scopes: BTreeSet::new(),
        redirect_uris: vec![
            "https://app.example/callback".to_owned(),
            "http://127.0.0.1:8080/cb?x=\"1\"".to_owned(),
        ],
        ..client("web", "s1")
    };
    f.identity.create_client(&confidential).await.unwrap();
    f.identity.create_client(&public).await.unwrap();
    assert_eq!(
        f.identity.find_client("c1").await.unwrap(),
        Some(confidential)
    );
    assert_eq!(f.identity.find_client("web").await.unwrap(), Some(public));
    assert_eq!(f.identity.find_client("nobody").await.unwrap(), None);
    // The bootstrap and provisioning wrote the administrators.
    assert_eq!(
        f.identity.find_client("p1-admin").await.unwrap(),
        Some(client("p1-admin", "p1"))
    );
    assert_eq!(
        f.identity.create_client(&client("c1", "p1")).await,
        Err(RepositoryError::AlreadyExists)
    );
    assert_eq!(
        f.identity.create_client(&client("c2", "ghost")).await,
        Err(RepositoryError::NotFound)
    );
    assert_eq!(f.identity.find_client("c2").await.unwrap(), None);
}

async fn users_round_trip_and_refuse_taken_names_and_missing_tenants(backend: Backend) {
    let f = Fixture::with_tenants(backend).await;
    let ada = user("u1", "s1", "ada");
    f.identity.create_user(&ada).await.unwrap();
    assert_eq!(f.identity.find_user("ada").await.unwrap(), Some(ada));
    assert_eq!(f.identity.find_user("grace").await.unwrap(), None);
    // Usernames are global: another tenant cannot take one either.
    assert_eq!(
        f.identity.create_user(&user("u2", "p1", "ada")).await,
        Err(RepositoryError::AlreadyExists)
    );
    assert_eq!(
        f.identity.create_user(&user("u1", "s1", "ada2")).await,
        Err(RepositoryError::AlreadyExists)
    );
    assert_eq!(
        f.identity.create_user(&user("u3", "ghost", "grace")).await,
        Err(RepositoryError::NotFound)
    );
    assert_eq!(f.identity.find_user("grace").await.unwrap(), None);
    assert_eq!(f.identity.find_user("ada2").await.unwrap(), None);
}

async fn users_of_two_tenants_may_share_an_id(backend: Backend) {
    let f = Fixture::with_tenants(backend).await;
    f.identity
        .create_user(&user("u1", "s1", "ada"))
        .await
        .unwrap();
    f.identity
        .create_user(&user("u1", "p1", "grace"))
        .await
        .unwrap();
    let ada = f.identity.find_user("ada").await.unwrap().unwrap();
    let grace = f.identity.find_user("grace").await.unwrap().unwrap();
    assert_eq!((ada.tenant.as_str(), ada.user_id.as_str()), ("s1", "u1"));
    assert_eq!(
        (grace.tenant.as_str(), grace.user_id.as_str()),
        ("p1", "u1")
    );
}

/// Stores `token` as the first of its family, by the exchange of a code made for it.
async fn issue(f: &Fixture, token: &RefreshToken) {
    let code_hash = format!("code-for-{}", token.token_hash);
    f.identity.save_code(&code(&code_hash, 0)).await.unwrap();
    assert!(
        f.identity
            .exchange_code(&code_hash, at(0), token)
            .await
            .unwrap()
    );
}

async fn codes_are_single_use_and_refused_after_they_expire(backend: Backend) {
    let f = Fixture::new(backend);
    for (hash, expires) in [("a", 60), ("b", 60), ("c", 60)] {
        f.identity.save_code(&code(hash, expires)).await.unwrap();
    }
    // Finding a code spends nothing; exchanging it stores the first refresh token.
    for _ in 0..2 {
        assert_eq!(
            f.identity.find_code("a", at(10)).await.unwrap(),
            Some(code("a", 60))
        );
    }
    assert!(
        f.identity
            .exchange_code("a", at(10), &token("t-a", "fam-a", 3600))
            .await
            .unwrap()
    );
    assert_eq!(
        f.identity
            .find_refresh_token("t-a", "web", at(10))
            .await
            .unwrap(),
        Some(token("t-a", "fam-a", 3600))
    );
    assert_eq!(f.identity.find_code("a", at(10)).await.unwrap(), None);
    // A second exchange stores nothing.
    assert!(
        !f.identity
            .exchange_code("a", at(10), &token("t-a2", "fam-a2", 3600))
            .await
            .unwrap()
    );
    assert_eq!(
        f.identity
            .find_refresh_token("t-a2", "web", at(10))
            .await
            .unwrap(),
        None
    );
    // Valid up to its expiry instant, refused after it.
    assert_eq!(
        f.identity.find_code("b", at(60)).await.unwrap(),
        Some(code("b", 60))
    );
    assert!(
        f.identity
            .exchange_code("b", at(60), &token("t-b", "fam-b", 3600))
            .await
            .unwrap()
    );
    assert_eq!(f.identity.find_code("c", at(61)).await.unwrap(), None);
    assert!(
        !f.identity
            .exchange_code("c", at(61), &token("t-c", "fam-c", 3600))
            .await
            .unwrap()
    );
    assert_eq!(
        f.identity
            .find_refresh_token("t-c", "web", at(10))
            .await
            .unwrap(),
        None
    );
    assert_eq!(f.identity.find_code("zzz", at(10)).await.unwrap(), None);
}

async fn concurrent_exchanges_of_a_code_succeed_once(backend: Backend) {
    let f = Fixture::new(backend);
    for round in 0..5 {
        let hash = format!("code-{round}");
        f.identity.save_code(&code(&hash, 60)).await.unwrap();
        let tasks: Vec<_> = (0..8)
            .map(|attempt| {
                let (identity, hash) = (f.identity.clone(), hash.clone());
                let first = token(
                    &format!("{hash}-t{attempt}"),
                    &format!("{hash}-f{attempt}"),
                    3600,
                );
                tokio::spawn(async move { identity.exchange_code(&hash, at(1), &first).await })
            })
            .collect();
        let mut exchanged = 0;
        for task in tasks {
            if task.await.unwrap().unwrap() {
                exchanged += 1;
            }
        }
        assert_eq!(exchanged, 1, "round {round}");
        let mut stored = 0;
        for attempt in 0..8 {
            let first = format!("{hash}-t{attempt}");
            if f.identity
                .find_refresh_token(&first, "web", at(1))
                .await
                .unwrap()
                .is_some()
            {
                stored += 1;
            }
        }
        assert_eq!(stored, 1, "round {round}: one first refresh token");
    }
}

async fn refresh_tokens_rotate_and_reuse_revokes_the_family(backend: Backend) {
    let f = Fixture::new(backend);
    issue(&f, &token("r1", "fam", 3600)).await;
    issue(&f, &token("other", "fam2", 3600)).await;
    assert_eq!(
        f.identity
            .rotate_refresh_token("r1", "web", at(1), &token("r2", "fam", 3700))
            .await
            .unwrap(),
        Rotation::Rotated
    );
    assert_eq!(
        f.identity
            .find_refresh_token("r2", "web", at(1))
            .await
            .unwrap(),
        Some(token("r2", "fam", 3700))
    );
    // A spent token is still found: presenting it again is a reuse.
    assert_eq!(
        f.identity
            .find_refresh_token("r1", "web", at(1))
            .await
            .unwrap(),
        Some(token("r1", "fam", 3600))
    );
    // The spent token presented again: reuse; nothing is stored for it, and the live
    // successor dies with the family.
    assert_eq!(
        f.identity
            .rotate_refresh_token("r1", "web", at(2), &token("r2b", "fam", 3700))
            .await
            .unwrap(),
        Rotation::Reused
    );
    for (hash, what) in [
        ("r2b", "nothing stored"),
        ("r2", "revoked"),
        ("r1", "revoked"),
    ] {
        assert_eq!(
            f.identity
                .find_refresh_token(hash, "web", at(2))
                .await
                .unwrap(),
            None,
            "{hash}: {what}"
        );
    }
    assert_eq!(
        f.identity
            .rotate_refresh_token("r2", "web", at(3), &token("r3", "fam", 3800))
            .await
            .unwrap(),
        Rotation::Unknown
    );
    // Once revoked, the spent token is unknown too.
    assert_eq!(
        f.identity
            .rotate_refresh_token("r1", "web", at(4), &token("r3", "fam", 3800))
            .await
            .unwrap(),
        Rotation::Unknown
    );
    // Another family is untouched.
    assert_eq!(
        f.identity
            .rotate_refresh_token("other", "web", at(5), &token("other2", "fam2", 3600))
            .await
            .unwrap(),
        Rotation::Rotated
    );
}

async fn refresh_tokens_of_others_expired_or_revoked_are_unknown(backend: Backend) {
    let f = Fixture::new(backend);
    issue(&f, &token("r1", "fam", 60)).await;
    let next = |hash: &str| token(hash, "fam", 120);
    assert_eq!(
        f.identity
            .rotate_refresh_token("nope", "web", at(1), &next("x1"))
            .await
            .unwrap(),
        Rotation::Unknown
    );
    // Another client's attempt finds and changes nothing.
    assert_eq!(
        f.identity
            .find_refresh_token("r1", "intruder", at(1))
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        f.identity
            .rotate_refresh_token("r1", "intruder", at(1), &next("x2"))
            .await
            .unwrap(),
        Rotation::Unknown
    );
    assert_eq!(
        f.identity
            .find_refresh_token("r1", "web", at(61))
            .await
            .unwrap(),
        None,
        "expired"
    );
    assert_eq!(
        f.identity
            .rotate_refresh_token("r1", "web", at(61), &next("x3"))
            .await
            .unwrap(),
        Rotation::Unknown,
        "expired"
    );
    assert_eq!(
        f.identity
            .rotate_refresh_token("r1", "web", at(60), &next("r2"))
            .await
            .unwrap(),
        Rotation::Rotated,
        "valid up to its expiry instant"
    );
    // A spent token after its expiry: unknown, and the family is not revoked for it.
    assert_eq!(
        f.identity
            .rotate_refresh_token("r1", "web", at(90), &next("x4"))
            .await
            .unwrap(),
        Rotation::Unknown
    );
    assert_eq!(
        f.identity
            .rotate_refresh_token("r2", "web", at(90), &next("r3"))
            .await
            .unwrap(),
        Rotation::Rotated
    );
    for hash in ["x1", "x2", "x3", "x4"] {
        assert_eq!(
            f.identity
                .find_refresh_token(hash, "web", at(90))
                .await
                .unwrap(),
            None,
            "{hash}: nothing stored for a refused rotation"
        );
    }
}

async fn a_failed_rotation_spends_nothing(backend: Backend) {
    let f = Fixture::new(backend);
    issue(&f, &token("r1", "fam", 3600)).await;
    issue(&f, &token("taken", "fam2", 3600)).await;
    // The successor cannot be stored (its hash is taken): the spend is rolled back.
    assert!(
        f.identity
            .rotate_refresh_token("r1", "web", at(1), &token("taken", "fam", 3600))
            .await
            .is_err()
    );
    // A successor of another family is refused before anything changes.
    assert!(matches!(
        f.identity
            .rotate_refresh_token("r1", "web", at(1), &token("r2", "fam2", 3600))
            .await,
        Err(RepositoryError::Internal(_))
    ));
    assert_eq!(
        f.identity
            .rotate_refresh_token("r1", "web", at(2), &token("r2", "fam", 3600))
            .await
            .unwrap(),
        Rotation::Rotated,
        "still live: not taken for a reuse"
    );
}

async fn concurrent_spends_of_a_refresh_token_rotate_once(backend: Backend) {
    let f = Fixture::new(backend);
    for round in 0..4 {
        let (hash, family) = (format!("r-{round}"), format!("fam-{round}"));
        issue(&f, &token(&hash, &family, 3600)).await;
        let successors: Vec<String> = (0..6).map(|i| format!("{hash}-next-{i}")).collect();
        let tasks: Vec<_> = successors
            .iter()
            .map(|successor| {
                let (identity, hash) = (f.identity.clone(), hash.clone());
                let successor = token(successor, &family, 3600);
                tokio::spawn(async move {
                    identity
                        .rotate_refresh_token(&hash, "web", at(1), &successor)
                        .await
                })
            })
            .collect();
        let mut outcomes = Vec::new();
        for task in tasks {
            outcomes.push(task.await.unwrap().unwrap());
        }
        let rotated = outcomes.iter().filter(|o| **o == Rotation::Rotated).count();
        assert_eq!(rotated, 1, "round {round}: {outcomes:?}");
        // Every other attempt saw the token spent (a replay) and revoked the family,
        // unless it came after the revocation.
        assert!(
            outcomes.contains(&Rotation::Reused),
            "round {round}: {outcomes:?}"
        );
        for successor in &successors {
            assert_eq!(
                f.identity
                    .rotate_refresh_token(successor, "web", at(2), &token("never", &family, 3600))
                    .await
                    .unwrap(),
                Rotation::Unknown,
                "round {round}: the family is revoked"
            );
        }
    }
}

async fn expired_grants_are_forgotten(backend: Backend) {
    let f = Fixture::new(backend);
    for (hash, expires) in [("old", 10), ("edge", 20), ("new", 30)] {
        f.identity.save_code(&code(hash, expires)).await.unwrap();
        issue(&f, &token(hash, hash, expires)).await;
    }
    assert_eq!(f.identity.expire_grants(at(20)).await.unwrap(), 2);
    assert_eq!(f.identity.expire_grants(at(20)).await.unwrap(), 0);
    assert_eq!(f.identity.find_code("old", at(0)).await.unwrap(), None);
    assert_eq!(
        f.identity
            .find_refresh_token("old", "web", at(0))
            .await
            .unwrap(),
        None
    );
    assert!(f.identity.find_code("edge", at(0)).await.unwrap().is_some());
    assert_eq!(
        f.identity
            .rotate_refresh_token("new", "web", at(0), &token("newer", "new", 30))
            .await
            .unwrap(),
        Rotation::Rotated
    );
    // The codes edge and new, the tokens edge, new (spent) and newer.
    assert_eq!(f.identity.expire_grants(at(100)).await.unwrap(), 5);
}

async fn keys_rotate_only_from_the_expected_current_key(backend: Backend) {
    let f = Fixture::new(backend);
    assert_eq!(f.keys.keys(at(0)).await.unwrap(), Vec::new());
    assert!(f.keys.rotate(&key("k1", 10), None).await.unwrap());
    assert!(!f.keys.rotate(&key("k2", 20), None).await.unwrap(), "stale");
    assert!(
        !f.keys
            .rotate(&key("k2", 20), Some("k0".to_owned()))
            .await
            .unwrap()
    );
    assert!(
        f.keys
            .rotate(&key("k2", 20), Some("k1".to_owned()))
            .await
            .unwrap()
    );
    let retired_k1 = SigningKey {
        retire_time: Some(at(20)),
        ..key("k1", 10)
    };
    assert_eq!(
        f.keys.keys(at(0)).await.unwrap(),
        vec![key("k2", 20), retired_k1.clone()]
    );
    // A key retired at `since` still counts; one retired before does not.
    assert_eq!(
        f.keys.keys(at(20)).await.unwrap(),
        vec![key("k2", 20), retired_k1]
    );
    assert_eq!(f.keys.keys(at(21)).await.unwrap(), vec![key("k2", 20)]);
    assert!(
        f.keys
            .rotate(&key("k3", 30), Some("k2".to_owned()))
            .await
            .unwrap()
    );
    let current: Vec<String> = f
        .keys
        .keys(at(0))
        .await
        .unwrap()
        .into_iter()
        .filter(|k| k.retire_time.is_none())
        .map(|k| k.kid)
        .collect();
    assert_eq!(current, vec!["k3".to_owned()]);
}

async fn racing_key_rotations_make_one_current_key(backend: Backend) {
    let f = Fixture::new(backend);
    for round in 0..3_i64 {
        let expected = f
            .keys
            .keys(at(0))
            .await
            .unwrap()
            .into_iter()
            .find(|k| k.retire_time.is_none())
            .map(|k| k.kid);
        let tasks: Vec<_> = (0..6)
            .map(|i| {
                let (keys, expected) = (f.keys.clone(), expected.clone());
                tokio::spawn(async move {
                    keys.rotate(&key(&format!("k{round}-{i}"), 100 * round + i), expected)
                        .await
                })
            })
            .collect();
        let mut stored = 0;
        for task in tasks {
            if task.await.unwrap().unwrap() {
                stored += 1;
            }
        }
        assert_eq!(stored, 1, "round {round}");
        let all = f.keys.keys(at(0)).await.unwrap();
        assert_eq!(all.len() as i64, round + 1);
        assert_eq!(all.iter().filter(|k| k.retire_time.is_none()).count(), 1);
    }
}

async fn bootstrap_writes_the_plan_only_on_an_empty_database(backend: Backend) {
    let f = Fixture::new(backend);
    let mut first = plan(partner("p1", 0));
    first.users.push(user("admin", "p1", "admin"));
    assert!(f.tenants.bootstrap(&first).await.unwrap());
    assert_eq!(
        f.tenants.get(&TenantId::new("p1")).await.unwrap(),
        Some(partner("p1", 0))
    );
    assert_eq!(
        f.identity.find_client("p1-admin").await.unwrap(),
        Some(client("p1-admin", "p1"))
    );
    assert_eq!(
        f.identity.find_user("admin").await.unwrap(),
        Some(user("admin", "p1", "admin"))
    );
    assert!(!f.tenants.bootstrap(&plan(partner("p2", 0))).await.unwrap());
    assert_eq!(f.tenants.get(&TenantId::new("p2")).await.unwrap(), None);
    assert_eq!(f.identity.find_client("p2-admin").await.unwrap(), None);
    assert_eq!(f.tenants.get(&TenantId::new("ghost")).await.unwrap(), None);
}

async fn concurrent_bootstraps_write_one_plan(backend: Backend) {
    let f = Fixture::new(backend);
    let tasks: Vec<_> = (0..6)
        .map(|i| {
            let tenants = f.tenants.clone();
            tokio::spawn(
                async move { tenants.bootstrap(&plan(partner(&format!("p{i}"), 0))).await },
            )
        })
        .collect();
    let mut written = 0;
    for task in tasks {
        if task.await.unwrap().unwrap() {
            written += 1;
        }
    }
    assert_eq!(written, 1);
    assert_eq!(f.tenant_count().await, 1);
}

async fn provision_writes_tenant_clients_users_operation_and_events(backend: Backend) {
    let f = Fixture::with_tenants(backend).await;
    let mut new = plan(child("acme", "p1", "Acme Bank", 100));
    new.clients.push(Client {
        secret_hash: None,
        redirect_uris: vec!["https://acme.example/cb".to_owned()],
        ..client("acme-web", "acme")
    });
    new.users.push(user("u-acme", "acme", "acme-admin"));
    let op = operation("tenants/p1/operations/op-acme", 100);
    let event = NewEvent {
        id: "ev-acme".to_owned(),
        entity_id: None,
        event_type: "tenant.created".to_owned(),
        payload: json!({"resource": "tenants/acme", "principal": "p1-admin", "changes": {}}),
        creator: "p1-admin".to_owned(),
        create_time: at(100),
        deliver_to: None,
    };
    f.tenants
        .provision(&new, &TenantId::new("p1"), &op, &[event])
        .await
        .unwrap();
    assert_eq!(
        f.tenants.get(&TenantId::new("acme")).await.unwrap(),
        Some(child("acme", "p1", "Acme Bank", 100))
    );
    for c in &new.clients {
        assert_eq!(
            f.identity.find_client(&c.client_id).await.unwrap().as_ref(),
            Some(c)
        );
    }
    assert_eq!(
        f.identity.find_user("acme-admin").await.unwrap().as_ref(),
        new.users.first()
    );
    assert_eq!(
        f.operations
            .get(&TenantId::new("p1"), &op.name)
            .await
            .unwrap(),
        Some(op.clone())
    );
    assert_eq!(
        f.events("p1").await,
        vec![("tenant.created".to_owned(), "p1-admin".to_owned())]
    );
    assert_eq!(f.events("acme").await, Vec::new());
}

async fn provision_refuses_taken_ids_and_writes_nothing(backend: Backend) {
    let f = Fixture::with_tenants(backend).await;
    f.identity
        .create_user(&user("u1", "s1", "taken"))
        .await
        .unwrap();
    let owner = TenantId::new("p1");
    let attempts = [
        // The tenant id is taken.
        plan(child("s1", "p1", "Again", 200)),
        // A client id is taken (by the other tenant's administrator).
        TenantPlan {
            clients: vec![client("new1-admin", "new1"), client("s1-admin", "new1")],
            ..plan(child("new1", "p1", "New one", 200))
        },
        // A username is taken.
        TenantPlan {
            users: vec![user("u9", "new2", "taken")],
            ..plan(child("new2", "p1", "New two", 200))
        },
    ];
    for (i, attempt) in attempts.iter().enumerate() {
        let op = operation(&format!("tenants/p1/operations/fail-{i}"), 200);
        let event = NewEvent {
            id: format!("ev-fail-{i}"),
            entity_id: None,
            event_type: "tenant.created".to_owned(),
            payload: json!({}),
            creator: "p1-admin".to_owned(),
            create_time: at(200),
            deliver_to: None,
        };
        assert_eq!(
            f.tenants.provision(attempt, &owner, &op, &[event]).await,
            Err(RepositoryError::AlreadyExists),
            "attempt {i}"
        );
        assert_eq!(f.operations.get(&owner, &op.name).await.unwrap(), None);
    }
    assert_eq!(f.tenant_count().await, 2);
    assert_eq!(f.tenants.get(&TenantId::new("new1")).await.unwrap(), None);
    assert_eq!(f.identity.find_client("new1-admin").await.unwrap(), None);
    assert_eq!(f.identity.find_client("new2-admin").await.unwrap(), None);
    assert_eq!(f.events("p1").await, Vec::new());
    assert_eq!(
        f.tenants.get(&TenantId::new("s1")).await.unwrap(),
        Some(child("s1", "p1", "Standard One", 1)),
        "the existing tenant is unchanged"
    );
}

/// The child list as the tenant service declares it.
static CHILD_FILTER: LazyLock<FilterSchema> = LazyLock::new(|| {
    FilterSchema::new()
        .field("displayName", FieldType::String)
        .field("createTime", FieldType::Timestamp)
});

static CHILD_LIST: LazyLock<ListSpec> = LazyLock::new(|| ListSpec {
    method: "tenants.children.list",
    default_page_size: 50,
    max_page_size: 1000,
    filter: &CHILD_FILTER,
    sortable: &["displayName", "createTime"],
    default_order: &[SortKey {
        by: SortBy::Field("createTime"),
        descending: false,
    }],
    soft_delete: false,
});

/// Every child of `parent` for `filter` and `order_by`, walking pages of `page_size`:
/// the ids in order and the totals of each page.
async fn walk_children(
    f: &Fixture,
    parent: &str,
    filter: &str,
    order_by: &str,
    page_size: i32,
) -> (Vec<String>, Vec<i64>) {
    let paging = Paging::new(&[9_u8; 32], Arc::new(SystemClock)).unwrap();
    let parent = TenantId::new(parent);
    let mut request = ListRequest {
        page_size: Some(page_size),
        filter: (!filter.is_empty()).then(|| filter.to_owned()),
        order_by: (!order_by.is_empty()).then(|| order_by.to_owned()),
        ..ListRequest::default()
    };
    let (mut ids, mut totals) = (Vec::new(), Vec::new());
    loop {
        let (query, context) = paging
            .prepare(
                &CHILD_LIST,
                &parent,
                Some(&Tenant::name_of(parent.as_str())),
                &request,
            )
            .unwrap();
        let page = f.tenants.list_children(&parent, &query).await.unwrap();
        let response = paging.finish(context, page);
        ids.extend(response.items.iter().map(|t| t.id().to_owned()));
        totals.push(response.total_size);
        match response.next_page_token {
            Some(token) => request.page_token = Some(token),
            None => break,
        }
        assert!(totals.len() < 100, "the walk does not end");
    }
    (ids, totals)
}

async fn children_are_listed_filtered_ordered_and_paged(backend: Backend) {
    let f = Fixture::with_tenants(backend).await;
    // p1 has s1 (Standard One, at 1); add more, with ties on time and name.
    let children = [
        ("c-b", "Bravo", 10),
        ("c-a", "alpha", 10),
        ("c-d", "Delta", 20),
        ("c-c", "Bravo", 30),
        ("c-e", "Echo", 40),
    ];
    for (id, name, seconds) in children {
        f.provision(plan(child(id, "p1", name, seconds)), "p1")
            .await;
    }
    // Another partner's child never shows in p1's list.
    f.provision(plan(partner("p2", 2)), "p1").await;
    f.provision(plan(child("other", "p2", "Bravo", 10)), "p2")
        .await;

    let (ids, totals) = walk_children(&f, "p1", "", "", 2).await;
    assert_eq!(ids, ["s1", "c-a", "c-b", "c-d", "c-c", "c-e"]);
    assert!(totals.iter().all(|t| *t == 6), "{totals:?}");
    let (ids, _) = walk_children(&f, "p1", "", "displayName desc", 4).await;
    assert_eq!(ids, ["c-a", "s1", "c-e", "c-d", "c-c", "c-b"]);
    let (ids, totals) = walk_children(&f, "p1", "displayName = \"Bravo\"", "", 1).await;
    assert_eq!(
        (ids, totals[0]),
        (vec!["c-b".to_owned(), "c-c".to_owned()], 2)
    );
    let (ids, _) = walk_children(&f, "p1", "displayName = \"B*\"", "createTime desc", 5).await;
    assert_eq!(ids, ["c-c", "c-b"]);
    let filter = format!(
        "createTime >= \"{}\" AND NOT displayName = \"Echo\"",
        at(20).to_rfc3339()
    );
    let (ids, totals) = walk_children(&f, "p1", &filter, "", 10).await;
    assert_eq!(
        (ids, totals[0]),
        (vec!["c-d".to_owned(), "c-c".to_owned()], 2)
    );
    let (ids, _) = walk_children(&f, "p2", "", "", 10).await;
    assert_eq!(ids, ["other"]);
    let (ids, totals) = walk_children(&f, "s1", "", "", 10).await;
    assert_eq!(
        (ids.len(), totals[0]),
        (0, 0),
        "a standard tenant has no children"
    );
}

async fn operations_round_trip_and_stay_in_their_tenant(backend: Backend) {
    let f = Fixture::with_tenants(backend).await;
    let owner = TenantId::new("p1");
    let created = operation("tenants/p1/operations/op-ok", 10);
    let failed = Operation {
        name: "tenants/p1/operations/op-failed".to_owned(),
        error: Some(OperationError {
            code: 3,
            message: "bad".to_owned(),
            details: vec![json!({"@type": "type.googleapis.com/google.rpc.ErrorInfo",
                                 "reason": "X", "domain": "rics", "metadata": {}})],
        }),
        response: None,
        redact_after: None,
        ..operation("", 11)
    };
    let pending = Operation {
        name: "tenants/p1/operations/op-pending".to_owned(),
        done: false,
        response: None,
        redact_after: None,
        metadata: OperationMetadata::default(),
        ..operation("", 12)
    };
    for (i, op) in [&created, &failed, &pending].into_iter().enumerate() {
        let mut plan = plan(child(&format!("k{i}"), "p1", "K", 10));
        plan.clients.clear();
        f.tenants.provision(&plan, &owner, op, &[]).await.unwrap();
        assert_eq!(
            f.operations.get(&owner, &op.name).await.unwrap().as_ref(),
            Some(op)
        );
    }
    // Another tenant never sees them, even by their full name, and a name that only
    // shares the id is another operation.
    let other = TenantId::new("s1");
    assert_eq!(f.operations.get(&other, &created.name).await.unwrap(), None);
    assert_eq!(
        f.operations
            .get(&other, "tenants/s1/operations/op-ok")
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        f.operations
            .get(&owner, "entities/e1/operations/op-ok")
            .await
            .unwrap(),
        None
    );
    // The same id in two tenants: two operations.
    let mut plan_s = plan(child("k9", "p1", "K", 10));
    plan_s.clients.clear();
    let theirs = Operation {
        name: "tenants/s1/operations/op-ok".to_owned(),
        ..operation("", 13)
    };
    f.tenants
        .provision(&plan_s, &other, &theirs, &[])
        .await
        .unwrap();
    assert_eq!(
        f.operations.get(&other, &theirs.name).await.unwrap(),
        Some(theirs)
    );
    assert_eq!(
        f.operations.get(&owner, &created.name).await.unwrap(),
        Some(created)
    );
}

async fn redaction_removes_client_secrets_once_due(backend: Backend) {
    let f = Fixture::with_tenants(backend).await;
    let owner = TenantId::new("p1");
    let due = operation("tenants/p1/operations/due", 0);
    let later = operation("tenants/p1/operations/later", 100);
    let plain = Operation {
        name: "tenants/p1/operations/plain".to_owned(),
        redact_after: None,
        ..operation("", 0)
    };
    for (i, op) in [&due, &later, &plain].into_iter().enumerate() {
        let mut plan = plan(child(&format!("r{i}"), "p1", "R", 0));
        plan.clients.clear();
        f.tenants.provision(&plan, &owner, op, &[]).await.unwrap();
    }
    // `due` is redacted at 86,400 s, `later` at 86,500 s.
    assert_eq!(f.operations.redact_secrets(at(86_399)).await.unwrap(), 0);
    assert_eq!(f.operations.redact_secrets(at(86_400)).await.unwrap(), 1);
    let redacted = f.operations.get(&owner, &due.name).await.unwrap().unwrap();
    assert_eq!(
        redacted,
        Operation {
            response: Some(json!({
                "@type": "type.googleapis.com/rics.v1alpha.CreateTenantResponse",
                "tenant": {"name": "tenants/x", "displayName": "X"},
                "clients": [{"clientId": "x-admin"}],
            })),
            redact_after: None,
            ..due.clone()
        }
    );
    assert_eq!(f.operations.redact_secrets(at(86_450)).await.unwrap(), 0);
    assert_eq!(
        f.operations.get(&owner, &later.name).await.unwrap(),
        Some(later.clone())
    );
    assert_eq!(
        f.operations.get(&owner, &plain.name).await.unwrap(),
        Some(plain.clone()),
        "an operation without secrets is never rewritten"
    );
    assert_eq!(f.operations.redact_secrets(at(90_000)).await.unwrap(), 1);
    let response = f
        .operations
        .get(&owner, &later.name)
        .await
        .unwrap()
        .unwrap()
        .response
        .unwrap();
    assert!(!response.to_string().contains("s3cr3t"), "{response}");
    assert_eq!(f.operations.redact_secrets(at(200_000)).await.unwrap(), 0);
}
