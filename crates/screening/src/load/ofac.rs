//! OFAC legacy CSV (`sdn.csv` / `cons_prim.csv` with `alt`, `add` and comments files).
//!
//! Main file columns, no header: `ent_num, SDN_Name, SDN_Type, Program, Title, Call_Sign,
//! Vess_type, Tonnage, GRT, Vess_flag, Vess_owner, Remarks`; null is `-0-`. Dates of birth,
//! places of birth, nationality, citizenship, gender and weak a.k.a. names live in the free-text
//! remarks as `;`-separated items, parsed by [`parse_remarks`].

use std::collections::HashMap;

use crate::country::to_alpha2;
use crate::date::BirthDate;
use crate::load::{LoadReport, LoadedList, decode_text};
use crate::model::{EntityKind, Gender, NameRole, Record, Topic};

/// The bytes of one OFAC legacy file set; only `main` is required.
#[derive(Debug, Clone, Copy)]
pub struct OfacFiles<'a> {
    /// `sdn.csv` or `cons_prim.csv`.
    pub main: &'a [u8],
    /// `alt.csv` / `cons_alt.csv`: `ent_num, alt_num, alt_type, alt_name, alt_remarks`.
    pub alt: Option<&'a [u8]>,
    /// `add.csv` / `cons_add.csv`: `ent_num, add_num, address, city, country, add_remarks`.
    pub add: Option<&'a [u8]>,
    /// `sdn_comments.csv` / `cons_comments.csv`: `ent_num, remarks continuation`.
    pub comments: Option<&'a [u8]>,
}

fn field(text: &str) -> Option<&str> {
    let t = text.trim();
    (!t.is_empty() && t != "-0-").then_some(t)
}

fn rows(bytes: &[u8]) -> csv::ByteRecordsIntoIter<&[u8]> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes)
        .into_byte_records()
}

/// True for the trailing `0x1A` (DOS end-of-file) and blank lines.
fn is_filler(record: &csv::ByteRecord) -> bool {
    record
        .iter()
        .all(|f| f.iter().all(|b| *b == 0x1a || b.is_ascii_whitespace()))
}

/// Reads a companion file into `ent_num -> rows`.
fn companion(
    bytes: &[u8],
    min_fields: usize,
    report: &mut LoadReport,
    file: &str,
) -> HashMap<String, Vec<Vec<String>>> {
    let mut out: HashMap<String, Vec<Vec<String>>> = HashMap::new();
    for (i, row) in rows(bytes).enumerate() {
        let line = i as u64 + 1;
        match row {
            Ok(r) if is_filler(&r) => {}
            Ok(r) if r.len() >= min_fields => {
                let fields: Vec<String> = r.iter().map(decode_text).collect();
                out.entry(fields[0].trim().to_string())
                    .or_default()
                    .push(fields);
            }
            Ok(r) => report.malformed_row(line, format!("{file}: {} fields", r.len())),
            Err(e) => report.malformed_row(line, format!("{file}: {e}")),
        }
    }
    out
}

/// What [`parse_remarks`] found in an OFAC remarks field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Remarks {
    /// Dates of birth (`DOB ...` and `alt. DOB ...`).
    pub birth_dates: Vec<BirthDate>,
    /// Date texts that could not be read.
    pub bad_dates: Vec<String>,
    /// Places of birth.
    pub places_of_birth: Vec<String>,
    /// Nationalities and citizenships mapped to ISO alpha-2.
    pub nationalities: Vec<String>,
    /// Nationality texts that could not be mapped.
    pub unknown_countries: Vec<String>,
    /// Gender.
    pub gender: Option<Gender>,
    /// Extra names (`a.k.a. 'X'`, `f.k.a. 'X'`, `n.k.a. 'X'`), weak aliases in OFAC's usage.
    pub aliases: Vec<String>,
}

/// Parses the items of an OFAC remarks field.
pub fn parse_remarks(remarks: &str) -> Remarks {
    let mut out = Remarks::default();
    for raw in remarks.split(';') {
        let item = raw.trim().trim_end_matches('.').trim();
        let item = item.strip_prefix("alt. ").unwrap_or(item).trim();
        if let Some(rest) = item.strip_prefix("DOB ") {
            match BirthDate::parse(rest) {
                Ok(d) => {
                    if !out.birth_dates.contains(&d) {
                        out.birth_dates.push(d);
                    }
                }
                Err(_) => out.bad_dates.push(rest.to_string()),
            }
        } else if let Some(rest) = item.strip_prefix("POB ") {
            out.places_of_birth.push(rest.trim().to_string());
        } else if let Some(rest) = item
            .strip_prefix("nationality ")
            .or_else(|| item.strip_prefix("citizen "))
        {
            let rest = rest.trim_start_matches(':').trim();
            match to_alpha2(rest) {
                Some(code) if !out.nationalities.contains(&code) => out.nationalities.push(code),
                Some(_) => {}
                None => out.unknown_countries.push(rest.to_string()),
            }
        } else if let Some(rest) = item.strip_prefix("Gender ") {
            out.gender = Gender::parse(rest);
        } else if let Some(rest) = ["a.k.a. ", "f.k.a. ", "n.k.a. "]
            .iter()
            .find_map(|p| item.strip_prefix(p))
        {
            let name = rest.trim().trim_matches(|c| c == '\'' || c == '"').trim();
            if !name.is_empty() {
                out.aliases.push(name.to_string());
            }
        }
    }
    out
}

fn kind_of(sdn_type: Option<&str>) -> EntityKind {
    match sdn_type.map(str::to_ascii_lowercase).as_deref() {
        Some("individual") => EntityKind::Person,
        Some("vessel") => EntityKind::Vessel,
        Some("aircraft") => EntityKind::Aircraft,
        _ => EntityKind::Organisation,
    }
}

/// Loads an OFAC legacy file set. Never fails: unreadable rows are counted in the report.
pub fn load_ofac_legacy(
    files: &OfacFiles<'_>,
    dataset: &str,
    list_date: Option<String>,
    label: &str,
) -> LoadedList {
    let mut report = LoadReport::default();
    let comments = files
        .comments
        .map(|b| companion(b, 2, &mut report, "comments"))
        .unwrap_or_default();
    let alts = files
        .alt
        .map(|b| companion(b, 4, &mut report, "alt"))
        .unwrap_or_default();
    let adds = files
        .add
        .map(|b| companion(b, 5, &mut report, "add"))
        .unwrap_or_default();
    let mut records = Vec::new();
    for (i, row) in rows(files.main).enumerate() {
        let line = i as u64 + 1;
        let row = match row {
            Ok(r) if is_filler(&r) => continue,
            Ok(r) => r,
            Err(e) => {
                report.rows += 1;
                report.malformed_row(line, e.to_string());
                continue;
            }
        };
        report.rows += 1;
        if row.len() < 12 {
            report.malformed_row(line, format!("{} fields, expected 12", row.len()));
            continue;
        }
        let fields: Vec<String> = row.iter().map(decode_text).collect();
        let Some(id) = field(&fields[0]) else {
            report.malformed_row(line, "missing ent_num");
            continue;
        };
        let Some(name) = field(&fields[1]) else {
            report.malformed_row(line, "missing name");
            continue;
        };
        let mut record = Record::new(id, dataset, kind_of(field(&fields[2])));
        record.source = format!("{label}:{line}");
        record.topics.push(Topic::Sanction);
        record.add_name(name, NameRole::Primary);
        if let Some(programs) = field(&fields[3]) {
            record.programs = programs
                .split("] [")
                .map(|p| {
                    p.trim_matches(|c| c == '[' || c == ']' || c == ' ')
                        .to_string()
                })
                .filter(|p| !p.is_empty())
                .collect();
        }
        let mut remarks = field(&fields[11]).unwrap_or_default().to_string();
        for continuation in comments.get(id).into_iter().flatten() {
            remarks.push_str(continuation[1].trim_end());
        }
        if let Some(alt_rows) = alts.get(id) {
            for alt in alt_rows {
                if let Some(alias) = field(&alt[3]) {
                    record.add_name(alias, NameRole::Alias);
                }
            }
        }
        let parsed = parse_remarks(&remarks);
        for alias in &parsed.aliases {
            record.add_name(alias, NameRole::WeakAlias);
        }
        for date in parsed.birth_dates {
            record.add_birth_date(date);
        }
        for bad in parsed.bad_dates {
            report.ignored_value(line, format!("date of birth {bad:?}"));
        }
        for code in &parsed.nationalities {
            record.add_nationality(code);
        }
        for unknown in parsed.unknown_countries {
            report.ignored_value(line, format!("country {unknown:?}"));
        }
        record.places_of_birth = parsed.places_of_birth;
        record.gender = parsed.gender;
        if let Some(add_rows) = adds.get(id) {
            for add in add_rows {
                if let Some(code) = field(&add[4]).and_then(to_alpha2)
                    && !record.address_countries.contains(&code)
                {
                    record.address_countries.push(code);
                }
            }
        }
        records.push(record);
    }
    let mut parts: Vec<&[u8]> = vec![files.main];
    parts.extend(files.alt);
    parts.extend(files.add);
    parts.extend(files.comments);
    LoadedList::new(dataset, &parts, list_date, records, report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_remarks_items() {
        let r = parse_remarks(
            "DOB 19 Jun 1951; alt. DOB 1953; DOB circa 1960; DOB 1960 to 1962; POB Giza, Egypt; \
             nationality Egypt; alt. citizen Korea, North; Gender Male; a.k.a. 'ABU JIHAD'; \
             DOB 31 Feb 1970; nationality Atlantis.",
        );
        assert_eq!(
            r.birth_dates,
            vec![
                BirthDate::Exact {
                    year: 1951,
                    month: 6,
                    day: 19
                },
                BirthDate::Year { year: 1953 },
                BirthDate::Circa { year: 1960 },
                BirthDate::Range {
                    from: 1960,
                    to: 1962
                },
            ]
        );
        assert_eq!(r.bad_dates, vec!["31 Feb 1970".to_string()]);
        assert_eq!(r.places_of_birth, vec!["Giza, Egypt".to_string()]);
        assert_eq!(r.nationalities, vec!["EG".to_string(), "KP".to_string()]);
        assert_eq!(r.unknown_countries, vec!["Atlantis".to_string()]);
        assert_eq!(r.gender, Some(Gender::Male));
        assert_eq!(r.aliases, vec!["ABU JIHAD".to_string()]);
    }

    #[test]
    fn counts_malformed_rows_and_keeps_the_rest() {
        let main = b"1,\"DOE, John\",\"individual\",\"SDGT\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,\"DOB 1970; nationality Iran\"\r\n2,\"short row\"\r\n3,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n\x1a";
        let loaded = load_ofac_legacy(
            &OfacFiles {
                main,
                alt: Some(b"1,10,\"aka\",\"DOE, Johnny\",-0- \r\n"),
                add: None,
                comments: None,
            },
            "ofac_sdn",
            None,
            "test",
        );
        assert_eq!(loaded.records.len(), 1);
        assert_eq!(loaded.report.rows, 3);
        assert_eq!(loaded.report.malformed, 2);
        let r = &loaded.records[0];
        assert_eq!(r.names.len(), 2);
        assert_eq!(r.nationalities, vec!["IR".to_string()]);
        assert_eq!(r.kind, EntityKind::Person);
    }
}
