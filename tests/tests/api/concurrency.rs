//! Concurrent requests: optimistic concurrency with etags, idempotent retries racing
//! each other, duplicate creates, and read-modify-write custom methods that must not
//! lose updates.

use std::collections::BTreeSet;

use rics_e2e::*;
use serde_json::{Value, json};

const WRITERS: usize = 6;

/// Runs `request(i)` for `0..WRITERS` at once and returns the replies in order.
fn race(server: &Server, request: impl Fn(usize) -> Reply + Sync) -> Vec<Reply> {
    let barrier = std::sync::Barrier::new(WRITERS);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..WRITERS)
            .map(|i| {
                let barrier = &barrier;
                let request = &request;
                scope.spawn(move || {
                    barrier.wait();
                    request(i)
                })
            })
            .collect();
        let _ = server;
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

on_both_backends! {
    /// PATCHes racing with the same etag: exactly one wins, the others are ABORTED,
    /// and the stored entity is the winner's.
    fn racing_patches_with_one_etag_have_one_winner(server) {
        let created = server.create_person("jane-doe", "Jane Doe");
        let replies = race(&server, |i| {
            server.patch(&format!("{ENTITIES}/jane-doe"), &json!({"displayName": format!("Writer {i}"), "etag": created["etag"]}))
        });
        let winners: Vec<&Reply> = replies.iter().filter(|r| r.status == 200).collect();
        assert_eq!(winners.len(), 1, "one winner: {:?}", replies.iter().map(|r| (r.status, r.text.clone())).collect::<Vec<_>>());
        for reply in replies.iter().filter(|r| r.status != 200) {
            reply.error(409, "ABORTED", reply.reason());
        }
        assert_eq!(server.entity("jane-doe"), winners[0].json);
    }

    /// Creates racing with the same requestId all return the one entity they made.
    fn racing_retries_with_one_request_id_make_one_entity(server) {
        let replies = race(&server, |_| {
            server.post(&format!("{ENTITIES}?requestId=1f0e9d8c-7b6a-4594-8382-716253443526"), &person("Jane Doe"))
        });
        let bodies: BTreeSet<String> = replies.iter().map(|r| {
            assert_eq!(r.status, 200, "{}", r.text);
            r.json["name"].as_str().unwrap().to_owned()
        }).collect();
        assert_eq!(bodies.len(), 1, "one entity: {bodies:?}");
        assert_eq!(server.list_all(&[]).len(), 1);
    }

    /// Creates racing for one id: one is created, the others are ALREADY_EXISTS.
    fn racing_creates_for_one_id_make_one_entity(server) {
        let replies = race(&server, |i| server.post(&format!("{ENTITIES}?entityId=jane-doe"), &person(&format!("Jane Doe{i}"))));
        let created = replies.iter().filter(|r| r.status == 200).count();
        assert_eq!(created, 1, "{:?}", replies.iter().map(|r| r.text.clone()).collect::<Vec<_>>());
        for reply in replies.iter().filter(|r| r.status != 200) {
            reply.error(409, "ALREADY_EXISTS", "RESOURCE_ALREADY_EXISTS");
        }
        assert_eq!(server.list_all(&[]).len(), 1);
    }

    /// Tags added at the same time are all kept (or the loser is told to retry):
    /// no update is lost silently.
    fn racing_tag_additions_lose_nothing(server) {
        server.create_person("jane-doe", "Jane Doe");
        let replies = race(&server, |i| server.post(&format!("{ENTITIES}/jane-doe:addTag"), &json!({"tag": format!("tag-{i}")})));
        let mut expected = BTreeSet::new();
        for (i, reply) in replies.iter().enumerate() {
            if reply.status == 200 {
                expected.insert(format!("tag-{i}"));
            } else {
                reply.error(409, "ABORTED", "CONCURRENT_MODIFICATION");
            }
        }
        let stored: BTreeSet<String> = array(&server.entity("jane-doe")["tags"])
            .iter()
            .map(|t| t.as_str().unwrap().to_owned())
            .collect();
        assert_eq!(stored, expected, "every acknowledged tag is stored");
    }

    /// The same relationship added at once from several requests is stored once.
    fn racing_duplicate_relationships_are_stored_once(server) {
        server.create("?entityId=acme", &company("Acme"));
        server.create_person("jane-doe", "Jane Doe");
        let replies = race(&server, |_| {
            server.post(&format!("{ENTITIES}/acme:addEntityRelationship"), &json!({"relatedEntity": "entities/jane-doe", "relationshipType": "DIRECTOR"}))
        });
        assert_eq!(replies.iter().filter(|r| r.status == 200).count(), 1, "{:?}", replies.iter().map(|r| r.text.clone()).collect::<Vec<_>>());
        for reply in replies.iter().filter(|r| r.status != 200) {
            reply.error(409, "ALREADY_EXISTS", "RELATIONSHIP_ALREADY_EXISTS");
        }
        let stored: Vec<Value> = server.relationships("acme");
        assert_eq!(stored.len(), 1);
    }
}
