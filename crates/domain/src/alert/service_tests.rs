//! Unit tests of the alert service with mocked ports.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;

use super::model::{
    Alert, AlertState, AlertType, Disposition, NewAlert, PEP_AND_SANCTIONS_MATCH_FOUND,
    ResolveRequest, Severity, UNUSUAL_EVENT,
};
use super::ports::{MockAlertRepository, MockAlertTypeRepository};
use super::service::{AlertService, DefaultAlertTypes};
use crate::entity::repository::{MockEntityRepository, Presence};
use crate::error::Code;
use crate::event::NewEvent;
use crate::housekeeping::Purge;
use crate::id::MockIdGenerator;
use crate::lifecycle::ServiceContext;
use crate::list::Paging;
use crate::methods::CreateMethod;
use crate::principal::{Principal, TenantId};
use crate::repository::{CreateOutcome, RepositoryError};
use crate::tenant::model::Tenant;
use crate::tenant::ports::TenantPlan;
use crate::tenant::service::{Credentials, ProvisioningStep};
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

/// The default alert types of `t1`.
fn types() -> MockAlertTypeRepository {
    let mut types = MockAlertTypeRepository::new();
    types.expect_get().returning(|tenant, id| {
        Ok(AlertType::defaults(tenant, now())
            .into_iter()
            .find(|t| t.id() == id))
    });
    types
}

/// Entities `live-*` exist, `gone-*` are soft-deleted, others do not exist.
fn entities() -> MockEntityRepository {
    let mut entities = MockEntityRepository::new();
    entities.expect_presence().returning(|_, ids| {
        Ok(ids
            .iter()
            .filter(|id| id.starts_with("live-") || id.starts_with("gone-"))
            .map(|id| Presence {
                id: id.clone(),
                deleted: id.starts_with("gone-"),
            })
            .collect())
    });
    entities
}

/// Workspaces `case-*` exist, `closed-case-*` are soft-deleted, others do not exist.
fn workspaces() -> MockWorkspaceRepository {
    let mut workspaces = MockWorkspaceRepository::new();
    workspaces.expect_get().returning(|_, id| {
        Ok(
            (id.starts_with("case-") || id.starts_with("deleted-")).then(|| Workspace {
                name: Workspace::name_of(id),
                delete_time: id.starts_with("deleted-").then(now),
                ..Workspace::default()
            }),
        )
    });
    workspaces
}

fn service(alerts: MockAlertRepository) -> AlertService {
    let mut clock = MockClock::new();
    clock.expect_now().returning(now);
    let clock = Arc::new(clock);
    let mut ids = MockIdGenerator::new();
    let mut n = 0;
    ids.expect_resource_id().returning(move || {
        n += 1;
        format!("gen-{n}")
    });
    ids.expect_uid().returning(|| "uid-1".into());
    let paging = Arc::new(Paging::new(&[7; 32], clock.clone()).unwrap());
    AlertService::new(
        Arc::new(alerts),
        Arc::new(types()),
        Arc::new(entities()),
        Arc::new(workspaces()),
        ServiceContext {
            clock,
            ids: Arc::new(ids),
            paging,
            retention: Duration::from_secs(86_400),
        },
    )
}

/// A stored alert about `entities`, in `state`.
fn stored(state: AlertState, entities: &[&str]) -> Alert {
    Alert {
        name: "alerts/a1".into(),
        uid: "uid-0".into(),
        alert_type: AlertType::name_of(UNUSUAL_EVENT),
        entities: entities.iter().map(|e| format!("entities/{e}")).collect(),
        title: "Odd".into(),
        severity: Severity::Medium,
        state,
        source: "principals/bob".into(),
        create_time: Some(now()),
        update_time: Some(now()),
        etag: crate::resource::etag("uid-0", 1),
        revision: 1,
        ..Alert::default()
    }
}

/// The entity of each event (`None` for tenant-level ones) and its type.
fn scopes(events: &[NewEvent]) -> Vec<(Option<String>, String)> {
    events
        .iter()
        .map(|e| (e.entity_id.clone(), e.event_type.clone()))
        .collect()
}

#[tokio::test]
async fn a_created_alert_is_active_from_the_caller_with_the_types_severity() {
    let written = Arc::new(Mutex::new(Vec::new()));
    let mut alerts = MockAlertRepository::new();
    let log = written.clone();
    alerts
        .expect_create()
        .times(2)
        .returning(move |_, alert, _, events| {
            log.lock().unwrap().push((alert.clone(), scopes(events)));
            Ok(CreateOutcome::Created)
        });
    let service = service(alerts);
    let p = principal();
    let created = service
        .create(
            &p,
            json!({
                "alertType": "alertTypes/pep-and-sanctions-match-found",
                "entities": ["entities/live-a", "entities/live-b"],
                "workspace": "workspaces/case-1",
                "title": "Possible match",
                "description": "Two lines\nof detail",
                "details": {"score": 0.93},
                "state": "RESOLVED",
                "source": "forged",
            }),
            Some("match-1"),
            None,
        )
        .await
        .unwrap();
    assert_eq!(created.name, "alerts/match-1");
    assert_eq!(created.state, AlertState::Active, "state is output only");
    assert_eq!(created.source, "principals/alice");
    assert_eq!(created.severity, Severity::High, "the type's default");
    assert_eq!(created.details["score"], json!(0.93));
    let (stored, events) = written.lock().unwrap()[0].clone();
    assert_eq!(stored, created);
    assert_eq!(
        events,
        vec![
            (Some("live-a".into()), "alert.created".into()),
            (Some("live-b".into()), "alert.created".into())
        ],
        "one event per entity, each the entity's"
    );
    let chosen = service
        .create(
            &p,
            json!({"alertType": "alertTypes/unusual-event", "title": "Odd", "severity": "CRITICAL"}),
            None,
            None,
        )
        .await
        .unwrap();
    assert_eq!(chosen.severity, Severity::Critical);
    assert_eq!(
        written.lock().unwrap()[1].1,
        vec![(None, "alert.created".into())],
        "an alert about no entity has one tenant-level event"
    );
}

#[tokio::test]
async fn bad_alerts_are_refused_before_anything_is_written() {
    let mut alerts = MockAlertRepository::new();
    alerts.expect_create().never();
    let service = service(alerts);
    let p = principal();
    let base = || json!({"alertType": "alertTypes/unusual-event", "title": "Odd"});
    let with = |key: &str, value: serde_json::Value| {
        let mut body = base();
        body[key] = value;
        body
    };
    let too_many: Vec<String> = (0..101).map(|i| format!("entities/live-{i}")).collect();
    let cases = [
        (
            with("alertType", json!("alertTypes/nothing")),
            Code::NotFound,
            "ALERT_TYPE_NOT_FOUND",
            "alert.alertType",
        ),
        (
            with("alertType", json!("unusual-event")),
            Code::InvalidArgument,
            "INVALID_FIELDS",
            "alert.alertType",
        ),
        (
            with("title", json!("")),
            Code::InvalidArgument,
            "INVALID_FIELDS",
            "alert.title",
        ),
        (
            with("title", json!("two\nlines")),
            Code::InvalidArgument,
            "CONTROL_CHARACTER",
            "alert.title",
        ),
        (
            with("description", json!("x".repeat(2001))),
            Code::InvalidArgument,
            "INVALID_FIELDS",
            "alert.description",
        ),
        (
            with("entities", json!(["entities/nobody"])),
            Code::NotFound,
            "ENTITY_NOT_FOUND",
            "alert.entities[0]",
        ),
        (
            with("entities", json!(["entities/live-a", "entities/live-a"])),
            Code::InvalidArgument,
            "INVALID_FIELDS",
            "alert.entities[1]",
        ),
        (
            with("entities", json!(too_many)),
            Code::InvalidArgument,
            "INVALID_FIELDS",
            "alert.entities",
        ),
        (
            with("workspace", json!("workspaces/nothing")),
            Code::NotFound,
            "WORKSPACE_NOT_FOUND",
            "alert.workspace",
        ),
        (
            with("workspace", json!("cases/1")),
            Code::InvalidArgument,
            "INVALID_FIELDS",
            "alert.workspace",
        ),
        (
            with("details", json!([1])),
            Code::InvalidArgument,
            "INVALID_VALUE",
            "alert.details",
        ),
        (
            with("details", json!({"blob": "x".repeat(70_000)})),
            Code::InvalidArgument,
            "INVALID_FIELDS",
            "alert.details",
        ),
        (
            with("colour", json!("red")),
            Code::InvalidArgument,
            "UNKNOWN_FIELD",
            "alert.colour",
        ),
    ];
    for (body, code, reason, field) in cases {
        let error = service
            .create(&p, body.clone(), None, None)
            .await
            .unwrap_err();
        assert_eq!((error.code, error.reason), (code, reason), "{body}");
        assert!(
            error.field_violations.iter().any(|v| v.field == field),
            "{body}: {:?}",
            error.field_violations
        );
    }
    let error = service
        .create(&p, with("entities", json!(["entities/gone-a"])), None, None)
        .await
        .unwrap_err();
    assert_eq!(
        (error.code, error.reason),
        (Code::FailedPrecondition, "ENTITY_DELETED")
    );
    let error = service
        .create(
            &p,
            with("workspace", json!("workspaces/deleted-1")),
            None,
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(
        (error.code, error.reason),
        (Code::FailedPrecondition, "WORKSPACE_DELETED")
    );
    let error = service
        .create(&p, base(), Some("AB"), None)
        .await
        .unwrap_err();
    assert_eq!(error.field_violations[0].field, "alertId");
}

#[tokio::test]
async fn only_an_active_live_alert_is_acknowledged_by_the_caller() {
    let mut alerts = MockAlertRepository::new();
    alerts.expect_get().returning(|_, id| {
        Ok(Some(match id {
            "active" => stored(AlertState::Active, &["live-a"]),
            "acknowledged" => stored(AlertState::Acknowledged, &[]),
            _ => Alert {
                delete_time: Some(now()),
                ..stored(AlertState::Active, &[])
            },
        }))
    });
    alerts
        .expect_update()
        .withf(|_, alert, revision, events| {
            *revision == 1
                && alert.revision == 2
                && scopes(events) == vec![(Some("live-a".into()), "alert.acknowledged".into())]
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let service = service(alerts);
    let p = principal();
    let error = service
        .acknowledge(&p, "active", Some("\"stale\""))
        .await
        .unwrap_err();
    assert_eq!((error.code, error.reason), (Code::Aborted, "ETAG_MISMATCH"));
    let etag = crate::resource::etag("uid-0", 1);
    let acknowledged = service
        .acknowledge(&p, "active", Some(&etag))
        .await
        .unwrap();
    assert_eq!(acknowledged.state, AlertState::Acknowledged);
    assert_eq!(acknowledged.acknowledger, "alice");
    assert_eq!(acknowledged.acknowledge_time, Some(now()));
    assert_ne!(acknowledged.etag, etag);
    let error = service
        .acknowledge(&p, "acknowledged", None)
        .await
        .unwrap_err();
    assert_eq!(
        (error.code, error.reason),
        (Code::FailedPrecondition, "ALERT_NOT_ACTIVE")
    );
    assert_eq!(error.metadata["state"], "ACKNOWLEDGED");
    let error = service.acknowledge(&p, "deleted", None).await.unwrap_err();
    assert_eq!(
        (error.code, error.reason),
        (Code::FailedPrecondition, "RESOURCE_DELETED")
    );
}

#[tokio::test]
async fn an_active_or_acknowledged_alert_is_resolved_once_with_a_disposition() {
    let mut alerts = MockAlertRepository::new();
    alerts.expect_get().returning(|_, id| {
        Ok(Some(match id {
            "active" => stored(AlertState::Active, &["live-a"]),
            "acknowledged" => stored(AlertState::Acknowledged, &[]),
            "resolved" => Alert {
                disposition: Disposition::NotRelevant,
                ..stored(AlertState::Resolved, &[])
            },
            _ => Alert {
                delete_time: Some(now()),
                ..stored(AlertState::Active, &[])
            },
        }))
    });
    alerts
        .expect_update()
        .withf(|_, alert, _, events| {
            alert.state == AlertState::Resolved
                && scopes(events)
                    .iter()
                    .all(|(_, kind)| kind == "alert.resolved")
        })
        .times(2)
        .returning(|_, _, _, _| Ok(()));
    let service = service(alerts);
    let p = principal();
    let request = |disposition, comment: &str| ResolveRequest {
        disposition,
        comment: comment.into(),
        etag: None,
    };
    let resolved = service
        .resolve(
            &p,
            "active",
            &request(Disposition::FalsePositive, "Another person:\nborn 1961."),
        )
        .await
        .unwrap();
    assert_eq!(
        (
            resolved.state,
            resolved.disposition,
            resolved.resolver.as_str()
        ),
        (AlertState::Resolved, Disposition::FalsePositive, "alice")
    );
    assert_eq!(resolved.resolve_time, Some(now()));
    assert_eq!(resolved.resolve_comment, "Another person:\nborn 1961.");
    let from_acknowledged = service
        .resolve(&p, "acknowledged", &request(Disposition::TruePositive, ""))
        .await
        .unwrap();
    assert_eq!(from_acknowledged.disposition, Disposition::TruePositive);
    let error = service
        .resolve(&p, "resolved", &request(Disposition::TruePositive, ""))
        .await
        .unwrap_err();
    assert_eq!(
        (error.code, error.reason),
        (Code::FailedPrecondition, "ALERT_ALREADY_RESOLVED")
    );
    assert_eq!(error.metadata["disposition"], "NOT_RELEVANT");
    let error = service
        .resolve(&p, "deleted", &request(Disposition::TruePositive, ""))
        .await
        .unwrap_err();
    assert_eq!(error.reason, "RESOURCE_DELETED");
    // Bad requests are refused before any lookup, every problem at once.
    let error = service
        .resolve(
            &p,
            "active",
            &request(Disposition::Unspecified, &"x".repeat(2001)),
        )
        .await
        .unwrap_err();
    let fields: Vec<(&str, &str)> = error
        .field_violations
        .iter()
        .map(|v| (v.field.as_str(), v.reason))
        .collect();
    assert_eq!(
        fields,
        vec![("disposition", "REQUIRED"), ("comment", "TOO_LONG")]
    );
    let error = service
        .resolve(
            &p,
            "active",
            &request(Disposition::TruePositive, "bell\u{7}"),
        )
        .await
        .unwrap_err();
    assert_eq!(error.field_violations[0].reason, "CONTROL_CHARACTER");
}

#[tokio::test]
async fn a_retried_job_raises_its_alert_once() {
    let job = "entities/live-a/pepSanctionIndividualEntityJobs/j1";
    let raised = || NewAlert {
        alert_type: AlertType::name_of(PEP_AND_SANCTIONS_MATCH_FOUND),
        entities: vec!["entities/live-a".into()],
        title: "Sanctions match".into(),
        ..NewAlert::default()
    };
    // The first run stores it; the retry finds it.
    let store: Arc<Mutex<Option<Alert>>> = Arc::default();
    let mut alerts = MockAlertRepository::new();
    let found = store.clone();
    alerts
        .expect_get()
        .returning(move |_, _| Ok(found.lock().unwrap().clone()));
    let kept = store.clone();
    alerts
        .expect_create()
        .withf(|_, _, key, _| key.is_none())
        .times(1)
        .returning(move |_, alert, _, _| {
            *kept.lock().unwrap() = Some(alert.clone());
            Ok(CreateOutcome::Created)
        });
    let service = service(alerts);
    let p = principal();
    let first = service.raise(&p, "j1-match", job, raised()).await.unwrap();
    assert_eq!(first.source, job);
    assert_eq!(first.severity, Severity::High);
    assert_eq!(first.state, AlertState::Active);
    let again = service.raise(&p, "j1-match", job, raised()).await.unwrap();
    assert_eq!(again, first);
    let error = service
        .raise(&p, "j1-match", "entities/live-a/jobs/other", raised())
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::AlreadyExists);
    let error = service
        .raise(&p, "Bad Id", job, raised())
        .await
        .unwrap_err();
    assert_eq!(error.field_violations[0].field, "alertId");
    let error = service
        .raise(&p, "j2-match", " ", raised())
        .await
        .unwrap_err();
    assert_eq!(error.field_violations[0].field, "alert.source");
}

#[tokio::test]
async fn a_concurrent_retry_that_stored_first_is_returned() {
    let job = "jobs/j1";
    let mut alerts = MockAlertRepository::new();
    let mut calls = 0;
    alerts.expect_get().returning(move |_, _| {
        calls += 1;
        Ok((calls > 1).then(|| Alert {
            source: job.into(),
            ..stored(AlertState::Active, &[])
        }))
    });
    alerts
        .expect_create()
        .times(1)
        .returning(|_, _, _, _| Err(RepositoryError::AlreadyExists));
    let raised = service(alerts)
        .raise(
            &principal(),
            "a1",
            job,
            NewAlert {
                alert_type: AlertType::name_of(UNUSUAL_EVENT),
                title: "Odd".into(),
                ..NewAlert::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(raised.name, "alerts/a1");
}

#[tokio::test]
async fn expired_alerts_are_purged_with_an_event_per_entity() {
    let mut alerts = MockAlertRepository::new();
    alerts.expect_find_purge_due().returning(|_, _| {
        Ok(vec![
            (TenantId::new("t1"), "a1".into()),
            (TenantId::new("t1"), "gone".into()),
        ])
    });
    alerts.expect_get().returning(|_, id| {
        Ok((id == "a1").then(|| stored(AlertState::Active, &["live-a", "live-b"])))
    });
    alerts
        .expect_purge()
        .withf(|_, id, _, events| {
            id == "a1"
                && scopes(events)
                    == vec![
                        (Some("live-a".into()), "alert.purged".into()),
                        (Some("live-b".into()), "alert.purged".into()),
                    ]
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    assert_eq!(
        service(alerts).purge_expired(&principal(), now(), 10).await,
        Ok(1)
    );
}

#[tokio::test]
async fn a_new_tenant_gets_the_default_alert_types_at_its_creation_time() {
    let mut plan = TenantPlan {
        tenant: Tenant {
            name: Tenant::name_of("acme"),
            create_time: Some(now()),
            ..Tenant::default()
        },
        clients: Vec::new(),
        users: Vec::new(),
        alert_types: Vec::new(),
        form_definitions: Vec::new(),
        automations: Vec::new(),
    };
    let step = DefaultAlertTypes;
    assert!(step.at_bootstrap());
    step.apply(&mut plan, &mut Credentials::default())
        .await
        .unwrap();
    assert_eq!(
        plan.alert_types,
        AlertType::defaults(&TenantId::new("acme"), now())
    );
    assert_eq!(plan.alert_types.len(), 9);
    plan.tenant.create_time = None;
    assert_eq!(
        step.apply(&mut plan, &mut Credentials::default())
            .await
            .unwrap_err()
            .code,
        Code::Internal
    );
}

#[tokio::test]
async fn an_alert_raised_without_a_title_is_titled_after_its_type() {
    let mut alerts = MockAlertRepository::new();
    alerts.expect_get().returning(|_, _| Ok(None));
    alerts
        .expect_create()
        .times(1)
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    let untitled = || NewAlert {
        alert_type: AlertType::name_of(UNUSUAL_EVENT),
        entities: vec!["entities/live-a".into()],
        ..NewAlert::default()
    };
    let service = service(alerts);
    let raised = service
        .raise(&principal(), "x1", "automations/a/executions/x", untitled())
        .await
        .unwrap();
    let expected = AlertType::defaults(&principal().tenant, now())
        .into_iter()
        .find(|t| t.id() == UNUSUAL_EVENT)
        .unwrap();
    assert_eq!(raised.title, expected.display_name);
    let unknown = NewAlert {
        alert_type: "alertTypes/nothing-like-it".into(),
        ..untitled()
    };
    let error = service
        .raise(&principal(), "x2", "automations/a/executions/x", unknown)
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::NotFound);
}
