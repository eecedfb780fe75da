//! Unit tests of the activity log service with mocked ports: logs, types, entities,
//! clock and ids.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::log_service::{ActivityLogPorts, ActivityLogService};
use super::model::{ActivityLog, ActivityLogType, ActivityType};
use super::ports::{MockActivityLogRepository, MockActivityLogTypeRepository};
use crate::entity::model::Entity;
use crate::entity::repository::{MockEntityRepository, Presence};
use crate::error::Code;
use crate::housekeeping::Purge;
use crate::id::MockIdGenerator;
use crate::lifecycle::ServiceContext;
use crate::lifecycle::SoftDeleteMethods;
use crate::list::{ListRequest, Page, Paging};
use crate::methods::CreateMethod;
use crate::principal::{Principal, TenantId};
use crate::repository::{CreateOutcome, RepositoryError};
use crate::time::{MockClock, Timestamp};
use crate::workspace::model::Workspace;
use crate::workspace::ports::MockWorkspaceRepository;

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

/// Entities `jane` and `acme` are live, `gone` is deleted, any other is missing.
fn entities() -> MockEntityRepository {
    let mut entities = MockEntityRepository::new();
    let known = |id: &str| {
        let live = ["jane", "acme", "gone"].contains(&id);
        live.then(|| Entity {
            name: Entity::name_of(id),
            display_name: id.to_owned(),
            delete_time: (id == "gone").then(now),
            ..Entity::default()
        })
    };
    entities.expect_presence().returning(move |_, ids| {
        Ok(ids
            .iter()
            .filter_map(|id| known(id))
            .map(|e| Presence {
                id: e.id().to_owned(),
                deleted: e.is_deleted(),
            })
            .collect())
    });
    entities.expect_get().returning(move |_, id| Ok(known(id)));
    entities
}

/// Types: `screening` (PEP_AND_SANCTIONS, payload needs a numeric `score`), `free`
/// (no activity type, no schema) and `retired` (deleted).
fn types() -> MockActivityLogTypeRepository {
    let mut types = MockActivityLogTypeRepository::new();
    types.expect_get().returning(|_, id| {
        let mut log_type = ActivityLogType {
            name: ActivityLogType::name_of(id),
            display_name: id.to_owned(),
            ..ActivityLogType::default()
        };
        match id {
            "screening" => {
                log_type.activity_type = ActivityType::PepAndSanctions;
                log_type.payload_schema = json!({
                    "type": "object",
                    "required": ["score"],
                    "properties": {"score": {"type": "number"}}
                })
                .as_object()
                .cloned();
            }
            "free" => {}
            "retired" => log_type.delete_time = Some(now()),
            _ => return Ok(None),
        }
        Ok(Some(log_type))
    });
    types
}

/// The workspace `case` exists; `gone-case` is soft-deleted; others do not exist.
fn workspaces() -> MockWorkspaceRepository {
    let mut workspaces = MockWorkspaceRepository::new();
    workspaces.expect_get().returning(|_, id| {
        Ok(matches!(id, "case" | "gone-case").then(|| Workspace {
            name: Workspace::name_of(id),
            delete_time: (id == "gone-case").then(now),
            ..Workspace::default()
        }))
    });
    workspaces
}

fn service_with(logs: MockActivityLogRepository) -> ActivityLogService {
    let mut clock = MockClock::new();
    clock.expect_now().returning(now);
    let clock = Arc::new(clock);
    let paging = Arc::new(Paging::new(&[7; 32], clock.clone()).unwrap());
    ActivityLogService::new(
        ActivityLogPorts {
            logs: Arc::new(logs),
            types: Arc::new(types()),
            entities: Arc::new(entities()),
            workspaces: Arc::new(workspaces()),
        },
        ServiceContext {
            clock,
            ids: ids(),
            paging,
            retention: RETENTION,
        },
    )
}

/// A service whose log repository must not be written to.
fn read_only() -> ActivityLogService {
    let mut logs = MockActivityLogRepository::new();
    logs.expect_create().never();
    logs.expect_update_lifecycle().never();
    service_with(logs)
}

fn stored(id: &str) -> ActivityLog {
    ActivityLog {
        name: ActivityLog::name_of(id),
        uid: "uid-0".into(),
        activity_type: ActivityType::Custom,
        source: "CUSTOMER".into(),
        entity_names: vec!["entities/jane".into(), "entities/acme".into()],
        occur_time: Some(now()),
        create_time: Some(now()),
        etag: crate::resource::etag("uid-0", 1),
        revision: 1,
        ..ActivityLog::default()
    }
}

async fn refused(body: Value) -> crate::Error {
    read_only()
        .create(&principal(), body, None, None)
        .await
        .unwrap_err()
}

#[tokio::test]
async fn create_defaults_the_source_and_occur_time_and_writes_one_event_per_entity() {
    let mut logs = MockActivityLogRepository::new();
    logs.expect_create()
        .withf(|tenant, log, key, events| {
            let scopes: Vec<_> = events.iter().map(|e| e.entity_id.as_deref()).collect();
            tenant.as_str() == "t1"
                && log.name == "activityLogs/call-1"
                && log.source == "CUSTOMER"
                && log.occur_time == Some(now())
                && log.create_time == Some(now())
                && log.entity_names == ["entities/jane", "entities/acme"]
                && key.is_none()
                && scopes == [Some("jane"), Some("acme")]
                && events.iter().all(|e| {
                    e.event_type == "activity_log.created"
                        && e.payload["resource"] == "activityLogs/call-1"
                        && e.payload["changes"]["type"] == json!({"after": "CUSTOM"})
                })
        })
        .times(1)
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    let log = service_with(logs)
        .create(
            &principal(),
            json!({"type": "CUSTOM", "entityNames": ["entities/jane", "entities/acme", "entities/jane"]}),
            Some("call-1"),
            None,
        )
        .await
        .unwrap();
    assert_eq!(log.etag, crate::resource::etag("uid-1", 1));
    assert_eq!(log.entity_names.len(), 2, "the repeated name is kept once");
}

#[tokio::test]
async fn the_type_comes_from_the_activity_log_type_and_must_agree_with_it() {
    let mut logs = MockActivityLogRepository::new();
    logs.expect_create()
        .withf(|_, log, _, _| log.activity_type == ActivityType::PepAndSanctions)
        .times(1)
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    let service = service_with(logs);
    let body = |extra: Value| {
        let mut body = json!({"activityLogType": "activityLogTypes/screening", "entityNames": ["entities/jane"], "payload": {"score": 0.9}});
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        body
    };
    service
        .create(&principal(), body(json!({})), None, None)
        .await
        .unwrap();
    let error = service
        .create(&principal(), body(json!({"type": "CUSTOM"})), None, None)
        .await
        .unwrap_err();
    assert_eq!(
        (error.reason, error.field_violations[0].field.as_str()),
        ("ACTIVITY_TYPE_MISMATCH", "activityLog.type")
    );
    let error = refused(
        json!({"activityLogType": "activityLogTypes/free", "entityNames": ["entities/jane"]}),
    )
    .await;
    assert_eq!(
        (error.reason, error.field_violations[0].field.as_str()),
        ("REQUIRED", "activityLog.type")
    );
}

#[tokio::test]
async fn a_payload_that_breaks_the_schema_gets_one_violation_per_fault() {
    let error = refused(json!({
        "activityLogType": "activityLogTypes/screening",
        "entityNames": ["entities/jane"],
        "payload": {"score": "high", "note": "x"}
    }))
    .await;
    assert_eq!(
        (error.code, error.reason),
        (Code::InvalidArgument, "PAYLOAD_SCHEMA_VIOLATION")
    );
    let fields: Vec<&str> = error
        .field_violations
        .iter()
        .map(|v| v.field.as_str())
        .collect();
    assert_eq!(fields, ["activityLog.payload.score"]);
    assert!(error.field_violations[0].description.contains("number"));
    let missing = refused(json!({
        "activityLogType": "activityLogTypes/screening",
        "entityNames": ["entities/jane"]
    }))
    .await;
    assert_eq!(missing.field_violations[0].field, "activityLog.payload");
}

#[tokio::test]
async fn missing_and_deleted_references_are_named() {
    let error =
        refused(json!({"type": "CUSTOM", "entityNames": ["entities/jane", "entities/nobody"]}))
            .await;
    assert_eq!(
        (error.code, error.metadata["resource"].as_str()),
        (Code::NotFound, "entities/nobody")
    );
    assert_eq!(error.metadata["field"], "activityLog.entityNames[1]");
    let error = refused(json!({"type": "CUSTOM", "entityNames": ["entities/gone"]})).await;
    assert_eq!(
        (error.code, error.metadata["resource"].as_str()),
        (Code::FailedPrecondition, "entities/gone")
    );
    let error = refused(json!({"activityLogType": "activityLogTypes/nothing", "type": "CUSTOM", "entityNames": ["entities/jane"]})).await;
    assert_eq!(
        (error.code, error.metadata["resource"].as_str()),
        (Code::NotFound, "activityLogTypes/nothing")
    );
    let error = refused(json!({"activityLogType": "activityLogTypes/retired", "type": "CUSTOM", "entityNames": ["entities/jane"]})).await;
    assert_eq!(error.code, Code::FailedPrecondition);
}

#[tokio::test]
async fn bad_fields_are_refused_together_before_any_lookup() {
    let error = refused(json!({
        "type": "CUSTOM",
        "source": "rics",
        "entityNames": ["people/x"],
        "workspace": "cases/1",
        "activityLogType": "types/x",
        "description": "x".repeat(2001)
    }))
    .await;
    let fields: Vec<&str> = error
        .field_violations
        .iter()
        .map(|v| v.field.as_str())
        .collect();
    assert_eq!(
        fields,
        [
            "activityLog.source",
            "activityLog.description",
            "activityLog.entityNames[0]",
            "activityLog.activityLogType",
            "activityLog.workspace"
        ]
    );
    let none = refused(json!({"type": "CUSTOM"})).await;
    assert_eq!(none.field_violations[0].field, "activityLog.entityNames");
    let names: Vec<String> = (0..101).map(|i| format!("entities/e{i:03}")).collect();
    let many = refused(json!({"type": "CUSTOM", "entityNames": names})).await;
    assert_eq!(many.field_violations[0].reason, "TOO_MANY_ITEMS");
    let untyped = refused(json!({"entityNames": ["entities/jane"]})).await;
    assert_eq!(untyped.field_violations[0].field, "activityLog.type");
    for id in ["abc", "Capital", &"a".repeat(64)] {
        let error = read_only()
            .create(
                &principal(),
                json!({"type": "CUSTOM", "entityNames": ["entities/jane"]}),
                Some(id),
                None,
            )
            .await
            .unwrap_err();
        assert_eq!(error.field_violations[0].field, "activityLogId", "{id}");
    }
}

#[tokio::test]
async fn an_entity_erased_while_writing_is_not_found() {
    let mut logs = MockActivityLogRepository::new();
    logs.expect_create()
        .returning(|_, _, _, _| Err(RepositoryError::NotFound));
    let error = service_with(logs)
        .create(
            &principal(),
            json!({"type": "CUSTOM", "entityNames": ["entities/jane"]}),
            None,
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(
        (error.code, error.reason),
        (Code::NotFound, "ENTITY_NOT_FOUND")
    );
}

#[tokio::test]
async fn delete_and_undelete_write_one_event_per_entity() {
    let mut logs = MockActivityLogRepository::new();
    logs.expect_get().returning(|_, id| {
        let mut log = stored(id);
        if id == "gone" {
            log.delete_time = Some(now());
        }
        Ok(Some(log))
    });
    logs.expect_update_lifecycle()
        .withf(|_, log, expected, events| {
            *expected == 1
                && log.revision == 2
                && events.len() == 2
                && match events[0].event_type.as_str() {
                    "activity_log.deleted" => log.purge_time == Some(now().plus(RETENTION)),
                    "activity_log.undeleted" => log.delete_time.is_none(),
                    _ => false,
                }
        })
        .times(2)
        .returning(|_, _, _, _| Ok(()));
    let service = service_with(logs);
    let removed = service
        .delete(&principal(), "live", None, false)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(removed.etag, crate::resource::etag("uid-0", 2));
    assert_eq!(
        service
            .delete(&principal(), "gone", None, false)
            .await
            .unwrap_err()
            .code,
        Code::NotFound
    );
    assert_eq!(
        service
            .delete(&principal(), "live", Some("\"stale\""), false)
            .await
            .unwrap_err()
            .code,
        Code::Aborted
    );
    assert_eq!(
        service
            .undelete(&principal(), "live", None)
            .await
            .unwrap_err()
            .code,
        Code::AlreadyExists
    );
    service.undelete(&principal(), "gone", None).await.unwrap();
}

#[tokio::test]
async fn batch_get_keeps_order_and_names_the_first_missing_log() {
    let mut logs = MockActivityLogRepository::new();
    logs.expect_get_many().returning(|_, ids| {
        Ok(ids
            .iter()
            .filter(|id| !id.starts_with("missing"))
            .map(|id| stored(id))
            .collect())
    });
    let service = service_with(logs);
    let names = |list: &[&str]| {
        list.iter()
            .map(|n| format!("activityLogs/{n}"))
            .collect::<Vec<_>>()
    };
    let found = service
        .batch_get(&principal(), &names(&["b-1", "a-1", "b-1"]))
        .await
        .unwrap();
    let order: Vec<&str> = found.iter().map(|l| l.id()).collect();
    assert_eq!(order, ["b-1", "a-1", "b-1"]);
    let error = service
        .batch_get(&principal(), &names(&["a-1", "missing-2", "missing-1"]))
        .await
        .unwrap_err();
    assert_eq!(error.metadata["resource"], "activityLogs/missing-2");
    let error = service
        .batch_get(
            &principal(),
            &["activityLogs/a-1".into(), "entities/x".into()],
        )
        .await
        .unwrap_err();
    assert_eq!(error.field_violations[0].field, "names[1]");
    assert_eq!(
        service.batch_get(&principal(), &[]).await.unwrap_err().code,
        Code::InvalidArgument
    );
}

#[tokio::test]
async fn an_entity_list_needs_the_entity_and_defaults_to_newest_activity_first() {
    let mut logs = MockActivityLogRepository::new();
    logs.expect_list_for_entity()
        .withf(|_, entity_id, query| {
            entity_id == "jane"
                && query.limit == 1000
                && query.order.len() == 1
                && query.order[0].descending
                && query.order[0].by == crate::list::SortBy::Field("occurTime")
        })
        .times(1)
        .returning(|_, _, _| {
            Ok(Page {
                items: vec![stored("a-1")],
                next: None,
                total_size: 1,
            })
        });
    let service = service_with(logs);
    let request = ListRequest {
        page_size: Some(5000),
        ..ListRequest::default()
    };
    let page = service
        .list_for_entity(&principal(), "jane", &request)
        .await
        .unwrap();
    assert_eq!(page.total_size, 1);
    assert_eq!(
        service
            .list_for_entity(&principal(), "nobody", &request)
            .await
            .unwrap_err()
            .code,
        Code::NotFound
    );
}

#[tokio::test]
async fn purge_writes_a_tenant_level_event() {
    let mut logs = MockActivityLogRepository::new();
    logs.expect_find_purge_due()
        .returning(|_, _| Ok(vec![(TenantId::new("t2"), "old".into())]));
    logs.expect_purge()
        .withf(|tenant, id, _, events| {
            tenant.as_str() == "t2"
                && id == "old"
                && events[0].event_type == "activity_log.purged"
                && events[0].entity_id.is_none()
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    assert_eq!(
        service_with(logs)
            .purge_expired(&principal(), now(), 100)
            .await
            .unwrap(),
        1
    );
}

#[tokio::test]
async fn the_workspace_must_exist_and_be_live() {
    let missing = refused(json!({"type": "CUSTOM", "entityNames": ["entities/jane"], "workspace": "workspaces/nowhere"})).await;
    assert_eq!(
        (missing.code, missing.reason),
        (Code::NotFound, "WORKSPACE_NOT_FOUND")
    );
    assert_eq!(missing.field_violations[0].field, "activityLog.workspace");
    let deleted = refused(json!({"type": "CUSTOM", "entityNames": ["entities/jane"], "workspace": "workspaces/gone-case"})).await;
    assert_eq!(
        (deleted.code, deleted.reason),
        (Code::FailedPrecondition, "WORKSPACE_DELETED")
    );
    let mut logs = MockActivityLogRepository::new();
    logs.expect_create()
        .withf(|_, log, _, _| log.workspace == "workspaces/case")
        .times(1)
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    service_with(logs)
        .create(
            &principal(),
            json!({"type": "CUSTOM", "entityNames": ["entities/jane"], "workspace": "workspaces/case"}),
            None,
            None,
        )
        .await
        .unwrap();
}

#[tokio::test]
async fn a_job_records_its_log_once_under_the_reserved_source() {
    let mut logs = MockActivityLogRepository::new();
    let mut stored_once = false;
    logs.expect_get().returning(move |_, id| {
        let found = stored_once.then(|| stored(id));
        stored_once = true;
        Ok(found)
    });
    logs.expect_create()
        .withf(|_, log, key, _| {
            log.source == "RICS" && log.name == "activityLogs/screening-run-1" && key.is_none()
        })
        .times(1)
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    let service = service_with(logs);
    let log = ActivityLog {
        activity_type: ActivityType::PepAndSanctions,
        entity_names: vec!["entities/jane".into()],
        source: "CUSTOMER".into(),
        ..ActivityLog::default()
    };
    let first = service
        .record(&principal(), "screening-run-1", log.clone())
        .await
        .unwrap();
    assert_eq!(first.source, "RICS");
    // The run repeated after a crash finds its log and writes nothing.
    let again = service
        .record(&principal(), "screening-run-1", log)
        .await
        .unwrap();
    assert_eq!(again.name, "activityLogs/screening-run-1");
}
