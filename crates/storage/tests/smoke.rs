//! The test harness itself: a migrated database of each backend round-trips an entity.

#![cfg(test)]

use std::sync::Arc;

use rics_domain::entity::Entity;
use rics_domain::entity::repository::EntityRepository;
use rics_domain::principal::TenantId;
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
