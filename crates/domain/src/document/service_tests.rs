//! Unit tests of the document service with mocked ports.

use std::sync::Arc;
use std::time::Duration;

use rics_aip::filter::{Comparator, Condition, Literal, StringMatch};
use serde_json::{Value, json};

use super::model::{Document, DocumentType};
use super::ports::MockDocumentRepository;
use super::service::DocumentService;
use crate::entity::model::Entity;
use crate::entity::repository::MockEntityRepository;
use crate::error::{Code, Error};
use crate::file::model::File;
use crate::file::ports::MockFileRepository;
use crate::housekeeping::Purge;
use crate::icao::IcaoCode;
use crate::id::MockIdGenerator;
use crate::lifecycle::ServiceContext;
use crate::lifecycle::SoftDeleteMethods;
use crate::list::{ListRequest, Page, Paging};
use crate::methods::CreateMethod;
use crate::methods::UpdateMethod;
use crate::principal::{Principal, TenantId};
use crate::repository::CreateOutcome;
use crate::time::{MockClock, Timestamp};
use crate::workspace::model::Workspace;
use crate::workspace::ports::MockWorkspaceRepository;

fn now() -> Timestamp {
    Timestamp::parse_rfc3339("2026-11-22T10:00:00Z").unwrap()
}

fn principal() -> Principal {
    Principal {
        tenant: TenantId::new("t1"),
        subject: "alice".into(),
        display_name: "Alice".into(),
        scopes: Default::default(),
    }
}

/// Entities (and workspaces) `live-*` exist, `gone-*` are soft-deleted, others do not
/// exist.
fn entities() -> MockEntityRepository {
    let mut entities = MockEntityRepository::new();
    entities.expect_get().returning(|_, id| {
        Ok(
            (id.starts_with("live-") || id.starts_with("gone-")).then(|| Entity {
                name: Entity::name_of(id),
                delete_time: id.starts_with("gone-").then(now),
                ..Entity::default()
            }),
        )
    });
    entities
}

fn workspaces() -> MockWorkspaceRepository {
    let mut workspaces = MockWorkspaceRepository::new();
    workspaces.expect_get().returning(|_, id| {
        Ok(
            (id.starts_with("live-") || id.starts_with("gone-")).then(|| Workspace {
                name: Workspace::name_of(id),
                delete_time: id.starts_with("gone-").then(now),
                ..Workspace::default()
            }),
        )
    });
    workspaces
}

/// Files `.../missing` do not exist, `.../gone*` are soft-deleted, others are live.
fn files() -> MockFileRepository {
    let mut files = MockFileRepository::new();
    files.expect_get().returning(|_, name| {
        Ok((!name.ends_with("/missing")).then(|| File {
            name: name.into(),
            delete_time: name
                .rsplit('/')
                .next()
                .is_some_and(|id| id.starts_with("gone"))
                .then(now),
            ..File::default()
        }))
    });
    files
}

fn service(documents: MockDocumentRepository) -> DocumentService {
    let mut clock = MockClock::new();
    clock.expect_now().returning(now);
    let clock = Arc::new(clock);
    let mut ids = MockIdGenerator::new();
    ids.expect_resource_id().returning(|| "gen-id".into());
    ids.expect_uid().returning(|| "uid-1".into());
    let paging = Arc::new(Paging::new(&[7; 32], clock.clone()).unwrap());
    DocumentService::new(
        Arc::new(documents),
        Arc::new(entities()),
        Arc::new(workspaces()),
        Arc::new(files()),
        ServiceContext {
            clock,
            ids: Arc::new(ids),
            paging,
            retention: Duration::from_secs(86_400),
        },
    )
}

/// A valid passport body of `entities/live-jane`, with `extra` fields set over it.
fn passport(extra: Value) -> Value {
    let mut body = json!({
        "entity": "entities/live-jane",
        "documentType": "PASSPORT",
        "documentNumber": "l898902c3",
        "issuingCountry": "de",
        "nationality": "D<<",
        "givenName": "Jane",
        "familyName": "Doe",
        "dateOfBirth": "1974-08-12",
        "gender": "FEMALE",
        "issueDate": "2020-06-01",
        "expiryDate": "2030-05-31",
        "mrz": [
            "P<D<<DOE<<JANE<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<",
            "L898902C36D<<7408122F3005317<<<<<<<<<<<<<<<8"
        ],
        "files": ["entities/live-jane/files/front"]
    });
    if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
        body.extend(extra.clone());
    }
    body
}

fn stored(entity: &str) -> Document {
    Document {
        name: "documents/doc-1".into(),
        uid: "uid-0".into(),
        display_name: "PASSPORT L898902C3".into(),
        entity: format!("entities/{entity}"),
        document_type: DocumentType::Passport,
        document_number: "L898902C3".into(),
        create_time: Some(now()),
        update_time: Some(now()),
        etag: crate::resource::etag("uid-0", 1),
        revision: 1,
        ..Document::default()
    }
}

async fn refused(body: Value) -> Error {
    service(MockDocumentRepository::new())
        .create(&principal(), body, None, None)
        .await
        .unwrap_err()
}

#[tokio::test]
async fn a_document_is_stored_normalised_with_an_event_of_its_entity() {
    let mut documents = MockDocumentRepository::new();
    documents
        .expect_create()
        .withf(|_, document, _, events| {
            document.name == "documents/gen-id"
                && document.document_number == "L898902C3"
                && document.issuing_country == IcaoCode::parse("DEU").ok()
                && document.nationality == IcaoCode::parse("D").ok()
                && events.len() == 1
                && events[0].event_type == "document.created"
                && events[0].entity_id.as_deref() == Some("live-jane")
        })
        .times(1)
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    let created = service(documents)
        .create(&principal(), passport(json!({})), None, None)
        .await
        .unwrap();
    let json = serde_json::to_value(&created).unwrap();
    assert_eq!(json["issuingCountry"], "DEU");
    assert_eq!(json["nationality"], "D", "kept as printed");
    assert_eq!(json["documentNumber"], "L898902C3");
}

#[tokio::test]
async fn the_entity_must_exist_in_the_tenant_and_be_live() {
    let cases = [
        ("entities/nobody", Code::NotFound, "ENTITY_NOT_FOUND"),
        (
            "entities/gone-jane",
            Code::FailedPrecondition,
            "ENTITY_DELETED",
        ),
        ("people/jane", Code::InvalidArgument, "INVALID_NAME"),
        ("", Code::InvalidArgument, "INVALID_FIELDS"),
    ];
    for (entity, code, reason) in cases {
        let error = refused(passport(json!({
            "entity": entity,
            "files": [],
        })))
        .await;
        assert_eq!((error.code, error.reason), (code, reason), "{entity}");
    }
    let missing = refused(passport(json!({"entity": "entities/nobody", "files": []}))).await;
    assert_eq!(missing.field_violations[0].field, "document.entity");
}

#[tokio::test]
async fn bad_fields_are_reported_together() {
    let error = refused(passport(json!({
        "documentNumber": "L898-902",
        "issueDate": "2027-01-01",
        "expiryDate": "2019-01-01",
        "dateOfBirth": "1974-08",
        "mrz": ["x".repeat(45)],
        "files": ["entities/live-other/files/front", "entities/live-jane/files/a", "entities/live-jane/files/a"],
        "workspace": "cases/1",
    })))
    .await;
    assert_eq!(error.reason, "INVALID_FIELDS");
    let found: Vec<(&str, &str)> = error
        .field_violations
        .iter()
        .map(|v| (v.field.as_str(), v.reason))
        .collect();
    assert_eq!(
        found,
        vec![
            ("document.documentNumber", "INVALID_DOCUMENT_NUMBER"),
            ("document.dateOfBirth", "INVALID_DATE"),
            ("document.issueDate", "DATE_IN_FUTURE"),
            ("document.expiryDate", "EXPIRY_NOT_AFTER_ISSUE"),
            ("document.mrz[0]", "TOO_LONG"),
            ("document.workspace", "INVALID_NAME"),
            ("document.files[0]", "FILE_OF_ANOTHER_ENTITY"),
            ("document.files[2]", "DUPLICATE_FILE"),
        ]
    );
    let born_later = refused(passport(json!({"dateOfBirth": "2021-01-01"}))).await;
    assert_eq!(born_later.field_violations[0].reason, "BIRTH_AFTER_ISSUE");
    let unknown = refused(passport(json!({"issuingCountry": "ZZZ"}))).await;
    assert_eq!(unknown.field_violations[0].field, "document.issuingCountry");
    let not_a_file = refused(passport(json!({"files": ["files/front"]}))).await;
    assert_eq!(not_a_file.field_violations[0].reason, "INVALID_NAME");
    let four_lines = refused(passport(json!({"mrz": ["A", "B", "C", "D"]}))).await;
    assert_eq!(four_lines.field_violations[0].reason, "TOO_MANY_ITEMS");
    let required = refused(json!({"entity": "entities/live-jane"})).await;
    let fields: Vec<&str> = required
        .field_violations
        .iter()
        .map(|v| v.field.as_str())
        .collect();
    assert_eq!(
        fields,
        vec!["document.documentType", "document.documentNumber"]
    );
}

#[tokio::test]
async fn the_workspace_must_exist_and_be_live() {
    let missing = refused(passport(json!({"workspace": "workspaces/nowhere"}))).await;
    assert_eq!(
        (missing.code, missing.reason),
        (Code::NotFound, "WORKSPACE_NOT_FOUND")
    );
    let gone = refused(passport(json!({"workspace": "workspaces/gone-case"}))).await;
    assert_eq!(
        (gone.code, gone.reason),
        (Code::FailedPrecondition, "WORKSPACE_DELETED")
    );
}

#[tokio::test]
async fn named_files_must_exist_and_be_live_when_a_change_names_them() {
    let missing = refused(passport(
        json!({"files": ["entities/live-jane/files/missing"]}),
    ))
    .await;
    assert_eq!(
        (
            missing.code,
            missing.reason,
            missing.field_violations[0].field.as_str()
        ),
        (Code::NotFound, "FILE_NOT_FOUND", "document.files[0]")
    );
    let gone = refused(passport(
        json!({"files": ["entities/live-jane/files/gone-scan"]}),
    ))
    .await;
    assert_eq!(
        (gone.code, gone.reason),
        (Code::FailedPrecondition, "FILE_DELETED")
    );

    let mut documents = MockDocumentRepository::new();
    documents.expect_get().returning(|_, _| {
        Ok(Some(Document {
            files: vec!["entities/live-jane/files/gone-old".into()],
            ..stored("live-jane")
        }))
    });
    documents
        .expect_update()
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let service = service(documents);
    let kept = service
        .update(&principal(), "doc-1", json!({"givenName": "Janet"}), None)
        .await
        .unwrap();
    assert_eq!(
        kept.files,
        vec!["entities/live-jane/files/gone-old".to_owned()]
    );
    let added = service
        .update(
            &principal(),
            "doc-1",
            json!({"files": ["entities/live-jane/files/gone-old", "entities/live-jane/files/gone-new"]}),
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(
        added.reason, "FILE_DELETED",
        "only the name the change adds is checked"
    );
}

#[tokio::test]
async fn updates_keep_the_entity_and_need_it_live() {
    let mut documents = MockDocumentRepository::new();
    documents
        .expect_get()
        .returning(|_, _| Ok(Some(stored("live-jane"))));
    documents
        .expect_update()
        .withf(|_, document, revision, events| {
            document.document_type == DocumentType::NationalId
                && *revision == 1
                && events[0].event_type == "document.updated"
                && events[0].entity_id.as_deref() == Some("live-jane")
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let service = service(documents);
    let p = principal();
    let moved = service
        .update(&p, "doc-1", json!({"entity": "entities/live-bob"}), None)
        .await
        .unwrap_err();
    assert_eq!(
        (moved.reason, moved.field_violations[0].field.as_str()),
        ("IMMUTABLE_FIELD_CHANGED", "document.entity")
    );
    let same = service
        .update(&p, "doc-1", json!({"entity": "entities/live-jane"}), None)
        .await
        .unwrap();
    assert_eq!(
        same,
        stored("live-jane"),
        "nothing changed, nothing written"
    );
    let retyped = service
        .update(
            &p,
            "doc-1",
            json!({"documentType": "NATIONAL_ID", "documentNumber": "ab-12 3"}),
            None,
        )
        .await
        .unwrap();
    assert_eq!(retyped.document_number, "AB-12 3");
    assert_eq!(retyped.revision, 2);

    let mut documents = MockDocumentRepository::new();
    documents
        .expect_get()
        .returning(|_, _| Ok(Some(stored("gone-jane"))));
    let service = super::service_tests::service(documents);
    for error in [
        service
            .update(&p, "doc-1", json!({"givenName": "J"}), None)
            .await
            .unwrap_err(),
        service.delete(&p, "doc-1", None, false).await.unwrap_err(),
    ] {
        assert_eq!(
            (error.code, error.reason),
            (Code::FailedPrecondition, "ENTITY_DELETED")
        );
    }
}

#[tokio::test]
async fn an_entitys_list_needs_the_entity_live_and_filters_name_countries_as_input_does() {
    let mut documents = MockDocumentRepository::new();
    documents
        .expect_list()
        .withf(|_, entity, query| {
            let de = Condition::Compare {
                field: "issuingCountry",
                op: Comparator::Eq,
                value: Literal::String(StringMatch::Exact("DEU".into())),
            };
            *entity == Some("entities/live-jane")
                && match &query.condition {
                    Some(Condition::Or(parts)) => parts[0] == de,
                    _ => false,
                }
        })
        .times(1)
        .returning(|_, _, _| {
            Ok(Page {
                items: vec![stored("live-jane")],
                next: None,
                total_size: 1,
            })
        });
    let service = service(documents);
    let p = principal();
    let request = ListRequest {
        filter: Some("issuingCountry = \"de\" OR issuingCountry = \"D\"".into()),
        ..ListRequest::default()
    };
    let page = service
        .list_for_entity(&p, "live-jane", &request)
        .await
        .unwrap();
    assert_eq!(page.total_size, 1);
    for entity in ["gone-jane", "nobody"] {
        let error = service
            .list_for_entity(&p, entity, &request)
            .await
            .unwrap_err();
        assert_eq!(
            (error.code, error.reason),
            (Code::NotFound, "RESOURCE_NOT_FOUND")
        );
    }
}

#[tokio::test]
async fn delete_and_undelete_record_events_of_the_entity() {
    let mut documents = MockDocumentRepository::new();
    let mut deleted = stored("live-jane");
    deleted.delete_time = Some(now());
    deleted.purge_time = Some(now());
    let mut sequence = mockall::Sequence::new();
    documents
        .expect_get()
        .times(1)
        .in_sequence(&mut sequence)
        .returning(|_, _| Ok(Some(stored("live-jane"))));
    documents
        .expect_update()
        .withf(|_, document, _, events| {
            document.is_deleted() && events[0].event_type == "document.deleted"
        })
        .times(1)
        .in_sequence(&mut sequence)
        .returning(|_, _, _, _| Ok(()));
    documents
        .expect_get()
        .times(1)
        .in_sequence(&mut sequence)
        .returning(move |_, _| Ok(Some(deleted.clone())));
    documents
        .expect_update()
        .withf(|_, document, _, events| {
            !document.is_deleted()
                && events[0].event_type == "document.undeleted"
                && events[0].entity_id.as_deref() == Some("live-jane")
        })
        .times(1)
        .in_sequence(&mut sequence)
        .returning(|_, _, _, _| Ok(()));
    let service = service(documents);
    let p = principal();
    let gone = service.delete(&p, "doc-1", None, false).await.unwrap();
    assert!(gone.is_some_and(|d| d.purge_time == Some(now().plus(Duration::from_secs(86_400)))));
    let back = service.undelete(&p, "doc-1", None).await.unwrap();
    assert!(!back.is_deleted());
}

#[tokio::test]
async fn a_purge_records_an_event_of_the_entity_and_skips_what_is_gone() {
    let mut documents = MockDocumentRepository::new();
    documents.expect_find_purge_due().returning(|_, _| {
        Ok(vec![
            (TenantId::new("t1"), "doc-1".to_owned()),
            (TenantId::new("t1"), "vanished".to_owned()),
        ])
    });
    documents
        .expect_get()
        .returning(|_, id| Ok((id == "doc-1").then(|| stored("live-jane"))));
    documents
        .expect_purge()
        .withf(|_, id, _, events| {
            id == "doc-1"
                && events[0].event_type == "document.purged"
                && events[0].entity_id.as_deref() == Some("live-jane")
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    assert_eq!(
        service(documents)
            .purge_expired(&principal(), now(), 10)
            .await
            .unwrap(),
        1
    );
}

#[tokio::test]
async fn an_mrz_must_be_an_mrz_but_its_check_digits_are_judged_later() {
    let reasons = |error: crate::error::Error| -> Vec<(String, &'static str)> {
        error
            .field_violations
            .into_iter()
            .map(|v| (v.field, v.reason))
            .collect()
    };
    let short = refused(passport(json!({"mrz": [
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "L898902C36UTO7408122F1204159ZE184226B<<<<<1"
    ]})))
    .await;
    assert_eq!(
        reasons(short),
        [("document.mrz[1]".to_owned(), "MRZ_LINE_LENGTH")]
    );
    let lower = refused(passport(json!({"mrz": [
        "P<UTOEriksson<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "L898902C36UTO7408122F1204159ZE184226B<<<<<10"
    ]})))
    .await;
    let found = reasons(lower);
    assert_eq!(found, [("document.mrz[0]".to_owned(), "MRZ_LOWER_CASE")]);
    // A wrong check digit (the last one) is kept for the verification job to name.
    let mut documents = MockDocumentRepository::new();
    documents
        .expect_create()
        .times(1)
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    let created = service(documents)
        .create(
            &principal(),
            passport(json!({"mrz": [
                "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
                "L898902C36UTO7408122F1204159ZE184226B<<<<<19"
            ]})),
            None,
            None,
        )
        .await;
    assert!(created.is_ok(), "{created:?}");
}
