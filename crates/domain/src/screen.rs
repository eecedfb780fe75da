//! The screening port: how a job asks the loaded sanctions and PEP lists about a
//! party. The adapter runs the matcher of the screening engine on one snapshot of the
//! lists, so a result names exactly the list versions it was computed from.

use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Result;
use crate::monitoring::{DatasetVersion, MonitoredParty};
use crate::time::Timestamp;

/// Who to screen, and against what.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScreenRequest {
    /// Every name of the party (display name, legal name, other names).
    pub names: Vec<String>,
    /// Whether the party is an organisation (compared with organisations only).
    pub organisation: bool,
    /// Date of birth, `YYYY`, `YYYY-MM` or `YYYY-MM-DD`.
    pub date_of_birth: Option<String>,
    /// Nationalities, ISO 3166-1 alpha-2.
    pub nationalities: Vec<String>,
    /// `MALE` or `FEMALE`, when known.
    pub gender: Option<String>,
    /// The datasets to screen against; empty for every loaded one.
    pub datasets: Vec<String>,
    /// Matches scoring below this (0 to 1) are left out.
    pub threshold: f64,
}

crate::proto_enum! {
    /// Why a matched entry is listed, for sorting the work of review: a record that is
    /// both sanctioned and politically exposed counts as SANCTIONS.
    pub enum MatchCategory("MATCH_CATEGORY_UNSPECIFIED") {
        /// A politically exposed person.
        Pep = "PEP",
        /// A sanctioned party.
        Sanctions = "SANCTIONS",
    }
}

/// A public function a politically exposed person holds or held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ListedPosition {
    /// The position ("United States Senator for Ohio").
    pub title: String,
    /// When it was taken up: `YYYY-MM-DD`, `YYYY-MM` or `YYYY`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_date: Option<String>,
    /// When it ended or the current term ends, in the same form.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_date: Option<String>,
}

/// The list entry a match is about, as the list gives it, so that a reviewer decides
/// without opening the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ListedRecord {
    /// The dataset, such as `ofac_sdn` or `us_congress_pep`.
    pub dataset: String,
    /// The entry's id in its list.
    pub id: String,
    /// Every name of the entry, the primary name first.
    pub names: Vec<String>,
    /// Dates of birth as listed (`YYYY-MM-DD`, `YYYY-MM`, `YYYY`, `circa YYYY`, ranges).
    pub dates_of_birth: Vec<String>,
    /// Nationalities, ISO 3166-1 alpha-2.
    pub nationalities: Vec<String>,
    /// Sanctions programs or regimes.
    pub programs: Vec<String>,
    /// Public functions, for a politically exposed person.
    pub positions: Vec<ListedPosition>,
    /// The publisher's page about the entry, when the list gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_url: Option<String>,
}

crate::proto_enum! {
    /// What an analyst decided a match is.
    pub enum MatchDecision("MATCH_DECISION_UNSPECIFIED") {
        /// The party is the listed one.
        TruePositive = "TRUE_POSITIVE",
        /// The party is someone else.
        FalsePositive = "FALSE_POSITIVE",
    }
}

/// An analyst's decision on a match (`:reviewMatch`); a later review replaces it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MatchReview {
    /// The decision.
    pub decision: MatchDecision,
    /// Why, for the record.
    pub reason: String,
    /// Who decided (the caller's subject).
    pub reviewer: String,
    /// When.
    pub review_time: Timestamp,
}

/// One list entry that matched.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ScreenMatch {
    /// The match's id within its result ([`ScreenMatch::id_for`]), which
    /// `:reviewMatch` names.
    pub id: String,
    /// The entry's id in its list.
    pub list_entry: String,
    /// Its dataset.
    pub dataset: String,
    /// The listed name that matched best.
    pub matched_name: String,
    /// The party's name it matched.
    pub screened_name: String,
    /// Score in [0, 1].
    pub score: f64,
    /// PEP or SANCTIONS.
    pub category: MatchCategory,
    /// The entry as listed.
    pub record: ListedRecord,
    /// Why it matched: the per-feature contributions (name, date of birth,
    /// nationality) as the engine explains them.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub explanation: Value,
    /// The analyst's decision, once reviewed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review: Option<MatchReview>,
    /// Whether an analyst dismissed this entry, as it is listed now, for this entity
    /// before (the dismissal memory): such a match raises no alert.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub previously_dismissed: bool,
}

impl ScreenMatch {
    /// The id of the match with the entry `list_entry` of `dataset`: unique within a
    /// result (a result holds each entry once) and the same in every result.
    pub fn id_for(dataset: &str, list_entry: &str) -> String {
        format!("{dataset}:{list_entry}")
    }
}

/// A dataset as it was when screened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ListVersionInfo {
    /// The dataset name, such as `ofac_sdn`.
    pub dataset: String,
    /// SHA-256 of the files it was loaded from.
    pub content_hash: String,
    /// The date of the list, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_date: Option<String>,
    /// How many records it holds.
    pub records: u64,
    /// Why its entries are listed: `sanction`, `pep` or both.
    pub topics: Vec<String>,
}

/// The last load of the lists, when it failed (a reload from files that do not load):
/// the lists loaded before stay in use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ListLoadFailure {
    /// What failed, naming the file.
    pub message: String,
    /// When.
    pub failure_time: Timestamp,
}

/// What a screen found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScreenOutcome {
    /// The matches at or above the threshold, best first, one per list entry.
    pub matches: Vec<ScreenMatch>,
    /// The versions of the datasets screened against.
    pub list_versions: Vec<ListVersionInfo>,
}

/// Screens parties against the loaded lists.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait Screener: Send + Sync {
    /// The loaded datasets, with their versions.
    ///
    /// # Errors
    /// UNAVAILABLE when the lists cannot be loaded.
    async fn lists(&self) -> Result<Vec<ListVersionInfo>>;

    /// Screens one party.
    ///
    /// # Errors
    /// UNAVAILABLE when the lists cannot be loaded.
    async fn screen(&self, request: &ScreenRequest) -> Result<ScreenOutcome>;

    /// Loads the lists again from their sources and swaps them in at once; screens
    /// already running finish on the lists they started with. Returns the new versions.
    ///
    /// # Errors
    /// UNAVAILABLE when a list cannot be loaded (the lists in use stay).
    async fn reload(&self) -> Result<Vec<ListVersionInfo>>;

    /// The failure of the latest load, unless a load succeeded since.
    fn load_failure(&self) -> Option<ListLoadFailure>;

    /// The loaded datasets with the hash of each record's content (the hash of the
    /// record as a match's `record` shows it), for ongoing monitoring to compute what
    /// a new version changed.
    ///
    /// # Errors
    /// UNAVAILABLE when the lists cannot be loaded.
    async fn datasets(&self) -> Result<Vec<DatasetVersion>>;

    /// The records `records` of `dataset` as loaded now (the added and changed records
    /// of a list change), as a part of the lists that screens parties as the whole
    /// lists would (see [`ScreenPart`]). Records not loaded (any more) are left out.
    ///
    /// # Errors
    /// UNAVAILABLE when the lists cannot be loaded; INTERNAL when preparing the part
    /// stops.
    async fn part(&self, dataset: &str, records: &[String]) -> Result<Arc<dyn ScreenPart>>;
}

/// A part of the loaded lists ([`Screener::part`]) that monitored parties are screened
/// against: the records' names keep the weights and lookups of the whole lists, so a
/// party matches a record of the part iff a screen against the whole lists would
/// give it a match with that record (up to a screen's limits: the most candidate names
/// and matches it keeps, which can only let the part name more).
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait ScreenPart: Send + Sync {
    /// The ids of the `parties` with at least one match in the part, each screened as
    /// its screening job screens it (its request's names, kind, evidence and
    /// threshold), in the order given. Runs on every core, off the async runtime.
    ///
    /// # Errors
    /// INTERNAL when the screening stops (a panic); it fails in no other way.
    async fn matching(&self, parties: Vec<MonitoredParty>) -> Result<Vec<String>>;
}

/// Compares person names as the screening engine does (normalisation,
/// transliteration, order-tolerant token alignment), outside any list: identity checks
/// compare the name on a document with the name of the person it is about.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
pub trait NameMatcher: Send + Sync {
    /// The similarity of two person names, 0 (nothing alike) to 1 (the same name).
    fn similarity(&self, a: &str, b: &str) -> f64;
}
