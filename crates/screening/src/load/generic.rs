//! The generic list format, as CSV (with a header) or JSON lines, for any list the dedicated
//! loaders do not read: PEP lists, internal watchlists, other regulators' exports.
//!
//! Fields (CSV header names or JSON keys, case-insensitive; every one optional except a name):
//!
//! | field | meaning |
//! |---|---|
//! | `id` | entry id; defaults to the line number |
//! | `kind` | `person` (default), `organisation`/`organization`/`company`, `vessel`, `aircraft`, `unknown` |
//! | `name` or `full_name` | primary name; else `first_name`, `middle_name`, `last_name` joined |
//! | `aliases`, `weak_aliases`, `original_script_names` | more names |
//! | `birth_dates` or `date_of_birth` | dates of birth (any shape [`crate::BirthDate::parse`] reads) |
//! | `nationalities` or `nationality` | country names or ISO codes |
//! | `places_of_birth` or `place_of_birth` | places of birth |
//! | `gender` | `male`, `female`, anything else unknown |
//! | `programs` | programs or regimes |
//! | `topics` | `sanction` and/or `pep`; default `sanction` |
//!
//! In CSV, multi-valued cells separate values with `;`. In JSON lines a multi-valued field is
//! an array of strings or a `;`-separated string.

use std::collections::HashMap;

use crate::country::to_alpha2;
use crate::date::BirthDate;
use crate::error::LoadError;
use crate::load::{LoadReport, LoadedList, split_multi};
use crate::model::{EntityKind, Gender, NameRole, Record, Topic};

/// Builds a record from a field lookup; `Err` is the reason the row is malformed.
fn build(
    get: &dyn Fn(&str) -> Vec<String>,
    line: u64,
    dataset: &str,
    label: &str,
    report: &mut LoadReport,
) -> Result<Record, String> {
    let first = |names: &[&str]| -> Vec<String> {
        names
            .iter()
            .map(|n| get(n))
            .find(|v| !v.is_empty())
            .unwrap_or_default()
    };
    let kind = match first(&["kind", "type", "schema"])
        .first()
        .map(|k| k.to_ascii_lowercase())
        .as_deref()
    {
        None | Some("person" | "individual") => EntityKind::Person,
        Some("organisation" | "organization" | "company" | "entity" | "legalentity") => {
            EntityKind::Organisation
        }
        Some("vessel" | "ship") => EntityKind::Vessel,
        Some("aircraft") => EntityKind::Aircraft,
        Some("unknown") => EntityKind::Unknown,
        Some(other) => return Err(format!("unknown kind {other:?}")),
    };
    let mut primary = first(&["name", "full_name"]).join(" ");
    if primary.is_empty() {
        primary = ["first_name", "middle_name", "last_name"]
            .iter()
            .flat_map(|n| get(n))
            .collect::<Vec<_>>()
            .join(" ");
    }
    if primary.trim().is_empty() {
        return Err("no name".to_string());
    }
    let id = first(&["id"])
        .first()
        .cloned()
        .unwrap_or_else(|| line.to_string());
    let mut record = Record::new(id, dataset, kind);
    record.add_name(&primary, NameRole::Primary);
    for (field, role) in [
        ("aliases", NameRole::Alias),
        ("weak_aliases", NameRole::WeakAlias),
        ("original_script_names", NameRole::OriginalScript),
    ] {
        for alias in get(field) {
            record.add_name(&alias, role);
        }
    }
    for text in first(&["birth_dates", "date_of_birth"]) {
        match BirthDate::parse(&text) {
            Ok(d) => record.add_birth_date(d),
            Err(e) => report.ignored_value(line, e.to_string()),
        }
    }
    for text in first(&["nationalities", "nationality"]) {
        match to_alpha2(&text) {
            Some(code) => record.add_nationality(&code),
            None => report.ignored_value(line, format!("country {text:?}")),
        }
    }
    record.places_of_birth = first(&["places_of_birth", "place_of_birth"]);
    record.gender = get("gender").first().and_then(|g| Gender::parse(g));
    record.programs = get("programs");
    for topic in get("topics") {
        match topic.to_ascii_lowercase().as_str() {
            "sanction" | "sanctions" => record.topics.push(Topic::Sanction),
            "pep" | "role.pep" => record.topics.push(Topic::Pep),
            other => report.ignored_value(line, format!("topic {other:?}")),
        }
    }
    if record.topics.is_empty() {
        record.topics.push(Topic::Sanction);
    }
    record.source = format!("{label}:{line}");
    Ok(record)
}

/// Loads the generic CSV format. Fails when the header has no name column.
pub fn load_generic_csv(
    bytes: &[u8],
    dataset: &str,
    list_date: Option<String>,
    label: &str,
) -> Result<LoadedList, LoadError> {
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(bytes);
    let format_error = |reason: String| LoadError::Format {
        path: label.to_string(),
        format: "generic CSV",
        reason,
    };
    let headers = reader.headers().map_err(|e| format_error(e.to_string()))?;
    let column: HashMap<String, usize> = headers
        .iter()
        .enumerate()
        .map(|(i, h)| {
            (
                h.trim_start_matches('\u{feff}').trim().to_ascii_lowercase(),
                i,
            )
        })
        .collect();
    if !["name", "full_name", "first_name", "last_name"]
        .iter()
        .any(|c| column.contains_key(*c))
    {
        return Err(format_error(
            "no name, full_name, first_name or last_name column".to_string(),
        ));
    }
    let mut report = LoadReport::default();
    let mut records = Vec::new();
    for row in reader.records() {
        let Some((line, row)) = report.csv_row(row) else {
            continue;
        };
        let get = |field: &str| -> Vec<String> {
            column
                .get(field)
                .and_then(|&i| row.get(i))
                .map(|cell| split_multi(cell).map(str::to_string).collect())
                .unwrap_or_default()
        };
        match build(&get, line, dataset, label, &mut report) {
            Ok(record) => records.push(record),
            Err(reason) => report.malformed_row(line, reason),
        }
    }
    Ok(LoadedList::new(
        dataset,
        &[bytes],
        list_date,
        records,
        report,
    ))
}

fn json_values(value: &serde_json::Value) -> Vec<String> {
    match value {
        serde_json::Value::String(s) => split_multi(s).map(str::to_string).collect(),
        serde_json::Value::Array(items) => items.iter().flat_map(json_values).collect(),
        serde_json::Value::Number(n) => vec![n.to_string()],
        _ => Vec::new(),
    }
}

/// Loads the generic JSON-lines format: one JSON object per line; blank lines are skipped;
/// a line that is not an object with a name is counted as malformed. Never fails.
pub fn load_generic_jsonl(
    bytes: &[u8],
    dataset: &str,
    list_date: Option<String>,
    label: &str,
) -> LoadedList {
    let mut report = LoadReport::default();
    let mut records = Vec::new();
    for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        let line = i as u64 + 1;
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        report.rows += 1;
        let object = match serde_json::from_slice::<serde_json::Value>(raw) {
            Ok(serde_json::Value::Object(map)) => map,
            Ok(_) => {
                report.malformed_row(line, "not a JSON object");
                continue;
            }
            Err(e) => {
                report.malformed_row(line, e.to_string());
                continue;
            }
        };
        let lowered: HashMap<String, &serde_json::Value> = object
            .iter()
            .map(|(k, v)| (k.to_ascii_lowercase(), v))
            .collect();
        let get = |field: &str| {
            lowered
                .get(field)
                .map(|v| json_values(v))
                .unwrap_or_default()
        };
        match build(&get, line, dataset, label, &mut report) {
            Ok(record) => records.push(record),
            Err(reason) => report.malformed_row(line, reason),
        }
    }
    LoadedList::new(dataset, &[bytes], list_date, records, report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_csv_with_split_name_columns() {
        let csv = "id,first_name,last_name,date_of_birth,nationality,topics\n\
                   p1,Jane,Doe,1972,United States,pep\n\
                   p2,,,1970,,\n";
        let loaded = load_generic_csv(csv.as_bytes(), "peps", None, "t").expect("loads");
        assert_eq!(loaded.records.len(), 1);
        assert_eq!(loaded.report.malformed, 1);
        let r = &loaded.records[0];
        assert_eq!(r.display_name(), "Jane Doe");
        assert_eq!(r.topics, vec![Topic::Pep]);
        assert_eq!(r.nationalities, vec!["US".to_string()]);
    }

    #[test]
    fn loads_json_lines() {
        let jsonl = "{\"id\":\"a\",\"name\":\"Ivan Petrov\",\"aliases\":[\"I. Petrov\",\"Ivan P\"],\"birth_dates\":\"1960 to 1962\",\"kind\":\"person\"}\n\
                     \n\
                     not json\n\
                     [1,2]\n\
                     {\"name\":\"ACME LTD\",\"kind\":\"company\",\"topics\":[\"sanction\"]}\n";
        let loaded = load_generic_jsonl(jsonl.as_bytes(), "internal", None, "t");
        assert_eq!(loaded.records.len(), 2);
        assert_eq!(loaded.report.malformed, 2);
        assert_eq!(loaded.records[0].names.len(), 3);
        assert_eq!(loaded.records[1].kind, EntityKind::Organisation);
        assert_eq!(loaded.records[1].id, "5");
    }

    #[test]
    fn rejects_csv_without_name_column() {
        assert!(load_generic_csv(b"a,b\n1,2\n", "x", None, "t").is_err());
    }
}
