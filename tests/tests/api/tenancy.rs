//! Authorization and tenancy over real HTTP: tokens required on every API route,
//! scopes, rate limits, tenants and their operations, and the isolation matrix that
//! proves, route by route, that no tenant reaches another's data.

use rics_domain::principal::Scope;
use rics_e2e::*;
use rics_http::routes::{ROUTES, Route};
use serde_json::{Value, json};

/// Every route that needs a token.
fn gated() -> impl Iterator<Item = &'static Route> {
    ROUTES.iter().filter(|route| route.scope.is_some())
}

/// A request for `route` with its variables filled by `fill`, and a body for the methods
/// that take one.
fn call(server: &Server, token: Option<&str>, route: &Route, path: &str, body: &Value) -> Reply {
    let method = Method::from_bytes(route.method.as_bytes()).unwrap();
    let mut request = server.request_as(token, method, path);
    if matches!(route.method, "POST" | "PATCH") {
        request = request.json(body);
    }
    server.send(request)
}

/// `path` with a value for every variable: the caller's tenant, the entity
/// `jane-doe`, and `nothing` for the rest (the gate answers before any lookup).
fn placeholders(path: &str) -> String {
    let mut filled = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        let close = open + rest[open..].find('}').unwrap();
        filled.push_str(&rest[..open]);
        filled.push_str(match &rest[open + 1..close] {
            "tenant" => "current",
            "entity" => "jane-doe",
            _ => "nothing",
        });
        rest = &rest[close + 1..];
    }
    filled.push_str(rest);
    filled
}

/// The alert type the isolation matrix names (every tenant has it).
const PEP: &str = "pep-and-sanctions-match-found";

/// The id of a `tenants/{id}` name.
fn tenant_id(name: &str) -> &str {
    name.strip_prefix("tenants/").unwrap()
}

on_both_backends! {
    /// No token, a malformed one or another scheme: 401 UNAUTHENTICATED in the envelope
    /// with `WWW-Authenticate: Bearer`, on every gated route, and nothing changes.
    fn every_route_needs_a_token(server) {
        server.create_person("jane-doe", "Jane Doe");
        let before = server.snapshot();
        for route in gated() {
            let path = placeholders(route.path);
            let reply = call(&server, None, route, &path, &json!({"displayName": "Changed"}));
            reply.error(401, "UNAUTHENTICATED", "MISSING_TOKEN");
            assert!(reply.header("www-authenticate").unwrap().starts_with("Bearer"), "{} {path}", route.method);
        }
        let missing = server.send(server.request_as(None, Method::GET, ENTITIES));
        assert_eq!(missing.header("www-authenticate"), Some("Bearer"), "RFC 6750: no error code without a token");
        let garbage = server.send(server.request_as(Some("not.a.token"), Method::GET, ENTITIES));
        garbage.error(401, "UNAUTHENTICATED", "MALFORMED_TOKEN");
        assert_eq!(garbage.header("www-authenticate"), Some("Bearer error=\"invalid_token\""));
        let basic = server.send(server.request_as(None, Method::GET, ENTITIES).basic_auth(ADMIN_CLIENT_ID, Some(ADMIN_CLIENT_SECRET)));
        basic.error(401, "UNAUTHENTICATED", "UNSUPPORTED_AUTHORIZATION_SCHEME");
        assert_eq!(basic.header("www-authenticate"), Some("Bearer"));
        let tampered = format!("{}x", server.token());
        let reply = server.send(server.request_as(Some(&tampered), Method::GET, ENTITIES));
        assert_eq!(reply.status, 401, "{}", reply.text);
        assert_eq!(reply.header("www-authenticate"), Some("Bearer error=\"invalid_token\""));
        assert_eq!(server.snapshot(), before);
    }

    /// Tokens of an external OpenID Connect issuer act only in a tenant that exists
    /// here: one naming an unknown tenant gets 401 UNKNOWN_TENANT with
    /// `WWW-Authenticate: Bearer error="invalid_token"`, on reads and writes alike, and
    /// writes nothing; once the tenant exists, the same token works at once.
    fn external_tokens_must_name_an_existing_tenant(server) {
        let idp = Server::start_issuer(server.backend());
        let trusting = server.sibling(|config| config.oidc_issuers = vec![idp.url("")]);
        let as_idp = |method: Method, path: &str| trusting.request_as(Some(idp.token()), method, path);
        let foreign = tenant_id(idp.partner()).to_owned();
        let refusals = [
            trusting.send(as_idp(Method::GET, ENTITIES)),
            trusting.send(as_idp(Method::POST, ENTITIES).json(&person("Jane Doe"))),
            trusting.send(as_idp(Method::GET, "/v1alpha/tenants/current")),
        ];
        for reply in refusals {
            reply.error(401, "UNAUTHENTICATED", "UNKNOWN_TENANT");
            assert_eq!(reply.header("www-authenticate"), Some("Bearer error=\"invalid_token\""));
        }

        server.execute_sql(&format!(
            "INSERT INTO tenants (id, display_name, tenant_type, parent, state, create_time, update_time) \
             VALUES ('{foreign}', 'Federated', 'STANDARD', NULL, 'ACTIVE', 0, 0)"
        ));
        let listed = trusting.send(as_idp(Method::GET, &format!("{ENTITIES}?showDeleted=true"))).ok();
        assert!(array(&listed["entities"]).is_empty(), "the refused create wrote nothing: {listed}");
        let created = trusting.send(as_idp(Method::POST, ENTITIES).json(&person("Jane Doe"))).ok();
        let mine = trusting.send(as_idp(Method::GET, ENTITIES)).ok();
        assert_eq!(names(&mine["entities"]), vec![created["name"].as_str().unwrap().to_owned()]);
        drop(trusting);
    }

    /// A token names its scopes; each route needs its own: 403 PERMISSION_DENIED with
    /// INSUFFICIENT_SCOPE and the scope needed, in the envelope.
    fn scopes_are_enforced_per_route(server) {
        server.create_person("jane-doe", "Jane Doe");
        let before = server.snapshot();
        for scope in Scope::ALL {
            let token = server.client_token(ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, Some(scope.as_str()));
            for route in gated() {
                let needed = route.scope.unwrap();
                if needed == scope {
                    continue;
                }
                let path = placeholders(route.path);
                let reply = call(&server, Some(&token), route, &path, &json!({"displayName": "Changed"}));
                reply.error(403, "PERMISSION_DENIED", "INSUFFICIENT_SCOPE");
                assert_eq!(reply.metadata("requiredScope"), Some(needed.as_str()), "{} {path}", route.method);
            }
        }
        assert_eq!(server.snapshot(), before);
        let read = server.client_token(ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, Some("rics.read"));
        server.send(server.request_as(Some(&read), Method::GET, ENTITIES)).ok();
    }

    /// Each client has a token bucket: the RateLimit headers count down, the request
    /// over the limit is 429 RESOURCE_EXHAUSTED with Retry-After, and another client's
    /// bucket is its own.
    fn rate_limits_are_per_client(server) {
        let limited = server.sibling(|config| config.rate_limit_per_minute = 3);
        for remaining in (0..3).rev() {
            let reply = limited.get(ENTITIES);
            assert_eq!(reply.status, 200, "{}", reply.text);
            assert_eq!(reply.header("ratelimit-limit"), Some("3"));
            assert_eq!(reply.header("ratelimit-remaining"), Some(remaining.to_string().as_str()));
            assert!(reply.header("ratelimit-reset").unwrap().parse::<u64>().unwrap() <= 60);
        }
        let over = limited.get(ENTITIES);
        over.error(429, "RESOURCE_EXHAUSTED", "RATE_LIMITED");
        let retry: u64 = over.header("retry-after").unwrap().parse().unwrap();
        assert!((1..=20).contains(&retry), "retry after {retry}s");
        let (_, other) = server.child_tenant("Other");
        let reply = limited.send(limited.request_as(Some(&other), Method::GET, ENTITIES));
        assert_eq!(reply.status, 200, "another client has its own bucket: {}", reply.text);
        drop(limited);
    }

    /// Tokens are for one audience: a replica configured for another audience refuses
    /// this server's tokens (and this server refuses the replica's), changing nothing.
    fn tokens_are_for_one_audience(server) {
        let other = server.sibling(|config| config.token_audience = "another-api".into());
        let refused = other.send(other.request_as(Some(server.token()), Method::POST, ENTITIES).json(&person("Jane Doe")));
        refused.error(401, "UNAUTHENTICATED", "WRONG_AUDIENCE");
        let back = server.send(server.request_as(Some(other.token()), Method::GET, ENTITIES));
        back.error(401, "UNAUTHENTICATED", "WRONG_AUDIENCE");
        other.get(ENTITIES).ok();
        assert!(server.snapshot().is_empty());
        drop(other);
    }

    /// A partner creates a child: the operation is done with the tenant and its first
    /// client's credentials; the child's client works at once; each tenant sees itself
    /// (as `current` and by name) and nothing else; only partners create tenants.
    fn partners_create_child_tenants(server) {
        let partner = server.get("/v1alpha/tenants/current").ok();
        assert_eq!(partner["name"], server.partner());
        assert_eq!(partner["tenantType"], "PARTNER");
        assert_eq!(server.get(&format!("/v1alpha/{}", server.partner())).ok(), partner);

        let operation = server.post("/v1alpha/tenants", &json!({"displayName": "Acme Compliance"})).ok();
        let name = operation["name"].as_str().unwrap();
        assert!(name.starts_with(&format!("{}/operations/", server.partner())), "{name}");
        let polled = server.wait_for(&operation);
        assert_eq!(polled["name"], name);
        assert!(polled.get("error").is_none(), "{polled}");
        let child = &polled["response"]["tenant"];
        assert_eq!(child["displayName"], "Acme Compliance");
        assert_eq!(child["tenantType"], "STANDARD");
        assert_eq!(child["parent"], server.partner());
        let child_name = child["name"].as_str().unwrap().to_owned();
        let credentials = &polled["response"]["clients"][0];
        let child_token = server.client_token(
            credentials["clientId"].as_str().unwrap(),
            credentials["clientSecret"].as_str().unwrap(),
            None,
        );
        let as_child = |method: Method, path: &str| server.send(server.request_as(Some(&child_token), method, path));

        let own = as_child(Method::GET, "/v1alpha/tenants/current").ok();
        assert_eq!(own["name"], child_name.as_str());
        assert_eq!(as_child(Method::GET, &format!("/v1alpha/{child_name}")).ok(), own);
        as_child(Method::GET, &format!("/v1alpha/{}", server.partner())).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        server.get(&format!("/v1alpha/{child_name}")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        as_child(Method::GET, &format!("/v1alpha/{name}")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        let operation_id = name.rsplit('/').next().unwrap();
        as_child(Method::GET, &format!("/v1alpha/{child_name}/operations/{operation_id}")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        server.get(&format!("/v1alpha/{}/operations/nothing", server.partner())).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");

        let children = server.get(&format!("/v1alpha/{}/children", server.partner())).ok();
        assert_eq!(names(&children["tenants"]), vec![child_name.clone()]);
        let current_children = server.get("/v1alpha/tenants/current/children").ok();
        assert_eq!(names(&current_children["tenants"]), vec![child_name.clone()]);
        let none = as_child(Method::GET, "/v1alpha/tenants/current/children").ok();
        assert!(array(&none["tenants"]).is_empty(), "{none}");
        as_child(Method::GET, &format!("/v1alpha/{}/children", server.partner())).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");

        let refused = server.send(server.request_as(Some(&child_token), Method::POST, "/v1alpha/tenants").json(&json!({"displayName": "Grandchild"})));
        refused.error(403, "PERMISSION_DENIED", "PARTNER_TENANT_REQUIRED");
        let after = server.get("/v1alpha/tenants/current/children").ok();
        assert_eq!(names(&after["tenants"]), vec![child_name], "a refused creation creates nothing");

        server.post("/v1alpha/tenants", &json!({})).invalid("REQUIRED", "tenant.displayName");
        server.post("/v1alpha/tenants", &json!({"displayName": "x".repeat(201)})).invalid("TOO_LONG", "tenant.displayName");
        server.post("/v1alpha/tenants", &json!({"displayName": "Acme", "colour": "red"})).invalid("UNKNOWN_FIELD", "tenant.colour");
        let count = array(&server.get("/v1alpha/tenants/current/children").ok()["tenants"]).len();
        assert_eq!(count, 1, "refused creations create nothing");
    }

    /// Children lists page and filter like every AIP list.
    fn children_lists_page_and_filter(server) {
        for n in 0..5 {
            server.child_tenant(&format!("Child {n}"));
        }
        let parent = server.partner().to_owned();
        let first = server.get(&format!("/v1alpha/{parent}/children?pageSize=2")).ok();
        assert_eq!(array(&first["tenants"]).len(), 2);
        let token = first["nextPageToken"].as_str().unwrap();
        let second = server.get(&format!("/v1alpha/{parent}/children?pageSize=2&pageToken={}", encode(token))).ok();
        assert_eq!(array(&second["tenants"]).len(), 2);
        let filtered = server.get(&format!("/v1alpha/{parent}/children{}", query(&[("filter", "displayName = \"Child 3\"")]))).ok();
        let found: Vec<&str> = array(&filtered["tenants"]).iter().map(|t| t["displayName"].as_str().unwrap()).collect();
        assert_eq!(found, vec!["Child 3"]);
        server.get(&format!("/v1alpha/{parent}/children?pageSize=2&pageToken={}{}", encode(token), query(&[("filter", "displayName = \"Child 1\"")]).replacen('?', "&", 1)))
            .invalid("PAGE_TOKEN_REQUEST_MISMATCH", "pageToken");
        server.get(&format!("/v1alpha/{parent}/children{}", query(&[("filter", "colour = \"red\"")])))
            .invalid("UNKNOWN_FILTER_FIELD", "filter");
    }

    /// The isolation matrix. Two tenants (the partner and its child) each hold an
    /// entity with a tag, a relationship, a file, an activity log type and an activity
    /// log about the entity, a case, a form definition and a form about the entity in
    /// the case, an alert and an identity document about it, and a webhook endpoint. Then, for every gated route of the route
    /// table, each tenant calls it with the other's identifiers: the answer is NOT_FOUND,
    /// or, for collections, a result without the other's data; and afterwards each
    /// tenant's data is exactly as it was. A new route joins the matrix by being in the
    /// route table; one the matrix cannot place fails it.
    fn no_tenant_reaches_another(server) {
        let (child, child_token) = server.child_tenant("Child");
        let partner = server.partner().to_owned();
        let tenants = [(partner.clone(), server.token().to_owned()), (child.clone(), child_token)];
        let operation = server.post("/v1alpha/tenants", &json!({"displayName": "Second child"})).ok();
        let operation_id = operation["name"].as_str().unwrap().rsplit('/').next().unwrap().to_owned();
        for (i, (_, token)) in tenants.iter().enumerate() {
            let as_owner = |method: Method, path: &str, body: Option<Value>| {
                let mut request = server.request_as(Some(token), method, path);
                if let Some(body) = body {
                    request = request.json(&body);
                }
                server.send(request).ok()
            };
            as_owner(Method::POST, &format!("{ENTITIES}?entityId=secret-{i}"), Some(person("Secret Person")));
            as_owner(Method::POST, &format!("{ENTITIES}?entityId=secret-co-{i}"), Some(company("Secret Co")));
            as_owner(Method::POST, &format!("{ENTITIES}/secret-{i}:addTag"), Some(json!({"tag": "vip"})));
            as_owner(
                Method::POST,
                &format!("{ENTITIES}/secret-{i}:addEntityRelationship"),
                Some(json!({"relatedEntity": format!("entities/secret-co-{i}"), "relationshipType": "DIRECTOR"})),
            );
            // Something of the caller's own to name in bodies that need one.
            as_owner(Method::POST, &format!("{ENTITIES}?entityId=mine-{i}"), Some(person("Own Person")));
            as_owner(
                Method::POST,
                &format!("/v1alpha/activityLogTypes?activityLogTypeId=secret-type-{i}"),
                Some(json!({"displayName": "Secret Type", "activityType": "CUSTOM"})),
            );
            as_owner(
                Method::POST,
                &format!("/v1alpha/activityLogs?activityLogId=secret-log-{i}"),
                Some(json!({"activityLogType": format!("activityLogTypes/secret-type-{i}"), "entityNames": [format!("entities/secret-{i}")], "payload": {"note": "Secret note"}})),
            );
            // A case with the secret entity, and notes on both.
            as_owner(
                Method::POST,
                &format!("/v1alpha/workspaces?workspaceId=case-{i}"),
                Some(json!({"displayName": "Secret case", "entities": [format!("entities/secret-{i}")]})),
            );
            as_owner(Method::POST, &format!("{ENTITIES}/secret-{i}/notes"), Some(json!({"name": format!("notes/note-{i}"), "content": "Secret note"})));
            // A file of the secret entity.
            as_owner(
                Method::POST,
                &format!("{ENTITIES}/secret-{i}/files?fileId=file-{i}"),
                Some(json!({"displayName": "Secret scan", "content": "U2VjcmV0IHNjYW4K"})),
            );
            as_owner(Method::POST, &format!("/v1alpha/workspaces/case-{i}/notes"), Some(json!({"name": format!("notes/note-{i}"), "content": "Secret note"})));
            // A form definition of the tenant's own, and a form of it about the secret
            // entity, collected for the case.
            as_owner(
                Method::POST,
                &format!("/v1alpha/formDefinitions?formDefinitionId=secret-def-{i}"),
                Some(json!({"displayName": "Secret definition", "schema": {"steps": [{"key": "s", "label": "S",
                    "fields": [{"key": "secret", "label": "Secret", "type": "TEXT"}]}]}})),
            );
            // An automation of the tenant's own.
            as_owner(
                Method::POST,
                &format!("/v1alpha/automations?automationId=secret-auto-{i}"),
                Some(json!({"displayName": "Secret automation", "inputSchema": {"entity": {"type": "string"}},
                    "steps": [{"key": "tag", "kind": "ADD_TAG", "args": {"entity": "${parameters.entity}", "tag": "secret"}}]})),
            );
            as_owner(
                Method::POST,
                &format!("/v1alpha/forms?formId=form-{i}"),
                Some(json!({
                    "formDefinition": format!("formDefinitions/secret-def-{i}"),
                    "entity": format!("entities/secret-{i}"),
                    "workspaces": [format!("workspaces/case-{i}")],
                    "response": {"secret": "Secret answer"},
                })),
            );
            // An alert about the secret entity, in the case.
            as_owner(
                Method::POST,
                &format!("/v1alpha/alerts?alertId=alert-{i}"),
                Some(json!({
                    "alertType": format!("alertTypes/{PEP}"),
                    "entities": [format!("entities/secret-{i}")],
                    "workspace": format!("workspaces/case-{i}"),
                    "title": "Secret alert",
                })),
            );
            // A webhook endpoint of the tenant's own.
            as_owner(
                Method::POST,
                &format!("/v1alpha/webhookEndpoints?webhookEndpointId=hook-{i}"),
                Some(json!({"url": format!("http://127.0.0.1:9/secret-{i}"), "eventTypes": ["*"], "description": "Secret hook"})),
            );
            // An identity document of the secret entity, collected for the case.
            as_owner(
                Method::POST,
                &format!("/v1alpha/documents?documentId=doc-{i}"),
                Some(json!({
                    "entity": format!("entities/secret-{i}"),
                    "documentType": "PASSPORT",
                    "documentNumber": "SECRET1",
                    "givenName": "Secret",
                    "workspace": format!("workspaces/case-{i}"),
                })),
            );
        }
        // A rating of each tenant's secret entity, for `:evaluationInput`.
        for (i, (_, token)) in tenants.iter().enumerate() {
            server.send(server.request_as(Some(token), Method::POST, &format!("{ENTITIES}/secret-{i}:evaluate")).json(&json!({}))).ok();
        }
        // An execution of each tenant's own automation, to name in the execution routes.
        let mut secret_executions = Vec::new();
        for (i, (_, token)) in tenants.iter().enumerate() {
            let run = server.send(server.request_as(Some(token), Method::POST, &format!("/v1alpha/automations/secret-auto-{i}:run"))
                .json(&json!({"parameters": {"entity": format!("entities/secret-{i}")}}))).ok();
            secret_executions.push(run["metadata"]["debug"]["execution"].as_str().unwrap().rsplit('/').next().unwrap().to_owned());
            // Its tag lands before the snapshot below, not during the matrix.
            server.wait_for_as(token, &run);
        }
        // A screening job of each tenant's secret entity, to name in the job routes.
        let mut secret_jobs = Vec::new();
        for (i, (_, token)) in tenants.iter().enumerate() {
            let job = server.send(server.request_as(Some(token), Method::POST, &format!("{ENTITIES}/secret-{i}/pepSanctionIndividualEntityJobs")).json(&json!({}))).ok();
            secret_jobs.push(job["name"].as_str().unwrap().rsplit('/').next().unwrap().to_owned());
        }
        // An ID document verification job of each tenant's secret document.
        let mut secret_id_jobs = Vec::new();
        for (i, (_, token)) in tenants.iter().enumerate() {
            let body = json!({"entity": format!("entities/secret-{i}"), "document": format!("documents/doc-{i}")});
            let job = server.send(server.request_as(Some(token), Method::POST, "/v1alpha/individualEntityIDVerificationJobs").json(&body)).ok();
            secret_id_jobs.push(job["name"].as_str().unwrap().rsplit('/').next().unwrap().to_owned());
        }
        // An onboarding job of each tenant's secret entity.
        let mut secret_onboarding_jobs = Vec::new();
        for (i, (_, token)) in tenants.iter().enumerate() {
            let body = json!({
                "formDefinition": "formDefinitions/kyc-individual",
                "jsonataExpression": "eyJkaXNwbGF5TmFtZSI6ICJTZWNyZXQifQ==",
                "webhookUri": format!("http://127.0.0.1:9/onboarding-{i}"),
            });
            let job = server.send(server.request_as(Some(token), Method::POST, &format!("{ENTITIES}/secret-{i}/onboardIndividualEntityJobs")).json(&body)).ok();
            secret_onboarding_jobs.push(job["name"].as_str().unwrap().rsplit('/').next().unwrap().to_owned());
        }
        // An identity verification job of each tenant's individual with an email, and a
        // verification session of each tenant (stored as a start with the provider
        // stores it: no provider is configured here).
        let mut secret_verification_jobs = Vec::new();
        for (i, (tenant, token)) in tenants.iter().enumerate() {
            let mut mailed = person("Secret Mailed");
            mailed["contactInfo"] = json!({"emails": ["secret@example.com"]});
            server.send(server.request_as(Some(token), Method::POST, &format!("{ENTITIES}?entityId=mailed-{i}")).json(&mailed)).ok();
            let body = json!({"entity": format!("entities/mailed-{i}"), "truuthVerificationConfig": {}});
            let job = server.send(server.request_as(Some(token), Method::POST, "/v1alpha/individualEntityVerificationJobs").json(&body)).ok();
            secret_verification_jobs.push(job["name"].as_str().unwrap().rsplit('/').next().unwrap().to_owned());
            server.execute_sql(&format!(
                "INSERT INTO verification_sessions (tenant_id, id, provider, entity_id, identity_owner, \
                 enrich_entity, state, create_time, expire_time) VALUES ('{}', 'session-{i}', 'TRUUTH', \
                 'mailed-{i}', '{{\"email\": \"secret@example.com\"}}', false, 'ACTIVE', 1, 4102444800000000)",
                tenant_id(tenant)
            ));
        }
        let snapshot = |token: &str| {
            let entities = server.send(server.request_as(Some(token), Method::GET, &format!("{ENTITIES}?showDeleted=true&pageSize=1000"))).ok();
            let mut all = Vec::new();
            for entity in array(&entities["entities"]) {
                let id = id_of(entity);
                let relationships = server.send(server.request_as(Some(token), Method::GET, &format!("{ENTITIES}/{id}:EntityRelationships"))).ok();
                let events = server.send(server.request_as(Some(token), Method::GET, &format!("{ENTITIES}/{id}/events?pageSize=100"))).ok();
                let notes = server.send(server.request_as(Some(token), Method::GET, &format!("{ENTITIES}/{id}/notes?pageSize=1000"))).ok();
                let logs = server.send(server.request_as(Some(token), Method::GET, &format!("{ENTITIES}/{id}/activityLogs?showDeleted=true"))).ok();
                let files = server.send(server.request_as(Some(token), Method::GET, &format!("{ENTITIES}/{id}/files?showDeleted=true&pageSize=1000"))).ok();
                all.push((entity.clone(), relationships, events, notes, logs, files));
            }
            let workspaces = server.send(server.request_as(Some(token), Method::GET, "/v1alpha/workspaces?pageSize=1000")).ok();
            for workspace in array(&workspaces["workspaces"]) {
                let name = workspace["name"].as_str().unwrap();
                let notes = server.send(server.request_as(Some(token), Method::GET, &format!("/v1alpha/{name}/notes?pageSize=1000"))).ok();
                all.push((workspace.clone(), notes, Value::Null, Value::Null, Value::Null, Value::Null));
            }
            let alerts = server.send(server.request_as(Some(token), Method::GET, "/v1alpha/alerts?pageSize=1000")).ok();
            all.push((alerts, Value::Null, Value::Null, Value::Null, Value::Null, Value::Null));
            let documents = server.send(server.request_as(Some(token), Method::GET, "/v1alpha/documents?showDeleted=true&pageSize=1000")).ok();
            all.push((documents, Value::Null, Value::Null, Value::Null, Value::Null, Value::Null));
            let alert_types = server.send(server.request_as(Some(token), Method::GET, "/v1alpha/alertTypes?pageSize=1000")).ok();
            all.push((alert_types, Value::Null, Value::Null, Value::Null, Value::Null, Value::Null));
            let risk_models = server.send(server.request_as(Some(token), Method::GET, "/v1alpha/riskModels?pageSize=100")).ok();
            all.push((risk_models, Value::Null, Value::Null, Value::Null, Value::Null, Value::Null));
            let definitions = server.send(server.request_as(Some(token), Method::GET, "/v1alpha/formDefinitions?showDeleted=true&pageSize=1000")).ok();
            all.push((definitions, Value::Null, Value::Null, Value::Null, Value::Null, Value::Null));
            let forms = server.send(server.request_as(Some(token), Method::GET, "/v1alpha/forms?pageSize=1000")).ok();
            all.push((forms, Value::Null, Value::Null, Value::Null, Value::Null, Value::Null));
            let hooks = server.send(server.request_as(Some(token), Method::GET, "/v1alpha/webhookEndpoints?showDeleted=true&pageSize=1000")).ok();
            all.push((hooks, Value::Null, Value::Null, Value::Null, Value::Null, Value::Null));
            let automations = server.send(server.request_as(Some(token), Method::GET, "/v1alpha/automations?showDeleted=true&pageSize=1000")).ok();
            all.push((automations, Value::Null, Value::Null, Value::Null, Value::Null, Value::Null));
            let tenant = server.send(server.request_as(Some(token), Method::GET, "/v1alpha/tenants/current")).ok();
            let children = server.send(server.request_as(Some(token), Method::GET, "/v1alpha/tenants/current/children")).ok();
            // The tenant's own type (an attacker may create types of its own).
            let index = tenants.iter().position(|(_, t)| t == token).unwrap();
            let log_type = server.send(server.request_as(Some(token), Method::GET, &format!("/v1alpha/activityLogTypes/secret-type-{index}"))).ok();
            (all, tenant, children, log_type)
        };
        // Events of each tenant to name in the event routes: one of its secret entity,
        // and a tenant-level one (the record of an erasure).
        let mut entity_events = Vec::new();
        let mut tenant_events = Vec::new();
        for (i, (_, token)) in tenants.iter().enumerate() {
            let as_owner = |method: Method, path: &str| server.send(server.request_as(Some(token), method, path)).ok();
            let page = as_owner(Method::GET, &format!("{ENTITIES}/secret-{i}/events"));
            entity_events.push(page["events"][0]["name"].as_str().unwrap().rsplit('/').next().unwrap().to_owned());
            server.send(server.request_as(Some(token), Method::POST, &format!("{ENTITIES}?entityId=erased-{i}")).json(&person("Erased Person"))).ok();
            let receipt = as_owner(Method::DELETE, &format!("{ENTITIES}/erased-{i}:hardDelete"));
            let event = receipt["event"].as_str().unwrap().to_owned();
            as_owner(Method::GET, &format!("/v1alpha/{event}"));
            tenant_events.push(event.rsplit('/').next().unwrap().to_owned());
        }
        let before: Vec<_> = tenants.iter().map(|(_, token)| snapshot(token)).collect();
        // Each tenant's alert types, which have the same ids in every tenant.
        let alert_types: Vec<Value> = tenants
            .iter()
            .map(|(_, token)| server.send(server.request_as(Some(token), Method::GET, "/v1alpha/alertTypes?pageSize=1000")).ok())
            .collect();
        // Each tenant's risk models: every tenant has its default as version 1.
        let risk_models: Vec<Value> = tenants
            .iter()
            .map(|(_, token)| server.send(server.request_as(Some(token), Method::GET, "/v1alpha/riskModels?pageSize=100")).ok())
            .collect();

        let mut checked = 0;
        for (attacker, (attacker_tenant, token)) in tenants.iter().enumerate() {
            let victim = 1 - attacker;
            let victim_tenant = &tenants[victim].0;
            let secret = format!("secret-{victim}");
            for route in gated() {
                let path = route
                    .path
                    .replace("{entity}", &secret)
                    .replace("{tenant}", tenant_id(victim_tenant))
                    .replace("{operation}", &operation_id)
                    .replace("{workspace}", &format!("case-{victim}"))
                    .replace("{note}", &format!("note-{victim}"))
                    .replace("{file}", &format!("file-{victim}"))
                    .replace("{job}", if route.path.starts_with("/v1alpha/individualEntityIDVerificationJobs") {
                        &secret_id_jobs[victim]
                    } else if route.path.contains("/onboardIndividualEntityJobs/") {
                        &secret_onboarding_jobs[victim]
                    } else if route.path.starts_with("/v1alpha/individualEntityVerificationJobs") {
                        &secret_verification_jobs[victim]
                    } else {
                        &secret_jobs[victim]
                    })
                    .replace("{verificationSession}", &format!("session-{victim}"))
                    .replace("{activityLogType}", &format!("secret-type-{victim}"))
                    .replace("{activityLog}", &format!("secret-log-{victim}"))
                    .replace("{alert}", &format!("alert-{victim}"))
                    .replace("{document}", &format!("doc-{victim}"))
                    .replace("{formDefinition}", &format!("secret-def-{victim}"))
                    .replace("{form}", &format!("form-{victim}"))
                    .replace("{webhookEndpoint}", &format!("hook-{victim}"))
                    .replace("{delivery}", &tenant_events[victim])
                    .replace("{automation}", &format!("secret-auto-{victim}"))
                    .replace("{execution}", &secret_executions[victim])
                    .replace("{alertType}", PEP)
                    .replace("{riskModel}", "1")
                    .replace("{event}", if route.path.starts_with("/v1alpha/events/") { &tenant_events[victim] } else { &entity_events[victim] });
                assert!(!path.contains('{'), "the isolation matrix has no value for a variable of {}: add one", route.path);
                let context = format!("tenant {attacker_tenant} calling {} {path}", route.method);
                let body = match route.path.rsplit(':').next().unwrap_or("") {
                    "addTag" | "removeTag" => json!({"tag": "vip"}),
                    "resolve" => json!({"disposition": "FALSE_POSITIVE"}),
                    "reviewMatch" => json!({"match": "un_sc:x", "decision": "FALSE_POSITIVE", "reason": "Taken over"}),
                    "addEntityRelationship" | "removeEntityRelationship" => {
                        json!({"relatedEntity": format!("entities/mine-{attacker}"), "relationshipType": "DIRECTOR"})
                    }
                    _ if route.path.contains(':') => json!({}),
                    _ if route.path.contains("/notes") => json!({"content": "Taken over"}),
                    _ if route.path.starts_with("/v1alpha/webhookEndpoints") => json!({"description": "Taken over"}),
                    _ if route.path.ends_with("Jobs") => json!({}),
                    _ if route.path.contains("/documents") => json!({"givenName": "Taken over"}),
                    _ => json!({"displayName": "Taken over"}),
                };
                let reply = call(&server, Some(token), route, &path, &body);
                if route.path == "/v1alpha/alertTypes/{alertType}" {
                    // Every tenant has the default types under the same ids: the id
                    // names the caller's own type, never the other tenant's.
                    let found = reply.ok();
                    let own = array(&alert_types[attacker]["alertTypes"]).iter().find(|t| t["name"] == found["name"]);
                    assert_eq!(own, Some(&found), "{context}");
                    assert!(!array(&alert_types[victim]["alertTypes"]).iter().any(|t| t["uid"] == found["uid"]), "{context}: {found}");
                } else if route.path == "/v1alpha/riskModels/{riskModel}" {
                    // Version 1 of every tenant is its own default: the caller's, never
                    // the other tenant's.
                    let found = reply.ok();
                    assert_eq!(Some(&found), array(&risk_models[attacker]["riskModels"]).last(), "{context}");
                    assert!(!array(&risk_models[victim]["riskModels"]).iter().any(|m| m["uid"] == found["uid"]), "{context}: {found}");
                } else if route.path == "/v1alpha/riskModels/{riskModel}:rate" {
                    // Rates with the caller's own version; the empty body has no input.
                    reply.invalid("INVALID_VALUE", "rate");
                } else if route.path.contains('{') {
                    assert_eq!(reply.status, 404, "{context}: {}", reply.text);
                    reply.error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
                    assert!(!reply.text.contains("Secret"), "{context} leaks: {}", reply.text);
                } else {
                    match (route.method, route.path) {
                        ("GET", "/v1alpha/entities") => {
                            let page = reply.ok();
                            let found = names(&page["entities"]);
                            assert!(!found.contains(&format!("entities/{secret}")), "{context}: {found:?}");
                            for filter in ["displayName:\"Secret\"", "tags:\"vip\""] {
                                let filtered = server.send(server.request_as(Some(token), Method::GET, &format!("{ENTITIES}{}", query(&[("filter", filter), ("showDeleted", "true")])))).ok();
                                assert!(!names(&filtered["entities"]).contains(&format!("entities/{secret}")), "{context} with {filter}");
                            }
                        }
                        ("GET", "/v1alpha/entities:batchGet") => {
                            let reply = server.send(server.request_as(Some(token), Method::GET, &format!("{ENTITIES}:batchGet?names=entities/{secret}")));
                            reply.error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
                        }
                        ("POST", "/v1alpha/entities:batchCreate") => {
                            // The victim's id is free in the attacker's tenant: the batch
                            // makes the attacker's own entity, touching none of the victim's.
                            let body = serde_json::json!({"requests": [{"entity": person("Own Batch Copy"), "entityId": secret}]});
                            let created = server.send(server.request_as(Some(token), Method::POST, &format!("{ENTITIES}:batchCreate")).json(&body)).ok();
                            assert_eq!(created["entities"][0]["displayName"], "Own Batch Copy");
                            server.send(server.request_as(Some(token), Method::DELETE, &format!("{ENTITIES}/{secret}:hardDelete"))).ok();
                        }
                        ("POST", "/v1alpha/entities") => {
                            // The same id in the attacker's tenant is the attacker's own
                            // entity: creating it touches nothing of the victim's.
                            let created = server.send(server.request_as(Some(token), Method::POST, &format!("{ENTITIES}?entityId={secret}")).json(&person("Own Copy"))).ok();
                            assert_eq!(created["displayName"], "Own Copy");
                            server.send(server.request_as(Some(token), Method::DELETE, &format!("{ENTITIES}/{secret}:hardDelete"))).ok();
                        }
                        ("GET", "/v1alpha/workspaces") => {
                            let found = names(&reply.ok()["workspaces"]);
                            assert!(!found.contains(&format!("workspaces/case-{victim}")), "{context}: {found:?}");
                            let filtered = server.send(server.request_as(Some(token), Method::GET, &format!("/v1alpha/workspaces{}", query(&[("filter", &format!("entities:\"entities/{secret}\"")), ("showDeleted", "true")])))).ok();
                            assert!(names(&filtered["workspaces"]).is_empty(), "{context}: {filtered}");
                        }
                        ("POST", "/v1alpha/workspaces") => {
                            // The body made a workspace of the attacker's own; naming the
                            // victim's entity in one is NOT_FOUND.
                            let created = reply.ok();
                            server.send(server.request_as(Some(token), Method::DELETE, &format!("/v1alpha/{}", created["name"].as_str().unwrap()))).ok();
                            let with_secret = server.send(server.request_as(Some(token), Method::POST, "/v1alpha/workspaces").json(&json!({"displayName": "Case", "entities": [format!("entities/{secret}")]})));
                            with_secret.error(404, "NOT_FOUND", "ENTITY_NOT_FOUND");
                        }
                        ("GET", "/v1alpha/activityLogTypes") => {
                            let page = reply.ok();
                            let victims = format!("activityLogTypes/secret-type-{victim}");
                            assert!(!names(&page["activityLogTypes"]).contains(&victims), "{context}");
                            let filtered = server.send(server.request_as(Some(token), Method::GET, &format!("/v1alpha/activityLogTypes{}", query(&[("filter", "displayName:\"Secret Type\""), ("showDeleted", "true")])))).ok();
                            assert_eq!(names(&filtered["activityLogTypes"]), vec![format!("activityLogTypes/secret-type-{attacker}")], "{context}");
                        }
                        ("POST", "/v1alpha/activityLogTypes") => {
                            // A type of the attacker's own, which touches nothing of the
                            // victim's.
                            let created = reply.ok();
                            assert_eq!(created["displayName"], "Taken over", "{context}");
                        }
                        ("POST", "/v1alpha/activityLogs") => {
                            reply.invalid("UNKNOWN_FIELD", "activityLog.displayName");
                            let about_victim = json!({"type": "CUSTOM", "entityNames": [format!("entities/{secret}")]});
                            let reply = server.send(server.request_as(Some(token), Method::POST, "/v1alpha/activityLogs").json(&about_victim));
                            reply.error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
                            let victims_type = json!({"activityLogType": format!("activityLogTypes/secret-type-{victim}"), "entityNames": [format!("entities/mine-{attacker}")]});
                            let reply = server.send(server.request_as(Some(token), Method::POST, "/v1alpha/activityLogs").json(&victims_type));
                            reply.error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
                        }
                        ("GET", "/v1alpha/activityLogs:batchGet") => {
                            let path = format!("/v1alpha/activityLogs:batchGet?names=activityLogs/secret-log-{victim}");
                            let reply = server.send(server.request_as(Some(token), Method::GET, &path));
                            reply.error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
                        }
                        ("GET", "/v1alpha/alertTypes") => {
                            assert_eq!(reply.ok(), alert_types[attacker], "{context}");
                        }
                        ("GET", "/v1alpha/alerts") => {
                            let found = names(&reply.ok()["alerts"]);
                            assert!(!found.contains(&format!("alerts/alert-{victim}")), "{context}: {found:?}");
                            for filter in [format!("entities:\"entities/{secret}\""), format!("workspace = \"workspaces/case-{victim}\"")] {
                                let filtered = server.send(server.request_as(Some(token), Method::GET, &format!("/v1alpha/alerts{}", query(&[("filter", &filter), ("showDeleted", "true")])))).ok();
                                assert!(names(&filtered["alerts"]).is_empty(), "{context} with {filter}: {filtered}");
                            }
                        }
                        ("POST", "/v1alpha/alerts") => {
                            // The body is no alert; one of the attacker's own is created
                            // (and deleted); naming the victim's entity or case in one is
                            // NOT_FOUND.
                            reply.error(400, "INVALID_ARGUMENT", "UNKNOWN_FIELD");
                            let own = json!({"alertType": format!("alertTypes/{PEP}"), "title": "Own alert"});
                            let created = server.send(server.request_as(Some(token), Method::POST, "/v1alpha/alerts").json(&own)).ok();
                            server.send(server.request_as(Some(token), Method::DELETE, &format!("/v1alpha/{}", created["name"].as_str().unwrap()))).ok();
                            let with_secret = json!({"alertType": format!("alertTypes/{PEP}"), "title": "Alert", "entities": [format!("entities/{secret}")]});
                            server.send(server.request_as(Some(token), Method::POST, "/v1alpha/alerts").json(&with_secret)).error(404, "NOT_FOUND", "ENTITY_NOT_FOUND");
                            let in_case = json!({"alertType": format!("alertTypes/{PEP}"), "title": "Alert", "workspace": format!("workspaces/case-{victim}")});
                            server.send(server.request_as(Some(token), Method::POST, "/v1alpha/alerts").json(&in_case)).error(404, "NOT_FOUND", "WORKSPACE_NOT_FOUND");
                        }
                        ("GET", "/v1alpha/individualEntityIDVerificationJobs") => {
                            let found = names(&reply.ok()["individualEntityIDVerificationJobs"]);
                            let victims = format!("individualEntityIDVerificationJobs/{}", secret_id_jobs[victim]);
                            assert!(!found.contains(&victims), "{context}: {found:?}");
                            assert_eq!(found.len(), 1, "{context}: only the caller's own job: {found:?}");
                        }
                        ("POST", "/v1alpha/individualEntityIDVerificationJobs") => {
                            // The empty body names no entity; the victim's entity, or the
                            // victim's document with an entity of the caller's own, is
                            // NOT_FOUND, and nothing is written.
                            reply.invalid("REQUIRED", "job.entity");
                            let create = |body: Value| server.send(server.request_as(Some(token), Method::POST, "/v1alpha/individualEntityIDVerificationJobs").json(&body));
                            create(json!({"entity": format!("entities/{secret}"), "idType": "PASSPORT"})).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
                            create(json!({"entity": format!("entities/mine-{attacker}"), "document": format!("documents/doc-{victim}")})).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
                        }
                        ("GET", "/v1alpha/individualEntityVerificationJobs") => {
                            let found = names(&reply.ok()["individualEntityVerificationJobs"]);
                            let victims = format!("individualEntityVerificationJobs/{}", secret_verification_jobs[victim]);
                            assert!(!found.contains(&victims), "{context}: {found:?}");
                            assert_eq!(found.len(), 1, "{context}: only the caller's own job: {found:?}");
                        }
                        ("POST", "/v1alpha/individualEntityVerificationJobs") => {
                            // The empty body names no entity; the victim's is NOT_FOUND.
                            reply.invalid("REQUIRED", "job.entity");
                            let body = json!({"entity": format!("entities/mailed-{victim}"), "truuthVerificationConfig": {}});
                            let reply = server.send(server.request_as(Some(token), Method::POST, "/v1alpha/individualEntityVerificationJobs").json(&body));
                            reply.error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
                        }
                        ("POST", "/v1alpha/verificationSessions") => {
                            // The body is no session; naming the victim's entity is
                            // NOT_FOUND before any provider is asked.
                            reply.invalid("UNKNOWN_FIELD", "session.displayName");
                            let body = json!({"identityOwner": {"email": "a@example.com"}, "entity": format!("entities/mailed-{victim}")});
                            let reply = server.send(server.request_as(Some(token), Method::POST, "/v1alpha/verificationSessions").json(&body));
                            reply.error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
                        }
                        ("GET", "/v1alpha/riskModels") => {
                            assert_eq!(reply.ok(), risk_models[attacker], "{context}");
                        }
                        ("POST", "/v1alpha/riskModels") => {
                            // The body is no model; nothing is stored in either tenant.
                            assert_eq!(reply.status, 400, "{context}: {}", reply.text);
                        }
                        ("GET", "/v1alpha/documents") => {
                            let found = names(&reply.ok()["documents"]);
                            assert!(!found.contains(&format!("documents/doc-{victim}")), "{context}: {found:?}");
                            let filter = format!("entity = \"entities/{secret}\"");
                            let filtered = server.send(server.request_as(Some(token), Method::GET, &format!("/v1alpha/documents{}", query(&[("filter", &filter), ("showDeleted", "true")])))).ok();
                            assert!(names(&filtered["documents"]).is_empty(), "{context}: {filtered}");
                        }
                        ("POST", "/v1alpha/documents") => {
                            // The body is no document; naming the victim's entity, or the
                            // victim's case with an entity of the attacker's own, is
                            // NOT_FOUND, and nothing is written.
                            reply.error(400, "INVALID_ARGUMENT", "INVALID_FIELDS");
                            let document = |entity: &str, workspace: Option<String>| {
                                let mut body = json!({"entity": entity, "documentType": "PASSPORT", "documentNumber": "X1"});
                                if let Some(workspace) = workspace {
                                    body["workspace"] = json!(workspace);
                                }
                                server.send(server.request_as(Some(token), Method::POST, "/v1alpha/documents").json(&body))
                            };
                            document(&format!("entities/{secret}"), None).error(404, "NOT_FOUND", "ENTITY_NOT_FOUND");
                            document(&format!("entities/mine-{attacker}"), Some(format!("workspaces/case-{victim}"))).error(404, "NOT_FOUND", "WORKSPACE_NOT_FOUND");
                        }
                        ("GET", "/v1alpha/formDefinitions") => {
                            let page = reply.ok();
                            let found = names(&page["formDefinitions"]);
                            assert!(!found.contains(&format!("formDefinitions/secret-def-{victim}")), "{context}: {found:?}");
                            assert!(found.contains(&format!("formDefinitions/secret-def-{attacker}")), "{context}: {found:?}");
                            let own = server.send(server.request_as(Some(token), Method::GET, "/v1alpha/formDefinitions/kyc-individual")).ok();
                            assert!(own["uid"].as_str().unwrap().starts_with(tenant_id(attacker_tenant)), "{context}: the seeded definition is the caller's own: {own}");
                        }
                        ("POST", "/v1alpha/formDefinitions") => {
                            // The body has no schema; nothing is stored in either tenant.
                            reply.error(400, "INVALID_ARGUMENT", "INVALID_FIELDS");
                        }
                        ("GET", "/v1alpha/automations") => {
                            let found = names(&reply.ok()["automations"]);
                            assert!(!found.contains(&format!("automations/secret-auto-{victim}")), "{context}: {found:?}");
                            assert!(found.contains(&format!("automations/secret-auto-{attacker}")), "{context}: {found:?}");
                            let own = server.send(server.request_as(Some(token), Method::GET, "/v1alpha/automations/kyc-individual")).ok();
                            assert!(own["uid"].as_str().unwrap().starts_with(tenant_id(attacker_tenant)), "{context}: the built-in automation is the caller's own: {own}");
                        }
                        ("POST", "/v1alpha/automations") => {
                            // The body has no steps; nothing is stored in either tenant.
                            reply.error(400, "INVALID_ARGUMENT", "REQUIRED");
                        }
                        ("GET", "/v1alpha/forms") => {
                            let found = names(&reply.ok()["forms"]);
                            assert!(!found.contains(&format!("forms/form-{victim}")), "{context}: {found:?}");
                            for filter in [format!("entity = \"entities/{secret}\""), format!("workspaces:\"workspaces/case-{victim}\"")] {
                                let filtered = server.send(server.request_as(Some(token), Method::GET, &format!("/v1alpha/forms{}", query(&[("filter", &filter)])))).ok();
                                assert!(names(&filtered["forms"]).is_empty(), "{context} with {filter}: {filtered}");
                            }
                        }
                        ("POST", "/v1alpha/forms") => {
                            // The body names no definition; naming the victim's definition,
                            // entity or case (with the caller's own definition) is
                            // NOT_FOUND, and nothing is written.
                            reply.error(400, "INVALID_ARGUMENT", "INVALID_FIELDS");
                            let create = |body: Value| server.send(server.request_as(Some(token), Method::POST, "/v1alpha/forms").json(&body));
                            let own = format!("formDefinitions/secret-def-{attacker}");
                            create(json!({"formDefinition": format!("formDefinitions/secret-def-{victim}")})).error(404, "NOT_FOUND", "FORM_DEFINITION_NOT_FOUND");
                            create(json!({"formDefinition": own, "entity": format!("entities/{secret}")})).error(404, "NOT_FOUND", "ENTITY_NOT_FOUND");
                            create(json!({"formDefinition": own, "workspaces": [format!("workspaces/case-{victim}")]})).error(404, "NOT_FOUND", "WORKSPACE_NOT_FOUND");
                        }
                        ("GET", "/v1alpha/webhookEndpoints") => {
                            let found = names(&reply.ok()["webhookEndpoints"]);
                            assert_eq!(found, vec![format!("webhookEndpoints/hook-{attacker}")], "{context}");
                        }
                        ("POST", "/v1alpha/webhookEndpoints") => {
                            // The body is no endpoint: it has no URL and no event types.
                            reply.invalid("INVALID_FIELDS", "webhookEndpoint.url");
                        }
                        ("GET", "/v1alpha/screeningLists") => {
                            // The operator's lists, the same for every tenant.
                            assert!(reply.ok()["screeningLists"].as_array().is_some_and(|l| !l.is_empty()), "{context}");
                        }
                        ("POST", "/v1alpha/tenants") => {
                            // A partner may create children (of its own); a standard tenant
                            // may not. Either way the victim gains no child.
                            if attacker_tenant == &partner {
                                assert_eq!(reply.status, 200, "{context}: {}", reply.text);
                            } else {
                                reply.error(403, "PERMISSION_DENIED", "PARTNER_TENANT_REQUIRED");
                            }
                        }
                        _ => panic!("the isolation matrix has no check for {} {}: add one", route.method, route.path),
                    }
                }
                checked += 1;
            }
        }
        assert_eq!(checked, 2 * gated().count());
        // Both POST /v1alpha/tenants calls by the partner made children of its own;
        // nothing else changed for either tenant.
        let after: Vec<_> = tenants.iter().map(|(_, token)| snapshot(token)).collect();
        assert_eq!(after[1], before[1], "the child's data changed");
        assert_eq!(after[0].0, before[0].0, "the partner's entities changed");
        assert_eq!(after[0].1, before[0].1, "the partner's tenant changed");
        assert_eq!(after[0].3, before[0].3, "the partner's activity log type changed");
        let partner_children = names(&after[0].2["tenants"]);
        assert!(partner_children.contains(&child));
    }
}
