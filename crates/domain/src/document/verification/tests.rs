use serde_json::json;
use time::macros::date;

use super::*;
use crate::mrz::{MrzFields, MrzFormat, compose};

/// Names are the same when their upper-case words are, in any order; a stand-in for
/// the screening engine's matcher (the HTTP tests use the real one).
struct SameWords;

impl NameMatcher for SameWords {
    fn similarity(&self, a: &str, b: &str) -> f64 {
        let words = |s: &str| {
            let mut w: Vec<String> = s
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_uppercase)
                .collect();
            w.sort();
            w
        };
        if words(a) == words(b) { 1.0 } else { 0.2 }
    }
}

const TODAY: Date = date!(2026 - 11 - 22);

/// A TD3 passport zone for Anna Maria Eriksson of Utopia, valid until 2031.
fn zone() -> Vec<String> {
    compose(&MrzFields {
        format: MrzFormat::Td3,
        document_code: "P".into(),
        issuing_state: "UTO".into(),
        primary_identifier: "ERIKSSON".into(),
        secondary_identifier: "ANNA MARIA".into(),
        document_number: "L898902C3".into(),
        nationality: "UTO".into(),
        birth_date: "740812".into(),
        sex: Sex::Female,
        expiry_date: "310415".into(),
        optional_data: "ZE184226B".into(),
        optional_data_2: String::new(),
    })
    .unwrap()
}

fn passport(mrz: Vec<String>) -> Document {
    serde_json::from_value(json!({
        "name": "documents/p1", "entity": "entities/anna", "documentType": "PASSPORT",
        "documentNumber": "L898902C3", "issuingCountry": "UTO", "nationality": "UTO",
        "givenName": "Anna Maria", "familyName": "Eriksson", "dateOfBirth": "1974-08-12",
        "gender": "FEMALE", "issueDate": "2021-04-16", "expiryDate": "2031-04-15",
        "mrz": mrz, "etag": "\"e\""
    }))
    .unwrap()
}

fn anna() -> Entity {
    serde_json::from_value(json!({
        "name": "entities/anna", "displayName": "Anna Eriksson", "entityType": "INDIVIDUAL",
        "individual": {
            "legalName": {"givenName": "Anna", "middleNames": "Maria", "familyName": "Eriksson"},
            "dateOfBirth": "1974-08-12"
        }
    }))
    .unwrap()
}

fn statuses(verification: &Verification) -> Vec<(&str, CheckStatus)> {
    verification
        .checks
        .iter()
        .map(|c| (c.check.as_str(), c.status))
        .collect()
}

fn the<'a>(verification: &'a Verification, name: &str) -> &'a Check {
    verification
        .checks
        .iter()
        .find(|c| c.check == name)
        .unwrap()
}

#[test]
fn a_consistent_current_passport_passes_every_check() {
    let verification = verify(&passport(zone()), &anna(), TODAY, &SameWords);
    assert_eq!(verification.outcome, Outcome::Passed, "{verification:#?}");
    assert_eq!(
        statuses(&verification),
        [
            ("MRZ_FORMAT", CheckStatus::Passed),
            ("MRZ_CHECK_DIGITS", CheckStatus::Passed),
            ("MRZ_MATCHES_FIELDS", CheckStatus::Passed),
            ("NOT_EXPIRED", CheckStatus::Passed),
            ("ISSUE_DATE_VALID", CheckStatus::Passed),
            ("ISSUING_COUNTRY_VALID", CheckStatus::Passed),
            ("NAME_MATCHES_ENTITY", CheckStatus::Passed),
            ("DATE_OF_BIRTH_MATCHES_ENTITY", CheckStatus::Passed),
        ]
    );
    assert!(
        the(&verification, "MRZ_CHECK_DIGITS")
            .reason
            .contains("5 check digits")
    );
}

#[test]
fn a_wrong_check_digit_is_named() {
    let mut lines = zone();
    // The document number's check digit is column 10 of line 2.
    let mut line: Vec<char> = lines[1].chars().collect();
    line[9] = if line[9] == '1' { '2' } else { '1' };
    lines[1] = line.into_iter().collect();
    let verification = verify(&passport(lines), &anna(), TODAY, &SameWords);
    assert_eq!(verification.outcome, Outcome::Failed);
    let digits = the(&verification, "MRZ_CHECK_DIGITS");
    assert_eq!(digits.status, CheckStatus::Failed);
    assert!(
        digits.reason.contains("line 2 column 10"),
        "{}",
        digits.reason
    );
    assert!(
        digits.reason.contains("document number"),
        "{}",
        digits.reason
    );
    assert_eq!(the(&verification, "MRZ_FORMAT").status, CheckStatus::Passed);
}

#[test]
fn the_specimen_of_doc_9303_has_expired() {
    let mut document = passport(vec![
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<".into(),
        "L898902C36UTO7408122F1204159ZE184226B<<<<<10".into(),
    ]);
    document.issue_date = PartialDate::parse("2002-04-16").ok();
    document.expiry_date = PartialDate::parse("2012-04-15").ok();
    let verification = verify(&document, &anna(), TODAY, &SameWords);
    let expired = the(&verification, "NOT_EXPIRED");
    assert_eq!(expired.status, CheckStatus::Failed);
    assert!(expired.reason.contains("2012-04-15"), "{}", expired.reason);
    assert_eq!(
        the(&verification, "MRZ_CHECK_DIGITS").status,
        CheckStatus::Passed
    );
    assert_eq!(
        the(&verification, "MRZ_MATCHES_FIELDS").status,
        CheckStatus::Passed
    );
    assert_eq!(verification.outcome, Outcome::Failed);
}

#[test]
fn fields_that_disagree_with_the_zone_are_listed() {
    let mut document = passport(zone());
    document.document_number = "L898902C4".into();
    document.date_of_birth = PartialDate::parse("1974-08-13").ok();
    document.gender = Gender::Male;
    document.nationality = IcaoCode::parse("D").ok();
    let verification = verify(&document, &anna(), TODAY, &SameWords);
    let fields = the(&verification, "MRZ_MATCHES_FIELDS");
    assert_eq!(fields.status, CheckStatus::Failed);
    for field in ["documentNumber", "dateOfBirth", "gender", "nationality"] {
        assert!(fields.reason.contains(field), "{field}: {}", fields.reason);
    }
    assert!(!fields.reason.contains("familyName"), "{}", fields.reason);
    assert_eq!(
        the(&verification, "DATE_OF_BIRTH_MATCHES_ENTITY").status,
        CheckStatus::Failed
    );
}

#[test]
fn a_document_of_someone_else_fails_the_entity_checks() {
    let mut other = anna();
    other.display_name = "John Smith".into();
    if let Some(individual) = other.individual.as_mut() {
        individual.legal_name = None;
        individual.date_of_birth = PartialDate::parse("1980").ok();
    }
    let verification = verify(&passport(zone()), &other, TODAY, &SameWords);
    let name = the(&verification, "NAME_MATCHES_ENTITY");
    assert_eq!(name.status, CheckStatus::Failed);
    assert!(name.reason.contains("John Smith"), "{}", name.reason);
    assert_eq!(
        the(&verification, "DATE_OF_BIRTH_MATCHES_ENTITY").status,
        CheckStatus::Failed
    );
}

#[test]
fn without_a_zone_the_zone_checks_do_not_apply() {
    let mut document = passport(vec![]);
    document.issue_date = None;
    document.expiry_date = None;
    let verification = verify(&document, &anna(), TODAY, &SameWords);
    for name in [
        "MRZ_FORMAT",
        "MRZ_CHECK_DIGITS",
        "MRZ_MATCHES_FIELDS",
        "NOT_EXPIRED",
        "ISSUE_DATE_VALID",
    ] {
        assert_eq!(
            the(&verification, name).status,
            CheckStatus::NotApplicable,
            "{name}"
        );
    }
    assert_eq!(verification.outcome, Outcome::Passed);
}

#[test]
fn an_issue_date_after_today_or_the_expiry_fails() {
    let mut document = passport(zone());
    document.issue_date = PartialDate::parse("2027-01-01").ok();
    assert_eq!(
        the(
            &verify(&document, &anna(), TODAY, &SameWords),
            "ISSUE_DATE_VALID"
        )
        .status,
        CheckStatus::Failed
    );
    document.issue_date = PartialDate::parse("2031-05-01").ok();
    let verification = verify(&document, &anna(), date!(2032 - 01 - 01), &SameWords);
    assert_eq!(
        the(&verification, "ISSUE_DATE_VALID").status,
        CheckStatus::Failed
    );
}
