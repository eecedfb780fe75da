//! UK FCDO sanctions list CSV (reduced export: names, regime and type; header
//! `Unique ID,OFSI Group ID,Name,Regime Name,Type,Designation source,Date Designated,
//! Sanctions Imposed`).

use crate::error::LoadError;
use crate::load::{LoadReport, LoadedList};
use crate::model::{EntityKind, NameRole, Record, Topic};

const HEADER: [&str; 5] = ["Unique ID", "OFSI Group ID", "Name", "Regime Name", "Type"];

/// Loads a UK sanctions list CSV. Fails when the header is not the UK one; rows without an id
/// or a name are counted as malformed.
pub fn load_uk_csv(
    bytes: &[u8],
    dataset: &str,
    list_date: Option<String>,
    label: &str,
) -> Result<LoadedList, LoadError> {
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(bytes);
    let headers = reader.headers().map_err(|e| LoadError::Format {
        path: label.to_string(),
        format: "UK sanctions CSV",
        reason: e.to_string(),
    })?;
    let header: Vec<&str> = headers
        .iter()
        .map(|h| h.trim_start_matches('\u{feff}'))
        .collect();
    if header.len() < HEADER.len() || header[..HEADER.len()] != HEADER {
        return Err(LoadError::Format {
            path: label.to_string(),
            format: "UK sanctions CSV",
            reason: format!("unexpected header {header:?}"),
        });
    }
    let mut report = LoadReport::default();
    let mut records = Vec::new();
    for row in reader.records() {
        let Some((line, row)) = report.csv_row(row) else {
            continue;
        };
        let id = row.get(0).unwrap_or_default().trim();
        let name = row.get(2).unwrap_or_default().trim();
        if id.is_empty() || name.is_empty() {
            report.malformed_row(line, "missing Unique ID or Name");
            continue;
        }
        let kind = match row.get(4).unwrap_or_default().trim() {
            "Individual" => EntityKind::Person,
            "Entity" => EntityKind::Organisation,
            "Ship" => EntityKind::Vessel,
            _ => EntityKind::Unknown,
        };
        let mut record = Record::new(id, dataset, kind);
        record.add_name(name, NameRole::Primary);
        record.topics.push(Topic::Sanction);
        if let Some(regime) = row.get(3).map(str::trim).filter(|r| !r.is_empty()) {
            record.programs.push(regime.to_string());
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
    fn loads_rows_and_counts_bad_ones() {
        let csv = "Unique ID,OFSI Group ID,Name,Regime Name,Type,Designation source,Date Designated,Sanctions Imposed\n\
                   RUS0001,1,\"Ivan Petrov\",Russia,Individual,UK,01-01-2022,Asset freeze\n\
                   ,2,Nobody,Russia,Individual,UK,01-01-2022,Asset freeze\n";
        let loaded = load_uk_csv(csv.as_bytes(), "uk_fcdo", None, "t").expect("loads");
        assert_eq!(loaded.records.len(), 1);
        assert_eq!(loaded.report.malformed, 1);
        assert_eq!(loaded.records[0].kind, EntityKind::Person);
        assert!(load_uk_csv(b"a,b\n1,2\n", "uk", None, "t").is_err());
    }
}
