//! Unit tests of the note service with mocked ports.

use std::sync::Arc;
use std::time::Duration;

use mockall::predicate::eq;
use serde_json::json;

use super::model::{Note, NoteParent};
use super::ports::MockNoteRepository;
use super::service::{MAX_CONTENT_BYTES, NoteService};
use crate::entity::model::Entity;
use crate::entity::repository::MockEntityRepository;
use crate::error::Code;
use crate::id::MockIdGenerator;
use crate::lifecycle::{DeleteMethod, ServiceContext};
use crate::list::Paging;
use crate::methods::{CreateMethod, UpdateMethod};
use crate::principal::{Principal, TenantId};
use crate::repository::CreateOutcome;
use crate::time::{MockClock, Timestamp};
use crate::workspace::model::{Workspace, WorkspaceState};
use crate::workspace::ports::MockWorkspaceRepository;

fn now() -> Timestamp {
    Timestamp::parse_rfc3339("2026-11-22T10:00:00Z").unwrap()
}

fn person(subject: &str) -> Principal {
    Principal {
        tenant: TenantId::new("t1"),
        subject: subject.into(),
        display_name: format!("{subject} (display)"),
        scopes: Default::default(),
    }
}

fn ids() -> Arc<MockIdGenerator> {
    let mut ids = MockIdGenerator::new();
    ids.expect_resource_id().returning(|| "gen-id".into());
    ids.expect_uid().returning(|| "uid-1".into());
    Arc::new(ids)
}

fn live_entity(deleted: bool) -> MockEntityRepository {
    let mut entities = MockEntityRepository::new();
    entities.expect_get().returning(move |_, id| {
        Ok(Some(Entity {
            name: Entity::name_of(id),
            delete_time: deleted.then(now),
            ..Entity::default()
        }))
    });
    entities
}

fn service(
    notes: MockNoteRepository,
    entities: MockEntityRepository,
    workspaces: MockWorkspaceRepository,
) -> NoteService {
    let mut clock = MockClock::new();
    clock.expect_now().returning(now);
    let clock = Arc::new(clock);
    let paging = Arc::new(Paging::new(&[7; 32], clock.clone()).unwrap());
    let context = ServiceContext {
        clock,
        ids: ids(),
        paging,
        retention: Duration::ZERO,
    };
    NoteService::new(
        Arc::new(notes),
        Arc::new(entities),
        Arc::new(workspaces),
        context,
    )
}

fn stored(author: &str) -> Note {
    Note {
        name: "entities/jane/notes/n1".into(),
        uid: "uid-0".into(),
        content: "first".into(),
        author_id: author.into(),
        author: author.into(),
        create_time: Some(now()),
        update_time: Some(now()),
        is_edited: false,
        etag: crate::resource::etag("uid-0", 1),
        revision: 1,
    }
}

fn jane() -> NoteParent {
    NoteParent::Entity("jane".into())
}

#[tokio::test]
async fn create_records_the_author_and_an_entity_event() {
    let mut notes = MockNoteRepository::new();
    notes
        .expect_create()
        .withf(|tenant, note, key, events| {
            tenant.as_str() == "t1"
                && note.name == "entities/jane/notes/my-note"
                && note.author_id == "alice"
                && note.author == "alice (display)"
                && !note.is_edited
                && key.is_none()
                && events.len() == 1
                && events[0].event_type == "note.created"
                && events[0].entity_id.as_deref() == Some("jane")
        })
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    let service = service(notes, live_entity(false), MockWorkspaceRepository::new());
    let note = service.within(jane()).create(&person("alice"),
            json!({"name": "entities/jane/notes/my-note", "content": "hello", "authorId": "mallory"}),
            None,
            None,
        )
        .await
        .unwrap();
    assert_eq!(note.author_id, "alice");
}

#[tokio::test]
async fn content_must_be_present_and_at_most_100_kib() {
    let service = service(
        MockNoteRepository::new(),
        MockEntityRepository::new(),
        MockWorkspaceRepository::new(),
    );
    for content in [
        String::new(),
        "  \n ".into(),
        "x".repeat(MAX_CONTENT_BYTES + 1),
    ] {
        let error = service
            .within(jane())
            .create(&person("alice"), json!({"content": content}), None, None)
            .await
            .unwrap_err();
        assert_eq!(error.code, Code::InvalidArgument);
        assert_eq!(error.field_violations[0].field, "note.content");
    }
    let error = service
        .within(jane())
        .create(
            &person("alice"),
            json!({"content": "x", "name": "entities/john/notes/abcd"}),
            None,
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(error.field_violations[0].reason, "NAME_MISMATCH");
}

#[tokio::test]
async fn only_the_author_changes_or_deletes_a_note() {
    let mut notes = MockNoteRepository::new();
    notes
        .expect_get()
        .with(eq(TenantId::new("t1")), eq("entities/jane/notes/n1"))
        .returning(|_, _| Ok(Some(stored("alice"))));
    let service = service(notes, live_entity(false), MockWorkspaceRepository::new());
    let bob = person("bob");
    let error = service
        .within(jane())
        .update(&bob, "n1", json!({"content": "mine now"}), None)
        .await
        .unwrap_err();
    assert_eq!(
        (error.code, error.reason),
        (Code::PermissionDenied, "NOT_NOTE_AUTHOR")
    );
    let error = service
        .within(jane())
        .delete(&bob, "n1", None)
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::PermissionDenied);
}

#[tokio::test]
async fn the_first_change_marks_the_note_edited() {
    let mut notes = MockNoteRepository::new();
    notes
        .expect_get()
        .returning(|_, _| Ok(Some(stored("alice"))));
    notes
        .expect_update()
        .withf(|_, note, revision, events| {
            note.is_edited
                && note.revision == 2
                && *revision == 1
                && events[0].event_type == "note.updated"
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let service = service(notes, live_entity(false), MockWorkspaceRepository::new());
    let alice = person("alice");
    let same = service
        .within(jane())
        .update(&alice, "n1", json!({"content": "first"}), None)
        .await
        .unwrap();
    assert!(!same.is_edited, "an update that changes nothing is no edit");
    let edited = service
        .within(jane())
        .update(&alice, "n1", json!({"content": "second"}), None)
        .await
        .unwrap();
    assert!(edited.is_edited);
    let error = service
        .within(jane())
        .update(
            &alice,
            "n1",
            json!({"name": "entities/jane/notes/n2", "content": "x"}),
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(error.field_violations[0].reason, "NAME_MISMATCH");
}

#[tokio::test]
async fn notes_of_a_deleted_parent_are_unreachable() {
    let service = service(
        MockNoteRepository::new(),
        live_entity(true),
        MockWorkspaceRepository::new(),
    );
    let error = service
        .within(jane())
        .get(&person("alice"), "n1")
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::NotFound);
    assert!(error.message.contains("entities/jane"));
}

#[tokio::test]
async fn a_closed_workspace_keeps_its_notes_readable_but_frozen() {
    let mut workspaces = MockWorkspaceRepository::new();
    workspaces.expect_get().returning(|_, id| {
        Ok(Some(Workspace {
            name: Workspace::name_of(id),
            state: WorkspaceState::Closed,
            ..Workspace::default()
        }))
    });
    let mut notes = MockNoteRepository::new();
    notes.expect_get().returning(|_, _| {
        let mut note = stored("alice");
        note.name = "workspaces/case/notes/n1".into();
        Ok(Some(note))
    });
    let service = service(notes, MockEntityRepository::new(), workspaces);
    let case = NoteParent::Workspace("case".into());
    assert!(
        service
            .within(case.clone())
            .get(&person("alice"), "n1")
            .await
            .is_ok()
    );
    let error = service
        .within(case.clone())
        .create(&person("alice"), json!({"content": "late"}), None, None)
        .await
        .unwrap_err();
    assert_eq!(error.reason, "WORKSPACE_CLOSED");
}
