//! The async bridge under load: concurrent writers, optimistic concurrency, a
//! saturated pool and a locked SQLite database answer UNAVAILABLE instead of hanging.

use std::sync::Arc;
use std::time::Duration;

use diesel::RunQueryDsl;
use rics_domain::entity::repository::EntityRepository;
use rics_domain::repository::RepositoryError;
use rics_storage::connection::{DatabaseUrl, connect};
use rics_storage::testing::TestDatabase;
use rics_storage::{Backend, Database, DieselEntityRepository, PoolOptions};

use super::support::{Fixture, entity};
use crate::support::t1;

async fn concurrent_creates_all_succeed(backend: Backend) {
    let f = Fixture::new(backend);
    let tasks: Vec<_> = (0..24)
        .map(|i| {
            let repo = f.repo.clone();
            tokio::spawn(async move {
                let mut e = entity(&format!("c{i:02}"), "Concurrent", i);
                e.tags = vec![format!("t{}", i % 3)];
                repo.create(&t1(), &e, None, &[]).await
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap().unwrap();
    }
    let ids: Vec<String> = (0..24).map(|i| format!("c{i:02}")).collect();
    assert_eq!(f.repo.get_many(&t1(), &ids).await.unwrap().len(), 24);
}

async fn concurrent_updates_of_one_revision_let_exactly_one_win(backend: Backend) {
    let f = Fixture::new(backend);
    f.create(&t1(), &entity("e1", "Original", 0)).await;
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let repo = f.repo.clone();
            tokio::spawn(async move {
                let mut e = entity("e1", &format!("Writer {i}"), 0);
                e.revision = 2;
                repo.update(&t1(), &e, 1, &[]).await.map(|()| i)
            })
        })
        .collect();
    let mut winners = Vec::new();
    for task in tasks {
        match task.await.unwrap() {
            Ok(i) => winners.push(i),
            Err(e) => assert_eq!(e, RepositoryError::Conflict),
        }
    }
    assert_eq!(winners.len(), 1, "winners: {winners:?}");
    let stored = f.get(&t1(), "e1").await;
    assert_eq!(
        (stored.display_name, stored.revision),
        (format!("Writer {}", winners[0]), 2)
    );
}

async fn a_saturated_pool_answers_unavailable(backend: Backend) {
    let test_db = TestDatabase::new(backend);
    let db = Database::open(
        test_db.url(),
        PoolOptions {
            max_size: 1,
            acquire_timeout: Duration::from_millis(200),
            ..PoolOptions::default()
        },
    )
    .unwrap();
    let repo: Arc<dyn EntityRepository> = Arc::new(DieselEntityRepository::new(db.clone()));
    let (started, wait) = tokio::sync::oneshot::channel();
    let holder = db.clone();
    let busy = tokio::spawn(async move {
        holder
            .run(move |_conn| {
                let _ = started.send(());
                std::thread::sleep(Duration::from_millis(1_500));
                Ok(())
            })
            .await
    });
    wait.await.unwrap();
    let refused = repo.get(&t1(), "e1").await;
    assert!(
        matches!(refused, Err(RepositoryError::Unavailable(_))),
        "{refused:?}"
    );
    busy.await.unwrap().unwrap();
    // Once the connection is back, calls go through.
    assert_eq!(repo.get(&t1(), "e1").await, Ok(None));
}

async fn a_panicking_unit_of_work_is_an_internal_error(backend: Backend) {
    let f = Fixture::new(backend);
    let result: Result<(), RepositoryError> = f.db.run(|_conn| panic!("boom")).await;
    assert!(
        matches!(result, Err(RepositoryError::Internal(_))),
        "{result:?}"
    );
    // The pool still works.
    assert_eq!(f.repo.get(&t1(), "x").await, Ok(None));
}

/// SQLite: a write that cannot get the database lock within the busy timeout is
/// UNAVAILABLE (retry later), and leaves nothing behind.
#[tokio::test]
async fn sqlite_busy_is_unavailable() {
    let test_db = TestDatabase::new(Backend::Sqlite);
    let db = Database::open(
        test_db.url(),
        PoolOptions {
            max_size: 2,
            busy_timeout: Duration::from_millis(100),
            ..PoolOptions::default()
        },
    )
    .unwrap();
    let repo = DieselEntityRepository::new(db);
    let url = DatabaseUrl::parse(test_db.url()).unwrap();
    let (locked, release) = (
        Arc::new(std::sync::Barrier::new(2)),
        Arc::new(std::sync::Barrier::new(2)),
    );
    let holder = {
        let (locked, release) = (locked.clone(), release.clone());
        std::thread::spawn(move || {
            let mut conn = connect(&url).unwrap();
            diesel::sql_query("BEGIN IMMEDIATE")
                .execute(&mut conn)
                .unwrap();
            locked.wait();
            release.wait();
            diesel::sql_query("COMMIT").execute(&mut conn).unwrap();
        })
    };
    tokio::task::spawn_blocking(move || locked.wait())
        .await
        .unwrap();
    let refused = repo.create(&t1(), &entity("e1", "E", 0), None, &[]).await;
    assert!(
        matches!(refused, Err(RepositoryError::Unavailable(_))),
        "{refused:?}"
    );
    tokio::task::spawn_blocking(move || release.wait())
        .await
        .unwrap();
    holder.join().unwrap();
    assert_eq!(repo.get(&t1(), "e1").await, Ok(None));
    repo.create(&t1(), &entity("e1", "E", 0), None, &[])
        .await
        .unwrap();
}

contract!(
    concurrent_creates_all_succeed,
    concurrent_updates_of_one_revision_let_exactly_one_win,
    a_saturated_pool_answers_unavailable,
    a_panicking_unit_of_work_is_an_internal_error,
);
