//! Unit tests of the workspace service with mocked ports.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use super::model::{Workspace, WorkspaceState};
use super::ports::MockWorkspaceRepository;
use super::service::WorkspaceService;
use crate::entity::repository::{MockEntityRepository, Presence};
use crate::error::Code;
use crate::form::ports::{MockFormRecords, MockFormRepository};
use crate::form::service::{FormPorts, FormService};
use crate::form_definition::ports::{MockFormDefinitionRepository, MockFormRevisions};
use crate::form_definition::service::FormDefinitionService;
use crate::id::MockIdGenerator;
use crate::lifecycle::ServiceContext;
use crate::list::Paging;
use crate::methods::CreateMethod;
use crate::methods::UpdateMethod;
use crate::principal::{Principal, TenantId};
use crate::repository::CreateOutcome;
use crate::time::{MockClock, Timestamp};

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

fn service(repository: MockWorkspaceRepository) -> WorkspaceService {
    let mut clock = MockClock::new();
    clock.expect_now().returning(now);
    let clock = Arc::new(clock);
    let mut ids = MockIdGenerator::new();
    ids.expect_resource_id().returning(|| "gen-id".into());
    ids.expect_uid().returning(|| "uid-1".into());
    let paging = Arc::new(Paging::new(&[7; 32], clock.clone()).unwrap());
    let context = ServiceContext {
        clock,
        ids: Arc::new(ids),
        paging,
        retention: Duration::from_secs(86_400),
    };
    let definitions = Arc::new(FormDefinitionService::new(
        Arc::new(MockFormDefinitionRepository::new()),
        Arc::new(MockFormRevisions::new()),
        context.clone(),
    ));
    let forms = FormService::new(
        FormPorts {
            forms: Arc::new(MockFormRepository::new()),
            records: Arc::new(MockFormRecords::new()),
            definitions,
            entities: Arc::new(MockEntityRepository::new()),
            workspaces: Arc::new(MockWorkspaceRepository::new()),
            files: Arc::new(crate::file::ports::MockFileRepository::new()),
        },
        context.clone(),
    );
    WorkspaceService::new(
        Arc::new(repository),
        Arc::new(entities()),
        Arc::new(forms),
        context,
    )
}

fn stored(state: WorkspaceState, entities: &[&str]) -> Workspace {
    Workspace {
        name: "workspaces/case".into(),
        uid: "uid-0".into(),
        display_name: "Case".into(),
        entities: entities.iter().map(|e| (*e).to_owned()).collect(),
        state,
        create_time: Some(now()),
        update_time: Some(now()),
        etag: crate::resource::etag("uid-0", 1),
        revision: 1,
        ..Workspace::default()
    }
}

#[tokio::test]
async fn a_new_workspace_is_open_and_its_entities_must_be_live() {
    let mut repository = MockWorkspaceRepository::new();
    repository
        .expect_create()
        .withf(|_, workspace, _, events| {
            workspace.state == WorkspaceState::Open
                && workspace.name == "workspaces/gen-id"
                && events[0].event_type == "workspace.created"
                && events[0].entity_id.is_none()
        })
        .times(1)
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    let service = service(repository);
    let p = principal();
    let created = service
        .create(
            &p,
            json!({"displayName": "Case", "entities": ["entities/live-a"]}),
            None,
            None,
        )
        .await
        .unwrap();
    assert_eq!(created.state, WorkspaceState::Open);
    let cases = [
        (
            json!(["entities/nobody"]),
            Code::NotFound,
            "ENTITY_NOT_FOUND",
        ),
        (
            json!(["entities/gone-a"]),
            Code::FailedPrecondition,
            "ENTITY_DELETED",
        ),
        (
            json!(["entities/live-a", "entities/live-a"]),
            Code::InvalidArgument,
            "INVALID_ARGUMENT",
        ),
        (
            json!(["people/x"]),
            Code::InvalidArgument,
            "INVALID_ARGUMENT",
        ),
    ];
    for (entities, code, reason) in cases {
        let error = service
            .create(
                &p,
                json!({"displayName": "Case", "entities": entities}),
                None,
                None,
            )
            .await
            .unwrap_err();
        assert_eq!(error.code, code, "{entities}");
        if code != Code::InvalidArgument {
            assert_eq!(error.reason, reason, "{entities}");
        }
    }
}

#[tokio::test]
async fn an_entity_deleted_after_it_joined_does_not_block_other_changes() {
    let mut repository = MockWorkspaceRepository::new();
    repository
        .expect_get()
        .returning(|_, _| Ok(Some(stored(WorkspaceState::Open, &["entities/gone-a"]))));
    repository
        .expect_update()
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let updated = service(repository)
        .update(
            &principal(),
            "case",
            json!({"displayName": "Renamed"}),
            None,
        )
        .await
        .unwrap();
    assert_eq!(updated.display_name, "Renamed");
    assert_eq!(updated.entities, vec!["entities/gone-a".to_owned()]);
}

#[tokio::test]
async fn close_and_reopen_move_between_the_two_states_only() {
    let mut repository = MockWorkspaceRepository::new();
    repository
        .expect_get()
        .returning(|_, _| Ok(Some(stored(WorkspaceState::Closed, &[]))));
    repository
        .expect_update()
        .withf(|_, workspace, _, events| {
            workspace.state == WorkspaceState::Open && events[0].event_type == "workspace.reopened"
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let service = service(repository);
    let p = principal();
    let error = service.close(&p, "case", None).await.unwrap_err();
    assert_eq!(
        (error.code, error.reason),
        (Code::FailedPrecondition, "WORKSPACE_ALREADY_CLOSED")
    );
    let error = service
        .update(&p, "case", json!({"description": "x"}), None)
        .await
        .unwrap_err();
    assert_eq!(error.reason, "WORKSPACE_CLOSED");
    let reopened = service.reopen(&p, "case", None).await.unwrap();
    assert_eq!(reopened.state, WorkspaceState::Open);
}
