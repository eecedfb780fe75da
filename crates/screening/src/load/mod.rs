//! List loaders: OFAC legacy CSV, UN consolidated XML, UK sanctions CSV, US Consolidated
//! Screening List CSV and a generic CSV / JSON-lines format, all producing [`Record`]s.
//!
//! A loader fails only when the input as a whole is unusable (unreadable, wrong header, not
//! XML). A bad row is skipped, counted in [`LoadReport::malformed`] and described in
//! [`LoadReport::issues`]; the rest of the list loads.

mod csl;
mod generic;
mod ofac;
mod uk;
mod un;

use std::path::{Path, PathBuf};

use serde::Serialize;
use sha2::{Digest, Sha256};

pub use csl::load_us_csl;
pub use generic::{load_generic_csv, load_generic_jsonl};
pub use ofac::{OfacFiles, load_ofac_legacy, parse_remarks};
pub use uk::load_uk_csv;
pub use un::load_un_xml;

use crate::error::LoadError;
use crate::model::{Record, Topic};

/// How many row issues a report keeps verbatim; the count goes on past it.
const MAX_ISSUES: usize = 50;

/// Identifies exactly which content an index was built from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListVersion {
    /// Dataset name (for example `ofac_sdn`).
    pub dataset: String,
    /// SHA-256 of the bytes of every file the list was loaded from, in load order (hex).
    pub content_hash: String,
    /// The date of the list: from the file when it says (UN `dateGenerated`), else from a
    /// `YYYY-MM[-DD]` part of the file or folder name; `None` when neither tells.
    pub list_date: Option<String>,
    /// Number of records loaded.
    pub records: usize,
    /// Why its entries are listed: every topic of its records, sanctions first.
    pub topics: Vec<Topic>,
}

/// One skipped row or ignored value, for the operator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RowIssue {
    /// Line (CSV, JSON lines) or record number (XML) in the source, 1-based.
    pub line: u64,
    /// What was wrong.
    pub reason: String,
}

/// What happened while loading one list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadReport {
    /// Rows or XML records read.
    pub rows: usize,
    /// Rows skipped because they could not be turned into a record.
    pub malformed: usize,
    /// Values that were ignored inside otherwise good rows (an unreadable date of birth, an
    /// unknown country name).
    pub ignored_values: usize,
    /// The first issues, verbatim (at most 50).
    pub issues: Vec<RowIssue>,
}

impl LoadReport {
    /// Counts a CSV row and gives it with its line; a malformed row is recorded and
    /// gives `None`, so that the loader passes over it.
    pub(crate) fn csv_row(
        &mut self,
        row: csv::Result<csv::StringRecord>,
    ) -> Option<(u64, csv::StringRecord)> {
        self.rows += 1;
        match row {
            Ok(row) => Some((row.position().map_or(0, csv::Position::line), row)),
            Err(e) => {
                self.malformed_row(e.position().map_or(0, csv::Position::line), e.to_string());
                None
            }
        }
    }

    pub(crate) fn malformed_row(&mut self, line: u64, reason: impl Into<String>) {
        self.malformed += 1;
        self.note(line, reason);
    }

    pub(crate) fn ignored_value(&mut self, line: u64, reason: impl Into<String>) {
        self.ignored_values += 1;
        self.note(line, reason);
    }

    fn note(&mut self, line: u64, reason: impl Into<String>) {
        if self.issues.len() < MAX_ISSUES {
            self.issues.push(RowIssue {
                line,
                reason: reason.into(),
            });
        }
    }
}

/// A loaded list: its version, its records and the load report.
#[derive(Debug, Clone)]
pub struct LoadedList {
    /// Which content this is.
    pub version: ListVersion,
    /// The entries.
    pub records: Vec<Record>,
    /// Counts of rows read and skipped.
    pub report: LoadReport,
}

impl LoadedList {
    pub(crate) fn new(
        dataset: &str,
        parts: &[&[u8]],
        list_date: Option<String>,
        records: Vec<Record>,
        report: LoadReport,
    ) -> Self {
        let mut hasher = Sha256::new();
        for part in parts {
            hasher.update(part);
        }
        let content_hash = hasher
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        Self {
            version: ListVersion {
                dataset: dataset.to_string(),
                content_hash,
                list_date,
                records: records.len(),
                topics: [Topic::Sanction, Topic::Pep]
                    .into_iter()
                    .filter(|topic| records.iter().any(|r| r.topics.contains(topic)))
                    .collect(),
            },
            records,
            report,
        }
    }
}

/// The list formats this crate reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ListFormat {
    /// OFAC legacy CSV: `sdn.csv` or `cons_prim.csv`, with the `alt`, `add` and comments files
    /// beside it when present.
    OfacLegacy,
    /// UN Security Council consolidated list XML.
    UnXml,
    /// UK FCDO sanctions list CSV (header `Unique ID,OFSI Group ID,Name,...`).
    UkCsv,
    /// US Consolidated Screening List CSV (header `_id,source,entity_number,...`).
    UsCsl,
    /// The generic CSV format (see `docs/screening.md`).
    GenericCsv,
    /// The generic JSON-lines format (see `docs/screening.md`).
    GenericJsonl,
}

fn read(path: &Path) -> Result<Vec<u8>, LoadError> {
    std::fs::read(path).map_err(|error| LoadError::Io {
        path: path.display().to_string(),
        error,
    })
}

fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, LoadError> {
    if path.exists() {
        read(path).map(Some)
    } else {
        Ok(None)
    }
}

/// Finds a `YYYY-MM` or `YYYY-MM-DD` part in the file name, else in its folder names.
pub fn date_from_path(path: &Path) -> Option<String> {
    path.components().rev().find_map(|c| {
        let text = c.as_os_str().to_string_lossy();
        date_in(&text)
    })
}

fn date_in(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let is_digit = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    (0..bytes.len()).find_map(|start| {
        let ym = (start..start + 4).all(is_digit)
            && bytes.get(start + 4) == Some(&b'-')
            && (start + 5..start + 7).all(is_digit)
            && (start == 0 || !is_digit(start - 1));
        if !ym {
            return None;
        }
        let with_day = bytes.get(start + 7) == Some(&b'-')
            && (start + 8..start + 10).all(is_digit)
            && !is_digit(start + 10);
        let end = if with_day { start + 10 } else { start + 7 };
        (with_day || !is_digit(start + 7)).then(|| text[start..end].to_string())
    })
}

/// Guesses the format of a list file from its name and first bytes.
pub fn detect_format(path: &Path) -> Result<ListFormat, LoadError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if name.ends_with(".xml") {
        return Ok(ListFormat::UnXml);
    }
    if name.ends_with(".jsonl") || name.ends_with(".ndjson") {
        return Ok(ListFormat::GenericJsonl);
    }
    if name == "sdn.csv" || name == "cons_prim.csv" {
        return Ok(ListFormat::OfacLegacy);
    }
    let head = read(path)?;
    let first_line = head
        .split(|b| *b == b'\n')
        .next()
        .map(|l| {
            String::from_utf8_lossy(l)
                .trim_start_matches('\u{feff}')
                .to_string()
        })
        .unwrap_or_default();
    if first_line.starts_with("Unique ID,OFSI Group ID") {
        Ok(ListFormat::UkCsv)
    } else if first_line.starts_with("_id,source,entity_number") {
        Ok(ListFormat::UsCsl)
    } else if name.ends_with(".csv") {
        Ok(ListFormat::GenericCsv)
    } else {
        Err(LoadError::UnknownFormat(path.display().to_string()))
    }
}

/// The dataset name a format gets when the caller does not give one.
fn default_dataset(format: ListFormat, path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "list".to_string());
    match format {
        ListFormat::OfacLegacy if stem.starts_with("cons") => "ofac_cons".to_string(),
        ListFormat::OfacLegacy => "ofac_sdn".to_string(),
        ListFormat::UnXml => "un_sc".to_string(),
        ListFormat::UkCsv => "uk_fcdo".to_string(),
        ListFormat::UsCsl => "us_csl".to_string(),
        ListFormat::GenericCsv | ListFormat::GenericJsonl => stem,
    }
}

/// The OFAC legacy companion files, read with their `sdn.csv` or `cons_prim.csv`.
const OFAC_COMPANIONS: &[&str] = &[
    "alt.csv",
    "add.csv",
    "sdn_comments.csv",
    "cons_alt.csv",
    "cons_add.csv",
    "cons_comments.csv",
];

/// The list files a folder stands for: the files directly in it whose name ends in `.csv`,
/// `.xml`, `.jsonl` or `.ndjson`, in name order, but for OFAC companion files (read with
/// their main file) and hidden files. Subfolders are not entered, so that a folder of dated
/// snapshots of one list is not read as several lists.
pub fn list_files(folder: &Path) -> Result<Vec<PathBuf>, LoadError> {
    let io = |error| LoadError::Io {
        path: folder.display().to_string(),
        error,
    };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(folder).map_err(io)? {
        let path = entry.map_err(io)?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        let list_like = [".csv", ".xml", ".jsonl", ".ndjson"]
            .iter()
            .any(|ext| name.ends_with(ext));
        if list_like
            && !name.starts_with('.')
            && !OFAC_COMPANIONS.contains(&name.as_str())
            && path.is_file()
        {
            files.push(path);
        }
    }
    if files.is_empty() {
        return Err(LoadError::EmptyFolder(folder.display().to_string()));
    }
    files.sort();
    Ok(files)
}

/// Loads list files and folders (see [`list_files`]), detecting each file's format: what
/// `rics serve` (`RICS_SCREENING_LISTS`), `rics lists load` and `rics screen` take.
pub fn load_paths(paths: &[PathBuf]) -> Result<Vec<LoadedList>, LoadError> {
    let mut lists = Vec::with_capacity(paths.len());
    for path in paths {
        if path.is_dir() {
            for file in list_files(path)? {
                lists.push(load_path(&file, None)?);
            }
        } else {
            lists.push(load_path(path, None)?);
        }
    }
    Ok(lists)
}

/// Loads a list file, detecting its format; `dataset` overrides the default dataset name.
pub fn load_path(path: &Path, dataset: Option<&str>) -> Result<LoadedList, LoadError> {
    let format = detect_format(path)?;
    load_path_as(path, format, dataset)
}

/// Loads a list file in the given format. For OFAC legacy CSV the companion files are looked up
/// beside `path` (`alt.csv`, `add.csv`, `sdn_comments.csv` for `sdn.csv`; `cons_alt.csv`,
/// `cons_add.csv`, `cons_comments.csv` for `cons_prim.csv`) and used when present.
pub fn load_path_as(
    path: &Path,
    format: ListFormat,
    dataset: Option<&str>,
) -> Result<LoadedList, LoadError> {
    let dataset = dataset.map_or_else(|| default_dataset(format, path), str::to_string);
    let date = date_from_path(path);
    let label = path.display().to_string();
    match format {
        ListFormat::OfacLegacy => {
            let dir = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
            let cons = path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("cons"));
            let (alt, add, comments) = if cons {
                ("cons_alt.csv", "cons_add.csv", "cons_comments.csv")
            } else {
                ("alt.csv", "add.csv", "sdn_comments.csv")
            };
            let main = read(path)?;
            let alt = read_optional(&dir.join(alt))?;
            let add = read_optional(&dir.join(add))?;
            let comments = read_optional(&dir.join(comments))?;
            let files = OfacFiles {
                main: &main,
                alt: alt.as_deref(),
                add: add.as_deref(),
                comments: comments.as_deref(),
            };
            Ok(load_ofac_legacy(&files, &dataset, date, &label))
        }
        ListFormat::UnXml => load_un_xml(&read(path)?, &dataset, date, &label),
        ListFormat::UkCsv => load_uk_csv(&read(path)?, &dataset, date, &label),
        ListFormat::UsCsl => load_us_csl(&read(path)?, &dataset, date, &label),
        ListFormat::GenericCsv => load_generic_csv(&read(path)?, &dataset, date, &label),
        ListFormat::GenericJsonl => Ok(load_generic_jsonl(&read(path)?, &dataset, date, &label)),
    }
}

/// Splits a multi-valued CSV cell (`a; b; c`) into trimmed non-empty values.
pub(crate) fn split_multi(text: &str) -> impl Iterator<Item = &str> {
    text.split(';').map(str::trim).filter(|s| !s.is_empty())
}

/// Decodes bytes as UTF-8, falling back to Latin-1 (the legacy OFAC files are ASCII, but some
/// older exports are Latin-1).
pub(crate) fn decode_text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_dates_in_paths() {
        assert_eq!(
            date_from_path(Path::new("data/lists/ofac_sdn_2024-05/sdn.csv")).as_deref(),
            Some("2024-05")
        );
        assert_eq!(
            date_from_path(Path::new("uk_2025-08/uk_sanctions_list_2025-08-11.csv")).as_deref(),
            Some("2025-08-11")
        );
        assert_eq!(date_from_path(Path::new("lists/sdn.csv")), None);
        assert_eq!(date_in("x12024-05"), None);
    }
}
