//! The one record model every loader produces and the matcher reads.

use serde::{Deserialize, Serialize};

use crate::date::BirthDate;

/// What kind of thing a list entry designates.
///
/// Person screening compares people with [`EntityKind::Person`] and [`EntityKind::Unknown`]
/// entries only, so that a customer is never alerted against a ship or a company.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntityKind {
    /// A natural person.
    Person,
    /// A company, group, government body or any other legal entity.
    Organisation,
    /// A ship.
    Vessel,
    /// An aircraft.
    Aircraft,
    /// The list does not say (many US CSL rows have no type).
    Unknown,
}

/// The role a name plays in a record, which decides how much a match on it is worth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NameRole {
    /// The name the list designates the entry under.
    Primary,
    /// A strong alias (a.k.a., f.k.a., UN quality "Good" or "a.k.a.").
    Alias,
    /// A weak alias (UN quality "Low"): a nickname or nom de guerre that many people may share.
    WeakAlias,
    /// The name written in its original, non-Latin script.
    OriginalScript,
}

/// One name of a record with its role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Name {
    /// The name as the list writes it (for OFAC and UN, often `SURNAME, Given`).
    pub full: String,
    /// Primary, alias, weak alias or original script.
    pub role: NameRole,
}

impl Name {
    /// Builds a name from its text and role.
    pub fn new(full: impl Into<String>, role: NameRole) -> Self {
        Self {
            full: full.into(),
            role,
        }
    }
}

/// Gender, when the list or the screened person gives one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gender {
    /// Male.
    Male,
    /// Female.
    Female,
}

impl Gender {
    /// Parses `male`, `m`, `female`, `f` (any case); anything else (`other`, empty) is `None`,
    /// which the matcher treats as unknown, never as a mismatch.
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "male" | "m" | "man" => Some(Self::Male),
            "female" | "f" | "woman" => Some(Self::Female),
            _ => None,
        }
    }
}

/// Why an entry is on a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Topic {
    /// Subject to sanctions (asset freeze, export ban, debarment, ...).
    Sanction,
    /// Politically exposed person.
    Pep,
}

/// A public function a politically exposed person holds or held. Dates are ISO 8601 as the
/// list gives them: `YYYY-MM-DD`, or `YYYY-MM` or `YYYY` when only that is known; an end
/// date in the future is the end of the current term.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Position {
    /// The position as a person reads it ("United States Senator for Ohio").
    pub title: String,
    /// When the person took it up, if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_date: Option<String>,
    /// When the person left it or the term ends, if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_date: Option<String>,
}

/// One list entry, whatever list it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    /// The entry's identifier inside its list (OFAC `ent_num`, UN `DATAID`, UK `Unique ID`, ...).
    pub id: String,
    /// The dataset the entry belongs to (for example `ofac_sdn`, `un_sc`).
    pub dataset: String,
    /// Person, organisation, vessel, aircraft or unknown.
    pub kind: EntityKind,
    /// Every name of the entry; the first primary name is the display name.
    pub names: Vec<Name>,
    /// Dates of birth, exact or partial; several when the list gives alternatives.
    pub birth_dates: Vec<BirthDate>,
    /// Nationalities and citizenships as ISO 3166-1 alpha-2 codes (upper case).
    pub nationalities: Vec<String>,
    /// Places of birth as the list writes them.
    pub places_of_birth: Vec<String>,
    /// Countries of the entry's addresses (ISO alpha-2). Residence is not nationality, so the
    /// matcher does not use them as nationality evidence; they are shown to reviewers.
    pub address_countries: Vec<String>,
    /// Gender when the list gives it.
    pub gender: Option<Gender>,
    /// Sanctions programs or regimes (`SDGT`, `IRAN`, `Russia`, ...).
    pub programs: Vec<String>,
    /// Why the entry is listed.
    pub topics: Vec<Topic>,
    /// Public functions held, for a politically exposed person.
    pub positions: Vec<Position>,
    /// The publisher's page about the entry, when the list gives one.
    pub source_url: Option<String>,
    /// Where the entry came from: file and line, so that a reviewer can find it.
    pub source: String,
}

impl Record {
    /// Creates an empty record of the given identity, to be filled by a loader.
    pub fn new(id: impl Into<String>, dataset: impl Into<String>, kind: EntityKind) -> Self {
        Self {
            id: id.into(),
            dataset: dataset.into(),
            kind,
            names: Vec::new(),
            birth_dates: Vec::new(),
            nationalities: Vec::new(),
            places_of_birth: Vec::new(),
            address_countries: Vec::new(),
            gender: None,
            programs: Vec::new(),
            topics: Vec::new(),
            positions: Vec::new(),
            source_url: None,
            source: String::new(),
        }
    }

    /// The display name: the first primary name, else the first name, else the empty string.
    pub fn display_name(&self) -> &str {
        self.names
            .iter()
            .find(|n| n.role == NameRole::Primary)
            .or_else(|| self.names.first())
            .map_or("", |n| n.full.as_str())
    }

    /// Adds a name unless the record already has the same text (case-insensitive).
    pub fn add_name(&mut self, full: &str, role: NameRole) {
        let full = full.split_whitespace().collect::<Vec<_>>().join(" ");
        if full.is_empty()
            || self
                .names
                .iter()
                .any(|n| n.full.eq_ignore_ascii_case(&full))
        {
            return;
        }
        self.names.push(Name::new(full, role));
    }

    /// Adds an ISO alpha-2 nationality unless already present.
    pub fn add_nationality(&mut self, code: &str) {
        if !self.nationalities.iter().any(|c| c == code) {
            self.nationalities.push(code.to_string());
        }
    }

    /// Adds a date of birth unless already present.
    pub fn add_birth_date(&mut self, date: BirthDate) {
        if !self.birth_dates.contains(&date) {
            self.birth_dates.push(date);
        }
    }
}
