//! hard_delete (erasure and purge) and find_purge_due.

use rics_domain::entity::relationship::RelationshipType;
use rics_domain::entity::repository::{EraseGuard, ErasureCounts};
use rics_domain::repository::{IdempotencyKey, RepositoryError};
use rics_storage::Backend;

use super::documents::document;
use super::support::{Fixture, OwnedRows, entity, event, hold_write, relationship};
use crate::support::{at, t1, t2};

fn key(n: u32, resource: &str) -> IdempotencyKey {
    IdempotencyKey {
        request_id: format!("00000000-0000-7000-8000-{n:012}"),
        method: "entities.create",
        fingerprint: "f".into(),
        resource_name: format!("entities/{resource}"),
    }
}

fn counts(pairs: &[(&str, i64)]) -> ErasureCounts {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
}

async fn hard_delete_removes_everything_the_entity_owns(backend: Backend) {
    let f = Fixture::new(backend);
    let mut a = entity("a", "Ada Lovelace", 0);
    a.tags = vec!["x".into(), "y".into(), "z".into()];
    a.external_ids.insert("crm".into(), "1".into());
    a.external_ids.insert("erp".into(), "2".into());
    f.repo
        .create(
            &t1(),
            &a,
            Some(&key(1, "a")),
            &[event("ev-a1", Some("a"), "entity.created", 0)],
        )
        .await
        .unwrap();
    let mut b = entity("b", "Bob", 0);
    b.tags = vec!["x".into()];
    b.external_ids.insert("crm".into(), "1".into());
    f.repo
        .create(
            &t1(),
            &b,
            Some(&key(2, "b")),
            &[event("ev-b1", Some("b"), "entity.created", 0)],
        )
        .await
        .unwrap();
    f.create(&t1(), &entity("c", "Carol", 0)).await;
    // The same id in another tenant, with rows of its own.
    let mut other_a = a.clone();
    other_a.tags = vec!["x".into()];
    f.repo
        .create(
            &t2(),
            &other_a,
            Some(&key(1, "a")),
            &[event("ev-t2", Some("a"), "entity.created", 0)],
        )
        .await
        .unwrap();
    f.create(&t2(), &entity("b", "Bob", 0)).await;
    f.repo
        .add_relationship(
            &t2(),
            &relationship("r-t2", "a", "b", RelationshipType::Director, 0),
            &[],
        )
        .await
        .unwrap();
    // Relationships with `a` on either side, and one without it.
    for (id, from, to, kind) in [
        ("r1", "a", "b", RelationshipType::Director),
        ("r2", "c", "a", RelationshipType::Shareholder),
        ("r3", "b", "c", RelationshipType::Employee),
    ] {
        f.repo
            .add_relationship(&t1(), &relationship(id, from, to, kind, 1), &[])
            .await
            .unwrap();
    }
    let mut a2 = a.clone();
    a2.revision = 2;
    f.repo
        .update(
            &t1(),
            &a2,
            1,
            &[event("ev-a2", Some("a"), "entity.updated", 2)],
        )
        .await
        .unwrap();
    // A document of `a`, created with a request id.
    let documents = f.documents.clone();
    let document_key = IdempotencyKey {
        resource_name: "documents/doc-a".into(),
        method: "documents.create",
        ..key(3, "a")
    };
    documents
        .create(
            &t1(),
            &document("doc-a", "a", "D", "2030-01-01", 2),
            Some(&document_key),
            &[event("ev-doc-a", Some("a"), "document.created", 2)],
        )
        .await
        .unwrap();
    let before_b = f.rows_of(&t1(), "b").await;
    let before_c = f.rows_of(&t1(), "c").await;
    let before_other = f.rows_of(&t2(), "a").await;
    assert_eq!(
        f.rows_of(&t1(), "a").await,
        OwnedRows {
            entities: 1,
            tags: 3,
            external_ids: 2,
            relationships: 2,
            events: 3,
            idempotency_keys: 1,
        }
    );

    let erased = f
        .repo
        .hard_delete(
            &t1(),
            "a",
            EraseGuard::Always,
            &[event("ev-erased", None, "entity.hard_deleted", 3)],
        )
        .await
        .unwrap();
    assert_eq!(
        erased,
        counts(&[
            ("entities", 1),
            ("tags", 3),
            ("externalIds", 2),
            ("relationships", 2),
            ("events", 3),
            ("idempotencyKeys", 2),
            ("documents", 1),
            ("jobs", 0),
            ("automationExecutions", 0),
            ("screeningDismissals", 0),
            ("notes", 0),
            ("files", 0),
            ("workspaceMemberships", 0),
            ("activityLogs", 0),
            ("alertMemberships", 0),
            ("formFiles", 0),
            ("forms", 0),
            ("webhookDeliveries", 0),
            ("verificationSessions", 0),
        ])
    );
    assert_eq!(f.rows_of(&t1(), "a").await, OwnedRows::default());
    assert_eq!(f.repo.get(&t1(), "a").await, Ok(None));
    assert_eq!(documents.get(&t1(), "doc-a").await, Ok(None));
    // Others keep their rows, except the relationships they had with `a`.
    let after_b = f.rows_of(&t1(), "b").await;
    assert_eq!(
        after_b,
        OwnedRows {
            relationships: before_b.relationships - 1,
            ..before_b
        }
    );
    let after_c = f.rows_of(&t1(), "c").await;
    assert_eq!(
        after_c,
        OwnedRows {
            relationships: before_c.relationships - 1,
            ..before_c
        }
    );
    assert_eq!((after_b.relationships, after_c.relationships), (1, 1));
    assert_eq!(f.rows_of(&t2(), "a").await, before_other);
    assert_eq!(
        f.event_ids(&t1()).await,
        vec!["ev-b1".to_owned(), "ev-erased".to_owned()]
    );
    // Erasing again: nothing there.
    assert_eq!(
        f.repo
            .hard_delete(&t1(), "a", EraseGuard::Always, &[])
            .await,
        Err(RepositoryError::NotFound)
    );
    // A bare entity erases with zero counts for what it did not have.
    assert_eq!(
        f.repo
            .hard_delete(&t1(), "c", EraseGuard::Always, &[])
            .await,
        Ok(counts(&[
            ("entities", 1),
            ("tags", 0),
            ("externalIds", 0),
            ("relationships", 1),
            ("events", 0),
            ("idempotencyKeys", 0),
            ("documents", 0),
            ("jobs", 0),
            ("automationExecutions", 0),
            ("screeningDismissals", 0),
            ("notes", 0),
            ("files", 0),
            ("workspaceMemberships", 0),
            ("activityLogs", 0),
            ("alertMemberships", 0),
            ("formFiles", 0),
            ("forms", 0),
            ("webhookDeliveries", 0),
            ("verificationSessions", 0),
        ]))
    );
}

async fn hard_delete_never_reaches_another_tenant(backend: Backend) {
    let f = Fixture::new(backend);
    f.create(&t2(), &entity("e1", "Theirs", 0)).await;
    assert_eq!(
        f.repo
            .hard_delete(&t1(), "e1", EraseGuard::Always, &[])
            .await,
        Err(RepositoryError::NotFound)
    );
    assert_eq!(
        f.repo
            .hard_delete(&t1(), "missing", EraseGuard::Always, &[])
            .await,
        Err(RepositoryError::NotFound)
    );
    assert_eq!(f.rows_of(&t2(), "e1").await.entities, 1);
}

async fn a_purge_removes_only_what_is_due(backend: Backend) {
    let f = Fixture::new(backend);
    let mut live = entity("live", "Live", 0);
    live.tags = vec!["t".into()];
    f.create(&t1(), &live).await;
    for (id, purge) in [("later", 200), ("exactly", 100), ("due", 99)] {
        let mut e = entity(id, id, 0);
        e.tags = vec!["t".into()];
        e.delete_time = Some(at(10));
        e.purge_time = Some(at(purge));
        f.create(&t1(), &e).await;
    }
    let now = EraseGuard::PurgeDue(at(100));
    for id in ["live", "later", "exactly"] {
        assert_eq!(
            f.repo
                .hard_delete(&t1(), id, now, &[event(id, None, "entity.purged", 100)])
                .await,
            Err(RepositoryError::NotFound),
            "{id} is not due"
        );
        assert_eq!(f.rows_of(&t1(), id).await.tags, 1, "{id} keeps its rows");
    }
    let purged = f
        .repo
        .hard_delete(
            &t1(),
            "due",
            now,
            &[event("ev-due", None, "entity.purged", 100)],
        )
        .await
        .unwrap();
    assert_eq!(purged.get("entities"), Some(&1));
    assert_eq!(purged.get("tags"), Some(&1));
    assert_eq!(f.rows_of(&t1(), "due").await, OwnedRows::default());
    assert_eq!(f.event_ids(&t1()).await, vec!["ev-due"]);
    // An entity restored in the meantime (no purge time) is never purged.
    let mut restored = entity("later", "later", 0);
    restored.revision = 2;
    f.repo.update(&t1(), &restored, 1, &[]).await.unwrap();
    assert_eq!(
        f.repo
            .hard_delete(&t1(), "later", EraseGuard::PurgeDue(at(10_000)), &[])
            .await,
        Err(RepositoryError::NotFound)
    );
    assert_eq!(f.rows_of(&t1(), "later").await.entities, 1);
}

async fn find_purge_due_lists_due_entities_of_every_tenant_oldest_first(backend: Backend) {
    let f = Fixture::new(backend);
    f.create(&t1(), &entity("live", "Live", 0)).await;
    for (tenant, id, purge) in [
        (t1(), "p30", 30),
        (t2(), "p10", 10),
        (t1(), "p20", 20),
        (t2(), "p99", 99),
        (t1(), "p100", 100),
        (t1(), "p500", 500),
    ] {
        let mut e = entity(id, id, 0);
        e.delete_time = Some(at(1));
        e.purge_time = Some(at(purge));
        f.create(&tenant, &e).await;
    }
    let found = |items: Vec<(rics_domain::principal::TenantId, String)>| {
        items
            .into_iter()
            .map(|(t, id)| format!("{}/{id}", t.as_str()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        found(f.repo.find_purge_due(at(100), 10).await.unwrap()),
        vec!["t2/p10", "t1/p20", "t1/p30", "t2/p99"]
    );
    assert_eq!(
        found(f.repo.find_purge_due(at(100), 2).await.unwrap()),
        vec!["t2/p10", "t1/p20"]
    );
    assert!(f.repo.find_purge_due(at(10), 10).await.unwrap().is_empty());
    assert_eq!(
        found(f.repo.find_purge_due(at(1_000), 100).await.unwrap()).len(),
        6
    );
    // What it finds, a purge at the same instant removes.
    for (tenant, id) in f.repo.find_purge_due(at(100), 10).await.unwrap() {
        f.repo
            .hard_delete(&tenant, &id, EraseGuard::PurgeDue(at(100)), &[])
            .await
            .unwrap();
    }
    assert_eq!(
        found(f.repo.find_purge_due(at(1_000), 100).await.unwrap()),
        vec!["t1/p100", "t1/p500"]
    );
}

/// A revision guard erases only the version the caller checked (the service checks
/// the legal hold on it): after a change, the erasure is refused as a conflict.
async fn a_revision_guard_refuses_a_changed_entity(backend: Backend) {
    let f = Fixture::new(backend);
    f.create(&t1(), &entity("e1", "E", 0)).await;
    let mut held = f.get(&t1(), "e1").await;
    held.legal_hold = true;
    held.revision = 2;
    f.repo.update(&t1(), &held, 1, &[]).await.unwrap();
    assert_eq!(
        f.repo
            .hard_delete(
                &t1(),
                "e1",
                EraseGuard::Revision(1),
                &[event("ev-x", None, "entity.hard_deleted", 5)]
            )
            .await,
        Err(RepositoryError::Conflict)
    );
    assert_eq!(f.rows_of(&t1(), "e1").await.entities, 1);
    assert!(
        f.event_ids(&t1()).await.is_empty(),
        "a refused erasure writes no event"
    );
    assert_eq!(
        f.repo
            .hard_delete(&t1(), "e1", EraseGuard::Revision(2), &[])
            .await
            .map(|c| c["entities"]),
        Ok(1)
    );
}

contract!(
    a_revision_guard_refuses_a_changed_entity,
    hard_delete_removes_everything_the_entity_owns,
    hard_delete_never_reaches_another_tenant,
    a_purge_removes_only_what_is_due,
    find_purge_due_lists_due_entities_of_every_tenant_oldest_first,
);

/// A purge racing an undelete: the undelete commits while the purge is under way, so
/// the purge must find the entity no longer due instead of erasing it.
async fn a_purge_never_erases_an_entity_undeleted_meanwhile(backend: Backend) {
    let f = Fixture::new(backend);
    let mut e = entity("e1", "E", 0);
    e.tags = vec!["t".into()];
    e.delete_time = Some(at(10));
    e.purge_time = Some(at(50));
    f.create(&t1(), &e).await;
    let undelete = hold_write(
        f.url(),
        vec![
            "UPDATE entities SET delete_time = NULL, purge_time = NULL, revision = 2 \
             WHERE tenant_id = 't1' AND id = 'e1'"
                .to_owned(),
        ],
    );
    let purge = f
        .repo
        .hard_delete(
            &t1(),
            "e1",
            EraseGuard::PurgeDue(at(100)),
            &[event("ev", None, "entity.purged", 100)],
        )
        .await;
    undelete.join().unwrap();
    assert_eq!(purge, Err(RepositoryError::NotFound));
    let stored = f.get(&t1(), "e1").await;
    assert_eq!((stored.revision, stored.purge_time), (2, None));
    assert_eq!(f.rows_of(&t1(), "e1").await.tags, 1);
    assert!(f.events(&t1()).await.is_empty());
}

contract!(a_purge_never_erases_an_entity_undeleted_meanwhile);
