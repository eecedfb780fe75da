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
//! | `positions` | public functions of a PEP, each a title with optional start and end dates |
//! | `source_url` or `url` | the publisher's page about the entry |
//!
//! In CSV, multi-valued cells separate values with `;`. In JSON lines a multi-valued field is
//! an array of strings or a `;`-separated string.
//!
//! A position is written `title|start_date|end_date` in CSV (the dates may be left empty:
//! `Mayor of Springfield|2019-01-01|`), and in JSON lines as that text or as an object
//! `{"title", "start_date", "end_date"}` (`startDate`, `endDate` also read). Dates are
//! `YYYY-MM-DD`, `YYYY-MM` or `YYYY`; a date that is none of these is dropped from its
//! position and reported.

use std::collections::HashMap;

use crate::country::to_alpha2;
use crate::date::BirthDate;
use crate::error::LoadError;
use crate::load::{LoadReport, LoadedList, split_multi};
use crate::model::{EntityKind, Gender, NameRole, Position, Record, Topic};

/// A position as a row writes it, before its dates are checked.
#[derive(Debug, Default)]
struct RawPosition {
    title: String,
    start_date: Option<String>,
    end_date: Option<String>,
}

impl RawPosition {
    /// Reads `title|start_date|end_date`; missing or empty parts are absent.
    fn from_text(text: &str) -> RawPosition {
        let mut parts = text.split('|').map(str::trim);
        let mut part = || parts.next().filter(|p| !p.is_empty()).map(str::to_string);
        RawPosition {
            title: part().unwrap_or_default(),
            start_date: part(),
            end_date: part(),
        }
    }

    /// Reads a JSON position: text as in CSV, or an object.
    fn from_json(value: &serde_json::Value) -> Option<RawPosition> {
        match value {
            serde_json::Value::String(text) => Some(RawPosition::from_text(text)),
            serde_json::Value::Object(map) => {
                let field = |names: &[&str]| {
                    names
                        .iter()
                        .find_map(|n| map.get(*n).and_then(serde_json::Value::as_str))
                        .map(str::trim)
                        .filter(|t| !t.is_empty())
                        .map(str::to_string)
                };
                Some(RawPosition {
                    title: field(&["title"]).unwrap_or_default(),
                    start_date: field(&["start_date", "startDate"]),
                    end_date: field(&["end_date", "endDate"]),
                })
            }
            _ => None,
        }
    }

    /// The position with its dates in ISO form; a date that cannot be read is dropped and
    /// reported, a position without a title is reported and skipped.
    fn check(self, line: u64, report: &mut LoadReport) -> Option<Position> {
        if self.title.is_empty() {
            report.ignored_value(line, "a position without a title");
            return None;
        }
        let mut date = |text: Option<String>, which: &str| {
            let text = text?;
            if iso_date(&text) {
                return Some(text);
            }
            report.ignored_value(
                line,
                format!(
                    "{which} date {text:?} of position {:?} is not YYYY-MM-DD, YYYY-MM or YYYY",
                    self.title
                ),
            );
            None
        };
        let start_date = date(self.start_date, "start");
        let end_date = date(self.end_date, "end");
        Some(Position {
            title: self.title,
            start_date,
            end_date,
        })
    }
}

/// Whether `text` is `YYYY-MM-DD` (a day that exists), `YYYY-MM` or `YYYY`. Unlike dates
/// of birth, any year is taken: the first presidents took office in 1789.
fn iso_date(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    let number = |part: &str, digits: usize| {
        (part.len() == digits && part.bytes().all(|b| b.is_ascii_digit()))
            .then(|| part.parse::<u16>().ok())
            .flatten()
    };
    let year = parts.first().and_then(|y| number(y, 4));
    let month = parts.get(1).map(|m| number(m, 2));
    let day = parts.get(2).map(|d| number(d, 2));
    match (year, month, day, parts.len()) {
        (Some(_), None, None, 1) => true,
        (Some(_), Some(Some(m)), None, 2) => (1..=12).contains(&m),
        (Some(y), Some(Some(m)), Some(Some(d)), 3) => {
            let days = match m {
                2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
                2 => 28,
                4 | 6 | 9 | 11 => 30,
                1..=12 => 31,
                _ => 0,
            };
            (1..=days).contains(&d)
        }
        _ => false,
    }
}

/// Builds a record from a field lookup and the row's positions; `Err` is the reason the
/// row is malformed.
fn build(
    get: &dyn Fn(&str) -> Vec<String>,
    positions: Vec<RawPosition>,
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
    record.positions = positions
        .into_iter()
        .filter_map(|p| p.check(line, report))
        .collect();
    record.source_url = first(&["source_url", "url"]).into_iter().next();
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
        let positions = column
            .get("positions")
            .and_then(|&i| row.get(i))
            .map(|cell| split_multi(cell).map(RawPosition::from_text).collect())
            .unwrap_or_default();
        match build(&get, positions, line, dataset, label, &mut report) {
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
        let positions = match lowered.get("positions") {
            Some(serde_json::Value::Array(items)) => {
                items.iter().filter_map(RawPosition::from_json).collect()
            }
            Some(single) => RawPosition::from_json(single).into_iter().collect(),
            None => Vec::new(),
        };
        match build(&get, positions, line, dataset, label, &mut report) {
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

    #[test]
    fn reads_positions_in_csv_and_json_lines() {
        let csv = "id,name,topics,positions,url\n\
                   p1,Jane Doe,pep,Mayor of Springfield|2019-01-01|;Senator|2023|2029-01-03,https://example.org/p1\n";
        let loaded = load_generic_csv(csv.as_bytes(), "peps", None, "t").expect("loads");
        let jane = &loaded.records[0];
        assert_eq!(jane.source_url.as_deref(), Some("https://example.org/p1"));
        assert_eq!(
            jane.positions,
            vec![
                Position {
                    title: "Mayor of Springfield".into(),
                    start_date: Some("2019-01-01".into()),
                    end_date: None
                },
                Position {
                    title: "Senator".into(),
                    start_date: Some("2023".into()),
                    end_date: Some("2029-01-03".into())
                },
            ]
        );
        let jsonl = r#"{"name":"Ivan Petrov","topics":"pep","positions":[{"title":"Governor","startDate":"2001-02","end_date":"2004-06-30"},"Minister||2010"]}"#;
        let loaded = load_generic_jsonl(jsonl.as_bytes(), "peps", None, "t");
        let ivan = &loaded.records[0];
        assert_eq!(ivan.positions[0].start_date.as_deref(), Some("2001-02"));
        assert_eq!(ivan.positions[0].end_date.as_deref(), Some("2004-06-30"));
        assert_eq!(ivan.positions[1].title, "Minister");
        assert_eq!(ivan.positions[1].start_date, None);
        assert_eq!(ivan.positions[1].end_date.as_deref(), Some("2010"));
        assert_eq!(loaded.report.ignored_values, 0);
    }

    /// A PEP file with bad dates loads: each bad date is dropped from its position and
    /// reported with its line, and a position without a title is reported and skipped.
    #[test]
    fn bad_position_dates_are_dropped_and_reported() {
        let jsonl = concat!(
            r#"{"name":"Ivan Petrov","topics":"pep","positions":[{"title":"Governor","start_date":"2001-02-30","end_date":"soon"},{"start_date":"2001"}]}"#,
            "\n",
            r#"{"name":"Anna Petrova","topics":"pep","positions":["Mayor|circa 1990|1995 to 1997"]}"#,
        );
        let loaded = load_generic_jsonl(jsonl.as_bytes(), "peps", None, "t");
        assert_eq!(loaded.records.len(), 2);
        assert_eq!(
            loaded.records[0].positions,
            vec![Position {
                title: "Governor".into(),
                start_date: None,
                end_date: None
            }]
        );
        assert_eq!(loaded.records[1].positions[0].start_date, None);
        assert_eq!(loaded.report.ignored_values, 5);
        let reasons: Vec<(u64, &str)> = loaded
            .report
            .issues
            .iter()
            .map(|i| (i.line, i.reason.as_str()))
            .collect();
        assert_eq!(
            reasons[0],
            (
                1,
                "start date \"2001-02-30\" of position \"Governor\" is not YYYY-MM-DD, YYYY-MM or YYYY"
            )
        );
        assert_eq!(reasons[2], (1, "a position without a title"));
        assert_eq!(reasons[3].0, 2);
    }
}
