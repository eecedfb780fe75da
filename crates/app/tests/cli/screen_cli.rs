//! `rics screen` end to end: the built binary, a small list, people on stdin, JSON lines out.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "a test: failing loudly is the point"
)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// A generic JSON-lines list: two sanctioned people and a PEP.
const LIST: &str = r#"{"id":"SDN-1","name":"PETROV, Ivan Sergeyevich","date_of_birth":"1961-03-14","nationality":"Russia","programs":"UKRAINE-EO13661"}
{"id":"SDN-2","name":"Muammar Qaddafi","aliases":"Moammar Gadhafi;معمر القذافي","date_of_birth":"1942","nationality":"LY"}
{"id":"PEP-1","name":"Olaf Scholz","date_of_birth":"1958-06-14","nationality":"DE","topics":"pep"}
"#;

fn write_list(dir: &Path) -> PathBuf {
    let path = dir.join("test_list.jsonl");
    std::fs::write(&path, LIST).unwrap();
    path
}

fn rics_screen(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rics"))
        .arg("screen")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rics starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().expect("rics runs")
}

fn lines(output: &Output) -> Vec<Value> {
    String::from_utf8(output.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every stdout line is JSON"))
        .collect()
}

fn entries(line: &Value) -> Vec<String> {
    line["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["listEntry"].as_str().unwrap().to_string())
        .collect()
}

const CSV: &str =
    "full_name,first_name,middle_name,last_name,gender,date_of_birth,place_of_birth,nationality
Ivan Petrov,,,,male,1961-03-14,Moscow,Russia
,Muammar,,Gaddafi,,1942,,Libya
Patricia Lucas Wheeler,,,,female,2002-07-14,Dar es Salaam,Ethiopia
,,,,,,,
Olaf Scholz,,,,,31 Feb 1970,,Germany
";

#[test]
fn screens_a_csv_file_one_json_line_per_person() {
    let dir = tempfile::tempdir().unwrap();
    let list = write_list(dir.path());
    let output = rics_screen(&["--list", list.to_str().unwrap()], CSV);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let lines = lines(&output);
    assert_eq!(lines.len(), 5, "one line per input row");
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line["row"], i as u64 + 1);
    }

    // A listed person, with the explanation a reviewer needs.
    assert_eq!(lines[0]["name"], "Ivan Petrov");
    assert_eq!(entries(&lines[0]), vec!["SDN-1"]);
    let best = &lines[0]["matches"][0];
    let score = best["score"].as_f64().unwrap();
    assert!(score > 0.9 && score < 1.0, "{score}");
    assert!(
        best["explanation"]["factors"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["factor"] == "date_of_birth")
    );
    assert!(
        !best["explanation"]["name"]["pairs"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    // Name parts joined; a transliteration variant.
    assert_eq!(lines[1]["name"], "Muammar Gaddafi");
    assert_eq!(entries(&lines[1]), vec!["SDN-2"]);

    // Nobody listed.
    assert!(entries(&lines[2]).is_empty());

    // No name: a warning, never an abort.
    assert_eq!(lines[3]["warnings"][0], "no name");

    // An impossible date is left out of the evidence, with a warning.
    assert_eq!(entries(&lines[4]), vec!["PEP-1"]);
    assert!(
        lines[4]["warnings"][0]
            .as_str()
            .unwrap()
            .contains("31 Feb 1970")
    );

    // Standard error: the load report and the summary, no progress bar (not a terminal).
    assert!(stderr.contains("loaded test_list"), "{stderr}");
    assert!(stderr.contains("5 people screened"), "{stderr}");
}

#[test]
fn detects_json_lines_and_applies_the_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let list = write_list(dir.path());
    let input =
        "{\"full_name\":\"Ivan Petrov\"}\n{\"first_name\":\"Olaf\",\"last_name\":\"Scholz\"}\n";
    let output = rics_screen(&["--list", list.to_str().unwrap()], input);
    assert!(output.status.success());
    let lines = lines(&output);
    assert_eq!(lines.len(), 2);
    assert_eq!(entries(&lines[0]), vec!["SDN-1"]);
    assert_eq!(entries(&lines[1]), vec!["PEP-1"]);

    // A threshold above every name-only score: nothing is written but the rows.
    let strict = rics_screen(
        &["--list", list.to_str().unwrap(), "--threshold", "0.99"],
        input,
    );
    assert!(strict.status.success());
    assert!(lines_of(&strict).iter().all(|l| entries(l).is_empty()));

    // The format flag wins over detection.
    let forced = rics_screen(&["--list", list.to_str().unwrap(), "--format", "csv"], CSV);
    assert_eq!(lines_of(&forced).len(), 5);
}

fn lines_of(output: &Output) -> Vec<Value> {
    lines(output)
}

#[test]
fn screens_against_a_bundled_list() {
    let un = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../data/lists/un_2026-02/UN_consolidated.xml");
    let output = rics_screen(
        &["--list", un.to_str().unwrap()],
        "full_name,date_of_birth,nationality\nAyman al-Zawahiri,1951-06-19,Egypt\n",
    );
    assert!(output.status.success());
    let lines = lines(&output);
    assert_eq!(lines[0]["matches"][0]["dataset"], "un_sc");
}

/// Fails unless every key is lowerCamelCase and every number has at most 4 decimals, as
/// in the API.
fn assert_camel_case_with_four_decimals(value: &Value, path: &str) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                assert!(
                    key.starts_with(|c: char| c.is_ascii_lowercase())
                        && key.chars().all(|c| c.is_ascii_alphanumeric()),
                    "{path}.{key} is not lowerCamelCase"
                );
                assert_camel_case_with_four_decimals(inner, &format!("{path}.{key}"));
            }
        }
        Value::Array(items) => {
            for (i, inner) in items.iter().enumerate() {
                assert_camel_case_with_four_decimals(inner, &format!("{path}[{i}]"));
            }
        }
        Value::Number(n) => {
            let text = n.to_string();
            let decimals = text.split_once('.').map_or(0, |(_, d)| d.len());
            assert!(decimals <= 4, "{path} = {text} has more than 4 decimals");
        }
        _ => {}
    }
}

/// The output has the API's shape: lowerCamelCase keys, scores rounded to 4 decimals.
#[test]
fn output_keys_are_camel_case_and_scores_have_four_decimals() {
    let dir = tempfile::tempdir().unwrap();
    let list = write_list(dir.path());
    let output = rics_screen(&["--list", list.to_str().unwrap()], CSV);
    assert!(output.status.success());
    let lines = lines(&output);
    let best = &lines[0]["matches"][0];
    assert!(best["displayName"].is_string(), "{best}");
    assert!(best["explanation"]["matchedName"].is_string(), "{best}");
    assert!(
        best["explanation"]["factors"][0]["logOdds"].is_number(),
        "{best}"
    );
    for (i, line) in lines.iter().enumerate() {
        assert_camel_case_with_four_decimals(line, &format!("line {}", i + 1));
    }
}

/// Without `--list`, the lists the server screens against by default: the bundled ones.
#[test]
fn screens_against_the_bundled_lists_by_default() {
    let output = rics_screen(
        &[],
        "full_name,date_of_birth,nationality\nAyman al-Zawahiri,1951-06-19,Egypt\n",
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    for dataset in ["ofac_sdn", "ofac_cons", "un_sc", "uk_fcdo", "us_csl"] {
        assert!(stderr.contains(&format!("loaded {dataset} ")), "{stderr}");
    }
    let lines = lines(&output);
    assert!(
        lines[0]["matches"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["dataset"] == "un_sc"),
        "{}",
        lines[0]
    );
}

/// A folder stands for the list files directly in it, as in the server's configuration.
#[test]
fn a_folder_is_every_list_file_in_it() {
    let dir = tempfile::tempdir().unwrap();
    write_list(dir.path());
    std::fs::write(
        dir.path().join("peps.csv"),
        "id,name,topics\nP-1,Maria Gonzalez,pep\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("README.txt"), "not a list\n").unwrap();
    let output = rics_screen(
        &["--list", dir.path().to_str().unwrap()],
        "full_name\nIvan Petrov\nMaria Gonzalez\n",
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("loaded test_list "), "{stderr}");
    assert!(stderr.contains("loaded peps "), "{stderr}");
    let lines = lines(&output);
    assert_eq!(entries(&lines[0]), vec!["SDN-1"]);
    assert_eq!(entries(&lines[1]), vec!["P-1"]);

    let empty = tempfile::tempdir().unwrap();
    let refused = rics_screen(&["--list", empty.path().to_str().unwrap()], "");
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("no list files"), "{stderr}");
}

#[test]
fn bad_arguments_fail_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let list = write_list(dir.path());
    let threshold = rics_screen(&["--list", list.to_str().unwrap(), "--threshold", "7"], "");
    assert!(!threshold.status.success());
    assert!(String::from_utf8_lossy(&threshold.stderr).contains("--threshold"));
    let missing = rics_screen(&["--list", "/nonexistent/list.csv"], "");
    assert!(!missing.status.success());
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(
        stderr.matches("/nonexistent/list.csv").count(),
        1,
        "the path once: {stderr}"
    );
    assert_eq!(
        stderr.matches("No such file").count(),
        1,
        "the cause once: {stderr}"
    );
}

/// `rics lists load` loads lists as the server does and prints their versions; a list
/// that does not load fails the command.
#[test]
fn lists_load_prints_each_lists_version() {
    let dir = tempfile::tempdir().unwrap();
    let list = write_list(dir.path());
    let output = Command::new(env!("CARGO_BIN_EXE_rics"))
        .args(["lists", "load", list.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
    let lists = printed["screeningLists"].as_array().unwrap();
    assert_eq!(lists.len(), 1);
    assert!(lists[0]["records"].as_u64().unwrap() > 0);
    assert_eq!(lists[0]["contentHash"].as_str().unwrap().len(), 64);

    let broken = dir.path().join("broken.csv");
    std::fs::write(&broken, "no name column\n1\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_rics"))
        .args(["lists", "load", broken.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot load the lists"));
}
