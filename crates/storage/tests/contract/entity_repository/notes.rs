//! The note repository: notes keyed by parent and id, lists per parent, changes under
//! a revision, with their events in the same transaction.

use rics_domain::list::{ListQuery, ListRequest, Paging};
use rics_domain::note::fields::LIST;
use rics_domain::note::model::Note;
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_storage::Backend;

use super::support::{Fixture, event};
use crate::support::{at, paging, t1, t2};

/// A note `id` of `parent` by `author`, created at `at(1)`.
fn note(parent: &str, id: &str, author: &str, seconds: i64) -> Note {
    Note {
        name: format!("{parent}/notes/{id}"),
        uid: format!("uid-{id}"),
        content: format!("note {id} about {parent}"),
        author_id: author.to_owned(),
        author: format!("{author} (display)"),
        create_time: Some(at(seconds)),
        update_time: Some(at(seconds)),
        is_edited: false,
        etag: rics_domain::resource::etag(&format!("uid-{id}"), 1),
        revision: 1,
    }
}

/// Stores a note, panicking on failure (for other modules' tests).
pub async fn write_note(f: &Fixture, tenant: &TenantId, parent: &str, id: &str, author: &str) {
    f.notes
        .clone()
        .create(tenant, &note(parent, id, author, 1), None, &[])
        .await
        .unwrap();
}

/// How many notes `parent` has, in every tenant.
pub async fn count_notes(f: &Fixture, parent: &str) -> usize {
    let mut total = 0;
    for tenant in [t1(), t2()] {
        let page = f
            .notes
            .clone()
            .list(
                &tenant,
                Some(parent),
                &query(&paging(), &ListRequest::default()),
            )
            .await
            .unwrap();
        total += page.items.len();
    }
    total
}

fn query(paging: &Paging, request: &ListRequest) -> ListQuery {
    paging.prepare(&LIST, &t1(), Some("p"), request).unwrap().0
}

async fn notes_are_kept_per_parent_and_tenant(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.notes.clone();
    let first = note("entities/amy", "n1", "alice", 1);
    repo.create(
        &t1(),
        &first,
        None,
        &[event("ev-1", Some("amy"), "note.created", 1)],
    )
    .await
    .unwrap();
    // The same id under another parent or tenant is another note.
    repo.create(&t1(), &note("workspaces/amy", "n1", "bob", 2), None, &[])
        .await
        .unwrap();
    repo.create(&t2(), &note("entities/amy", "n1", "bob", 2), None, &[])
        .await
        .unwrap();
    assert_eq!(
        repo.create(&t1(), &first, None, &[]).await,
        Err(RepositoryError::AlreadyExists)
    );
    assert_eq!(
        repo.get(&t1(), "entities/amy/notes/n1").await,
        Ok(Some(first.clone()))
    );
    assert_eq!(repo.get(&t1(), "entities/bob/notes/n1").await, Ok(None));
    let mut edited = first.clone();
    edited.content = "changed".into();
    edited.is_edited = true;
    edited.revision = 2;
    edited.update_time = Some(at(5));
    edited.etag = rics_domain::resource::etag("uid-n1", 2);
    assert_eq!(
        repo.update(&t1(), &edited, 5, &[]).await,
        Err(RepositoryError::Conflict)
    );
    repo.update(
        &t1(),
        &edited,
        1,
        &[event("ev-2", Some("amy"), "note.updated", 5)],
    )
    .await
    .unwrap();
    assert_eq!(
        repo.get(&t1(), "entities/amy/notes/n1").await,
        Ok(Some(edited.clone()))
    );
    assert_eq!(
        repo.remove(&t1(), &first, &[]).await,
        Err(RepositoryError::Conflict)
    );
    repo.remove(
        &t1(),
        &edited,
        &[event("ev-3", Some("amy"), "note.deleted", 6)],
    )
    .await
    .unwrap();
    assert_eq!(
        repo.remove(&t1(), &edited, &[]).await,
        Err(RepositoryError::NotFound)
    );
    assert_eq!(repo.get(&t1(), "entities/amy/notes/n1").await, Ok(None));
    assert!(
        repo.get(&t2(), "entities/amy/notes/n1")
            .await
            .unwrap()
            .is_some()
    );
    assert_eq!(f.event_ids(&t1()).await, vec!["ev-1", "ev-2", "ev-3"]);
}

contract!(notes_are_kept_per_parent_and_tenant);

async fn a_failed_note_write_leaves_no_event(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.notes.clone();
    let first = note("entities/amy", "n1", "alice", 1);
    repo.create(&t1(), &first, None, &[]).await.unwrap();
    // The duplicate fails after its event was queued in the same transaction.
    let failed = repo
        .create(
            &t1(),
            &first,
            None,
            &[event("ev-lost", Some("amy"), "note.created", 2)],
        )
        .await;
    assert_eq!(failed, Err(RepositoryError::AlreadyExists));
    assert!(f.event_ids(&t1()).await.is_empty());
}

contract!(a_failed_note_write_leaves_no_event);

async fn a_parents_notes_page_in_creation_order(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.notes.clone();
    for i in 0..7 {
        let author = if i % 2 == 0 { "alice" } else { "bob" };
        repo.create(
            &t1(),
            &note("entities/amy", &format!("n{i}"), author, 10 - i),
            None,
            &[],
        )
        .await
        .unwrap();
    }
    repo.create(&t1(), &note("entities/bob", "other", "alice", 1), None, &[])
        .await
        .unwrap();
    let paging = paging();
    let mut request = ListRequest {
        page_size: Some(3),
        filter: Some("authorId = \"alice\"".into()),
        ..ListRequest::default()
    };
    let mut seen = Vec::new();
    loop {
        let (query, context) = paging
            .prepare(&LIST, &t1(), Some("entities/amy"), &request)
            .unwrap();
        let page = repo
            .list(&t1(), Some("entities/amy"), &query)
            .await
            .unwrap();
        assert_eq!(page.total_size, 4);
        let response = paging.finish(context, page);
        seen.extend(response.items.into_iter().map(|n| n.name));
        match response.next_page_token {
            Some(token) => request.page_token = Some(token),
            None => break,
        }
    }
    let expected: Vec<String> = ["n6", "n4", "n2", "n0"]
        .iter()
        .map(|id| format!("entities/amy/notes/{id}"))
        .collect();
    assert_eq!(seen, expected);
}

contract!(a_parents_notes_page_in_creation_order);
