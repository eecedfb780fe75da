//! add_relationship, remove_relationship and list_relationships.

use rics_domain::entity::fields;
use rics_domain::entity::relationship::{RelationshipRecord, RelationshipType};
use rics_domain::list::{ListRequest, ListResponse};
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_storage::Backend;

use super::support::{Fixture, entity, event, hold_write, relationship, sorted};
use crate::support::{paging, t1, t2};

use RelationshipType::{Associate, Customer, Director, Other, Relative, Shareholder, Spouse};

async fn with_entities(backend: Backend, ids: &[&str]) -> Fixture {
    let f = Fixture::new(backend);
    for id in ids {
        f.create(&t1(), &entity(id, id, 0)).await;
    }
    f
}

async fn relationships_are_seen_from_both_sides_and_removed_from_either(backend: Backend) {
    let f = with_entities(backend, &["acme", "jane", "john"]).await;
    let mut director = relationship("r1", "acme", "jane", Director, 1);
    director.note = "since 2020".into();
    let mut owner = relationship("r2", "john", "acme", Shareholder, 2);
    owner.ownership_percentage = Some(12.5);
    for r in [&director, &owner] {
        f.repo.add_relationship(&t1(), r, &[]).await.unwrap();
    }
    let all = |id: &'static str| {
        let f = &f;
        async move { list(f, &t1(), id, &ListRequest::default()).await.items }
    };
    assert_eq!(all("acme").await, vec![director.clone(), owner.clone()]);
    assert_eq!(all("jane").await, vec![director.clone()]);
    assert_eq!(all("john").await, vec![owner.clone()]);

    // Removed from the other side, in the other direction, it is gone for both.
    assert_eq!(
        f.repo
            .remove_relationship(&t1(), "jane", "acme", Director, &[])
            .await,
        Ok(director.clone())
    );
    assert_eq!(all("acme").await, vec![owner.clone()]);
    assert!(all("jane").await.is_empty());
    assert_eq!(
        f.repo
            .remove_relationship(&t1(), "jane", "acme", Director, &[])
            .await,
        Err(RepositoryError::NotFound)
    );
    // The type is part of what is removed.
    assert_eq!(
        f.repo
            .remove_relationship(&t1(), "acme", "john", Director, &[])
            .await,
        Err(RepositoryError::NotFound)
    );
    assert_eq!(
        f.repo
            .remove_relationship(&t1(), "acme", "john", Shareholder, &[])
            .await,
        Ok(owner)
    );
    assert!(all("acme").await.is_empty());
}

async fn duplicates_are_refused_in_either_direction_for_symmetric_types(backend: Backend) {
    let f = with_entities(backend, &["a", "b", "c"]).await;
    let add = |r: RelationshipRecord| {
        let f = &f;
        async move { f.repo.add_relationship(&t1(), &r, &[]).await }
    };
    // Symmetric types: A-B and B-A are the same relationship.
    for (n, kind) in [Spouse, Relative, Associate, Other].into_iter().enumerate() {
        assert_eq!(
            add(relationship(&format!("s{n}"), "a", "b", kind, 1)).await,
            Ok(())
        );
        assert_eq!(
            add(relationship(&format!("s{n}-again"), "a", "b", kind, 1)).await,
            Err(RepositoryError::AlreadyExists),
            "{kind:?} again"
        );
        assert_eq!(
            add(relationship(&format!("s{n}-reverse"), "b", "a", kind, 1)).await,
            Err(RepositoryError::AlreadyExists),
            "{kind:?} reversed"
        );
    }
    // Directed types: the reverse is another relationship; the same one is refused.
    assert_eq!(add(relationship("d1", "a", "b", Director, 1)).await, Ok(()));
    assert_eq!(add(relationship("d2", "b", "a", Director, 1)).await, Ok(()));
    assert_eq!(
        add(relationship("d3", "a", "b", Director, 1)).await,
        Err(RepositoryError::AlreadyExists)
    );
    // Another type between the same two is another relationship.
    assert_eq!(add(relationship("d4", "a", "b", Customer, 1)).await, Ok(()));
    // A reused relationship id is refused too.
    assert_eq!(
        add(relationship("d1", "a", "c", Director, 1)).await,
        Err(RepositoryError::AlreadyExists)
    );
    let listed = list(&f, &t1(), "a", &ListRequest::default()).await;
    assert_eq!(listed.total_size, 7);
    assert!(
        list(&f, &t1(), "c", &ListRequest::default())
            .await
            .items
            .is_empty()
    );
}

async fn relationships_need_both_entities_in_the_tenant(backend: Backend) {
    let f = with_entities(backend, &["a"]).await;
    f.create(&t2(), &entity("theirs", "Theirs", 0)).await;
    f.create(&t2(), &entity("a", "Their a", 0)).await;
    for (from, to) in [
        ("a", "missing"),
        ("missing", "a"),
        ("a", "theirs"),
        ("theirs", "a"),
    ] {
        assert_eq!(
            f.repo
                .add_relationship(&t1(), &relationship("r", from, to, Director, 1), &[])
                .await,
            Err(RepositoryError::NotFound),
            "{from} -> {to}"
        );
    }
    assert!(
        list(&f, &t1(), "a", &ListRequest::default())
            .await
            .items
            .is_empty()
    );
    // Relationships of another tenant are invisible and cannot be removed.
    f.repo
        .add_relationship(&t2(), &relationship("rt", "a", "theirs", Director, 1), &[])
        .await
        .unwrap();
    assert!(
        list(&f, &t1(), "a", &ListRequest::default())
            .await
            .items
            .is_empty()
    );
    assert_eq!(
        f.repo
            .remove_relationship(&t1(), "a", "theirs", Director, &[])
            .await,
        Err(RepositoryError::NotFound)
    );
    assert_eq!(
        list(&f, &t2(), "a", &ListRequest::default())
            .await
            .total_size,
        1
    );
}

async fn relationship_lists_filter_and_page(backend: Backend) {
    let f = with_entities(
        backend,
        &["hub", "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7"],
    )
    .await;
    let kinds = [Director, Shareholder, Spouse];
    let mut added = Vec::new();
    for i in 0..8 {
        let other = format!("x{i}");
        // Half added to the hub, half to the other side; create times tie in pairs.
        let (from, to) = if i % 2 == 0 {
            ("hub", other.as_str())
        } else {
            (other.as_str(), "hub")
        };
        let r = relationship(
            &format!("r{}", 7 - i),
            from,
            to,
            kinds[i % 3],
            (i / 2) as i64,
        );
        f.repo.add_relationship(&t1(), &r, &[]).await.unwrap();
        added.push(r);
    }
    // Unrelated to the hub.
    f.repo
        .add_relationship(&t1(), &relationship("zz", "x0", "x1", Director, 0), &[])
        .await
        .unwrap();

    let mut seen = Vec::new();
    let mut request = ListRequest {
        page_size: Some(3),
        ..ListRequest::default()
    };
    loop {
        let page = list(&f, &t1(), "hub", &request).await;
        assert!(page.items.len() <= 3);
        assert_eq!(page.total_size, 8);
        seen.extend(page.items);
        match page.next_page_token {
            Some(token) => request.page_token = Some(token),
            None => break,
        }
    }
    let ids: Vec<&str> = seen.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        sorted(&ids),
        sorted(&added.iter().map(|r| r.id.as_str()).collect::<Vec<_>>())
    );
    let keys: Vec<(i64, &str)> = seen
        .iter()
        .map(|r| (r.create_time.unix_micros(), r.id.as_str()))
        .collect();
    assert_eq!(keys, sorted(&keys), "oldest first, then by id");

    let directors = list(
        &f,
        &t1(),
        "hub",
        &ListRequest {
            filter: Some("relationshipType = DIRECTOR".into()),
            ..ListRequest::default()
        },
    )
    .await;
    let expected: Vec<&str> = added
        .iter()
        .filter(|r| r.relationship_type == Director)
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(
        sorted(
            &directors
                .items
                .iter()
                .map(|r| r.id.as_str())
                .collect::<Vec<_>>()
        ),
        sorted(&expected)
    );
    assert_eq!(directors.total_size, expected.len() as i64);

    let newest = list(
        &f,
        &t1(),
        "hub",
        &ListRequest {
            filter: Some(format!(
                "createTime >= \"{}\" AND NOT relationshipType = SPOUSE",
                super::support::rfc3339(2)
            )),
            order_by: Some("createTime desc".into()),
            ..ListRequest::default()
        },
    )
    .await;
    let times: Vec<i64> = newest
        .items
        .iter()
        .map(|r| r.create_time.unix_micros())
        .collect();
    assert!(
        times.windows(2).all(|w| w[0] >= w[1]),
        "newest first: {times:?}"
    );
    let expected = added
        .iter()
        .filter(|r| r.create_time >= crate::support::at(2) && r.relationship_type != Spouse)
        .count();
    assert_eq!(
        (newest.items.len(), newest.total_size),
        (expected, expected as i64)
    );
    assert!(expected > 0 && expected < added.len());
}

async fn list(
    f: &Fixture,
    tenant: &TenantId,
    entity_id: &str,
    request: &ListRequest,
) -> ListResponse<RelationshipRecord> {
    let paging = paging();
    let parent = format!("entities/{entity_id}");
    let (query, context) = paging
        .prepare(&fields::RELATIONSHIP_LIST, tenant, Some(&parent), request)
        .unwrap();
    let page = f
        .repo
        .list_relationships(tenant, entity_id, &query)
        .await
        .unwrap();
    paging.finish(context, page)
}

contract!(
    relationships_are_seen_from_both_sides_and_removed_from_either,
    duplicates_are_refused_in_either_direction_for_symmetric_types,
    relationships_need_both_entities_in_the_tenant,
    relationship_lists_filter_and_page,
);

async fn concurrent_symmetric_adds_in_both_directions_store_one(backend: Backend) {
    let f = Fixture::new(backend);
    let pairs = 12;
    for i in 0..pairs {
        f.create(&t1(), &entity(&format!("a{i}"), "A", 0)).await;
        f.create(&t1(), &entity(&format!("b{i}"), "B", 0)).await;
    }
    let mut tasks = Vec::new();
    for i in 0..pairs {
        for (n, (from, to)) in [
            (format!("a{i}"), format!("b{i}")),
            (format!("b{i}"), format!("a{i}")),
        ]
        .into_iter()
        .enumerate()
        {
            let repo = f.repo.clone();
            tasks.push(tokio::spawn(async move {
                let r = relationship(&format!("r{i}-{n}"), &from, &to, Spouse, 1);
                repo.add_relationship(&t1(), &r, &[]).await
            }));
        }
    }
    let mut added = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(()) => added += 1,
            Err(e) => assert_eq!(e, RepositoryError::AlreadyExists),
        }
    }
    for i in 0..pairs {
        let listed = list(&f, &t1(), &format!("a{i}"), &ListRequest::default()).await;
        assert_eq!(listed.total_size, 1, "pair {i}: {:?}", listed.items);
    }
    assert_eq!(added, pairs);
}

contract!(concurrent_symmetric_adds_in_both_directions_store_one);

/// Two removals of one relationship racing: the one that finds it already gone
/// answers NotFound and writes no event.
async fn a_relationship_removed_meanwhile_is_not_found(backend: Backend) {
    let f = with_entities(backend, &["a", "b"]).await;
    f.repo
        .add_relationship(&t1(), &relationship("r1", "a", "b", Director, 1), &[])
        .await
        .unwrap();
    let other_removal = hold_write(
        f.url(),
        vec!["DELETE FROM entity_relationships WHERE tenant_id = 't1' AND id = 'r1'".to_owned()],
    );
    let removed = f
        .repo
        .remove_relationship(
            &t1(),
            "b",
            "a",
            Director,
            &[event("ev", Some("a"), "entity.relationship_removed", 2)],
        )
        .await;
    other_removal.join().unwrap();
    assert_eq!(removed, Err(RepositoryError::NotFound));
    assert!(f.events(&t1()).await.is_empty());
}

contract!(a_relationship_removed_meanwhile_is_not_found);
