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

mod support;

use support::Serving;

/// `rics serve` at the default log level, as JSON lines.
fn serve(dir: &std::path::Path) -> Serving {
    Serving::start(dir, &[("RICS_LOG", "info")])
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
