//! Activity logs: create with the entities they name, read back one or many, an
//! entity's list (order, paging, filters, showDeleted, tenants), the lifecycle with
//! optimistic concurrency, the outbox and the purge.

use rics_domain::activity::model::ActivityType;
use rics_domain::list::ListRequest;
use rics_domain::repository::{IdempotencyKey, RepositoryError};
use rics_storage::Backend;
use serde_json::json;

use super::support::{Fixture, event, log, stored_log};
use crate::support::{at, request, t1, t2};

async fn a_log_reads_back_with_the_entities_it_names(backend: Backend) {
    let f = Fixture::new(backend);
    f.entities(&t1(), &["jane", "acme"]).await;
    let mut written = log("call-1", &["jane", "acme"], 10);
    written.activity_log_type = "activityLogTypes/calls".into();
    written.payload = json!({"channel": "phone", "minutes": 12})
        .as_object()
        .cloned();
    written.description = "Called\nabout the account".into();
    written.workspace = "workspaces/case-1".into();
    written.occur_time = Some(at(3));
    f.create_log(&t1(), &written).await;
    assert_eq!(
        f.logs.get(&t1(), "call-1").await,
        Ok(Some(stored_log(&written)))
    );
    assert_eq!(f.log_rows(&t1(), "call-1").await, (1, 2));
    assert_eq!(f.logs.get(&t2(), "call-1").await, Ok(None));
    assert_eq!(
        f.logs.create(&t1(), &written, None, &[]).await,
        Err(RepositoryError::AlreadyExists)
    );
    f.create_log(&t1(), &log("call-2", &["jane"], 11)).await;
    let ids = [
        "call-2".to_owned(),
        "nothing".to_owned(),
        "call-1".to_owned(),
    ];
    let mut found: Vec<String> = f
        .logs
        .get_many(&t1(), &ids)
        .await
        .unwrap()
        .into_iter()
        .map(|l| l.name)
        .collect();
    found.sort();
    assert_eq!(found, ["activityLogs/call-1", "activityLogs/call-2"]);
    assert!(f.logs.get_many(&t2(), &ids).await.unwrap().is_empty());
}

async fn a_log_naming_a_missing_entity_writes_nothing(backend: Backend) {
    let f = Fixture::new(backend);
    f.entities(&t1(), &["jane"]).await;
    // The entity exists, but in another tenant.
    f.entities(&t2(), &["acme"]).await;
    let refused = f
        .logs
        .create(
            &t1(),
            &log("call-1", &["jane", "acme"], 1),
            None,
            &[event(
                "ev1",
                Some("jane"),
                "activity_log.created",
                "activityLogs/call-1",
            )],
        )
        .await;
    assert_eq!(refused, Err(RepositoryError::NotFound));
    assert_eq!(f.log_rows(&t1(), "call-1").await, (0, 0));
    assert!(f.event_ids(&t1()).await.is_empty());
}

/// Logs of `jane` (some naming `acme` too), of `acme` only, a deleted one, and logs
/// of an entity `jane` of the second tenant.
async fn seed(f: &Fixture) {
    f.entities(&t1(), &["jane", "acme"]).await;
    f.entities(&t2(), &["jane"]).await;
    let seeds = [
        ("l0", vec!["jane"], ActivityType::Custom, "CUSTOMER", "", 5),
        (
            "l1",
            vec!["jane", "acme"],
            ActivityType::PepAndSanctions,
            "SCREENER",
            "activityLogTypes/screening",
            1,
        ),
        ("l2", vec!["acme"], ActivityType::Custom, "CUSTOMER", "", 9),
        (
            "l3",
            vec!["jane"],
            ActivityType::RiskRating,
            "CUSTOMER",
            "",
            9,
        ),
        (
            "l4",
            vec!["acme", "jane"],
            ActivityType::Custom,
            "SCREENER",
            "activityLogTypes/screening",
            7,
        ),
        ("l5", vec!["jane"], ActivityType::Custom, "CUSTOMER", "", 3),
    ];
    for (i, (id, entities, kind, source, log_type, occur)) in seeds.into_iter().enumerate() {
        let mut l = log(id, &entities, 100 + i as i64);
        l.activity_type = kind;
        l.source = source.to_owned();
        l.activity_log_type = log_type.to_owned();
        l.occur_time = Some(at(occur));
        if id == "l5" {
            l.delete_time = Some(at(200));
            l.purge_time = Some(at(300));
        }
        f.create_log(&t1(), &l).await;
    }
    f.create_log(&t2(), &log("l0", &["jane"], 1)).await;
    f.create_log(&t2(), &log("theirs", &["jane"], 1)).await;
}

fn ids(names: &[String]) -> Vec<&str> {
    names
        .iter()
        .map(|n| n.trim_start_matches("activityLogs/"))
        .collect()
}

async fn an_entity_lists_its_logs_newest_activity_first(backend: Backend) {
    let f = Fixture::new(backend);
    seed(&f).await;
    // occurTime desc, ties (l3 and l2's 9 seconds: only l3 is jane's) by id desc.
    let (jane, totals) = f.walk_logs("jane", &request("", "", 2)).await;
    assert_eq!(ids(&jane), ["l3", "l4", "l0", "l1"]);
    assert!(totals.iter().all(|t| *t == 4), "{totals:?}");
    let (acme, _) = f.walk_logs("acme", &request("", "", 50)).await;
    assert_eq!(ids(&acme), ["l2", "l4", "l1"]);
    let (with_deleted, _) = f
        .walk_logs(
            "jane",
            &ListRequest {
                show_deleted: true,
                page_size: Some(1),
                ..ListRequest::default()
            },
        )
        .await;
    assert_eq!(ids(&with_deleted), ["l3", "l4", "l0", "l5", "l1"]);
    let (by_creation, _) = f.walk_logs("jane", &request("", "createTime", 3)).await;
    assert_eq!(ids(&by_creation), ["l0", "l1", "l3", "l4"]);
    assert!(
        f.walk_logs("nobody", &request("", "", 10))
            .await
            .0
            .is_empty()
    );
    // The second tenant's jane has her own logs.
    let theirs = f
        .log_page(&t2(), "jane", &request("", "", 10))
        .await
        .unwrap();
    assert_eq!(theirs.total_size, 2);
    assert!(theirs.items.iter().all(|l| l.name != "activityLogs/l3"));
}

async fn an_entity_list_filters_on_type_source_and_times(backend: Backend) {
    let f = Fixture::new(backend);
    seed(&f).await;
    let found = |filter: &str| {
        let request = request(filter, "", 50);
        let f = &f;
        async move { f.walk_logs("jane", &request).await }
    };
    let (custom, totals) = found("type = CUSTOM").await;
    assert_eq!(ids(&custom), ["l4", "l0"]);
    assert_eq!(totals, [2]);
    assert_eq!(ids(&found("source = \"SCREENER\"").await.0), ["l4", "l1"]);
    assert_eq!(
        ids(&found("activityLogType = \"activityLogTypes/screening\"")
            .await
            .0),
        ["l4", "l1"]
    );
    assert_eq!(ids(&found("activityLogType:*").await.0), ["l4", "l1"]);
    assert_eq!(ids(&found("activityLogType = \"\"").await.0), ["l3", "l0"]);
    let between = format!(
        "occurTime >= \"{}\" AND occurTime < \"{}\"",
        at(5).to_rfc3339(),
        at(9).to_rfc3339()
    );
    assert_eq!(ids(&found(&between).await.0), ["l4", "l0"]);
    let created = format!("createTime > \"{}\"", at(101).to_rfc3339());
    assert_eq!(ids(&found(&created).await.0), ["l3", "l4"]);
    assert_eq!(
        ids(&found("type = RISK_RATING OR source = \"SCREENER\"").await.0),
        ["l3", "l4", "l1"]
    );
}

async fn delete_and_undelete_need_the_stored_revision(backend: Backend) {
    let f = Fixture::new(backend);
    f.entities(&t1(), &["jane", "acme"]).await;
    let written = log("call-1", &["jane", "acme"], 1);
    f.create_log(&t1(), &written).await;
    let mut removed = written.clone();
    removed.revision = 2;
    removed.delete_time = Some(at(5));
    removed.purge_time = Some(at(50));
    let events = [
        event(
            "ev1",
            Some("jane"),
            "activity_log.deleted",
            "activityLogs/call-1",
        ),
        event(
            "ev2",
            Some("acme"),
            "activity_log.deleted",
            "activityLogs/call-1",
        ),
    ];
    f.logs
        .update_lifecycle(&t1(), &removed, 1, &events)
        .await
        .unwrap();
    assert_eq!(
        f.logs.get(&t1(), "call-1").await,
        Ok(Some(stored_log(&removed)))
    );
    assert_eq!(f.event_ids(&t1()).await, ["ev1", "ev2"]);
    let late = [event(
        "ev3",
        Some("jane"),
        "activity_log.undeleted",
        "activityLogs/call-1",
    )];
    assert_eq!(
        f.logs.update_lifecycle(&t1(), &removed, 1, &late).await,
        Err(RepositoryError::Conflict)
    );
    let mut missing = removed.clone();
    missing.name = "activityLogs/nothing".into();
    assert_eq!(
        f.logs.update_lifecycle(&t1(), &missing, 1, &late).await,
        Err(RepositoryError::NotFound)
    );
    assert_eq!(
        f.event_ids(&t1()).await,
        ["ev1", "ev2"],
        "refused changes write no event"
    );
    // The content never changes, whatever the caller passes.
    let mut restored = written.clone();
    restored.revision = 3;
    restored.description = "rewritten".into();
    f.logs
        .update_lifecycle(&t1(), &restored, 2, &late)
        .await
        .unwrap();
    let stored = f.logs.get(&t1(), "call-1").await.unwrap().unwrap();
    assert_eq!((stored.revision, stored.delete_time), (3, None));
    assert_eq!(stored.description, "");
}

async fn a_used_request_id_replays_without_writing(backend: Backend) {
    let f = Fixture::new(backend);
    f.entities(&t1(), &["jane"]).await;
    let key = IdempotencyKey {
        request_id: "00000000-0000-7000-8000-000000000001".into(),
        method: "activityLogs.create",
        fingerprint: "f1".into(),
        resource_name: "activityLogs/first".into(),
    };
    f.logs
        .create(&t1(), &log("first", &["jane"], 0), Some(&key), &[])
        .await
        .unwrap();
    let replay = f
        .logs
        .create(
            &t1(),
            &log("second", &["jane"], 0),
            Some(&key),
            &[event(
                "ev",
                Some("jane"),
                "activity_log.created",
                "activityLogs/second",
            )],
        )
        .await
        .unwrap();
    assert!(matches!(
        replay,
        rics_domain::repository::CreateOutcome::Replayed { ref resource_name, .. }
            if resource_name == "activityLogs/first"
    ));
    assert_eq!(f.log_rows(&t1(), "second").await, (0, 0));
    assert!(f.event_ids(&t1()).await.is_empty());
}

async fn a_purge_removes_only_due_logs(backend: Backend) {
    let f = Fixture::new(backend);
    f.entities(&t1(), &["jane"]).await;
    f.entities(&t2(), &["jane"]).await;
    f.create_log(&t1(), &log("live", &["jane"], 0)).await;
    for (tenant, id, purge) in [(t1(), "due", 50), (t2(), "due2", 40), (t1(), "later", 500)] {
        let mut l = log(id, &["jane"], 0);
        l.delete_time = Some(at(10));
        l.purge_time = Some(at(purge));
        f.create_log(&tenant, &l).await;
    }
    let due: Vec<String> = f
        .logs
        .find_purge_due(at(100), 10)
        .await
        .unwrap()
        .into_iter()
        .map(|(t, id)| format!("{}/{id}", t.as_str()))
        .collect();
    assert_eq!(due, ["t2/due2", "t1/due"]);
    for id in ["live", "later"] {
        assert_eq!(
            f.logs.purge(&t1(), id, at(100), &[]).await,
            Err(RepositoryError::NotFound),
            "{id} is not due"
        );
    }
    f.logs
        .purge(
            &t1(),
            "due",
            at(100),
            &[event(
                "ev-p",
                None,
                "activity_log.purged",
                "activityLogs/due",
            )],
        )
        .await
        .unwrap();
    assert_eq!(f.log_rows(&t1(), "due").await, (0, 0));
    assert_eq!(f.log_rows(&t1(), "later").await, (1, 1));
    assert_eq!(f.event_ids(&t1()).await, ["ev-p"]);
}

contract!(
    a_log_reads_back_with_the_entities_it_names,
    a_log_naming_a_missing_entity_writes_nothing,
    an_entity_lists_its_logs_newest_activity_first,
    an_entity_list_filters_on_type_source_and_times,
    delete_and_undelete_need_the_stored_revision,
    a_used_request_id_replays_without_writing,
    a_purge_removes_only_due_logs,
);
