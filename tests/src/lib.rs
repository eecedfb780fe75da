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
//! - The server starts on an empty database, so it provisions its partner tenant with
//!   the admin client [`ADMIN_CLIENT_ID`] (every scope); the harness obtains a token for
//!   it with the client credentials grant, exactly as a consumer would.
//! - [`Server::get`], [`Server::post`], ... send requests with a blocking `reqwest`
//!   client, bearing that token, and return a [`Reply`]: status, headers and the body
//!   parsed as JSON. [`Server::request_as`] sends another token (or none).
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
use rics::config::{Bootstrap, Config, LogFormat, SecretKey};
use rics_domain::webhook::{RetrySchedule, TargetPolicy};
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

/// The issuer (and public URL) of the servers under test: tokens name it, whatever
/// port the server listens on.
pub const ISSUER: &str = "http://rics.test";

/// The key the test servers seal secrets with, as `RICS_SECRET_KEY` would give it.
pub const SECRET_KEY: &str = "dGVzdC1rZXktb2YtdGhlLWJsYWNrLWJveC10ZXN0cyE=";

/// What the test servers' webhook endpoints may reach beyond public https URLs, as
/// `RICS_WEBHOOK_ALLOW_HOSTS` would give it: the loopback address the tests' receivers
/// listen on.
pub const WEBHOOK_ALLOW_HOSTS: &str = "127.0.0.1";

/// The partner tenant's admin client, fixed as `RICS_BOOTSTRAP_CLIENT_ID` would.
pub const ADMIN_CLIENT_ID: &str = "e2e-admin";

/// Its secret, fixed as `RICS_BOOTSTRAP_CLIENT_SECRET` would.
pub const ADMIN_CLIENT_SECRET: &str = "e2e-admin-secret-0001";

/// A running server on its own database, with a client. Dropping it stops the server.
pub struct Server {
    base: String,
    backend: Backend,
    client: Client,
    token: String,
    partner: Option<String>,
    handle: Option<ServerHandle>,
    thread: Option<JoinHandle<()>>,
    database_url: String,
    metrics: Option<std::net::SocketAddr>,
    // Dropped after the server has stopped (see `Drop`); `None` for a sibling.
    database: Option<TestDatabase>,
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
/// address (a free port), a small pool, two workers, a purge far away, the issuer
/// [`ISSUER`], the admin client's credentials, a rate limit no test reaches unless
/// it lowers it, and the bundled UN list as the only screening list.
pub fn test_config(database_url: &str) -> Config {
    Config {
        database_url: database_url.to_owned(),
        bind_address: "127.0.0.1:0".to_owned(),
        database_pool_size: 4,
        database_timeout: Duration::from_secs(10),
        migrate_on_start: true,
        request_body_limit: 1024 * 1024,
        metrics_address: None,
        file_rules: Default::default(),
        file_uploads_at_once: 4,
        file_store: Default::default(),
        soft_delete_retention: Duration::from_secs(30 * 86_400),
        purge_interval: Duration::from_secs(86_400),
        http_workers: 2,
        log: "warn".to_owned(),
        log_format: LogFormat::Text,
        public_url: ISSUER.to_owned(),
        token_audience: "rics".to_owned(),
        access_token_lifetime: Duration::from_secs(15 * 60),
        oidc_issuers: Vec::new(),
        oidc_tenant_claim: "tenant".to_owned(),
        rate_limit_per_minute: 1_000_000,
        // The bundled UN list alone: quick to load, and enough to match on.
        screening_lists: vec![
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../data/lists/un_2026-02/UN_consolidated.xml"),
        ],
        screening_reload_interval: None,
        job_concurrency: 4,
        job_batch: 16,
        job_lease: Duration::from_secs(60),
        job_max_attempts: 5,
        secret_key: SecretKey(Some(SECRET_KEY.to_owned())),
        webhook_targets: TargetPolicy::parse(WEBHOOK_ALLOW_HOSTS)
            .unwrap_or_else(|e| panic!("the test allow list: {e}")),
        webhook_retry_schedule: RetrySchedule::default(),
        webhook_timeout: Duration::from_secs(5),
        webhook_delivery_retention: Duration::from_secs(30 * 86_400),
        onboarding_accept_document_only: false,
        truuth_api_url: None,
        truuth_api_key: SecretKey(None),
        bootstrap: Bootstrap {
            client_id: Some(ADMIN_CLIENT_ID.to_owned()),
            client_secret: Some(ADMIN_CLIENT_SECRET.to_owned()),
            user: None,
        },
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
        let url = database.url().to_owned();
        let mut config = test_config(&url);
        adjust(&mut config);
        let mut server = Server::launch(config, backend, url, Some(database));
        server.partner = server
            .partner
            .take()
            .or_else(|| panic!("a first start provisions the partner tenant"));
        server
    }

    /// Starts a server on a new database of `backend` whose issuer (public URL) is the
    /// loopback address it listens on, so that another server can trust it as an
    /// external OpenID Connect issuer (`oidc_issuers`): it serves discovery and its
    /// keys there, and its tokens name its own partner tenant, which exists on no other
    /// server's database.
    ///
    /// # Panics
    /// When no port is free, the database cannot be created or the server does not
    /// start.
    pub fn start_issuer(backend: Backend) -> Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .unwrap_or_else(|e| panic!("no free port: {e}"))
            .port();
        Server::start_with(backend, |config| {
            config.bind_address = format!("127.0.0.1:{port}");
            config.public_url = format!("http://127.0.0.1:{port}");
        })
    }

    /// Starts a second server on this server's database (another replica), after
    /// `adjust` has changed the [`test_config`]; its requests bear a token it issued.
    /// Drop it before this server, which owns the database.
    ///
    /// # Panics
    /// When the server does not start.
    pub fn sibling(&self, adjust: impl FnOnce(&mut Config)) -> Server {
        let mut config = test_config(self.database_url());
        adjust(&mut config);
        let mut sibling = Server::launch(config, self.backend, self.database_url.clone(), None);
        assert!(
            sibling.partner.is_none(),
            "a sibling finds the tenants provisioned"
        );
        sibling.partner = self.partner.clone();
        sibling
    }

    /// Runs the server of `config` on a thread of its own and obtains the admin
    /// client's token.
    fn launch(
        config: Config,
        backend: Backend,
        database_url: String,
        database: Option<TestDatabase>,
    ) -> Server {
        let (sender, receiver) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("rics-server".to_owned())
            .spawn(move || {
                actix_web::rt::System::new().block_on(async move {
                    match rics::server::start(&config).await {
                        Ok(running) => {
                            let partner = running.bootstrap.as_ref().map(|b| b.tenant.name.clone());
                            let _ = sender.send(Ok((
                                running.address,
                                running.handle.clone(),
                                partner,
                                running.metrics_address,
                            )));
                            let _ = running.server.await;
                        }
                        Err(error) => {
                            let _ = sender.send(Err(format!("{error:#}")));
                        }
                    }
                });
            })
            .unwrap_or_else(|e| panic!("cannot spawn the server thread: {e}"));
        let (address, handle, partner, metrics) = receiver
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|e| panic!("the server did not report its start: {e}"))
            .unwrap_or_else(|e| panic!("the server did not start on {backend:?}: {e}"));
        let client = Client::builder()
            .timeout(Duration::from_secs(30))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_else(|e| panic!("cannot build the HTTP client: {e}"));
        let mut server = Server {
            base: format!("http://{address}"),
            backend,
            client,
            token: String::new(),
            partner,
            handle: Some(handle),
            thread: Some(thread),
            database_url,
            metrics,
            database,
        };
        server.token = server.client_token(ADMIN_CLIENT_ID, ADMIN_CLIENT_SECRET, None);
        server
    }

    /// The Prometheus text of its metrics listener (`metrics_address` set).
    ///
    /// # Panics
    /// When it serves no metrics or they cannot be read.
    pub fn metrics(&self) -> String {
        let address = self
            .metrics
            .unwrap_or_else(|| panic!("this server serves no metrics"));
        let reply = self
            .client
            .get(format!("http://{address}/metrics"))
            .send()
            .unwrap_or_else(|e| panic!("GET /metrics: {e}"));
        assert_eq!(reply.status().as_u16(), 200, "GET /metrics");
        reply
            .text()
            .unwrap_or_else(|e| panic!("GET /metrics body: {e}"))
    }

    /// The URL of the server's database.
    pub fn database_url(&self) -> &str {
        &self.database_url
    }

    /// Registers a client for `tenant` exactly as `rics clients create` does (on the
    /// server's database, beside the running server) and returns what the command prints:
    /// `clientId`, `clientSecret` (null for a public client), `scopes`, ...
    ///
    /// # Panics
    /// When registration fails.
    pub fn register_client(&self, args: rics::admin::CreateClient) -> Value {
        let config = test_config(self.database_url());
        actix_web::rt::System::new()
            .block_on(rics::admin::create_client(&config, &args))
            .unwrap_or_else(|e| panic!("rics clients create failed: {e:#}"))
    }

    /// Registers a user exactly as `rics users create` does.
    ///
    /// # Panics
    /// When registration fails.
    pub fn register_user(&self, args: rics::admin::CreateUser, password: &str) -> Value {
        let config = test_config(self.database_url());
        actix_web::rt::System::new()
            .block_on(rics::admin::create_user(&config, &args, password))
            .unwrap_or_else(|e| panic!("rics users create failed: {e:#}"))
    }

    /// Rotates the signing key exactly as `rics keys rotate` does and returns what the
    /// command prints: `signingKey` and `publishedKeys`.
    ///
    /// # Panics
    /// When rotation fails.
    pub fn rotate_keys(&self) -> Value {
        let config = test_config(self.database_url());
        actix_web::rt::System::new()
            .block_on(rics::admin::rotate_keys(&config))
            .unwrap_or_else(|e| panic!("rics keys rotate failed: {e:#}"))
    }

    /// The partner tenant's name (`tenants/{id}`), which the admin client acts for.
    pub fn partner(&self) -> &str {
        self.partner.as_deref().unwrap_or_default()
    }

    /// The admin client's access token, which requests bear by default.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// A token for a client by the client credentials grant (HTTP Basic
    /// authentication), with `scope` or, when `None`, every scope the client has.
    ///
    /// # Panics
    /// Unless the token endpoint answers 200 with a bearer token.
    pub fn client_token(&self, client_id: &str, secret: &str, scope: Option<&str>) -> String {
        let mut form = vec![("grant_type", "client_credentials")];
        if let Some(scope) = scope {
            form.push(("scope", scope));
        }
        let reply = self.send(
            self.client
                .post(self.url("/oauth2/token"))
                .basic_auth(client_id, Some(secret))
                .form(&form),
        );
        let body = reply.ok();
        assert_eq!(body["token_type"], "Bearer", "{body}");
        body["access_token"]
            .as_str()
            .unwrap_or_else(|| panic!("no access_token in {body}"))
            .to_owned()
    }

    /// Creates a child tenant of the partner and waits for its operation: returns the
    /// tenant's name and a token of its first client (every scope it has).
    ///
    /// # Panics
    /// Unless the creation and polling answer 200 and the operation succeeds.
    pub fn child_tenant(&self, display_name: &str) -> (String, String) {
        let operation = self
            .post("/v1alpha/tenants", &json!({"displayName": display_name}))
            .ok();
        let done = self.wait_for(&operation);
        let response = &done["response"];
        let tenant = response["tenant"]["name"]
            .as_str()
            .unwrap_or_else(|| panic!("no tenant in {done}"))
            .to_owned();
        let client = &response["clients"][0];
        let token = self.client_token(
            client["clientId"].as_str().unwrap_or_default(),
            client["clientSecret"].as_str().unwrap_or_default(),
            None,
        );
        (tenant, token)
    }

    /// Polls a long-running operation (`{"name": ...}`) until it is done, and returns
    /// it.
    ///
    /// # Panics
    /// Unless polling answers 200 and the operation ends within a minute.
    pub fn wait_for(&self, operation: &Value) -> Value {
        self.wait_for_as(&self.token, operation)
    }

    /// [`Server::wait_for`] as the holder of `token`, for an operation of another
    /// tenant than the admin client's.
    ///
    /// # Panics
    /// Unless polling answers 200 and the operation ends within a minute.
    pub fn wait_for_as(&self, token: &str, operation: &Value) -> Value {
        let name = operation["name"]
            .as_str()
            .unwrap_or_else(|| panic!("not an operation: {operation}"));
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let current = self
                .send(self.request_as(Some(token), Method::GET, &format!("/v1alpha/{name}")))
                .ok();
            if current["done"] == true {
                return current;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{name} never ended: {current}"
            );
            std::thread::sleep(Duration::from_millis(20));
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

    /// A request bearing the admin client's token, to customise (headers, raw bodies)
    /// before [`Server::send`].
    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        self.request_as(Some(&self.token), method, path)
    }

    /// A request bearing `token`, or no `Authorization` header at all for `None`.
    pub fn request_as(&self, token: Option<&str>, method: Method, path: &str) -> RequestBuilder {
        let request = self.client.request(method, self.url(path));
        match token {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
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
        let url = rics_storage::DatabaseUrl::parse(&self.database_url)
            .unwrap_or_else(|e| panic!("bad test database URL: {e}"));
        let mut conn = rics_storage::connection::connect(&url)
            .unwrap_or_else(|e| panic!("cannot connect to the test database: {e}"));
        diesel::sql_query(sql)
            .execute(&mut conn)
            .unwrap_or_else(|e| panic!("{sql} failed: {e}"));
    }

    /// Uploads `text` as the plain-text file `id` of the entity `entity` (JSON, the
    /// content in base64) and returns the file.
    ///
    /// # Panics
    /// Unless the server answers 200.
    pub fn upload_text(&self, entity: &str, id: &str, text: &str) -> Value {
        use base64::Engine;
        let content = base64::engine::general_purpose::STANDARD.encode(text);
        self.post(
            &format!("{ENTITIES}/{entity}/files?fileId={id}"),
            &json!({"displayName": format!("{id}.txt"), "content": content}),
        )
        .ok()
    }

    /// How many rows `table` holds, across tenants: what shows that a refused or
    /// erased upload left nothing where no route looks (file content, the ledger of
    /// content to remove).
    ///
    /// # Panics
    /// When the database cannot be read.
    pub fn count_rows(&self, table: &str) -> i64 {
        use diesel::RunQueryDsl;
        #[derive(diesel::QueryableByName)]
        struct Count {
            #[diesel(sql_type = diesel::sql_types::BigInt)]
            n: i64,
        }
        let url = rics_storage::DatabaseUrl::parse(&self.database_url)
            .unwrap_or_else(|e| panic!("bad test database URL: {e}"));
        let mut conn = rics_storage::connection::connect(&url)
            .unwrap_or_else(|e| panic!("cannot connect to the test database: {e}"));
        let sql = format!("SELECT COUNT(*) AS n FROM {table}");
        diesel::sql_query(&sql)
            .get_result::<Count>(&mut conn)
            .unwrap_or_else(|e| panic!("{sql} failed: {e}"))
            .n
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
        // Only now, with the server stopped, may its database go.
        drop(self.database.take());
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
    /// The body as text (bytes that are not UTF-8 read as U+FFFD).
    pub text: String,
    /// The body as JSON (`Value::Null` when it is not JSON).
    pub json: Value,
    /// The body's bytes, as sent (a download's content).
    pub bytes: Vec<u8>,
}

impl Reply {
    fn read(request: String, response: reqwest::blocking::Response) -> Reply {
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let bytes = response
            .bytes()
            .unwrap_or_else(|e| panic!("{request}: cannot read the body: {e}"))
            .to_vec();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let json = serde_json::from_str(&text).unwrap_or(Value::Null);
        Reply {
            request,
            status,
            headers,
            text,
            json,
            bytes,
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
        let expected = if self.reason() == "METHOD_NOT_ALLOWED" {
            (name == "UNIMPLEMENTED").then_some(405)
        } else {
            code_for_status(name)
        };
        assert_eq!(
            expected,
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

/// The HTTP status of a canonical code name (`google/rpc/code.proto`). A method a path
/// lacks is the one exception: UNIMPLEMENTED with reason `METHOD_NOT_ALLOWED` is 405.
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

/// A reader over chunks, so that reqwest sends a body without a Content-Length
/// (`reqwest::blocking::Body::new(ChunkReader::new(chunks))`).
#[derive(Debug)]
pub struct ChunkReader {
    chunks: std::vec::IntoIter<Result<Vec<u8>, std::io::Error>>,
    current: std::io::Cursor<Vec<u8>>,
}

impl ChunkReader {
    /// A reader yielding `chunks` in order.
    pub fn new(chunks: Vec<Result<Vec<u8>, std::io::Error>>) -> ChunkReader {
        ChunkReader {
            chunks: chunks.into_iter(),
            current: std::io::Cursor::new(Vec::new()),
        }
    }
}

impl std::io::Read for ChunkReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            let read = self.current.read(buf)?;
            if read > 0 {
                return Ok(read);
            }
            match self.chunks.next() {
                Some(chunk) => self.current = std::io::Cursor::new(chunk?),
                None => return Ok(0),
            }
        }
    }
}
