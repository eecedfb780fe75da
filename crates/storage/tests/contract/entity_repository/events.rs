//! Every mutation writes its events in the same transaction: they appear with the
//! change, and a write that fails leaves none behind.

use rics_domain::entity::relationship::RelationshipType;
use rics_domain::entity::repository::EraseGuard;
use rics_domain::event::NewEvent;
use rics_domain::event::service::EVENT_LIST;
use rics_domain::list::ListRequest;
use rics_domain::repository::{IdempotencyKey, RepositoryError};
use rics_storage::Backend;

use super::support::{Fixture, StoredEvent, entity, event, relationship, rfc3339};
use crate::support::{at, paging, t1, t2};

fn stored(event: &NewEvent) -> StoredEvent {
    StoredEvent {
        id: event.id.clone(),
        entity_id: event.entity_id.clone(),
        event_type: event.event_type.clone(),
        payload: event.payload.clone(),
        creator: event.creator.clone(),
        create_time: event.create_time.unix_micros(),
    }
}

fn all(events: &[&NewEvent]) -> Vec<StoredEvent> {
    let mut all: Vec<StoredEvent> = events.iter().map(|e| stored(e)).collect();
    all.sort_by(|a, b| a.id.cmp(&b.id));
    all
}

async fn every_change_writes_its_events_with_it(backend: Backend) {
    let f = Fixture::new(backend);
    let ev01 = event("ev01", Some("a"), "entity.created", 1);
    let ev02 = event("ev02", Some("b"), "entity.created", 2);
    f.repo
        .create(
            &t1(),
            &entity("a", "A", 1),
            None,
            std::slice::from_ref(&ev01),
        )
        .await
        .unwrap();
    assert_eq!(f.events(&t1()).await, all(&[&ev01]));
    f.repo
        .create(
            &t1(),
            &entity("b", "B", 2),
            None,
            std::slice::from_ref(&ev02),
        )
        .await
        .unwrap();

    let mut a2 = entity("a", "A2", 1);
    a2.revision = 2;
    let ev03 = event("ev03", Some("a"), "entity.updated", 3);
    f.repo
        .update(&t1(), &a2, 1, std::slice::from_ref(&ev03))
        .await
        .unwrap();
    assert_eq!(f.events(&t1()).await, all(&[&ev01, &ev02, &ev03]));

    let ev04 = event("ev04", Some("a"), "entity.relationship_added", 4);
    let ev05 = event("ev05", Some("b"), "entity.relationship_added", 4);
    f.repo
        .add_relationship(
            &t1(),
            &relationship("r1", "a", "b", RelationshipType::Director, 4),
            &[ev04.clone(), ev05.clone()],
        )
        .await
        .unwrap();
    assert_eq!(
        f.events(&t1()).await,
        all(&[&ev01, &ev02, &ev03, &ev04, &ev05])
    );

    let ev06 = event("ev06", Some("a"), "entity.relationship_removed", 5);
    let ev07 = event("ev07", Some("b"), "entity.relationship_removed", 5);
    f.repo
        .remove_relationship(
            &t1(),
            "b",
            "a",
            RelationshipType::Director,
            &[ev06.clone(), ev07.clone()],
        )
        .await
        .unwrap();
    assert_eq!(
        f.events(&t1()).await,
        all(&[&ev01, &ev02, &ev03, &ev04, &ev05, &ev06, &ev07])
    );

    // Erasing `a` removes its own events and records the erasure at tenant level.
    let ev08 = event("ev08", None, "entity.hard_deleted", 6);
    f.repo
        .hard_delete(&t1(), "a", EraseGuard::Always, std::slice::from_ref(&ev08))
        .await
        .unwrap();
    assert_eq!(f.events(&t1()).await, all(&[&ev02, &ev05, &ev07, &ev08]));
    assert!(f.events(&t2()).await.is_empty());
}

async fn a_failed_write_leaves_no_event(backend: Backend) {
    let f = Fixture::new(backend);
    let setup = [
        event("ok1", Some("a"), "entity.created", 1),
        event("ok2", Some("b"), "entity.created", 1),
        event("ok3", Some("a"), "entity.relationship_added", 1),
    ];
    f.repo
        .create(&t1(), &entity("a", "A", 1), None, &setup[..1])
        .await
        .unwrap();
    f.repo
        .create(&t1(), &entity("b", "B", 1), None, &setup[1..2])
        .await
        .unwrap();
    f.repo
        .add_relationship(
            &t1(),
            &relationship("r1", "a", "b", RelationshipType::Spouse, 1),
            &setup[2..],
        )
        .await
        .unwrap();
    let before = f.events(&t1()).await;
    assert_eq!(before.len(), 3);

    let bad = |n: u32| [event(&format!("bad{n}"), Some("a"), "entity.x", 9)];
    let mut stale = entity("a", "Stale", 1);
    stale.revision = 2;
    let mut missing = entity("missing", "Missing", 1);
    missing.revision = 2;
    let key = IdempotencyKey {
        request_id: "00000000-0000-7000-8000-000000000001".into(),
        method: "entities.create",
        fingerprint: "f".into(),
        resource_name: "entities/a".into(),
    };
    let outcomes = [
        f.repo
            .create(&t1(), &entity("a", "Dup", 1), None, &bad(1))
            .await
            .map(|_| ()),
        f.repo
            .create(&t1(), &entity("a", "Dup", 1), Some(&key), &bad(2))
            .await
            .map(|_| ()),
        f.repo.update(&t1(), &stale, 5, &bad(3)).await,
        f.repo.update(&t1(), &missing, 1, &bad(4)).await,
        f.repo
            .hard_delete(&t1(), "missing", EraseGuard::Always, &bad(5))
            .await
            .map(|_| ()),
        f.repo
            .hard_delete(&t1(), "a", EraseGuard::PurgeDue(at(1_000_000)), &bad(6))
            .await
            .map(|_| ()),
        f.repo
            .add_relationship(
                &t1(),
                &relationship("r2", "b", "a", RelationshipType::Spouse, 2),
                &bad(7),
            )
            .await,
        f.repo
            .add_relationship(
                &t1(),
                &relationship("r3", "a", "missing", RelationshipType::Director, 2),
                &bad(8),
            )
            .await,
        f.repo
            .remove_relationship(&t1(), "a", "b", RelationshipType::Director, &bad(9))
            .await
            .map(|_| ()),
        f.repo.update(&t2(), &stale, 1, &bad(10)).await,
    ];
    assert_eq!(
        outcomes,
        [
            Err(RepositoryError::AlreadyExists),
            Err(RepositoryError::AlreadyExists),
            Err(RepositoryError::Conflict),
            Err(RepositoryError::NotFound),
            Err(RepositoryError::NotFound),
            Err(RepositoryError::NotFound),
            Err(RepositoryError::AlreadyExists),
            Err(RepositoryError::NotFound),
            Err(RepositoryError::NotFound),
            Err(RepositoryError::NotFound),
        ]
    );
    assert_eq!(f.events(&t1()).await, before);
    assert!(f.events(&t2()).await.is_empty());
    assert!(f.idempotency_keys(&t1()).await.is_empty());
}

/// The read side: one event by id in its tenant only; an entity's events page by
/// page in time order, filtered, never another entity's or tenant's.
async fn events_are_read_back_by_tenant_and_entity(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.events.clone();
    let paging = paging();
    f.repo
        .create(
            &t1(),
            &entity("a", "A", 1),
            None,
            &[event("ev01", Some("a"), "entity.created", 1)],
        )
        .await
        .unwrap();
    f.repo
        .create(
            &t1(),
            &entity("b", "B", 2),
            None,
            &[event("ev02", Some("b"), "entity.created", 2)],
        )
        .await
        .unwrap();
    f.repo
        .create(
            &t2(),
            &entity("a", "A", 1),
            None,
            &[event("ev90", Some("a"), "entity.created", 1)],
        )
        .await
        .unwrap();
    for (i, seconds) in (3..15).enumerate() {
        let mut next = entity("a", &format!("A{i}"), 1);
        next.revision = i as i64 + 2;
        let kind = if i % 2 == 0 {
            "entity.updated"
        } else {
            "entity.tag_added"
        };
        f.repo
            .update(
                &t1(),
                &next,
                i as i64 + 1,
                &[event(&format!("ev{:02}", i + 3), Some("a"), kind, seconds)],
            )
            .await
            .unwrap();
    }

    let one = repo.get(&t1(), "ev02").await.unwrap().unwrap();
    assert_eq!(
        (one.entity_id.as_deref(), one.event_type.as_str()),
        (Some("b"), "entity.created")
    );
    assert_eq!(one.create_time, at(2));
    assert!(
        repo.get(&t2(), "ev02").await.unwrap().is_none(),
        "another tenant's event"
    );
    assert!(
        repo.get(&t1(), "ev90").await.unwrap().is_none(),
        "another tenant's event"
    );

    let list = |request: ListRequest| {
        let repo = repo.clone();
        let paging = &paging;
        async move {
            let mut ids = Vec::new();
            let mut request = request;
            loop {
                let (query, context) = paging
                    .prepare(&EVENT_LIST, &t1(), Some("entities/a"), &request)
                    .unwrap();
                let page = repo.list_for_entity(&t1(), "a", &query).await.unwrap();
                let total = page.total_size;
                let response = paging.finish(context, page);
                ids.extend(response.items.iter().map(|e| e.id.clone()));
                match response.next_page_token {
                    Some(token) => request.page_token = Some(token),
                    None => return (ids, total),
                }
            }
        }
    };
    let (ids, total) = list(ListRequest {
        page_size: Some(5),
        ..ListRequest::default()
    })
    .await;
    let expected: Vec<String> = std::iter::once("ev01".to_owned())
        .chain((3..15).map(|i| format!("ev{i:02}")))
        .collect();
    assert_eq!(
        ids, expected,
        "oldest first, every page, only entity a of tenant t1"
    );
    assert_eq!(total, 13);
    let (ids, total) = list(ListRequest {
        page_size: Some(4),
        filter: Some(format!(
            "eventType = \"entity.tag_added\" AND createTime >= \"{}\"",
            rfc3339(8)
        )),
        order_by: Some("createTime desc".into()),
        ..ListRequest::default()
    })
    .await;
    assert_eq!(ids, ["ev14", "ev12", "ev10", "ev08"]);
    assert_eq!(total, 4);
}

contract!(
    every_change_writes_its_events_with_it,
    a_failed_write_leaves_no_event,
    events_are_read_back_by_tenant_and_entity,
);
