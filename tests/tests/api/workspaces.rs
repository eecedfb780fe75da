//! Workspaces over HTTP: cases with entities of the caller's tenant, OPEN or CLOSED,
//! soft-deleted and restored, filtered and paged.

use rics_e2e::*;
use serde_json::{Value, json};

const WORKSPACES: &str = "/v1alpha/workspaces";

fn create(server: &Server, id: &str, body: &Value) -> Value {
    server
        .post(&format!("{WORKSPACES}?workspaceId={id}"), body)
        .ok()
}

/// The ids of a workspace list.
fn ids(page: &Value) -> Vec<String> {
    names(&page["workspaces"])
        .into_iter()
        .map(|n| n.trim_start_matches("workspaces/").to_owned())
        .collect()
}

on_both_backends! {
    /// Create, get (also with ?name=), patch with and without a mask, close and
    /// reopen, delete and undelete, each with its etag.
    fn workspaces_have_a_lifecycle(server) {
        server.create_person("jane-doe", "Jane Doe");
        server.create("?entityId=acme", &company("Acme"));
        let case = create(&server, "case-1", &json!({"displayName": "Onboarding Acme", "description": "KYB\nfirst pass", "entities": ["entities/acme", "entities/jane-doe"], "state": "CLOSED"}));
        assert_eq!(case["name"], "workspaces/case-1");
        assert_eq!(case["state"], "OPEN", "state is output only");
        assert_eq!(case["entities"], json!(["entities/acme", "entities/jane-doe"]));
        assert!(case["uid"].as_str().is_some_and(|u| !u.is_empty()));
        let path = format!("{WORKSPACES}/case-1");
        assert_eq!(server.get(&path).ok(), case);
        assert_eq!(server.get(&format!("{path}?name=workspaces/case-1")).ok(), case);
        server.get(&format!("{path}?name=workspaces/other")).invalid("NAME_MISMATCH", "name");

        let renamed = server.patch(&path, &json!({"displayName": "Onboarding Acme Ltd"})).ok();
        assert_eq!(renamed["description"], case["description"], "unpopulated fields stay");
        assert_ne!(renamed["etag"], case["etag"]);
        let trimmed = server.patch(&format!("{path}?updateMask=entities,description"), &json!({"entities": ["entities/acme"]})).ok();
        assert_eq!(trimmed["entities"], json!(["entities/acme"]));
        assert!(trimmed.get("description").is_none(), "masked and absent = cleared");
        server.patch(&path, &json!({"displayName": "x", "etag": case["etag"]})).error(409, "ABORTED", "ETAG_MISMATCH");

        let closed = server.post(&format!("{path}:close"), &json!({"etag": trimmed["etag"]})).ok();
        assert_eq!(closed["state"], "CLOSED");
        server.post(&format!("{path}:close"), &json!({})).error(400, "FAILED_PRECONDITION", "WORKSPACE_ALREADY_CLOSED");
        server.patch(&path, &json!({"displayName": "Frozen"})).error(400, "FAILED_PRECONDITION", "WORKSPACE_CLOSED");
        let reopened = server.post(&format!("{path}:reopen"), &json!({})).ok();
        assert_eq!(reopened["state"], "OPEN");
        server.post(&format!("{path}:reopen"), &json!({})).error(400, "FAILED_PRECONDITION", "WORKSPACE_ALREADY_OPEN");
        server.post(&format!("{path}:close"), &json!({"etag": closed["etag"]})).error(409, "ABORTED", "ETAG_MISMATCH");

        server.post(&format!("{path}:undelete"), &json!({})).error(409, "ALREADY_EXISTS", "RESOURCE_NOT_DELETED");
        let deleted = server.delete(&path).ok();
        assert!(deleted.get("deleteTime").is_some() && deleted.get("purgeTime").is_some());
        assert_eq!(server.get(&path).ok(), deleted, "a deleted workspace still reads");
        server.delete(&path).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        assert_eq!(server.delete(&format!("{path}?allowMissing=true")).ok(), deleted);
        server.post(&format!("{path}:close"), &json!({})).error(400, "FAILED_PRECONDITION", "RESOURCE_DELETED");
        server.patch(&path, &json!({"displayName": "x"})).error(400, "FAILED_PRECONDITION", "RESOURCE_DELETED");
        let restored = server.post(&format!("{path}:undelete"), &json!({})).ok();
        assert!(restored.get("deleteTime").is_none());
        assert_eq!(server.delete(&format!("{WORKSPACES}/nothing?allowMissing=true")).ok(), json!({}));

        // A retried create with the same request id returns the first workspace.
        let request = "?requestId=0b0c9a52-1a34-4b7c-9d55-55d3d7b6b2c1";
        let first = server.post(&format!("{WORKSPACES}{request}"), &json!({"displayName": "Retry"})).ok();
        let again = server.post(&format!("{WORKSPACES}{request}"), &json!({"displayName": "Retry"})).ok();
        assert_eq!(first, again);
        server.post(&format!("{WORKSPACES}{request}"), &json!({"displayName": "Other"})).invalid("REQUEST_ID_REUSED", "requestId");
    }

    /// A workspace's entities exist in the caller's tenant and are live when added;
    /// erasing an entity takes it out of every workspace.
    fn workspace_entities_are_checked(server) {
        server.create_person("jane-doe", "Jane Doe");
        server.create_person("gone", "Gone Person");
        server.delete(&format!("{ENTITIES}/gone")).ok();
        let reply = server.post(WORKSPACES, &json!({"displayName": "Case", "entities": ["entities/nobody"]}));
        reply.error(404, "NOT_FOUND", "ENTITY_NOT_FOUND");
        reply.assert_violation("workspace.entities[0]");
        server.post(WORKSPACES, &json!({"displayName": "Case", "entities": ["entities/gone"]}))
            .error(400, "FAILED_PRECONDITION", "ENTITY_DELETED");
        server.post(WORKSPACES, &json!({"displayName": "Case", "entities": ["entities/jane-doe", "entities/jane-doe"]}))
            .invalid("INVALID_FIELDS", "workspace.entities[1]");
        server.post(WORKSPACES, &json!({"displayName": "Case", "entities": ["jane-doe"]}))
            .invalid("INVALID_FIELDS", "workspace.entities[0]");
        server.post(WORKSPACES, &json!({"entities": []})).invalid("INVALID_FIELDS", "workspace.displayName");
        server.post(WORKSPACES, &json!({"displayName": "x".repeat(201)})).invalid("INVALID_FIELDS", "workspace.displayName");
        server.post(&format!("{WORKSPACES}?workspaceId=AB"), &json!({"displayName": "Case"})).invalid("INVALID_RESOURCE_ID", "workspaceId");
        server.post(WORKSPACES, &json!({"displayName": "Case", "colour": 1})).invalid("UNKNOWN_FIELD", "workspace.colour");

        server.create_person("amy-lee", "Amy");
        let case = create(&server, "case", &json!({"displayName": "Case", "entities": ["entities/jane-doe", "entities/amy-lee"]}));
        // An entity deleted after it joined does not block other changes.
        server.delete(&format!("{ENTITIES}/amy-lee")).ok();
        let renamed = server.patch(&format!("{WORKSPACES}/case"), &json!({"displayName": "Renamed"})).ok();
        assert_eq!(renamed["entities"], case["entities"]);
        let receipt = server.delete(&format!("{ENTITIES}/jane-doe:hardDelete")).ok();
        assert_eq!(receipt["erasedCounts"]["workspaceMemberships"], 1);
        assert_eq!(server.get(&format!("{WORKSPACES}/case")).ok()["entities"], json!(["entities/amy-lee"]));
    }

    /// Filters on displayName, state and entities; orderBy; showDeleted; paging with
    /// a token bound to the filter.
    fn workspace_lists_filter_and_page(server) {
        server.create_person("amy-lee", "Amy");
        for (id, name, entities) in [("ws-a", "Alpha", vec!["entities/amy-lee"]), ("ws-b", "Beta", vec![]), ("ws-c", "Gamma", vec!["entities/amy-lee"]), ("ws-d", "Delta", vec![])] {
            create(&server, id, &json!({"displayName": name, "entities": entities}));
        }
        server.post(&format!("{WORKSPACES}/ws-b:close"), &json!({})).ok();
        server.delete(&format!("{WORKSPACES}/ws-d")).ok();
        let list = |params: &[(&str, &str)]| ids(&server.get(&format!("{WORKSPACES}{}", query(params))).ok());
        assert_eq!(list(&[]), ["ws-a", "ws-b", "ws-c"]);
        assert_eq!(list(&[("showDeleted", "true")]), ["ws-a", "ws-b", "ws-c", "ws-d"]);
        assert_eq!(list(&[("filter", "state = CLOSED")]), ["ws-b"]);
        assert_eq!(list(&[("filter", "entities:\"entities/amy-lee\"")]), ["ws-a", "ws-c"]);
        assert_eq!(list(&[("filter", "displayName = \"Gamma\" OR displayName = \"Beta\"")]), ["ws-b", "ws-c"]);
        assert_eq!(list(&[("orderBy", "displayName desc")]), ["ws-c", "ws-b", "ws-a"]);
        server.get(&format!("{WORKSPACES}?filter=state%20%3D%20SHUT")).invalid("INVALID_FILTER_VALUE", "filter");
        server.get(&format!("{WORKSPACES}?orderBy=colour")).invalid("INVALID_ORDER_BY", "orderBy");

        let first = server.get(&format!("{WORKSPACES}?pageSize=2&filter={}", encode("state = OPEN OR state = CLOSED"))).ok();
        assert_eq!(ids(&first), ["ws-a", "ws-b"]);
        assert_eq!(first["totalSize"], 3);
        let token = first["nextPageToken"].as_str().unwrap();
        let second = server.get(&format!("{WORKSPACES}?pageSize=2&filter={}&pageToken={token}", encode("state = OPEN OR state = CLOSED"))).ok();
        assert_eq!(ids(&second), ["ws-c"]);
        assert!(second.get("nextPageToken").is_none());
        server.get(&format!("{WORKSPACES}?pageSize=2&filter={}&pageToken={token}", encode("state = OPEN")))
            .invalid("PAGE_TOKEN_REQUEST_MISMATCH", "pageToken");
        let coerced = server.get(&format!("{WORKSPACES}?pageSize=5000")).ok();
        assert_eq!(ids(&coerced).len(), 3);
    }
}
