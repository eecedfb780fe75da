//! Unit tests of the activity log type service with mocked ports: repository, clock
//! and ids.

use std::sync::Arc;
use std::time::Duration;

use mockall::predicate::{always, eq};
use serde_json::json;

use super::model::{ActivityLogType, ActivityType};
use super::ports::MockActivityLogTypeRepository;
use super::type_service::ActivityLogTypeService;
use crate::error::Code;
use crate::housekeeping::Purge;
use crate::id::MockIdGenerator;
use crate::lifecycle::ServiceContext;
use crate::lifecycle::SoftDeleteMethods;
use crate::list::{ListRequest, Page, Paging};
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

fn service(repository: MockActivityLogTypeRepository) -> ActivityLogTypeService {
    let mut clock = MockClock::new();
    clock.expect_now().returning(now);
    let clock = Arc::new(clock);
    let paging = Arc::new(Paging::new(&[7; 32], clock.clone()).unwrap());
    ActivityLogTypeService::new(
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
    json!({
        "displayName": "Customer Interaction",
        "activityType": "CUSTOM",
        "payloadSchema": {"type": "object", "required": ["channel"]}
    })
}

fn stored(id: &str) -> ActivityLogType {
    let mut log_type: ActivityLogType = serde_json::from_value(body()).unwrap();
    log_type.name = ActivityLogType::name_of(id);
    log_type.uid = "uid-0".into();
    log_type.revision = 3;
    log_type.etag = crate::resource::etag("uid-0", 3);
    log_type.create_time = Some(now());
    log_type.update_time = Some(now());
    log_type
}

#[tokio::test]
async fn create_fills_server_fields_and_writes_a_tenant_level_event() {
    let mut repository = MockActivityLogTypeRepository::new();
    repository
        .expect_create()
        .withf(|tenant, log_type, key, events| {
            tenant.as_str() == "t1"
                && log_type.name == "activityLogTypes/interaction"
                && log_type.uid == "uid-1"
                && log_type.revision == 1
                && log_type.create_time == Some(now())
                && key.is_none()
                && events.len() == 1
                && events[0].event_type == "activity_log_type.created"
                && events[0].entity_id.is_none()
                && events[0].payload["resource"] == "activityLogTypes/interaction"
                && events[0].payload["changes"]["displayName"]
                    == json!({"after": "Customer Interaction"})
        })
        .times(1)
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    let created = service(repository)
        .create(&principal(), body(), Some("interaction"), None)
        .await
        .unwrap();
    assert_eq!(created.activity_type, ActivityType::Custom);
    assert_eq!(created.etag, crate::resource::etag("uid-1", 1));
}

#[tokio::test]
async fn bad_ids_bodies_and_schemas_are_refused_before_storage() {
    let mut repository = MockActivityLogTypeRepository::new();
    repository.expect_create().never();
    let service = service(repository);
    for id in ["abc", &"a".repeat(64), "Capital"] {
        let error = service
            .create(&principal(), body(), Some(id), None)
            .await
            .unwrap_err();
        assert_eq!(
            (error.code, error.field_violations[0].field.as_str()),
            (Code::InvalidArgument, "activityLogTypeId"),
            "{id}"
        );
    }
    let error = service
        .create(&principal(), json!({"displayName": "  "}), None, None)
        .await
        .unwrap_err();
    assert_eq!(
        error.field_violations[0].field,
        "activityLogType.displayName"
    );
    let error = service
        .create(
            &principal(),
            json!({"displayName": "A", "payloadSchema": {"type": "nothing"}}),
            None,
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(
        (
            error.field_violations[0].field.as_str(),
            error.field_violations[0].reason
        ),
        ("activityLogType.payloadSchema", "INVALID_PAYLOAD_SCHEMA")
    );
    let error = service
        .create(
            &principal(),
            json!({"displayName": "A", "description": "x".repeat(2001)}),
            None,
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(error.field_violations[0].reason, "TOO_LONG");
}

#[tokio::test]
async fn a_taken_id_is_already_exists_and_an_empty_schema_is_none() {
    let mut repository = MockActivityLogTypeRepository::new();
    repository
        .expect_create()
        .withf(|_, log_type, _, _| log_type.payload_schema.is_none())
        .returning(|_, _, _, _| Err(RepositoryError::AlreadyExists));
    let error = service(repository)
        .create(
            &principal(),
            json!({"displayName": "A", "payloadSchema": {}}),
            Some("taken"),
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::AlreadyExists);
}

#[tokio::test]
async fn a_replayed_request_id_returns_the_first_type() {
    let mut repository = MockActivityLogTypeRepository::new();
    repository.expect_create().returning(|_, _, key, _| {
        let key = key.unwrap();
        Ok(CreateOutcome::Replayed {
            method: key.method.into(),
            fingerprint: key.fingerprint.clone(),
            resource_name: "activityLogTypes/first".into(),
        })
    });
    repository
        .expect_get()
        .with(always(), eq("first"))
        .returning(|_, id| Ok(Some(stored(id))));
    let replayed = service(repository)
        .create(
            &principal(),
            body(),
            None,
            Some("123e4567-e89b-12d3-a456-426614174000"),
        )
        .await
        .unwrap();
    assert_eq!(replayed.name, "activityLogTypes/first");
}

#[tokio::test]
async fn update_follows_the_mask_and_checks_the_etag() {
    let mut repository = MockActivityLogTypeRepository::new();
    repository
        .expect_get()
        .returning(|_, id| Ok(Some(stored(id))));
    repository
        .expect_update()
        .withf(|_, log_type, expected, events| {
            *expected == 3
                && log_type.revision == 4
                && log_type.display_name == "Renamed"
                && log_type.payload_schema.is_none()
                && events[0].event_type == "activity_log_type.updated"
                && events[0].payload["changes"]["displayName"]
                    == json!({"before": "Customer Interaction", "after": "Renamed"})
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let service = service(repository);
    let updated = service
        .update(
            &principal(),
            "t-1",
            json!({"displayName": "Renamed"}),
            Some("displayName,payloadSchema"),
        )
        .await
        .unwrap();
    assert_eq!(updated.etag, crate::resource::etag("uid-0", 4));
    let stale = service
        .update(
            &principal(),
            "t-1",
            json!({"displayName": "X", "etag": "\"stale\""}),
            None,
        )
        .await
        .unwrap_err();
    assert_eq!((stale.code, stale.reason), (Code::Aborted, "ETAG_MISMATCH"));
    let unknown = service
        .update(&principal(), "t-1", json!({}), Some("colour"))
        .await
        .unwrap_err();
    assert_eq!(unknown.field_violations[0].field, "updateMask");
}

#[tokio::test]
async fn update_without_a_change_writes_nothing_and_deleted_types_are_refused() {
    let mut repository = MockActivityLogTypeRepository::new();
    repository.expect_get().returning(|_, id| {
        let mut log_type = stored(id);
        if id == "gone" {
            log_type.delete_time = Some(now());
        }
        Ok(Some(log_type))
    });
    repository.expect_update().never();
    let service = service(repository);
    let same = service
        .update(
            &principal(),
            "t-1",
            json!({"displayName": "Customer Interaction"}),
            None,
        )
        .await
        .unwrap();
    assert_eq!(same.revision, 3);
    let error = service
        .update(&principal(), "gone", json!({"displayName": "X"}), None)
        .await
        .unwrap_err();
    assert_eq!(
        (error.code, error.reason),
        (Code::FailedPrecondition, "RESOURCE_DELETED")
    );
}

#[tokio::test]
async fn delete_and_undelete_follow_the_soft_delete_lifecycle() {
    let mut repository = MockActivityLogTypeRepository::new();
    repository.expect_get().returning(|_, id| {
        let mut log_type = stored(id);
        if id == "gone" {
            log_type.delete_time = Some(now());
            log_type.purge_time = Some(now().plus(RETENTION));
        }
        Ok(if id == "missing" {
            None
        } else {
            Some(log_type)
        })
    });
    repository
        .expect_update()
        .withf(|_, log_type, _, events| {
            events.len() == 1
                && events[0].entity_id.is_none()
                && match events[0].event_type.as_str() {
                    "activity_log_type.deleted" => {
                        log_type.purge_time == Some(now().plus(RETENTION))
                    }
                    "activity_log_type.undeleted" => log_type.delete_time.is_none(),
                    _ => false,
                }
        })
        .times(2)
        .returning(|_, _, _, _| Ok(()));
    let service = service(repository);
    let removed = service
        .delete(&principal(), "live", None, false)
        .await
        .unwrap()
        .unwrap();
    assert!(removed.is_deleted());
    assert_eq!(
        service
            .delete(&principal(), "gone", None, false)
            .await
            .unwrap_err()
            .code,
        Code::NotFound
    );
    assert!(
        service
            .delete(&principal(), "missing", None, true)
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(
        service
            .undelete(&principal(), "live", None)
            .await
            .unwrap_err()
            .code,
        Code::AlreadyExists
    );
    let restored = service.undelete(&principal(), "gone", None).await.unwrap();
    assert!(!restored.is_deleted());
}

#[tokio::test]
async fn lists_pass_the_checked_query_and_refuse_bad_parameters() {
    let mut repository = MockActivityLogTypeRepository::new();
    repository
        .expect_list()
        .withf(|_, parent, query| parent.is_none() && query.limit == 1000 && query.rank.is_some())
        .times(1)
        .returning(|_, _, _| {
            Ok(Page {
                items: vec![stored("t-1")],
                next: None,
                total_size: 1,
            })
        });
    let service = service(repository);
    let page = service
        .list(
            &principal(),
            &ListRequest {
                page_size: Some(5000),
                filter: Some("displayName:\"custmer interaction\"".into()),
                ..ListRequest::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(page.items.len(), 1);
    let error = service
        .list(
            &principal(),
            &ListRequest {
                order_by: Some("activityType".into()),
                ..ListRequest::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(error.field_violations[0].field, "orderBy");
}

#[tokio::test]
async fn purge_removes_only_what_is_still_due() {
    let mut repository = MockActivityLogTypeRepository::new();
    repository
        .expect_find_purge_due()
        .with(eq(now()), eq(10))
        .returning(|_, _| {
            Ok(vec![
                (TenantId::new("t1"), "old".into()),
                (TenantId::new("t2"), "undeleted".into()),
                (TenantId::new("t2"), "erased".into()),
            ])
        });
    repository
        .expect_get()
        .times(3)
        .returning(|_, id| Ok((id != "erased").then(|| stored(id))));
    repository
        .expect_purge()
        .withf(|_, _, at, events| {
            *at == now() && events[0].event_type == "activity_log_type.purged"
        })
        .times(2)
        .returning(|_, id, _, _| {
            if id == "old" {
                Ok(())
            } else {
                Err(RepositoryError::NotFound)
            }
        });
    assert_eq!(
        service(repository)
            .purge_expired(&principal(), now(), 10)
            .await
            .unwrap(),
        1
    );
}
