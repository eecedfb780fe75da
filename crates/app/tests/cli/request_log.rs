//! What `rics serve` logs about refused requests at the default level (`info`): no
//! ERROR for what any client can cause, no secret or other request value, and one line
//! per refused request.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "a test: failing loudly is the point"
)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::Value;

use crate::support::{Serving, http};

const ADMIN_ID: &str = "log-admin";
const ADMIN_SECRET: &str = "log-admin-secret-5d1e";

/// `rics serve` at the default log level, as JSON lines.
fn serve(dir: &std::path::Path) -> Serving {
    Serving::start(
        dir,
        &[
            ("RICS_LOG", "info"),
            ("RICS_BOOTSTRAP_CLIENT_ID", ADMIN_ID),
            ("RICS_BOOTSTRAP_CLIENT_SECRET", ADMIN_SECRET),
        ],
    )
}

/// The admin client's access token.
fn token(server: &Serving) -> String {
    let body: Value = http()
        .post(server.url("/oauth2/token"))
        .basic_auth(ADMIN_ID, Some(ADMIN_SECRET))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .unwrap()
        .json()
        .unwrap();
    body["access_token"].as_str().unwrap().to_owned()
}

/// Sends `request` as raw bytes and returns the status line of the answer.
fn raw(server: &Serving, request: &[u8]) -> String {
    let address = server.base.trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    // The server may answer and close before it has read everything.
    let _ = stream.write_all(request);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// The log's lines, parsed.
fn events(log: &str) -> Vec<Value> {
    log.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect()
}

/// Requests actix-http refuses before routing (a bad request line, an over-long URI,
/// too many headers) keep their bare 400 and 431, and are logged at WARN, not ERROR:
/// any client can send them.
#[test]
fn protocol_errors_are_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve(dir.path());
    assert_eq!(raw(&server, b"GARBAGE\r\n\r\n"), "HTTP/1.1 400 Bad Request");
    let long_uri = format!("GET /{} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(70_000));
    assert_eq!(
        raw(&server, long_uri.as_bytes()),
        "HTTP/1.1 400 Bad Request"
    );
    let headers: String = (0..200).map(|i| format!("X-H{i}: a\r\n")).collect();
    let many_headers = format!("GET /healthz HTTP/1.1\r\nHost: x\r\n{headers}\r\n");
    assert_eq!(
        raw(&server, many_headers.as_bytes()),
        "HTTP/1.1 431 Request Header Fields Too Large"
    );
    let (_, log) = server.stop();
    let events = events(&log);
    let errors: Vec<&Value> = events.iter().filter(|e| e["level"] == "ERROR").collect();
    assert!(errors.is_empty(), "ERROR lines: {errors:#?}");
    let warnings = events
        .iter()
        .filter(|e| {
            e["level"] == "WARN"
                && e["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("request parse error"))
        })
        .count();
    assert_eq!(warnings, 3, "one warning per refused request: {log}");
}

/// Tokens, secrets, codes and passwords put in an API URL's query string never reach
/// the log, whether the request is refused for its token, its parameters or its path.
#[test]
fn secrets_in_query_strings_are_not_logged() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve(dir.path());
    let token = token(&server);
    let mut secrets = Vec::new();
    for name in [
        "access_token",
        "client_secret",
        "code",
        "refresh_token",
        "password",
        "token",
    ] {
        for (path, bearer, status) in [
            ("/v1alpha/entities", None, 401),
            ("/v1alpha/entities", Some(token.as_str()), 400),
            ("/v1alpha/entities/jane-doe", Some("not-a-token"), 401),
            ("/v1alpha/nothing", None, 404),
            ("/v1alpha/entities", None, 405),
        ] {
            let secret = format!("SECRET-{name}-{}", secrets.len());
            let url = server.url(&format!("{path}?{name}={secret}&pageSize=1"));
            let request = if status == 405 {
                http().put(url)
            } else {
                http().get(url)
            };
            let request = match bearer {
                Some(bearer) => request.bearer_auth(bearer),
                None => request,
            };
            let response = request.send().unwrap();
            assert_eq!(response.status().as_u16(), status, "{path}?{name}=");
            secrets.push(secret);
        }
    }
    let (_, log) = server.stop();
    let leaked: Vec<&String> = secrets.iter().filter(|s| log.contains(*s)).collect();
    assert!(leaked.is_empty(), "leaked {leaked:?}: {log}");
}

/// A refused request (4xx) is one INFO line: route template, status, reason and
/// request id, and no request value (a filter can hold a person's name, a path an id).
#[test]
fn a_refused_request_is_one_line_without_request_values() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve(dir.path());
    let token = token(&server);
    let filter = "displayName = \"Jane Quinta Sample\" AND colour = 1";
    let cases = [
        (
            "refused-filter",
            format!(
                "/v1alpha/entities?filter={}",
                filter.replace(' ', "%20").replace('"', "%22")
            ),
            400,
            "/v1alpha/entities",
            "UNKNOWN_FILTER_FIELD",
        ),
        (
            "refused-missing",
            "/v1alpha/entities/jane-quinta-sample".to_owned(),
            404,
            "/v1alpha/entities/{entity}",
            "RESOURCE_NOT_FOUND",
        ),
        (
            "refused-token",
            "/v1alpha/entities/jane-quinta-sample".to_owned(),
            401,
            "/v1alpha/entities/{entity}",
            "MISSING_TOKEN",
        ),
    ];
    for (request_id, path, status, _, _) in &cases {
        let request = http()
            .get(server.url(path))
            .header("x-request-id", *request_id);
        let request = if *status == 401 {
            request
        } else {
            request.bearer_auth(&token)
        };
        let response = request.send().unwrap();
        assert_eq!(response.status().as_u16(), *status, "{path}");
    }
    let (_, log) = server.stop();
    for needle in ["Sample", "Quinta", "jane-quinta-sample"] {
        assert!(!log.contains(needle), "'{needle}' is logged: {log}");
    }
    let events = events(&log);
    for (request_id, _, status, route, reason) in cases {
        let lines: Vec<&Value> = events
            .iter()
            .filter(|e| e.to_string().contains(request_id))
            .collect();
        assert_eq!(lines.len(), 1, "{request_id}: {lines:#?}");
        let line = lines[0];
        assert_eq!(line["level"], "INFO", "{line}");
        assert_eq!(line["span"]["http.route"], route, "{line}");
        assert_eq!(line["span"]["request_id"], request_id, "{line}");
        assert_eq!(line["http.status_code"], status, "{line}");
        assert_eq!(line["reason"], reason, "{line}");
        assert!(line.to_string().len() < 400, "a short line: {line}");
    }
}

/// A failed request (5xx) is one ERROR line with the internal detail its response
/// leaves out.
#[test]
fn a_failed_request_is_one_error_line_with_its_detail() {
    use diesel::RunQueryDsl as _;
    let dir = tempfile::tempdir().unwrap();
    let server = serve(dir.path());
    let token = token(&server);
    let url = rics_storage::DatabaseUrl::parse(&format!(
        "sqlite://{}",
        dir.path().join("rics.db").display()
    ))
    .unwrap();
    let mut conn = rics_storage::connection::connect(&url).unwrap();
    diesel::sql_query("ALTER TABLE entities RENAME TO entities_gone")
        .execute(&mut conn)
        .unwrap();
    let response = http()
        .get(server.url("/v1alpha/entities?filter=displayName%20%3D%20%22Quinta%22"))
        .bearer_auth(&token)
        .header("x-request-id", "failed-1")
        .send()
        .unwrap();
    assert_eq!(response.status().as_u16(), 500);
    let body = response.text().unwrap();
    assert!(!body.contains("entities"), "{body}");
    let (_, log) = server.stop();
    assert!(!log.contains("Quinta"), "{log}");
    let lines: Vec<Value> = events(&log)
        .into_iter()
        .filter(|e| e.to_string().contains("failed-1"))
        .collect();
    assert_eq!(lines.len(), 1, "{lines:#?}");
    let line = &lines[0];
    assert_eq!(line["level"], "ERROR", "{line}");
    assert_eq!(line["message"], "request failed", "{line}");
    assert_eq!(line["http.status_code"], 500, "{line}");
    assert_eq!(line["span"]["http.route"], "/v1alpha/entities", "{line}");
    assert!(
        line["detail"]
            .as_str()
            .is_some_and(|d| d.contains("no such table")),
        "{line}"
    );
}
