//! Unit tests of the file service and the content sweep, with mocked ports and an
//! in-memory content store that reads its streams as a real one does.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::StreamExt;
use serde_json::json;

use super::content::{ContentKey, ContentStream, FileStore};
use super::model::{File, FileParent};
use super::ports::{MockContentRemovals, MockFileRepository};
use super::service::{FilePorts, FileService, UPLOAD_LEASE};
use super::sweep::ContentSweeper;
use crate::entity::erasure::AfterErasure;
use crate::entity::model::Entity;
use crate::entity::repository::MockEntityRepository;
use crate::error::{Code, Error, Result};
use crate::form::model::{Form, FormState};
use crate::form::ports::{MockFormRecords, MockFormRepository};
use crate::form::service::{FormPorts, FormService};
use crate::form_definition::ports::{MockFormDefinitionRepository, MockFormRevisions};
use crate::form_definition::service::FormDefinitionService;
use crate::housekeeping::{Purge, PurgeDue};
use crate::id::MockIdGenerator;
use crate::lifecycle::{ServiceContext, SoftDeleteMethods};
use crate::list::Paging;
use crate::principal::{Principal, TenantId};
use crate::repository::{CreateOutcome, RepositoryError};
use crate::time::{MockClock, Timestamp};
use crate::workspace::ports::MockWorkspaceRepository;

const UID: &str = "0b6f4c1e-5d7a-4f4e-9a52-3f6f2a1c9d10";
const PDF: &[u8] = b"%PDF-1.7\n1 0 obj\n<<>>\nendobj\n%%EOF\n";

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

fn key() -> ContentKey {
    ContentKey {
        tenant: TenantId::new("t1"),
        file: UID.parse().unwrap(),
    }
}

/// Content kept in memory: each write reads its stream to the end (or to its first
/// error, keeping nothing), as the port requires.
#[derive(Default)]
struct MemoryStore {
    stored: Mutex<BTreeMap<String, Vec<u8>>>,
    removed: Mutex<Vec<String>>,
    fail_writes: bool,
}

#[async_trait]
impl FileStore for MemoryStore {
    async fn write(&self, key: &ContentKey, mut content: ContentStream) -> Result<u64> {
        let mut bytes = Vec::new();
        while let Some(chunk) = content.next().await {
            bytes.extend_from_slice(&chunk?);
        }
        if self.fail_writes {
            return Err(Error::unavailable("STORE_DOWN", "the store is down"));
        }
        let length = bytes.len() as u64;
        self.stored.lock().unwrap().insert(key.path(), bytes);
        Ok(length)
    }

    async fn read(&self, key: &ContentKey) -> Result<ContentStream> {
        let bytes = self
            .stored
            .lock()
            .unwrap()
            .get(&key.path())
            .cloned()
            .ok_or_else(|| Error::new(Code::NotFound, "FILE_CONTENT_MISSING", "missing"))?;
        Ok(Box::pin(futures_util::stream::iter([Ok(Bytes::from(
            bytes,
        ))])))
    }

    async fn remove(&self, key: &ContentKey) -> Result<()> {
        self.stored.lock().unwrap().remove(&key.path());
        self.removed.lock().unwrap().push(key.path());
        Ok(())
    }
}

fn live_entities() -> MockEntityRepository {
    let mut entities = MockEntityRepository::new();
    entities.expect_get().returning(|_, id| {
        Ok((id != "nobody").then(|| Entity {
            name: Entity::name_of(id),
            ..Entity::default()
        }))
    });
    entities
}

/// Removals that expect the upload's lease and, with `forgotten`, its end.
fn lease(forgotten: usize) -> MockContentRemovals {
    let mut removals = MockContentRemovals::new();
    removals
        .expect_schedule()
        .withf(|k, due| *k == key() && *due == now().plus(UPLOAD_LEASE))
        .times(1)
        .returning(|_, _| Ok(()));
    removals
        .expect_forget()
        .withf(|k| *k == key())
        .times(forgotten)
        .returning(|_| Ok(()));
    removals
}

fn context() -> ServiceContext {
    let mut clock = MockClock::new();
    clock.expect_now().returning(now);
    let clock = Arc::new(clock);
    let mut ids = MockIdGenerator::new();
    ids.expect_resource_id().returning(|| "gen-id".into());
    ids.expect_uid().returning(|| UID.into());
    ServiceContext {
        paging: Arc::new(Paging::new(&[7; 32], clock.clone()).unwrap()),
        clock,
        ids: Arc::new(ids),
        retention: Duration::from_secs(86_400),
    }
}

/// The forms of the tenant: `draft` (about `entities/jane`), `lone` (about no entity),
/// `sent` (SUBMITTED) and `late` (a DRAFT past its deadline).
fn forms(context: ServiceContext) -> FormService {
    let mut forms = MockFormRepository::new();
    forms.expect_get().returning(|_, id| {
        let (state, entity, deadline) = match id {
            "draft" => (FormState::Draft, "entities/jane", None),
            "lone" => (FormState::Draft, "", None),
            "sent" => (FormState::Submitted, "entities/jane", None),
            "late" => (FormState::Draft, "entities/jane", Some(now())),
            _ => return Ok(None),
        };
        Ok(Some(Form {
            name: Form::name_of(id),
            entity: entity.into(),
            state,
            expire_time: deadline,
            ..Form::default()
        }))
    });
    let definitions = Arc::new(FormDefinitionService::new(
        Arc::new(MockFormDefinitionRepository::new()),
        Arc::new(MockFormRevisions::new()),
        context.clone(),
    ));
    FormService::new(
        FormPorts {
            forms: Arc::new(forms),
            records: Arc::new(MockFormRecords::new()),
            definitions,
            entities: Arc::new(live_entities()),
            workspaces: Arc::new(MockWorkspaceRepository::new()),
            files: Arc::new(MockFileRepository::new()),
        },
        context,
    )
}

fn service(
    files: MockFileRepository,
    removals: MockContentRemovals,
    content: Arc<MemoryStore>,
) -> FileService {
    FileService::new(
        FilePorts {
            files: Arc::new(files),
            removals: Arc::new(removals),
            content,
            entities: Arc::new(live_entities()),
            forms: Arc::new(forms(context())),
        },
        Default::default(),
        context(),
    )
}

fn jane() -> FileParent {
    FileParent::Entity("jane".into())
}

fn bytes(content: &'static [u8]) -> ContentStream {
    Box::pin(futures_util::stream::iter(
        content.chunks(5).map(|c| Ok(Bytes::from_static(c))),
    ))
}

fn stored_file(deleted: bool) -> File {
    File {
        name: "entities/jane/files/scan".into(),
        uid: UID.into(),
        display_name: "scan.pdf".into(),
        content_type: "application/pdf".into(),
        size_bytes: PDF.len() as i64,
        sha256: "ab".repeat(32),
        delete_time: deleted.then(now),
        revision: 1,
        ..File::default()
    }
}

#[tokio::test]
async fn an_upload_writes_the_content_then_the_file_with_an_entity_event() {
    let mut files = MockFileRepository::new();
    files
        .expect_create()
        .withf(|tenant, file, key, events| {
            tenant.as_str() == "t1"
                && file.name == "entities/jane/files/scan"
                && file.uid == UID
                && file.content_type == "application/pdf"
                && file.size_bytes == PDF.len() as i64
                && file.sha256.len() == 64
                && key.is_some()
                && events.len() == 1
                && events[0].event_type == "file.created"
                && events[0].entity_id.as_deref() == Some("jane")
        })
        .times(1)
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    let content = Arc::new(MemoryStore::default());
    let service = service(files, lease(0), content.clone());
    let file = service
        .within(jane())
        .upload(
            &principal(),
            json!({"displayName": "scan.pdf", "sizeBytes": 1, "sha256": "forged"}),
            bytes(PDF),
            Some("scan"),
            Some("6f1d3c1e-5d7a-4f4e-9a52-3f6f2a1c9d10"),
        )
        .await
        .unwrap();
    assert_eq!(
        file.size_bytes,
        PDF.len() as i64,
        "output-only fields are the server's"
    );
    assert_eq!(
        content
            .stored
            .lock()
            .unwrap()
            .get(&key().path())
            .map(Vec::as_slice),
        Some(PDF)
    );
}

#[tokio::test]
async fn a_form_file_belongs_to_the_form_with_events_of_its_entity() {
    let mut files = MockFileRepository::new();
    files
        .expect_create()
        .withf(|_, file, _, events| {
            let entity = if file.name.starts_with("forms/draft/") {
                Some("jane")
            } else {
                None
            };
            file.form_entity
                .as_deref()
                .and_then(|e| e.strip_prefix("entities/"))
                == entity
                && events.len() == 1
                && events[0].event_type == "file.created"
                && events[0].entity_id.as_deref() == entity
        })
        .times(2)
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    let mut removals = MockContentRemovals::new();
    removals.expect_schedule().times(2).returning(|_, _| Ok(()));
    let content = Arc::new(MemoryStore::default());
    let service = service(files, removals, content.clone());
    for form in ["draft", "lone"] {
        let created = service
            .within(FileParent::Form(form.into()))
            .upload(
                &principal(),
                json!({"displayName": "scan.pdf"}),
                bytes(PDF),
                Some("scan"),
                None,
            )
            .await
            .unwrap();
        assert_eq!(created.name, format!("forms/{form}/files/scan"));
    }
    assert_eq!(content.stored.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn only_a_draft_form_takes_files() {
    let content = Arc::new(MemoryStore::default());
    let service = service(
        MockFileRepository::new(),
        MockContentRemovals::new(),
        content.clone(),
    );
    for (form, state) in [("sent", "SUBMITTED"), ("late", "EXPIRED")] {
        let error = service
            .within(FileParent::Form(form.into()))
            .upload(
                &principal(),
                json!({"displayName": "scan.pdf"}),
                bytes(PDF),
                None,
                None,
            )
            .await
            .unwrap_err();
        assert_eq!(
            (error.code, error.reason),
            (Code::FailedPrecondition, "FORM_NOT_DRAFT"),
            "{form}"
        );
        assert_eq!(error.metadata.get("state").map(String::as_str), Some(state));
        let deleted = service
            .within(FileParent::Form(form.into()))
            .delete(&principal(), "scan", None, false)
            .await
            .unwrap_err();
        assert_eq!(deleted.reason, "FORM_NOT_DRAFT");
    }
    let missing = service
        .within(FileParent::Form("nobody".into()))
        .list(&principal(), &Default::default())
        .await
        .unwrap_err();
    assert_eq!(missing.code, Code::NotFound);
    assert!(content.stored.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_refused_upload_leaves_no_file_and_no_content() {
    let content = Arc::new(MemoryStore::default());
    let service = service(MockFileRepository::new(), lease(1), content.clone());
    let error = service
        .within(jane())
        .upload(
            &principal(),
            json!({"displayName": "photo.png", "contentType": "image/png"}),
            bytes(PDF),
            None,
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(error.reason, "CONTENT_TYPE_MISMATCH");
    assert!(content.stored.lock().unwrap().is_empty());
    assert_eq!(*content.removed.lock().unwrap(), vec![key().path()]);
}

#[tokio::test]
async fn a_failed_row_insert_removes_the_content() {
    let mut files = MockFileRepository::new();
    files
        .expect_create()
        .returning(|_, _, _, _| Err(RepositoryError::AlreadyExists));
    let content = Arc::new(MemoryStore::default());
    let service = service(files, lease(1), content.clone());
    let error = service
        .within(jane())
        .upload(
            &principal(),
            json!({"displayName": "a.pdf"}),
            bytes(PDF),
            Some("taken"),
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::AlreadyExists);
    assert!(content.stored.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_failed_store_write_is_the_answer_and_leaves_nothing() {
    let content = Arc::new(MemoryStore {
        fail_writes: true,
        ..MemoryStore::default()
    });
    let service = service(MockFileRepository::new(), lease(1), content.clone());
    let error = service
        .within(jane())
        .upload(
            &principal(),
            json!({"displayName": "a.pdf"}),
            bytes(PDF),
            None,
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::Unavailable);
}

#[tokio::test]
async fn bad_metadata_and_missing_parents_write_nothing() {
    let content = Arc::new(MemoryStore::default());
    let service = service(
        MockFileRepository::new(),
        MockContentRemovals::new(),
        content.clone(),
    );
    for (metadata, field) in [
        (json!({}), "file.displayName"),
        (json!({"displayName": "x".repeat(256)}), "file.displayName"),
        (json!({"displayName": "a\nb"}), "file.displayName"),
        (
            json!({"displayName": "a", "contentType": "pdf"}),
            "file.contentType",
        ),
        (json!({"displayName": "a", "colour": "red"}), "file.colour"),
    ] {
        let error = service
            .within(jane())
            .upload(&principal(), metadata, bytes(PDF), None, None)
            .await
            .unwrap_err();
        assert_eq!(error.code, Code::InvalidArgument);
        assert_eq!(error.field_violations[0].field, field);
    }
    let error = service
        .within(jane())
        .upload(
            &principal(),
            json!({"displayName": "a"}),
            bytes(PDF),
            Some("Bad Id"),
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(error.field_violations[0].field, "fileId");
    let error = service
        .within(FileParent::Entity("nobody".into()))
        .upload(
            &principal(),
            json!({"displayName": "a"}),
            bytes(PDF),
            None,
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::NotFound);
    assert!(content.stored.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_retry_answers_the_first_file_and_drops_its_copy() {
    let mut files = MockFileRepository::new();
    files.expect_create().returning(|_, _, key, _| {
        let key = key.unwrap();
        Ok(CreateOutcome::Replayed {
            method: key.method.into(),
            fingerprint: key.fingerprint.clone(),
            resource_name: "entities/jane/files/first".into(),
        })
    });
    files.expect_get().returning(|_, name| {
        Ok(Some(File {
            name: name.into(),
            uid: "first-uid".into(),
            ..stored_file(false)
        }))
    });
    let content = Arc::new(MemoryStore::default());
    let service = service(files, lease(1), content.clone());
    let first = service
        .within(jane())
        .upload(
            &principal(),
            json!({"displayName": "a.pdf"}),
            bytes(PDF),
            None,
            Some("6f1d3c1e-5d7a-4f4e-9a52-3f6f2a1c9d10"),
        )
        .await
        .unwrap();
    assert_eq!(first.name, "entities/jane/files/first");
    assert!(content.stored.lock().unwrap().is_empty());
}

#[tokio::test]
async fn downloads_need_a_live_file_with_content() {
    let mut files = MockFileRepository::new();
    files
        .expect_get()
        .returning(|_, name| Ok(Some(stored_file(name.ends_with("gone")))));
    let content = Arc::new(MemoryStore::default());
    let service = service(files, MockContentRemovals::new(), content.clone());
    let within = service.within(jane());
    let error = within.downloadable(&principal(), "gone").await.unwrap_err();
    assert_eq!(error.reason, "RESOURCE_DELETED");
    let file = within.downloadable(&principal(), "scan").await.unwrap();
    let missing = within.content(&principal(), &file).await.err().unwrap();
    assert_eq!(
        (missing.code, missing.reason),
        (Code::DataLoss, "FILE_CONTENT_MISSING")
    );
    content
        .stored
        .lock()
        .unwrap()
        .insert(key().path(), PDF.to_vec());
    let mut stream = within.content(&principal(), &file).await.unwrap();
    assert_eq!(
        stream.next().await.unwrap().unwrap(),
        Bytes::from_static(PDF)
    );
}

#[tokio::test]
async fn a_soft_delete_keeps_the_content_and_a_purge_removes_it() {
    let mut files = MockFileRepository::new();
    files
        .expect_get()
        .returning(|_, _| Ok(Some(stored_file(false))));
    files
        .expect_update()
        .withf(|_, file, _, events| file.is_deleted() && events[0].event_type == "file.deleted")
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    files
        .expect_purge()
        .withf(|_, id, _, events| {
            id == "entities/jane/files/scan"
                && events[0].event_type == "file.purged"
                && events[0].entity_id.as_deref() == Some("jane")
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let mut removals = MockContentRemovals::new();
    removals.expect_forget().times(1).returning(|_| Ok(()));
    let content = Arc::new(MemoryStore::default());
    content
        .stored
        .lock()
        .unwrap()
        .insert(key().path(), PDF.to_vec());
    let service = service(files, removals, content.clone());
    let deleted = service
        .within(jane())
        .delete(&principal(), "scan", None, false)
        .await
        .unwrap()
        .unwrap();
    assert!(deleted.is_deleted());
    assert!(
        !content.stored.lock().unwrap().is_empty(),
        "kept for undelete"
    );
    let due = PurgeDue {
        tenant: TenantId::new("t1"),
        id: "entities/jane/files/scan".into(),
        now: now(),
    };
    service.purge_one(&principal(), &due).await.unwrap();
    assert!(content.stored.lock().unwrap().is_empty());
}

#[tokio::test]
async fn the_sweep_removes_due_content_and_forgets_it() {
    let mut removals = MockContentRemovals::new();
    removals
        .expect_due()
        .withf(|tenant, _, _| tenant.is_none())
        .returning(|_, _, _| Ok(vec![key()]));
    removals
        .expect_due()
        .withf(|tenant, _, _| tenant.is_some_and(|t| t.as_str() == "t1"))
        .returning(|_, _, _| Ok(vec![key()]));
    removals.expect_forget().times(2).returning(|_| Ok(()));
    let content = Arc::new(MemoryStore::default());
    let mut clock = MockClock::new();
    clock.expect_now().returning(now);
    let sweeper = ContentSweeper::new(Arc::new(removals), content.clone(), Arc::new(clock));
    assert_eq!(
        sweeper
            .purge_expired(&principal(), now(), 10)
            .await
            .unwrap(),
        1
    );
    sweeper.erased(&TenantId::new("t1")).await;
    assert_eq!(content.removed.lock().unwrap().len(), 2);
}
