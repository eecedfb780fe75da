use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::json;
use time::macros::date;

use super::default_model::default_model;
use super::model::{Factor, RiskModel};
use super::rating::{EvaluationInput, RelatedEntityInput, allocate, rate};
use crate::entity::model::{RiskLevel, ScreeningStatus, VerificationStatus};
use crate::values::{CountryCode, PartialDate};

fn model() -> RiskModel {
    let mut model = default_model().unwrap();
    model.name = RiskModel::name_of(1);
    model
}

fn person() -> EvaluationInput {
    EvaluationInput {
        entity: "entities/jane".into(),
        evaluation_date: date!(2026 - 11 - 22),
        nationalities: vec![CountryCode::parse("GB").unwrap()],
        country_of_residence: Some(CountryCode::parse("GB").unwrap()),
        country_of_birth: Some(CountryCode::parse("GB").unwrap()),
        identity_document: Some("documents/passport".into()),
        document_issuing_country: Some(CountryCode::parse("GB").unwrap()),
        date_of_birth: Some(PartialDate::parse("1980-04-02").unwrap()),
        occupation: Some("Teacher".into()),
        screening_status: Some(ScreeningStatus::Clear),
        verification_status: Some(VerificationStatus::Verified),
        related_entities: vec![],
    }
}

fn violations(error: &crate::error::Error) -> Vec<(String, &'static str)> {
    error
        .field_violations
        .iter()
        .map(|v| (v.field.clone(), v.reason))
        .collect()
}

#[test]
fn the_default_model_scores_the_fatf_statements_of_october_2025() {
    let model = model();
    let scores = &model.country_risk.scores;
    for code in ["KP", "IR", "MM"] {
        assert_eq!(scores.get(code), Some(&100), "{code}: call for action");
    }
    for code in ["DZ", "BG", "MC", "VG", "VN", "YE"] {
        assert_eq!(scores.get(code), Some(&60), "{code}: increased monitoring");
    }
    for code in ["NG", "ZA", "MZ", "BF"] {
        assert_eq!(scores.get(code), None, "{code}: removed in October 2025");
    }
    assert_eq!(scores.len(), 23);
    assert_eq!(model.country_risk.effective_date, "2025-10-24");
    let levels: Vec<_> = model
        .thresholds
        .iter()
        .map(|t| (t.risk_level, t.max_score))
        .collect();
    assert_eq!(
        levels,
        [
            (RiskLevel::Low, 33),
            (RiskLevel::Medium, 66),
            (RiskLevel::High, 100)
        ]
    );
}

#[test]
fn thresholds_must_end_at_100() {
    let mut model = model();
    model.thresholds[2].max_score = 90;
    let error = model.check().unwrap_err();
    assert_eq!(error.code, crate::error::Code::InvalidArgument);
    assert_eq!(
        violations(&error),
        [(
            "riskModel.thresholds[2].maxScore".to_owned(),
            "THRESHOLDS_MUST_END_AT_100"
        )]
    );
}

#[test]
fn thresholds_rise_and_levels_rise() {
    let mut model = model();
    model.thresholds[1].max_score = 20;
    model.thresholds[2].risk_level = RiskLevel::Low;
    let reasons: Vec<_> = violations(&model.check().unwrap_err())
        .into_iter()
        .map(|(_, reason)| reason)
        .collect();
    assert!(reasons.contains(&"THRESHOLDS_NOT_RISING"), "{reasons:?}");
    assert!(reasons.contains(&"LEVELS_NOT_RISING"), "{reasons:?}");
}

#[test]
fn every_faulty_field_of_a_model_is_named() {
    let mut model = model();
    model.factors.push(Factor::Nationality {
        weight: 101,
        unknown_score: 0,
    });
    if let Factor::ScreeningStatus { scores, .. } = &mut model.factors[0] {
        scores.insert("MAYBE".into(), 10);
    }
    if let Factor::Age { bands, .. } = &mut model.factors[4] {
        bands[1].below = Some(10);
    }
    model.country_risk.scores.insert("XX".into(), 50);
    let found = violations(&model.check().unwrap_err());
    for expected in [
        ("riskModel.factors[7]", "DUPLICATE_FACTOR"),
        ("riskModel.factors[7].weight", "OUT_OF_RANGE"),
        ("riskModel.factors[0].scores.MAYBE", "UNKNOWN_VALUE"),
        ("riskModel.factors[4].bands[1].below", "BANDS_NOT_RISING"),
        ("riskModel.countryRisk.scores.XX", "INVALID_COUNTRY"),
    ] {
        assert!(
            found.contains(&(expected.0.to_owned(), expected.1)),
            "{expected:?} not in {found:?}"
        );
    }
}

/// The default model with five levels, their scores left to the defaults.
fn five_level_model() -> RiskModel {
    let mut model = model();
    model.thresholds = serde_json::from_value(json!([
        {"riskLevel": "LOW", "label": "Standard"}, {"riskLevel": "MEDIUM"}, {"riskLevel": "HIGH"},
        {"riskLevel": "CRITICAL"}, {"riskLevel": "EXTREME", "label": "Prohibited"}]))
    .unwrap();
    model.check().unwrap();
    model
}

#[test]
fn five_levels_take_the_default_scores_and_keep_their_labels() {
    let five = five_level_model();
    let scores: Vec<u8> = five.thresholds.iter().map(|t| t.max_score).collect();
    assert_eq!(scores, [20, 40, 60, 80, 100]);
    assert_eq!(five.level_of(20), RiskLevel::Low);
    assert_eq!(five.level_of(61), RiskLevel::Critical);
    assert_eq!(five.level_of(81), RiskLevel::Extreme);
    let stored = serde_json::to_value(&five.thresholds).unwrap();
    assert_eq!(
        stored[4],
        json!({"riskLevel": "EXTREME", "maxScore": 100, "label": "Prohibited"})
    );
    assert_eq!(
        stored[1],
        json!({"riskLevel": "MEDIUM", "maxScore": 40}),
        "no label, no key"
    );
    let mut three = model();
    for threshold in &mut three.thresholds {
        threshold.max_score = 0;
    }
    three.check().unwrap();
    assert_eq!(
        three.thresholds,
        model().thresholds,
        "three levels default as the default model"
    );
}

#[test]
fn a_model_has_three_or_five_levels_with_short_one_line_labels() {
    let mut four = five_level_model();
    four.thresholds.remove(3);
    four.thresholds[3].max_score = 100;
    assert_eq!(
        violations(&four.check().unwrap_err()),
        [("riskModel.thresholds".to_owned(), "LEVELS_MUST_BE_3_OR_5")]
    );
    let mut labelled = five_level_model();
    labelled.thresholds[0].label = "x".repeat(101);
    labelled.thresholds[1].label = "two\nlines".into();
    assert_eq!(
        violations(&labelled.check().unwrap_err()),
        [
            ("riskModel.thresholds[0].label".to_owned(), "TOO_LONG"),
            (
                "riskModel.thresholds[1].label".to_owned(),
                "CONTROL_CHARACTER"
            )
        ]
    );
}

#[test]
fn levels_rank_and_high_means_high_or_above() {
    let ranked: Vec<u8> = [
        RiskLevel::Unspecified,
        RiskLevel::Low,
        RiskLevel::Medium,
        RiskLevel::High,
        RiskLevel::Critical,
        RiskLevel::Extreme,
    ]
    .iter()
    .map(|l| l.rank())
    .collect();
    assert_eq!(ranked, [0, 1, 2, 3, 4, 5]);
    assert!(!RiskLevel::Medium.is_high_or_above());
    assert!(RiskLevel::High.is_high_or_above() && RiskLevel::Extreme.is_high_or_above());
}

#[test]
fn a_related_entity_above_high_scores_as_high_in_a_three_level_model() {
    let related = |level| {
        let mut input = person();
        input.related_entities = vec![RelatedEntityInput {
            entity: "entities/boss".into(),
            relationship_type: "ASSOCIATE".into(),
            risk_level: Some(level),
            screening_status: None,
        }];
        let rating = rate(&model(), &input);
        let factor = rating
            .contributions
            .iter()
            .find(|c| c.factor == "RELATED_ENTITY_RISK")
            .unwrap()
            .clone();
        factor.value
    };
    assert_eq!(related(RiskLevel::Critical), related(RiskLevel::High));
    assert_eq!(related(RiskLevel::Extreme), related(RiskLevel::High));
    assert_ne!(related(RiskLevel::Medium), related(RiskLevel::High));
}

#[test]
fn a_verified_teacher_at_home_is_low_risk() {
    let rating = rate(&model(), &person());
    assert_eq!(rating.risk_level, RiskLevel::Low);
    assert_eq!(rating.model_version, "riskModels/1");
    let points: Vec<_> = rating
        .contributions
        .iter()
        .map(|c| (c.factor.as_str(), c.points))
        .collect();
    assert_eq!(
        points,
        [
            ("SCREENING_STATUS", 0),
            ("NATIONALITY", 0),
            ("COUNTRY_OF_RESIDENCE", 0),
            ("VERIFICATION_STATUS", 0),
            ("AGE", 0),
            ("OCCUPATION", 3),
            ("RELATED_ENTITY_RISK", 0)
        ]
    );
    assert_eq!(rating.risk_score, 3);
}

#[test]
fn an_unverified_iranian_resident_of_iran_is_high_risk() {
    let mut input = person();
    input.nationalities = vec![
        CountryCode::parse("GB").unwrap(),
        CountryCode::parse("IR").unwrap(),
    ];
    input.country_of_residence = Some(CountryCode::parse("IR").unwrap());
    input.verification_status = Some(VerificationStatus::Unverified);
    let rating = rate(&model(), &input);
    assert_eq!(rating.risk_level, RiskLevel::High, "{rating:#?}");
    let nationality = &rating.contributions[1];
    assert_eq!(nationality.input_value, json!(["GB", "IR"]));
    assert_eq!((nationality.value, nationality.points), (100, 35));
    assert!(nationality.reason.contains("IR"), "{}", nationality.reason);
    assert!(
        nationality.reason.contains("2025-10-24"),
        "{}",
        nationality.reason
    );
    // 35 + 35 + 12 (unverified) + 2.5 (teacher) = 84.5, rounded half up.
    assert_eq!(rating.risk_score, 85);
}

#[test]
fn a_confirmed_match_alone_is_high_and_scores_are_capped_at_100() {
    let mut input = person();
    input.screening_status = Some(ScreeningStatus::ConfirmedMatch);
    assert_eq!(rate(&model(), &input).risk_level, RiskLevel::High);
    input.nationalities = vec![CountryCode::parse("KP").unwrap()];
    input.country_of_residence = Some(CountryCode::parse("KP").unwrap());
    input.occupation = Some("Casino owner".into());
    input.related_entities = vec![RelatedEntityInput {
        entity: "entities/boss".into(),
        relationship_type: "ASSOCIATE".into(),
        risk_level: Some(RiskLevel::High),
        screening_status: None,
    }];
    let rating = rate(&model(), &input);
    assert_eq!(rating.risk_score, 100);
    let sum: u32 = rating
        .contributions
        .iter()
        .map(|c| u32::from(c.points))
        .sum();
    assert_eq!(sum, 100);
    let occupation = &rating.contributions[5];
    assert!(
        occupation.reason.contains("casino"),
        "{}",
        occupation.reason
    );
}

#[test]
fn unknowns_score_the_model_s_unknown_values() {
    let input = EvaluationInput {
        nationalities: vec![],
        country_of_residence: None,
        date_of_birth: None,
        occupation: None,
        screening_status: None,
        verification_status: None,
        ..person()
    };
    let rating = rate(&model(), &input);
    for contribution in &rating.contributions {
        if contribution.factor != "RELATED_ENTITY_RISK" {
            assert!(contribution.input_value.is_null());
            assert!(
                contribution.reason.contains("unknown"),
                "{}",
                contribution.reason
            );
        }
    }
    // 21 + 7 + 7 + 12 + 2.5 + 10 = 59.5 -> 60: Medium (screen and verify first).
    assert_eq!(rating.risk_score, 60);
    assert_eq!(rating.risk_level, RiskLevel::Medium);
}

#[test]
fn place_of_birth_and_document_issuing_country_score_from_the_country_list() {
    let mut model = model();
    model.factors = vec![
        Factor::PlaceOfBirth {
            weight: 50,
            unknown_score: 20,
        },
        Factor::DocumentIssuingCountry {
            weight: 50,
            unknown_score: 40,
        },
    ];
    model.check().unwrap();
    let input = EvaluationInput {
        country_of_birth: Some(CountryCode::parse("IR").unwrap()),
        document_issuing_country: Some(CountryCode::parse("YE").unwrap()),
        ..person()
    };
    let rating = rate(&model, &input);
    let [birth, document] = &rating.contributions[..] else {
        panic!("{rating:?}");
    };
    assert_eq!(
        (birth.factor.as_str(), birth.value, birth.points),
        ("PLACE_OF_BIRTH", 100, 50)
    );
    assert_eq!(birth.input_value, json!("IR"));
    assert!(
        birth.reason.contains("country of birth"),
        "{}",
        birth.reason
    );
    assert_eq!(
        (document.factor.as_str(), document.value, document.points),
        ("DOCUMENT_ISSUING_COUNTRY", 60, 30)
    );
    assert_eq!(document.input_value, json!("YE"));
    assert_eq!(rating.risk_score, 80);

    let unknown = EvaluationInput {
        country_of_birth: None,
        identity_document: None,
        document_issuing_country: None,
        ..person()
    };
    let rating = rate(&model, &unknown);
    assert_eq!(
        rating
            .contributions
            .iter()
            .map(|c| c.value)
            .collect::<Vec<_>>(),
        [20, 40]
    );
    assert!(rating.contributions.iter().all(|c| c.input_value.is_null()));
}

#[test]
fn ages_count_whole_years_to_the_evaluation_date() {
    let model = model();
    let age_points = |dob: &str| {
        let input = EvaluationInput {
            date_of_birth: Some(PartialDate::parse(dob).unwrap()),
            ..person()
        };
        rate(&model, &input).contributions[4].reason.clone()
    };
    assert!(age_points("2008-11-22").starts_with("aged 18 "));
    assert!(age_points("2008-11-23").starts_with("aged 17 "));
    // A partial date counts from its earliest day.
    assert!(age_points("2008").starts_with("aged 18 "));
    assert!(age_points("2030-01-01").contains("after the evaluation date"));
}

#[test]
fn replaying_an_input_gives_the_same_bytes() {
    let model = model();
    let mut input = person();
    input.related_entities = vec![RelatedEntityInput {
        entity: "entities/acme".into(),
        relationship_type: "DIRECTOR".into(),
        risk_level: Some(RiskLevel::Medium),
        screening_status: Some(ScreeningStatus::Clear),
    }];
    let first = serde_json::to_vec(&serde_json::to_value(rate(&model, &input)).unwrap()).unwrap();
    let document = serde_json::to_string(&input).unwrap();
    let replayed_input: EvaluationInput = serde_json::from_str(&document).unwrap();
    assert_eq!(replayed_input, input);
    let stored_model: RiskModel =
        serde_json::from_value(serde_json::to_value(&model).unwrap()).unwrap();
    let second =
        serde_json::to_vec(&serde_json::to_value(rate(&stored_model, &replayed_input)).unwrap())
            .unwrap();
    assert_eq!(first, second);
}

#[test]
fn evaluation_inputs_refuse_unknown_fields() {
    let mut document = serde_json::to_value(person()).unwrap();
    document["income"] = json!(1);
    assert!(serde_json::from_value::<EvaluationInput>(document).is_err());
}

#[test]
fn factors_refuse_unknown_fields() {
    let known = json!({"factor": "NATIONALITY", "weight": 10, "unknownScore": 50});
    assert!(serde_json::from_value::<Factor>(known.clone()).is_ok());
    let mut unknown = known;
    unknown["colour"] = json!("red");
    assert!(serde_json::from_value::<Factor>(unknown).is_err());
}

fn arbitrary_model() -> impl Strategy<Value = RiskModel> {
    (
        proptest::collection::vec(0u8..=100, 7),
        proptest::collection::vec(0u8..=100, 12),
    )
        .prop_map(|(weights, scores)| {
            let statuses = |keys: &[&str], base: usize| {
                keys.iter()
                    .enumerate()
                    .map(|(i, k)| ((*k).to_owned(), scores[(base + i) % scores.len()]))
                    .collect::<BTreeMap<_, _>>()
            };
            let mut model = model();
            model.factors = vec![
                Factor::ScreeningStatus {
                    weight: weights[0],
                    scores: statuses(&["CLEAR", "POTENTIAL_MATCH", "CONFIRMED_MATCH"], 0),
                    unknown_score: scores[3],
                },
                Factor::Nationality {
                    weight: weights[1],
                    unknown_score: scores[4],
                },
                Factor::CountryOfResidence {
                    weight: weights[2],
                    unknown_score: scores[5],
                },
                Factor::VerificationStatus {
                    weight: weights[3],
                    scores: statuses(&["VERIFIED", "PENDING", "UNVERIFIED", "FAILED"], 6),
                    unknown_score: scores[10],
                },
                Factor::Age {
                    weight: weights[4],
                    bands: vec![super::model::AgeBand {
                        below: None,
                        score: scores[11],
                    }],
                    unknown_score: scores[0],
                },
                Factor::Occupation {
                    weight: weights[5],
                    categories: vec![],
                    other_score: scores[1],
                    unknown_score: scores[2],
                },
                Factor::RelatedEntityRisk {
                    weight: weights[6],
                    risk_level_scores: statuses(&["LOW", "MEDIUM", "HIGH"], 7),
                    screening_match_score: scores[9],
                    unknown_score: scores[8],
                },
            ];
            model
        })
}

fn arbitrary_input() -> impl Strategy<Value = EvaluationInput> {
    let countries = ["GB", "IR", "KP", "DZ", "FR", "VG"];
    (
        proptest::collection::vec(0usize..countries.len(), 0..3),
        proptest::option::of(0usize..countries.len()),
        proptest::option::of(1900i32..2030),
        proptest::option::of(0usize..3),
        proptest::option::of(0usize..4),
        any::<bool>(),
    )
        .prop_map(
            move |(nationalities, residence, year, screening, verification, occupation)| {
                EvaluationInput {
                    nationalities: nationalities
                        .into_iter()
                        .map(|i| CountryCode::parse(countries[i]).unwrap())
                        .collect(),
                    country_of_residence: residence
                        .map(|i| CountryCode::parse(countries[i]).unwrap()),
                    country_of_birth: residence.map(|i| CountryCode::parse(countries[i]).unwrap()),
                    identity_document: None,
                    document_issuing_country: None,
                    date_of_birth: year.map(|year| PartialDate {
                        year,
                        month: None,
                        day: None,
                    }),
                    occupation: occupation.then(|| "casino croupier".to_owned()),
                    screening_status: screening.map(|i| {
                        [
                            ScreeningStatus::Clear,
                            ScreeningStatus::PotentialMatch,
                            ScreeningStatus::ConfirmedMatch,
                        ][i]
                    }),
                    verification_status: verification.map(|i| {
                        [
                            VerificationStatus::Verified,
                            VerificationStatus::Pending,
                            VerificationStatus::Unverified,
                            VerificationStatus::Failed,
                        ][i]
                    }),
                    ..person()
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// The contributions add up to the score exactly, whatever the model and input;
    /// no factor adds more than its weight; the score is the capped total of the
    /// exact shares rounded half up.
    #[test]
    fn contributions_sum_exactly_to_the_score(model in arbitrary_model(), input in arbitrary_input()) {
        let rating = rate(&model, &input);
        let sum: u32 = rating.contributions.iter().map(|c| u32::from(c.points)).sum();
        prop_assert_eq!(sum, u32::from(rating.risk_score));
        prop_assert!(rating.risk_score <= 100);
        let mut exact_hundredths = 0u32;
        for c in &rating.contributions {
            prop_assert!(c.points <= c.weight, "{:?}", c);
            exact_hundredths += u32::from(c.weight) * u32::from(c.value);
        }
        let capped = exact_hundredths.min(10_000);
        prop_assert_eq!(u32::from(rating.risk_score), (capped + 50) / 100);
        prop_assert_eq!(rating.risk_level, model.level_of(rating.risk_score));
    }

    /// The largest-remainder allocation sums to the rounded, capped total for any
    /// shares, not only the ones models produce.
    #[test]
    fn allocation_sums_to_the_rounded_total(raw in proptest::collection::vec(0u64..=10_000, 0..12)) {
        let points = allocate(&raw);
        let total: u64 = raw.iter().sum();
        let expected = (total.min(10_000) + 50) / 100;
        prop_assert_eq!(points.iter().map(|p| u64::from(*p)).sum::<u64>(), if total == 0 { 0 } else { expected });
        prop_assert_eq!(points.len(), raw.len());
    }
}
