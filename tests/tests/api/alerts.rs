//! Alert types and alerts over HTTP: the nine default types of every tenant, alerts
//! about entities of the caller's tenant, acknowledged once, soft-deleted and
//! restored, filtered and paged newest first, and kept when an entity is erased.

use rics_e2e::*;
use serde_json::{Value, json};

const ALERTS: &str = "/v1alpha/alerts";
const ALERT_TYPES: &str = "/v1alpha/alertTypes";

/// The default alert types: id, display name, default severity; by display name.
const DEFAULTS: [(&str, &str, &str); 9] = [
    (
        "adverse-media-match-found",
        "Adverse Media Match Found",
        "MEDIUM",
    ),
    (
        "business-verification-failed",
        "Business Verification Failed",
        "MEDIUM",
    ),
    (
        "enhanced-due-diligence-required",
        "Enhanced Due Diligence Required",
        "HIGH",
    ),
    (
        "individual-verification-failed",
        "Individual Verification Failed",
        "MEDIUM",
    ),
    ("onboarding-referred", "Onboarding Referred", "MEDIUM"),
    (
        "ongoing-customer-due-diligence-required",
        "Ongoing Customer Due Diligence Required",
        "LOW",
    ),
    (
        "pep-and-sanctions-match-found",
        "PEP and Sanctions Match Found",
        "HIGH",
    ),
    ("unusual-event", "Unusual Event", "MEDIUM"),
    (
        "webhook-endpoint-disabled",
        "Webhook Endpoint Disabled",
        "MEDIUM",
    ),
];

/// The ids of a list of alerts or alert types (`key` is the list's field).
fn ids(page: &Value, key: &str) -> Vec<String> {
    names(&page[key])
        .into_iter()
        .map(|n| n.rsplit('/').next().unwrap_or_default().to_owned())
        .collect()
}

/// An alert of type `alert_type` about `entities`.
fn alert(alert_type: &str, entities: &[&str], title: &str) -> Value {
    json!({
        "alertType": format!("alertTypes/{alert_type}"),
        "entities": entities.iter().map(|e| format!("entities/{e}")).collect::<Vec<_>>(),
        "title": title,
    })
}

fn create(server: &Server, id: &str, body: &Value) -> Value {
    server.post(&format!("{ALERTS}?alertId={id}"), body).ok()
}

/// A request as the holder of `token`.
fn as_token(
    server: &Server,
    token: &str,
    method: Method,
    path: &str,
    body: Option<&Value>,
) -> Reply {
    let mut request = server.request_as(Some(token), method, path);
    if let Some(body) = body {
        request = request.json(body);
    }
    server.send(request)
}

/// The event types of an entity's events, oldest first.
fn event_types(server: &Server, entity: &str) -> Vec<String> {
    let page = server
        .get(&format!("{ENTITIES}/{entity}/events?pageSize=100"))
        .ok();
    array(&page["events"])
        .iter()
        .map(|e| e["eventType"].as_str().unwrap_or_default().to_owned())
        .collect()
}

on_both_backends! {
    /// The first start's partner and every new child tenant have the nine default
    /// alert types, by display name, read-only; each tenant's are its own.
    fn every_tenant_has_the_default_alert_types(server) {
        let page = server.get(ALERT_TYPES).ok();
        assert_eq!(page["totalSize"], 9, "{page}");
        assert!(page.get("nextPageToken").is_none());
        let listed = array(&page["alertTypes"]);
        let expected: Vec<&str> = DEFAULTS.iter().map(|(id, _, _)| *id).collect();
        assert_eq!(ids(&page, "alertTypes"), expected, "by display name");
        for (item, (id, display_name, severity)) in listed.iter().zip(DEFAULTS) {
            assert_eq!(item["name"], format!("alertTypes/{id}"));
            assert_eq!(item["displayName"], display_name);
            assert_eq!(item["defaultSeverity"], severity);
            assert!(item["description"].as_str().is_some_and(|d| d.ends_with('.')), "{item}");
            assert!(item["uid"].as_str().is_some_and(|u| !u.is_empty()), "{item}");
            timestamp(&item["createTime"]);
            let path = format!("{ALERT_TYPES}/{id}");
            assert_eq!(&server.get(&path).ok(), item);
            assert_eq!(&server.get(&format!("{path}?name=alertTypes/{id}")).ok(), item);
        }
        server.get(&format!("{ALERT_TYPES}/unusual-event?name=alertTypes/other")).invalid("NAME_MISMATCH", "name");
        server.get(&format!("{ALERT_TYPES}/nothing")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        server.get(&format!("{ALERT_TYPES}/Not_An_Id")).invalid("INVALID_NAME", "name");

        let list = |params: &[(&str, &str)]| ids(&server.get(&format!("{ALERT_TYPES}{}", query(params))).ok(), "alertTypes");
        assert_eq!(list(&[("filter", "defaultSeverity = HIGH")]), ["enhanced-due-diligence-required", "pep-and-sanctions-match-found"]);
        assert_eq!(list(&[("filter", "displayName = \"PEP*\"")]), ["pep-and-sanctions-match-found"]);
        assert_eq!(list(&[("orderBy", "displayName desc"), ("pageSize", "2")]), ["webhook-endpoint-disabled", "unusual-event"]);
        let first = server.get(&format!("{ALERT_TYPES}?pageSize=5")).ok();
        let token = first["nextPageToken"].as_str().unwrap();
        let second = server.get(&format!("{ALERT_TYPES}?pageSize=5&pageToken={}", encode(token))).ok();
        assert_eq!([ids(&first, "alertTypes"), ids(&second, "alertTypes")].concat(), expected);
        server.get(&format!("{ALERT_TYPES}?showDeleted=true")).invalid("UNKNOWN_PARAMETER", "showDeleted");
        server.get(&format!("{ALERT_TYPES}{}", query(&[("filter", "defaultSeverity = URGENT")]))).invalid("INVALID_FILTER_VALUE", "filter");
        // Read-only: no method changes them.
        server.post(ALERT_TYPES, &json!({"displayName": "Mine"})).error(405, "UNIMPLEMENTED", "METHOD_NOT_ALLOWED");
        server.delete(&format!("{ALERT_TYPES}/unusual-event")).error(405, "UNIMPLEMENTED", "METHOD_NOT_ALLOWED");

        let (_, child) = server.child_tenant("Acme Compliance");
        let theirs = as_token(&server, &child, Method::GET, ALERT_TYPES, None).ok();
        assert_eq!(ids(&theirs, "alertTypes"), expected);
        for (mine, theirs) in listed.iter().zip(array(&theirs["alertTypes"])) {
            assert_eq!(without(mine, &["uid", "etag", "createTime", "updateTime"]), without(theirs, &["uid", "etag", "createTime", "updateTime"]));
            assert_ne!(mine["uid"], theirs["uid"], "each tenant's types are its own");
        }
    }

    /// Create (ACTIVE, from the caller, with the type's severity), get (also with
    /// ?name=), acknowledge once, delete and undelete, each with its etag; a request id
    /// makes creation safe to retry; every change is an event of each entity named.
    fn alerts_have_a_lifecycle(server) {
        server.create_person("jane-doe", "Jane Doe");
        server.create("?entityId=acme", &company("Acme"));
        server.post("/v1alpha/workspaces?workspaceId=case-1", &json!({"displayName": "Case 1"})).ok();
        let body = json!({
            "alertType": "alertTypes/pep-and-sanctions-match-found",
            "entities": ["entities/jane-doe", "entities/acme"],
            "workspace": "workspaces/case-1",
            "title": "Possible sanctions match",
            "description": "Matched on name and date of birth.\nScore 0.93.",
            "details": {"score": 0.93, "lists": ["UN", "OFAC"]},
            "state": "RESOLVED",
            "source": "forged",
            "acknowledger": "forged",
        });
        let created = create(&server, "match-1", &body);
        assert_eq!(created["name"], "alerts/match-1");
        assert_eq!(created["state"], "ACTIVE", "state is output only");
        assert_eq!(created["source"], format!("principals/{ADMIN_CLIENT_ID}"));
        assert!(created.get("acknowledger").is_none(), "{created}");
        assert_eq!(created["severity"], "HIGH", "the type's default severity");
        assert_eq!(created["entities"], body["entities"]);
        assert_eq!(created["workspace"], "workspaces/case-1");
        assert_eq!(created["description"], body["description"]);
        assert_eq!(created["details"], body["details"]);
        assert!(created["uid"].as_str().is_some_and(|u| !u.is_empty()));
        assert_eq!(timestamp(&created["createTime"]), timestamp(&created["updateTime"]));
        let path = format!("{ALERTS}/match-1");
        assert_eq!(server.get(&path).ok(), created);
        assert_eq!(server.get(&format!("{path}?name=alerts/match-1")).ok(), created);
        server.get(&format!("{path}?name=alerts/other")).invalid("NAME_MISMATCH", "name");
        server.post(&format!("{ALERTS}?alertId=match-1"), &body).error(409, "ALREADY_EXISTS", "RESOURCE_ALREADY_EXISTS");
        let chosen = create(&server, "low-one", &json!({"alertType": "alertTypes/pep-and-sanctions-match-found", "title": "Chosen", "severity": "LOW"}));
        assert_eq!(chosen["severity"], "LOW", "a given severity wins");
        assert!(chosen.get("entities").is_none() && chosen.get("workspace").is_none(), "{chosen}");

        server.post(&format!("{path}:acknowledge"), &json!({"etag": "\"stale\""})).error(409, "ABORTED", "ETAG_MISMATCH");
        let acknowledged = server.post(&format!("{path}:acknowledge"), &json!({"etag": created["etag"]})).ok();
        assert_eq!(acknowledged["state"], "ACKNOWLEDGED");
        assert_eq!(acknowledged["acknowledger"], ADMIN_CLIENT_ID);
        assert!(timestamp(&acknowledged["acknowledgeTime"]) >= timestamp(&created["createTime"]));
        assert_ne!(acknowledged["etag"], created["etag"]);
        assert_eq!(without(&acknowledged, &["state", "acknowledger", "acknowledgeTime", "updateTime", "etag"]), without(&created, &["state", "updateTime", "etag"]));
        let again = server.post(&format!("{path}:acknowledge"), &json!({}));
        again.error(400, "FAILED_PRECONDITION", "ALERT_NOT_ACTIVE");
        assert_eq!(again.metadata("state"), Some("ACKNOWLEDGED"));
        server.post(&format!("{path}:acknowledge?etag=x"), &json!({})).invalid("UNKNOWN_PARAMETER", "etag");
        server.post(&format!("{path}:acknowledge"), &json!({"colour": 1})).invalid("UNKNOWN_FIELD", "acknowledge.colour");

        server.post(&format!("{path}:undelete"), &json!({})).error(409, "ALREADY_EXISTS", "RESOURCE_NOT_DELETED");
        server.delete(&format!("{path}?etag={}", encode(created["etag"].as_str().unwrap()))).error(409, "ABORTED", "ETAG_MISMATCH");
        let deleted = server.delete(&format!("{path}?etag={}", encode(acknowledged["etag"].as_str().unwrap()))).ok();
        assert!(deleted.get("deleteTime").is_some() && deleted.get("purgeTime").is_some(), "{deleted}");
        assert_eq!(server.get(&path).ok(), deleted, "a deleted alert still reads");
        server.delete(&path).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        assert_eq!(server.delete(&format!("{path}?allowMissing=true")).ok(), deleted);
        assert_eq!(server.delete(&format!("{ALERTS}/nothing?allowMissing=true")).ok(), json!({}));
        let restored = server.post(&format!("{path}:undelete"), &json!({"etag": deleted["etag"]})).ok();
        assert!(restored.get("deleteTime").is_none() && restored.get("purgeTime").is_none());
        assert_eq!(restored["state"], "ACKNOWLEDGED");

        // A deleted alert cannot be acknowledged.
        let fresh = create(&server, "fresh-one", &alert("unusual-event", &["jane-doe"], "Odd login"));
        server.delete(&format!("{ALERTS}/fresh-one")).ok();
        server.post(&format!("{ALERTS}/fresh-one:acknowledge"), &json!({})).error(400, "FAILED_PRECONDITION", "RESOURCE_DELETED");
        assert_eq!(fresh["severity"], "MEDIUM");

        // A retried create with the same request id returns the first alert.
        let request = "?requestId=0b0c9a52-1a34-4b7c-9d55-55d3d7b6b2c1";
        let retried = alert("unusual-event", &[], "Retry");
        let first = server.post(&format!("{ALERTS}{request}"), &retried).ok();
        let second = server.post(&format!("{ALERTS}{request}"), &retried).ok();
        assert_eq!(first, second);
        server.post(&format!("{ALERTS}{request}"), &alert("unusual-event", &[], "Other")).invalid("REQUEST_ID_REUSED", "requestId");

        // Each entity named has its own record of each change.
        let expected = ["alert.created", "alert.acknowledged", "alert.deleted", "alert.undeleted"];
        for entity in ["jane-doe", "acme"] {
            let alert_events: Vec<String> = event_types(&server, entity).into_iter().filter(|t| t.starts_with("alert.")).collect();
            let wanted: Vec<&str> = if entity == "jane-doe" {
                [&expected[..], &["alert.created", "alert.deleted"]].concat()
            } else {
                expected.to_vec()
            };
            assert_eq!(alert_events, wanted, "{entity}");
        }
    }

    /// Unknown alert types, entities that are missing, another tenant's or deleted,
    /// and malformed fields are refused, naming the field; nothing is created.
    fn bad_alerts_are_refused(server) {
        server.create_person("jane-doe", "Jane Doe");
        server.create_person("gone", "Gone Person");
        server.delete(&format!("{ENTITIES}/gone")).ok();
        let (_, child) = server.child_tenant("Other Firm");
        as_token(&server, &child, Method::POST, &format!("{ENTITIES}?entityId=theirs"), Some(&person("Their Person"))).ok();
        as_token(&server, &child, Method::POST, "/v1alpha/workspaces?workspaceId=their-case", Some(&json!({"displayName": "Theirs"}))).ok();

        let reply = server.post(ALERTS, &alert("no-such-type", &["jane-doe"], "Odd"));
        reply.error(404, "NOT_FOUND", "ALERT_TYPE_NOT_FOUND");
        reply.assert_violation("alert.alertType");
        for missing in ["nobody", "theirs"] {
            let reply = server.post(ALERTS, &alert("unusual-event", &["jane-doe", missing], "Odd"));
            reply.error(404, "NOT_FOUND", "ENTITY_NOT_FOUND");
            reply.assert_violation("alert.entities[1]");
        }
        let reply = server.post(ALERTS, &alert("unusual-event", &["gone"], "Odd"));
        reply.error(400, "FAILED_PRECONDITION", "ENTITY_DELETED");
        assert_eq!(reply.metadata("entity"), Some("entities/gone"));
        let reply = server.post(ALERTS, &json!({"alertType": "alertTypes/unusual-event", "title": "Odd", "workspace": "workspaces/their-case"}));
        reply.error(404, "NOT_FOUND", "WORKSPACE_NOT_FOUND");
        reply.assert_violation("alert.workspace");
        server.post(ALERTS, &json!({"alertType": "alertTypes/unusual-event"})).invalid("INVALID_FIELDS", "alert.title");
        server.post(ALERTS, &json!({"title": "Odd"})).invalid("INVALID_FIELDS", "alert.alertType");
        server.post(ALERTS, &alert("unusual-event", &[], "two\nlines")).invalid("CONTROL_CHARACTER", "alert.title");
        server.post(ALERTS, &alert("unusual-event", &[], &"x".repeat(201))).invalid("INVALID_FIELDS", "alert.title");
        server.post(ALERTS, &json!({"alertType": "unusual-event", "title": "Odd"})).invalid("INVALID_FIELDS", "alert.alertType");
        server.post(ALERTS, &alert("unusual-event", &["jane-doe", "jane-doe"], "Odd")).invalid("INVALID_FIELDS", "alert.entities[1]");
        let many: Vec<String> = (0..101).map(|i| format!("person-{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        server.post(ALERTS, &alert("unusual-event", &many, "Odd")).invalid("INVALID_FIELDS", "alert.entities");
        server.post(ALERTS, &json!({"alertType": "alertTypes/unusual-event", "title": "Odd", "entities": ["jane-doe"]})).invalid("INVALID_FIELDS", "alert.entities[0]");
        server.post(ALERTS, &json!({"alertType": "alertTypes/unusual-event", "title": "Odd", "severity": "URGENT"})).invalid("INVALID_VALUE", "alert.severity");
        server.post(ALERTS, &json!({"alertType": "alertTypes/unusual-event", "title": "Odd", "details": [1, 2]})).invalid("INVALID_VALUE", "alert.details");
        server.post(ALERTS, &json!({"alertType": "alertTypes/unusual-event", "title": "Odd", "colour": "red"})).invalid("UNKNOWN_FIELD", "alert.colour");
        server.post(&format!("{ALERTS}?alertId=AB"), &alert("unusual-event", &[], "Odd")).invalid("INVALID_RESOURCE_ID", "alertId");
        server.post(&format!("{ALERTS}?requestId=abc"), &alert("unusual-event", &[], "Odd")).invalid("INVALID_REQUEST_ID", "requestId");
        server.get(&format!("{ALERTS}/Not_An_Id")).invalid("INVALID_NAME", "name");
        server.post(&format!("{ALERTS}/nothing:acknowledge"), &json!({})).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        let everything = server.get(&format!("{ALERTS}?showDeleted=true")).ok();
        assert_eq!(everything["totalSize"], 0, "nothing was created: {everything}");
        assert!(!event_types(&server, "jane-doe").iter().any(|t| t.starts_with("alert.")));
    }

    /// Newest first by default; filters on state, severity, alertType, entities,
    /// workspace and times; showDeleted; paging with a token bound to the filter.
    fn alert_lists_filter_and_page(server) {
        server.create_person("amy-lee", "Amy Lee");
        server.create_person("bob-ray", "Bob Ray");
        server.post("/v1alpha/workspaces?workspaceId=case-1", &json!({"displayName": "Case 1"})).ok();
        create(&server, "al-a", &alert("unusual-event", &["amy-lee"], "A"));
        let mut b = alert("pep-and-sanctions-match-found", &["amy-lee", "bob-ray"], "B");
        b["workspace"] = json!("workspaces/case-1");
        let b = create(&server, "al-b", &b);
        create(&server, "al-c", &alert("unusual-event", &["bob-ray"], "C"));
        create(&server, "al-d", &alert("adverse-media-match-found", &[], "D"));
        server.post(&format!("{ALERTS}/al-c:acknowledge"), &json!({})).ok();
        server.delete(&format!("{ALERTS}/al-d")).ok();
        let list = |params: &[(&str, &str)]| ids(&server.get(&format!("{ALERTS}{}", query(params))).ok(), "alerts");
        assert_eq!(list(&[]), ["al-c", "al-b", "al-a"], "newest first");
        assert_eq!(list(&[("showDeleted", "true")]), ["al-d", "al-c", "al-b", "al-a"]);
        assert_eq!(list(&[("orderBy", "createTime")]), ["al-a", "al-b", "al-c"]);
        assert_eq!(list(&[("orderBy", "updateTime desc")]), ["al-c", "al-b", "al-a"]);
        assert_eq!(list(&[("filter", "state = ACKNOWLEDGED")]), ["al-c"]);
        assert_eq!(list(&[("filter", "state = ACTIVE")]), ["al-b", "al-a"]);
        assert_eq!(list(&[("filter", "severity = HIGH")]), ["al-b"]);
        assert_eq!(list(&[("filter", "alertType = \"alertTypes/unusual-event\"")]), ["al-c", "al-a"]);
        assert_eq!(list(&[("filter", "entities:\"entities/amy-lee\"")]), ["al-b", "al-a"]);
        assert_eq!(list(&[("filter", "entities:\"entities/bob-ray\" AND NOT entities:\"entities/amy-lee\"")]), ["al-c"]);
        assert_eq!(list(&[("filter", "workspace = \"workspaces/case-1\"")]), ["al-b"]);
        assert_eq!(list(&[("filter", "acknowledgeTime:*")]), ["al-c"]);
        let since = b["createTime"].as_str().unwrap();
        assert_eq!(list(&[("filter", &format!("createTime >= \"{since}\""))]), ["al-c", "al-b"]);
        assert_eq!(list(&[("filter", "deleteTime:*"), ("showDeleted", "true")]), ["al-d"]);
        server.get(&format!("{ALERTS}?orderBy=severity")).invalid("INVALID_ORDER_BY", "orderBy");
        server.get(&format!("{ALERTS}{}", query(&[("filter", "state = OPEN")]))).invalid("INVALID_FILTER_VALUE", "filter");
        server.get(&format!("{ALERTS}{}", query(&[("filter", "title = \"A\"")]))).invalid("UNKNOWN_FILTER_FIELD", "filter");
        server.get(&format!("{ALERTS}?pageSize=-1")).invalid("INVALID_PAGE_SIZE", "pageSize");

        let filter = encode("state = ACTIVE OR state = ACKNOWLEDGED");
        let first = server.get(&format!("{ALERTS}?pageSize=2&filter={filter}")).ok();
        assert_eq!(ids(&first, "alerts"), ["al-c", "al-b"]);
        assert_eq!(first["totalSize"], 3);
        let token = encode(first["nextPageToken"].as_str().unwrap());
        let second = server.get(&format!("{ALERTS}?pageSize=2&filter={filter}&pageToken={token}")).ok();
        assert_eq!(ids(&second, "alerts"), ["al-a"]);
        assert!(second.get("nextPageToken").is_none());
        server.get(&format!("{ALERTS}?pageSize=2&filter={}&pageToken={token}", encode("state = ACTIVE")))
            .invalid("PAGE_TOKEN_REQUEST_MISMATCH", "pageToken");
        server.get(&format!("{ALERTS}?pageSize=2&pageToken={token}")).invalid("PAGE_TOKEN_REQUEST_MISMATCH", "pageToken");
    }

    /// A page holds at most 1000 alerts: a larger pageSize is coerced, and the rest
    /// follows with the token.
    fn page_size_is_coerced_to_1000(server) {
        for i in 0..1001 {
            create(&server, &format!("bulk-{i:04}"), &alert("unusual-event", &[], "Bulk"));
        }
        let page = server.get(&format!("{ALERTS}?pageSize=5000")).ok();
        assert_eq!(array(&page["alerts"]).len(), 1000);
        assert_eq!(page["totalSize"], 1001);
        let token = encode(page["nextPageToken"].as_str().unwrap());
        let rest = server.get(&format!("{ALERTS}?pageSize=5000&pageToken={token}")).ok();
        assert_eq!(ids(&rest, "alerts"), ["bulk-0000"], "newest first: the oldest comes last");
        let default = server.get(ALERTS).ok();
        assert_eq!(array(&default["alerts"]).len(), 50, "50 by default");
    }

    /// Reading needs rics.read, raising, acknowledging and deleting rics.write: a
    /// read-only token lists and reads alerts but gets 403 for the rest, changing
    /// nothing.
    fn a_read_only_token_reads_alerts_but_cannot_change_them(server) {
        server.create_person("jane-doe", "Jane Doe");
        let created = create(&server, "watch-1", &alert("unusual-event", &["jane-doe"], "Odd"));
        let read = server.client_token(ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, Some("rics.read"));
        assert_eq!(ids(&as_token(&server, &read, Method::GET, ALERTS, None).ok(), "alerts"), ["watch-1"]);
        assert_eq!(as_token(&server, &read, Method::GET, &format!("{ALERTS}/watch-1"), None).ok(), created);
        as_token(&server, &read, Method::GET, &format!("{ALERT_TYPES}/unusual-event"), None).ok();
        let attempts = [
            (Method::POST, ALERTS.to_owned(), Some(alert("unusual-event", &[], "Mine"))),
            (Method::POST, format!("{ALERTS}/watch-1:acknowledge"), Some(json!({}))),
            (Method::POST, format!("{ALERTS}/watch-1:resolve"), Some(json!({"disposition": "FALSE_POSITIVE"}))),
            (Method::DELETE, format!("{ALERTS}/watch-1"), None),
            (Method::POST, format!("{ALERTS}/watch-1:undelete"), Some(json!({}))),
        ];
        for (method, path, body) in attempts {
            let reply = as_token(&server, &read, method, &path, body.as_ref());
            reply.error(403, "PERMISSION_DENIED", "INSUFFICIENT_SCOPE");
            assert_eq!(reply.metadata("requiredScope"), Some("rics.write"), "{path}");
        }
        assert_eq!(server.get(&format!("{ALERTS}/watch-1")).ok(), created);
        assert_eq!(server.get(ALERTS).ok()["totalSize"], 1);
    }

    /// `:resolve` moves an ACTIVE or ACKNOWLEDGED alert to RESOLVED with a disposition,
    /// a comment, the resolver and the time; a second resolve is refused and changes
    /// nothing; bad requests change nothing; lists filter on the resolution.
    fn alerts_are_resolved_once_with_a_disposition(server) {
        server.create_person("jane-doe", "Jane Doe");
        let active = create(&server, "active-one", &alert("pep-and-sanctions-match-found", &["jane-doe"], "Match"));
        create(&server, "taken-one", &alert("unusual-event", &["jane-doe"], "Odd login"));
        server.post(&format!("{ALERTS}/taken-one:acknowledge"), &json!({})).ok();
        create(&server, "open-one", &alert("unusual-event", &[], "Still open"));
        let path = format!("{ALERTS}/active-one");
        server.post(&format!("{path}:resolve"), &json!({"comment": "no disposition"})).invalid("REQUIRED", "disposition");
        server.post(&format!("{path}:resolve"), &json!({"disposition": "MAYBE"})).invalid("INVALID_VALUE", "resolve.disposition");
        server.post(&format!("{path}:resolve"), &json!({"disposition": "FALSE_POSITIVE", "comment": "x".repeat(2001)})).invalid("TOO_LONG", "comment");
        server.post(&format!("{path}:resolve"), &json!({"disposition": "FALSE_POSITIVE", "colour": 1})).invalid("UNKNOWN_FIELD", "resolve.colour");
        server.post(&format!("{path}:resolve"), &json!({"disposition": "FALSE_POSITIVE", "etag": "\"stale\""})).error(409, "ABORTED", "ETAG_MISMATCH");
        assert_eq!(server.get(&path).ok(), active, "refused requests change nothing");
        let resolved = server.post(&format!("{path}:resolve"), &json!({"disposition": "FALSE_POSITIVE", "comment": "Another person:\nborn 1961.", "etag": active["etag"]})).ok();
        assert_eq!(
            (&resolved["state"], &resolved["disposition"], &resolved["resolver"], &resolved["resolveComment"]),
            (&json!("RESOLVED"), &json!("FALSE_POSITIVE"), &json!(ADMIN_CLIENT_ID), &json!("Another person:\nborn 1961."))
        );
        assert!(timestamp(&resolved["resolveTime"]) >= timestamp(&active["createTime"]));
        let again = server.post(&format!("{path}:resolve"), &json!({"disposition": "TRUE_POSITIVE"}));
        again.error(400, "FAILED_PRECONDITION", "ALERT_ALREADY_RESOLVED");
        assert_eq!(again.metadata("disposition"), Some("FALSE_POSITIVE"));
        server.post(&format!("{path}:acknowledge"), &json!({})).error(400, "FAILED_PRECONDITION", "ALERT_NOT_ACTIVE");
        assert_eq!(server.get(&path).ok(), resolved);
        let taken = server.post(&format!("{ALERTS}/taken-one:resolve"), &json!({"disposition": "NOT_RELEVANT"})).ok();
        assert_eq!((&taken["state"], &taken["disposition"]), (&json!("RESOLVED"), &json!("NOT_RELEVANT")));
        assert!(taken.get("resolveComment").is_none(), "{taken}");
        let dismissed = server.get(&format!("{ALERTS}{}", query(&[("filter", "disposition = FALSE_POSITIVE AND resolveTime > \"2000-01-01T00:00:00Z\"")]))).ok();
        assert_eq!(ids(&dismissed, "alerts"), vec!["active-one"]);
        let open = server.get(&format!("{ALERTS}{}", query(&[("filter", "disposition = DISPOSITION_UNSPECIFIED")]))).ok();
        assert_eq!(ids(&open, "alerts"), vec!["open-one"], "the zero value is the unresolved");
        let resolved_events = event_types(&server, "jane-doe").into_iter().filter(|t| t == "alert.resolved").count();
        assert_eq!(resolved_events, 2);
    }

    /// Erasing an entity takes it out of every alert; the alerts stay, as the firm's
    /// compliance record.
    fn erasing_an_entity_keeps_its_alerts(server) {
        server.create_person("jane-doe", "Jane Doe");
        server.create_person("amy-lee", "Amy Lee");
        let both = create(&server, "both", &alert("unusual-event", &["jane-doe", "amy-lee"], "Both"));
        create(&server, "only-jane", &alert("individual-verification-failed", &["jane-doe"], "Jane"));
        let receipt = server.delete(&format!("{ENTITIES}/jane-doe:hardDelete")).ok();
        assert_eq!(receipt["erasedCounts"]["alertMemberships"], 2, "{receipt}");
        let after = server.get(&format!("{ALERTS}/both")).ok();
        assert_eq!(after["entities"], json!(["entities/amy-lee"]));
        assert_ne!(after["etag"], both["etag"], "its entities changed");
        let only = server.get(&format!("{ALERTS}/only-jane")).ok();
        assert!(only.get("entities").is_none(), "{only}");
        assert_eq!(only["title"], "Jane");
        let naming = server.get(&format!("{ALERTS}{}", query(&[("filter", "entities:\"entities/jane-doe\"")]))).ok();
        assert!(ids(&naming, "alerts").is_empty(), "no alert names the erased entity: {naming}");
        assert_eq!(event_types(&server, "amy-lee").iter().filter(|t| t.starts_with("alert.")).count(), 1);
        server.post(&format!("{ALERTS}/only-jane:acknowledge"), &json!({})).ok();
    }
}
