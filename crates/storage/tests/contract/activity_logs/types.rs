//! Activity log types: create and read back, update with optimistic concurrency, lists
//! (order, paging, filters, showDeleted, fuzzy ranking), idempotency keys, the outbox
//! and the purge.

use rics_domain::activity::model::ActivityType;
use rics_domain::list::ListRequest;
use rics_domain::repository::{CreateOutcome, IdempotencyKey, RepositoryError};
use rics_domain::text_search;
use rics_storage::Backend;
use serde_json::json;

use super::support::{Fixture, event, log_type, stored_type};
use crate::support::{at, request, t1, t2};

async fn a_type_reads_back_as_written_and_only_in_its_tenant(backend: Backend) {
    let f = Fixture::new(backend);
    let mut written = log_type("screening", "PEP Screening", 1);
    written.description = "Line one\nline two".into();
    written.activity_type = ActivityType::PepAndSanctions;
    written.payload_schema = json!({"type": "object", "required": ["score"]})
        .as_object()
        .cloned();
    f.create_type(&t1(), &written).await;
    assert_eq!(
        f.types.get(&t1(), "screening").await,
        Ok(Some(stored_type(&written)))
    );
    assert_eq!(f.types.get(&t2(), "screening").await, Ok(None));
    assert_eq!(
        f.types.create(&t1(), &written, None, &[]).await,
        Err(RepositoryError::AlreadyExists)
    );
    // The same id in another tenant is another type.
    f.create_type(&t2(), &log_type("screening", "Theirs", 1))
        .await;
    assert_eq!(
        f.types
            .get(&t1(), "screening")
            .await
            .unwrap()
            .unwrap()
            .display_name,
        "PEP Screening"
    );
    assert_eq!(
        f.trigram_rows(&t1(), "screening").await,
        text_search::trigrams("PEP Screening").len() as i64
    );
}

async fn updates_need_the_stored_revision_and_replace_the_trigrams(backend: Backend) {
    let f = Fixture::new(backend);
    f.create_type(&t1(), &log_type("kyc", "KYC Review", 1))
        .await;
    let mut renamed = log_type("kyc", "Onboarding Call", 1);
    renamed.revision = 2;
    renamed.update_time = Some(at(5));
    renamed.activity_type = ActivityType::IdentityCheck;
    f.types.update(&t1(), &renamed, 1, &[]).await.unwrap();
    assert_eq!(
        f.types.get(&t1(), "kyc").await,
        Ok(Some(stored_type(&renamed)))
    );
    assert_eq!(
        f.types.update(&t1(), &renamed, 1, &[]).await,
        Err(RepositoryError::Conflict)
    );
    let mut missing = renamed.clone();
    missing.name = "activityLogTypes/nothing".into();
    assert_eq!(
        f.types.update(&t1(), &missing, 1, &[]).await,
        Err(RepositoryError::NotFound)
    );
    let found = |filter: &str| {
        let request = request(filter, "", 10);
        let f = &f;
        async move { f.walk_types(&request).await.0 }
    };
    assert_eq!(
        found("displayName:\"onboarding cal\"").await,
        ["activityLogTypes/kyc"]
    );
    assert!(found("displayName:\"kyc review\"").await.is_empty());
}

/// Ten types in the first tenant, created a minute apart (the seventh and eighth at
/// the same time), two of them soft-deleted; two more in the second tenant.
async fn seed(f: &Fixture) {
    let seeds = [
        ("t00", "Customer Interaction", ActivityType::Custom),
        ("t01", "Customer Onboarding", ActivityType::IdentityCheck),
        ("t02", "Interaction Review", ActivityType::Custom),
        ("t03", "Sanctions Hit", ActivityType::PepAndSanctions),
        ("t04", "Custom Interactions Log", ActivityType::Unspecified),
        ("t05", "Risk Rating", ActivityType::RiskRating),
        ("t06", "Document Check", ActivityType::DocumentVerification),
        ("t07", "Customer Interactions", ActivityType::Custom),
        ("t08", "Form Created", ActivityType::FormCreated),
        (
            "t09",
            "Suspicious Matter",
            ActivityType::SuspiciousMatterReport,
        ),
    ];
    for (i, (id, name, kind)) in seeds.into_iter().enumerate() {
        let minute = if i == 7 { 6 } else { i as i64 };
        let mut t = log_type(id, name, 60 * minute);
        t.activity_type = kind;
        t.update_time = Some(at(10_000 - i as i64));
        if matches!(id, "t02" | "t08") {
            t.delete_time = Some(at(20_000));
            t.purge_time = Some(at(30_000));
        }
        f.create_type(&t1(), &t).await;
    }
    f.create_type(&t2(), &log_type("t00", "Customer Interaction", 0))
        .await;
    f.create_type(&t2(), &log_type("x99", "Customer Interaction Elsewhere", 0))
        .await;
}

fn ids(names: &[String]) -> Vec<&str> {
    names
        .iter()
        .map(|n| n.trim_start_matches("activityLogTypes/"))
        .collect()
}

async fn lists_page_in_order_and_hide_deleted_types(backend: Backend) {
    let f = Fixture::new(backend);
    seed(&f).await;
    let (all, totals) = f.walk_types(&request("", "", 3)).await;
    assert_eq!(
        ids(&all),
        ["t00", "t01", "t03", "t04", "t05", "t06", "t07", "t09"]
    );
    assert!(totals.iter().all(|t| *t == 8), "{totals:?}");
    assert_eq!(totals.len(), 3);
    let with_deleted = f
        .walk_types(&ListRequest {
            show_deleted: true,
            page_size: Some(4),
            ..ListRequest::default()
        })
        .await;
    assert_eq!(with_deleted.0.len(), 10);
    let (by_name, _) = f.walk_types(&request("", "displayName desc", 2)).await;
    assert_eq!(
        ids(&by_name),
        ["t09", "t03", "t05", "t06", "t01", "t07", "t00", "t04"]
    );
    let (by_update, _) = f.walk_types(&request("", "updateTime", 5)).await;
    assert_eq!(
        ids(&by_update),
        ["t09", "t07", "t06", "t05", "t04", "t03", "t01", "t00"]
    );
    let skipped = f
        .type_page(
            &t1(),
            &ListRequest {
                skip: Some(6),
                ..ListRequest::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(skipped.items.len(), 2);
    assert_eq!(skipped.total_size, 8);
}

async fn filters_select_by_type_time_and_name(backend: Backend) {
    let f = Fixture::new(backend);
    seed(&f).await;
    let found = |filter: &str, show_deleted: bool| {
        let request = ListRequest {
            filter: Some(filter.to_owned()),
            show_deleted,
            order_by: Some("createTime".into()),
            page_size: Some(100),
            ..ListRequest::default()
        };
        let f = &f;
        async move { f.walk_types(&request).await.0 }
    };
    assert_eq!(
        ids(&found("activityType = CUSTOM", false).await),
        ["t00", "t07"]
    );
    assert_eq!(
        ids(&found("activityType = CUSTOM", true).await),
        ["t00", "t02", "t07"]
    );
    assert_eq!(
        ids(&found("activityType = ACTIVITY_TYPE_UNSPECIFIED", false).await),
        ["t04"]
    );
    assert_eq!(
        found("activityType != CUSTOM", false).await.len(),
        6,
        "the unset type differs from CUSTOM"
    );
    let after = at(60 * 5).to_rfc3339();
    assert_eq!(
        ids(&found(&format!("createTime > \"{after}\""), false).await),
        ["t06", "t07", "t09"]
    );
    assert_eq!(
        ids(&found("displayName = \"Customer*\"", false).await),
        ["t00", "t01", "t07"]
    );
    assert_eq!(ids(&found("deleteTime:*", true).await), ["t02", "t08"]);
    let deleted_after = at(19_000).to_rfc3339();
    assert_eq!(
        ids(&found(&format!("deleteTime > \"{deleted_after}\""), true).await),
        ["t02", "t08"]
    );
    assert!(found("deleteTime:*", false).await.is_empty());
}

async fn a_fuzzy_search_ranks_the_closest_names_first(backend: Backend) {
    let f = Fixture::new(backend);
    seed(&f).await;
    let query = "custmer interaction";
    let page = f
        .type_page(&t1(), &request(&format!("displayName:\"{query}\""), "", 50))
        .await
        .unwrap();
    let names: Vec<&str> = page.items.iter().map(|t| t.display_name.as_str()).collect();
    assert_eq!(names[0], "Customer Interaction", "{names:?}");
    assert!(
        !names.contains(&"Interaction Review"),
        "deleted types stay hidden"
    );
    assert!(!names.contains(&"Sanctions Hit"), "{names:?}");
    let similarity = |name: &str| {
        let (q, t) = (text_search::trigrams(query), text_search::trigrams(name));
        text_search::similarity_per_million(
            q.intersection(&t).count() as i64,
            q.len() as i64,
            t.len() as i64,
        )
    };
    let scores: Vec<i64> = names.iter().map(|n| similarity(n)).collect();
    assert!(
        scores.windows(2).all(|w| w[0] >= w[1]),
        "best matches first: {names:?} {scores:?}"
    );
    assert_eq!(page.total_size, names.len() as i64);
    // Page by page, the ranked order is the same.
    let (walked, _) = f
        .walk_types(&request(&format!("displayName:\"{query}\""), "", 1))
        .await;
    let first: Vec<String> = page.items.iter().map(|t| t.name.clone()).collect();
    assert_eq!(walked, first);
    // A bare word searches the display name too; orderBy replaces the ranking.
    let bare = f.walk_types(&request("custmer", "", 50)).await.0;
    let mut bare = ids(&bare);
    bare.sort();
    assert_eq!(bare, ["t00", "t01", "t04", "t07"]);
    let ordered = f
        .walk_types(&request(
            &format!("displayName:\"{query}\""),
            "displayName desc",
            50,
        ))
        .await
        .0;
    let mut expected = first.clone();
    expected.sort_by_key(|name| {
        std::cmp::Reverse(
            page.items
                .iter()
                .find(|t| &t.name == name)
                .unwrap()
                .display_name
                .clone(),
        )
    });
    assert_eq!(ordered, expected);
}

async fn a_used_request_id_replays_and_events_commit_with_the_change(backend: Backend) {
    let f = Fixture::new(backend);
    let key = IdempotencyKey {
        request_id: "00000000-0000-7000-8000-000000000001".into(),
        method: "activityLogTypes.create",
        fingerprint: "f1".into(),
        resource_name: "activityLogTypes/first".into(),
    };
    let created = event(
        "ev1",
        None,
        "activity_log_type.created",
        "activityLogTypes/first",
    );
    assert_eq!(
        f.types
            .create(
                &t1(),
                &log_type("first", "First", 0),
                Some(&key),
                &[created]
            )
            .await,
        Ok(CreateOutcome::Created)
    );
    let replay = f
        .types
        .create(
            &t1(),
            &log_type("second", "Second", 0),
            Some(&key),
            &[event("ev2", None, "activity_log_type.created", "x")],
        )
        .await;
    assert_eq!(
        replay,
        Ok(CreateOutcome::Replayed {
            method: "activityLogTypes.create".into(),
            fingerprint: "f1".into(),
            resource_name: "activityLogTypes/first".into(),
        })
    );
    assert_eq!(f.types.get(&t1(), "second").await, Ok(None));
    // A refused write leaves no event: a duplicate id, a stale revision.
    let duplicate = f
        .types
        .create(
            &t1(),
            &log_type("first", "Again", 0),
            None,
            &[event("ev3", None, "activity_log_type.created", "x")],
        )
        .await;
    assert_eq!(duplicate, Err(RepositoryError::AlreadyExists));
    let mut stale = log_type("first", "Stale", 0);
    stale.revision = 5;
    assert_eq!(
        f.types
            .update(
                &t1(),
                &stale,
                4,
                &[event("ev4", None, "activity_log_type.updated", "x")]
            )
            .await,
        Err(RepositoryError::Conflict)
    );
    assert_eq!(f.event_ids(&t1()).await, ["ev1"]);
    let mut renamed = log_type("first", "Renamed", 0);
    renamed.revision = 2;
    f.types
        .update(
            &t1(),
            &renamed,
            1,
            &[event(
                "ev5",
                None,
                "activity_log_type.updated",
                "activityLogTypes/first",
            )],
        )
        .await
        .unwrap();
    assert_eq!(f.event_ids(&t1()).await, ["ev1", "ev5"]);
}

async fn a_purge_removes_only_due_types_of_every_tenant(backend: Backend) {
    let f = Fixture::new(backend);
    f.create_type(&t1(), &log_type("live", "Live", 0)).await;
    for (tenant, id, purge) in [(t1(), "due", 50), (t2(), "due2", 40), (t1(), "later", 500)] {
        let mut t = log_type(id, "Retired Type", 0);
        t.delete_time = Some(at(10));
        t.purge_time = Some(at(purge));
        f.create_type(&tenant, &t).await;
    }
    let due = f.types.find_purge_due(at(100), 10).await.unwrap();
    let due: Vec<(String, String)> = due
        .into_iter()
        .map(|(t, id)| (t.as_str().to_owned(), id))
        .collect();
    assert_eq!(
        due,
        [
            ("t2".to_owned(), "due2".to_owned()),
            ("t1".to_owned(), "due".to_owned())
        ]
    );
    for id in ["live", "later"] {
        assert_eq!(
            f.types.purge(&t1(), id, at(100), &[]).await,
            Err(RepositoryError::NotFound),
            "{id} is not due"
        );
    }
    f.types
        .purge(
            &t1(),
            "due",
            at(100),
            &[event(
                "ev-p",
                None,
                "activity_log_type.purged",
                "activityLogTypes/due",
            )],
        )
        .await
        .unwrap();
    assert_eq!(f.types.get(&t1(), "due").await, Ok(None));
    assert_eq!(f.trigram_rows(&t1(), "due").await, 0);
    assert_eq!(f.event_ids(&t1()).await, ["ev-p"]);
    assert!(f.types.get(&t2(), "due2").await.unwrap().is_some());
}

contract!(
    a_type_reads_back_as_written_and_only_in_its_tenant,
    updates_need_the_stored_revision_and_replace_the_trigrams,
    lists_page_in_order_and_hide_deleted_types,
    filters_select_by_type_time_and_name,
    a_fuzzy_search_ranks_the_closest_names_first,
    a_used_request_id_replays_and_events_commit_with_the_change,
    a_purge_removes_only_due_types_of_every_tenant,
);
