//! Unit tests of the entity service with mocked ports: repository, clock and ids.

use std::sync::Arc;
use std::time::Duration;

use mockall::predicate::{always, eq};
use serde_json::json;

use super::erasure::AfterErasure;
use super::model::{Entity, EntityType, VerificationStatus};
use super::relationship::RelationshipType;
use super::repository::{EraseGuard, MockEntityRepository};
use super::service::EntityService;
use crate::error::Code;
use crate::housekeeping::Purge;
use crate::id::MockIdGenerator;
use crate::lifecycle::ServiceContext;
use crate::lifecycle::SoftDeleteMethods;
use crate::list::Paging;
use crate::methods::CreateMethod;
use crate::methods::UpdateMethod;
use crate::principal::{Principal, TenantId};
use crate::repository::{CreateOutcome, RepositoryError};
use crate::time::{MockClock, Timestamp};

const RETENTION: Duration = Duration::from_secs(30 * 86_400);

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

fn clock() -> Arc<MockClock> {
    let mut clock = MockClock::new();
    clock.expect_now().returning(now);
    Arc::new(clock)
}

fn ids() -> Arc<MockIdGenerator> {
    let mut ids = MockIdGenerator::new();
    let mut n = 0;
    ids.expect_resource_id().returning(move || {
        n += 1;
        format!("id-{n}")
    });
    ids.expect_uid().returning(|| "uid-1".into());
    Arc::new(ids)
}

fn service(repository: MockEntityRepository) -> EntityService {
    let clock = clock();
    let paging = Arc::new(Paging::new(&[7; 32], clock.clone()).unwrap());
    EntityService::new(
        Arc::new(repository),
        ServiceContext {
            clock,
            ids: ids(),
            paging,
            retention: RETENTION,
        },
    )
}

fn body() -> serde_json::Value {
    json!({"displayName": "Jane Doe", "individual": {"legalName": {"givenName": "Jane", "familyName": "Doe"}}})
}

fn stored(id: &str) -> Entity {
    let mut entity: Entity = serde_json::from_value(body()).unwrap();
    entity.name = Entity::name_of(id);
    entity.uid = "uid-0".into();
    entity.entity_type = EntityType::Individual;
    entity.revision = 3;
    entity.etag = crate::resource::etag("uid-0", 3);
    entity.create_time = Some(now());
    entity.update_time = Some(now());
    entity
}

#[tokio::test]
async fn create_fills_server_fields_and_writes_its_event() {
    let mut repository = MockEntityRepository::new();
    repository
        .expect_create()
        .withf(|tenant, entity, key, events| {
            tenant.as_str() == "t1"
                && entity.name == "entities/id-1"
                && entity.uid == "uid-1"
                && entity.create_time == Some(now())
                && entity.verification_status == VerificationStatus::Unverified
                && key.is_none()
                && events.len() == 1
                && events[0].event_type == "entity.created"
                && events[0].entity_id.as_deref() == Some("id-1")
                && events[0].creator == "alice"
        })
        .times(1)
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    let entity = service(repository)
        .create(&principal(), body(), None, None)
        .await
        .unwrap();
    assert_eq!(entity.name, "entities/id-1");
    assert_eq!(entity.entity_type, EntityType::Individual);
    assert_eq!(entity.etag, crate::resource::etag("uid-1", 1));
}

#[tokio::test]
async fn create_uses_the_chosen_id_and_refuses_bad_ones_before_storage() {
    let mut repository = MockEntityRepository::new();
    repository
        .expect_create()
        .withf(|_, entity, _, _| entity.name == "entities/jane-doe")
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    let service = service(repository);
    assert_eq!(
        service
            .create(&principal(), body(), Some("jane-doe"), None)
            .await
            .unwrap()
            .name,
        "entities/jane-doe"
    );
    let error = service
        .create(&principal(), body(), Some("Bad_ID"), None)
        .await
        .unwrap_err();
    assert_eq!(
        (error.code, error.field_violations[0].field.as_str()),
        (Code::InvalidArgument, "entityId")
    );
}

#[tokio::test]
async fn a_taken_id_is_already_exists() {
    let mut repository = MockEntityRepository::new();
    repository
        .expect_create()
        .returning(|_, _, _, _| Err(RepositoryError::AlreadyExists));
    let error = service(repository)
        .create(&principal(), body(), Some("jane-doe"), None)
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::AlreadyExists);
}

#[tokio::test]
async fn a_replayed_request_id_returns_the_first_result_or_refuses_another_body() {
    let request_id = "123e4567-e89b-12d3-a456-426614174000";
    let mut first = MockEntityRepository::new();
    let fingerprint = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let seen = fingerprint.clone();
    first.expect_create().returning(move |_, _, key, _| {
        if let Some(key) = key {
            *seen.lock().unwrap() = key.fingerprint.clone();
        }
        Ok(CreateOutcome::Created)
    });
    service(first)
        .create(&principal(), body(), None, Some(request_id))
        .await
        .unwrap();
    let recorded = fingerprint.lock().unwrap().clone();

    let mut replay = MockEntityRepository::new();
    let same = recorded.clone();
    replay.expect_create().returning(move |_, _, _, _| {
        Ok(CreateOutcome::Replayed {
            method: "entities.create".into(),
            fingerprint: same.clone(),
            resource_name: "entities/first".into(),
        })
    });
    replay
        .expect_get()
        .with(always(), eq("first"))
        .returning(|_, _| Ok(Some(stored("first"))));
    let replayed = service(replay)
        .create(&principal(), body(), None, Some(request_id))
        .await
        .unwrap();
    assert_eq!(replayed.name, "entities/first");

    let mut reused = MockEntityRepository::new();
    reused.expect_create().returning(move |_, _, _, _| {
        Ok(CreateOutcome::Replayed {
            method: "entities.create".into(),
            fingerprint: recorded.clone(),
            resource_name: "entities/first".into(),
        })
    });
    let other_body = json!({"displayName": "Someone Else", "individual": {}});
    let error = service(reused)
        .create(&principal(), other_body, None, Some(request_id))
        .await
        .unwrap_err();
    assert_eq!(error.reason, "REQUEST_ID_REUSED");
}

#[tokio::test]
async fn update_checks_the_etag_before_writing() {
    let mut repository = MockEntityRepository::new();
    repository
        .expect_get()
        .returning(|_, id| Ok(Some(stored(id))));
    let error = service(repository)
        .update(
            &principal(),
            "e1",
            json!({"displayName": "X", "etag": "\"stale\""}),
            None,
        )
        .await
        .unwrap_err();
    assert_eq!((error.code, error.reason), (Code::Aborted, "ETAG_MISMATCH"));
}

#[tokio::test]
async fn update_writes_the_next_revision_with_an_event() {
    let mut repository = MockEntityRepository::new();
    repository
        .expect_get()
        .returning(|_, id| Ok(Some(stored(id))));
    repository
        .expect_update()
        .withf(|_, entity, expected, events| {
            *expected == 3
                && entity.revision == 4
                && entity.display_name == "Jane Smith"
                && events[0].event_type == "entity.updated"
                && events[0].payload["changes"]["displayName"]
                    == json!({"before": "Jane Doe", "after": "Jane Smith"})
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let updated = service(repository)
        .update(
            &principal(),
            "e1",
            json!({"displayName": "Jane Smith"}),
            Some("displayName"),
        )
        .await
        .unwrap();
    assert_eq!(updated.etag, crate::resource::etag("uid-0", 4));
}

#[tokio::test]
async fn update_without_a_change_writes_nothing() {
    let mut repository = MockEntityRepository::new();
    repository
        .expect_get()
        .returning(|_, id| Ok(Some(stored(id))));
    repository.expect_update().never();
    let same = service(repository)
        .update(&principal(), "e1", json!({"displayName": "Jane Doe"}), None)
        .await
        .unwrap();
    assert_eq!(same.revision, 3);
}

#[tokio::test]
async fn update_refuses_deleted_entities_and_immutable_changes() {
    let mut repository = MockEntityRepository::new();
    repository.expect_get().returning(|_, id| {
        let mut entity = stored(id);
        if id == "gone" {
            entity.delete_time = Some(now());
        }
        Ok(Some(entity))
    });
    repository.expect_update().never();
    let service = service(repository);
    let error = service
        .update(&principal(), "gone", json!({"displayName": "X"}), None)
        .await
        .unwrap_err();
    assert_eq!(
        (error.code, error.reason),
        (Code::FailedPrecondition, "RESOURCE_DELETED")
    );
    let error = service
        .update(&principal(), "e1", json!({"entityType": "COMPANY"}), None)
        .await
        .unwrap_err();
    assert_eq!(
        (error.code, error.reason),
        (Code::InvalidArgument, "IMMUTABLE_FIELD_CHANGED")
    );
}

#[tokio::test]
async fn a_concurrent_change_is_aborted() {
    let mut repository = MockEntityRepository::new();
    repository
        .expect_get()
        .returning(|_, id| Ok(Some(stored(id))));
    repository
        .expect_update()
        .returning(|_, _, _, _| Err(RepositoryError::Conflict));
    let error = service(repository)
        .update(&principal(), "e1", json!({"displayName": "Y"}), None)
        .await
        .unwrap_err();
    assert_eq!(
        (error.code, error.reason),
        (Code::Aborted, "CONCURRENT_MODIFICATION")
    );
}

#[tokio::test]
async fn delete_sets_the_purge_time_from_the_retention() {
    let mut repository = MockEntityRepository::new();
    repository
        .expect_get()
        .returning(|_, id| Ok(Some(stored(id))));
    repository
        .expect_update()
        .withf(|_, entity, _, events| {
            entity.delete_time == Some(now())
                && entity.purge_time == Some(now().plus(RETENTION))
                && events[0].event_type == "entity.deleted"
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let deleted = service(repository)
        .delete(&principal(), "e1", None, false)
        .await
        .unwrap();
    assert!(deleted.unwrap().is_deleted());
}

#[tokio::test]
async fn deleting_twice_is_not_found_unless_missing_is_allowed() {
    let mut repository = MockEntityRepository::new();
    repository.expect_get().returning(|_, id| {
        if id == "missing" {
            return Ok(None);
        }
        let mut entity = stored(id);
        entity.delete_time = Some(now());
        Ok(Some(entity))
    });
    repository.expect_update().never();
    let service = service(repository);
    assert_eq!(
        service
            .delete(&principal(), "e1", None, false)
            .await
            .unwrap_err()
            .code,
        Code::NotFound
    );
    assert!(
        service
            .delete(&principal(), "e1", None, true)
            .await
            .unwrap()
            .is_some()
    );
    assert!(
        service
            .delete(&principal(), "missing", None, true)
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn undeleting_a_live_entity_is_already_exists() {
    let mut repository = MockEntityRepository::new();
    repository
        .expect_get()
        .returning(|_, id| Ok(Some(stored(id))));
    let error = service(repository)
        .undelete(&principal(), "e1", None)
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::AlreadyExists);
}

#[tokio::test]
async fn legal_hold_blocks_hard_delete() {
    let mut repository = MockEntityRepository::new();
    repository.expect_get().returning(|_, id| {
        let mut entity = stored(id);
        entity.legal_hold = id == "held";
        Ok(Some(entity))
    });
    repository
        .expect_hard_delete()
        .withf(|_, id, due, events| {
            id == "e1"
                && *due == EraseGuard::Revision(3)
                && events[0].event_type == "entity.hard_deleted"
                && events[0].entity_id.is_none()
                && !events[0].payload.to_string().contains("e1")
                && events[0].payload["erasedUid"] == "uid-0"
        })
        .times(1)
        .returning(|_, _, _, _| Ok([("entities".to_string(), 1)].into_iter().collect()));
    let follow_up = Arc::new(Erased::default());
    let service = service(repository).with_after_erasure(follow_up.clone());
    let error = service.hard_delete(&principal(), "held").await.unwrap_err();
    assert_eq!(
        (error.code, error.reason),
        (Code::FailedPrecondition, "LEGAL_HOLD")
    );
    assert!(follow_up.0.lock().unwrap().is_empty(), "nothing was erased");
    let receipt = service.hard_delete(&principal(), "e1").await.unwrap();
    assert_eq!(receipt.erased_counts["entities"], 1);
    assert!(receipt.event.starts_with("events/"));
    assert_eq!(*follow_up.0.lock().unwrap(), vec![TenantId::new("t1")]);
}

/// Records the tenants of the erasures it follows.
#[derive(Default)]
struct Erased(std::sync::Mutex<Vec<TenantId>>);

#[async_trait::async_trait]
impl AfterErasure for Erased {
    async fn erased(&self, tenant: &TenantId) {
        self.0.lock().unwrap().push(tenant.clone());
    }
}

#[tokio::test]
async fn adding_a_present_tag_writes_nothing_and_conflicts_are_retried() {
    let mut repository = MockEntityRepository::new();
    repository.expect_get().returning(|_, id| {
        let mut entity = stored(id);
        entity.tags = vec!["vip".into()];
        Ok(Some(entity))
    });
    let mut attempts = 0;
    repository
        .expect_update()
        .times(2)
        .returning(move |_, _, _, _| {
            attempts += 1;
            if attempts == 1 {
                Err(RepositoryError::Conflict)
            } else {
                Ok(())
            }
        });
    let service = service(repository);
    assert_eq!(
        service
            .add_tag(&principal(), "e1", "vip")
            .await
            .unwrap()
            .revision,
        3
    );
    let tagged = service.add_tag(&principal(), "e1", "pep").await.unwrap();
    assert_eq!(tagged.tags, vec!["vip".to_string(), "pep".to_string()]);
    let error = service
        .add_tag(&principal(), "e1", "has space")
        .await
        .unwrap_err();
    assert_eq!(error.field_violations[0].field, "tag");
}

#[tokio::test]
async fn batch_get_keeps_order_and_duplicates_and_names_the_missing_one() {
    let mut repository = MockEntityRepository::new();
    repository.expect_get_many().returning(|_, ids| {
        Ok(ids
            .iter()
            .filter(|id| id.as_str() != "zz-missing")
            .map(|id| stored(id))
            .collect())
    });
    let service = service(repository);
    let names: Vec<String> = ["entities/b1", "entities/a1", "entities/b1"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let found = service.batch_get(&principal(), &names).await.unwrap();
    let order: Vec<&str> = found.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(order, vec!["entities/b1", "entities/a1", "entities/b1"]);
    let error = service
        .batch_get(
            &principal(),
            &["entities/a1".into(), "entities/zz-missing".into()],
        )
        .await
        .unwrap_err();
    assert_eq!(
        (error.code, error.metadata["resource"].as_str()),
        (Code::NotFound, "entities/zz-missing")
    );
    assert_eq!(
        service.batch_get(&principal(), &[]).await.unwrap_err().code,
        Code::InvalidArgument
    );
    let error = service
        .batch_get(&principal(), &["people/x".into()])
        .await
        .unwrap_err();
    assert_eq!(error.field_violations[0].field, "names[0]");
}

#[tokio::test]
async fn relationships_need_two_distinct_live_entities() {
    let mut repository = MockEntityRepository::new();
    repository.expect_get().returning(|_, id| {
        let mut entity = stored(id);
        if id == "gone" {
            entity.delete_time = Some(now());
        }
        Ok(if id == "nobody" { None } else { Some(entity) })
    });
    repository
        .expect_add_relationship()
        .withf(|_, record, events| {
            record.entity_id == "acme" && record.related_entity_id == "jane" && events.len() == 2
        })
        .times(1)
        .returning(|_, _, _| Ok(()));
    let service = service(repository);
    let add = |related: &str| json!({"relatedEntity": format!("entities/{related}"), "relationshipType": "DIRECTOR"});
    let view = service
        .add_relationship(&principal(), "acme", add("jane"))
        .await
        .unwrap();
    assert_eq!(view.relationship_type, RelationshipType::Director);
    assert_eq!(view.role_holder, "entities/jane");
    let error = service
        .add_relationship(&principal(), "acme", add("acme"))
        .await
        .unwrap_err();
    assert_eq!(error.reason, "SELF_RELATIONSHIP");
    let error = service
        .add_relationship(&principal(), "acme", add("gone"))
        .await
        .unwrap_err();
    assert_eq!(
        (error.code, error.reason),
        (Code::FailedPrecondition, "RELATED_ENTITY_DELETED")
    );
    let error = service
        .add_relationship(&principal(), "acme", add("nobody"))
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::NotFound);
    let untyped = json!({"relatedEntity": "entities/jane"});
    let error = service
        .add_relationship(&principal(), "acme", untyped)
        .await
        .unwrap_err();
    assert_eq!(error.field_violations[0].field, "relationshipType");
}

#[tokio::test]
async fn purge_removes_only_what_is_due() {
    let mut repository = MockEntityRepository::new();
    repository
        .expect_find_purge_due()
        .with(eq(now()), eq(10))
        .returning(|_, _| {
            Ok(vec![
                (TenantId::new("t1"), "old".into()),
                (TenantId::new("t2"), "undeleted".into()),
            ])
        });
    repository
        .expect_hard_delete()
        .withf(|_, _, due, events| {
            *due == EraseGuard::PurgeDue(now()) && events[0].event_type == "entity.purged"
        })
        .times(2)
        .returning(|_, id, _, _| {
            if id == "old" {
                Ok(Default::default())
            } else {
                Err(RepositoryError::NotFound)
            }
        });
    let follow_up = Arc::new(Erased::default());
    assert_eq!(
        service(repository)
            .with_after_erasure(follow_up.clone())
            .purge_expired(&principal(), now(), 10)
            .await
            .unwrap(),
        1
    );
    assert_eq!(*follow_up.0.lock().unwrap(), vec![TenantId::new("t1")]);
}

#[tokio::test]
async fn batch_create_stores_every_entity_as_create_fills_it_in_one_call() {
    let mut repository = MockEntityRepository::new();
    repository
        .expect_create_many()
        .withf(|tenant, entities, key, events| {
            let names: Vec<&str> = entities.iter().map(|e| e.name.as_str()).collect();
            tenant.as_str() == "t1"
                && names == ["entities/jane-doe", "entities/id-2"]
                && entities
                    .iter()
                    .all(|e| e.verification_status == VerificationStatus::Unverified)
                && key.is_some_and(|k| {
                    k.method == "entities.batchCreate"
                        && k.resource_name == "entities/jane-doe,entities/id-2"
                })
                && events.len() == 2
                && events.iter().all(|e| e.event_type == "entity.created")
                && events[1].entity_id.as_deref() == Some("id-2")
        })
        .times(1)
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    let service = service(repository);
    let request =
        json!({"requests": [{"entity": body(), "entityId": "jane-doe"}, {"entity": body()}]});
    let created = service
        .batch_create(
            &principal(),
            request,
            Some("0192a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"),
        )
        .await
        .unwrap();
    assert_eq!(created.len(), 2);
    assert_eq!(created[0].name, "entities/jane-doe");
}

#[tokio::test]
async fn batch_create_names_the_request_that_fails_and_stores_nothing() {
    let service = service(MockEntityRepository::new());
    let mut bad = body();
    bad["displayName"] = json!("");
    let request = json!({"requests": [{"entity": body()}, {"entity": bad}]});
    let error = service
        .batch_create(&principal(), request, None)
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::InvalidArgument);
    assert!(
        error.field_violations[0]
            .field
            .starts_with("requests[1].entity."),
        "{error:?}"
    );
    let twice = json!({"requests": [{"entity": body(), "entityId": "jane-doe"}, {"entity": body(), "entityId": "jane-doe"}]});
    let error = service
        .batch_create(&principal(), twice, None)
        .await
        .unwrap_err();
    assert_eq!(error.field_violations[0].field, "requests[1].entityId");
}

#[tokio::test]
async fn batch_create_names_the_request_whose_id_is_taken() {
    let mut repository = MockEntityRepository::new();
    repository
        .expect_create_many()
        .returning(|_, _, _, _| Err(RepositoryError::AlreadyExists));
    repository
        .expect_get_many()
        .returning(|_, _| Ok(vec![stored("taken")]));
    let service = service(repository);
    let request = json!({"requests": [{"entity": body(), "entityId": "fresh"}, {"entity": body(), "entityId": "taken"}]});
    let error = service
        .batch_create(&principal(), request, None)
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::AlreadyExists);
    assert_eq!(error.metadata["field"], "requests[1]");
    assert_eq!(error.metadata["resource"], "entities/taken");
}
