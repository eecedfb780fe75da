//! The model every tenant starts with: its country scores come from the FATF public
//! statements of 24 October 2025 (`data/risk/fatf_2025-10-24.json`, with its sources),
//! its weights and thresholds are rics's defaults. Tenants change it by storing a new
//! version; the stored copy keeps the numbers, so later defaults never change a
//! tenant's existing versions.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::model::{
    AgeBand, CountryRisk, DEFAULT_MAX_SCORES, Factor, LEVEL_SETS, OccupationCategory, RiskModel,
    Threshold,
};
use crate::error::{Error, Result};

/// The FATF statements, as shipped.
const FATF_STATEMENTS: &str = include_str!("../../../../data/risk/fatf_2025-10-24.json");
/// The score of a jurisdiction subject to a call for action.
const CALL_FOR_ACTION_SCORE: u8 = 100;
/// The score of a jurisdiction under increased monitoring.
const INCREASED_MONITORING_SCORE: u8 = 60;

/// The shipped statements file.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Statements {
    source: String,
    source_urls: Vec<String>,
    effective_date: String,
    call_for_action: BTreeMap<String, String>,
    increased_monitoring: BTreeMap<String, String>,
}

/// The default model (without name, uid or times: the store gives those).
///
/// # Errors
/// INTERNAL when the shipped statements file cannot be read (a build defect, caught by
/// this module's tests).
pub fn default_model() -> Result<RiskModel> {
    let statements: Statements = serde_json::from_str(FATF_STATEMENTS)
        .map_err(|e| Error::internal(format!("shipped FATF statements: {e}")))?;
    let mut scores = BTreeMap::new();
    for code in statements.increased_monitoring.keys() {
        scores.insert(code.clone(), INCREASED_MONITORING_SCORE);
    }
    for code in statements.call_for_action.keys() {
        scores.insert(code.clone(), CALL_FOR_ACTION_SCORE);
    }
    let country_risk = CountryRisk {
        source: statements.source,
        source_urls: statements.source_urls,
        effective_date: statements.effective_date,
        scores,
        default_score: 0,
    };
    let statuses = |pairs: &[(&str, u8)]| {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), *v))
            .collect::<BTreeMap<_, _>>()
    };
    let category = |label: &str, score: u8, keywords: &[&str]| OccupationCategory {
        label: label.to_owned(),
        keywords: keywords.iter().map(|k| (*k).to_owned()).collect(),
        score,
    };
    let mut model = RiskModel {
        display_name: "rics default (FATF October 2025)".to_owned(),
        description: "Points add up to 100 at most. A confirmed sanctions or PEP match alone \
            reaches High; a potential match or a call-for-action jurisdiction weighs heavily; \
            country scores follow the FATF statements of 24 October 2025 (call for action 100, \
            increased monitoring 60)."
            .to_owned(),
        country_risk,
        factors: vec![
            Factor::ScreeningStatus {
                weight: 70,
                scores: statuses(&[
                    ("CLEAR", 0),
                    ("POTENTIAL_MATCH", 80),
                    ("CONFIRMED_MATCH", 100),
                ]),
                unknown_score: 30,
            },
            Factor::Nationality {
                weight: 35,
                unknown_score: 20,
            },
            Factor::CountryOfResidence {
                weight: 35,
                unknown_score: 20,
            },
            Factor::VerificationStatus {
                weight: 20,
                scores: statuses(&[
                    ("VERIFIED", 0),
                    ("PENDING", 40),
                    ("UNVERIFIED", 60),
                    ("FAILED", 100),
                ]),
                unknown_score: 60,
            },
            Factor::Age {
                weight: 5,
                bands: vec![
                    AgeBand {
                        below: Some(18),
                        score: 60,
                    },
                    AgeBand {
                        below: Some(25),
                        score: 40,
                    },
                    AgeBand {
                        below: Some(65),
                        score: 0,
                    },
                    AgeBand {
                        below: None,
                        score: 20,
                    },
                ],
                unknown_score: 50,
            },
            Factor::Occupation {
                weight: 25,
                categories: vec![
                    category(
                        "public office (a possible PEP)",
                        80,
                        &[
                            "minister",
                            "politician",
                            "member of parliament",
                            "senator",
                            "ambassador",
                            "diplomat",
                            "judge",
                            "mayor",
                            "governor",
                            "head of state",
                            "military officer",
                            "general",
                        ],
                    ),
                    category(
                        "cash-intensive or high-risk trade",
                        70,
                        &[
                            "casino",
                            "gambling",
                            "betting",
                            "arms",
                            "weapons",
                            "jeweller",
                            "jeweler",
                            "precious metals",
                            "gold",
                            "diamond",
                            "cryptocurrency",
                            "crypto",
                            "money service",
                            "remittance",
                            "currency exchange",
                            "pawnbroker",
                            "art dealer",
                            "car dealer",
                        ],
                    ),
                    category(
                        "gatekeeper profession",
                        40,
                        &[
                            "lawyer",
                            "solicitor",
                            "notary",
                            "accountant",
                            "trust",
                            "company formation",
                            "real estate",
                            "estate agent",
                        ],
                    ),
                ],
                other_score: 10,
                unknown_score: 40,
            },
            Factor::RelatedEntityRisk {
                weight: 35,
                risk_level_scores: statuses(&[("LOW", 0), ("MEDIUM", 40), ("HIGH", 100)]),
                screening_match_score: 100,
                unknown_score: 0,
            },
        ],
        // LOW to 33, MEDIUM to 66, HIGH to 100.
        thresholds: LEVEL_SETS[0]
            .iter()
            .zip(DEFAULT_MAX_SCORES[0])
            .map(|(level, max_score)| Threshold {
                risk_level: *level,
                max_score: *max_score,
                label: String::new(),
            })
            .collect(),
        ..RiskModel::default()
    };
    model.check()?;
    Ok(model)
}
