//! Idempotency keys on create (AIP-155): replays, tenants, failed creates, concurrent
//! requests with the same id, and expiry.

use rics_domain::housekeeping::IdempotencyKeyStore;
use rics_domain::repository::{CreateOutcome, IdempotencyKey, RepositoryError};
use rics_storage::{Backend, DieselIdempotencyKeys};

use super::support::{Fixture, as_stored, entity, event, hold_write};
use crate::support::{at, t1, t2};

fn key(n: u32, resource: &str) -> IdempotencyKey {
    IdempotencyKey {
        request_id: format!("00000000-0000-7000-8000-{n:012}"),
        method: "entities.create",
        fingerprint: format!("fingerprint-{n}"),
        resource_name: format!("entities/{resource}"),
    }
}

fn replayed(key: &IdempotencyKey) -> CreateOutcome {
    CreateOutcome::Replayed {
        method: key.method.to_owned(),
        fingerprint: key.fingerprint.clone(),
        resource_name: key.resource_name.clone(),
    }
}

async fn a_used_request_id_replays_and_writes_nothing(backend: Backend) {
    let f = Fixture::new(backend);
    let k1 = key(1, "e1");
    let first = entity("e1", "First", 0);
    let created = f
        .repo
        .create(
            &t1(),
            &first,
            Some(&k1),
            &[event("ev1", Some("e1"), "entity.created", 0)],
        )
        .await;
    assert_eq!(created, Ok(CreateOutcome::Created));

    // A retry (here with another body and id) writes nothing and reports the first
    // request, so the service can compare fingerprints.
    let mut retry_key = key(1, "e2");
    retry_key.fingerprint = "other".into();
    let outcome = f
        .repo
        .create(
            &t1(),
            &entity("e2", "Second", 1),
            Some(&retry_key),
            &[event("ev2", Some("e2"), "entity.created", 1)],
        )
        .await;
    assert_eq!(outcome, Ok(replayed(&k1)));
    assert_eq!(f.repo.get(&t1(), "e2").await, Ok(None));
    assert_eq!(f.get(&t1(), "e1").await, as_stored(&first));
    assert_eq!(f.event_ids(&t1()).await, vec!["ev1"]);
    assert_eq!(f.idempotency_keys(&t1()).await, vec![k1.request_id.clone()]);
    assert_eq!(f.rows_of(&t1(), "e1").await.idempotency_keys, 1);

    // Request ids belong to a tenant.
    let theirs = key(1, "e9");
    assert_eq!(
        f.repo
            .create(&t2(), &entity("e9", "Theirs", 0), Some(&theirs), &[])
            .await,
        Ok(CreateOutcome::Created)
    );
    assert_eq!(f.idempotency_keys(&t2()).await, vec![theirs.request_id]);
}

async fn a_failed_create_keeps_no_key(backend: Backend) {
    let f = Fixture::new(backend);
    f.create(&t1(), &entity("e1", "Taken", 0)).await;
    let k = key(2, "e1");
    assert_eq!(
        f.repo
            .create(&t1(), &entity("e1", "Again", 0), Some(&k), &[])
            .await,
        Err(RepositoryError::AlreadyExists)
    );
    assert!(f.idempotency_keys(&t1()).await.is_empty());
    // The request id was not consumed: a corrected request with it creates.
    let k = key(2, "e2");
    assert_eq!(
        f.repo
            .create(&t1(), &entity("e2", "Fixed", 0), Some(&k), &[])
            .await,
        Ok(CreateOutcome::Created)
    );
}

/// Stores the key `k` for `entities/winner` in a transaction that stays open until
/// the repository's create waits on it.
fn hold_key(url: &str, k: &IdempotencyKey) -> std::thread::JoinHandle<()> {
    hold_write(
        url,
        vec![format!(
            "INSERT INTO idempotency_keys (tenant_id, request_id, method, fingerprint, \
             resource_name, create_time) VALUES ('t1', '{}', '{}', 'winner-fingerprint', \
             'entities/winner', 0)",
            k.request_id, k.method
        )],
    )
}

async fn a_concurrent_request_with_the_same_id_loses(backend: Backend) {
    let f = Fixture::new(backend);
    let k = key(3, "winner");
    let holder = hold_key(f.url(), &k);
    let mut loser_key = k.clone();
    loser_key.resource_name = "entities/loser".into();
    let outcome = f
        .repo
        .create(
            &t1(),
            &entity("loser", "Loser", 0),
            Some(&loser_key),
            &[event("ev-loser", Some("loser"), "entity.created", 0)],
        )
        .await;
    holder.join().unwrap();
    let winner = CreateOutcome::Replayed {
        method: "entities.create".into(),
        fingerprint: "winner-fingerprint".into(),
        resource_name: "entities/winner".into(),
    };
    match backend {
        // Both transactions inserted the key; the second fails on the unique key.
        Backend::Postgres => assert_eq!(outcome, Err(RepositoryError::Conflict)),
        // Writers queue on the database lock, so the second sees the key.
        Backend::Sqlite => assert_eq!(outcome, Ok(winner.clone())),
    }
    assert_eq!(f.repo.get(&t1(), "loser").await, Ok(None));
    assert!(f.events(&t1()).await.is_empty());
    // A retry (what the service does on Conflict) replays the winner.
    let retry = f
        .repo
        .create(&t1(), &entity("loser", "Loser", 0), Some(&loser_key), &[])
        .await;
    assert_eq!(retry, Ok(winner));
    assert_eq!(f.repo.get(&t1(), "loser").await, Ok(None));
}

async fn old_keys_expire_across_tenants(backend: Backend) {
    let f = Fixture::new(backend);
    let store = DieselIdempotencyKeys::new(f.db.clone());
    let keys = [key(1, "e1"), key(2, "e2"), key(3, "e3"), key(4, "e4")];
    // A key is dated by the create it guards.
    let plan = [(t1(), 0), (t1(), 100), (t2(), 50), (t1(), 200)];
    for (i, (tenant, seconds)) in plan.iter().enumerate() {
        let id = format!("e{}", i + 1);
        f.repo
            .create(tenant, &entity(&id, "X", *seconds), Some(&keys[i]), &[])
            .await
            .unwrap();
    }
    assert_eq!(store.expire(at(0)).await, Ok(0));
    // Strictly before: the key of exactly 100 s stays.
    assert_eq!(store.expire(at(100)).await, Ok(2));
    assert_eq!(
        f.idempotency_keys(&t1()).await,
        vec![keys[1].request_id.clone(), keys[3].request_id.clone()]
    );
    assert!(f.idempotency_keys(&t2()).await.is_empty());
    // The entities stay, and a forgotten request id creates again.
    assert_eq!(f.get(&t1(), "e1").await.display_name, "X");
    let again = key(1, "e5");
    assert_eq!(
        f.repo
            .create(&t1(), &entity("e5", "Y", 300), Some(&again), &[])
            .await,
        Ok(CreateOutcome::Created)
    );
    // The kept key still replays.
    assert_eq!(
        f.repo
            .create(&t1(), &entity("e6", "Z", 300), Some(&keys[1]), &[])
            .await,
        Ok(replayed(&keys[1]))
    );
    assert_eq!(store.expire(at(1_000)).await, Ok(3));
}

contract!(
    a_used_request_id_replays_and_writes_nothing,
    a_failed_create_keeps_no_key,
    a_concurrent_request_with_the_same_id_loses,
    old_keys_expire_across_tenants,
);
