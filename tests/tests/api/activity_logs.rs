//! Activity log types and activity logs over HTTP: create, read, list (fuzzy search,
//! paging, filters), update masks and etags, soft delete and undelete, payload schemas,
//! batch get, an entity's logs, scopes, idempotent creates, erasure and purge.

use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rics_e2e::*;
use serde_json::{Value, json};

const TYPES: &str = "/v1alpha/activityLogTypes";
const LOGS: &str = "/v1alpha/activityLogs";
const REQUEST_ID: &str = "0f5e2d3c-4b5a-4f6e-8d7c-9b0a1f2e3d4c";

fn type_path(id: &str) -> String {
    format!("{TYPES}/{id}")
}

fn log_path(id: &str) -> String {
    format!("{LOGS}/{id}")
}

/// Creates the activity log type `id` from `body` and returns it.
fn create_type(server: &Server, id: &str, body: &Value) -> Value {
    server
        .post(&format!("{TYPES}?activityLogTypeId={id}"), body)
        .ok()
}

/// Creates the activity log `id` from `body` and returns it.
fn create_log(server: &Server, id: &str, body: &Value) -> Value {
    server
        .post(&format!("{LOGS}?activityLogId={id}"), body)
        .ok()
}

/// A screening type whose payloads need a numeric `score` between 0 and 1.
fn screening_type() -> Value {
    json!({
        "displayName": "PEP Screening",
        "description": "Screening results.\nOne per run.",
        "activityType": "PEP_AND_SANCTIONS",
        "payloadSchema": {
            "type": "object",
            "required": ["score"],
            "properties": {
                "score": {"type": "number", "minimum": 0, "maximum": 1},
                "lists": {"type": "array", "items": {"type": "string"}}
            }
        }
    })
}

/// The names of the logs of `entities/{entity}` a single list call with `params`
/// returns, after checking totalSize against the page when there is no next page.
fn entity_logs(server: &Server, entity: &str, params: &[(&str, &str)]) -> Vec<String> {
    let page = server
        .get(&format!(
            "{ENTITIES}/{entity}/activityLogs{}",
            query(params)
        ))
        .ok();
    let found = names(&page["activityLogs"]);
    if page.get("nextPageToken").is_none() && !params.iter().any(|(k, _)| *k == "skip") {
        assert_eq!(page["totalSize"], found.len(), "{page}");
    }
    found
}

/// The event types of `entities/{entity}` about `resource`, oldest first.
fn events_about(server: &Server, entity: &str, resource: &str) -> Vec<String> {
    let page = server
        .get(&format!("{ENTITIES}/{entity}/events?pageSize=100"))
        .ok();
    array(&page["events"])
        .iter()
        .filter(|event| {
            let bytes = STANDARD
                .decode(event["eventPayload"].as_str().unwrap())
                .unwrap();
            let payload: Value = serde_json::from_slice(&bytes).unwrap();
            payload["resource"] == resource
        })
        .map(|event| event["eventType"].as_str().unwrap().to_owned())
        .collect()
}

/// Waits until `path` answers 404.
fn wait_for_404(server: &Server, path: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let reply = server.get(path);
        if reply.status == 404 {
            reply.error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{path} was never purged: {}",
            reply.text
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

on_both_backends! {
    /// A type is created with its id, echoes its fields, reads back by path (with the
    /// redundant `?name=` in either form), and output-only input is ignored.
    fn types_are_created_and_read_back(server) {
        let mut body = screening_type();
        body["createTime"] = json!("2000-01-01T00:00:00Z");
        body["name"] = json!("activityLogTypes/other");
        let created = create_type(&server, "screening", &body);
        assert_eq!(created["name"], "activityLogTypes/screening");
        assert_eq!(created["displayName"], "PEP Screening");
        assert_eq!(created["activityType"], "PEP_AND_SANCTIONS");
        assert_eq!(created["payloadSchema"], screening_type()["payloadSchema"]);
        assert_eq!(created["description"], "Screening results.\nOne per run.");
        assert!(timestamp(&created["createTime"]).year() >= 2026);
        assert_eq!(created["createTime"], created["updateTime"]);
        assert!(created["etag"].as_str().unwrap().starts_with('"'));
        assert!(created.get("deleteTime").is_none());
        assert_eq!(server.get(&type_path("screening")).ok(), created);
        for name in ["activityLogTypes/screening", "screening"] {
            assert_eq!(server.get(&format!("{}?name={name}", type_path("screening"))).ok(), created);
        }
        server
            .get(&format!("{}?name=activityLogTypes/other", type_path("screening")))
            .invalid("NAME_MISMATCH", "name");
        server.get(&type_path("nothing")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        server.get(&type_path("Not_Valid")).invalid("INVALID_NAME", "name");
        let generated = server.post(TYPES, &json!({"displayName": "Generated"})).ok();
        assert!(generated["name"].as_str().unwrap().starts_with("activityLogTypes/"));
        let page = server.get(TYPES).ok();
        assert_eq!(names(&page["activityLogTypes"]), vec!["activityLogTypes/screening".to_owned(), generated["name"].as_str().unwrap().to_owned()]);
        assert_eq!(page["totalSize"], 2);
    }

    /// Ids are 4 to 63 lower-case letters, digits and hyphens: 3 or 64 characters, or
    /// capitals, are INVALID_ARGUMENT on the id parameter; a taken id is ALREADY_EXISTS.
    /// A bad body or an invalid payload schema is refused, and nothing is created.
    fn type_ids_and_bodies_are_checked(server) {
        for id in ["abc", &"a".repeat(64), "Screening"] {
            server
                .post(&format!("{TYPES}?activityLogTypeId={id}"), &screening_type())
                .invalid("INVALID_RESOURCE_ID", "activityLogTypeId");
        }
        create_type(&server, &"a".repeat(63), &json!({"displayName": "Longest id"}));
        create_type(&server, "abcd", &json!({"displayName": "Shortest id"}));
        server
            .post(&format!("{TYPES}?activityLogTypeId=abcd"), &json!({"displayName": "Again"}))
            .error(409, "ALREADY_EXISTS", "RESOURCE_ALREADY_EXISTS");
        server.post(TYPES, &json!({})).invalid("INVALID_FIELDS", "activityLogType.displayName");
        server
            .post(TYPES, &json!({"displayName": "x".repeat(201)}))
            .invalid("INVALID_FIELDS", "activityLogType.displayName");
        server
            .post(TYPES, &json!({"displayName": "Two\nlines"}))
            .invalid("CONTROL_CHARACTER", "activityLogType.displayName");
        server
            .post(TYPES, &json!({"displayName": "A", "description": "x".repeat(2001)}))
            .invalid("INVALID_FIELDS", "activityLogType.description");
        server
            .post(TYPES, &json!({"displayName": "A", "activityType": "NOT_A_TYPE"}))
            .invalid("INVALID_VALUE", "activityLogType.activityType");
        server
            .post(TYPES, &json!({"displayName": "A", "colour": "red"}))
            .invalid("UNKNOWN_FIELD", "activityLogType.colour");
        let reply = server.post(TYPES, &json!({"displayName": "A", "payloadSchema": {"type": "nothing"}}));
        reply.invalid("INVALID_FIELDS", "activityLogType.payloadSchema");
        server
            .post(TYPES, &json!({"displayName": "A", "payloadSchema": {"$ref": "https://example.com/schema.json"}}))
            .invalid("INVALID_FIELDS", "activityLogType.payloadSchema");
        server
            .post(TYPES, &json!({"displayName": "A", "payloadSchema": [1]}))
            .invalid("INVALID_VALUE", "activityLogType.payloadSchema");
        let page = server.get(&format!("{TYPES}?showDeleted=true")).ok();
        assert_eq!(page["totalSize"], 2, "refused creations create nothing: {page}");
    }

    /// PATCH follows AIP-134: without a mask the populated fields change; a named
    /// field is set or cleared; `*` replaces the type; an unknown path is
    /// INVALID_ARGUMENT; a stale etag in the body is ABORTED; the etag changes.
    fn types_update_with_masks_and_etags(server) {
        let created = create_type(&server, "screening", &screening_type());
        let path = type_path("screening");
        let renamed = server.patch(&path, &json!({"displayName": "Sanctions Screening", "description": ""})).ok();
        assert_eq!(renamed["displayName"], "Sanctions Screening");
        assert_eq!(renamed["description"], created["description"], "an empty field is not populated");
        assert_eq!(renamed["payloadSchema"], created["payloadSchema"]);
        assert_ne!(renamed["etag"], created["etag"]);
        assert!(timestamp(&renamed["updateTime"]) > timestamp(&created["updateTime"]));
        let cleared = server.patch(&format!("{path}?updateMask=description"), &json!({})).ok();
        assert!(cleared.get("description").is_none(), "{cleared}");
        let replaced = server.patch(&format!("{path}?updateMask=*"), &json!({"displayName": "Replaced"})).ok();
        assert_eq!(replaced["displayName"], "Replaced");
        assert!(replaced.get("payloadSchema").is_none() && replaced.get("activityType").is_none(), "{replaced}");
        assert_eq!(replaced["createTime"], created["createTime"]);
        server
            .patch(&format!("{path}?updateMask=colour"), &json!({}))
            .invalid("UNKNOWN_UPDATE_MASK_PATH", "updateMask");
        server
            .patch(&format!("{path}?updateMask=displayName"), &json!({}))
            .invalid("REQUIRED_FIELD_MISSING", "activityLogType.displayName");
        server
            .patch(&path, &json!({"payloadSchema": {"type": 7}}))
            .invalid("INVALID_FIELDS", "activityLogType.payloadSchema");
        server
            .patch(&path, &json!({"displayName": "Stale", "etag": created["etag"]}))
            .error(409, "ABORTED", "ETAG_MISMATCH");
        let current = server.get(&path).ok();
        assert_eq!(current, replaced, "refused updates change nothing");
        let with_etag = server.patch(&path, &json!({"displayName": "Fresh", "etag": current["etag"]})).ok();
        assert_eq!(with_etag["displayName"], "Fresh");
        server
            .patch(&path, &json!({"name": "activityLogTypes/other", "displayName": "X"}))
            .invalid("NAME_MISMATCH", "activityLogType.name");
        server.patch(&type_path("nothing"), &json!({"displayName": "X"})).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
    }

    /// DELETE soft-deletes (deleteTime, purgeTime; GET still answers; lists hide it
    /// unless showDeleted); deleting again is NOT_FOUND unless allowMissing; a stale
    /// etag is ABORTED; `:undelete` restores, and of a live type is ALREADY_EXISTS. A
    /// deleted type cannot be updated nor named by a new log.
    fn types_delete_and_undelete(server) {
        server.create_person("jane", "Jane Doe");
        let created = create_type(&server, "calls", &json!({"displayName": "Calls", "activityType": "CUSTOM"}));
        let path = type_path("calls");
        server
            .delete(&format!("{path}?etag={}", encode("\"stale\"")))
            .error(409, "ABORTED", "ETAG_MISMATCH");
        let deleted = server.delete(&format!("{path}?etag={}", encode(created["etag"].as_str().unwrap()))).ok();
        let purge = timestamp(&deleted["purgeTime"]);
        assert!(purge >= timestamp(&deleted["deleteTime"]) + time::Duration::days(29), "{deleted}");
        assert_eq!(server.get(&path).ok(), deleted);
        assert!(array(&server.get(TYPES).ok()["activityLogTypes"]).is_empty());
        assert_eq!(names(&server.get(&format!("{TYPES}?showDeleted=true")).ok()["activityLogTypes"]), vec!["activityLogTypes/calls"]);
        server.delete(&path).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        assert_eq!(server.delete(&format!("{path}?allowMissing=true")).ok(), deleted);
        assert_eq!(server.delete(&format!("{}?allowMissing=true", type_path("nothing"))).ok(), json!({}));
        server
            .patch(&path, &json!({"displayName": "X"}))
            .error(400, "FAILED_PRECONDITION", "RESOURCE_DELETED");
        let refused = server.post(LOGS, &json!({"activityLogType": "activityLogTypes/calls", "entityNames": ["entities/jane"]}));
        refused.error(400, "FAILED_PRECONDITION", "ACTIVITY_LOG_TYPE_DELETED");
        assert_eq!(refused.metadata("resource"), Some("activityLogTypes/calls"));
        server
            .post(&format!("{path}:undelete"), &json!({"etag": "\"stale\""}))
            .error(409, "ABORTED", "ETAG_MISMATCH");
        let restored = server.post(&format!("{path}:undelete"), &json!({"etag": deleted["etag"]})).ok();
        assert!(restored.get("deleteTime").is_none() && restored.get("purgeTime").is_none(), "{restored}");
        assert_ne!(restored["etag"], deleted["etag"]);
        server
            .post(&format!("{path}:undelete"), &json!({}))
            .error(409, "ALREADY_EXISTS", "RESOURCE_NOT_DELETED");
        server
            .post(&format!("{}:undelete", type_path("nothing")), &json!({}))
            .error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        create_log(&server, "call-1", &json!({"activityLogType": "activityLogTypes/calls", "entityNames": ["entities/jane"]}));
    }

    /// `displayName:"custmer interaction"` finds "Customer Interaction" despite the
    /// typo and ranks it first; a bare word searches the display name too; other
    /// filters and orders work alongside.
    fn fuzzy_search_ranks_the_closest_type_first(server) {
        for (id, name, kind) in [
            ("onboarding", "Customer Onboarding", "IDENTITY_CHECK"),
            ("review", "Interaction Review", "CUSTOM"),
            ("interactions-log", "Custom Interactions Log", "CUSTOM"),
            ("interaction", "Customer Interaction", "CUSTOM"),
            ("sanctions", "Sanctions Hit", "PEP_AND_SANCTIONS"),
        ] {
            create_type(&server, id, &json!({"displayName": name, "activityType": kind}));
        }
        let search = |filter: &str, order_by: &str| {
            let mut params = vec![("filter", filter)];
            if !order_by.is_empty() {
                params.push(("orderBy", order_by));
            }
            let page = server.get(&format!("{TYPES}{}", query(&params))).ok();
            let found: Vec<String> = array(&page["activityLogTypes"]).iter().map(|t| t["displayName"].as_str().unwrap().to_owned()).collect();
            assert_eq!(page["totalSize"], found.len());
            found
        };
        let ranked = search("displayName:\"custmer interaction\"", "");
        assert_eq!(ranked.first().map(String::as_str), Some("Customer Interaction"), "{ranked:?}");
        assert!(!ranked.contains(&"Sanctions Hit".to_owned()), "{ranked:?}");
        let bare = search("custmer", "");
        assert!(bare.contains(&"Customer Onboarding".to_owned()) && !bare.contains(&"Sanctions Hit".to_owned()), "{bare:?}");
        let by_name = search("displayName:\"custmer interaction\"", "displayName");
        let mut sorted = ranked.clone();
        sorted.sort();
        assert_eq!(by_name, sorted);
        assert_eq!(search("activityType = CUSTOM AND displayName:\"interaction\"", "createTime"), ["Interaction Review", "Custom Interactions Log", "Customer Interaction"]);
        assert_eq!(search("displayName = \"Customer*\"", "displayName desc"), ["Customer Onboarding", "Customer Interaction"]);
        server
            .get(&format!("{TYPES}{}", query(&[("filter", "colour = \"red\"")])))
            .invalid("UNKNOWN_FILTER_FIELD", "filter");
        server
            .get(&format!("{TYPES}{}", query(&[("orderBy", "activityType")])))
            .invalid("INVALID_ORDER_BY", "orderBy");
    }

    /// pageSize 5000 is coerced to the maximum (no error, every item on one page);
    /// pages follow nextPageToken; a token reused with another filter is refused.
    fn type_lists_page_and_bind_their_tokens(server) {
        for n in 0..3 {
            create_type(&server, &format!("type-{n}"), &json!({"displayName": format!("Type {n}")}));
        }
        let all = server.get(&format!("{TYPES}?pageSize=5000")).ok();
        assert_eq!(array(&all["activityLogTypes"]).len(), 3);
        assert_eq!(all["totalSize"], 3);
        assert!(all.get("nextPageToken").is_none(), "{all}");
        let first = server.get(&format!("{TYPES}?pageSize=2")).ok();
        assert_eq!(names(&first["activityLogTypes"]), ["activityLogTypes/type-0", "activityLogTypes/type-1"]);
        let token = first["nextPageToken"].as_str().unwrap();
        let second = server.get(&format!("{TYPES}?pageSize=2&pageToken={}", encode(token))).ok();
        assert_eq!(names(&second["activityLogTypes"]), ["activityLogTypes/type-2"]);
        assert!(second.get("nextPageToken").is_none());
        server
            .get(&format!("{TYPES}?pageSize=2&pageToken={}{}", encode(token), query(&[("filter", "displayName = \"Type 1\"")]).replacen('?', "&", 1)))
            .invalid("PAGE_TOKEN_REQUEST_MISMATCH", "pageToken");
        server
            .get(&format!("{TYPES}?pageToken={}&showDeleted=true", encode(token)))
            .invalid("PAGE_TOKEN_REQUEST_MISMATCH", "pageToken");
        server.get(&format!("{TYPES}?pageSize=-1")).invalid("INVALID_PAGE_SIZE", "pageSize");
        let skipped = server.get(&format!("{TYPES}?skip=2")).ok();
        assert_eq!(names(&skipped["activityLogTypes"]), ["activityLogTypes/type-2"]);
    }

    /// Types are an administrators' resource: a rics.write token cannot create, change
    /// or delete one (403 with the scope needed), a rics.read token reads them, and a
    /// rics.write token writes logs.
    fn type_writes_need_the_admin_scope(server) {
        server.create_person("jane", "Jane Doe");
        create_type(&server, "calls", &json!({"displayName": "Calls", "activityType": "CUSTOM"}));
        let write = server.client_token(ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, Some("rics.write"));
        let read = server.client_token(ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, Some("rics.read"));
        let as_writer = |method: Method, path: &str, body: &Value| server.send(server.request_as(Some(&write), method, path).json(body));
        for (method, path) in [
            (Method::POST, TYPES.to_owned()),
            (Method::PATCH, type_path("calls")),
            (Method::DELETE, type_path("calls")),
            (Method::POST, format!("{}:undelete", type_path("calls"))),
        ] {
            let reply = as_writer(method, &path, &json!({"displayName": "By a writer"}));
            reply.error(403, "PERMISSION_DENIED", "INSUFFICIENT_SCOPE");
            assert_eq!(reply.metadata("requiredScope"), Some("rics.admin"));
        }
        let page = server.send(server.request_as(Some(&read), Method::GET, TYPES)).ok();
        assert_eq!(names(&page["activityLogTypes"]), ["activityLogTypes/calls"]);
        assert_eq!(array(&page["activityLogTypes"])[0]["displayName"], "Calls");
        let log = as_writer(Method::POST, LOGS, &json!({"activityLogType": "activityLogTypes/calls", "entityNames": ["entities/jane"]})).ok();
        assert_eq!(log["type"], "CUSTOM");
        let reply = server.send(server.request_as(Some(&read), Method::POST, LOGS).json(&json!({"type": "CUSTOM", "entityNames": ["entities/jane"]})));
        reply.error(403, "PERMISSION_DENIED", "INSUFFICIENT_SCOPE");
        assert_eq!(reply.metadata("requiredScope"), Some("rics.write"));
    }

    /// A log about two entities: its type and defaults come from its activity log
    /// type, a repeated entity is kept once, it reads back by name, each entity lists
    /// it, and each entity's events record its creation.
    fn logs_are_written_about_entities(server) {
        server.create_person("jane", "Jane Doe");
        server.create("?entityId=acme", &company("Acme"));
        server.post("/v1alpha/workspaces?workspaceId=case-7", &json!({"displayName": "Case 7"})).ok();
        create_type(&server, "screening", &screening_type());
        let body = json!({
            "activityLogType": "activityLogTypes/screening",
            "entityNames": ["entities/jane", "entities/acme", "entities/jane"],
            "payload": {"score": 0.42, "lists": ["UN", "OFAC"]},
            "description": "Weekly re-screen.\nNo match.",
            "workspace": "workspaces/case-7",
            "createTime": "2000-01-01T00:00:00Z"
        });
        let created = create_log(&server, "screen-1", &body);
        assert_eq!(created["name"], "activityLogs/screen-1");
        assert_eq!(created["type"], "PEP_AND_SANCTIONS", "from the type");
        assert_eq!(created["source"], "CUSTOMER", "the default source");
        assert_eq!(created["entityNames"], json!(["entities/jane", "entities/acme"]));
        assert_eq!(created["payload"], body["payload"]);
        assert_eq!(created["workspace"], "workspaces/case-7");
        assert_eq!(created["occurTime"], created["createTime"], "occurTime defaults to the create time");
        assert!(timestamp(&created["createTime"]).year() >= 2026);
        assert!(created.get("updateTime").is_none() && created.get("deleteTime").is_none());
        assert_eq!(server.get(&log_path("screen-1")).ok(), created);
        assert_eq!(server.get(&format!("{}?name=activityLogs/screen-1", log_path("screen-1"))).ok(), created);
        server
            .get(&format!("{}?name=activityLogs/other", log_path("screen-1")))
            .invalid("NAME_MISMATCH", "name");
        let explicit = create_log(&server, "call-1", &json!({
            "type": "CUSTOM", "source": "CALL_CENTRE", "entityNames": ["entities/jane"],
            "occurTime": "2026-01-02T03:04:05+01:00"
        }));
        assert_eq!(explicit["occurTime"], "2026-01-02T02:04:05Z");
        assert_eq!(explicit["source"], "CALL_CENTRE");
        assert_eq!(entity_logs(&server, "jane", &[]), ["activityLogs/screen-1", "activityLogs/call-1"]);
        assert_eq!(entity_logs(&server, "acme", &[]), ["activityLogs/screen-1"]);
        assert_eq!(events_about(&server, "jane", "activityLogs/screen-1"), ["activity_log.created"]);
        assert_eq!(events_about(&server, "acme", "activityLogs/screen-1"), ["activity_log.created"]);
        let generated = server.post(LOGS, &json!({"type": "RISK_RATING", "entityNames": ["entities/acme"]})).ok();
        assert!(generated["name"].as_str().unwrap().starts_with("activityLogs/"));
        server.patch(&log_path("screen-1"), &json!({"description": "changed"})).error(405, "UNIMPLEMENTED", "METHOD_NOT_ALLOWED");
    }

    /// Type and log ids follow the spec, not design.md's narrower rule: 4 to 63 of
    /// `[a-z0-9-]` in any order, so `2024-kyc` and `kyc-` are taken and read back by
    /// path, in a list and in a batch get. An id that parses as a UUID, the shape of a
    /// server-assigned id, is INVALID_RESOURCE_ID.
    fn spec_ids_are_accepted_for_types_and_logs(server) {
        server.create_person("jane", "Jane Doe");
        for id in ["2024-kyc", "kyc-", "----", "0000"] {
            let created = create_type(&server, id, &json!({"displayName": format!("Type {id}")}));
            assert_eq!(created["name"], format!("activityLogTypes/{id}"));
            assert_eq!(server.get(&type_path(id)).ok(), created);
            let log = create_log(&server, id, &json!({"activityLogType": format!("activityLogTypes/{id}"), "type": "CUSTOM", "entityNames": ["entities/jane"]}));
            assert_eq!(log["name"], format!("activityLogs/{id}"));
            assert_eq!(server.get(&log_path(id)).ok(), log);
            let batch = server.get(&format!("{LOGS}:batchGet?names=activityLogs/{id}")).ok();
            assert_eq!(batch["activityLogs"][0], log);
        }
        let page = server.get(&format!("{TYPES}?pageSize=10")).ok();
        assert_eq!(page["totalSize"], 4);
        for id in [
            "0190f4c2-7b3a-7d1e-9c2f-3a4b5c6d7e8f",
            "0190f4c27b3a7d1e9c2f3a4b5c6d7e8f",
            "00000000-0000-0000-0000-000000000000",
        ] {
            server
                .post(&format!("{TYPES}?activityLogTypeId={id}"), &json!({"displayName": "Uuid"}))
                .invalid("INVALID_RESOURCE_ID", "activityLogTypeId");
            server
                .post(&format!("{LOGS}?activityLogId={id}"), &json!({"type": "CUSTOM", "entityNames": ["entities/jane"]}))
                .invalid("INVALID_RESOURCE_ID", "activityLogId");
        }
        for id in ["abc", "2024_kyc", "2024-KYC"] {
            server
                .post(&format!("{TYPES}?activityLogTypeId={id}"), &json!({"displayName": "Bad"}))
                .invalid("INVALID_RESOURCE_ID", "activityLogTypeId");
        }
        server
            .post(&format!("{ENTITIES}?entityId=2024-jane"), &person("Jane"))
            .invalid("INVALID_RESOURCE_ID", "entityId");
    }

    /// Bad logs are refused with the field at fault and write nothing: ids of 3 or 64
    /// characters or with capitals, a payload that breaks the type's schema (one
    /// violation per fault), a type other than the activity log type's, the reserved
    /// source, missing or deleted entities and types, malformed names.
    fn bad_logs_are_refused_and_write_nothing(server) {
        server.create_person("jane", "Jane Doe");
        server.create_person("gone", "Gone Person");
        server.delete(&format!("{ENTITIES}/gone")).ok();
        create_type(&server, "screening", &screening_type());
        let valid = json!({"activityLogType": "activityLogTypes/screening", "entityNames": ["entities/jane"], "payload": {"score": 0.5}});
        for id in ["abc", &"a".repeat(64), "Call-1"] {
            server
                .post(&format!("{LOGS}?activityLogId={id}"), &valid)
                .invalid("INVALID_RESOURCE_ID", "activityLogId");
        }
        let with = |changes: Value| {
            let mut body = valid.clone();
            for (key, value) in changes.as_object().unwrap() {
                body[key] = value.clone();
            }
            server.post(LOGS, &body)
        };
        let reply = with(json!({"payload": {"score": "high", "lists": ["UN", 7]}}));
        reply.invalid("PAYLOAD_SCHEMA_VIOLATION", "activityLog.payload.score");
        reply.assert_violation("activityLog.payload.lists[1]");
        assert_eq!(reply.violation_fields().len(), 2, "{}", reply.text);
        assert_eq!(reply.metadata("activityLogType"), Some("activityLogTypes/screening"));
        let descriptions: Vec<&str> = reply.detail("BadRequest").unwrap()["fieldViolations"].as_array().unwrap().iter().map(|v| v["description"].as_str().unwrap()).collect();
        assert!(descriptions.iter().any(|d| d.contains("\"high\"") && d.contains("number")), "{descriptions:?}");
        with(json!({"payload": {"score": 3}})).invalid("PAYLOAD_SCHEMA_VIOLATION", "activityLog.payload.score");
        with(json!({"payload": {}})).invalid("PAYLOAD_SCHEMA_VIOLATION", "activityLog.payload");
        with(json!({"type": "CUSTOM"})).invalid("ACTIVITY_TYPE_MISMATCH", "activityLog.type");
        server
            .post(LOGS, &json!({"entityNames": ["entities/jane"]}))
            .invalid("REQUIRED", "activityLog.type");
        with(json!({"source": "RICS"})).invalid("INVALID_FIELDS", "activityLog.source");
        with(json!({"source": "rics"})).invalid("INVALID_FIELDS", "activityLog.source");
        with(json!({"entityNames": []})).invalid("INVALID_FIELDS", "activityLog.entityNames");
        with(json!({"entityNames": ["entities/jane", "people/x"]})).invalid("INVALID_FIELDS", "activityLog.entityNames[1]");
        let many: Vec<String> = (0..101).map(|n| format!("entities/e{n:03}")).collect();
        with(json!({"entityNames": many})).invalid("INVALID_FIELDS", "activityLog.entityNames");
        with(json!({"workspace": "cases/1"})).invalid("INVALID_FIELDS", "activityLog.workspace");
        with(json!({"workspace": "workspaces/nowhere"})).error(404, "NOT_FOUND", "WORKSPACE_NOT_FOUND");
        server.post("/v1alpha/workspaces?workspaceId=gone-case", &json!({"displayName": "Gone"})).ok();
        server.delete("/v1alpha/workspaces/gone-case").ok();
        with(json!({"workspace": "workspaces/gone-case"})).error(400, "FAILED_PRECONDITION", "WORKSPACE_DELETED");
        with(json!({"activityLogType": "screening"})).invalid("INVALID_FIELDS", "activityLog.activityLogType");
        with(json!({"description": "x".repeat(2001)})).invalid("INVALID_FIELDS", "activityLog.description");
        with(json!({"occurTime": "yesterday"})).invalid("INVALID_VALUE", "activityLog.occurTime");
        with(json!({"colour": "red"})).invalid("UNKNOWN_FIELD", "activityLog.colour");
        with(json!({"payload": [1]})).invalid("INVALID_VALUE", "activityLog.payload");
        let missing = with(json!({"entityNames": ["entities/jane", "entities/nobody"]}));
        missing.error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        assert_eq!(missing.metadata("resource"), Some("entities/nobody"));
        let deleted = with(json!({"entityNames": ["entities/gone"]}));
        deleted.error(400, "FAILED_PRECONDITION", "ENTITY_DELETED");
        assert_eq!(deleted.metadata("resource"), Some("entities/gone"));
        let no_type = with(json!({"activityLogType": "activityLogTypes/nothing"}));
        no_type.error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        assert_eq!(no_type.metadata("resource"), Some("activityLogTypes/nothing"));
        assert!(entity_logs(&server, "jane", &[("showDeleted", "true")]).is_empty(), "nothing was written");
        assert!(events_about(&server, "jane", "activityLogs/nothing").is_empty());
        create_log(&server, "call-1", &valid);
        server
            .post(&format!("{LOGS}?activityLogId=call-1"), &valid)
            .error(409, "ALREADY_EXISTS", "RESOURCE_ALREADY_EXISTS");
        assert_eq!(entity_logs(&server, "jane", &[]), ["activityLogs/call-1"]);
    }

    /// `:batchGet` returns the logs in the order asked, deleted ones included, all or
    /// nothing: one missing name is NOT_FOUND naming it; a malformed one is
    /// INVALID_ARGUMENT on `names[i]`.
    fn batch_get_is_all_or_nothing(server) {
        server.create_person("jane", "Jane Doe");
        for id in ["log-a", "log-b", "log-c"] {
            create_log(&server, id, &json!({"type": "CUSTOM", "entityNames": ["entities/jane"]}));
        }
        server.delete(&log_path("log-c")).ok();
        let found = server.get(&format!("{LOGS}:batchGet?names=activityLogs/log-c&names=activityLogs/log-a&names=activityLogs/log-c")).ok();
        assert_eq!(names(&found["activityLogs"]), ["activityLogs/log-c", "activityLogs/log-a", "activityLogs/log-c"]);
        assert!(found["activityLogs"][0].get("deleteTime").is_some());
        let missing = server.get(&format!("{LOGS}:batchGet?names=activityLogs/log-a&names=activityLogs/log-x&names=activityLogs/log-y"));
        missing.error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        assert_eq!(missing.metadata("resource"), Some("activityLogs/log-x"));
        server
            .get(&format!("{LOGS}:batchGet?names=activityLogs/log-a&names=entities/jane"))
            .invalid("INVALID_NAME", "names[1]");
        server.get(&format!("{LOGS}:batchGet")).invalid("REQUIRED", "names");
        let too_many: String = (0..1001).map(|n| format!("names=activityLogs/l{n:04}")).collect::<Vec<_>>().join("&");
        server.get(&format!("{LOGS}:batchGet?{too_many}")).invalid("TOO_MANY_NAMES", "names");
    }

    /// DELETE soft-deletes and returns the log; GET still answers; the entity's list
    /// hides it unless showDeleted; deleting again is NOT_FOUND; a stale etag is
    /// ABORTED; `:undelete` restores it, and of a live log is ALREADY_EXISTS; each
    /// change is an event of every entity the log names.
    fn logs_delete_and_undelete(server) {
        server.create_person("jane", "Jane Doe");
        server.create("?entityId=acme", &company("Acme"));
        let created = create_log(&server, "call-1", &json!({"type": "CUSTOM", "entityNames": ["entities/jane", "entities/acme"]}));
        let path = log_path("call-1");
        server
            .delete(&format!("{path}?etag={}", encode("\"stale\"")))
            .error(409, "ABORTED", "ETAG_MISMATCH");
        let deleted = server.delete(&path).ok();
        assert!(deleted.get("deleteTime").is_some() && deleted.get("purgeTime").is_some(), "{deleted}");
        assert_ne!(deleted["etag"], created["etag"]);
        assert_eq!(server.get(&path).ok(), deleted);
        assert!(entity_logs(&server, "jane", &[]).is_empty());
        assert_eq!(entity_logs(&server, "jane", &[("showDeleted", "true")]), ["activityLogs/call-1"]);
        server.delete(&path).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        assert_eq!(server.delete(&format!("{path}?allowMissing=true")).ok(), deleted);
        server
            .post(&format!("{path}:undelete"), &json!({"etag": created["etag"]}))
            .error(409, "ABORTED", "ETAG_MISMATCH");
        let restored = server.post(&format!("{path}:undelete"), &json!({})).ok();
        assert!(restored.get("deleteTime").is_none(), "{restored}");
        assert_eq!(entity_logs(&server, "acme", &[]), ["activityLogs/call-1"]);
        server
            .post(&format!("{path}:undelete"), &json!({}))
            .error(409, "ALREADY_EXISTS", "RESOURCE_NOT_DELETED");
        server.post(&format!("{}:undelete", log_path("nothing")), &json!({})).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        for entity in ["jane", "acme"] {
            assert_eq!(
                events_about(&server, entity, "activityLogs/call-1"),
                ["activity_log.created", "activity_log.deleted", "activity_log.undeleted"]
            );
        }
    }

    /// An entity's logs: most recent activity first by default, orderBy, filters on
    /// type, activityLogType, source, occurTime and createTime, paging with bound
    /// tokens, pageSize 5000 coerced, a deleted entity's logs still listed, an unknown
    /// entity NOT_FOUND.
    fn entity_lists_order_filter_and_page(server) {
        server.create_person("jane", "Jane Doe");
        server.create_person("john", "John Smith");
        create_type(&server, "calls", &json!({"displayName": "Calls", "activityType": "CUSTOM"}));
        for (id, occur, kind, source, log_type) in [
            ("log-1", "2026-01-03T00:00:00Z", "CUSTOM", "CUSTOMER", "activityLogTypes/calls"),
            ("log-2", "2026-01-01T00:00:00Z", "RISK_RATING", "RATER", ""),
            ("log-3", "2026-01-04T00:00:00Z", "CUSTOM", "CUSTOMER", ""),
            ("log-4", "2026-01-02T00:00:00Z", "IDENTITY_CHECK", "RATER", ""),
        ] {
            let mut body = json!({"type": kind, "source": source, "occurTime": occur, "entityNames": ["entities/jane"]});
            if !log_type.is_empty() {
                body["activityLogType"] = json!(log_type);
            }
            create_log(&server, id, &body);
        }
        create_log(&server, "johns", &json!({"type": "CUSTOM", "entityNames": ["entities/john"]}));
        assert_eq!(entity_logs(&server, "jane", &[]), ["activityLogs/log-3", "activityLogs/log-1", "activityLogs/log-4", "activityLogs/log-2"]);
        assert_eq!(entity_logs(&server, "jane", &[("orderBy", "createTime")]), ["activityLogs/log-1", "activityLogs/log-2", "activityLogs/log-3", "activityLogs/log-4"]);
        assert_eq!(entity_logs(&server, "jane", &[("orderBy", "occurTime")]), ["activityLogs/log-2", "activityLogs/log-4", "activityLogs/log-1", "activityLogs/log-3"]);
        assert_eq!(entity_logs(&server, "jane", &[("filter", "type = CUSTOM")]), ["activityLogs/log-3", "activityLogs/log-1"]);
        assert_eq!(entity_logs(&server, "jane", &[("filter", "source = \"RATER\"")]), ["activityLogs/log-4", "activityLogs/log-2"]);
        assert_eq!(entity_logs(&server, "jane", &[("filter", "activityLogType = \"activityLogTypes/calls\"")]), ["activityLogs/log-1"]);
        assert_eq!(entity_logs(&server, "jane", &[("filter", "occurTime >= \"2026-01-02T00:00:00Z\" AND occurTime < \"2026-01-04T00:00:00Z\"")]), ["activityLogs/log-1", "activityLogs/log-4"]);
        assert_eq!(entity_logs(&server, "jane", &[("filter", "createTime > \"2000-01-01T00:00:00Z\" AND NOT type = CUSTOM")]), ["activityLogs/log-4", "activityLogs/log-2"]);
        let all = server.get(&format!("{ENTITIES}/jane/activityLogs?pageSize=5000")).ok();
        assert_eq!(array(&all["activityLogs"]).len(), 4);
        assert!(all.get("nextPageToken").is_none(), "{all}");
        let first = server.get(&format!("{ENTITIES}/jane/activityLogs?pageSize=3")).ok();
        assert_eq!(array(&first["activityLogs"]).len(), 3);
        assert_eq!(first["totalSize"], 4);
        let token = first["nextPageToken"].as_str().unwrap();
        let second = server.get(&format!("{ENTITIES}/jane/activityLogs?pageSize=3&pageToken={}", encode(token))).ok();
        assert_eq!(names(&second["activityLogs"]), ["activityLogs/log-2"]);
        server
            .get(&format!("{ENTITIES}/jane/activityLogs?pageSize=3&pageToken={}{}", encode(token), query(&[("filter", "type = CUSTOM")]).replacen('?', "&", 1)))
            .invalid("PAGE_TOKEN_REQUEST_MISMATCH", "pageToken");
        server
            .get(&format!("{ENTITIES}/john/activityLogs?pageSize=3&pageToken={}", encode(token)))
            .invalid("PAGE_TOKEN_REQUEST_MISMATCH", "pageToken");
        assert_eq!(entity_logs(&server, "jane", &[("skip", "3")]), ["activityLogs/log-2"]);
        server
            .get(&format!("{ENTITIES}/jane/activityLogs{}", query(&[("filter", "payload.score > 1")])))
            .invalid("UNKNOWN_FILTER_FIELD", "filter");
        server
            .get(&format!("{ENTITIES}/jane/activityLogs{}", query(&[("orderBy", "source")])))
            .invalid("INVALID_ORDER_BY", "orderBy");
        server.get(&format!("{ENTITIES}/jane/activityLogs?pageSize=-5")).invalid("INVALID_PAGE_SIZE", "pageSize");
        server.delete(&format!("{ENTITIES}/jane")).ok();
        assert_eq!(entity_logs(&server, "jane", &[]).len(), 4, "a deleted entity's logs stay readable");
        server.get(&format!("{ENTITIES}/nobody/activityLogs")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        assert_eq!(entity_logs(&server, "john", &[]), ["activityLogs/johns"]);
    }

    /// A retried create with the same requestId returns the first log (or type) and
    /// writes no other; the same requestId with another body or method is refused.
    fn log_creates_are_idempotent(server) {
        server.create_person("jane", "Jane Doe");
        let body = json!({"type": "CUSTOM", "entityNames": ["entities/jane"], "payload": {"n": 1}});
        let first = server.post(&format!("{LOGS}?requestId={REQUEST_ID}"), &body).ok();
        let again = server.post(&format!("{LOGS}?requestId={REQUEST_ID}"), &body).ok();
        assert_eq!(again, first);
        assert_eq!(entity_logs(&server, "jane", &[]).len(), 1);
        let other = json!({"type": "CUSTOM", "entityNames": ["entities/jane"], "payload": {"n": 2}});
        server
            .post(&format!("{LOGS}?requestId={REQUEST_ID}"), &other)
            .invalid("REQUEST_ID_REUSED", "requestId");
        server.post(&format!("{LOGS}?requestId=not-a-uuid"), &body).invalid("INVALID_REQUEST_ID", "requestId");
        // A request id belongs to its first request, whatever the method.
        server
            .post(&format!("{TYPES}?requestId={REQUEST_ID}"), &json!({"displayName": "Once"}))
            .invalid("REQUEST_ID_REUSED", "requestId");
        let type_request = "5d1c3b2a-0f9e-4d8c-b7a6-958473625140";
        let log_type = server.post(&format!("{TYPES}?requestId={type_request}"), &json!({"displayName": "Once"})).ok();
        assert_eq!(server.post(&format!("{TYPES}?requestId={type_request}"), &json!({"displayName": "Once"})).ok(), log_type);
        assert_eq!(server.get(TYPES).ok()["totalSize"], 1);
    }

    /// Erasing an entity erases every log naming it, shared ones included, with their
    /// events under the other entities; the receipt counts them.
    fn erasing_an_entity_erases_its_logs(server) {
        server.create_person("jane", "Jane Doe");
        server.create("?entityId=acme", &company("Acme"));
        create_log(&server, "janes", &json!({"type": "CUSTOM", "entityNames": ["entities/jane"]}));
        create_log(&server, "shared", &json!({"type": "CUSTOM", "entityNames": ["entities/acme", "entities/jane"], "description": "Jane's data"}));
        create_log(&server, "acmes", &json!({"type": "CUSTOM", "entityNames": ["entities/acme"]}));
        let receipt = server.delete(&format!("{ENTITIES}/jane:hardDelete")).ok();
        assert_eq!(receipt["erasedCounts"]["activityLogs"], 2, "{receipt}");
        for id in ["janes", "shared"] {
            server.get(&log_path(id)).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        }
        assert_eq!(entity_logs(&server, "acme", &[("showDeleted", "true")]), ["activityLogs/acmes"]);
        assert!(events_about(&server, "acme", "activityLogs/shared").is_empty());
        assert_eq!(events_about(&server, "acme", "activityLogs/acmes"), ["activity_log.created"]);
        let other = server.delete(&format!("{ENTITIES}/acme:hardDelete")).ok();
        assert_eq!(other["erasedCounts"]["activityLogs"], 1, "{other}");
    }
}

/// Soft-deleted types and logs are purged by the maintenance loop once their purge
/// time passes: here at once, with a retention of zero and a purge every 100 ms. A log
/// of a purged type keeps naming it.
fn expired_types_and_logs_are_purged(backend: Backend) {
    let server = Server::start_with(backend, |config| {
        config.soft_delete_retention = Duration::ZERO;
        config.purge_interval = Duration::from_millis(100);
    });
    server.create_person("jane", "Jane Doe");
    create_type(
        &server,
        "calls",
        &json!({"displayName": "Calls", "activityType": "CUSTOM"}),
    );
    create_log(
        &server,
        "kept",
        &json!({"activityLogType": "activityLogTypes/calls", "entityNames": ["entities/jane"]}),
    );
    create_log(
        &server,
        "dropped",
        &json!({"type": "CUSTOM", "entityNames": ["entities/jane"]}),
    );
    server.delete(&log_path("dropped")).ok();
    server.delete(&type_path("calls")).ok();
    wait_for_404(&server, &log_path("dropped"));
    wait_for_404(&server, &type_path("calls"));
    assert_eq!(
        entity_logs(&server, "jane", &[("showDeleted", "true")]),
        ["activityLogs/kept"]
    );
    assert_eq!(
        server.get(&log_path("kept")).ok()["activityLogType"],
        "activityLogTypes/calls"
    );
    assert_eq!(
        events_about(&server, "jane", "activityLogs/dropped"),
        ["activity_log.created", "activity_log.deleted"],
        "an entity's history keeps the purged log's events"
    );
}

mod expired_types_and_logs_are_purged {
    use super::*;

    #[test]
    fn sqlite() {
        super::expired_types_and_logs_are_purged(Backend::Sqlite);
    }

    #[test]
    fn postgres() {
        super::expired_types_and_logs_are_purged(Backend::Postgres);
    }
}
