//! SIGHUP makes a running `rics serve` read its screening list setting again (the
//! configuration file as at start; flags and variables were fixed at start) and swap in
//! the lists it names, without stopping; a setting whose lists do not load leaves the
//! lists in use.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "a test: failing loudly is the point"
)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::support::{Serving, http};
use serde_json::Value;

const CLIENT_ID: &str = "lists-admin";
const CLIENT_SECRET: &str = "lists-admin-secret-0001";

fn write_settings(dir: &Path, lists: &[&Path]) {
    let lists: Vec<String> = lists
        .iter()
        .map(|p| format!("{:?}", p.to_str().unwrap()))
        .collect();
    std::fs::write(
        dir.join("rics.toml"),
        format!("screening_lists = [{}]\n", lists.join(", ")),
    )
    .unwrap();
}

fn datasets(server: &Serving, token: &str) -> Vec<String> {
    let lists: Value = http()
        .get(server.url("/v1alpha/screeningLists"))
        .bearer_auth(token)
        .send()
        .unwrap()
        .json()
        .unwrap();
    lists["screeningLists"]
        .as_array()
        .unwrap_or_else(|| panic!("{lists}"))
        .iter()
        .map(|l| l["dataset"].as_str().unwrap().to_owned())
        .collect()
}

fn hang_up(server: &Serving) {
    let status = Command::new("kill")
        .args(["-HUP", &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Polls until the server's datasets are `expected`.
fn wait_for_datasets(server: &Serving, token: &str, expected: &[&str]) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let now = datasets(server, token);
        if now == expected {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "still {now:?}, not {expected:?}: {}",
            server.stderr.lock().unwrap()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn sighup_reads_the_list_setting_again() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first.jsonl");
    let second = dir.path().join("second.jsonl");
    std::fs::write(&first, "{\"id\":\"1\",\"name\":\"Ivan Petrov\"}\n").unwrap();
    std::fs::write(&second, "{\"id\":\"2\",\"name\":\"Maria Gonzalez\"}\n").unwrap();
    write_settings(dir.path(), &[&first]);
    let server = Serving::start(
        dir.path(),
        &[
            ("RICS_BOOTSTRAP_CLIENT_ID", CLIENT_ID),
            ("RICS_BOOTSTRAP_CLIENT_SECRET", CLIENT_SECRET),
        ],
    );
    let token: Value = http()
        .post(server.url("/oauth2/token"))
        .basic_auth(CLIENT_ID, Some(CLIENT_SECRET))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .unwrap()
        .json()
        .unwrap();
    let token = token["access_token"].as_str().unwrap().to_owned();
    assert_eq!(datasets(&server, &token), ["first"]);

    write_settings(dir.path(), &[&first, &second]);
    hang_up(&server);
    wait_for_datasets(&server, &token, &["first", "second"]);

    // A setting naming a list that does not load: the lists in use stay, the log says why.
    write_settings(dir.path(), &[&dir.path().join("missing.jsonl")]);
    hang_up(&server);
    let deadline = Instant::now() + Duration::from_secs(60);
    while !server.stderr.lock().unwrap().contains("missing.jsonl") {
        assert!(Instant::now() < deadline, "no log line names the failure");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(datasets(&server, &token), ["first", "second"]);

    write_settings(dir.path(), &[&second]);
    hang_up(&server);
    wait_for_datasets(&server, &token, &["second"]);
}
