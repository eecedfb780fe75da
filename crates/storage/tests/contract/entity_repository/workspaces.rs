//! The workspace repository: storage of workspaces with their entities in order,
//! lists, updates under a revision, purge, and an entity's erasure.

use rics_domain::entity::repository::EraseGuard;
use rics_domain::list::ListRequest;
use rics_domain::repository::RepositoryError;
use rics_domain::workspace::model::{Workspace, WorkspaceState};
use rics_domain::workspace::service::writable;
use rics_storage::Backend;

use super::support::{Fixture, entity, event};
use crate::support::{at, paging, t1, t2};

fn workspace(id: &str, display_name: &str, entities: &[&str], seconds: i64) -> Workspace {
    Workspace {
        name: Workspace::name_of(id),
        uid: format!("uid-{id}"),
        display_name: display_name.to_owned(),
        description: format!("about {display_name}"),
        entities: entities.iter().map(|e| format!("entities/{e}")).collect(),
        state: WorkspaceState::Open,
        create_time: Some(at(seconds)),
        update_time: Some(at(seconds)),
        etag: rics_domain::resource::etag(&format!("uid-{id}"), 1),
        revision: 1,
        ..Workspace::default()
    }
}

async fn workspaces_round_trip_with_their_entities_in_order(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.workspaces.clone();
    let case = workspace("case", "Case", &["zed", "amy", "bob"], 1);
    repo.create(
        &t1(),
        &case,
        None,
        &[event("ev-w", None, "workspace.created", 1)],
    )
    .await
    .unwrap();
    assert_eq!(repo.get(&t1(), "case").await, Ok(Some(case.clone())));
    assert_eq!(repo.get(&t2(), "case").await, Ok(None));
    assert_eq!(
        repo.create(&t1(), &case, None, &[]).await,
        Err(RepositoryError::AlreadyExists)
    );
    let mut closed = case.clone();
    closed.state = WorkspaceState::Closed;
    closed.entities = vec!["entities/bob".into()];
    closed.revision = 2;
    closed.etag = rics_domain::resource::etag("uid-case", 2);
    assert_eq!(
        repo.update(&t1(), &closed, 7, &[]).await,
        Err(RepositoryError::Conflict)
    );
    repo.update(
        &t1(),
        &closed,
        1,
        &[event("ev-c", None, "workspace.closed", 2)],
    )
    .await
    .unwrap();
    let stored = repo.get(&t1(), "case").await.unwrap().unwrap();
    assert_eq!(stored, closed);
    assert_eq!(writable(&stored).unwrap_err().reason, "WORKSPACE_CLOSED");
    assert_eq!(
        repo.update(&t2(), &closed, 2, &[]).await,
        Err(RepositoryError::NotFound)
    );
    assert_eq!(f.event_ids(&t1()).await, vec!["ev-c", "ev-w"]);
}

contract!(workspaces_round_trip_with_their_entities_in_order);

async fn lists_filter_on_state_entities_and_name(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.workspaces.clone();
    let mut closed = workspace("w2", "Beta", &["amy"], 2);
    closed.state = WorkspaceState::Closed;
    let mut gone = workspace("w4", "Delta", &["amy"], 4);
    gone.delete_time = Some(at(5));
    gone.purge_time = Some(at(6));
    for w in [
        workspace("w1", "Alpha", &["amy", "bob"], 1),
        closed,
        workspace("w3", "Gamma", &["bob"], 3),
        gone,
    ] {
        repo.create(&t1(), &w, None, &[]).await.unwrap();
    }
    repo.create(&t2(), &workspace("w1", "Alpha", &["amy"], 1), None, &[])
        .await
        .unwrap();
    let paging = paging();
    let list = |filter: &str, order_by: &str, show_deleted: bool| ListRequest {
        filter: Some(filter.to_owned()),
        order_by: Some(order_by.to_owned()),
        show_deleted,
        ..ListRequest::default()
    };
    let spec = &rics_domain::workspace::fields::LIST;
    let cases = [
        (list("", "", false), vec!["w1", "w2", "w3"]),
        (list("", "", true), vec!["w1", "w2", "w3", "w4"]),
        (list("state = OPEN", "", false), vec!["w1", "w3"]),
        (
            list("entities:\"entities/amy\"", "", true),
            vec!["w1", "w2", "w4"],
        ),
        (list("displayName = \"G*\"", "", false), vec!["w3"]),
        (list("", "displayName desc", false), vec!["w3", "w2", "w1"]),
    ];
    for (request, expected) in cases {
        let (query, _) = paging.prepare(spec, &t1(), None, &request).unwrap();
        let page = repo.list(&t1(), None, &query).await.unwrap();
        assert_eq!(page.total_size as usize, expected.len(), "{request:?}");
        let ids: Vec<&str> = page.items.iter().map(Workspace::id).collect();
        assert_eq!(ids, expected, "{request:?}");
    }
}

contract!(lists_filter_on_state_entities_and_name);

async fn a_purge_removes_the_workspace_and_its_notes_only_when_due(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.workspaces.clone();
    let mut gone = workspace("gone", "Gone", &["amy"], 1);
    gone.delete_time = Some(at(10));
    gone.purge_time = Some(at(50));
    repo.create(&t1(), &gone, None, &[]).await.unwrap();
    repo.create(&t1(), &workspace("kept", "Kept", &[], 1), None, &[])
        .await
        .unwrap();
    super::notes::write_note(&f, &t1(), "workspaces/gone", "n1", "alice").await;
    assert_eq!(
        repo.find_purge_due(at(40), 10).await.unwrap(),
        Vec::<(rics_domain::principal::TenantId, String)>::new()
    );
    assert_eq!(
        repo.purge(&t1(), "gone", at(40), &[]).await,
        Err(RepositoryError::NotFound)
    );
    assert_eq!(
        repo.find_purge_due(at(60), 10).await.unwrap(),
        vec![(t1(), "gone".to_owned())]
    );
    repo.purge(
        &t1(),
        "gone",
        at(60),
        &[event("ev-p", None, "workspace.purged", 60)],
    )
    .await
    .unwrap();
    assert_eq!(repo.get(&t1(), "gone").await, Ok(None));
    assert!(repo.get(&t1(), "kept").await.unwrap().is_some());
    assert_eq!(super::notes::count_notes(&f, "workspaces/gone").await, 0);
    assert_eq!(f.event_ids(&t1()).await, vec!["ev-p"]);
}

contract!(a_purge_removes_the_workspace_and_its_notes_only_when_due);

async fn erasing_an_entity_removes_its_notes_and_memberships(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.workspaces.clone();
    f.create(&t1(), &entity("amy", "Amy", 0)).await;
    f.create(&t1(), &entity("bob", "Bob", 0)).await;
    f.create(&t2(), &entity("amy", "Amy", 0)).await;
    repo.create(
        &t1(),
        &workspace("case", "Case", &["amy", "bob"], 1),
        None,
        &[],
    )
    .await
    .unwrap();
    repo.create(&t2(), &workspace("case", "Case", &["amy"], 1), None, &[])
        .await
        .unwrap();
    for (tenant, parent, id) in [
        (t1(), "entities/amy", "n1"),
        (t1(), "entities/amy", "n2"),
        (t1(), "entities/bob", "n1"),
        (t2(), "entities/amy", "n1"),
    ] {
        super::notes::write_note(&f, &tenant, parent, id, "alice").await;
    }
    let counts = f
        .repo
        .hard_delete(&t1(), "amy", EraseGuard::Always, &[])
        .await
        .unwrap();
    assert_eq!(counts.get("notes"), Some(&2));
    assert_eq!(counts.get("workspaceMemberships"), Some(&1));
    let case = repo.get(&t1(), "case").await.unwrap().unwrap();
    assert_eq!(case.entities, vec!["entities/bob".to_owned()]);
    assert_eq!(
        super::notes::count_notes(&f, "entities/amy").await,
        1,
        "t2's note stays"
    );
    assert_eq!(super::notes::count_notes(&f, "entities/bob").await, 1);
    let other = repo.get(&t2(), "case").await.unwrap().unwrap();
    assert_eq!(other.entities, vec!["entities/amy".to_owned()]);
}

contract!(erasing_an_entity_removes_its_notes_and_memberships);
