//! The layering rules of docs/architecture.md, checked against the resolved dependency
//! graph (`cargo metadata`): the inner crates never reach the frameworks, and only the
//! binary (and the black-box tests) name the concrete adapters.

#![allow(clippy::expect_used, reason = "a test: failing loudly is the point")]

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::sync::LazyLock;

use serde_json::Value;

/// Crates that must never appear below the pure crates.
const FRAMEWORKS: &[&str] = &[
    "diesel",
    "diesel_migrations",
    "r2d2",
    "pq-sys",
    "libsqlite3-sys",
    "actix-web",
    "actix-http",
    "reqwest",
    "hyper",
    "jsonwebtoken",
];

/// The host's target triple (`rustc -vV`), so metadata covers only this platform.
fn host_triple() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let output = Command::new(rustc)
        .arg("-vV")
        .output()
        .expect("rustc -vV runs");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .expect("rustc prints its host")
        .to_owned()
}

/// The graph, computed once for every test.
static GRAPH: LazyLock<BTreeMap<String, BTreeSet<String>>> = LazyLock::new(dependency_graph);

/// Each crate's normal (non-dev, non-build) dependencies, by package name.
fn dependency_graph() -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--locked",
            "--filter-platform",
            &host_triple(),
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
    let names: BTreeMap<&str, &str> = metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| {
            (
                p["id"].as_str().expect("id"),
                p["name"].as_str().expect("name"),
            )
        })
        .collect();
    let mut graph = BTreeMap::new();
    for node in metadata["resolve"]["nodes"]
        .as_array()
        .expect("resolve nodes")
    {
        let name = names[node["id"].as_str().expect("node id")].to_owned();
        let deps: BTreeSet<String> = node["deps"]
            .as_array()
            .expect("deps")
            .iter()
            .filter(|dep| {
                dep["dep_kinds"]
                    .as_array()
                    .is_some_and(|kinds| kinds.iter().any(|k| k["kind"].is_null()))
            })
            .map(|dep| names[dep["pkg"].as_str().expect("pkg")].to_owned())
            .collect();
        graph.entry(name).or_insert_with(BTreeSet::new).extend(deps);
    }
    graph
}

/// Everything `root` depends on, directly or not.
fn closure(graph: &BTreeMap<String, BTreeSet<String>>, root: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![root.to_owned()];
    while let Some(name) = stack.pop() {
        for dep in graph.get(&name).into_iter().flatten() {
            if seen.insert(dep.clone()) {
                stack.push(dep.clone());
            }
        }
    }
    seen
}

fn assert_free_of(graph: &BTreeMap<String, BTreeSet<String>>, krate: &str, forbidden: &[&str]) {
    let reached = closure(graph, krate);
    let bad: Vec<&&str> = forbidden.iter().filter(|f| reached.contains(**f)).collect();
    assert!(bad.is_empty(), "{krate} must not depend on {bad:?}");
}

#[test]
fn pure_crates_never_reach_frameworks() {
    let graph = &*GRAPH;
    for krate in ["rics-aip", "rics-domain", "rics-screening"] {
        assert!(graph.contains_key(krate), "{krate} is in the workspace");
        assert_free_of(graph, krate, FRAMEWORKS);
        assert_free_of(
            graph,
            krate,
            &["rics-storage", "rics-http", "rics-auth", "rics"],
        );
    }
}

#[test]
fn adapters_do_not_know_each_other() {
    let graph = &*GRAPH;
    assert_free_of(graph, "rics-http", &["rics-storage", "rics-auth", "diesel"]);
    assert_free_of(
        graph,
        "rics-storage",
        &["rics-http", "rics-auth", "actix-web"],
    );
    assert_free_of(graph, "rics-auth", &["rics-storage", "rics-http", "diesel"]);
}

#[test]
fn the_check_itself_sees_real_edges() {
    let graph = &*GRAPH;
    assert!(closure(graph, "rics-storage").contains("diesel"));
    assert!(closure(graph, "rics-http").contains("actix-web"));
    assert!(closure(graph, "rics").contains("rics-storage"));
}
