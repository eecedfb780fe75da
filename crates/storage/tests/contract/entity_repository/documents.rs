//! The identity document repository: documents stored for a stored entity, lists with
//! each filter, one entity's list, paging and soft delete, changes under a revision
//! with their events in the same transaction, replays, purge, and an entity's erasure.

use rics_domain::document::fields::LIST;
use rics_domain::document::model::{Document, DocumentType};
use rics_domain::document::ports::DocumentRepository;
use rics_domain::entity::model::Gender;
use rics_domain::entity::repository::EraseGuard;
use rics_domain::icao::IcaoCode;
use rics_domain::list::{ListRequest, Paging};
use rics_domain::repository::{CreateOutcome, IdempotencyKey, RepositoryError};
use rics_domain::values::PartialDate;
use rics_storage::Backend;

use super::support::{Fixture, entity, event, rfc3339};
use crate::support::{at, paging, t1, t2};

/// A passport `id` of the entity `entity`, issued by `country` and expiring on
/// `expiry`, created at `at(seconds)`.
pub fn document(id: &str, entity: &str, country: &str, expiry: &str, seconds: i64) -> Document {
    Document {
        name: Document::name_of(id),
        uid: format!("uid-{id}"),
        entity: format!("entities/{entity}"),
        document_type: DocumentType::Passport,
        document_number: "L898902C3".into(),
        issuing_country: (!country.is_empty()).then(|| IcaoCode::parse(country).unwrap()),
        nationality: Some(IcaoCode::parse("D").unwrap()),
        given_name: "Anna María".into(),
        family_name: "Eriksson".into(),
        date_of_birth: Some(PartialDate::parse("1974-08-12").unwrap()),
        gender: Gender::Female,
        issue_date: Some(PartialDate::parse("2020-06-01").unwrap()),
        expiry_date: (!expiry.is_empty()).then(|| PartialDate::parse(expiry).unwrap()),
        mrz: vec!["P<UTOERIKSSON<<ANNA<MARIA".into()],
        files: vec![format!("entities/{entity}/files/front")],
        create_time: Some(at(seconds)),
        update_time: Some(at(seconds)),
        etag: rics_domain::resource::etag(&format!("uid-{id}"), 1),
        revision: 1,
        ..Document::default()
    }
}

/// `document` as its next revision, changed by `change` at `at(seconds)`.
fn next(document: &Document, seconds: i64, change: impl FnOnce(&mut Document)) -> Document {
    let mut changed = document.clone();
    change(&mut changed);
    changed.revision = document.revision + 1;
    changed.update_time = Some(at(seconds));
    changed.etag = rics_domain::resource::etag(&changed.uid, changed.revision);
    changed
}

/// The ids of the documents one list call with `request` returns (of `entity` only,
/// when given), and its total.
async fn ids(
    repo: &dyn DocumentRepository,
    paging: &Paging,
    entity: Option<&str>,
    request: &ListRequest,
) -> (Vec<String>, i64) {
    let (query, _) = paging.prepare(&LIST, &t1(), entity, request).unwrap();
    let page = repo.list(&t1(), entity, &query).await.unwrap();
    (
        page.items.iter().map(|d| d.id().to_owned()).collect(),
        page.total_size,
    )
}

async fn documents_round_trip_for_a_stored_entity(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.documents.clone();
    f.create(&t1(), &entity("amy", "Amy", 0)).await;
    let passport = document("d1", "amy", "D", "2030-05-31", 1);
    repo.create(
        &t1(),
        &passport,
        None,
        &[event("ev-1", Some("amy"), "document.created", 1)],
    )
    .await
    .unwrap();
    assert_eq!(repo.get(&t1(), "d1").await, Ok(Some(passport.clone())));
    assert_eq!(repo.get(&t2(), "d1").await, Ok(None));
    assert_eq!(
        repo.create(&t1(), &passport, None, &[]).await,
        Err(RepositoryError::AlreadyExists)
    );
    // The entity must be stored in the document's tenant.
    assert_eq!(
        repo.create(&t2(), &passport, None, &[]).await,
        Err(RepositoryError::NotFound)
    );
    let orphan = document("d2", "nobody", "", "", 1);
    assert_eq!(
        repo.create(&t1(), &orphan, None, &[]).await,
        Err(RepositoryError::NotFound)
    );
    let changed = next(&passport, 5, |d| {
        d.document_type = DocumentType::NationalId;
        d.issuing_country = None;
        d.expiry_date = None;
        d.mrz.clear();
    });
    assert_eq!(
        repo.update(&t1(), &changed, 7, &[]).await,
        Err(RepositoryError::Conflict)
    );
    assert_eq!(
        repo.update(&t2(), &changed, 1, &[]).await,
        Err(RepositoryError::NotFound)
    );
    repo.update(
        &t1(),
        &changed,
        1,
        &[event("ev-2", Some("amy"), "document.updated", 5)],
    )
    .await
    .unwrap();
    assert_eq!(repo.get(&t1(), "d1").await, Ok(Some(changed)));
    assert_eq!(f.event_ids(&t1()).await, vec!["ev-1", "ev-2"]);
}

contract!(documents_round_trip_for_a_stored_entity);

async fn a_failed_document_write_leaves_no_event(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.documents.clone();
    f.create(&t1(), &entity("amy", "Amy", 0)).await;
    let passport = document("d1", "amy", "UTO", "", 1);
    repo.create(&t1(), &passport, None, &[]).await.unwrap();
    let duplicate = repo
        .create(
            &t1(),
            &passport,
            None,
            &[event("ev-lost-1", Some("amy"), "document.created", 2)],
        )
        .await;
    assert_eq!(duplicate, Err(RepositoryError::AlreadyExists));
    let stale = repo
        .update(
            &t1(),
            &next(&passport, 3, |d| d.given_name = "Anna".into()),
            9,
            &[event("ev-lost-2", Some("amy"), "document.updated", 3)],
        )
        .await;
    assert_eq!(stale, Err(RepositoryError::Conflict));
    let orphan = repo
        .create(
            &t1(),
            &document("d2", "nobody", "UTO", "", 4),
            None,
            &[event("ev-lost-3", Some("nobody"), "document.created", 4)],
        )
        .await;
    assert_eq!(orphan, Err(RepositoryError::NotFound));
    assert!(f.event_ids(&t1()).await.is_empty());
    assert_eq!(repo.get(&t1(), "d1").await, Ok(Some(passport)));
}

contract!(a_failed_document_write_leaves_no_event);

async fn a_create_with_a_used_request_id_replays(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.documents.clone();
    f.create(&t1(), &entity("amy", "Amy", 0)).await;
    let key = IdempotencyKey {
        request_id: "0b0c9a52-1a34-4b7c-9d55-55d3d7b6b2c1".into(),
        method: "documents.create",
        fingerprint: "f1".into(),
        resource_name: "documents/d1".into(),
    };
    assert_eq!(
        repo.create(&t1(), &document("d1", "amy", "D", "", 1), Some(&key), &[])
            .await,
        Ok(CreateOutcome::Created)
    );
    assert_eq!(
        repo.create(
            &t1(),
            &document("d2", "amy", "D", "", 2),
            Some(&key),
            &[event("ev-x", Some("amy"), "document.created", 2)]
        )
        .await,
        Ok(CreateOutcome::Replayed {
            method: "documents.create".into(),
            fingerprint: "f1".into(),
            resource_name: "documents/d1".into(),
        })
    );
    assert_eq!(repo.get(&t1(), "d2").await, Ok(None));
    assert!(f.event_ids(&t1()).await.is_empty());
}

contract!(a_create_with_a_used_request_id_replays);

async fn lists_filter_on_every_field_page_and_hide_deleted(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.documents.clone();
    for id in ["amy", "bob"] {
        f.create(&t1(), &entity(id, id, 0)).await;
    }
    f.create(&t2(), &entity("amy", "Amy", 0)).await;
    let mut d2 = document("d2", "amy", "DEU", "2027-03-01", 2);
    d2.document_type = DocumentType::DriversLicence;
    d2.update_time = Some(at(50));
    let mut d5 = document("d5", "bob", "D", "2026-12-31", 5);
    d5.delete_time = Some(at(6));
    d5.purge_time = Some(at(100));
    for d in [
        document("d1", "amy", "D", "2031-01-01", 1),
        d2,
        document("d3", "bob", "AUS", "", 3),
        document("d4", "bob", "", "2029-07-15", 4),
        d5,
    ] {
        repo.create(&t1(), &d, None, &[]).await.unwrap();
    }
    repo.create(
        &t2(),
        &document("d9", "amy", "D", "2031-01-01", 9),
        None,
        &[],
    )
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
        (list("", "", false), vec!["d1", "d2", "d3", "d4"]),
        (list("", "", true), vec!["d1", "d2", "d3", "d4", "d5"]),
        (
            list("", "createTime desc", false),
            vec!["d4", "d3", "d2", "d1"],
        ),
        (
            list("", "updateTime desc", false),
            vec!["d2", "d4", "d3", "d1"],
        ),
        (
            list("entity = \"entities/bob\"", "", true),
            vec!["d3", "d4", "d5"],
        ),
        (
            list("documentType = DRIVERS_LICENCE", "", false),
            vec!["d2"],
        ),
        (
            list("documentType != DRIVERS_LICENCE", "", false),
            vec!["d1", "d3", "d4"],
        ),
        (list("issuingCountry = \"D\"", "", true), vec!["d1", "d5"]),
        (list("issuingCountry = \"DEU\"", "", false), vec!["d2"]),
        (list("issuingCountry:*", "", false), vec!["d1", "d2", "d3"]),
        (
            list("expiryDate < \"2029-12-31\"", "", true),
            vec!["d2", "d4", "d5"],
        ),
        (list("expiryDate >= \"2031-01-01\"", "", false), vec!["d1"]),
        (list("expiryDate = \"2027-*\"", "", false), vec!["d2"]),
        (list("expiryDate:*", "", false), vec!["d1", "d2", "d4"]),
        (list("NOT expiryDate:*", "", false), vec!["d3"]),
        (
            list(&format!("createTime >= \"{}\"", rfc3339(3)), "", false),
            vec!["d3", "d4"],
        ),
        (list("deleteTime:*", "", true), vec!["d5"]),
    ];
    for (request, expected) in cases {
        let (found, total) = ids(repo.as_ref(), &paging, None, &request).await;
        assert_eq!(found, expected, "{request:?}");
        assert_eq!(total as usize, expected.len(), "{request:?}");
    }
    // One entity's documents, with the same filters.
    let bobs = Some("entities/bob");
    assert_eq!(
        ids(repo.as_ref(), &paging, bobs, &list("", "", false)).await,
        (vec!["d3".to_owned(), "d4".to_owned()], 2)
    );
    assert_eq!(
        ids(
            repo.as_ref(),
            &paging,
            bobs,
            &list("expiryDate:*", "", true)
        )
        .await
        .0,
        vec!["d4", "d5"]
    );
    assert_eq!(
        ids(
            repo.as_ref(),
            &paging,
            Some("entities/nobody"),
            &list("", "", true)
        )
        .await,
        (Vec::new(), 0)
    );
    // Page by page, with the token bound to the filter.
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
        seen.extend(response.items.iter().map(|d| d.id().to_owned()));
        match response.next_page_token {
            Some(token) => request.page_token = Some(token),
            None => break,
        }
    }
    assert_eq!(seen, vec!["d1", "d2", "d3", "d4", "d5"]);
    let skipped = ListRequest {
        skip: Some(3),
        ..ListRequest::default()
    };
    assert_eq!(
        ids(repo.as_ref(), &paging, None, &skipped).await.0,
        vec!["d4"]
    );
}

contract!(lists_filter_on_every_field_page_and_hide_deleted);

/// `displayName` is a column with the trigrams of the name: exact and fuzzy filters
/// (best match first without an order), ordering both ways, one entity's list, and an
/// update that renames replaces the trigrams.
async fn display_names_filter_fuzzily_and_order(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.documents.clone();
    for id in ["amy", "bob"] {
        f.create(&t1(), &entity(id, id, 0)).await;
    }
    let named = |id: &str, entity: &str, name: &str, seconds: i64| Document {
        display_name: name.to_owned(),
        ..document(id, entity, "D", "2031-01-01", seconds)
    };
    let d1 = named("d1", "amy", "Amy's passport", 1);
    for d in [
        d1.clone(),
        named("d2", "amy", "PASSPORT L898902C3", 2),
        named("d3", "bob", "Bob's pássport", 3),
    ] {
        repo.create(&t1(), &d, None, &[]).await.unwrap();
    }
    assert_eq!(
        repo.get(&t1(), "d3").await.unwrap().unwrap().display_name,
        "Bob's pássport"
    );
    let paging = paging();
    let list = |filter: &str, order_by: &str| ListRequest {
        filter: Some(filter.to_owned()),
        order_by: Some(order_by.to_owned()),
        ..ListRequest::default()
    };
    for (request, expected) in [
        (list("displayName = \"Amy's passport\"", ""), vec!["d1"]),
        (
            list("displayName != \"Amy's passport\"", ""),
            vec!["d2", "d3"],
        ),
        (
            list("displayName:\"bobs passport\"", ""),
            vec!["d3", "d1", "d2"],
        ),
        (list("displayName:\"l898902c3\"", ""), vec!["d2"]),
        (
            list("displayName:\"passport\"", "createTime desc"),
            vec!["d3", "d2", "d1"],
        ),
        (list("", "displayName"), vec!["d1", "d3", "d2"]),
        (list("", "displayName desc"), vec!["d2", "d3", "d1"]),
    ] {
        assert_eq!(
            ids(repo.as_ref(), &paging, None, &request).await.0,
            expected,
            "{request:?}"
        );
    }
    assert_eq!(
        ids(
            repo.as_ref(),
            &paging,
            Some("entities/amy"),
            &list("displayName:\"amys pasport\"", "")
        )
        .await
        .0,
        vec!["d1", "d2"]
    );
    let renamed = next(&d1, 10, |d| d.display_name = "Residence card".into());
    repo.update(&t1(), &renamed, 1, &[]).await.unwrap();
    assert_eq!(
        ids(
            repo.as_ref(),
            &paging,
            None,
            &list("displayName:\"amys\"", "")
        )
        .await
        .0,
        Vec::<String>::new(),
        "the old name's trigrams are gone"
    );
    assert_eq!(
        ids(
            repo.as_ref(),
            &paging,
            None,
            &list("displayName:\"residence\"", "")
        )
        .await
        .0,
        vec!["d1"]
    );
}

contract!(display_names_filter_fuzzily_and_order);

async fn a_purge_removes_only_documents_past_their_purge_time(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.documents.clone();
    f.create(&t1(), &entity("amy", "Amy", 0)).await;
    let mut gone = document("gone", "amy", "D", "", 1);
    gone.delete_time = Some(at(10));
    gone.purge_time = Some(at(50));
    repo.create(&t1(), &gone, None, &[]).await.unwrap();
    repo.create(&t1(), &document("kept", "amy", "D", "", 1), None, &[])
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
        &[event("ev-p", Some("amy"), "document.purged", 60)],
    )
    .await
    .unwrap();
    assert_eq!(repo.get(&t1(), "gone").await, Ok(None));
    assert!(repo.get(&t1(), "kept").await.unwrap().is_some());
    assert_eq!(f.event_ids(&t1()).await, vec!["ev-p"]);
}

contract!(a_purge_removes_only_documents_past_their_purge_time);

async fn erasing_an_entity_erases_its_documents_their_events_and_keys(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.documents.clone();
    for id in ["amy", "bob"] {
        f.create(&t1(), &entity(id, id, 0)).await;
    }
    f.create(&t2(), &entity("amy", "Amy", 0)).await;
    let key = |n: u32, id: &str| IdempotencyKey {
        request_id: format!("00000000-0000-7000-8000-{n:012}"),
        method: "documents.create",
        fingerprint: "f".into(),
        resource_name: Document::name_of(id),
    };
    for (n, id, owner) in [(1, "a1", "amy"), (2, "a2", "amy"), (3, "b1", "bob")] {
        repo.create(
            &t1(),
            &document(id, owner, "D", "", 1),
            Some(&key(n, id)),
            &[event(
                &format!("ev-{id}"),
                Some(owner),
                "document.created",
                1,
            )],
        )
        .await
        .unwrap();
    }
    let theirs = document("a1", "amy", "D", "", 1);
    repo.create(&t2(), &theirs, Some(&key(1, "a1")), &[])
        .await
        .unwrap();
    let counts = f
        .repo
        .hard_delete(&t1(), "amy", EraseGuard::Always, &[])
        .await
        .unwrap();
    assert_eq!(counts.get("documents"), Some(&2));
    assert_eq!(counts.get("events"), Some(&2));
    assert_eq!(counts.get("idempotencyKeys"), Some(&2));
    for id in ["a1", "a2"] {
        assert_eq!(repo.get(&t1(), id).await, Ok(None));
    }
    assert!(repo.get(&t1(), "b1").await.unwrap().is_some());
    assert_eq!(f.event_ids(&t1()).await, vec!["ev-b1"]);
    assert_eq!(
        f.idempotency_keys(&t1()).await,
        vec!["00000000-0000-7000-8000-000000000003"]
    );
    assert_eq!(
        repo.get(&t2(), "a1").await,
        Ok(Some(theirs)),
        "another tenant's document of its own amy is untouched"
    );
    assert_eq!(f.idempotency_keys(&t2()).await.len(), 1);
}

contract!(erasing_an_entity_erases_its_documents_their_events_and_keys);
