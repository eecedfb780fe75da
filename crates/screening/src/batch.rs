//! Batch screening: people in (CSV or JSON lines), one JSON line per person out. The
//! `rics screen` command is a thin wrapper around [`screen_batch`].
//!
//! CSV input has a header; the columns read are `full_name`, `first_name`, `middle_name`,
//! `last_name`, `gender`, `date_of_birth`, `place_of_birth`, `nationality` (any order, others
//! ignored; `full_name` wins over the three name parts). JSON-lines input has one object per
//! line with the same keys. A row that cannot be screened (no name, bad JSON) still produces a
//! line, with an `error` and no matches, so output lines pair with input rows.

use std::io::{BufRead, BufReader, Read, Write};

use serde::Serialize;

use crate::country::to_alpha2;
use crate::date::BirthDate;
use crate::error::BatchError;
use crate::index::{Match, Query, ScreenOptions};
use crate::load::ListVersion;
use crate::matcher::Evidence;
use crate::model::{EntityKind, Gender};
use crate::{Index, SharedIndex};

/// The input format of a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InputFormat {
    /// CSV with a header.
    Csv,
    /// One JSON object per line.
    JsonLines,
}

/// One person of the input, as read.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PersonInput {
    /// Full name, or the name parts joined.
    pub name: String,
    /// Gender as given.
    pub gender: String,
    /// Date of birth as given.
    pub date_of_birth: String,
    /// Place of birth as given.
    pub place_of_birth: String,
    /// Nationality as given.
    pub nationality: String,
}

/// One output line.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PersonResult {
    /// The 1-based row number of the person in the input.
    pub row: u64,
    /// The name screened.
    pub name: String,
    /// Matches at or above the threshold, best first.
    pub matches: Vec<Match>,
    /// Why the row was not (fully) screened: missing name, unreadable date of birth, unknown
    /// nationality. A date or nationality that cannot be read is left out of the evidence.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Totals of a batch.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchSummary {
    /// People read.
    pub screened: u64,
    /// People with at least one match.
    pub with_matches: u64,
    /// Matches written in total.
    pub matches: u64,
    /// Rows that could not be screened (no name, unreadable row).
    pub rejected: u64,
    /// The list versions every person was screened against (one index snapshot).
    pub list_versions: Vec<ListVersion>,
}

/// Turns one input person into a query, collecting warnings for values left out.
pub fn person_query(person: &PersonInput, warnings: &mut Vec<String>) -> Query {
    let birth_date = if person.date_of_birth.trim().is_empty() {
        None
    } else {
        match BirthDate::parse(&person.date_of_birth) {
            Ok(d) => Some(d),
            Err(e) => {
                warnings.push(e.to_string());
                None
            }
        }
    };
    let nationalities = person
        .nationality
        .split(';')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .filter_map(|n| {
            let code = to_alpha2(n);
            if code.is_none() {
                warnings.push(format!("unknown nationality {n:?}"));
            }
            code
        })
        .collect();
    Query {
        name: person.name.clone(),
        kind: EntityKind::Person,
        evidence: Evidence {
            birth_date,
            nationalities,
            gender: Gender::parse(&person.gender),
        },
    }
}

fn full_name(full: &str, parts: [&str; 3]) -> String {
    if full.trim().is_empty() {
        parts
            .iter()
            .map(|p| p.trim())
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    } else {
        full.trim().to_string()
    }
}

/// Screens everyone in `reader` against one snapshot of `index`, writing one JSON line per
/// person to `writer`; `progress` is called after each person with the count so far (for a
/// progress bar). Fails only on I/O errors or a CSV header without a name column.
pub fn screen_batch(
    reader: impl Read,
    format: InputFormat,
    mut writer: impl Write,
    index: &SharedIndex,
    options: &ScreenOptions,
    mut progress: impl FnMut(u64),
) -> Result<BatchSummary, BatchError> {
    let snapshot = index.snapshot();
    let mut summary = BatchSummary {
        list_versions: snapshot.versions().to_vec(),
        ..BatchSummary::default()
    };
    let mut emit = |row: u64, person: Result<PersonInput, String>, summary: &mut BatchSummary| {
        let result = screen_one(&snapshot, row, person, options, summary);
        serde_json::to_writer(&mut writer, &result)?;
        writer.write_all(b"\n")?;
        progress(summary.screened);
        Ok::<(), BatchError>(())
    };
    match format {
        InputFormat::Csv => {
            let mut csv = csv::ReaderBuilder::new().flexible(true).from_reader(reader);
            let headers = csv.headers()?.clone();
            let col = |name: &str| {
                headers.iter().position(|h| {
                    h.trim_start_matches('\u{feff}')
                        .trim()
                        .eq_ignore_ascii_case(name)
                })
            };
            let (full, first, middle, last) = (
                col("full_name").or_else(|| col("name")),
                col("first_name"),
                col("middle_name"),
                col("last_name"),
            );
            if full.is_none() && first.is_none() && last.is_none() {
                return Err(BatchError::MissingNameColumn);
            }
            let (gender, dob, pob, nationality) = (
                col("gender"),
                col("date_of_birth"),
                col("place_of_birth"),
                col("nationality"),
            );
            for (i, row) in csv.records().enumerate() {
                let row_number = i as u64 + 1;
                let person = row.map_err(|e| e.to_string()).map(|r| {
                    let get = |c: Option<usize>| c.and_then(|c| r.get(c)).unwrap_or("").to_string();
                    PersonInput {
                        name: full_name(&get(full), [&get(first), &get(middle), &get(last)]),
                        gender: get(gender),
                        date_of_birth: get(dob),
                        place_of_birth: get(pob),
                        nationality: get(nationality),
                    }
                });
                emit(row_number, person, &mut summary)?;
            }
        }
        InputFormat::JsonLines => {
            let mut row_number = 0;
            for line in BufReader::new(reader).lines() {
                let line = line?;
                if line.trim().is_empty() {
                    continue;
                }
                row_number += 1;
                let person = serde_json::from_str::<serde_json::Value>(&line)
                    .map_err(|e| e.to_string())
                    .and_then(|v| {
                        let get = |k: &str| {
                            v.get(k)
                                .and_then(serde_json::Value::as_str)
                                .unwrap_or("")
                                .to_string()
                        };
                        if v.is_object() {
                            Ok(PersonInput {
                                name: full_name(
                                    &get("full_name"),
                                    [&get("first_name"), &get("middle_name"), &get("last_name")],
                                ),
                                gender: get("gender"),
                                date_of_birth: get("date_of_birth"),
                                place_of_birth: get("place_of_birth"),
                                nationality: get("nationality"),
                            })
                        } else {
                            Err("not a JSON object".to_string())
                        }
                    });
                emit(row_number, person, &mut summary)?;
            }
        }
    }
    writer.flush()?;
    Ok(summary)
}

fn screen_one(
    index: &Index,
    row: u64,
    person: Result<PersonInput, String>,
    options: &ScreenOptions,
    summary: &mut BatchSummary,
) -> PersonResult {
    summary.screened += 1;
    let person = match person {
        Ok(p) if !p.name.trim().is_empty() => p,
        Ok(_) => {
            summary.rejected += 1;
            return PersonResult {
                row,
                name: String::new(),
                matches: Vec::new(),
                warnings: vec!["no name".to_string()],
            };
        }
        Err(e) => {
            summary.rejected += 1;
            return PersonResult {
                row,
                name: String::new(),
                matches: Vec::new(),
                warnings: vec![e],
            };
        }
    };
    let mut warnings = Vec::new();
    let query = person_query(&person, &mut warnings);
    let result = index.screen(&query, options);
    if !result.matches.is_empty() {
        summary.with_matches += 1;
        summary.matches += result.matches.len() as u64;
    }
    PersonResult {
        row,
        name: person.name,
        matches: result.matches,
        warnings,
    }
}
