//! The test harness itself: a migrated database of each backend round-trips an entity.

use std::sync::Arc;

use diesel::RunQueryDsl;
use rics_domain::entity::Entity;
use rics_domain::entity::repository::EntityRepository;
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_storage::testing::TestDatabase;
use rics_storage::{Backend, DieselEntityRepository};

async fn round_trip(backend: Backend) {
    let test_db = TestDatabase::new(backend);
    let repo: Arc<dyn EntityRepository> =
        Arc::new(DieselEntityRepository::new(test_db.open().unwrap()));
    let tenant = TenantId::new("t1");
    let entity: Entity = serde_json::from_value(serde_json::json!({
        "name": "entities/abcd", "uid": "u1", "displayName": "Ada Lovelace", "entityType": "INDIVIDUAL",
        "individual": {}, "tags": ["a"], "createTime": "2026-01-01T00:00:00Z", "updateTime": "2026-01-01T00:00:00Z"
    }))
    .unwrap();
    let mut entity = entity;
    entity.revision = 1;
    repo.create(&tenant, &entity, None, &[]).await.unwrap();
    let stored = repo.get(&tenant, "abcd").await.unwrap().unwrap();
    assert_eq!(stored.display_name, "Ada Lovelace");
    assert!(
        repo.get(&TenantId::new("t2"), "abcd")
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn sqlite_round_trip() {
    round_trip(Backend::Sqlite).await;
}

#[tokio::test]
async fn postgres_round_trip() {
    round_trip(Backend::Postgres).await;
}

/// Maintenance empties SQLite's write-ahead log (it would grow without bound under a
/// steady stream of writers); the planner statistics the migrations fixed stay.
#[tokio::test]
async fn maintenance_truncates_the_sqlite_log_and_keeps_fixed_statistics() {
    let test_db = TestDatabase::new(Backend::Sqlite);
    let db = test_db.open().unwrap();
    let repo = DieselEntityRepository::new(db.clone());
    let tenant = TenantId::new("t1");
    for i in 0..50 {
        let mut entity: Entity = serde_json::from_value(serde_json::json!({
            "name": format!("entities/e{i:04}"), "uid": "u", "displayName": "Ada Lovelace",
            "entityType": "INDIVIDUAL", "individual": {},
            "createTime": "2026-01-01T00:00:00Z", "updateTime": "2026-01-01T00:00:00Z"
        }))
        .unwrap();
        entity.revision = 1;
        repo.create(&tenant, &entity, None, &[]).await.unwrap();
    }
    let wal = format!("{}-wal", test_db.url().trim_start_matches("sqlite://"));
    let size = || std::fs::metadata(&wal).map_or(0, |m| m.len());
    assert!(size() > 0, "writes go to the log first");
    db.maintain().await.unwrap();
    assert_eq!(size(), 0);
    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let analysed = db
        .run(|conn| {
            diesel::sql_query(
                "SELECT COUNT(*) AS n FROM sqlite_stat1 WHERE idx = 'entities_by_display_name' \
                 AND stat = '1000000 100000 3 1 1'",
            )
            .get_result::<Count>(conn)
            .map_err(rics_storage::error::repository_error)
        })
        .await
        .unwrap()
        .n;
    assert_eq!(analysed, 1, "the name index keeps its fixed statistics");
    assert!(repo.get(&tenant, "e0049").await.unwrap().is_some());
}

/// On PostgreSQL with autovacuum off (as on the machines this runs on), maintenance
/// vacuums and analyses tables that changed a lot since their last analysis (plans
/// made for empty tables are otherwise kept).
#[tokio::test]
async fn maintenance_analyses_changed_postgres_tables() {
    let test_db = TestDatabase::new(Backend::Postgres);
    let db = test_db.open().unwrap();
    let execute = |sql: &'static str| {
        let db = db.clone();
        async move {
            db.run(move |conn| {
                diesel::sql_query(sql)
                    .execute(conn)
                    .map_err(rics_storage::error::repository_error)
            })
            .await
            .unwrap()
        }
    };
    execute(
        "INSERT INTO idempotency_keys (tenant_id, request_id, method, fingerprint, resource_name, create_time) \
         SELECT 't', 'r' || g, 'm', 'f', 'n', 0 FROM generate_series(1, 1500) g",
    )
    .await;
    let analysed = "SELECT 1 FROM pg_stat_user_tables WHERE schemaname = current_schema() \
                    AND relname = 'idempotency_keys' AND last_analyze IS NOT NULL";
    assert_eq!(execute(analysed).await, 0);
    // Table statistics reach the catalog views asynchronously: poll.
    let mut done = false;
    for _ in 0..40 {
        execute("SELECT pg_stat_force_next_flush()").await;
        db.maintain().await.unwrap();
        if execute(analysed).await == 1 {
            done = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(done, "the changed table was analysed");
}

/// The pool hands connections out untested (a test is a round trip per unit of work): a
/// connection the database closed fails the one unit of work that finds it dead, diesel
/// marks it broken, the pool closes it, and the next unit of work gets a live one.
#[tokio::test]
async fn a_connection_the_database_closed_fails_once_and_is_replaced() {
    use diesel::Connection;
    #[derive(diesel::QueryableByName)]
    struct Pid {
        #[diesel(sql_type = diesel::sql_types::Integer)]
        pid: i32,
    }
    let test_db = TestDatabase::new(Backend::Postgres);
    let db = test_db.open().unwrap();
    let backend_pid = || {
        db.run(|conn| {
            diesel::sql_query("SELECT pg_backend_pid() AS pid")
                .get_result::<Pid>(conn)
                .map(|row| row.pid)
                .map_err(rics_storage::error::repository_error)
        })
    };
    let pid = backend_pid().await.unwrap();
    let mut other = diesel::PgConnection::establish(test_db.url()).unwrap();
    diesel::sql_query(format!("SELECT pg_terminate_backend({pid})"))
        .execute(&mut other)
        .unwrap();

    // The pool hands out the connection it got back last: the dead one.
    let found_dead = backend_pid().await;
    assert!(
        matches!(found_dead, Err(RepositoryError::Unavailable(_))),
        "{found_dead:?}"
    );
    for _ in 0..3 {
        let live = backend_pid().await.unwrap();
        assert_ne!(live, pid);
    }
}
