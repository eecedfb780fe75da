//! Events over HTTP: every change of an entity is an event, readable by name and page
//! by page; events cannot be changed; an erased entity leaves one tenant-level event
//! without personal data.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rics_e2e::*;
use serde_json::{Value, json};

/// The decoded `eventPayload` of an event.
fn payload(event: &Value) -> Value {
    let bytes = STANDARD
        .decode(event["eventPayload"].as_str().unwrap())
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

/// Every event of `entities/{id}`, following the pages.
fn all_events(server: &Server, id: &str) -> Vec<Value> {
    let mut all = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let mut pairs = vec![("pageSize", "3")];
        if let Some(token) = &token {
            pairs.push(("pageToken", token));
        }
        let page = server
            .get(&format!("{ENTITIES}/{id}/events{}", query(&pairs)))
            .ok();
        all.extend(array(&page["events"]).iter().cloned());
        match page.get("nextPageToken").and_then(Value::as_str) {
            Some(next) => {
                assert!(!next.is_empty(), "an empty token is omitted, not sent");
                token = Some(next.to_owned());
            }
            None => return all,
        }
    }
}

on_both_backends! {
    /// Each change of an entity appends its event, in order, with the principal, the
    /// resource and the changed fields in the base64 payload.
    fn every_change_is_an_event(server) {
        server.create_person("jane-doe", "Jane Doe");
        server.create("?entityId=acme", &company("Acme"));
        server.patch(&format!("{ENTITIES}/jane-doe?updateMask=displayName"), &json!({"displayName": "Jane A. Doe"})).ok();
        server.post(&format!("{ENTITIES}/jane-doe:addTag"), &json!({"tag": "vip"})).ok();
        server.post(&format!("{ENTITIES}/jane-doe:addEntityRelationship"), &json!({"relatedEntity": "entities/acme", "relationshipType": "DIRECTOR"})).ok();
        server.post(&format!("{ENTITIES}/jane-doe:removeTag"), &json!({"tag": "vip"})).ok();
        server.delete(&format!("{ENTITIES}/jane-doe")).ok();
        server.post(&format!("{ENTITIES}/jane-doe:undelete"), &json!({})).ok();

        // The rename re-screens the monitored person: that run's job events are in the
        // entity's stream too, while the run goes on.
        let (events, rescreen): (Vec<Value>, Vec<Value>) = all_events(&server, "jane-doe")
            .into_iter()
            .partition(|e| payload(e)["resource"] == "entities/jane-doe");
        for event in &rescreen {
            let event_type = event["eventType"].as_str().unwrap();
            assert!(event_type.starts_with("pep_sanction_job."), "{event_type}");
        }
        assert!(!rescreen.is_empty(), "the rename started a re-screen");
        let types: Vec<&str> = events.iter().map(|e| e["eventType"].as_str().unwrap()).collect();
        assert_eq!(types, [
            "entity.created", "entity.updated", "entity.tag_added", "entity.relationship_added",
            "entity.tag_removed", "entity.deleted", "entity.undeleted",
        ]);
        let mut previous = time::OffsetDateTime::UNIX_EPOCH;
        for event in &events {
            let name = event["name"].as_str().unwrap();
            assert!(name.starts_with("entities/jane-doe/events/"), "{name}");
            assert_eq!(event["creator"], ADMIN_CLIENT_ID, "the principal's subject");
            // Compared as times: RFC 3339 text drops trailing zeros of the fraction, so
            // "…:43.1Z" sorts after "…:43.12Z" as text.
            let time = timestamp(&event["createTime"]);
            assert!(time >= previous, "oldest first");
            previous = time;
            let body = payload(event);
            assert_eq!(body["resource"], "entities/jane-doe");
            assert_eq!(body["principal"], ADMIN_CLIENT_ID);
        }
        let renamed = payload(&events[1]);
        assert_eq!(renamed["changes"]["displayName"], json!({"before": "Jane Doe", "after": "Jane A. Doe"}));
        assert!(renamed["changes"].get("etag").is_none(), "bookkeeping fields are not changes");

        // The company has its own side of the relationship.
        let acme: Vec<String> = all_events(&server, "acme").iter().map(|e| e["eventType"].as_str().unwrap().to_owned()).collect();
        assert_eq!(acme, ["entity.created", "entity.relationship_added"]);

        // Each event reads back by its name, with the redundant ?name= too.
        let first = &events[0];
        let name = first["name"].as_str().unwrap();
        assert_eq!(&server.get(&format!("/v1alpha/{name}")).ok(), first);
        assert_eq!(&server.get(&format!("/v1alpha/{name}?name={}", encode(name))).ok(), first);
        server.get(&format!("/v1alpha/{name}?name=entities/acme/events/x")).invalid("NAME_MISMATCH", "name");
        let id = name.rsplit('/').next().unwrap();
        server.get(&format!("{ENTITIES}/acme/events/{id}")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        server.get(&format!("/v1alpha/events/{id}")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        server.get(&format!("{ENTITIES}/nobody/events")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
    }

    /// Events are append-only: no method changes or removes one.
    fn events_cannot_be_changed(server) {
        server.create_person("jane-doe", "Jane Doe");
        let event = all_events(&server, "jane-doe").remove(0);
        let path = format!("/v1alpha/{}", event["name"].as_str().unwrap());
        for method in [Method::PATCH, Method::DELETE, Method::POST, Method::PUT] {
            let reply = server.send(server.request(method.clone(), &path).json(&json!({"eventType": "forged"})));
            reply.error(405, "UNIMPLEMENTED", "METHOD_NOT_ALLOWED");
            assert_eq!(reply.header("allow"), Some("GET, OPTIONS"));
        }
        server.post(&format!("{ENTITIES}/jane-doe/events"), &json!({"eventType": "forged"})).error(405, "UNIMPLEMENTED", "METHOD_NOT_ALLOWED");
        assert_eq!(server.get(&path).ok(), event);
    }

    /// Pages default to 10 and hold at most 100 (larger sizes coerced); the token is
    /// bound to the request; skip, filter and orderBy work; the last page has no token.
    fn event_lists_page(server) {
        server.create_person("busy", "Busy Person");
        for n in 0..119 {
            let verb = if n % 2 == 0 { "addTag" } else { "removeTag" };
            server.post(&format!("{ENTITIES}/busy:{verb}"), &json!({"tag": "flag"})).ok();
        }
        let first = server.get(&format!("{ENTITIES}/busy/events")).ok();
        assert_eq!(array(&first["events"]).len(), 10);
        assert_eq!(first["totalSize"], 120);
        let coerced = server.get(&format!("{ENTITIES}/busy/events?pageSize=1000")).ok();
        assert_eq!(array(&coerced["events"]).len(), 100);
        let token = coerced["nextPageToken"].as_str().unwrap();
        let last = server.get(&format!("{ENTITIES}/busy/events?pageSize=1000&pageToken={}", encode(token))).ok();
        assert_eq!(array(&last["events"]).len(), 20);
        assert!(last.get("nextPageToken").is_none(), "no token on the last page: {}", last["nextPageToken"]);
        let mut seen = names(&coerced["events"]);
        seen.extend(names(&last["events"]));
        let unique: std::collections::BTreeSet<&String> = seen.iter().collect();
        assert_eq!(unique.len(), 120, "every event once");

        // The page size may change between pages; nothing else may.
        let smaller = server.get(&format!("{ENTITIES}/busy/events?pageSize=5&pageToken={}", encode(token))).ok();
        assert_eq!(names(&smaller["events"]), names(&last["events"])[..5].to_vec());
        server.get(&format!("{ENTITIES}/busy/events?pageSize=1000&pageToken={}{}", encode(token), query(&[("filter", "eventType = \"entity.created\"")]).replacen('?', "&", 1)))
            .invalid("PAGE_TOKEN_REQUEST_MISMATCH", "pageToken");
        server.get(&format!("{ENTITIES}/busy/events?pageSize=-1")).invalid("INVALID_PAGE_SIZE", "pageSize");
        server.get(&format!("{ENTITIES}/busy/events?showDeleted=true")).invalid("UNKNOWN_PARAMETER", "showDeleted");
        server.get(&format!("{ENTITIES}/busy/events{}", query(&[("filter", "creator = \"x\"")]))).invalid("UNKNOWN_FILTER_FIELD", "filter");

        let skipped = server.get(&format!("{ENTITIES}/busy/events?pageSize=5&skip=115")).ok();
        assert_eq!(names(&skipped["events"]), seen[115..].to_vec());
        let created = server.get(&format!("{ENTITIES}/busy/events{}", query(&[("filter", "eventType = \"entity.created\"")]))).ok();
        assert_eq!(created["totalSize"], 1);
        assert_eq!(names(&created["events"]), vec![seen[0].clone()]);
        let newest = server.get(&format!("{ENTITIES}/busy/events?pageSize=1&orderBy=createTime%20desc")).ok();
        assert_eq!(names(&newest["events"]), vec![seen[119].clone()]);
    }

    /// Erasing an entity removes its events; one tenant-level event records the
    /// erasure without personal data, and the entity's old events are gone.
    fn an_erased_entity_leaves_one_anonymous_event(server) {
        server.create_person("jane-doe", "Jane Doe");
        server.post(&format!("{ENTITIES}/jane-doe:addTag"), &json!({"tag": "vip"})).ok();
        let old = all_events(&server, "jane-doe");
        let uid = server.entity("jane-doe")["uid"].as_str().unwrap().to_owned();
        let receipt = server.delete(&format!("{ENTITIES}/jane-doe:hardDelete")).ok();
        let name = receipt["event"].as_str().unwrap();
        assert!(name.starts_with("events/"), "{name}");
        let event = server.get(&format!("/v1alpha/{name}")).ok();
        assert_eq!(event["name"], name);
        assert_eq!(event["eventType"], "entity.hard_deleted");
        let body = payload(&event);
        let text = body.to_string().to_lowercase();
        for personal in ["jane", "doe", "vip"] {
            assert!(!text.contains(personal), "the erasure event holds '{personal}': {body}");
        }
        assert_eq!(body["erasedUid"], uid.as_str());
        server.get(&format!("{ENTITIES}/jane-doe/events")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        for event in old {
            server.get(&format!("/v1alpha/{}", event["name"].as_str().unwrap())).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        }
    }
}
