//! A client generated from the served OpenAPI document works against rics.
//!
//! The test writes `/v1alpha/openapi.json` to a temporary folder, generates the Python
//! package `rics_client` from it with the stock `openapi-python-client` (0.29.1, from
//! PyPI, which `make openapi-client-referee` installs in `target/openapi-client-venv`),
//! and runs `scripts/generated_client_check.py` with that package against the server:
//! every operation must have a generated function; create, get, list with a filter,
//! update with a mask, delete and undelete an individual and a company; records that
//! hold the document's other enums (relationship, passport, workspace, alert, activity
//! log type, risk evaluation, tenant, built-in collections); a 404 read through the
//! error envelope; then a PEP and sanctions job run and its operation polled until done.
//! Every body goes through the generated models and must round-trip exactly, with
//! nothing edited by hand.
//!
//! The generator must not warn: a warning means it dropped a model or an endpoint of
//! the document. The script runs even when it did, so that one run reports both.
//!
//! The Python is `RICS_OPENAPI_CLIENT_PYTHON`, else the venv's. Without it the test
//! fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rics_e2e::on_both_backends;

/// The generator version the venv must hold.
const GENERATOR_VERSION: &str = "0.29.1";

/// The generator's configuration: no formatting hooks (the venv has no ruff), which
/// change nothing but the generated code's layout.
const GENERATOR_CONFIG: &str = "post_hooks: []\n";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn python() -> PathBuf {
    let python = std::env::var_os("RICS_OPENAPI_CLIENT_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/openapi-client-venv/bin/python"));
    let version = Command::new(&python)
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('openapi-python-client'))",
        ])
        .output();
    match version {
        Ok(out) if String::from_utf8_lossy(&out.stdout).trim() == GENERATOR_VERSION => python,
        Ok(out) => panic!(
            "{} has no openapi-python-client {GENERATOR_VERSION} ({}{}). Run `make \
             openapi-client-referee` at the workspace root, or set RICS_OPENAPI_CLIENT_PYTHON.",
            python.display(),
            String::from_utf8_lossy(&out.stdout).trim(),
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(error) => panic!(
            "cannot run {}: {error}. Run `make openapi-client-referee` at the workspace root, \
             or set RICS_OPENAPI_CLIENT_PYTHON.",
            python.display()
        ),
    }
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

on_both_backends! {
    /// The generated client creates, reads, lists, updates, deletes and restores
    /// entities and runs a screening job, every body round-tripping through its types.
    fn a_generated_python_client_works(server) {
        let python = python();
        let folder = tempfile::tempdir().unwrap_or_else(|e| panic!("no temporary folder: {e}"));
        let document = folder.path().join("openapi.json");
        let served = server.get("/v1alpha/openapi.json").ok();
        std::fs::write(&document, served.to_string())
            .unwrap_or_else(|e| panic!("cannot write the document: {e}"));
        let config = folder.path().join("generator.yaml");
        std::fs::write(&config, GENERATOR_CONFIG)
            .unwrap_or_else(|e| panic!("cannot write the generator's configuration: {e}"));

        let generated = Command::new(&python)
            .args(["-m", "openapi_python_client", "generate", "--meta", "none"])
            .arg("--fail-on-warning")
            .arg("--path")
            .arg(&document)
            .arg("--config")
            .arg(&config)
            .arg("--output-path")
            .arg(folder.path().join("rics_client"))
            .output()
            .unwrap_or_else(|e| panic!("cannot run the generator: {e}"));
        assert!(
            folder.path().join("rics_client/__init__.py").exists(),
            "the generator wrote no package:\n{}",
            text(&generated)
        );

        let checked = Command::new(&python)
            .arg(root().join("scripts/generated_client_check.py"))
            .arg(folder.path())
            .arg(&document)
            .arg(server.url(""))
            .arg(server.token())
            .arg(server.partner())
            .output()
            .unwrap_or_else(|e| panic!("cannot run the client check: {e}"));

        let mut problems = Vec::new();
        if !generated.status.success() {
            problems.push(format!(
                "openapi-python-client warned (dropped parts of the document):\n{}",
                text(&generated)
            ));
        }
        if !checked.status.success() {
            problems.push(format!("the generated client failed:\n{}", text(&checked)));
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
