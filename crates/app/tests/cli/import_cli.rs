//! `rics import` as operators run it: a book of entities written in batches with the
//! events and tags a create writes; run again, it stores nothing twice; a file with bad
//! lines writes nothing and names each line; a refused line is named by its number.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "a test: failing loudly is the point"
)]

use std::process::Output;

use diesel::{Connection, RunQueryDsl, SqliteConnection, sql_query, sql_types::BigInt};
use serde_json::{Value, json};

use crate::support::{Serving, rics};

/// Runs `rics import` of `lines` into `tenant` on the database in `dir`.
fn import(dir: &std::path::Path, lines: &[String], tenant: &str) -> Output {
    let path = dir.join("book.jsonl");
    std::fs::write(&path, lines.join("\n")).unwrap();
    rics(dir)
        .arg("import")
        .arg(&path)
        .args(["--tenant", tenant])
        .output()
        .unwrap()
}

#[derive(diesel::QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// The number of rows `sql` (a `SELECT count(*) AS n ...`) counts in the database in
/// `dir`.
fn count(dir: &std::path::Path, sql: &str) -> i64 {
    let url = dir.join("rics.db");
    let mut conn = SqliteConnection::establish(url.to_str().unwrap()).unwrap();
    sql_query(sql).get_result::<Count>(&mut conn).unwrap().n
}

fn person(i: usize) -> String {
    json!({"entityId": format!("person-{i}"), "entity": {"displayName": format!("Person {i}"),
        "entityType": "INDIVIDUAL", "tags": ["imported"],
        "individual": {"legalName": {"givenName": "Person", "familyName": format!("Number {i}")}}}})
    .to_string()
}

#[test]
fn a_book_of_entities_is_imported_once() {
    let dir = tempfile::tempdir().unwrap();
    let (stdout, _) = Serving::start(dir.path(), &[]).stop();
    let tenant = stdout
        .split_whitespace()
        .find(|word| word.starts_with("tenants/"))
        .unwrap()
        .to_owned();
    let mut lines: Vec<String> = (0..2500).map(person).collect();
    lines.push(json!({"entity": {"displayName": "Without an id", "company": {"legalName": "Without an id"}}}).to_string());

    let output = import(dir.path(), &lines, &tenant);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["tenant"], tenant.as_str());
    assert_eq!(report["imported"], 2501);
    assert_eq!(report["batches"], 3);
    let entities = "SELECT count(*) AS n FROM entities";
    let created = "SELECT count(*) AS n FROM events WHERE event_type = 'entity.created'";
    let tagged = "SELECT count(*) AS n FROM entity_tags WHERE tag = 'imported'";
    assert_eq!(count(dir.path(), entities), 2501);
    assert_eq!(count(dir.path(), created), 2501);
    assert_eq!(count(dir.path(), tagged), 2500);

    // Again: every batch answers what it stored; nothing is stored twice.
    let again = import(dir.path(), &lines, &tenant);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(count(dir.path(), entities), 2501);
    assert_eq!(count(dir.path(), created), 2501);

    // Lines that are no create request: nothing is written, each is named.
    let mut bad: Vec<String> = (3000..3010).map(person).collect();
    bad[2] = "{not json".into();
    bad[6] = json!({"entity": {}, "colour": "red"}).to_string();
    let refused = import(dir.path(), &bad, &tenant);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("line 3: not JSON") && stderr.contains("line 7:"),
        "{stderr}"
    );
    assert_eq!(count(dir.path(), entities), 2501);

    // A line the checks refuse is named by its number.
    let mut invalid: Vec<String> = (4000..4003).map(person).collect();
    invalid[1] = json!({"entityId": "no-name", "entity": {"entityType": "INDIVIDUAL"}}).to_string();
    let refused = import(dir.path(), &invalid, &tenant);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("line 2: entity.displayName"), "{stderr}");
    let unknown = import(dir.path(), &lines[..1], "tenants/nobody");
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("there is no tenant"));
}
