//! Files and their content: the file repository (files keyed by parent and id, lists
//! per parent with their filters, soft delete, purge by name, an entity's erasure),
//! the content ledger it keeps in the same transactions, and the database content
//! store (whole or nothing, chunked reads, its bound on size and on uploads at once).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use rics_domain::entity::repository::EraseGuard;
use rics_domain::error::{Code, Error};
use rics_domain::file::content::{ContentKey, ContentStream, FileStore};
use rics_domain::file::fields::LIST;
use rics_domain::file::model::File;
use rics_domain::file::ports::ContentRemovals;
use rics_domain::form::model::{Form, FormState};
use rics_domain::form_definition::seed::{KYC_INDIVIDUAL, KYC_INDIVIDUAL_REVISION};
use rics_domain::lifecycle::SoftDeletable;
use rics_domain::list::{ListRequest, Paging};
use rics_domain::repository::{IdempotencyKey, RepositoryError, ResourceStore};
use rics_domain::time::Timestamp;
use rics_storage::file_contents::CHUNK_BYTES;
use rics_storage::{Backend, DatabaseFileStore, DieselFileRepository, DieselFormRepository};
use uuid::Uuid;

use super::support::{Fixture, entity, event};
use crate::file_content::content;
use crate::support::{at, paging, request, t1, t2};

/// The uid of file number `n`.
fn uid(n: u8) -> String {
    Uuid::from_bytes([n; 16]).to_string()
}

/// The content key of file number `n` in `tenant` `t1`.
fn key(n: u8) -> ContentKey {
    ContentKey {
        tenant: t1(),
        file: Uuid::from_bytes([n; 16]),
    }
}

/// A PDF file `id` of `parent`, uid number `n`, named `display_name`, created at
/// `at(seconds)`.
fn file(parent: &str, id: &str, n: u8, display_name: &str, seconds: i64) -> File {
    File {
        name: format!("{parent}/files/{id}"),
        uid: uid(n),
        display_name: display_name.to_owned(),
        content_type: "application/pdf".into(),
        size_bytes: 1234,
        sha256: "ab".repeat(32),
        create_time: Some(at(seconds)),
        update_time: Some(at(seconds)),
        etag: rics_domain::resource::etag(&uid(n), 1),
        revision: 1,
        ..File::default()
    }
}

/// The names one list of `parent` with `request` returns.
async fn names(
    repo: &DieselFileRepository,
    paging: &Paging,
    parent: &str,
    request: &ListRequest,
) -> Vec<String> {
    let (query, _) = paging.prepare(&LIST, &t1(), Some(parent), request).unwrap();
    repo.list(&t1(), Some(parent), &query)
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|f| f.name)
        .collect()
}

/// A fixture with the entities `amy` and `bob` in `t1`, and `amy` in `t2`.
async fn fixture(backend: Backend) -> (Fixture, Arc<DieselFileRepository>) {
    let f = Fixture::new(backend);
    for (tenant, id) in [(t1(), "amy"), (t1(), "bob"), (t2(), "amy")] {
        f.create(&tenant, &entity(id, "Amy", 1)).await;
    }
    let repo = Arc::new(DieselFileRepository::new(f.db.clone()));
    (f, repo)
}

async fn files_are_kept_per_parent_and_listed_with_filters(backend: Backend) {
    let (f, repo) = fixture(backend).await;
    let scan = file("entities/amy", "scan", 1, "scan.pdf", 1);
    repo.create(
        &t1(),
        &scan,
        None,
        &[event("ev-1", Some("amy"), "file.created", 1)],
    )
    .await
    .unwrap();
    repo.create(
        &t1(),
        &file("entities/bob", "scan", 2, "bob.pdf", 2),
        None,
        &[],
    )
    .await
    .unwrap();
    repo.create(
        &t2(),
        &file("entities/amy", "scan", 3, "other.pdf", 2),
        None,
        &[],
    )
    .await
    .unwrap();
    let mut photo = file("entities/amy", "photo", 4, "photo.png", 3);
    photo.content_type = "image/png".into();
    repo.create(&t1(), &photo, None, &[]).await.unwrap();
    assert_eq!(
        repo.create(&t1(), &scan, None, &[]).await,
        Err(RepositoryError::AlreadyExists)
    );
    assert_eq!(
        repo.create(&t1(), &file("entities/nobody", "x", 5, "x", 1), None, &[])
            .await,
        Err(RepositoryError::NotFound),
        "a file needs its entity"
    );
    assert_eq!(
        repo.get(&t1(), "entities/amy/files/scan").await,
        Ok(Some(scan.clone()))
    );
    assert_eq!(
        repo.get(&t1(), "entities/nobody/files/scan").await,
        Ok(None)
    );
    assert_eq!(f.event_ids(&t1()).await, vec!["ev-1".to_owned()]);

    let paging = paging();
    let all = ListRequest::default();
    assert_eq!(
        names(&repo, &paging, "entities/amy", &all).await,
        vec!["entities/amy/files/scan", "entities/amy/files/photo"]
    );
    for (filter, expected) in [
        (
            "displayName = \"photo.png\"",
            vec!["entities/amy/files/photo"],
        ),
        (
            "contentType = \"application/pdf\"",
            vec!["entities/amy/files/scan"],
        ),
        (
            "createTime > \"2026-01-01T00:00:02Z\"",
            vec!["entities/amy/files/photo"],
        ),
    ] {
        assert_eq!(
            names(&repo, &paging, "entities/amy", &request(filter, "", 10)).await,
            expected,
            "{filter}"
        );
    }
    assert_eq!(
        names(
            &repo,
            &paging,
            "entities/amy",
            &request("", "displayName", 10)
        )
        .await,
        vec!["entities/amy/files/photo", "entities/amy/files/scan"]
    );

    let mut deleted = scan.clone();
    deleted.delete_time = Some(at(10));
    deleted.purge_time = Some(at(50));
    deleted.revision = 2;
    deleted.etag = rics_domain::resource::etag(&deleted.uid, 2);
    repo.update(&t1(), &deleted, 1, &[]).await.unwrap();
    assert_eq!(
        names(&repo, &paging, "entities/amy", &all).await,
        vec!["entities/amy/files/photo"]
    );
    let shown = ListRequest {
        show_deleted: true,
        ..ListRequest::default()
    };
    assert_eq!(names(&repo, &paging, "entities/amy", &shown).await.len(), 2);
}

async fn the_ledger_holds_uploads_until_their_file_is_stored(backend: Backend) {
    let (_f, repo) = fixture(backend).await;
    repo.schedule(&key(1), at(100)).await.unwrap();
    repo.schedule(&key(2), at(100)).await.unwrap();
    repo.schedule(&key(2), at(200)).await.unwrap();
    assert!(repo.due(None, at(99), 10).await.unwrap().is_empty());
    assert_eq!(repo.due(None, at(101), 10).await.unwrap(), vec![key(1)]);
    assert_eq!(repo.due(None, at(201), 1).await.unwrap(), vec![key(1)]);
    assert_eq!(
        repo.due(Some(&t1()), at(201), 10).await.unwrap(),
        vec![key(1), key(2)]
    );
    assert!(repo.due(Some(&t2()), at(201), 10).await.unwrap().is_empty());
    // Storing the file settles its content.
    repo.create(&t1(), &file("entities/amy", "a", 1, "a.pdf", 1), None, &[])
        .await
        .unwrap();
    assert_eq!(repo.due(None, at(201), 10).await.unwrap(), vec![key(2)]);
    // Content a stored file holds is never due, even if scheduled again.
    repo.schedule(&key(1), at(0)).await.unwrap();
    assert_eq!(repo.due(None, at(201), 10).await.unwrap(), vec![key(2)]);
    repo.forget(&key(2)).await.unwrap();
    repo.forget(&key(2)).await.unwrap();
    assert!(repo.due(None, at(201), 10).await.unwrap().is_empty());
}

async fn a_purge_removes_the_file_by_name_and_schedules_its_content(backend: Backend) {
    let (f, repo) = fixture(backend).await;
    let mut gone = file("entities/amy", "gone", 1, "gone.pdf", 1);
    gone.delete_time = Some(at(10));
    gone.purge_time = Some(at(50));
    repo.create(&t1(), &gone, None, &[]).await.unwrap();
    repo.create(
        &t1(),
        &file("entities/bob", "gone", 2, "kept.pdf", 1),
        None,
        &[],
    )
    .await
    .unwrap();
    assert!(repo.find_purge_due(at(40), 10).await.unwrap().is_empty());
    assert_eq!(
        repo.purge(&t1(), "entities/amy/files/gone", at(40), &[])
            .await,
        Err(RepositoryError::NotFound),
        "not due yet"
    );
    let due = repo.find_purge_due(at(60), 10).await.unwrap();
    assert_eq!(due, vec![(t1(), "entities/amy/files/gone".to_owned())]);
    repo.purge(
        &t1(),
        &due[0].1,
        at(60),
        &[event("ev-p", Some("amy"), "file.purged", 60)],
    )
    .await
    .unwrap();
    assert_eq!(repo.get(&t1(), "entities/amy/files/gone").await, Ok(None));
    assert!(
        repo.get(&t1(), "entities/bob/files/gone")
            .await
            .unwrap()
            .is_some()
    );
    assert_eq!(repo.due(None, at(60), 10).await.unwrap(), vec![key(1)]);
    assert_eq!(f.event_ids(&t1()).await, vec!["ev-p".to_owned()]);
    assert_eq!(
        repo.purge(&t1(), "entities/amy/files/gone", at(60), &[])
            .await,
        Err(RepositoryError::NotFound)
    );
}

async fn an_erasure_removes_the_entitys_files_and_schedules_their_content(backend: Backend) {
    let (f, repo) = fixture(backend).await;
    let request_key = IdempotencyKey {
        request_id: "6f1d3c1e-5d7a-4f4e-9a52-3f6f2a1c9d10".into(),
        method: "files.create",
        fingerprint: "f".into(),
        resource_name: "entities/amy/files/a".into(),
    };
    repo.create(
        &t1(),
        &file("entities/amy", "a", 1, "a.pdf", 1),
        Some(&request_key),
        &[],
    )
    .await
    .unwrap();
    repo.create(&t1(), &file("entities/amy", "b", 2, "b.pdf", 1), None, &[])
        .await
        .unwrap();
    repo.create(&t1(), &file("entities/bob", "a", 3, "a.pdf", 1), None, &[])
        .await
        .unwrap();
    repo.create(&t2(), &file("entities/amy", "a", 4, "a.pdf", 1), None, &[])
        .await
        .unwrap();
    let counts = f
        .repo
        .hard_delete(&t1(), "amy", EraseGuard::Always, &[])
        .await
        .unwrap();
    assert_eq!(counts["files"], 2);
    assert_eq!(counts["idempotencyKeys"], 1);
    assert!(f.idempotency_keys(&t1()).await.is_empty());
    assert_eq!(repo.get(&t1(), "entities/amy/files/a").await, Ok(None));
    assert!(
        repo.get(&t1(), "entities/bob/files/a")
            .await
            .unwrap()
            .is_some()
    );
    assert!(
        repo.get(&t2(), "entities/amy/files/a")
            .await
            .unwrap()
            .is_some()
    );
    let mut due = repo
        .due(None, Timestamp::from_unix_micros(1).unwrap(), 10)
        .await
        .unwrap();
    due.sort_by_key(|k| k.file);
    assert_eq!(due, vec![key(1), key(2)], "due at once");
}

/// The form `id` of `kyc-individual`, in `state`, about `entity` when given, with a
/// deadline at `at(deadline)` when given.
fn form(id: &str, entity: Option<&str>, state: FormState, deadline: Option<i64>) -> Form {
    let mut form = Form {
        form_definition: format!("formDefinitions/{KYC_INDIVIDUAL}@{KYC_INDIVIDUAL_REVISION}"),
        entity: entity.map(|e| format!("entities/{e}")).unwrap_or_default(),
        state,
        expire_time: deadline.map(at),
        ..Form::default()
    };
    form.begin(Form::name_of(id), format!("uid-{id}"), at(0));
    form
}

async fn a_form_file_needs_a_draft_form_and_goes_with_its_entity_s_erasure(backend: Backend) {
    let (f, repo) = fixture(backend).await;
    let forms = DieselFormRepository::new(f.db.clone());
    for stored in [
        form("draft", Some("amy"), FormState::Draft, None),
        form("lone", None, FormState::Draft, None),
        form("sent", Some("amy"), FormState::Submitted, None),
        form("late", Some("amy"), FormState::Draft, Some(5)),
    ] {
        forms.create(&t1(), &stored, None, &[]).await.unwrap();
    }
    let scan = file("forms/draft", "scan", 1, "scan.pdf", 10);
    repo.create(&t1(), &scan, None, &[]).await.unwrap();
    repo.create(
        &t1(),
        &file("forms/lone", "scan", 2, "scan.pdf", 10),
        None,
        &[],
    )
    .await
    .unwrap();
    for (parent, refused) in [
        ("forms/sent", RepositoryError::Conflict),
        ("forms/late", RepositoryError::Conflict),
        ("forms/nobody", RepositoryError::NotFound),
    ] {
        assert_eq!(
            repo.create(&t1(), &file(parent, "x", 3, "x.pdf", 10), None, &[])
                .await,
            Err(refused),
            "{parent}"
        );
    }
    let read = repo.get(&t1(), "forms/draft/files/scan").await.unwrap();
    assert_eq!(
        read,
        Some(File {
            form_entity: Some("entities/amy".into()),
            ..scan
        }),
        "a form's file reads with its form's entity"
    );
    let lone = repo.get(&t1(), "forms/lone/files/scan").await.unwrap();
    assert_eq!(lone.map(|file| file.form_entity), Some(None));
    let listed = names(&repo, &paging(), "forms/draft", &ListRequest::default()).await;
    assert_eq!(listed, vec!["forms/draft/files/scan"]);

    let counts = f
        .repo
        .hard_delete(&t1(), "amy", EraseGuard::Always, &[])
        .await
        .unwrap();
    assert_eq!(counts["formFiles"], 1);
    assert_eq!(repo.get(&t1(), "forms/draft/files/scan").await, Ok(None));
    assert!(
        repo.get(&t1(), "forms/lone/files/scan")
            .await
            .unwrap()
            .is_some()
    );
    let due = repo
        .due(None, Timestamp::from_unix_micros(1).unwrap(), 10)
        .await
        .unwrap();
    assert_eq!(due, vec![key(1)], "its content is due at once");
}

contract!(
    files_are_kept_per_parent_and_listed_with_filters,
    the_ledger_holds_uploads_until_their_file_is_stored,
    a_purge_removes_the_file_by_name_and_schedules_its_content,
    an_erasure_removes_the_entitys_files_and_schedules_their_content,
    a_form_file_needs_a_draft_form_and_goes_with_its_entity_s_erasure,
);

/// Everything a read of `key` streams, chunk by chunk.
async fn read_all(store: &DatabaseFileStore, key: &ContentKey) -> Result<Vec<Bytes>, Error> {
    let mut stream = store.read(key).await?;
    let mut chunks = Vec::new();
    while let Some(chunk) = stream.next().await {
        chunks.push(chunk?);
    }
    Ok(chunks)
}

async fn the_database_store_keeps_content_whole_or_not_at_all(backend: Backend) {
    let (f, _) = fixture(backend).await;
    let store = DatabaseFileStore::new(f.db.clone(), 4 * CHUNK_BYTES as u64, 2);
    let big: Vec<u8> = (0..CHUNK_BYTES * 2 + 10).map(|i| (i % 251) as u8).collect();
    let written = store
        .write(
            &key(1),
            content(vec![big[..7].to_vec(), big[7..].to_vec()], None),
        )
        .await
        .unwrap();
    assert_eq!(written, big.len() as u64);
    let chunks = read_all(&store, &key(1)).await.unwrap();
    assert_eq!(chunks.len(), 3, "read a chunk at a time");
    assert!(chunks.iter().all(|c| c.len() <= CHUNK_BYTES));
    assert_eq!(chunks.concat(), big);
    let other_tenant = ContentKey {
        tenant: t2(),
        ..key(1)
    };
    let missing = read_all(&store, &other_tenant).await.unwrap_err();
    assert_eq!(
        (missing.code, missing.reason),
        (Code::NotFound, "FILE_CONTENT_MISSING")
    );

    let broken = Error::invalid_field("file.content", "FILE_TOO_LARGE", "too large");
    let error = store
        .write(
            &key(2),
            content(vec![b"partial".to_vec()], Some(broken.clone())),
        )
        .await
        .unwrap_err();
    assert_eq!(error, broken, "the stream's error comes back as it came");
    assert_eq!(
        read_all(&store, &key(2)).await.unwrap_err().code,
        Code::NotFound
    );

    let over = vec![0u8; 4 * CHUNK_BYTES + 1];
    let error = store
        .write(&key(3), content(vec![over], None))
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::ResourceExhausted);
    assert_eq!(
        read_all(&store, &key(3)).await.unwrap_err().code,
        Code::NotFound
    );

    store.remove(&key(1)).await.unwrap();
    assert_eq!(
        read_all(&store, &key(1)).await.unwrap_err().code,
        Code::NotFound
    );
    store.remove(&key(1)).await.unwrap();
}

async fn the_database_store_admits_a_bounded_number_of_uploads(backend: Backend) {
    let (f, _) = fixture(backend).await;
    let store = Arc::new(DatabaseFileStore::new(f.db.clone(), 1024, 1));
    let (release, held) = tokio::sync::oneshot::channel::<()>();
    let first: ContentStream = Box::pin(futures_util::stream::once(async move {
        let _ = held.await;
        Ok(Bytes::from_static(b"first"))
    }));
    let writer = {
        let store = store.clone();
        tokio::spawn(async move { store.write(&key(1), first).await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    let polled = Arc::new(AtomicBool::new(false));
    let seen = polled.clone();
    let second: ContentStream = Box::pin(futures_util::stream::once(async move {
        seen.store(true, Ordering::SeqCst);
        Ok(Bytes::from_static(b"second"))
    }));
    let waiting = {
        let store = store.clone();
        tokio::spawn(async move { store.write(&key(2), second).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        !polled.load(Ordering::SeqCst),
        "the second upload waits before reading"
    );
    release.send(()).unwrap();
    assert_eq!(writer.await.unwrap().unwrap(), 5);
    assert_eq!(waiting.await.unwrap().unwrap(), 6);
    assert!(polled.load(Ordering::SeqCst));
}

contract!(
    the_database_store_keeps_content_whole_or_not_at_all,
    the_database_store_admits_a_bounded_number_of_uploads,
);
