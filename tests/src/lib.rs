//! Black-box tests of rics over real HTTP; the tests live in `tests/`.
//!
//! This library is the harness they share:
//!
//! - [`Server::start`] starts the real server (the `rics` library's
//!   [`rics::server::start`], exactly what `rics serve` runs) in-process on
//!   `127.0.0.1:0`, on a database of its own: a temporary SQLite file or a fresh
//!   PostgreSQL schema ([`rics_storage::testing::TestDatabase`], which reads
//!   `RICS_TEST_DATABASE_URL`). The server runs on a background thread in its own actix
//!   system and stops when the [`Server`] is dropped, before its database goes away.
//! - [`Server::get`], [`Server::post`], ... send requests with a blocking `reqwest`
//!   client and return a [`Reply`]: status, headers and the body parsed as JSON.
//! - [`Reply::ok`] insists on 200; [`Reply::error`] checks the whole AIP-193 error
//!   envelope (`error.code` equal to the HTTP status, the status name, exactly one
//!   `ErrorInfo` with its reason and the domain `rics`, no detail type twice, the
//!   `RequestInfo` quoting the `X-Request-Id` header).
//! - [`Server::snapshot`] reads every entity, deleted ones included, so a test can show
//!   that a refused request changed nothing.
//! - [`on_both_backends!`] turns one test body into a `sqlite` and a `postgres` test
//!   (`name::sqlite`, `name::postgres`), which run in parallel like every other test.

use std::collections::BTreeSet;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use actix_web::dev::ServerHandle;
use reqwest::blocking::{Client, RequestBuilder};
use reqwest::header::HeaderMap;
use rics::config::{Config, LogFormat};
use rics_storage::testing::TestDatabase;
use serde_json::{Map, Value, json};

pub use reqwest::Method;
pub use rics_storage::Backend;

/// Generates one test per backend from a single body.
///
/// ```text
/// on_both_backends! {
///     /// Documentation of the test.
///     fn creates_an_entity(server) {
///         server.post("/v1alpha/entities", &person("Jane Doe")).ok();
///     }
/// }
/// ```
///
/// expands to a module `creates_an_entity` holding the tests `sqlite` and `postgres`,
/// each starting its own [`Server`] on that backend and running the body with it
/// bound to the given name. Attributes (`#[ignore = "..."]`) apply to both tests.
/// `cargo test sqlite` or `cargo test postgres` runs one backend.
#[macro_export]
macro_rules! on_both_backends {
    ($( $(#[$meta:meta])* fn $name:ident($server:ident) $body:block )*) => {
        $(
            mod $name {
                #[allow(unused_imports)]
                use super::*;

                fn body($server: $crate::Server) $body

                $(#[$meta])*
                #[test]
                fn sqlite() {
                    body($crate::Server::start($crate::Backend::Sqlite));
                }

                $(#[$meta])*
                #[test]
                fn postgres() {
                    body($crate::Server::start($crate::Backend::Postgres));
                }
            }
        )*
    };
}

/// The collection path of entities.
pub const ENTITIES: &str = "/v1alpha/entities";

/// A running server on its own database, with a client. Dropping it stops the server.
pub struct Server {
    base: String,
    backend: Backend,
    client: Client,
    handle: Option<ServerHandle>,
    thread: Option<JoinHandle<()>>,
    // Dropped after the server has stopped (see `Drop`).
    database: TestDatabase,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("base", &self.base)
            .field("backend", &self.backend)
            .finish()
    }
}

/// The configuration the tests run with: the operators' defaults except for the
/// address (a free port), a small pool, two workers and a purge far away.
pub fn test_config(database_url: &str) -> Config {
    Config {
        database_url: database_url.to_owned(),
        bind_address: "127.0.0.1:0".to_owned(),
        database_pool_size: 4,
        database_timeout: Duration::from_secs(10),
        migrate_on_start: true,
        request_body_limit: 1024 * 1024,
        soft_delete_retention: Duration::from_secs(30 * 86_400),
        purge_interval: Duration::from_secs(86_400),
        http_workers: 2,
        log: "warn".to_owned(),
        log_format: LogFormat::Text,
    }
}

impl Server {
    /// Starts a server on a new database of `backend`.
    ///
    /// # Panics
    /// When the database cannot be created or the server does not start.
    pub fn start(backend: Backend) -> Server {
        Server::start_with(backend, |_| {})
    }

    /// Starts a server on a new database of `backend`, after `adjust` has changed the
    /// [`test_config`].
    ///
    /// # Panics
    /// When the database cannot be created or the server does not start.
    pub fn start_with(backend: Backend, adjust: impl FnOnce(&mut Config)) -> Server {
        let database = TestDatabase::new(backend);
        let mut config = test_config(database.url());
        adjust(&mut config);
        let (sender, receiver) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("rics-server".to_owned())
            .spawn(move || {
                actix_web::rt::System::new().block_on(async move {
                    match rics::server::start(&config).await {
                        Ok(running) => {
                            let _ = sender.send(Ok((running.address, running.handle.clone())));
                            let _ = running.server.await;
                        }
                        Err(error) => {
                            let _ = sender.send(Err(format!("{error:#}")));
                        }
                    }
                });
            })
            .unwrap_or_else(|e| panic!("cannot spawn the server thread: {e}"));
        let (address, handle) = receiver
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|e| panic!("the server did not report its start: {e}"))
            .unwrap_or_else(|e| panic!("the server did not start on {backend:?}: {e}"));
        let client = Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap_or_else(|e| panic!("cannot build the HTTP client: {e}"));
        Server {
            base: format!("http://{address}"),
            backend,
            client,
            handle: Some(handle),
            thread: Some(thread),
            database,
        }
    }

    /// The backend the server runs on.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The absolute URL of `path` (which may carry a query string).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A request to customise (headers, raw bodies) before [`Server::send`].
    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        self.client.request(method, self.url(path))
    }

    /// Sends a request built with [`Server::request`].
    ///
    /// # Panics
    /// When the request cannot be sent or its response read.
    pub fn send(&self, request: RequestBuilder) -> Reply {
        let request = request
            .build()
            .unwrap_or_else(|e| panic!("cannot build the request: {e}"));
        let what = format!("{} {}", request.method(), request.url());
        let response = self
            .client
            .execute(request)
            .unwrap_or_else(|e| panic!("{what} failed: {e}"));
        Reply::read(what, response)
    }

    /// `GET path`.
    pub fn get(&self, path: &str) -> Reply {
        self.send(self.request(Method::GET, path))
    }

    /// `DELETE path`.
    pub fn delete(&self, path: &str) -> Reply {
        self.send(self.request(Method::DELETE, path))
    }

    /// `POST path` with a JSON body.
    pub fn post(&self, path: &str, body: &Value) -> Reply {
        self.send(self.request(Method::POST, path).json(body))
    }

    /// `PATCH path` with a JSON body.
    pub fn patch(&self, path: &str, body: &Value) -> Reply {
        self.send(self.request(Method::PATCH, path).json(body))
    }

    /// Creates an entity (`query` is appended to the collection path, e.g.
    /// `?entityId=abc`) and returns it.
    ///
    /// # Panics
    /// Unless the server answers 200.
    pub fn create(&self, query: &str, body: &Value) -> Value {
        self.post(&format!("{ENTITIES}{query}"), body).ok()
    }

    /// Creates an individual named `display_name` with the id `id`.
    ///
    /// # Panics
    /// Unless the server answers 200.
    pub fn create_person(&self, id: &str, display_name: &str) -> Value {
        self.create(&format!("?entityId={id}"), &person(display_name))
    }

    /// The entity `entities/{id}`.
    ///
    /// # Panics
    /// Unless the server answers 200.
    pub fn entity(&self, id: &str) -> Value {
        self.get(&format!("{ENTITIES}/{id}")).ok()
    }

    /// Every entity, deleted ones included, in the default order (walking every
    /// page), each with its relationships under the extra key `"relationships"`.
    ///
    /// # Panics
    /// Unless every list call answers 200.
    pub fn snapshot(&self) -> Vec<Value> {
        let mut all = self.list_all(&[("showDeleted", "true"), ("pageSize", "1000")]);
        for entity in &mut all {
            let id = id_of(entity).to_owned();
            let relationships = self.relationships(&id);
            if let Some(object) = entity.as_object_mut() {
                object.insert("relationships".to_owned(), Value::Array(relationships));
            }
        }
        all
    }

    /// Runs one SQL statement directly on the server's database, behind its back: for
    /// fault injection only (a test that shows how the API reports a broken database).
    ///
    /// # Panics
    /// When the statement fails.
    pub fn execute_sql(&self, sql: &str) {
        use diesel::RunQueryDsl;
        let url = rics_storage::DatabaseUrl::parse(self.database.url())
            .unwrap_or_else(|e| panic!("bad test database URL: {e}"));
        let mut conn = rics_storage::connection::connect(&url)
            .unwrap_or_else(|e| panic!("cannot connect to the test database: {e}"));
        diesel::sql_query(sql)
            .execute(&mut conn)
            .unwrap_or_else(|e| panic!("{sql} failed: {e}"));
    }

    /// Every entity a list with `params` returns, following `nextPageToken`.
    ///
    /// # Panics
    /// Unless every call answers 200, or when the pages never end.
    pub fn list_all(&self, params: &[(&str, &str)]) -> Vec<Value> {
        let mut all = Vec::new();
        let mut token: Option<String> = None;
        for _ in 0..10_000 {
            let mut pairs: Vec<(&str, &str)> = params.to_vec();
            if let Some(token) = &token {
                pairs.push(("pageToken", token));
            }
            let page = self.get(&format!("{ENTITIES}{}", query(&pairs))).ok();
            all.extend(array(&page["entities"]).iter().cloned());
            match page.get("nextPageToken").and_then(Value::as_str) {
                Some(next) if !next.is_empty() => token = Some(next.to_owned()),
                _ => return all,
            }
        }
        panic!("the list never ended: {params:?}");
    }

    /// The names of the entities a single list call with `params` returns (one page).
    ///
    /// # Panics
    /// Unless the call answers 200.
    pub fn list_names(&self, params: &[(&str, &str)]) -> Vec<String> {
        let page = self.get(&format!("{ENTITIES}{}", query(params))).ok();
        names(&page["entities"])
    }

    /// Every relationship of `entities/{id}`, following `nextPageToken`.
    ///
    /// # Panics
    /// Unless every call answers 200.
    pub fn relationships(&self, id: &str) -> Vec<Value> {
        let mut all = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let mut pairs = vec![("pageSize", "1000")];
            if let Some(token) = &token {
                pairs.push(("pageToken", token));
            }
            let page = self
                .get(&format!(
                    "{ENTITIES}/{id}:EntityRelationships{}",
                    query(&pairs)
                ))
                .ok();
            all.extend(array(&page["entityRelationships"]).iter().cloned());
            match page.get("nextPageToken").and_then(Value::as_str) {
                Some(next) if !next.is_empty() => token = Some(next.to_owned()),
                _ => return all,
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take() {
            // The stop command is sent at once; the returned future only waits for it.
            drop(handle.stop(false));
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A response: status, headers and body.
#[derive(Debug, Clone)]
pub struct Reply {
    /// `METHOD url` of the request, for messages.
    pub request: String,
    /// The HTTP status.
    pub status: u16,
    /// The response headers.
    pub headers: HeaderMap,
    /// The body as text.
    pub text: String,
    /// The body as JSON (`Value::Null` when it is not JSON).
    pub json: Value,
}

impl Reply {
    fn read(request: String, response: reqwest::blocking::Response) -> Reply {
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response
            .text()
            .unwrap_or_else(|e| panic!("{request}: cannot read the body: {e}"));
        let json = serde_json::from_str(&text).unwrap_or(Value::Null);
        Reply {
            request,
            status,
            headers,
            text,
            json,
        }
    }

    /// The body of a 200 response.
    ///
    /// # Panics
    /// When the status is not 200 or the body is not JSON.
    pub fn ok(self) -> Value {
        assert_eq!(
            self.status, 200,
            "{} answered {} with {}",
            self.request, self.status, self.text
        );
        assert!(
            !self.json.is_null(),
            "{} answered a body that is not JSON: {}",
            self.request,
            self.text
        );
        self.json
    }

    /// A header's value, if present and text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// Checks that this is an error response with HTTP `status`, canonical code name
    /// `code` and `ErrorInfo.reason` `reason`, in a well-formed AIP-193 envelope, and
    /// returns it (the `error` object) for further checks.
    ///
    /// # Panics
    /// When any part of the envelope is wrong.
    pub fn error(&self, status: u16, code: &str, reason: &str) -> &Value {
        let context = format!("{} answered {}: {}", self.request, self.status, self.text);
        assert_eq!(self.status, status, "wrong status; {context}");
        self.check_envelope(&context);
        let error = &self.json["error"];
        assert_eq!(error["status"], code, "wrong status name; {context}");
        assert_eq!(self.reason(), reason, "wrong reason; {context}");
        error
    }

    /// Checks the envelope only: whatever the status, code and reason.
    ///
    /// # Panics
    /// When any part of the envelope is wrong.
    pub fn check_envelope(&self, context: &str) {
        assert!(self.status >= 400, "expected an error status; {context}");
        let content_type = self.header("content-type").unwrap_or("");
        assert!(
            content_type.starts_with("application/json"),
            "error bodies are JSON, not '{content_type}'; {context}"
        );
        let body = self
            .json
            .as_object()
            .unwrap_or_else(|| panic!("the body is not a JSON object; {context}"));
        assert_eq!(
            body.keys().collect::<Vec<_>>(),
            vec!["error"],
            "the body has exactly the key 'error'; {context}"
        );
        let error = body["error"]
            .as_object()
            .unwrap_or_else(|| panic!("'error' is not an object; {context}"));
        let keys: BTreeSet<&str> = error.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            BTreeSet::from(["code", "details", "message", "status"]),
            "the error has code, message, status and details; {context}"
        );
        assert_eq!(
            error["code"].as_u64(),
            Some(u64::from(self.status)),
            "error.code is the HTTP status; {context}"
        );
        let name = error["status"].as_str().unwrap_or("");
        assert_eq!(
            code_for_status(name),
            Some(self.status),
            "error.status '{name}' is a canonical code that maps to the HTTP status; {context}"
        );
        assert!(
            error["message"].as_str().is_some_and(|m| !m.is_empty()),
            "error.message is a non-empty string; {context}"
        );
        let details = error["details"]
            .as_array()
            .unwrap_or_else(|| panic!("error.details is an array; {context}"));
        let mut types = BTreeSet::new();
        for detail in details {
            let kind = detail["@type"]
                .as_str()
                .unwrap_or_else(|| panic!("every detail has an @type; {context}"));
            assert!(
                types.insert(kind),
                "no detail type appears twice ({kind}); {context}"
            );
        }
        let info = self.detail("ErrorInfo").unwrap_or_else(|| {
            panic!("exactly one ErrorInfo is required; {context}");
        });
        assert_eq!(info["domain"], "rics", "ErrorInfo.domain; {context}");
        let reason = info["reason"].as_str().unwrap_or("");
        assert!(
            is_upper_snake(reason) && reason.len() <= 63,
            "ErrorInfo.reason '{reason}' is UPPER_SNAKE_CASE; {context}"
        );
        if let Some(metadata) = info.get("metadata") {
            let metadata = metadata
                .as_object()
                .unwrap_or_else(|| panic!("ErrorInfo.metadata is an object; {context}"));
            for (key, value) in metadata {
                assert!(
                    is_metadata_key(key),
                    "metadata key '{key}' is lowerCamelCase; {context}"
                );
                assert!(
                    value.is_string(),
                    "metadata values are strings ('{key}'); {context}"
                );
            }
        }
        if let Some(bad_request) = self.detail("BadRequest") {
            let violations = bad_request["fieldViolations"]
                .as_array()
                .unwrap_or_else(|| panic!("BadRequest has fieldViolations; {context}"));
            assert!(
                !violations.is_empty(),
                "BadRequest has at least one violation; {context}"
            );
            for violation in violations {
                assert!(
                    violation["field"].as_str().is_some_and(|f| !f.is_empty()),
                    "every violation names a field; {context}"
                );
                assert!(
                    violation["description"]
                        .as_str()
                        .is_some_and(|d| !d.is_empty()),
                    "every violation has a description; {context}"
                );
            }
        }
        let request_info = self
            .detail("RequestInfo")
            .unwrap_or_else(|| panic!("errors carry a RequestInfo; {context}"));
        let echoed = self
            .header("x-request-id")
            .unwrap_or_else(|| panic!("responses carry X-Request-Id; {context}"));
        assert_eq!(
            request_info["requestId"], echoed,
            "RequestInfo.requestId is the X-Request-Id; {context}"
        );
    }

    /// The detail of type `google.rpc.{kind}`, if present.
    pub fn detail(&self, kind: &str) -> Option<&Value> {
        let wanted = format!("type.googleapis.com/google.rpc.{kind}");
        self.json["error"]["details"]
            .as_array()?
            .iter()
            .find(|d| d["@type"] == wanted.as_str())
    }

    /// The `ErrorInfo.reason` (empty when there is none).
    pub fn reason(&self) -> &str {
        self.detail("ErrorInfo")
            .and_then(|i| i["reason"].as_str())
            .unwrap_or("")
    }

    /// The `ErrorInfo.metadata` value of `key`, if any.
    pub fn metadata(&self, key: &str) -> Option<&str> {
        self.detail("ErrorInfo")?["metadata"].get(key)?.as_str()
    }

    /// The fields named by the `BadRequest` violations.
    pub fn violation_fields(&self) -> Vec<String> {
        self.detail("BadRequest")
            .and_then(|d| d["fieldViolations"].as_array())
            .map(|vs| {
                vs.iter()
                    .filter_map(|v| v["field"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Checks that a `BadRequest` violation names `field`.
    ///
    /// # Panics
    /// When none does.
    pub fn assert_violation(&self, field: &str) -> &Reply {
        let fields = self.violation_fields();
        assert!(
            fields.iter().any(|f| f == field),
            "{} answered {}: expected a violation on '{field}', got {fields:?}: {}",
            self.request,
            self.status,
            self.text
        );
        self
    }

    /// Shorthand: a 400 INVALID_ARGUMENT with `reason` and a violation on `field`.
    ///
    /// # Panics
    /// When the response is anything else.
    pub fn invalid(&self, reason: &str, field: &str) -> &Reply {
        self.error(400, "INVALID_ARGUMENT", reason);
        self.assert_violation(field)
    }
}

/// The HTTP status of a canonical code name (`google/rpc/code.proto`).
pub fn code_for_status(name: &str) -> Option<u16> {
    Some(match name {
        "CANCELLED" => 499,
        "UNKNOWN" | "INTERNAL" | "DATA_LOSS" => 500,
        "INVALID_ARGUMENT" | "FAILED_PRECONDITION" | "OUT_OF_RANGE" => 400,
        "DEADLINE_EXCEEDED" => 504,
        "NOT_FOUND" => 404,
        "ALREADY_EXISTS" | "ABORTED" => 409,
        "PERMISSION_DENIED" => 403,
        "RESOURCE_EXHAUSTED" => 429,
        "UNIMPLEMENTED" => 501,
        "UNAVAILABLE" => 503,
        "UNAUTHENTICATED" => 401,
        _ => return None,
    })
}

/// `[A-Z][A-Z0-9_]+[A-Z0-9]` (R-193.3).
fn is_upper_snake(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() >= 3
        && bytes[0].is_ascii_uppercase()
        && bytes
            .iter()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_')
        && bytes[bytes.len() - 1] != b'_'
}

/// `[a-z][a-zA-Z0-9-_]+`, at most 64 characters (R-193.4).
fn is_metadata_key(key: &str) -> bool {
    let bytes = key.as_bytes();
    (2..=64).contains(&bytes.len())
        && bytes[0].is_ascii_lowercase()
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_')
}

/// A query string (`?a=1&b=x%20y`) of percent-encoded pairs; empty without pairs.
pub fn query(pairs: &[(&str, &str)]) -> String {
    if pairs.is_empty() {
        return String::new();
    }
    let encoded: Vec<String> = pairs
        .iter()
        .map(|(name, value)| format!("{}={}", encode(name), encode(value)))
        .collect();
    format!("?{}", encoded.join("&"))
}

/// Percent-encodes everything but the unreserved characters of RFC 3986.
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// A valid individual: `display_name` split into given and family name.
pub fn person(display_name: &str) -> Value {
    let (given, family) = display_name
        .split_once(' ')
        .unwrap_or((display_name, "Doe"));
    json!({
        "displayName": display_name,
        "individual": {"legalName": {"givenName": given, "familyName": family}}
    })
}

/// A valid company.
pub fn company(display_name: &str) -> Value {
    json!({
        "displayName": display_name,
        "company": {"legalName": format!("{display_name} Ltd"), "type": "PRIVATE_COMPANY", "countryOfIncorporation": "GB"}
    })
}

/// The elements of a JSON array (empty for anything else, such as a missing field).
pub fn array(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}

/// The `name` of every element of a JSON array.
pub fn names(items: &Value) -> Vec<String> {
    array(items)
        .iter()
        .map(|e| e["name"].as_str().unwrap_or("").to_owned())
        .collect()
}

/// The id part of an entity's `name`.
pub fn id_of(entity: &Value) -> &str {
    entity["name"]
        .as_str()
        .and_then(|n| n.strip_prefix("entities/"))
        .unwrap_or("")
}

/// The value with `keys` removed from the top-level object, for comparisons that
/// ignore them.
pub fn without(value: &Value, keys: &[&str]) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !keys.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect::<Map<String, Value>>(),
        ),
        other => other.clone(),
    }
}

/// Parses an RFC 3339 timestamp field.
///
/// # Panics
/// When the value is missing or not RFC 3339 in UTC with a `Z`.
pub fn timestamp(value: &Value) -> time::OffsetDateTime {
    let text = value
        .as_str()
        .unwrap_or_else(|| panic!("expected a timestamp, got {value}"));
    assert!(text.ends_with('Z'), "timestamps are UTC with a Z: {text}");
    time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|e| panic!("'{text}' is not RFC 3339: {e}"))
}
