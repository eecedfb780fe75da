//! Cross-cutting behaviour: health probes, request ids, the OpenAPI document, the
//! route table and the error envelope's metadata.

use std::collections::BTreeSet;

use rics_e2e::*;
use rics_http::routes::ROUTES;
use serde_json::{Value, json};

const HTTP_METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// The path of `route` with its variables filled: `id` for the entity, the caller's
/// own tenant, `nothing` for the rest.
fn concrete(path: &str, id: &str) -> String {
    path.replace("{entity}", id)
        .replace("{tenant}", "current")
        .replace("{operation}", "nothing")
        .replace("{event}", "nothing")
        .replace("{workspace}", "nothing")
        .replace("{note}", "nothing")
        .replace("{job}", "nothing")
        .replace("{activityLogType}", "nothing")
        .replace("{activityLog}", "nothing")
        .replace("{alert}", "nothing")
        .replace("{alertType}", "nothing")
}

/// Routes anyone may call: probes, this document, the authorization server's own
/// endpoints (which authenticate clients and users themselves), and the hosted form's
/// pages and files (a link's token is their credential), and Truuth's callback (the
/// tenant's callback secret is its credential).
const PUBLIC: [(&str, &str); 14] = [
    ("GET", "/healthz"),
    ("GET", "/readyz"),
    ("GET", "/v1alpha/openapi.json"),
    ("POST", "/oauth2/token"),
    ("GET", "/oauth2/authorize"),
    ("POST", "/oauth2/authorize"),
    ("GET", "/.well-known/openid-configuration"),
    ("GET", "/.well-known/jwks.json"),
    ("GET", "/hosted/{token}"),
    ("GET", "/hosted/{token}/steps/{step}"),
    ("POST", "/hosted/{token}/steps/{step}"),
    ("GET", "/hosted/assets/hosted.css"),
    ("GET", "/hosted/assets/hosted.js"),
    ("POST", "/v1alpha/truuth/webhooks/callback"),
];

/// Whether `text` is a lower-case hyphenated UUID.
fn is_uuid(text: &str) -> bool {
    let groups: Vec<usize> = text.split('-').map(str::len).collect();
    groups == [8, 4, 4, 4, 12] && text.chars().all(|c| c == '-' || c.is_ascii_hexdigit())
}

/// The single-quoted parts of a message.
fn quoted(message: &str) -> Vec<&str> {
    message.split('\'').skip(1).step_by(2).collect()
}

on_both_backends! {
    /// `/healthz` and `/readyz` answer 200 with JSON while the database is up.
    fn health_probes_answer(server) {
        for path in ["/healthz", "/readyz"] {
            let reply = server.get(path);
            assert!(reply.header("content-type").unwrap_or("").starts_with("application/json"));
            assert_eq!(reply.ok()["status"], "SERVING");
        }
    }

    /// A well-formed X-Request-Id is echoed on successes and errors and quoted in the
    /// error's RequestInfo; without one (or with an unsafe one) the server makes one up.
    fn request_ids_are_echoed_or_generated(server) {
        let given = server.send(server.request(Method::GET, "/healthz").header("x-request-id", "client-req-42"));
        assert_eq!(given.header("x-request-id"), Some("client-req-42"));
        let failed = server.send(server.request(Method::GET, "/v1alpha/entities/nobody").header("x-request-id", "client-req-43"));
        failed.error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        assert_eq!(failed.header("x-request-id"), Some("client-req-43"));
        assert_eq!(failed.detail("RequestInfo").unwrap()["requestId"], "client-req-43");
        let created = server.send(server.request(Method::POST, ENTITIES).header("x-request-id", "client-req-44").json(&person("Ann Lee")));
        assert_eq!(created.header("x-request-id"), Some("client-req-44"));
        let mut seen = BTreeSet::new();
        for path in ["/healthz", "/v1alpha/entities", "/v1alpha/nothing", "/v1alpha/entities?pageSize=-1"] {
            let reply = server.get(path);
            let id = reply.header("x-request-id").unwrap_or_else(|| panic!("{path} has no X-Request-Id")).to_owned();
            assert!(is_uuid(&id), "generated ids are UUIDs: {id}");
            assert!(seen.insert(id.clone()), "every request gets its own id");
            if reply.status >= 400 {
                assert_eq!(reply.detail("RequestInfo").unwrap()["requestId"], id.as_str());
            }
        }
        for unsafe_id in ["has space", &"x".repeat(129)] {
            let reply = server.send(server.request(Method::GET, "/v1alpha/nothing").header("x-request-id", unsafe_id));
            let id = reply.header("x-request-id").unwrap();
            assert!(is_uuid(id), "an unsafe id is replaced: {id}");
            reply.error(404, "NOT_FOUND", "ROUTE_NOT_FOUND");
        }
    }

    /// The OpenAPI document is OpenAPI 3.1, lists every route of the route table with
    /// its method and nothing else, and carries the schemas.
    fn openapi_document_covers_every_route(server) {
        let reply = server.get("/v1alpha/openapi.json");
        assert!(reply.header("content-type").unwrap_or("").starts_with("application/json"));
        let document = reply.ok();
        assert!(
            document["openapi"].as_str().is_some_and(|v| v.starts_with("3.1")),
            "OpenAPI 3.1: {}", document["openapi"]
        );
        let paths = document["paths"].as_object().expect("paths");
        let documented: BTreeSet<(String, String)> = paths
            .iter()
            .flat_map(|(path, item)| {
                item.as_object()
                    .into_iter()
                    .flat_map(|ops| ops.keys())
                    .filter(|key| HTTP_METHODS.contains(&key.as_str()))
                    .map(move |method| (method.to_uppercase(), path.clone()))
            })
            .collect();
        let routed: BTreeSet<(String, String)> = ROUTES
            .iter()
            .map(|r| (r.method.to_owned(), r.path.to_owned()))
            .collect();
        let undocumented: Vec<_> = routed.difference(&documented).collect();
        assert!(undocumented.is_empty(), "routes missing from the OpenAPI document: {undocumented:?}");
        let unrouted: Vec<_> = documented.difference(&routed).collect();
        assert!(unrouted.is_empty(), "documented operations that are not routes: {unrouted:?}");
        for (method, path) in &routed {
            let operation = &paths[path.as_str()][method.to_lowercase()];
            assert!(
                operation["responses"].as_object().is_some_and(|r| r.contains_key("200")),
                "{method} {path} documents its 200 response"
            );
            if matches!(method.as_str(), "POST" | "PATCH") {
                let content = if path.starts_with("/oauth2/") {
                    "application/x-www-form-urlencoded"
                } else if path.starts_with("/hosted/") {
                    "multipart/form-data"
                } else {
                    "application/json"
                };
                assert!(
                    operation["requestBody"]["content"][content].is_object(),
                    "{method} {path} documents its {content} body"
                );
            }
            let route = ROUTES.iter().find(|r| r.method == method && r.path == path).unwrap();
            let required: Vec<&str> = operation["security"]
                .as_array()
                .map(|list| list.iter().filter_map(|r| r["oauth2"].as_array()).flatten().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if PUBLIC.contains(&(method.as_str(), path.as_str())) {
                assert!(route.scope.is_none(), "{method} {path} is public but the route table gives it a scope");
                assert!(required.is_empty(), "{method} {path} is public but documents a scope");
            } else {
                let scope = route.scope.unwrap_or_else(|| panic!("{method} {path} has no scope in the route table"));
                assert_eq!(required, vec![scope.as_str()], "{method} {path} documents the scope it enforces");
            }
            if path.contains("{entity}") {
                let parameters = operation["parameters"].as_array().map(Vec::as_slice).unwrap_or(&[]);
                assert!(
                    parameters.iter().any(|p| p["name"] == "entity" && p["in"] == "path"),
                    "{method} {path} documents its path variable"
                );
            }
        }
        let schemas = document["components"]["schemas"].as_object().expect("components.schemas");
        for schema in ["Entity", "ErrorEnvelope", "ListEntitiesResponse", "EntityRelationship"] {
            assert!(schemas.contains_key(schema), "schema {schema} is documented");
        }
    }

    /// Every route of the route table is served: none answers ROUTE_NOT_FOUND, and
    /// whatever it answers is JSON (an error in the envelope).
    fn every_route_is_served(server) {
        for (i, route) in ROUTES.iter().enumerate() {
            let id = format!("route-{i}");
            server.create_person(&id, "Route Person");
            let path = concrete(route.path, &id);
            let path = if path.ends_with(":batchGet") { format!("{path}?names=entities/{id}") } else { path };
            let method = Method::from_bytes(route.method.as_bytes()).unwrap();
            let mut request = server.request(method, &path);
            if matches!(route.method, "POST" | "PATCH") {
                request = request.json(&json!({}));
            }
            let reply = server.send(request);
            assert_ne!(reply.reason(), "ROUTE_NOT_FOUND", "{} {path} is not served: {}", route.method, reply.text);
            if path.starts_with("/oauth2/") {
                // RFC 6749 errors and the sign-in page, not the API's envelope.
                assert_ne!(reply.status, 404, "{} {path} is not served: {}", route.method, reply.text);
                continue;
            }
            if path.starts_with("/hosted/") {
                // The hosted form's pages (404 for the unknown link) and files.
                let content_type = reply.header("content-type").unwrap_or_default();
                assert!(content_type.starts_with("text/"), "{} {path} is served by the hosted pages: {content_type} {}", route.method, reply.text);
                continue;
            }
            assert!(!reply.json.is_null(), "{} {path} answers JSON: {}", route.method, reply.text);
            if reply.status >= 400 {
                reply.check_envelope(&format!("{} {path}: {}", route.method, reply.text));
            }
        }
    }

    /// When storage fails, the answer is a 5xx in the envelope with a generic message
    /// and the request id, never the database's own text; the service recovers when
    /// the database does.
    fn server_faults_hide_internal_text(server) {
        server.create_person("jane-doe", "Jane Doe");
        server.execute_sql("ALTER TABLE entities RENAME TO entities_hidden_away");
        let replies = [
            server.get(&format!("{ENTITIES}/jane-doe")),
            server.get(ENTITIES),
            server.post(ENTITIES, &person("Ann Lee")),
            server.patch(&format!("{ENTITIES}/jane-doe"), &json!({"displayName": "X"})),
        ];
        for reply in &replies {
            assert!(reply.status >= 500, "{} answered {}: {}", reply.request, reply.status, reply.text);
            reply.check_envelope(&reply.text);
            let text = reply.text.to_lowercase();
            for leak in ["entities_hidden_away", "relation", "no such table", "sql", "diesel", "storage", "postgres", "sqlite"] {
                assert!(!text.contains(leak), "a 5xx body shows '{leak}': {}", reply.text);
            }
            let request_id = reply.header("x-request-id").unwrap();
            assert!(reply.json["error"]["message"].as_str().unwrap().contains(request_id), "{}", reply.text);
            assert!(matches!(reply.json["error"]["status"].as_str(), Some("INTERNAL" | "UNAVAILABLE")), "{}", reply.text);
        }
        server.execute_sql("ALTER TABLE entities_hidden_away RENAME TO entities");
        server.entity("jane-doe");
    }

    /// Every dynamic value quoted in an error message is also in the ErrorInfo
    /// metadata.
    fn error_metadata_holds_the_message_values(server) {
        server.create_person("jane-doe", "Jane Doe");
        let replies = [
            server.get(&format!("{ENTITIES}/nobody")),
            server.get(&format!("{ENTITIES}?pageSize=abc")),
            server.get(&format!("{ENTITIES}{}", query(&[("filter", "colour = \"red\"")]))),
            server.get(&format!("{ENTITIES}{}", query(&[("orderBy", "colour")]))),
            server.get(&format!("{ENTITIES}?colour=red")),
            server.post(&format!("{ENTITIES}?entityId=Bad_ID"), &person("Ann Lee")),
            server.post(&format!("{ENTITIES}/jane-doe:addEntityRelationship"), &json!({"relatedEntity": "entities/nobody", "relationshipType": "OTHER"})),
            server.patch(&format!("{ENTITIES}/jane-doe?updateMask=colour"), &json!({})),
            server.post(&format!("{ENTITIES}/jane-doe:undelete"), &json!({})),
        ];
        let mut missing = Vec::new();
        for reply in &replies {
            reply.check_envelope(&reply.text);
            let message = reply.json["error"]["message"].as_str().unwrap_or("");
            let metadata: Vec<&str> = reply
                .detail("ErrorInfo")
                .and_then(|i| i["metadata"].as_object())
                .map(|m| m.values().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            // `'-'` in "letters, digits and '-'" is fixed text, not a value.
            for value in quoted(message).into_iter().filter(|v| *v != "-") {
                if !metadata.contains(&value) {
                    missing.push(format!("{}: '{value}' of \"{message}\" is not in the metadata {metadata:?}", reply.request));
                }
            }
        }
        assert!(missing.is_empty(), "message values missing from ErrorInfo.metadata:\n{}", missing.join("\n"));
    }
}

#[test]
fn metrics_count_requests_jobs_and_screens_apart_from_the_api_sqlite() {
    metrics_count_requests_jobs_and_screens_apart_from_the_api(Backend::Sqlite);
}

#[test]
fn metrics_count_requests_jobs_and_screens_apart_from_the_api_postgres() {
    metrics_count_requests_jobs_and_screens_apart_from_the_api(Backend::Postgres);
}

/// The value of the sample of `metric` whose labels include every one of `labels`
/// (`name="value"`), if the text has one.
fn sample(text: &str, metric: &str, labels: &[&str]) -> Option<f64> {
    text.lines().find_map(|line| {
        let rest = line.strip_prefix(metric)?;
        let (labels_part, value) = match rest.strip_prefix('{') {
            Some(labelled) => labelled.split_once("} ")?,
            None => ("", rest.strip_prefix(' ')?),
        };
        labels
            .iter()
            .all(|label| labels_part.split(',').any(|l| l == *label))
            .then(|| value.trim().parse().ok())
            .flatten()
    })
}

/// With `RICS_METRICS_ADDRESS`, a second listener serves Prometheus text at `/metrics`
/// without a token: requests by route template (never a path), job runs and the queue
/// by family, screens, the lists screened against, the pool and the name search index.
/// The API's listener has no `/metrics`.
fn metrics_count_requests_jobs_and_screens_apart_from_the_api(backend: Backend) {
    let server = Server::start_with(backend, |config| {
        config.metrics_address = Some("127.0.0.1:0".to_owned());
    });
    let entity = server.create_person("metrics-subject", "Ann Lee");
    let name = entity["name"].as_str().unwrap();
    server.get(&format!("/v1alpha/{name}")).ok();
    server
        .get("/v1alpha/entities?filter=displayName%3A%22ann%20lee%22")
        .ok();
    let job = server
        .post(
            &format!("/v1alpha/{name}/pepSanctionIndividualEntityJobs"),
            &json!({}),
        )
        .ok();
    let operation = server
        .post(
            &format!("/v1alpha/{}:run", job["name"].as_str().unwrap()),
            &json!({}),
        )
        .ok();
    server.wait_for(&operation);

    let text = server.metrics();
    let route = "route=\"/v1alpha/entities/{entity}\"";
    assert!(
        sample(
            &text,
            "rics_http_requests_total",
            &[route, "method=\"GET\"", "status=\"200\""]
        )
        .is_some_and(|n| n >= 1.0),
        "the GET is counted by its route template:\n{text}"
    );
    assert!(
        sample(
            &text,
            "rics_http_request_duration_seconds_count",
            &[route, "method=\"GET\""]
        )
        .is_some_and(|n| n >= 1.0),
        "and timed"
    );
    assert!(
        !text.contains("metrics-subject"),
        "no label holds an id from a path"
    );
    let family = "family=\"pepSanctionIndividualEntityJobs\"";
    assert!(
        sample(
            &text,
            "rics_job_runs_total",
            &[family, "outcome=\"succeeded\""]
        )
        .is_some_and(|n| n >= 1.0),
        "the run is counted by family and outcome:\n{text}"
    );
    assert!(sample(&text, "rics_job_run_duration_seconds_count", &[family]).is_some());
    assert_eq!(
        sample(&text, "rics_job_queue_depth", &[family]),
        Some(0.0),
        "nothing is left queued"
    );
    assert_eq!(
        sample(&text, "rics_job_oldest_age_seconds", &[family]),
        Some(0.0)
    );
    assert!(sample(&text, "rics_screening_duration_seconds_count", &[]).is_some_and(|n| n >= 1.0));
    assert_eq!(
        sample(&text, "rics_screening_list_info", &["dataset=\"un_sc\""]),
        Some(1.0),
        "the list screened against:\n{text}"
    );
    assert!(sample(&text, "rics_db_pool_in_use", &[]).is_some());
    assert!(
        sample(&text, "rics_search_index_entries", &[]).is_some_and(|n| n >= 1.0),
        "the name searched is held in the index:\n{text}"
    );
    assert!(
        sample(&text, "rics_search_index_build_seconds_count", &[]).is_some_and(|n| n >= 1.0),
        "built on the first search"
    );

    server
        .send(server.request_as(None, Method::GET, "/metrics"))
        .error(404, "NOT_FOUND", "ROUTE_NOT_FOUND");
}
