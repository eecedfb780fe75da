//! The checks of an identity document, as the ID verification job runs them: each
//! named check PASSED, FAILED or NOT_APPLICABLE with its reason, and an overall
//! outcome. Pure: the document, the entity it is about, the day of the check and a
//! name comparison are all it reads.

use serde::{Deserialize, Serialize};
use time::Date;

use super::model::Document;
use crate::entity::model::{Entity, Gender};
use crate::icao::IcaoCode;
use crate::mrz::{self, Mrz, Sex};
use crate::proto_enum;
use crate::screen::NameMatcher;
use crate::values::PartialDate;

/// The similarity two names need to be taken for the same person's.
pub const NAME_MATCH_THRESHOLD: f64 = 0.85;

proto_enum! {
    /// How one check came out.
    pub enum CheckStatus("CHECK_STATUS_UNSPECIFIED") {
        /// The check passed.
        Passed = "PASSED",
        /// The check failed.
        Failed = "FAILED",
        /// The document lacks what the check needs.
        NotApplicable = "NOT_APPLICABLE",
    }
}

proto_enum! {
    /// The overall outcome of a verification.
    pub enum Outcome("OUTCOME_UNSPECIFIED") {
        /// No check failed.
        Passed = "PASSED",
        /// At least one check failed.
        Failed = "FAILED",
    }
}

/// One named check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Check {
    /// `MRZ_FORMAT`, `MRZ_CHECK_DIGITS`, ...
    pub check: String,
    /// How it came out.
    pub status: CheckStatus,
    /// Why, in a sentence a reviewer can act on.
    pub reason: String,
}

/// The checks of a document and their outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Verification {
    /// FAILED when any check failed, else PASSED.
    pub outcome: Outcome,
    /// Every check, in a fixed order.
    pub checks: Vec<Check>,
}

fn check(name: &str, status: CheckStatus, reason: impl Into<String>) -> Check {
    Check {
        check: name.to_owned(),
        status,
        reason: reason.into(),
    }
}

fn passed(name: &str, reason: impl Into<String>) -> Check {
    check(name, CheckStatus::Passed, reason)
}

fn failed(name: &str, reason: impl Into<String>) -> Check {
    check(name, CheckStatus::Failed, reason)
}

fn not_applicable(name: &str, reason: impl Into<String>) -> Check {
    check(name, CheckStatus::NotApplicable, reason)
}

/// Verifies `document` as of `today` against `entity`, the individual it is about.
pub fn verify(
    document: &Document,
    entity: &Entity,
    today: Date,
    names: &dyn NameMatcher,
) -> Verification {
    let read = (!document.mrz.is_empty()).then(|| mrz::parse(&document.mrz, today));
    let zone = match &read {
        Some(Ok(zone)) => Some(zone),
        _ => None,
    };
    let checks = vec![
        mrz_format(read.as_ref()),
        mrz_check_digits(zone),
        mrz_matches_fields(zone, document, names),
        not_expired(document, zone, today),
        issue_date_valid(document, today),
        issuing_country_valid(document, zone),
        name_matches_entity(document, zone, entity, names),
        date_of_birth_matches_entity(document, zone, entity),
    ];
    let outcome = if checks.iter().any(|c| c.status == CheckStatus::Failed) {
        Outcome::Failed
    } else {
        Outcome::Passed
    };
    Verification { outcome, checks }
}

const NO_MRZ: &str = "the document has no machine readable zone";
const UNREADABLE_MRZ: &str = "the machine readable zone could not be read (see MRZ_FORMAT)";

fn mrz_format(read: Option<&Result<Mrz, mrz::MrzFormatError>>) -> Check {
    const NAME: &str = "MRZ_FORMAT";
    match read {
        None => not_applicable(NAME, NO_MRZ),
        Some(Err(error)) => failed(NAME, error.to_string()),
        Some(Ok(zone)) if !zone.problems.is_empty() => failed(
            NAME,
            zone.problems
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        ),
        Some(Ok(zone)) => {
            let mut reason = format!("a well-formed {} zone", zone.format);
            if !zone.suspicions.is_empty() {
                reason.push_str(&format!(
                    "; probable OCR confusions: {}",
                    zone.suspicions
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join("; ")
                ));
            }
            passed(NAME, reason)
        }
    }
}

fn mrz_check_digits(zone: Option<&Mrz>) -> Check {
    const NAME: &str = "MRZ_CHECK_DIGITS";
    let Some(zone) = zone else {
        return not_applicable(NAME, UNREADABLE_MRZ);
    };
    let wrong: Vec<String> = zone
        .check_digits
        .iter()
        .filter(|c| !c.valid)
        .map(ToString::to_string)
        .collect();
    if wrong.is_empty() {
        passed(
            NAME,
            format!("all {} check digits agree", zone.check_digits.len()),
        )
    } else {
        failed(NAME, wrong.join("; "))
    }
}

fn mrz_matches_fields(zone: Option<&Mrz>, document: &Document, names: &dyn NameMatcher) -> Check {
    const NAME: &str = "MRZ_MATCHES_FIELDS";
    let Some(zone) = zone else {
        return not_applicable(NAME, UNREADABLE_MRZ);
    };
    let mut compared = Vec::new();
    let mut differ = Vec::new();
    let mut compare = |field: &str, same: bool, printed: String, given: String| {
        compared.push(field.to_owned());
        if !same {
            differ.push(format!(
                "{field}: the zone has '{printed}', the document '{given}'"
            ));
        }
    };
    if !document.document_number.is_empty() {
        let given: String = document
            .document_number
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect();
        compare(
            "documentNumber",
            given == zone.document_number,
            zone.document_number.clone(),
            document.document_number.clone(),
        );
    }
    if !document.family_name.is_empty() {
        compare(
            "familyName",
            names.similarity(&zone.primary_identifier, &document.family_name)
                >= NAME_MATCH_THRESHOLD,
            zone.primary_identifier.clone(),
            document.family_name.clone(),
        );
    }
    if !document.given_name.is_empty() {
        compare(
            "givenName",
            names.similarity(&zone.secondary_identifier, &document.given_name)
                >= NAME_MATCH_THRESHOLD,
            zone.secondary_identifier.clone(),
            document.given_name.clone(),
        );
    }
    for (field, printed, given) in [
        ("dateOfBirth", &zone.birth_date, document.date_of_birth),
        ("expiryDate", &zone.expiry_date, document.expiry_date),
    ] {
        if let Some(given) = given {
            let same = printed.date().is_some_and(|d| same_date(given, d));
            compare(field, same, printed.to_string(), given.to_string());
        }
    }
    for (field, printed, given) in [
        ("nationality", &zone.nationality, &document.nationality),
        (
            "issuingCountry",
            &zone.issuing_state,
            &document.issuing_country,
        ),
    ] {
        if let Some(given) = given {
            let same = IcaoCode::parse(printed).is_ok_and(|code| code.same_state(given));
            compare(field, same, printed.clone(), given.as_str().to_owned());
        }
    }
    let sex = match document.gender {
        Gender::Male => Some((Sex::Male, "MALE")),
        Gender::Female => Some((Sex::Female, "FEMALE")),
        _ => None,
    };
    if let Some((expected, given)) = sex {
        let printed = match zone.sex {
            Some(Sex::Male) => "M",
            Some(Sex::Female) => "F",
            _ => "X",
        };
        compare(
            "gender",
            zone.sex == Some(expected),
            printed.to_owned(),
            given.to_owned(),
        );
    }
    if compared.is_empty() {
        not_applicable(NAME, "the document has no field the zone also holds")
    } else if differ.is_empty() {
        passed(NAME, format!("the zone agrees on {}", compared.join(", ")))
    } else {
        failed(NAME, differ.join("; "))
    }
}

/// Whether a full date from a zone is the (possibly partial) date of a document or an
/// entity: every part that is known agrees.
fn same_date(given: PartialDate, date: Date) -> bool {
    given.year == date.year()
        && given.month.is_none_or(|m| m == u8::from(date.month()))
        && given.day.is_none_or(|d| d == date.day())
}

/// The full date of a partial date that has every part.
fn full_date(date: Option<PartialDate>) -> Option<Date> {
    date.filter(|d| d.day.is_some()).and_then(|d| d.earliest())
}

fn not_expired(document: &Document, zone: Option<&Mrz>, today: Date) -> Check {
    const NAME: &str = "NOT_EXPIRED";
    let expiry =
        full_date(document.expiry_date).or_else(|| zone.and_then(|z| z.expiry_date.date()));
    match expiry {
        None => not_applicable(NAME, "the document has no expiry date"),
        Some(expiry) if expiry < today => {
            failed(NAME, format!("expired on {expiry} (checked on {today})"))
        }
        Some(expiry) => passed(NAME, format!("valid until {expiry} (checked on {today})")),
    }
}

fn issue_date_valid(document: &Document, today: Date) -> Check {
    const NAME: &str = "ISSUE_DATE_VALID";
    let Some(issued) = full_date(document.issue_date) else {
        return not_applicable(NAME, "the document has no issue date");
    };
    if issued > today {
        return failed(NAME, format!("issued on {issued}, after today ({today})"));
    }
    if let Some(expiry) = full_date(document.expiry_date)
        && expiry <= issued
    {
        return failed(
            NAME,
            format!("issued on {issued}, not before its expiry {expiry}"),
        );
    }
    if let Some(born) = full_date(document.date_of_birth)
        && born > issued
    {
        return failed(
            NAME,
            format!("issued on {issued}, before its holder's birth {born}"),
        );
    }
    passed(NAME, format!("issued on {issued}"))
}

fn issuing_country_valid(document: &Document, zone: Option<&Mrz>) -> Check {
    const NAME: &str = "ISSUING_COUNTRY_VALID";
    let mut reasons = Vec::new();
    if let Some(country) = &document.issuing_country {
        reasons.push(format!(
            "'{}' is an ICAO 9303 issuing state code",
            country.as_str()
        ));
    }
    if let Some(zone) = zone {
        match IcaoCode::parse(&zone.issuing_state) {
            Ok(code) => reasons.push(format!(
                "the zone's '{}' is an ICAO 9303 issuing state code",
                code.as_str()
            )),
            Err(message) => {
                return failed(NAME, format!("the zone's issuing state: {message}"));
            }
        }
    }
    if reasons.is_empty() {
        not_applicable(
            NAME,
            "neither the document nor a zone names the issuing state",
        )
    } else {
        passed(NAME, reasons.join("; "))
    }
}

fn name_matches_entity(
    document: &Document,
    zone: Option<&Mrz>,
    entity: &Entity,
    names: &dyn NameMatcher,
) -> Check {
    const NAME: &str = "NAME_MATCHES_ENTITY";
    let on_document = if document.given_name.is_empty() && document.family_name.is_empty() {
        zone.map(|z| format!("{} {}", z.secondary_identifier, z.primary_identifier))
    } else {
        Some(format!("{} {}", document.given_name, document.family_name))
    }
    .map(|n| n.trim().to_owned())
    .filter(|n| !n.is_empty());
    let Some(on_document) = on_document else {
        return not_applicable(NAME, "the document names nobody");
    };
    let mut known = vec![entity.display_name.clone()];
    if let Some(individual) = &entity.individual {
        for person in individual.legal_name.iter().chain(&individual.other_names) {
            known.push(person.full());
        }
    }
    let best = known
        .iter()
        .filter(|n| !n.trim().is_empty())
        .map(|n| (names.similarity(&on_document, n), n))
        .fold(None, |best: Option<(f64, &String)>, candidate| match best {
            Some(b) if b.0 >= candidate.0 => Some(b),
            _ => Some(candidate),
        });
    match best {
        Some((score, name)) if score >= NAME_MATCH_THRESHOLD => passed(
            NAME,
            format!("'{on_document}' matches '{name}' (similarity {score:.2})"),
        ),
        Some((score, name)) => failed(
            NAME,
            format!(
                "'{on_document}' does not match the entity; the closest is '{name}' (similarity {score:.2}, {NAME_MATCH_THRESHOLD} needed)"
            ),
        ),
        None => not_applicable(NAME, "the entity has no name to compare"),
    }
}

fn date_of_birth_matches_entity(document: &Document, zone: Option<&Mrz>, entity: &Entity) -> Check {
    const NAME: &str = "DATE_OF_BIRTH_MATCHES_ENTITY";
    let Some(known) = entity.individual.as_ref().and_then(|i| i.date_of_birth) else {
        return not_applicable(NAME, "the entity has no date of birth");
    };
    let on_document =
        full_date(document.date_of_birth).or_else(|| zone.and_then(|z| z.birth_date.date()));
    match on_document {
        None => not_applicable(NAME, "the document has no full date of birth"),
        Some(born) if same_date(known, born) => {
            passed(NAME, format!("born on {born}, as the entity ({known})"))
        }
        Some(born) => failed(
            NAME,
            format!("the document says {born}; the entity says {known}"),
        ),
    }
}

#[cfg(test)]
mod tests;
