//! UN Security Council consolidated list XML (`CONSOLIDATED_LIST`, schema
//! `https://www.un.org/sc/resources/sc-sanctions.xsd`).

use quick_xml::Reader;
use quick_xml::events::Event;

use crate::country::to_alpha2;
use crate::date::BirthDate;
use crate::error::LoadError;
use crate::load::{LoadReport, LoadedList};
use crate::model::{EntityKind, Gender, NameRole, Record, Topic};

/// The parts of an `INDIVIDUAL_DATE_OF_BIRTH` element.
#[derive(Default)]
struct DobParts {
    kind: String,
    date: String,
    year: String,
    from: String,
    to: String,
    note: String,
}

impl DobParts {
    fn resolve(&self) -> Result<Option<BirthDate>, String> {
        let approximate = self.kind.eq_ignore_ascii_case("APPROXIMATELY");
        let parsed = if !self.from.is_empty() || !self.to.is_empty() {
            BirthDate::parse(&format!("{} to {}", self.from, self.to))
        } else if !self.date.is_empty() {
            BirthDate::parse(&self.date)
        } else if !self.year.is_empty() {
            BirthDate::parse(&self.year)
        } else if !self.note.is_empty() {
            match BirthDate::parse(&self.note) {
                Ok(d) => Ok(d),
                Err(_) => return Ok(None),
            }
        } else {
            return Ok(None);
        };
        let date = parsed.map_err(|e| e.to_string())?;
        Ok(Some(match date {
            BirthDate::Range { .. } | BirthDate::Circa { .. } => date,
            other if approximate => BirthDate::Circa {
                year: other.year_span().0,
            },
            other => other,
        }))
    }
}

#[derive(Default)]
struct AliasParts {
    quality: String,
    name: String,
    note: String,
    dob: String,
}

/// Extracts an original-script name from an alias note such as `original script: Абу Банат`
/// or `Previously listed as. In Arabic: ...`.
fn original_script_in_note(note: &str) -> Option<&str> {
    let lower = note.to_lowercase();
    ["original script:", "in arabic:"]
        .iter()
        .find_map(|marker| {
            lower.find(marker).and_then(|at| {
                let start = at + marker.len();
                note.get(start..)
                    .map(str::trim)
                    .filter(|s| !s.is_empty() && !s.is_ascii())
            })
        })
}

struct Builder<'a> {
    dataset: &'a str,
    label: &'a str,
    record: Record,
    name_parts: Vec<String>,
    dob: DobParts,
    alias: AliasParts,
    pob: Vec<String>,
    number: u64,
}

impl<'a> Builder<'a> {
    fn new(dataset: &'a str, label: &'a str) -> Self {
        Self {
            dataset,
            label,
            record: Record::new("", dataset, EntityKind::Person),
            name_parts: Vec::new(),
            dob: DobParts::default(),
            alias: AliasParts::default(),
            pob: Vec::new(),
            number: 0,
        }
    }

    fn start_entry(&mut self, kind: EntityKind) {
        self.number += 1;
        self.record = Record::new("", self.dataset, kind);
        self.record.topics.push(Topic::Sanction);
        self.name_parts = vec![String::new(); 4];
    }

    fn text(&mut self, path: &[String], text: &str, report: &mut LoadReport) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        let Some(leaf) = path.last().map(String::as_str) else {
            return;
        };
        let parent = path
            .len()
            .checked_sub(2)
            .and_then(|i| path.get(i))
            .map_or("", String::as_str);
        match (parent, leaf) {
            ("INDIVIDUAL" | "ENTITY", "DATAID") => self.record.id = text.to_string(),
            ("INDIVIDUAL" | "ENTITY", "FIRST_NAME") => self.name_parts[0] = text.to_string(),
            ("INDIVIDUAL" | "ENTITY", "SECOND_NAME") => self.name_parts[1] = text.to_string(),
            ("INDIVIDUAL" | "ENTITY", "THIRD_NAME") => self.name_parts[2] = text.to_string(),
            ("INDIVIDUAL" | "ENTITY", "FOURTH_NAME") => self.name_parts[3] = text.to_string(),
            ("INDIVIDUAL" | "ENTITY", "UN_LIST_TYPE")
                if !self.record.programs.iter().any(|p| p == text) =>
            {
                self.record.programs.push(text.to_string());
            }
            ("INDIVIDUAL" | "ENTITY", "NAME_ORIGINAL_SCRIPT") => {
                self.record.add_name(text, NameRole::OriginalScript);
            }
            ("INDIVIDUAL", "GENDER") => self.record.gender = Gender::parse(text),
            ("NATIONALITY", "VALUE") => {
                if text.eq_ignore_ascii_case("na") {
                    return;
                }
                match to_alpha2(text) {
                    Some(code) => self.record.add_nationality(&code),
                    None => report.ignored_value(self.number, format!("nationality {text:?}")),
                }
            }
            ("INDIVIDUAL_ALIAS" | "ENTITY_ALIAS", "QUALITY") => {
                self.alias.quality = text.to_string();
            }
            ("INDIVIDUAL_ALIAS" | "ENTITY_ALIAS", "ALIAS_NAME") => {
                self.alias.name = text.to_string();
            }
            ("INDIVIDUAL_ALIAS", "NOTE") => self.alias.note = text.to_string(),
            ("INDIVIDUAL_ALIAS", "DATE_OF_BIRTH") => self.alias.dob = text.to_string(),
            ("INDIVIDUAL_DATE_OF_BIRTH", "TYPE_OF_DATE") => self.dob.kind = text.to_string(),
            ("INDIVIDUAL_DATE_OF_BIRTH", "DATE") => self.dob.date = text.to_string(),
            ("INDIVIDUAL_DATE_OF_BIRTH", "YEAR") => self.dob.year = text.to_string(),
            ("INDIVIDUAL_DATE_OF_BIRTH", "FROM_YEAR") => self.dob.from = text.to_string(),
            ("INDIVIDUAL_DATE_OF_BIRTH", "TO_YEAR") => self.dob.to = text.to_string(),
            ("INDIVIDUAL_DATE_OF_BIRTH", "NOTE") => self.dob.note = text.to_string(),
            ("INDIVIDUAL_PLACE_OF_BIRTH", "CITY" | "STATE_PROVINCE" | "COUNTRY") => {
                self.pob.push(text.to_string());
            }
            ("INDIVIDUAL_ADDRESS" | "ENTITY_ADDRESS", "COUNTRY") => {
                if let Some(code) = to_alpha2(text)
                    && !self.record.address_countries.contains(&code)
                {
                    self.record.address_countries.push(code);
                }
            }
            _ => {}
        }
    }

    fn end(&mut self, name: &str, report: &mut LoadReport, records: &mut Vec<Record>) {
        match name {
            "INDIVIDUAL_DATE_OF_BIRTH" => {
                let dob = std::mem::take(&mut self.dob);
                match dob.resolve() {
                    Ok(Some(d)) => self.record.add_birth_date(d),
                    Ok(None) => {}
                    Err(e) => report.ignored_value(self.number, e),
                }
            }
            "INDIVIDUAL_PLACE_OF_BIRTH" => {
                let pob = std::mem::take(&mut self.pob);
                if !pob.is_empty() {
                    self.record.places_of_birth.push(pob.join(", "));
                }
            }
            "INDIVIDUAL_ALIAS" | "ENTITY_ALIAS" => {
                let alias = std::mem::take(&mut self.alias);
                let role = if alias.quality.eq_ignore_ascii_case("low") {
                    NameRole::WeakAlias
                } else {
                    NameRole::Alias
                };
                self.record.add_name(&alias.name, role);
                if let Some(script) = original_script_in_note(&alias.note) {
                    self.record.add_name(script, NameRole::OriginalScript);
                }
                if !alias.dob.is_empty() {
                    match BirthDate::parse(&alias.dob) {
                        Ok(d) => self.record.add_birth_date(d),
                        Err(e) => report.ignored_value(self.number, e.to_string()),
                    }
                }
            }
            "INDIVIDUAL" | "ENTITY" => {
                report.rows += 1;
                let primary = self
                    .name_parts
                    .iter()
                    .filter(|p| !p.is_empty())
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" ");
                let mut record =
                    std::mem::replace(&mut self.record, Record::new("", "", EntityKind::Unknown));
                if record.id.is_empty() || primary.is_empty() {
                    report.malformed_row(self.number, "entry without DATAID or name");
                    return;
                }
                record.names.insert(
                    0,
                    crate::model::Name::new(
                        primary.split_whitespace().collect::<Vec<_>>().join(" "),
                        NameRole::Primary,
                    ),
                );
                record.source = format!("{}#{}", self.label, record.id);
                records.push(record);
            }
            _ => {}
        }
    }
}

/// Loads a UN consolidated list. Fails only when the document is not well-formed XML; entries
/// without an id or a name are counted as malformed.
pub fn load_un_xml(
    bytes: &[u8],
    dataset: &str,
    fallback_date: Option<String>,
    label: &str,
) -> Result<LoadedList, LoadError> {
    let mut reader = Reader::from_reader(bytes);
    reader.config_mut().trim_text(false);
    let mut path: Vec<String> = Vec::new();
    let mut builder = Builder::new(dataset, label);
    let mut report = LoadReport::default();
    let mut records = Vec::new();
    let mut list_date = None;
    let mut text = String::new();
    let mut saw_root = false;
    let format_error = |reason: String| LoadError::Format {
        path: label.to_string(),
        format: "UN consolidated XML",
        reason,
    };
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format_error(format!("at byte {}: {e}", reader.error_position())))?;
        match event {
            Event::Start(e) => {
                let name = String::from_utf8_lossy(e.local_name().as_ref()).to_string();
                if name == "CONSOLIDATED_LIST" {
                    saw_root = true;
                    if let Ok(Some(attr)) = e.try_get_attribute("dateGenerated") {
                        let value = String::from_utf8_lossy(&attr.value).to_string();
                        list_date = value.get(..10).map(str::to_string);
                    }
                }
                match name.as_str() {
                    "INDIVIDUAL" => builder.start_entry(EntityKind::Person),
                    "ENTITY" => builder.start_entry(EntityKind::Organisation),
                    _ => {}
                }
                path.push(name);
                text.clear();
            }
            Event::Text(t) => {
                if let Ok(decoded) = t.decode() {
                    text.push_str(&decoded);
                }
            }
            Event::GeneralRef(r) => {
                if let Ok(Some(c)) = r.resolve_char_ref() {
                    text.push(c);
                } else if let Ok(name) = r.decode()
                    && let Some(resolved) = quick_xml::escape::resolve_predefined_entity(&name)
                {
                    text.push_str(resolved);
                }
            }
            Event::CData(c) => text.push_str(&String::from_utf8_lossy(&c)),
            Event::End(_) => {
                let current = std::mem::take(&mut text);
                builder.text(&path, &current, &mut report);
                if let Some(name) = path.pop() {
                    builder.end(&name, &mut report, &mut records);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !saw_root {
        return Err(format_error("no CONSOLIDATED_LIST element".to_string()));
    }
    Ok(LoadedList::new(
        dataset,
        &[bytes],
        list_date.or(fallback_date),
        records,
        report,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_small_document() {
        let xml = r#"<?xml version="1.0"?><CONSOLIDATED_LIST dateGenerated="2026-02-27T00:00:09.554Z"><INDIVIDUALS>
        <INDIVIDUAL><DATAID>1</DATAID><FIRST_NAME>ERIC</FIRST_NAME><SECOND_NAME>BADEGE</SECOND_NAME>
        <UN_LIST_TYPE>DRC</UN_LIST_TYPE><GENDER>Male</GENDER>
        <NAME_ORIGINAL_SCRIPT>Эрик</NAME_ORIGINAL_SCRIPT>
        <NATIONALITY><VALUE>Democratic Republic of the Congo</VALUE></NATIONALITY>
        <INDIVIDUAL_ALIAS><QUALITY>Low</QUALITY><ALIAS_NAME>Tom &amp; Jerry</ALIAS_NAME></INDIVIDUAL_ALIAS>
        <INDIVIDUAL_DATE_OF_BIRTH><TYPE_OF_DATE>BETWEEN</TYPE_OF_DATE><FROM_YEAR>1973</FROM_YEAR><TO_YEAR>1974</TO_YEAR></INDIVIDUAL_DATE_OF_BIRTH>
        <INDIVIDUAL_DATE_OF_BIRTH><TYPE_OF_DATE>APPROXIMATELY</TYPE_OF_DATE><YEAR>1970</YEAR></INDIVIDUAL_DATE_OF_BIRTH>
        </INDIVIDUAL><INDIVIDUAL><FIRST_NAME>NO ID</FIRST_NAME></INDIVIDUAL></INDIVIDUALS></CONSOLIDATED_LIST>"#;
        let loaded = load_un_xml(xml.as_bytes(), "un_sc", None, "t").expect("loads");
        assert_eq!(loaded.version.list_date.as_deref(), Some("2026-02-27"));
        assert_eq!(loaded.report.malformed, 1);
        let r = &loaded.records[0];
        assert_eq!(r.display_name(), "ERIC BADEGE");
        assert_eq!(r.nationalities, vec!["CD".to_string()]);
        assert_eq!(
            r.birth_dates,
            vec![
                BirthDate::Range {
                    from: 1973,
                    to: 1974
                },
                BirthDate::Circa { year: 1970 }
            ]
        );
        assert!(
            r.names
                .iter()
                .any(|n| n.full == "Tom & Jerry" && n.role == NameRole::WeakAlias)
        );
        assert!(r.names.iter().any(|n| n.role == NameRole::OriginalScript));
    }

    #[test]
    fn rejects_non_xml() {
        assert!(load_un_xml(b"<a><b></a>", "un_sc", None, "t").is_err());
        assert!(load_un_xml(b"just text", "un_sc", None, "t").is_err());
    }
}
