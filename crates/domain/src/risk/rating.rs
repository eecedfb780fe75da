//! Rating: a pure function of a model version and an evaluation input. Everything a
//! rating depends on is in those two documents (the evaluation date included), so the
//! same pair gives the same rating, to the byte, whenever it is replayed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use time::Date;

use super::model::{Factor, LEVEL_SETS, MAX_SCORE, OccupationCategory, RiskModel};
use crate::entity::model::{RiskLevel, ScreeningStatus, VerificationStatus};
use crate::values::{CountryCode, PartialDate};

time::serde::format_description!(calendar_date, Date, "[year]-[month]-[day]");

/// The document a rating consumes: what the model reads about an individual and the
/// entities related to it, gathered at one moment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EvaluationInput {
    /// The rated entity, `entities/{entity}`.
    pub entity: String,
    /// The day the rating is as of (ages are counted to it), `YYYY-MM-DD`.
    #[cfg_attr(feature = "openapi", schema(value_type = String, example = "2026-11-22"))]
    #[serde(with = "calendar_date")]
    pub evaluation_date: Date,
    /// Nationalities, ISO 3166-1 alpha-2.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nationalities: Vec<CountryCode>,
    /// Country of residence, ISO 3166-1 alpha-2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country_of_residence: Option<CountryCode>,
    /// Country of birth, ISO 3166-1 alpha-2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country_of_birth: Option<CountryCode>,
    /// The newest live identity document, `documents/{document}`, when the model
    /// reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity_document: Option<String>,
    /// That document's issuing country, ISO 3166-1 alpha-2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document_issuing_country: Option<CountryCode>,
    /// Date of birth, possibly partial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date_of_birth: Option<PartialDate>,
    /// Occupation as the entity states it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occupation: Option<String>,
    /// The latest screening outcome; absent when never screened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screening_status: Option<ScreeningStatus>,
    /// The verification status; absent when none is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification_status: Option<VerificationStatus>,
    /// The entities related to the individual, by entity name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related_entities: Vec<RelatedEntityInput>,
}

/// What a rating reads about a related entity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RelatedEntityInput {
    /// `entities/{entity}`.
    pub entity: String,
    /// How it is related (`DIRECTOR`, `SPOUSE`, ...).
    pub relationship_type: String,
    /// Its latest risk level; absent when never rated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk_level: Option<RiskLevel>,
    /// Its latest screening outcome; absent when never screened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screening_status: Option<ScreeningStatus>,
}

/// A rating: the score, its level and what each factor added.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Rating {
    /// 0 to 100: the sum of the contributions' points.
    pub risk_score: u8,
    /// The level the model's thresholds give the score.
    pub risk_level: RiskLevel,
    /// One per factor of the model, in the model's order.
    pub contributions: Vec<Contribution>,
    /// The model version that rated, `riskModels/{version}`.
    pub model_version: String,
}

/// What one factor added to a score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Contribution {
    /// The factor (`NATIONALITY`, `AGE`, ...).
    pub factor: String,
    /// What the factor read from the input; absent when the input had nothing.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    #[cfg_attr(feature = "openapi", schema(value_type = serde_json::Value))]
    pub input_value: Value,
    /// The factor's value, 0 to 100.
    pub value: u8,
    /// The factor's weight: the points it adds at value 100.
    pub weight: u8,
    /// The points it added (whole points; see [`rate`] for how they are rounded).
    pub points: u8,
    /// Why the factor took its value.
    pub reason: String,
}

/// Rates `input` with `model`.
///
/// Each factor's exact share is `weight × value / 100` points; when the shares add up
/// to more than 100 they are scaled down in proportion so that the total is 100. The
/// score is the total rounded half up to a whole number, and the whole points of the
/// contributions are the shares rounded by the largest-remainder method (ties to the
/// earlier factor), so they always add up to the score exactly. All of it is integer
/// arithmetic: no platform or float rounding can change a replayed rating.
pub fn rate(model: &RiskModel, input: &EvaluationInput) -> Rating {
    let judged: Vec<(&Factor, Judgement)> = model
        .factors
        .iter()
        .map(|factor| (factor, judge(model, factor, input)))
        .collect();
    // Shares in hundredths of a point.
    let raw: Vec<u64> = judged
        .iter()
        .map(|(factor, judgement)| u64::from(factor.weight()) * u64::from(judgement.value))
        .collect();
    let points = allocate(&raw);
    let risk_score = u8::try_from(points.iter().map(|p| u32::from(*p)).sum::<u32>())
        .unwrap_or(MAX_SCORE)
        .min(MAX_SCORE);
    let contributions = judged
        .into_iter()
        .zip(points)
        .map(|((factor, judgement), points)| Contribution {
            factor: factor.name().to_owned(),
            input_value: judgement.input,
            value: judgement.value,
            weight: factor.weight(),
            points,
            reason: judgement.reason,
        })
        .collect();
    Rating {
        risk_score,
        risk_level: model.level_of(risk_score),
        contributions,
        model_version: model.name.clone(),
    }
}

/// Whole points per share (`raw` in hundredths of a point), scaled to at most 100 in
/// all, summing exactly to the rounded total.
pub fn allocate(raw: &[u64]) -> Vec<u8> {
    let full = u64::from(MAX_SCORE) * 100;
    let sum: u64 = raw.iter().sum();
    if sum == 0 {
        return vec![0; raw.len()];
    }
    let capped = sum.min(full);
    // Exact share i = raw[i] * capped / (sum * 100) points.
    let denominator = u128::from(sum) * 100;
    let score = (capped + 50) / 100;
    let mut floors: Vec<u64> = Vec::with_capacity(raw.len());
    let mut remainders: Vec<(u128, usize)> = Vec::with_capacity(raw.len());
    for (i, r) in raw.iter().enumerate() {
        let numerator = u128::from(*r) * u128::from(capped);
        floors.push(u64::try_from(numerator / denominator).unwrap_or(0));
        remainders.push((numerator % denominator, i));
    }
    let extra = score.saturating_sub(floors.iter().sum());
    // Largest remainder first; on a tie, the earlier factor.
    remainders.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for (_, i) in remainders.iter().take(usize::try_from(extra).unwrap_or(0)) {
        floors[*i] += 1;
    }
    floors
        .into_iter()
        .map(|p| u8::try_from(p).unwrap_or(MAX_SCORE))
        .collect()
}

/// A factor's value with what it read and why.
struct Judgement {
    input: Value,
    value: u8,
    reason: String,
}

impl Judgement {
    fn unknown(score: u8, what: &str) -> Judgement {
        Judgement {
            input: Value::Null,
            value: score,
            reason: format!("{what} unknown: the model's score for unknown, {score}"),
        }
    }
}

fn judge(model: &RiskModel, factor: &Factor, input: &EvaluationInput) -> Judgement {
    match factor {
        Factor::Nationality { unknown_score, .. } => {
            if input.nationalities.is_empty() {
                return Judgement::unknown(*unknown_score, "nationality");
            }
            let codes: Vec<&CountryCode> = input.nationalities.iter().collect();
            country_judgement(model, &codes, "nationality")
        }
        Factor::CountryOfResidence { unknown_score, .. } => match &input.country_of_residence {
            None => Judgement::unknown(*unknown_score, "country of residence"),
            Some(code) => country_judgement(model, &[code], "country of residence"),
        },
        Factor::PlaceOfBirth { unknown_score, .. } => match &input.country_of_birth {
            None => Judgement::unknown(*unknown_score, "country of birth"),
            Some(code) => country_judgement(model, &[code], "country of birth"),
        },
        Factor::DocumentIssuingCountry { unknown_score, .. } => {
            match &input.document_issuing_country {
                None => Judgement::unknown(*unknown_score, "identity document issuing country"),
                Some(code) => {
                    country_judgement(model, &[code], "identity document issuing country")
                }
            }
        }
        Factor::ScreeningStatus {
            scores,
            unknown_score,
            ..
        } => status_judgement(
            input.screening_status.map(ScreeningStatus::as_str),
            scores,
            *unknown_score,
            "screening status",
        ),
        Factor::VerificationStatus {
            scores,
            unknown_score,
            ..
        } => status_judgement(
            input.verification_status.map(VerificationStatus::as_str),
            scores,
            *unknown_score,
            "verification status",
        ),
        Factor::Age {
            bands,
            unknown_score,
            ..
        } => {
            let Some(birth) = input.date_of_birth else {
                return Judgement::unknown(*unknown_score, "date of birth");
            };
            let Some(age) = age_on(birth, input.evaluation_date) else {
                return Judgement {
                    input: json!(birth.to_string()),
                    value: *unknown_score,
                    reason: format!(
                        "date of birth {birth} is after the evaluation date: the model's score for unknown, {unknown_score}"
                    ),
                };
            };
            let band = bands
                .iter()
                .find(|b| b.below.is_none_or(|below| age < u32::from(below)));
            let value = band.map_or(*unknown_score, |b| b.score);
            let range = match band.and_then(|b| b.below) {
                Some(below) => format!("the band below {below}"),
                None => "the oldest band".to_owned(),
            };
            Judgement {
                input: json!(birth.to_string()),
                value,
                reason: format!("aged {age} on {}: {range}, {value}", input.evaluation_date),
            }
        }
        Factor::Occupation {
            categories,
            other_score,
            unknown_score,
            ..
        } => {
            let stated = input.occupation.as_deref().unwrap_or_default();
            let words = words(stated);
            if words.is_empty() {
                return Judgement::unknown(*unknown_score, "occupation");
            }
            let padded = format!(" {} ", words.join(" "));
            let best = categories
                .iter()
                .filter_map(|category| {
                    category
                        .keywords
                        .iter()
                        .find(|k| padded.contains(&format!(" {k} ")))
                        .map(|keyword| (category, keyword))
                })
                .fold(
                    None,
                    |best: Option<(&OccupationCategory, &String)>, candidate| match best {
                        Some(b) if b.0.score >= candidate.0.score => Some(b),
                        _ => Some(candidate),
                    },
                );
            match best {
                Some((category, keyword)) => Judgement {
                    input: json!(stated),
                    value: category.score,
                    reason: format!(
                        "'{keyword}' puts the occupation in '{}': {}",
                        category.label, category.score
                    ),
                },
                None => Judgement {
                    input: json!(stated),
                    value: *other_score,
                    reason: format!("no category names the occupation: {other_score}"),
                },
            }
        }
        Factor::RelatedEntityRisk {
            risk_level_scores,
            screening_match_score,
            unknown_score,
            ..
        } => {
            if input.related_entities.is_empty() {
                return Judgement::unknown(*unknown_score, "related entities");
            }
            let mut worst: Option<(u8, String)> = None;
            for related in &input.related_entities {
                let mut candidates = Vec::new();
                if let Some(level) = related.risk_level {
                    let score = related_level_score(risk_level_scores, level);
                    candidates.push((
                        score,
                        format!(
                            "{} ({}) is rated {}: {score}",
                            related.entity, related.relationship_type, level
                        ),
                    ));
                }
                if let Some(status) = related.screening_status
                    && status != ScreeningStatus::Clear
                {
                    candidates.push((
                        *screening_match_score,
                        format!(
                            "{} ({}) has screening status {}: {screening_match_score}",
                            related.entity, related.relationship_type, status
                        ),
                    ));
                }
                for candidate in candidates {
                    if worst.as_ref().is_none_or(|w| candidate.0 > w.0) {
                        worst = Some(candidate);
                    }
                }
            }
            let names: Vec<&str> = input
                .related_entities
                .iter()
                .map(|r| r.entity.as_str())
                .collect();
            match worst {
                Some((value, reason)) => Judgement {
                    input: json!(names),
                    value,
                    reason: format!("the riskiest related entity: {reason}"),
                },
                None => Judgement {
                    input: json!(names),
                    value: 0,
                    reason: "no related entity is rated or has a screening match: 0".to_owned(),
                },
            }
        }
    }
}

fn country_judgement(model: &RiskModel, codes: &[&CountryCode], what: &str) -> Judgement {
    let list = &model.country_risk;
    let scored: Vec<(&str, u8)> = codes
        .iter()
        .map(|code| {
            let score = list
                .scores
                .get(code.as_str())
                .copied()
                .unwrap_or(list.default_score);
            (code.as_str(), score)
        })
        .collect();
    let mut worst = scored[0];
    for candidate in &scored[1..] {
        if candidate.1 > worst.1 {
            worst = *candidate;
        }
    }
    let listed = if list.scores.contains_key(worst.0) {
        format!("listed in {} ({})", list.source, list.effective_date)
    } else {
        format!(
            "not listed in {} ({}), the default",
            list.source, list.effective_date
        )
    };
    let input = if codes.len() == 1 {
        json!(codes[0].as_str())
    } else {
        json!(codes.iter().map(|c| c.as_str()).collect::<Vec<_>>())
    };
    Judgement {
        input,
        value: worst.1,
        reason: format!("{what} {}: {listed}, {}", worst.0, worst.1),
    }
}

fn status_judgement(
    status: Option<&'static str>,
    scores: &std::collections::BTreeMap<String, u8>,
    unknown_score: u8,
    what: &str,
) -> Judgement {
    match status {
        None => Judgement::unknown(unknown_score, what),
        Some(status) => match scores.get(status) {
            Some(score) => Judgement {
                input: json!(status),
                value: *score,
                reason: format!("{what} {status}: {score}"),
            },
            None => Judgement {
                input: json!(status),
                value: unknown_score,
                reason: format!(
                    "{what} {status} has no score in the model: the score for unknown, {unknown_score}"
                ),
            },
        },
    }
}

/// Whole years from the earliest date `birth` stands for to `on`; `None` when that is
/// after `on`.
fn age_on(birth: PartialDate, on: Date) -> Option<u32> {
    let born = birth.earliest()?;
    if born > on {
        return None;
    }
    let mut years = on.year() - born.year();
    if (on.month() as u8, on.day()) < (born.month() as u8, born.day()) {
        years -= 1;
    }
    u32::try_from(years).ok()
}

/// The lower-case words of `text` (letters and digits), for keyword matching.
pub(crate) fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The score of a related entity rated `level`: its own in `scores`; for a level above
/// HIGH that the scores leave out (a model written for three levels), that of the
/// nearest level below it down to HIGH; 0 otherwise.
fn related_level_score(scores: &BTreeMap<String, u8>, level: RiskLevel) -> u8 {
    LEVEL_SETS[1]
        .iter()
        .rev()
        .filter(|l| l.rank() <= level.rank() && (**l == level || l.is_high_or_above()))
        .find_map(|l| scores.get(l.as_str()).copied())
        .unwrap_or(0)
}
