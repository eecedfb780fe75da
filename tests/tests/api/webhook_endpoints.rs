//! Webhook endpoints over HTTP: their lifecycle, the signing secret shown only by
//! create and `:rotateSecret`, the subscription rules, and the URL rules (https, no
//! credentials, no loopback, private, link-local or metadata address unless the
//! operator allows it).

use rics_domain::webhook::TargetPolicy;
use rics_e2e::*;
use serde_json::{Value, json};

const ENDPOINTS: &str = "/v1alpha/webhookEndpoints";

/// A signing secret as Standard Webhooks gives one: `whsec_` and base64 of 32 bytes.
fn assert_secret(secret: &Value) -> String {
    use base64::Engine;
    let secret = secret.as_str().unwrap_or_default();
    let encoded = secret
        .strip_prefix("whsec_")
        .unwrap_or_else(|| panic!("{secret}"));
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .unwrap();
    assert_eq!(bytes.len(), 32);
    secret.to_owned()
}

on_both_backends! {
    /// Create (the secret shown once), get and list (never the secret), patch, disable
    /// and re-enable, rotate the secret (a new one, shown once), delete and undelete;
    /// each change an event of the catalogue.
    fn webhook_endpoints_have_a_lifecycle(server) {
        let created = server.post(&format!("{ENDPOINTS}?webhookEndpointId=crm-hook"), &json!({
            "url": "http://127.0.0.1:9/hooks", "eventTypes": ["entity.*", "alert.created"],
            "description": "The CRM"})).ok();
        assert_eq!(created["name"], "webhookEndpoints/crm-hook");
        assert_eq!(created["state"], "ENABLED");
        let secret = assert_secret(&created["secret"]);
        let path = format!("{ENDPOINTS}/crm-hook");
        let read = server.get(&path).ok();
        assert!(read.get("secret").is_none(), "{read}");
        let mut without_secret = created.clone();
        without_secret.as_object_mut().unwrap().remove("secret");
        assert_eq!(read, without_secret);
        let page = server.get(ENDPOINTS).ok();
        assert_eq!(page["webhookEndpoints"], json!([read]));

        let disabled = server.patch(&path, &json!({"state": "DISABLED", "eventTypes": ["*"]})).ok();
        assert_eq!((disabled["state"].as_str(), &disabled["eventTypes"]), (Some("DISABLED"), &json!(["*"])));
        assert!(disabled.get("secret").is_none());
        let enabled = server.patch(&format!("{path}?updateMask=state"), &json!({"state": "ENABLED"})).ok();
        assert_eq!(enabled["state"], "ENABLED");
        server.patch(&path, &json!({"secret": "whsec_mine"})).ok();

        let rotated = server.post(&format!("{path}:rotateSecret"), &json!({"etag": enabled["etag"]})).ok();
        let new_secret = assert_secret(&rotated["secret"]);
        assert_ne!(new_secret, secret);
        assert!(server.get(&path).ok().get("secret").is_none());
        server.post(&format!("{path}:rotateSecret"), &json!({"etag": enabled["etag"]}))
            .error(409, "ABORTED", "ETAG_MISMATCH");

        let deleted = server.delete(&path).ok();
        assert!(deleted["deleteTime"].is_string());
        server.patch(&path, &json!({"description": "x"})).error(400, "FAILED_PRECONDITION", "RESOURCE_DELETED");
        server.post(&format!("{path}:rotateSecret"), &json!({})).error(400, "FAILED_PRECONDITION", "RESOURCE_DELETED");
        assert!(names(&server.get(ENDPOINTS).ok()["webhookEndpoints"]).is_empty());
        server.post(&format!("{path}:undelete"), &json!({})).ok();
        assert_eq!(names(&server.get(&format!("{ENDPOINTS}?filter=state%3DENABLED")).ok()["webhookEndpoints"]), vec!["webhookEndpoints/crm-hook"]);
    }

    /// Event types must be catalogued types, `prefix.*` of a catalogued prefix, or
    /// `*`, at least one and each once; URLs must be https without credentials.
    fn bad_endpoints_are_refused(server) {
        let create = |body: Value| server.post(ENDPOINTS, &body);
        let url = "http://127.0.0.1:9/hooks";
        create(json!({"url": url})).invalid("REQUIRED", "webhookEndpoint.eventTypes");
        create(json!({"url": url, "eventTypes": []})).invalid("REQUIRED", "webhookEndpoint.eventTypes");
        create(json!({"url": url, "eventTypes": ["entity.exploded"]}))
            .invalid("UNKNOWN_EVENT_TYPE", "webhookEndpoint.eventTypes[0]");
        create(json!({"url": url, "eventTypes": ["entity.created", "nothing.*"]}))
            .invalid("UNKNOWN_EVENT_TYPE", "webhookEndpoint.eventTypes[1]");
        create(json!({"url": url, "eventTypes": ["*", "*"]}))
            .invalid("DUPLICATE_EVENT_TYPE", "webhookEndpoint.eventTypes[1]");
        create(json!({"eventTypes": ["*"]})).invalid("REQUIRED", "webhookEndpoint.url");
        create(json!({"url": "http://hooks.example.com/x", "eventTypes": ["*"]}))
            .error(400, "FAILED_PRECONDITION", "URL_NOT_HTTPS");
        create(json!({"url": "https://user:pw@hooks.example.com/x", "eventTypes": ["*"]}))
            .invalid("URL_CREDENTIALS", "webhookEndpoint.url");
        create(json!({"url": "ftp://hooks.example.com/x", "eventTypes": ["*"]}))
            .invalid("INVALID_URL", "webhookEndpoint.url");
        create(json!({"url": url, "eventTypes": ["*"], "secret": "whsec_mine"})).ok();
        assert_eq!(array(&server.get(ENDPOINTS).ok()["webhookEndpoints"]).len(), 1);
    }
}

/// Without an allow list, addresses that are not public are refused, whether given as
/// an IP or as a name that resolves to one; allowed, they are accepted (over http too).
fn ssrf_is_refused_unless_allowed(strict: Server) {
    for url in [
        "https://127.0.0.1/hooks",
        "https://10.0.0.1/hooks",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/hooks",
        "https://localhost/hooks",
    ] {
        strict
            .post(ENDPOINTS, &json!({"url": url, "eventTypes": ["*"]}))
            .error(400, "FAILED_PRECONDITION", "URL_FORBIDDEN_ADDRESS");
    }
    strict
        .post(
            ENDPOINTS,
            &json!({"url": "http://127.0.0.1:9/", "eventTypes": ["*"]}),
        )
        .error(400, "FAILED_PRECONDITION", "URL_NOT_HTTPS");
    assert!(names(&strict.get(ENDPOINTS).ok()["webhookEndpoints"]).is_empty());
}

fn allowing(allow: &'static str) -> impl FnOnce(&mut rics::config::Config) {
    move |config| {
        config.webhook_targets = TargetPolicy::parse(allow).unwrap();
    }
}

/// What the operator allows is accepted: addresses, networks and names.
fn allowed_addresses_are_accepted(server: Server) {
    for url in [
        "https://127.0.0.1/hooks",
        "http://10.0.0.1/hooks",
        "https://169.254.169.254/latest",
        "http://[::1]:8080/hooks",
        "http://localhost/hooks",
    ] {
        server
            .post(ENDPOINTS, &json!({"url": url, "eventTypes": ["*"]}))
            .ok();
    }
}

mod ssrf_is_refused_unless_allowed {
    use super::*;

    #[test]
    fn sqlite() {
        super::ssrf_is_refused_unless_allowed(Server::start_with(Backend::Sqlite, allowing("")));
        super::allowed_addresses_are_accepted(Server::start_with(
            Backend::Sqlite,
            allowing("127.0.0.0/8,10.0.0.1,169.254.169.254,::1,localhost"),
        ));
    }

    #[test]
    fn postgres() {
        super::ssrf_is_refused_unless_allowed(Server::start_with(Backend::Postgres, allowing("")));
        super::allowed_addresses_are_accepted(Server::start_with(
            Backend::Postgres,
            allowing("127.0.0.0/8,10.0.0.1,169.254.169.254,::1,localhost"),
        ));
    }
}

/// Without a secret key, no endpoint can be made: its secret could not be stored.
#[test]
fn endpoints_need_the_secret_key() {
    let server = Server::start_with(Backend::Sqlite, |config| {
        config.secret_key = rics::config::SecretKey(None);
    });
    server
        .post(
            ENDPOINTS,
            &json!({"url": "http://127.0.0.1:9/", "eventTypes": ["*"]}),
        )
        .error(400, "FAILED_PRECONDITION", "SECRET_KEY_NOT_CONFIGURED");
}
