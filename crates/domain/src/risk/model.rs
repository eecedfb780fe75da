//! The risk model (`riskModels/{version}`): a tenant's rules for rating individuals,
//! held as data. A model is immutable once stored; a change is a new version, so every
//! rating names the exact rules that produced it.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::entity::model::{RiskLevel, ScreeningStatus, VerificationStatus};
use crate::error::{Error, Result};
use crate::time::Timestamp;
use crate::validate::Violations;
use crate::values::{CountryCode, PartialDate};

/// The highest score, and the value every model's last threshold must have.
pub const MAX_SCORE: u8 = 100;
/// The longest display name.
pub const MAX_DISPLAY_NAME: usize = 200;
/// The longest description.
pub const MAX_DESCRIPTION: usize = 2000;
/// The most occupation categories, and keywords per category.
pub const MAX_CATEGORIES: usize = 50;
/// See [`MAX_CATEGORIES`].
pub const MAX_KEYWORDS: usize = 100;

/// A stored, versioned risk model.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RiskModel {
    /// `riskModels/{version}`, the version counting 1, 2, ... per tenant. Output only.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Random identifier. Output only.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub uid: String,
    /// A short title, at most 200 characters.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub display_name: String,
    /// What the model is for and where its numbers come from, at most 2000 characters.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The dated country list the country factors score against.
    pub country_risk: CountryRisk,
    /// The factors, each kind at most once, in the order contributions are listed.
    pub factors: Vec<Factor>,
    /// The levels, from the lowest: each covers the scores above the previous
    /// threshold up to its `maxScore`; the last ends at 100.
    pub thresholds: Vec<Threshold>,
    /// When the version was stored. Output only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_time: Option<Timestamp>,
    /// Strong etag. Output only.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub etag: String,
}

/// Scores per country, from a dated published list.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CountryRisk {
    /// Who published the list and what it is.
    pub source: String,
    /// Where the list was published.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source_urls: Vec<String>,
    /// The date the list took effect, `YYYY-MM-DD`.
    pub effective_date: String,
    /// Score (0 to 100) per ISO 3166-1 alpha-2 country code.
    pub scores: BTreeMap<String, u8>,
    /// The score of a country the list does not name.
    pub default_score: u8,
}

/// One factor of a model: what it reads from the evaluation input, its weight (the
/// points it adds at its highest value) and how its value (0 to 100) is found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(
    tag = "factor",
    rename_all = "SCREAMING_SNAKE_CASE",
    deny_unknown_fields
)]
pub enum Factor {
    /// The riskiest of the individual's nationalities, from the country list.
    #[serde(rename_all = "camelCase")]
    Nationality {
        /// Points at value 100.
        weight: u8,
        /// The value when no nationality is known.
        unknown_score: u8,
    },
    /// The country of residence, from the country list.
    #[serde(rename_all = "camelCase")]
    CountryOfResidence {
        /// Points at value 100.
        weight: u8,
        /// The value when the country of residence is not known.
        unknown_score: u8,
    },
    /// The country of birth (`individual.countryOfBirth`), from the country list.
    #[serde(rename_all = "camelCase")]
    PlaceOfBirth {
        /// Points at value 100.
        weight: u8,
        /// The value when the country of birth is not known.
        unknown_score: u8,
    },
    /// The issuing country of the individual's newest live identity document, from the
    /// country list.
    #[serde(rename_all = "camelCase")]
    DocumentIssuingCountry {
        /// Points at value 100.
        weight: u8,
        /// The value when the individual has no live identity document with an issuing
        /// country that is a country.
        unknown_score: u8,
    },
    /// The latest PEP and sanctions screening outcome.
    #[serde(rename_all = "camelCase")]
    ScreeningStatus {
        /// Points at value 100.
        weight: u8,
        /// Value per screening status (`CLEAR`, `POTENTIAL_MATCH`, `CONFIRMED_MATCH`).
        scores: BTreeMap<String, u8>,
        /// The value when the individual was never screened.
        unknown_score: u8,
    },
    /// The identity verification status.
    #[serde(rename_all = "camelCase")]
    VerificationStatus {
        /// Points at value 100.
        weight: u8,
        /// Value per status (`UNVERIFIED`, `PENDING`, `VERIFIED`, `FAILED`).
        scores: BTreeMap<String, u8>,
        /// The value when no status is set.
        unknown_score: u8,
    },
    /// Age in whole years on the evaluation date.
    #[serde(rename_all = "camelCase")]
    Age {
        /// Points at value 100.
        weight: u8,
        /// Age bands from the youngest: the first band whose `below` exceeds the age
        /// applies; the last band has no `below`.
        bands: Vec<AgeBand>,
        /// The value when the date of birth is not known.
        unknown_score: u8,
    },
    /// The occupation, by keyword.
    #[serde(rename_all = "camelCase")]
    Occupation {
        /// Points at value 100.
        weight: u8,
        /// Categories; the highest-scoring category with a keyword in the occupation
        /// applies.
        categories: Vec<OccupationCategory>,
        /// The value of an occupation no category names.
        other_score: u8,
        /// The value when no occupation is given.
        unknown_score: u8,
    },
    /// The riskiest entity the individual is related to.
    #[serde(rename_all = "camelCase")]
    RelatedEntityRisk {
        /// Points at value 100.
        weight: u8,
        /// Value per related entity's risk level (`LOW`, `MEDIUM`, `HIGH`).
        risk_level_scores: BTreeMap<String, u8>,
        /// The value of a related entity whose screening found a match.
        screening_match_score: u8,
        /// The value when the individual has no related entity.
        unknown_score: u8,
    },
}

/// An age band of the [`Factor::Age`] factor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgeBand {
    /// Ages below this (in whole years) fall in the band; absent on the last band.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub below: Option<u8>,
    /// The value of the band.
    pub score: u8,
}

/// A category of the [`Factor::Occupation`] factor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OccupationCategory {
    /// What the category is, for explanations.
    pub label: String,
    /// Words or phrases (compared without case, on word boundaries).
    pub keywords: Vec<String>,
    /// The value of the category.
    pub score: u8,
}

/// The upper end of a risk level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Threshold {
    /// The level.
    pub risk_level: RiskLevel,
    /// The highest score of the level. When no threshold of a model gives one, the
    /// defaults for its number of levels apply ([`DEFAULT_MAX_SCORES`]).
    #[serde(default)]
    pub max_score: u8,
    /// What the tenant calls the level ("Standard", "Prohibited"), free text shown
    /// beside it; none by default.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub label: String,
}

/// The levels a model may have, from the lowest: three, or five.
pub const LEVEL_SETS: [&[RiskLevel]; 2] = [
    &[RiskLevel::Low, RiskLevel::Medium, RiskLevel::High],
    &[
        RiskLevel::Low,
        RiskLevel::Medium,
        RiskLevel::High,
        RiskLevel::Critical,
        RiskLevel::Extreme,
    ],
];

/// The `maxScore`s of a model whose thresholds give none, by its number of levels:
/// three as the default model has them, five evenly.
pub const DEFAULT_MAX_SCORES: [&[u8]; 2] = [&[33, 66, 100], &[20, 40, 60, 80, 100]];

/// The most characters of a threshold's label.
pub const MAX_LABEL: usize = 100;

impl Factor {
    /// The factor's name as the API writes it.
    pub fn name(&self) -> &'static str {
        match self {
            Factor::Nationality { .. } => "NATIONALITY",
            Factor::CountryOfResidence { .. } => "COUNTRY_OF_RESIDENCE",
            Factor::PlaceOfBirth { .. } => "PLACE_OF_BIRTH",
            Factor::DocumentIssuingCountry { .. } => "DOCUMENT_ISSUING_COUNTRY",
            Factor::ScreeningStatus { .. } => "SCREENING_STATUS",
            Factor::VerificationStatus { .. } => "VERIFICATION_STATUS",
            Factor::Age { .. } => "AGE",
            Factor::Occupation { .. } => "OCCUPATION",
            Factor::RelatedEntityRisk { .. } => "RELATED_ENTITY_RISK",
        }
    }

    /// The points the factor adds at its highest value.
    pub fn weight(&self) -> u8 {
        match self {
            Factor::Nationality { weight, .. }
            | Factor::CountryOfResidence { weight, .. }
            | Factor::PlaceOfBirth { weight, .. }
            | Factor::DocumentIssuingCountry { weight, .. }
            | Factor::ScreeningStatus { weight, .. }
            | Factor::VerificationStatus { weight, .. }
            | Factor::Age { weight, .. }
            | Factor::Occupation { weight, .. }
            | Factor::RelatedEntityRisk { weight, .. } => *weight,
        }
    }
}

impl RiskModel {
    /// The collection id.
    pub const COLLECTION: &'static str = "riskModels";

    /// `riskModels/{version}`.
    pub fn name_of(version: i64) -> String {
        format!("{}/{version}", Self::COLLECTION)
    }

    /// The version, from the name.
    pub fn version(&self) -> Option<i64> {
        self.name
            .strip_prefix("riskModels/")
            .and_then(|v| v.parse().ok())
    }

    /// The level of `score`: the first threshold at or above it.
    pub fn level_of(&self, score: u8) -> RiskLevel {
        self.thresholds
            .iter()
            .find(|t| score <= t.max_score)
            .map_or(RiskLevel::High, |t| t.risk_level)
    }

    /// Checks the rules a model must follow (field paths under `riskModel.`) and puts
    /// keywords and country codes in their stored form.
    ///
    /// # Errors
    /// INVALID_ARGUMENT naming every faulty field: thresholds that do not rise to
    /// exactly 100 or repeat or misorder a level, a factor kind given twice, no factor
    /// with weight, a weight or score above 100, unknown statuses or country codes, age
    /// bands that do not rise or end without an open band, empty categories.
    pub fn check(&mut self) -> Result<()> {
        self.fill_default_max_scores();
        let mut v = Violations::new();
        if self.display_name.chars().count() > MAX_DISPLAY_NAME {
            v.add(
                "riskModel.displayName",
                "TOO_LONG",
                format!("at most {MAX_DISPLAY_NAME} characters"),
            );
        }
        if self.description.chars().count() > MAX_DESCRIPTION {
            v.add(
                "riskModel.description",
                "TOO_LONG",
                format!("at most {MAX_DESCRIPTION} characters"),
            );
        }
        self.check_country_risk(&mut v);
        self.check_factors(&mut v);
        self.check_thresholds(&mut v);
        v.finish()
    }

    fn check_country_risk(&mut self, v: &mut Violations) {
        let list = &mut self.country_risk;
        if list.source.trim().is_empty() {
            v.add(
                "riskModel.countryRisk.source",
                "REQUIRED",
                "name who published the country list",
            );
        }
        if !is_full_date(&list.effective_date) {
            v.add(
                "riskModel.countryRisk.effectiveDate",
                "INVALID_DATE",
                format!("'{}' is not a date (YYYY-MM-DD)", list.effective_date),
            );
        }
        score_in_range(v, "riskModel.countryRisk.defaultScore", list.default_score);
        let mut normalised = BTreeMap::new();
        for (code, score) in &list.scores {
            let path = format!("riskModel.countryRisk.scores.{code}");
            match CountryCode::parse(code) {
                Ok(country) => {
                    score_in_range(v, &path, *score);
                    if normalised
                        .insert(country.as_str().to_owned(), *score)
                        .is_some()
                    {
                        v.add(path, "DUPLICATE_COUNTRY", "the country is scored twice");
                    }
                }
                Err(message) => v.add(path, "INVALID_COUNTRY", message),
            }
        }
        list.scores = normalised;
    }

    fn check_factors(&mut self, v: &mut Violations) {
        if self.factors.iter().all(|f| f.weight() == 0) {
            v.add(
                "riskModel.factors",
                "NO_WEIGHT",
                "at least one factor must have a weight above 0",
            );
        }
        let mut kinds = BTreeSet::new();
        for (i, factor) in self.factors.iter_mut().enumerate() {
            let path = format!("riskModel.factors[{i}]");
            if !kinds.insert(factor.name()) {
                v.add(
                    &path,
                    "DUPLICATE_FACTOR",
                    format!("{} is given twice", factor.name()),
                );
            }
            score_in_range(v, &format!("{path}.weight"), factor.weight());
            check_factor(v, &path, factor);
        }
    }

    /// Gives the thresholds the default `maxScore`s for their number of levels when
    /// none of them has one (each is 0, which no rising set of thresholds has).
    fn fill_default_max_scores(&mut self) {
        if self.thresholds.iter().any(|t| t.max_score != 0) {
            return;
        }
        if let Some(scores) = DEFAULT_MAX_SCORES
            .iter()
            .find(|scores| scores.len() == self.thresholds.len())
        {
            for (threshold, score) in self.thresholds.iter_mut().zip(scores.iter()) {
                threshold.max_score = *score;
            }
        }
    }

    fn check_thresholds(&self, v: &mut Violations) {
        let path = "riskModel.thresholds";
        if self.thresholds.is_empty() {
            v.add(
                path,
                "REQUIRED",
                "three or five thresholds, the last at 100",
            );
            return;
        }
        let levels: Vec<RiskLevel> = self.thresholds.iter().map(|t| t.risk_level).collect();
        if !LEVEL_SETS.contains(&levels.as_slice()) {
            v.add(
                path,
                "LEVELS_MUST_BE_3_OR_5",
                "the levels are LOW, MEDIUM and HIGH, or those and CRITICAL and EXTREME, in that order",
            );
            if self.thresholds.iter().all(|t| t.max_score == 0) {
                // Scores left to the defaults, which exist only for a valid set.
                return;
            }
        }
        let mut previous: Option<&Threshold> = None;
        for (i, threshold) in self.thresholds.iter().enumerate() {
            let at = format!("{path}[{i}]");
            if threshold.risk_level.is_unspecified() {
                v.add(
                    format!("{at}.riskLevel"),
                    "REQUIRED",
                    "LOW, MEDIUM, HIGH, CRITICAL or EXTREME",
                );
            }
            if threshold.label.chars().count() > MAX_LABEL {
                v.add(
                    format!("{at}.label"),
                    "TOO_LONG",
                    format!("at most {MAX_LABEL} characters"),
                );
            } else if threshold.label.chars().any(char::is_control) {
                v.add(
                    format!("{at}.label"),
                    "CONTROL_CHARACTER",
                    "one line of text without control characters",
                );
            }
            if let Some(before) = previous {
                if threshold.max_score <= before.max_score {
                    v.add(
                        format!("{at}.maxScore"),
                        "THRESHOLDS_NOT_RISING",
                        format!(
                            "must be above the previous threshold ({})",
                            before.max_score
                        ),
                    );
                }
                if threshold.risk_level.rank() <= before.risk_level.rank() {
                    v.add(
                        format!("{at}.riskLevel"),
                        "LEVELS_NOT_RISING",
                        "levels go from the lowest to the highest, each once",
                    );
                }
            }
            previous = Some(threshold);
        }
        if let Some(last) = self.thresholds.last()
            && last.max_score != MAX_SCORE
        {
            v.add(
                format!("{path}[{}].maxScore", self.thresholds.len() - 1),
                "THRESHOLDS_MUST_END_AT_100",
                format!(
                    "the last threshold must be 100 so that every score has a level (found {})",
                    last.max_score
                ),
            );
        }
    }
}

fn check_factor(v: &mut Violations, path: &str, factor: &mut Factor) {
    match factor {
        Factor::Nationality { unknown_score, .. }
        | Factor::CountryOfResidence { unknown_score, .. }
        | Factor::PlaceOfBirth { unknown_score, .. }
        | Factor::DocumentIssuingCountry { unknown_score, .. } => {
            score_in_range(v, &format!("{path}.unknownScore"), *unknown_score);
        }
        Factor::ScreeningStatus {
            scores,
            unknown_score,
            ..
        } => {
            score_in_range(v, &format!("{path}.unknownScore"), *unknown_score);
            check_scores(v, path, "scores", scores, ScreeningStatus::VALUES);
        }
        Factor::VerificationStatus {
            scores,
            unknown_score,
            ..
        } => {
            score_in_range(v, &format!("{path}.unknownScore"), *unknown_score);
            check_scores(v, path, "scores", scores, VerificationStatus::VALUES);
        }
        Factor::Age {
            bands,
            unknown_score,
            ..
        } => {
            score_in_range(v, &format!("{path}.unknownScore"), *unknown_score);
            check_bands(v, path, bands);
        }
        Factor::Occupation {
            categories,
            other_score,
            unknown_score,
            ..
        } => {
            score_in_range(v, &format!("{path}.unknownScore"), *unknown_score);
            score_in_range(v, &format!("{path}.otherScore"), *other_score);
            check_categories(v, path, categories);
        }
        Factor::RelatedEntityRisk {
            risk_level_scores,
            screening_match_score,
            unknown_score,
            ..
        } => {
            score_in_range(v, &format!("{path}.unknownScore"), *unknown_score);
            score_in_range(
                v,
                &format!("{path}.screeningMatchScore"),
                *screening_match_score,
            );
            check_scores(
                v,
                path,
                "riskLevelScores",
                risk_level_scores,
                RiskLevel::VALUES,
            );
        }
    }
}

/// Scores keyed by the values of an enum (its first value, the unspecified one, is
/// not a key).
fn check_scores(
    v: &mut Violations,
    path: &str,
    field: &str,
    scores: &BTreeMap<String, u8>,
    values: &[&str],
) {
    for (key, score) in scores {
        let at = format!("{path}.{field}.{key}");
        if values.iter().skip(1).any(|value| value == key) {
            score_in_range(v, &at, *score);
        } else {
            v.add(
                at,
                "UNKNOWN_VALUE",
                format!("'{key}' is not one of {}", values[1..].join(", ")),
            );
        }
    }
}

fn check_bands(v: &mut Violations, path: &str, bands: &[AgeBand]) {
    if bands.is_empty() {
        v.add(
            format!("{path}.bands"),
            "REQUIRED",
            "at least one band, the last without `below`",
        );
        return;
    }
    let mut previous = 0;
    for (i, band) in bands.iter().enumerate() {
        let at = format!("{path}.bands[{i}]");
        score_in_range(v, &format!("{at}.score"), band.score);
        let last = i + 1 == bands.len();
        match (band.below, last) {
            (None, true) => {}
            (None, false) => v.add(
                format!("{at}.below"),
                "REQUIRED",
                "only the last band is open-ended",
            ),
            (Some(_), true) => v.add(
                format!("{at}.below"),
                "LAST_BAND_BOUNDED",
                "the last band has no `below`, so that every age falls in a band",
            ),
            (Some(below), false) => {
                if below <= previous {
                    v.add(
                        format!("{at}.below"),
                        "BANDS_NOT_RISING",
                        format!("must be above the previous band's {previous}"),
                    );
                }
                previous = below;
            }
        }
    }
}

fn check_categories(v: &mut Violations, path: &str, categories: &mut [OccupationCategory]) {
    if categories.len() > MAX_CATEGORIES {
        v.add(
            format!("{path}.categories"),
            "TOO_MANY",
            format!("at most {MAX_CATEGORIES} categories"),
        );
    }
    for (i, category) in categories.iter_mut().enumerate() {
        let at = format!("{path}.categories[{i}]");
        score_in_range(v, &format!("{at}.score"), category.score);
        if category.label.trim().is_empty() {
            v.add(format!("{at}.label"), "REQUIRED", "name the category");
        }
        if category.keywords.is_empty() || category.keywords.len() > MAX_KEYWORDS {
            v.add(
                format!("{at}.keywords"),
                "INVALID_KEYWORDS",
                format!("1 to {MAX_KEYWORDS} keywords"),
            );
        }
        for (k, keyword) in category.keywords.iter_mut().enumerate() {
            let words = super::rating::words(keyword);
            if words.is_empty() {
                v.add(
                    format!("{at}.keywords[{k}]"),
                    "BLANK_KEYWORD",
                    "a keyword needs a letter or digit",
                );
            }
            *keyword = words.join(" ");
        }
    }
}

fn score_in_range(v: &mut Violations, path: &str, score: u8) {
    if score > MAX_SCORE {
        v.add(
            path,
            "OUT_OF_RANGE",
            format!("must be 0 to {MAX_SCORE} (found {score})"),
        );
    }
}

/// Whether `text` is a full `YYYY-MM-DD` date.
fn is_full_date(text: &str) -> bool {
    PartialDate::parse(text).is_ok_and(|d| d.day.is_some())
}

/// The rule of [`parse_version`] for a bare version as an ECMA-262 regular expression,
/// for JSON Schema: a positive integer without sign or leading zero, short enough to
/// be an `i64`.
pub const VERSION_PATTERN: &str = "^[1-9][0-9]{0,17}$";

/// A model version's name checked: `riskModels/{version}` or the bare version.
///
/// # Errors
/// INVALID_ARGUMENT on `field` when it is neither.
pub fn parse_version(field: &str, text: &str) -> Result<i64> {
    let bare = text.strip_prefix("riskModels/").unwrap_or(text);
    match bare.parse::<i64>() {
        Ok(version) if version >= 1 && !bare.starts_with('+') && !bare.starts_with('0') => {
            Ok(version)
        }
        _ => Err(Error::invalid_field(
            field,
            "INVALID_MODEL_VERSION",
            format!("'{text}' is not a risk model version (riskModels/1, riskModels/2, ...)"),
        )),
    }
}
