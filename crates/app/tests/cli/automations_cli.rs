//! `rics automations load` as operators run it: a file of automations created, then
//! replaced, in every tenant or one; a file with a faulty definition stores nothing and
//! names each fault; built-in automations cannot be replaced.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "a test: failing loudly is the point"
)]

use std::process::Output;

use serde_json::{Value, json};

use crate::support::{Serving, rics};

/// Runs `rics automations load` with `args` on the database in `dir`.
fn load(dir: &std::path::Path, file: &Value, args: &[&str]) -> Output {
    let path = dir.join("automations.json");
    std::fs::write(&path, file.to_string()).unwrap();
    rics(dir)
        .args(["automations", "load"])
        .arg(&path)
        .args(args)
        .output()
        .unwrap()
}

/// The report of a load that succeeded.
fn report(output: &Output) -> Value {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    serde_json::from_slice(&output.stdout).unwrap()
}

/// An automation `id` tagging the entity it is given with `tag`.
fn tagger(id: &str, tag: &str) -> Value {
    json!({
        "name": format!("automations/{id}"),
        "displayName": "Tagger",
        "inputSchema": {"entity": {"type": "string"}},
        "steps": [{"key": "tag", "kind": "ADD_TAG", "args": {"entity": "${parameters.entity}", "tag": tag}}]
    })
}

#[test]
fn automations_are_loaded_from_a_file() {
    let dir = tempfile::tempdir().unwrap();
    // The first start provisions the partner tenant.
    let (stdout, _) = Serving::start(dir.path(), &[]).stop();
    let tenant = stdout
        .split_whitespace()
        .find(|word| word.starts_with("tenants/"))
        .unwrap()
        .to_owned();

    let created = report(&load(
        dir.path(),
        &json!([tagger("tagger", "vip")]),
        &["--all-tenants"],
    ));
    assert_eq!(
        created,
        json!({"tenants": [{"tenant": tenant, "automations": [{"name": "automations/tagger", "result": "CREATED"}]}]})
    );
    let file = json!({"automations": [tagger("tagger", "gold"), tagger("other", "x")]});
    let replaced = report(&load(dir.path(), &file, &["--tenant", &tenant]));
    assert_eq!(
        replaced["tenants"][0]["automations"],
        json!([{"name": "automations/tagger", "result": "UPDATED"}, {"name": "automations/other", "result": "CREATED"}])
    );

    let mut later = tagger("later", "x");
    later["steps"][0]["args"]["tag"] = json!("${steps.check.output.tag}");
    let check =
        json!({"key": "check", "kind": "BRANCH", "args": {"condition": "a = ((", "then": "END"}});
    later["steps"].as_array_mut().unwrap().push(check);
    let refused = load(
        dir.path(),
        &json!([tagger("fine", "x"), later]),
        &["--all-tenants"],
    );
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    for fault in [
        "automations[1].steps[0].args.tag",
        "LATER_STEP",
        "automations[1].steps[1].args.condition",
        "INVALID_CONDITION",
    ] {
        assert!(stderr.contains(fault), "{fault}: {stderr}");
    }
    let built_in = load(
        dir.path(),
        &json!([tagger("kyc-individual", "x")]),
        &["--tenant", &tenant],
    );
    assert!(!built_in.status.success());
    assert!(String::from_utf8_lossy(&built_in.stderr).contains("built in"));
    let unknown = load(
        dir.path(),
        &json!([tagger("fine", "x")]),
        &["--tenant", "tenants/nobody"],
    );
    assert!(!unknown.status.success());
    // Nothing of the refused files was stored.
    let again = report(&load(
        dir.path(),
        &json!([tagger("fine", "x")]),
        &["--all-tenants"],
    ));
    assert_eq!(again["tenants"][0]["automations"][0]["result"], "CREATED");
}
