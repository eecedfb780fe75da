//! Cross-check of `rics_jsonata` against the reference implementation of
//! JSONata: npm `jsonata` (2.2.2), run by node as a referee with `scripts/jsonata_referee.js`.
//!
//! The corpus `jsonata_corpus.json` beside this file holds the expressions an onboarding
//! mapping needs (paths, object construction, string functions, conditionals, `$map` and
//! friends, dates) with their inputs. Every one must give what the referee gives: the same
//! JSON, nothing when the referee gives undefined, and an error when it errs. Then every
//! built-in function of JSONata is either bound by our engine or listed in
//! `UNSUPPORTED_FUNCTIONS`, and every listed one is a real JSONata function that our
//! engine lacks, so the list that create-time checks refuse is neither short nor stale
//! (the functions of the clock and chance are refused by choice, not for want).
//!
//! The referee's package is `RICS_JSONATA_PACKAGE`, else
//! `target/jsonata-referee/node_modules/jsonata` at the workspace root, which
//! `make jsonata-referee` installs. Without it (or without node) the test fails.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use bumpalo::Bump;
use jsonata_rs::JsonAta;
use rics_domain::onboarding::CompiledMapping;
use rics_jsonata::{JsonataMapping, NONDETERMINISTIC_FUNCTIONS, UNSUPPORTED_FUNCTIONS};
use serde::Deserialize;
use serde_json::{Value, json};

/// The package version the referee must run.
const REFEREE_VERSION: &str = "2.2.2";

/// The built-in functions of JSONata 2, as its documentation lists them.
const JSONATA_FUNCTIONS: [&str; 65] = [
    "sum",
    "count",
    "max",
    "min",
    "average",
    "string",
    "substring",
    "substringBefore",
    "substringAfter",
    "lowercase",
    "uppercase",
    "length",
    "trim",
    "pad",
    "match",
    "contains",
    "replace",
    "split",
    "join",
    "formatNumber",
    "formatBase",
    "formatInteger",
    "parseInteger",
    "number",
    "floor",
    "ceil",
    "round",
    "abs",
    "power",
    "sqrt",
    "random",
    "boolean",
    "not",
    "exists",
    "keys",
    "lookup",
    "spread",
    "merge",
    "sift",
    "each",
    "error",
    "assert",
    "type",
    "sort",
    "reverse",
    "shuffle",
    "distinct",
    "zip",
    "append",
    "map",
    "filter",
    "single",
    "reduce",
    "now",
    "millis",
    "fromMillis",
    "toMillis",
    "base64encode",
    "base64decode",
    "encodeUrlComponent",
    "encodeUrl",
    "decodeUrlComponent",
    "decodeUrl",
    "eval",
    "clone",
];

const FIELD: &str = "job.jsonataExpression";

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Case {
    name: String,
    expression: String,
    input: Value,
    /// The result depends on the order of an object's members, which our engine does
    /// not keep: results are compared with arrays as multisets and JSON text as JSON.
    #[serde(default)]
    unordered_members: bool,
    /// A difference from the reference that docs/api.md states: the case must still
    /// differ, so the documentation stays true when the engine changes.
    #[serde(default)]
    divergence: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Verdicts {
    version: String,
    answers: Vec<Value>,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Asks the referee to evaluate every case, in one node process.
fn referee(cases: &[Value]) -> Vec<Value> {
    let package = std::env::var_os("RICS_JSONATA_PACKAGE")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/jsonata-referee/node_modules/jsonata"));
    let unavailable = |reason: String| -> ! {
        panic!(
            "the JSONata referee (node with jsonata@{REFEREE_VERSION}) is unavailable: {reason}. \
             Run `make jsonata-referee` at the workspace root, or set RICS_JSONATA_PACKAGE to \
             the package's directory."
        )
    };
    let mut child = Command::new("node")
        .arg(root().join("scripts/jsonata_referee.js"))
        .arg(&package)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|error| unavailable(format!("node: {error}")));
    let Some(mut stdin) = child.stdin.take() else {
        unavailable("its standard input is not a pipe".to_owned())
    };
    stdin
        .write_all(Value::from(cases.to_vec()).to_string().as_bytes())
        .unwrap_or_else(|error| unavailable(format!("writing the cases: {error}")));
    drop(stdin);
    let output = child
        .wait_with_output()
        .unwrap_or_else(|error| unavailable(format!("waiting for node: {error}")));
    if !output.status.success() {
        unavailable(format!("node exited with {}", output.status));
    }
    let verdicts: Verdicts = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| unavailable(format!("its answer is not JSON: {error}")));
    if verdicts.version != REFEREE_VERSION {
        unavailable(format!(
            "{} runs jsonata {}",
            package.display(),
            verdicts.version
        ));
    }
    assert_eq!(verdicts.answers.len(), cases.len(), "one answer per case");
    verdicts.answers
}

fn corpus() -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/jsonata_corpus.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{} is not a JSON array of cases: {error}", path.display()))
}

#[test]
fn every_corpus_expression_evaluates_as_the_reference_implementation_does() {
    let cases = corpus();
    assert!(cases.len() >= 100, "the corpus has {} cases", cases.len());
    let requests: Vec<Value> = cases
        .iter()
        .map(|c| json!({"expression": c.expression, "input": c.input}))
        .collect();
    let answers = referee(&requests);
    let mut disagreements = Vec::new();
    let mut agreed = 0;
    for (case, answer) in cases.iter().zip(&answers) {
        let mapping = JsonataMapping::parse(&case.expression, FIELD)
            .unwrap_or_else(|error| panic!("{}: refused at create: {error:?}", case.name));
        let ours = mapping.evaluate(&case.input);
        let agrees = match (answer.get("error"), answer.get("result"), &ours) {
            (Some(_), _, Err(_)) => true,
            (None, Some(expected), Ok(Some(actual))) if case.unordered_members => {
                without_member_order(expected) == without_member_order(actual)
            }
            (None, Some(expected), Ok(Some(actual))) => expected == actual,
            (None, None, Ok(None)) => true,
            _ => false,
        };
        match (&case.divergence, agrees) {
            (None, false) => disagreements.push(format!(
                "{}: `{}`: referee {answer}, rics {ours:?}",
                case.name, case.expression
            )),
            (Some(divergence), true) => disagreements.push(format!(
                "{}: `{}` now agrees with the referee: docs/api.md says \"{divergence}\"",
                case.name, case.expression
            )),
            _ => agreed += usize::from(agrees),
        }
    }
    assert!(agreed >= 100, "only {agreed} cases agree");
    assert!(
        disagreements.is_empty(),
        "{} of {} cases disagree:\n{}",
        disagreements.len(),
        cases.len(),
        disagreements.join("\n")
    );
}

/// `value` with every array sorted and every string that holds a JSON object or array
/// read as JSON, so that values differing only in the order of members compare equal.
fn without_member_order(value: &Value) -> Value {
    match value {
        Value::Array(items) => {
            let mut items: Vec<Value> = items.iter().map(without_member_order).collect();
            items.sort_by_key(Value::to_string);
            Value::Array(items)
        }
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(key, member)| (key.clone(), without_member_order(member)))
                .collect(),
        ),
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(json @ (Value::Object(_) | Value::Array(_))) => without_member_order(&json),
            _ => value.clone(),
        },
        other => other.clone(),
    }
}

/// Whether our engine binds `$name` to a function.
fn engine_binds(name: &str) -> bool {
    let arena = Bump::new();
    JsonAta::new(&format!("$exists(${name})"), &arena).is_ok_and(|expression| {
        expression
            .evaluate(None, None)
            .is_ok_and(|value| value.is_bool() && value.as_bool())
    })
}

#[test]
fn the_unsupported_list_names_exactly_the_reference_functions_our_engine_lacks() {
    let requests: Vec<Value> = JSONATA_FUNCTIONS
        .iter()
        .chain(UNSUPPORTED_FUNCTIONS.iter())
        .map(|name| json!({"expression": format!("$exists(${name})"), "input": {}}))
        .collect();
    let answers = referee(&requests);
    let (reference, listed) = answers.split_at(JSONATA_FUNCTIONS.len());
    for name in NONDETERMINISTIC_FUNCTIONS {
        assert!(
            JSONATA_FUNCTIONS.contains(&name) && engine_binds(name),
            "${name} is refused by choice, so JSONata and the engine both have it"
        );
    }
    for (name, answer) in JSONATA_FUNCTIONS.iter().zip(reference) {
        assert_eq!(answer["result"], true, "${name} is a JSONata function");
        assert_eq!(
            engine_binds(name),
            !UNSUPPORTED_FUNCTIONS.contains(name),
            "${name}: bound by the engine exactly when not listed as unsupported"
        );
    }
    for (name, answer) in UNSUPPORTED_FUNCTIONS.iter().zip(listed) {
        if answer["result"] != true {
            assert!(
                engine_binds(name),
                "${name} is listed but is neither JSONata's nor the engine's"
            );
        }
    }
}
