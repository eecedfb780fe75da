//! create, get, get_many, presence and update.

use rics_domain::entity::model::Entity;
use rics_domain::list::ListRequest;
use rics_domain::repository::{CreateOutcome, RepositoryError};
use rics_domain::time::Timestamp;
use rics_storage::Backend;
use serde_json::json;

use super::support::{Fixture, OwnedRows, as_stored, entity, event, page_of, sorted};
use crate::support::{BASE_MICROS, at, paging, t1, t2};

/// An entity with every part of the resource set, including sub-second times.
fn full_entity(id: &str) -> Entity {
    let mut full: Entity = serde_json::from_value(json!({
        "entityType": "INDIVIDUAL",
        "displayName": "Zoë O'Brien-Łukasz",
        "individual": {
            "legalName": {"givenName": "Zoë", "middleNames": "Anne", "familyName": "O'Brien"},
            "otherNames": [{"givenName": "Zoe", "familyName": "Obrien"}],
            "dateOfBirth": "1970-01-31",
            "placeOfBirth": "Kraków",
            "nationalities": ["FR", "PL"],
            "countryOfResidence": "GB",
            "gender": "FEMALE",
            "occupation": "Engineer"
        },
        "contactInfo": {
            "emails": ["zoe@example.com"],
            "phoneNumbers": ["+441234567890"],
            "addresses": [{"type": "RESIDENTIAL", "lines": ["1 High St", "Flat 2"],
                           "locality": "London", "postalCode": "N1 1AA", "country": "GB"}]
        },
        "externalIds": {"crm": "C-1", "erp": "E/2"},
        "tags": ["vip", "pep"],
        "riskDetails": {"riskLevel": "HIGH", "riskScore": 87.5, "riskStatus": "RATED",
                        "lastRatedTime": "2026-01-02T03:04:05.123456Z", "ratingJob": "jobs/1"},
        "screeningStatus": "POTENTIAL_MATCH",
        "verificationStatus": "PENDING",
        "legalHold": true
    }))
    .unwrap();
    full.name = Entity::name_of(id);
    full.uid = format!("uid-{id}");
    full.revision = 3;
    full.create_time = Timestamp::from_unix_micros(BASE_MICROS + 123_456);
    full.update_time = Timestamp::from_unix_micros(BASE_MICROS + 999_999);
    full.delete_time = Timestamp::from_unix_micros(BASE_MICROS + 1_000_001);
    full.purge_time = Timestamp::from_unix_micros(BASE_MICROS + 2_000_002);
    full
}

async fn create_then_get_round_trips_every_field(backend: Backend) {
    let f = Fixture::new(backend);
    let full = full_entity("full");
    let outcome = f.repo.create(&t1(), &full, None, &[]).await.unwrap();
    assert_eq!(outcome, CreateOutcome::Created);
    let stored = f.get(&t1(), "full").await;
    assert_eq!(stored, as_stored(&full));
    assert_eq!(stored.revision, 3);
    assert_eq!(stored.etag, rics_domain::resource::etag("uid-full", 3));
    let minimal = entity("min", "M", 5);
    f.create(&t1(), &minimal).await;
    assert_eq!(f.get(&t1(), "min").await, as_stored(&minimal));
}

async fn create_refuses_a_taken_id_even_when_soft_deleted(backend: Backend) {
    let f = Fixture::new(backend);
    let first = entity("e1", "First", 0);
    f.create(&t1(), &first).await;
    let second = entity("e1", "Second", 1);
    assert_eq!(
        f.repo.create(&t1(), &second, None, &[]).await,
        Err(RepositoryError::AlreadyExists)
    );
    assert_eq!(f.get(&t1(), "e1").await.display_name, "First");

    let mut deleted = first.clone();
    deleted.revision = 2;
    deleted.delete_time = Some(at(10));
    deleted.purge_time = Some(at(100));
    f.repo.update(&t1(), &deleted, 1, &[]).await.unwrap();
    assert_eq!(
        f.repo.create(&t1(), &second, None, &[]).await,
        Err(RepositoryError::AlreadyExists)
    );
    let stored = f.get(&t1(), "e1").await;
    assert_eq!(
        (stored.display_name.as_str(), stored.delete_time),
        ("First", Some(at(10)))
    );

    // The same id is free in another tenant, and stays separate.
    assert_eq!(
        f.repo.create(&t2(), &second, None, &[]).await,
        Ok(CreateOutcome::Created)
    );
    assert_eq!(f.get(&t2(), "e1").await.display_name, "Second");
    assert_eq!(f.get(&t1(), "e1").await.display_name, "First");
}

async fn a_failed_create_writes_nothing(backend: Backend) {
    let f = Fixture::new(backend);
    let mut e = entity("e1", "John Smith", 0);
    e.tags = vec!["a".into(), "b".into()];
    e.external_ids.insert("crm".into(), "1".into());
    // The second event reuses the first one's id, so the last statement of the
    // transaction fails after the entity and its side rows were written.
    let events = [
        event("ev1", Some("e1"), "entity.created", 0),
        event("ev1", Some("e1"), "entity.created", 0),
    ];
    assert!(f.repo.create(&t1(), &e, None, &events).await.is_err());
    assert_eq!(f.repo.get(&t1(), "e1").await.unwrap(), None);
    assert_eq!(f.rows_of(&t1(), "e1").await, OwnedRows::default());
    assert!(f.events(&t1()).await.is_empty());
    // Nothing half-written blocks a correct retry.
    f.repo.create(&t1(), &e, None, &events[..1]).await.unwrap();
    assert_eq!(f.rows_of(&t1(), "e1").await.tags, 2);
}

async fn get_sees_only_the_callers_tenant_and_deleted_entities_too(backend: Backend) {
    let f = Fixture::new(backend);
    let mut deleted = entity("gone", "Gone", 0);
    deleted.delete_time = Some(at(5));
    deleted.purge_time = Some(at(50));
    f.create(&t1(), &deleted).await;
    f.create(&t2(), &entity("theirs", "Theirs", 0)).await;
    assert_eq!(f.get(&t1(), "gone").await, as_stored(&deleted));
    assert_eq!(f.repo.get(&t1(), "missing").await, Ok(None));
    assert_eq!(f.repo.get(&t1(), "theirs").await, Ok(None));
    assert_eq!(f.repo.get(&t2(), "gone").await, Ok(None));
}

async fn get_many_returns_the_existing_ones_of_the_tenant(backend: Backend) {
    let f = Fixture::new(backend);
    for i in 0..5 {
        let mut e = entity(&format!("e{i}"), &format!("E{i}"), i);
        if i == 3 {
            e.delete_time = Some(at(9));
            e.purge_time = Some(at(99));
        }
        f.create(&t1(), &e).await;
    }
    f.create(&t2(), &entity("t2e", "T2", 0)).await;
    let ids = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let names =
        |found: Vec<Entity>| sorted(&found.iter().map(|e| e.id().to_owned()).collect::<Vec<_>>());

    let found = f
        .repo
        .get_many(&t1(), &ids(&["e4", "missing", "e0", "e3", "t2e"]))
        .await
        .unwrap();
    assert_eq!(names(found.clone()), ids(&["e0", "e3", "e4"]));
    let e3 = found.iter().find(|e| e.id() == "e3").unwrap();
    assert_eq!(e3.delete_time, Some(at(9)));
    assert!(f.repo.get_many(&t1(), &[]).await.unwrap().is_empty());
    assert!(
        f.repo
            .get_many(&t2(), &ids(&["e0"]))
            .await
            .unwrap()
            .is_empty()
    );
    // The presence of the same ids: what a reference check reads.
    let mut present = f
        .repo
        .presence(&t1(), &ids(&["e4", "missing", "e0", "e3", "t2e"]))
        .await
        .unwrap();
    present.sort_by(|a, b| a.id.cmp(&b.id));
    let present: Vec<(&str, bool)> = present.iter().map(|p| (p.id.as_str(), p.deleted)).collect();
    assert_eq!(present, [("e0", false), ("e3", true), ("e4", false)]);
    assert!(
        f.repo
            .presence(&t2(), &ids(&["e0"]))
            .await
            .unwrap()
            .is_empty()
    );

    // More ids than one statement binds: the wanted ones sit in different chunks.
    let mut many: Vec<String> = (0..1_200).map(|i| format!("nope{i}")).collect();
    many[10] = "e1".into();
    many[600] = "e2".into();
    many[1_199] = "e4".into();
    let found = f.repo.get_many(&t1(), &many).await.unwrap();
    assert_eq!(names(found), ids(&["e1", "e2", "e4"]));
}

/// The ids the first tenant's list returns for `filter`.
async fn listed(f: &Fixture, filter: &str) -> Vec<String> {
    let request = ListRequest {
        filter: Some(filter.to_owned()),
        show_deleted: true,
        ..ListRequest::default()
    };
    let response = page_of(f, &paging(), &t1(), &request).await.unwrap();
    sorted(
        &response
            .items
            .iter()
            .map(|e| e.id().to_owned())
            .collect::<Vec<_>>(),
    )
}

async fn update_replaces_the_entity_and_its_search_rows(backend: Backend) {
    let f = Fixture::new(backend);
    let mut before = entity("e1", "John Smith", 0);
    before.tags = vec!["a".into(), "b".into()];
    before.external_ids.insert("crm".into(), "1".into());
    f.create(&t1(), &before).await;
    f.create(&t1(), &entity("e2", "John Smith", 0)).await;

    let mut after = full_entity("e1");
    after.uid = before.uid.clone();
    after.display_name = "Grace Hopper".into();
    after.tags = vec!["c".into()];
    after.external_ids.clear();
    after.external_ids.insert("erp".into(), "2".into());
    after.delete_time = None;
    after.purge_time = None;
    after.revision = 2;
    f.repo.update(&t1(), &after, 1, &[]).await.unwrap();
    assert_eq!(f.get(&t1(), "e1").await, as_stored(&after));

    let rows = f.rows_of(&t1(), "e1").await;
    assert_eq!((rows.tags, rows.external_ids), (1, 1));
    assert_eq!(listed(&f, "tags:a").await, Vec::<String>::new());
    assert_eq!(listed(&f, "tags:c").await, vec!["e1"]);
    assert_eq!(listed(&f, "externalIds:crm").await, Vec::<String>::new());
    assert_eq!(listed(&f, r#"externalIds.erp = "2""#).await, vec!["e1"]);
    assert_eq!(listed(&f, r#"displayName:"john smith""#).await, vec!["e2"]);
    assert_eq!(listed(&f, r#"displayName:"grace hoper""#).await, vec!["e1"]);
    assert_eq!(listed(&f, "legalHold = true").await, vec!["e1"]);

    // Soft delete and undelete are updates of the time columns.
    let mut deleted = after.clone();
    deleted.revision = 3;
    deleted.delete_time = Some(at(7));
    deleted.purge_time = Some(at(70));
    f.repo.update(&t1(), &deleted, 2, &[]).await.unwrap();
    assert_eq!(f.get(&t1(), "e1").await, as_stored(&deleted));
    let mut restored = deleted.clone();
    restored.revision = 4;
    restored.delete_time = None;
    restored.purge_time = None;
    f.repo.update(&t1(), &restored, 3, &[]).await.unwrap();
    assert_eq!(f.get(&t1(), "e1").await, as_stored(&restored));
}

async fn update_refuses_a_stale_revision(backend: Backend) {
    let f = Fixture::new(backend);
    let original = entity("e1", "Original", 0);
    f.create(&t1(), &original).await;
    let mut first = original.clone();
    first.display_name = "First".into();
    first.tags = vec!["first".into()];
    first.revision = 2;
    f.repo.update(&t1(), &first, 1, &[]).await.unwrap();

    let mut late = original.clone();
    late.display_name = "Late".into();
    late.tags = vec!["late".into()];
    late.revision = 2;
    assert_eq!(
        f.repo.update(&t1(), &late, 1, &[]).await,
        Err(RepositoryError::Conflict)
    );
    let mut ahead = late.clone();
    ahead.revision = 4;
    assert_eq!(
        f.repo.update(&t1(), &ahead, 3, &[]).await,
        Err(RepositoryError::Conflict)
    );
    assert_eq!(f.get(&t1(), "e1").await, as_stored(&first));
    assert_eq!(listed(&f, "tags:late").await, Vec::<String>::new());
    assert_eq!(listed(&f, "tags:first").await, vec!["e1"]);
}

async fn update_of_a_missing_entity_is_not_found(backend: Backend) {
    let f = Fixture::new(backend);
    let theirs = entity("e1", "Theirs", 0);
    f.create(&t2(), &theirs).await;
    let mut mine = theirs.clone();
    mine.display_name = "Mine".into();
    mine.revision = 2;
    assert_eq!(
        f.repo.update(&t1(), &mine, 1, &[]).await,
        Err(RepositoryError::NotFound)
    );
    let mut missing = entity("nobody", "Nobody", 0);
    missing.revision = 2;
    assert_eq!(
        f.repo.update(&t1(), &missing, 1, &[]).await,
        Err(RepositoryError::NotFound)
    );
    assert_eq!(f.get(&t2(), "e1").await, as_stored(&theirs));
    assert_eq!(f.repo.get(&t1(), "e1").await, Ok(None));
    assert_eq!(f.rows_of(&t1(), "e1").await, OwnedRows::default());
}

async fn create_many_writes_each_entity_as_create_does_all_or_none(backend: Backend) {
    let f = Fixture::new(backend);
    let mut full = full_entity("full");
    full.delete_time = None;
    full.purge_time = None;
    f.create(&t1(), &full).await;
    let single = f.rows_of(&t1(), "full").await;
    let mut many: Vec<Entity> = ["b1", "b2", "b3"].map(full_entity).into();
    many[1].display_name = "Jon Smyth".into();
    many[2].tags.clear();
    let events: Vec<_> = ["b1", "b2", "b3"]
        .iter()
        .enumerate()
        .map(|(i, id)| event(&format!("ev-{id}"), Some(id), "entity.created", i as i64))
        .collect();
    let key = rics_domain::repository::IdempotencyKey {
        request_id: "00000000-0000-7000-8000-000000000042".into(),
        method: "entities.batchCreate",
        fingerprint: "fingerprint".into(),
        resource_name: "entities/b1,entities/b2,entities/b3".into(),
    };
    let outcome = f.repo.create_many(&t1(), &many, Some(&key), &events).await;
    assert_eq!(outcome, Ok(CreateOutcome::Created));
    for stored in &many {
        assert_eq!(f.get(&t1(), stored.id()).await, as_stored(stored));
    }
    // Side rows and events as a single create writes them.
    let mut b1 = f.rows_of(&t1(), "b1").await;
    b1.idempotency_keys = single.idempotency_keys;
    b1.events = single.events;
    assert_eq!(b1, single);
    assert_eq!(f.rows_of(&t1(), "b3").await.tags, 0);
    assert!(
        listed(&f, r#"displayName:"jon smyth""#)
            .await
            .contains(&"b2".to_owned())
    );
    let written: Vec<_> = f.events(&t1()).await.into_iter().map(|e| e.id).collect();
    assert_eq!(written, ["ev-b1", "ev-b2", "ev-b3"]);
    // The key replays the batch and writes nothing.
    let again = f.repo.create_many(&t1(), &many, Some(&key), &[]).await;
    assert_eq!(
        again,
        Ok(CreateOutcome::Replayed {
            method: key.method.into(),
            fingerprint: key.fingerprint.clone(),
            resource_name: key.resource_name.clone(),
        })
    );
    // One taken id refuses the whole batch.
    let fresh = [full_entity("c1"), full_entity("b2")];
    assert_eq!(
        f.repo.create_many(&t1(), &fresh, None, &[]).await,
        Err(RepositoryError::AlreadyExists)
    );
    assert_eq!(f.repo.get(&t1(), "c1").await, Ok(None));
    assert_eq!(f.rows_of(&t1(), "c1").await, OwnedRows::default());
    assert_eq!(f.events(&t1()).await.len(), 3);
}

contract!(
    create_many_writes_each_entity_as_create_does_all_or_none,
    create_then_get_round_trips_every_field,
    create_refuses_a_taken_id_even_when_soft_deleted,
    a_failed_create_writes_nothing,
    get_sees_only_the_callers_tenant_and_deleted_entities_too,
    get_many_returns_the_existing_ones_of_the_tenant,
    update_replaces_the_entity_and_its_search_rows,
    update_refuses_a_stale_revision,
    update_of_a_missing_entity_is_not_found,
);
