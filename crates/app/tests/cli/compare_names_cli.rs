//! `rics compare-names` end to end: the built binary, name pairs as CSV on stdin, one
//! JSON line per pair out, in order.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "a test: failing loudly is the point"
)]

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

/// Runs `rics compare-names` over `stdin` against a one-entry list (a quick index);
/// returns its stdout lines as JSON.
fn compare_names(stdin: &[u8]) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("list.jsonl");
    std::fs::write(&list, "{\"id\":\"X-1\",\"name\":\"Ivan Petrov\"}\n").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rics"))
        .args(["compare-names", "--list"])
        .arg(&list)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rics starts");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let output = child.wait_with_output().expect("rics runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every stdout line is JSON"))
        .collect()
}

#[test]
fn pairs_are_scored_in_order_and_bad_lines_answered_in_place() {
    let input = b"Vladimir Putin,\"PUTIN, Vladimir Vladimirovich\",Person\n\
Angela Merkel,Vladimir Putin\n\
only one field\n\
Acme Trading Ltd,ACME TRADING LIMITED,Company\n\
a,b,Planet\n\
\xff\xfe,Putin\n\
Vladimir Putin,Wladimir Putin,\n";
    let lines = compare_names(input);
    assert_eq!(lines.len(), 7, "one line per input line: {lines:?}");
    assert_eq!(
        lines[0]["match"], true,
        "a quoted name with a comma: {}",
        lines[0]
    );
    assert!(
        lines[0]["explanation"]["pairs"]
            .as_array()
            .is_some_and(|p| !p.is_empty())
    );
    assert_eq!(lines[1]["match"], false, "{}", lines[1]);
    assert!(lines[1]["score"].as_f64().is_some_and(|s| s < 0.7));
    assert!(lines[2]["error"].as_str().unwrap().contains("name1,name2"));
    assert_eq!(lines[3]["match"], true, "legal forms: {}", lines[3]);
    assert!(
        lines[4]["error"]
            .as_str()
            .unwrap()
            .contains("unknown schema")
    );
    assert!(lines[5]["error"].as_str().unwrap().contains("UTF-8"));
    assert_eq!(
        lines[6]["match"], true,
        "an empty schema is a person: {}",
        lines[6]
    );
    for line in &lines {
        if let Some(score) = line["score"].as_f64() {
            let text = score.to_string();
            assert!(
                text.split_once('.').map_or(0, |(_, d)| d.len()) <= 4,
                "4 decimals: {text}"
            );
        }
    }
}
