//! US Consolidated Screening List CSV (trade.gov): header `_id,source,entity_number,type,
//! programs,name,...,alt_names,citizenships,dates_of_birth,nationalities,places_of_birth,...`,
//! multi-valued cells separated by `;`.

use std::collections::HashMap;

use crate::country::to_alpha2;
use crate::date::BirthDate;
use crate::error::LoadError;
use crate::load::{LoadReport, LoadedList, split_multi};
use crate::model::{EntityKind, Gender, NameRole, Record, Topic};

/// Loads a US CSL CSV. Fails when the `_id`, `source` or `name` column is missing; a repeated
/// header line and rows without a name are counted as malformed.
pub fn load_us_csl(
    bytes: &[u8],
    dataset: &str,
    list_date: Option<String>,
    label: &str,
) -> Result<LoadedList, LoadError> {
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(bytes);
    let headers = reader
        .headers()
        .map_err(|e| LoadError::Format {
            path: label.to_string(),
            format: "US CSL CSV",
            reason: e.to_string(),
        })?
        .clone();
    let column: HashMap<&str, usize> = headers
        .iter()
        .enumerate()
        .map(|(i, h)| (h.trim_start_matches('\u{feff}'), i))
        .collect();
    for required in ["_id", "source", "name"] {
        if !column.contains_key(required) {
            return Err(LoadError::Format {
                path: label.to_string(),
                format: "US CSL CSV",
                reason: format!("no {required} column"),
            });
        }
    }
    let mut report = LoadReport::default();
    let mut records = Vec::new();
    for row in reader.records() {
        let Some((line, row)) = report.csv_row(row) else {
            continue;
        };
        let get = |name: &str| {
            column
                .get(name)
                .and_then(|&i| row.get(i))
                .map_or("", str::trim)
        };
        if get("_id") == "_id" {
            report.malformed_row(line, "repeated header line");
            continue;
        }
        let name = get("name");
        if name.is_empty() || get("_id").is_empty() {
            report.malformed_row(line, "missing _id or name");
            continue;
        }
        let kind = match get("type") {
            "Individual" => EntityKind::Person,
            "Entity" => EntityKind::Organisation,
            "Vessel" => EntityKind::Vessel,
            "Aircraft" => EntityKind::Aircraft,
            _ => EntityKind::Unknown,
        };
        let mut record = Record::new(get("_id"), dataset, kind);
        record.topics.push(Topic::Sanction);
        record.add_name(name, NameRole::Primary);
        for alias in split_multi(get("alt_names")) {
            record.add_name(alias, NameRole::Alias);
        }
        record.programs = split_multi(get("programs")).map(str::to_string).collect();
        let source = get("source");
        if let Some(short) = source.split(" - ").next().filter(|s| !s.is_empty()) {
            record.programs.push(short.to_string());
        }
        for text in split_multi(get("dates_of_birth")) {
            match BirthDate::parse(text) {
                Ok(d) => record.add_birth_date(d),
                Err(e) => report.ignored_value(line, e.to_string()),
            }
        }
        for text in split_multi(get("nationalities")).chain(split_multi(get("citizenships"))) {
            match to_alpha2(text) {
                Some(code) => record.add_nationality(&code),
                None => report.ignored_value(line, format!("country {text:?}")),
            }
        }
        record.places_of_birth = split_multi(get("places_of_birth"))
            .map(str::to_string)
            .collect();
        for id in split_multi(get("ids")) {
            if let Some(g) = id.strip_prefix("Gender, ") {
                record.gender = Gender::parse(g);
            }
        }
        record.source = format!("{label}:{line}");
        records.push(record);
    }
    Ok(LoadedList::new(
        dataset,
        &[bytes],
        list_date,
        records,
        report,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_multi_values() {
        let csv = "_id,source,entity_number,type,programs,name,alt_names,citizenships,dates_of_birth,nationalities,places_of_birth,ids\n\
                   _id,source,entity_number,type,programs,name,alt_names,citizenships,dates_of_birth,nationalities,places_of_birth,ids\n\
                   26182,Foreign Sanctions Evaders (FSE) - Treasury Department,26182,Individual,FSE-IR,Evren KAYAKIRAN,E. KAYAKIRAN,TR,1980-02-08; circa 1979,,,\"Passport, U1, TR; Gender, Male\"\n";
        let loaded = load_us_csl(csv.as_bytes(), "us_csl", None, "t").expect("loads");
        assert_eq!(loaded.report.malformed, 1);
        let r = &loaded.records[0];
        assert_eq!(r.names.len(), 2);
        assert_eq!(r.birth_dates.len(), 2);
        assert_eq!(r.nationalities, vec!["TR".to_string()]);
        assert_eq!(r.gender, Some(Gender::Male));
        assert!(
            r.programs
                .contains(&"Foreign Sanctions Evaders (FSE)".to_string())
        );
    }
}
