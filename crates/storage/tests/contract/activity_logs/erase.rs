//! Erasing an entity erases every activity log naming it, with the log's events under
//! every entity it named and its idempotency keys, in the erasure's transaction.

use rics_domain::entity::repository::EraseGuard;
use rics_domain::repository::{IdempotencyKey, RepositoryError};
use rics_storage::Backend;

use super::support::{Fixture, event, log};
use crate::support::{t1, t2};

fn key(n: u32, log: &str) -> IdempotencyKey {
    IdempotencyKey {
        request_id: format!("00000000-0000-7000-8000-{n:012}"),
        method: "activityLogs.create",
        fingerprint: "f".into(),
        resource_name: format!("activityLogs/{log}"),
    }
}

/// `jane` has a log of her own and one shared with `acme`; `acme` has one of its own;
/// the second tenant has a `jane` with a log of the same id. Each log has one
/// `activity_log.created` event per entity it names.
async fn seed(f: &Fixture) {
    f.entities(&t1(), &["jane", "acme"]).await;
    f.entities(&t2(), &["jane"]).await;
    for (n, id, entities) in [
        (1, "own", vec!["jane"]),
        (2, "shared", vec!["jane", "acme"]),
        (3, "acme-only", vec!["acme"]),
    ] {
        let events: Vec<_> = entities
            .iter()
            .map(|e| {
                event(
                    &format!("ev-{id}-{e}"),
                    Some(e),
                    "activity_log.created",
                    &format!("activityLogs/{id}"),
                )
            })
            .collect();
        f.logs
            .create(
                &t1(),
                &log(id, &entities, n.into()),
                Some(&key(n, id)),
                &events,
            )
            .await
            .unwrap();
    }
    f.logs
        .create(
            &t2(),
            &log("own", &["jane"], 0),
            Some(&key(1, "own")),
            &[event(
                "ev-t2",
                Some("jane"),
                "activity_log.created",
                "activityLogs/own",
            )],
        )
        .await
        .unwrap();
}

async fn erasing_an_entity_erases_the_logs_naming_it(backend: Backend) {
    let f = Fixture::new(backend);
    seed(&f).await;
    // An event of acme about something else stays.
    f.entities
        .update(
            &t1(),
            &{
                let mut acme = f.entities.get(&t1(), "acme").await.unwrap().unwrap();
                acme.revision = 2;
                acme
            },
            1,
            &[event(
                "ev-acme-updated",
                Some("acme"),
                "entity.updated",
                "entities/acme",
            )],
        )
        .await
        .unwrap();
    let counts = f
        .entities
        .hard_delete(
            &t1(),
            "jane",
            EraseGuard::Always,
            &[event("ev-erased", None, "entity.hard_deleted", "entities")],
        )
        .await
        .unwrap();
    assert_eq!(counts["activityLogs"], 2, "{counts:?}");
    assert_eq!(
        counts["events"], 3,
        "each log's event under each entity: {counts:?}"
    );
    assert_eq!(counts["idempotencyKeys"], 2, "{counts:?}");
    for id in ["own", "shared"] {
        assert_eq!(f.log_rows(&t1(), id).await, (0, 0), "{id} is erased");
    }
    assert_eq!(f.log_rows(&t1(), "acme-only").await, (1, 1));
    let remaining: Vec<String> = f.event_ids(&t1()).await;
    assert_eq!(
        remaining,
        ["ev-acme-only-acme", "ev-acme-updated", "ev-erased"],
        "the shared log's event under acme went with it"
    );
    // Another tenant's entity of the same id keeps its logs.
    assert_eq!(f.log_rows(&t2(), "own").await, (1, 1));
    assert_eq!(f.event_ids(&t2()).await, ["ev-t2"]);
    // A log may name acme again with the same request id as the erased one.
    f.logs
        .create(&t1(), &log("own", &["acme"], 9), Some(&key(1, "own")), &[])
        .await
        .unwrap();
}

async fn a_refused_erasure_keeps_the_logs(backend: Backend) {
    let f = Fixture::new(backend);
    seed(&f).await;
    assert_eq!(
        f.entities
            .hard_delete(&t1(), "jane", EraseGuard::Revision(7), &[])
            .await,
        Err(RepositoryError::Conflict)
    );
    for id in ["own", "shared", "acme-only"] {
        assert_eq!(f.log_rows(&t1(), id).await.0, 1, "{id} stays");
    }
    assert_eq!(f.event_ids(&t1()).await.len(), 4);
}

async fn a_purged_entity_takes_its_logs_along(backend: Backend) {
    let f = Fixture::new(backend);
    seed(&f).await;
    let mut acme = f.entities.get(&t1(), "acme").await.unwrap().unwrap();
    acme.revision = 2;
    acme.delete_time = Some(crate::support::at(1));
    acme.purge_time = Some(crate::support::at(2));
    f.entities.update(&t1(), &acme, 1, &[]).await.unwrap();
    let counts = f
        .entities
        .hard_delete(
            &t1(),
            "acme",
            EraseGuard::PurgeDue(crate::support::at(3)),
            &[],
        )
        .await
        .unwrap();
    assert_eq!(counts["activityLogs"], 2);
    assert_eq!(f.log_rows(&t1(), "own").await, (1, 1));
    assert_eq!(f.event_ids(&t1()).await, ["ev-own-jane"]);
}

contract!(
    erasing_an_entity_erases_the_logs_naming_it,
    a_refused_erasure_keeps_the_logs,
    a_purged_entity_takes_its_logs_along,
);
