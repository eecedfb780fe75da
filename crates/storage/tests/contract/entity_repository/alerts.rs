//! The alert repository: alert types seeded with every tenant (by provisioning and by
//! the migration, alike), alerts stored with their entities in order, lists with each
//! filter, paging and soft delete, changes under a revision with their events in the
//! same transaction, purge, and an entity's erasure.

use std::sync::Arc;

use diesel::RunQueryDsl;
use rics_domain::alert::fields::{LIST, TYPE_LIST};
use rics_domain::alert::model::{
    Alert, AlertState, AlertType, DEFAULT_ALERT_TYPES, PEP_AND_SANCTIONS_MATCH_FOUND, Severity,
    UNUSUAL_EVENT,
};
use rics_domain::alert::ports::{AlertRepository, AlertTypeRepository};
use rics_domain::entity::repository::EraseGuard;
use rics_domain::list::{ListRequest, Paging};
use rics_domain::operation::{Operation, OperationMetadata};
use rics_domain::principal::TenantId;
use rics_domain::repository::{CreateOutcome, IdempotencyKey, RepositoryError};
use rics_domain::tenant::ports::{TenantPlan, TenantRepository};
use rics_domain::tenant::{Tenant, TenantState, TenantType};
use rics_storage::connection::{DatabaseUrl, connect};
use rics_storage::migrations::{pending, run_next, run_pending};
use rics_storage::testing::TestDatabase;
use rics_storage::{Backend, DieselAlertRepository, DieselTenantRepository};
use serde_json::json;

use super::support::{Fixture, entity, event, rfc3339};
use crate::support::{BASE_MICROS, at, paging, t1, t2};

/// An ACTIVE alert `id` of `alert_type` about `entities`, created at `at(seconds)`.
fn alert(id: &str, alert_type: &str, entities: &[&str], seconds: i64) -> Alert {
    Alert {
        name: Alert::name_of(id),
        uid: format!("uid-{id}"),
        alert_type: AlertType::name_of(alert_type),
        entities: entities.iter().map(|e| format!("entities/{e}")).collect(),
        title: format!("Alert {id}"),
        description: "first line\nsecond line".into(),
        severity: Severity::Medium,
        state: AlertState::Active,
        source: "principals/tester".into(),
        details: json!({"score": 0.9, "lists": ["un"]})
            .as_object()
            .cloned()
            .unwrap_or_default(),
        create_time: Some(at(seconds)),
        update_time: Some(at(seconds)),
        etag: rics_domain::resource::etag(&format!("uid-{id}"), 1),
        revision: 1,
        ..Alert::default()
    }
}

/// `alert` as its next revision, changed by `change` at `at(seconds)`.
fn next(alert: &Alert, seconds: i64, change: impl FnOnce(&mut Alert)) -> Alert {
    let mut changed = alert.clone();
    change(&mut changed);
    changed.revision = alert.revision + 1;
    changed.update_time = Some(at(seconds));
    changed.etag = rics_domain::resource::etag(&changed.uid, changed.revision);
    changed
}

/// The ids of the alerts one list call with `request` returns, and its total.
async fn ids(
    repo: &dyn AlertRepository,
    paging: &Paging,
    request: &ListRequest,
) -> (Vec<String>, i64) {
    let (query, _) = paging.prepare(&LIST, &t1(), None, request).unwrap();
    let page = repo.list(&t1(), None, &query).await.unwrap();
    (
        page.items.iter().map(|a| a.id().to_owned()).collect(),
        page.total_size,
    )
}

async fn alerts_round_trip_with_their_entities_in_order(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.alerts.clone();
    let raised = alert("a1", UNUSUAL_EVENT, &["zed", "amy"], 1);
    repo.create(
        &t1(),
        &raised,
        None,
        &[
            event("ev-1", Some("zed"), "alert.created", 1),
            event("ev-2", Some("amy"), "alert.created", 1),
        ],
    )
    .await
    .unwrap();
    assert_eq!(repo.get(&t1(), "a1").await, Ok(Some(raised.clone())));
    assert_eq!(repo.get(&t2(), "a1").await, Ok(None));
    assert_eq!(
        repo.create(&t1(), &raised, None, &[]).await,
        Err(RepositoryError::AlreadyExists)
    );
    let acknowledged = next(&raised, 5, |a| {
        a.state = AlertState::Acknowledged;
        a.acknowledger = "alice".into();
        a.acknowledge_time = Some(at(5));
    });
    assert_eq!(
        repo.update(&t1(), &acknowledged, 7, &[]).await,
        Err(RepositoryError::Conflict)
    );
    assert_eq!(
        repo.update(&t2(), &acknowledged, 1, &[]).await,
        Err(RepositoryError::NotFound)
    );
    repo.update(
        &t1(),
        &acknowledged,
        1,
        &[event("ev-3", Some("zed"), "alert.acknowledged", 5)],
    )
    .await
    .unwrap();
    assert_eq!(repo.get(&t1(), "a1").await, Ok(Some(acknowledged)));
    assert_eq!(f.event_ids(&t1()).await, vec!["ev-1", "ev-2", "ev-3"]);
    // An alert about no entity, in no workspace.
    let bare = Alert {
        details: Default::default(),
        description: String::new(),
        ..alert("a2", UNUSUAL_EVENT, &[], 2)
    };
    repo.create(&t1(), &bare, None, &[]).await.unwrap();
    assert_eq!(repo.get(&t1(), "a2").await, Ok(Some(bare)));
}

contract!(alerts_round_trip_with_their_entities_in_order);

async fn a_failed_alert_write_leaves_no_event(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.alerts.clone();
    let raised = alert("a1", UNUSUAL_EVENT, &["amy"], 1);
    repo.create(&t1(), &raised, None, &[]).await.unwrap();
    // Each failure comes after its events were queued in the same transaction.
    let duplicate = repo
        .create(
            &t1(),
            &raised,
            None,
            &[event("ev-lost-1", Some("amy"), "alert.created", 2)],
        )
        .await;
    assert_eq!(duplicate, Err(RepositoryError::AlreadyExists));
    let changed = next(&raised, 3, |a| a.state = AlertState::Acknowledged);
    let stale = repo
        .update(
            &t1(),
            &changed,
            9,
            &[event("ev-lost-2", Some("amy"), "alert.acknowledged", 3)],
        )
        .await;
    assert_eq!(stale, Err(RepositoryError::Conflict));
    assert!(f.event_ids(&t1()).await.is_empty());
    assert_eq!(repo.get(&t1(), "a1").await, Ok(Some(raised)));
}

contract!(a_failed_alert_write_leaves_no_event);

async fn a_create_with_a_used_request_id_replays(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.alerts.clone();
    let key = IdempotencyKey {
        request_id: "0b0c9a52-1a34-4b7c-9d55-55d3d7b6b2c1".into(),
        method: "alerts.create",
        fingerprint: "f1".into(),
        resource_name: "alerts/a1".into(),
    };
    let first = alert("a1", UNUSUAL_EVENT, &[], 1);
    assert_eq!(
        repo.create(&t1(), &first, Some(&key), &[]).await,
        Ok(CreateOutcome::Created)
    );
    let retry = alert("a2", UNUSUAL_EVENT, &[], 2);
    assert_eq!(
        repo.create(
            &t1(),
            &retry,
            Some(&key),
            &[event("ev-x", None, "alert.created", 2)]
        )
        .await,
        Ok(CreateOutcome::Replayed {
            method: "alerts.create".into(),
            fingerprint: "f1".into(),
            resource_name: "alerts/a1".into(),
        })
    );
    assert_eq!(repo.get(&t1(), "a2").await, Ok(None));
    assert!(f.event_ids(&t1()).await.is_empty());
}

contract!(a_create_with_a_used_request_id_replays);

async fn lists_filter_on_every_field_page_and_hide_deleted(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.alerts.clone();
    let mut a2 = alert("a2", PEP_AND_SANCTIONS_MATCH_FOUND, &["amy"], 2);
    a2.severity = Severity::High;
    a2.workspace = "workspaces/case".into();
    let mut a3 = alert("a3", UNUSUAL_EVENT, &["bob"], 3);
    a3.state = AlertState::Acknowledged;
    a3.acknowledge_time = Some(at(30));
    a3.acknowledger = "alice".into();
    a3.update_time = Some(at(30));
    let mut a5 = alert("a5", UNUSUAL_EVENT, &["amy"], 5);
    a5.delete_time = Some(at(6));
    a5.purge_time = Some(at(100));
    for a in [
        alert("a1", UNUSUAL_EVENT, &["amy", "bob"], 1),
        a2,
        a3,
        alert("a4", PEP_AND_SANCTIONS_MATCH_FOUND, &[], 4),
        a5,
    ] {
        repo.create(&t1(), &a, None, &[]).await.unwrap();
    }
    repo.create(&t2(), &alert("a9", UNUSUAL_EVENT, &["amy"], 9), None, &[])
        .await
        .unwrap();
    let paging = paging();
    let list = |filter: &str, order_by: &str, show_deleted: bool| ListRequest {
        filter: Some(filter.to_owned()),
        order_by: Some(order_by.to_owned()),
        show_deleted,
        ..ListRequest::default()
    };
    let cases = [
        (list("", "", false), vec!["a4", "a3", "a2", "a1"]),
        (list("", "", true), vec!["a5", "a4", "a3", "a2", "a1"]),
        (list("", "createTime", false), vec!["a1", "a2", "a3", "a4"]),
        (
            list("", "updateTime desc", false),
            vec!["a3", "a4", "a2", "a1"],
        ),
        (list("state = ACKNOWLEDGED", "", false), vec!["a3"]),
        (
            list("state != ACKNOWLEDGED", "", true),
            vec!["a5", "a4", "a2", "a1"],
        ),
        (list("severity = HIGH", "", false), vec!["a2"]),
        (
            list(
                "alertType = \"alertTypes/pep-and-sanctions-match-found\"",
                "",
                false,
            ),
            vec!["a4", "a2"],
        ),
        (
            list("entities:\"entities/amy\"", "", true),
            vec!["a5", "a2", "a1"],
        ),
        (list("entities:*", "", false), vec!["a3", "a2", "a1"]),
        (
            list("workspace = \"workspaces/case\"", "", false),
            vec!["a2"],
        ),
        (list("workspace:*", "", false), vec!["a2"]),
        (
            list(&format!("createTime >= \"{}\"", rfc3339(3)), "", false),
            vec!["a4", "a3"],
        ),
        (
            list(&format!("acknowledgeTime > \"{}\"", rfc3339(0)), "", false),
            vec!["a3"],
        ),
        (list("acknowledgeTime:*", "", false), vec!["a3"]),
        (list("deleteTime:*", "", true), vec!["a5"]),
        (
            list(
                "severity = MEDIUM AND NOT entities:\"entities/bob\"",
                "",
                false,
            ),
            vec!["a4"],
        ),
    ];
    for (request, expected) in cases {
        let (found, total) = ids(repo.as_ref(), &paging, &request).await;
        assert_eq!(found, expected, "{request:?}");
        assert_eq!(total as usize, expected.len(), "{request:?}");
    }
    // Page by page, newest first, with the token bound to the filter.
    let mut request = ListRequest {
        page_size: Some(2),
        show_deleted: true,
        ..ListRequest::default()
    };
    let mut seen = Vec::new();
    loop {
        let (query, context) = paging.prepare(&LIST, &t1(), None, &request).unwrap();
        let page = repo.list(&t1(), None, &query).await.unwrap();
        assert_eq!(page.total_size, 5);
        let response = paging.finish(context, page);
        seen.extend(response.items.iter().map(|a| a.id().to_owned()));
        match response.next_page_token {
            Some(token) => request.page_token = Some(token),
            None => break,
        }
    }
    assert_eq!(seen, vec!["a5", "a4", "a3", "a2", "a1"]);
    let skipped = ListRequest {
        skip: Some(3),
        ..ListRequest::default()
    };
    assert_eq!(ids(repo.as_ref(), &paging, &skipped).await.0, vec!["a1"]);
}

contract!(lists_filter_on_every_field_page_and_hide_deleted);

async fn a_purge_removes_only_alerts_past_their_purge_time(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.alerts.clone();
    let mut gone = alert("gone", UNUSUAL_EVENT, &["amy"], 1);
    gone.delete_time = Some(at(10));
    gone.purge_time = Some(at(50));
    repo.create(&t1(), &gone, None, &[]).await.unwrap();
    repo.create(&t1(), &alert("kept", UNUSUAL_EVENT, &["amy"], 1), None, &[])
        .await
        .unwrap();
    assert!(repo.find_purge_due(at(40), 10).await.unwrap().is_empty());
    assert_eq!(
        repo.purge(&t1(), "gone", at(40), &[]).await,
        Err(RepositoryError::NotFound)
    );
    assert_eq!(
        repo.find_purge_due(at(60), 10).await.unwrap(),
        vec![(t1(), "gone".to_owned())]
    );
    repo.purge(
        &t1(),
        "gone",
        at(60),
        &[event("ev-p", Some("amy"), "alert.purged", 60)],
    )
    .await
    .unwrap();
    assert_eq!(repo.get(&t1(), "gone").await, Ok(None));
    assert!(repo.get(&t1(), "kept").await.unwrap().is_some());
    let (everything, _) = ids(
        repo.as_ref(),
        &paging(),
        &ListRequest {
            filter: Some("entities:\"entities/amy\"".into()),
            show_deleted: true,
            ..ListRequest::default()
        },
    )
    .await;
    assert_eq!(everything, vec!["kept"], "its entity rows went with it");
    assert_eq!(f.event_ids(&t1()).await, vec!["ev-p"]);
}

contract!(a_purge_removes_only_alerts_past_their_purge_time);

async fn erasing_an_entity_takes_it_out_of_every_alert(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.alerts.clone();
    f.create(&t1(), &entity("amy", "Amy", 0)).await;
    f.create(&t1(), &entity("bob", "Bob", 0)).await;
    f.create(&t2(), &entity("amy", "Amy", 0)).await;
    let both = alert("both", UNUSUAL_EVENT, &["amy", "bob"], 1);
    let only = alert("only", UNUSUAL_EVENT, &["amy"], 2);
    let other = alert("other", UNUSUAL_EVENT, &["bob"], 3);
    for a in [&both, &only, &other] {
        repo.create(&t1(), a, None, &[]).await.unwrap();
    }
    let theirs = alert("both", UNUSUAL_EVENT, &["amy"], 1);
    repo.create(&t2(), &theirs, None, &[]).await.unwrap();
    let counts = f
        .repo
        .hard_delete(&t1(), "amy", EraseGuard::Always, &[])
        .await
        .unwrap();
    assert_eq!(counts.get("alertMemberships"), Some(&2));
    // The alerts stay, without the erased entity and with a new etag.
    let after = repo.get(&t1(), "both").await.unwrap().unwrap();
    assert_eq!(after.entities, vec!["entities/bob".to_owned()]);
    assert_eq!(after.revision, 2);
    assert_ne!(after.etag, both.etag);
    let emptied = repo.get(&t1(), "only").await.unwrap().unwrap();
    assert!(emptied.entities.is_empty());
    assert_eq!(
        repo.get(&t1(), "other").await,
        Ok(Some(other)),
        "an alert without the entity is untouched"
    );
    assert_eq!(
        repo.get(&t2(), "both").await,
        Ok(Some(theirs)),
        "another tenant's alert about its own amy is untouched"
    );
}

contract!(erasing_an_entity_takes_it_out_of_every_alert);

/// A tenant as the tenant service makes one, created at `at(seconds)`.
fn tenant(id: &str, kind: TenantType, seconds: i64) -> Tenant {
    Tenant {
        name: Tenant::name_of(id),
        display_name: format!("Tenant {id}"),
        tenant_type: kind,
        parent: if kind == TenantType::Partner {
            String::new()
        } else {
            Tenant::name_of("p1")
        },
        state: TenantState::Active,
        create_time: Some(at(seconds)),
        update_time: Some(at(seconds)),
    }
}

/// The plan the provisioning steps make for `tenant`: its default alert types.
fn plan(tenant: Tenant) -> TenantPlan {
    let alert_types = AlertType::defaults(
        &TenantId::new(tenant.id()),
        tenant.create_time.unwrap_or_else(|| at(0)),
    );
    TenantPlan {
        tenant,
        clients: Vec::new(),
        users: Vec::new(),
        alert_types,
        form_definitions: Vec::new(),
        automations: Vec::new(),
    }
}

async fn alert_types_come_with_every_provisioned_tenant(backend: Backend) {
    let f = Fixture::new(backend);
    let tenants = DieselTenantRepository::new(f.db.clone());
    let repo = f.alert_types.clone();
    assert!(
        tenants
            .bootstrap(&plan(tenant("p1", TenantType::Partner, 1)))
            .await
            .unwrap()
    );
    let operation = Operation {
        name: "tenants/p1/operations/op1".into(),
        metadata: OperationMetadata::default(),
        done: true,
        error: None,
        response: Some(json!({})),
        create_time: Some(at(2)),
        redact_after: None,
    };
    tenants
        .provision(
            &plan(tenant("s1", TenantType::Standard, 2)),
            &TenantId::new("p1"),
            &operation,
            &[],
        )
        .await
        .unwrap();
    for (id, seconds) in [("p1", 1), ("s1", 2)] {
        let owner = TenantId::new(id);
        let (query, _) = paging()
            .prepare(
                &TYPE_LIST,
                &owner,
                None,
                &ListRequest {
                    order_by: Some("createTime".into()),
                    ..ListRequest::default()
                },
            )
            .unwrap();
        let mut listed = repo.list(&owner, &query).await.unwrap().items;
        listed.sort_by(|a, b| a.name.cmp(&b.name));
        let mut expected = AlertType::defaults(&owner, at(seconds));
        expected.sort_by(|a, b| a.name.cmp(&b.name));
        assert_eq!(listed, expected, "{id}");
        assert_eq!(
            repo.get(&owner, PEP_AND_SANCTIONS_MATCH_FOUND)
                .await
                .unwrap()
                .map(|t| (t.uid, t.default_severity)),
            Some((
                format!("{id}:{PEP_AND_SANCTIONS_MATCH_FOUND}"),
                Severity::High
            ))
        );
    }
    assert_eq!(repo.get(&t1(), UNUSUAL_EVENT).await, Ok(None));
    // Filters, orders and pages.
    let owner = TenantId::new("s1");
    let list = |filter: &str, order_by: &str, page_size: Option<i32>| ListRequest {
        filter: Some(filter.to_owned()),
        order_by: Some(order_by.to_owned()),
        page_size,
        ..ListRequest::default()
    };
    let names = |types: &[AlertType]| -> Vec<String> {
        types.iter().map(|t| t.display_name.clone()).collect()
    };
    let cases = [
        (
            list("defaultSeverity = HIGH", "", None),
            vec![
                "Enhanced Due Diligence Required",
                "PEP and Sanctions Match Found",
            ],
        ),
        (
            list(
                "defaultSeverity = LOW OR displayName = \"Unusual*\"",
                "displayName desc",
                None,
            ),
            vec!["Unusual Event", "Ongoing Customer Due Diligence Required"],
        ),
        (
            list("", "", Some(2)),
            vec!["Adverse Media Match Found", "Business Verification Failed"],
        ),
    ];
    for (request, expected) in cases {
        let (query, _) = paging()
            .prepare(&TYPE_LIST, &owner, None, &request)
            .unwrap();
        let page = repo.list(&owner, &query).await.unwrap();
        assert_eq!(names(&page.items), expected, "{request:?}");
    }
}

contract!(alert_types_come_with_every_provisioned_tenant);

async fn the_migration_gives_existing_tenants_the_default_alert_types(backend: Backend) {
    let test_db = TestDatabase::empty(backend);
    let mut conn = connect(&DatabaseUrl::parse(test_db.url()).unwrap()).unwrap();
    // Migrate up to the alerts migration, then add tenants as an older version would.
    while pending(&mut conn).unwrap().first().map(String::as_str) != Some("20261122000005") {
        run_next(&mut conn).unwrap();
    }
    for (id, kind, parent, seconds) in [("p1", "PARTNER", "NULL", 1), ("s1", "STANDARD", "'p1'", 7)]
    {
        let micros = BASE_MICROS + seconds * 1_000_000;
        diesel::sql_query(format!(
            "INSERT INTO tenants (id, display_name, tenant_type, parent, state, create_time, \
             update_time) VALUES ('{id}', 'Tenant {id}', '{kind}', {parent}, 'ACTIVE', {micros}, \
             {micros})"
        ))
        .execute(&mut conn)
        .unwrap();
    }
    run_pending(&mut conn).unwrap();
    let repo: Arc<dyn AlertTypeRepository> =
        Arc::new(DieselAlertRepository::new(test_db.open().unwrap()));
    for (id, seconds) in [("p1", 1), ("s1", 7)] {
        let owner = TenantId::new(id);
        let mut stored = Vec::new();
        for default in DEFAULT_ALERT_TYPES {
            stored.push(
                repo.get(&owner, default.id)
                    .await
                    .unwrap()
                    .unwrap_or_else(|| panic!("{id} lacks {}", default.id)),
            );
        }
        assert_eq!(
            stored,
            AlertType::defaults(&owner, at(seconds)),
            "the migration seeds what provisioning would"
        );
        let (query, _) = paging()
            .prepare(&TYPE_LIST, &owner, None, &ListRequest::default())
            .unwrap();
        let page = repo.list(&owner, &query).await.unwrap();
        assert_eq!(page.total_size, 9);
    }
}

contract!(the_migration_gives_existing_tenants_the_default_alert_types);
