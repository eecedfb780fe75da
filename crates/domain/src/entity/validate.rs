//! The rules an entity must satisfy before it is stored.

use std::collections::BTreeSet;

use time::Date;

use super::model::{
    Address, ContactInfo, Entity, EntityType, Individual, PersonName, RegisteredParty,
};
use crate::error::{Error, Result};
use crate::validate::Violations;

/// Longest display name.
pub const MAX_DISPLAY_NAME: usize = 200;
/// Most tags on one entity.
pub const MAX_TAGS: usize = 100;
/// Longest tag.
pub const MAX_TAG_LENGTH: usize = 64;
/// Most external ids on one entity.
pub const MAX_EXTERNAL_IDS: usize = 50;
/// Longest external id value.
pub const MAX_EXTERNAL_ID_VALUE: usize = 256;
/// Most items in the lists of an entity (names, nationalities, emails, ...).
pub const MAX_LIST_ITEMS: usize = 20;
/// Longest free-text field other than the display name.
pub const MAX_TEXT: usize = 200;
/// Longest part of a person's name (given names, middle names, family name).
pub const MAX_NAME_PART: usize = 100;
/// Longest registration number of a company or other registered party.
pub const MAX_REGISTRATION_NUMBER: usize = 100;
/// Most nationalities of one individual, after duplicates are removed.
pub const MAX_NATIONALITIES: usize = 10;
/// Most lines of one address.
pub const MAX_ADDRESS_LINES: usize = 5;
/// Longest locality or region of an address.
pub const MAX_ADDRESS_PART: usize = 100;
/// Longest postal code.
pub const MAX_POSTAL_CODE: usize = 20;
/// Longest email address (RFC 5321's path limit less its angle brackets).
pub const MAX_EMAIL: usize = 254;
/// Earliest year of birth accepted.
pub const MIN_BIRTH_YEAR: i32 = 1800;

const PREFIX: &str = "entity";

/// Checks an entity and normalises it in place: infers `entityType` from the details
/// object when it is unset, and removes duplicate tags and nationalities (keeping the
/// first). `today` bounds dates of birth.
///
/// # Errors
/// INVALID_ARGUMENT listing every violation, with request paths such as
/// `entity.individual.nationalities[1]`.
pub fn validate_entity(entity: &mut Entity, today: Date) -> Result<()> {
    let mut v = Violations::new();
    v.required_text(
        &format!("{PREFIX}.displayName"),
        &entity.display_name,
        MAX_DISPLAY_NAME,
    );
    check_type(entity, &mut v);
    if let Some(individual) = &mut entity.individual {
        check_individual(individual, today, &mut v);
    }
    if let Some(company) = &entity.company {
        let field = format!("{PREFIX}.company");
        v.optional_text(&format!("{field}.legalName"), &company.legal_name, MAX_TEXT);
        v.optional_text(&format!("{field}.industry"), &company.industry, MAX_TEXT);
        v.optional_text(
            &format!("{field}.registrationNumber"),
            &company.registration_number,
            MAX_REGISTRATION_NUMBER,
        );
    }
    for (field, party) in [
        ("trust", &entity.trust),
        ("partnership", &entity.partnership),
        ("soleProprietor", &entity.sole_proprietor),
    ] {
        if let Some(party) = party {
            check_party(&format!("{PREFIX}.{field}"), party, &mut v);
        }
    }
    if let Some(contact) = &entity.contact_info {
        check_contact(contact, &mut v);
    }
    check_external_ids(entity, &mut v);
    dedupe(&mut entity.tags);
    check_tags(&entity.tags, &mut v);
    if v.is_empty() {
        Ok(())
    } else {
        Err(Error::invalid_fields(v.into_vec()))
    }
}

/// Checks one tag, as given to `:addTag` or in `tags`.
///
/// # Errors
/// A description of the problem.
pub fn check_tag(tag: &str) -> std::result::Result<(), String> {
    let length = tag.chars().count();
    if length == 0 {
        return Err("must not be empty".into());
    }
    if length > MAX_TAG_LENGTH {
        return Err(format!(
            "must be at most {MAX_TAG_LENGTH} characters (got {length})"
        ));
    }
    if tag.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("must not contain whitespace or control characters".into());
    }
    Ok(())
}

fn check_type(entity: &mut Entity, v: &mut Violations) {
    let details = [
        entity.individual.is_some(),
        entity.company.is_some(),
        entity.trust.is_some(),
        entity.partnership.is_some(),
        entity.sole_proprietor.is_some(),
    ]
    .iter()
    .filter(|present| **present)
    .count();
    if details != 1 {
        v.add(
            PREFIX,
            "ONE_DETAILS_OBJECT",
            format!(
                "exactly one of individual, company, trust, partnership or soleProprietor must be set (got {details})"
            ),
        );
        return;
    }
    let implied = entity.implied_type().unwrap_or(EntityType::Unspecified);
    if entity.entity_type.is_unspecified() {
        entity.entity_type = implied;
    } else if entity.entity_type != implied {
        v.add(
            format!("{PREFIX}.entityType"),
            "TYPE_MISMATCH",
            format!(
                "{} entities carry their details in '{}', not in '{}'",
                entity.entity_type,
                Entity::details_field(entity.entity_type),
                Entity::details_field(implied)
            ),
        );
    }
}

fn check_name(field: &str, name: &PersonName, v: &mut Violations) {
    if name.given_name.trim().is_empty() && name.family_name.trim().is_empty() {
        v.add(field, "REQUIRED", "needs a givenName or a familyName");
    }
    v.optional_text(
        &format!("{field}.givenName"),
        &name.given_name,
        MAX_NAME_PART,
    );
    v.optional_text(
        &format!("{field}.middleNames"),
        &name.middle_names,
        MAX_NAME_PART,
    );
    v.optional_text(
        &format!("{field}.familyName"),
        &name.family_name,
        MAX_NAME_PART,
    );
}

fn check_individual(individual: &mut Individual, today: Date, v: &mut Violations) {
    let field = format!("{PREFIX}.individual");
    if let Some(name) = &individual.legal_name {
        check_name(&format!("{field}.legalName"), name, v);
    }
    v.max_items(
        &format!("{field}.otherNames"),
        &individual.other_names,
        MAX_LIST_ITEMS,
    );
    for (i, name) in individual.other_names.iter().enumerate() {
        check_name(&format!("{field}.otherNames[{i}]"), name, v);
    }
    if let Some(date) = individual.date_of_birth {
        let path = format!("{field}.dateOfBirth");
        if date.year < MIN_BIRTH_YEAR {
            v.add(
                &path,
                "OUT_OF_RANGE",
                format!("must not be before {MIN_BIRTH_YEAR}"),
            );
        } else if date.earliest().is_some_and(|d| d > today) {
            v.add(&path, "IN_THE_FUTURE", "must not be in the future");
        }
    }
    v.optional_text(
        &format!("{field}.placeOfBirth"),
        &individual.place_of_birth,
        MAX_TEXT,
    );
    dedupe(&mut individual.nationalities);
    v.max_items(
        &format!("{field}.nationalities"),
        &individual.nationalities,
        MAX_NATIONALITIES,
    );
    v.optional_text(
        &format!("{field}.occupation"),
        &individual.occupation,
        MAX_TEXT,
    );
}

fn check_party(field: &str, party: &RegisteredParty, v: &mut Violations) {
    v.required_text(&format!("{field}.legalName"), &party.legal_name, MAX_TEXT);
    v.optional_text(
        &format!("{field}.tradingName"),
        &party.trading_name,
        MAX_TEXT,
    );
    v.optional_text(
        &format!("{field}.registrationNumber"),
        &party.registration_number,
        MAX_REGISTRATION_NUMBER,
    );
}

fn check_contact(contact: &ContactInfo, v: &mut Violations) {
    let field = format!("{PREFIX}.contactInfo");
    v.max_items(&format!("{field}.emails"), &contact.emails, MAX_LIST_ITEMS);
    for (i, email) in contact.emails.iter().enumerate() {
        if email.len() > MAX_EMAIL || !email_address::EmailAddress::is_valid(email) {
            v.add(
                format!("{field}.emails[{i}]"),
                "INVALID_EMAIL",
                format!("'{email}' is not an email address"),
            );
        }
    }
    v.max_items(
        &format!("{field}.phoneNumbers"),
        &contact.phone_numbers,
        MAX_LIST_ITEMS,
    );
    for (i, phone) in contact.phone_numbers.iter().enumerate() {
        if let Err(problem) = check_phone(phone) {
            v.add(
                format!("{field}.phoneNumbers[{i}]"),
                "INVALID_PHONE_NUMBER",
                problem,
            );
        }
    }
    v.max_items(
        &format!("{field}.addresses"),
        &contact.addresses,
        MAX_LIST_ITEMS,
    );
    for (i, address) in contact.addresses.iter().enumerate() {
        check_address(&format!("{field}.addresses[{i}]"), address, v);
    }
}

fn check_phone(phone: &str) -> std::result::Result<(), String> {
    let body = phone.strip_prefix('+').unwrap_or(phone);
    if !body
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, ' ' | '-' | '.' | '(' | ')'))
    {
        return Err(format!(
            "'{phone}' may contain only digits, a leading +, spaces, hyphens, dots and parentheses"
        ));
    }
    let digits = body.chars().filter(char::is_ascii_digit).count();
    if !(6..=15).contains(&digits) {
        return Err(format!("'{phone}' must have 6 to 15 digits (got {digits})"));
    }
    Ok(())
}

fn check_address(field: &str, address: &Address, v: &mut Violations) {
    v.max_items(&format!("{field}.lines"), &address.lines, MAX_ADDRESS_LINES);
    for (i, line) in address.lines.iter().enumerate() {
        v.optional_text(&format!("{field}.lines[{i}]"), line, MAX_TEXT);
    }
    v.optional_text(
        &format!("{field}.locality"),
        &address.locality,
        MAX_ADDRESS_PART,
    );
    v.optional_text(
        &format!("{field}.region"),
        &address.region,
        MAX_ADDRESS_PART,
    );
    v.optional_text(
        &format!("{field}.postalCode"),
        &address.postal_code,
        MAX_POSTAL_CODE,
    );
}

fn check_external_ids(entity: &Entity, v: &mut Violations) {
    let field = format!("{PREFIX}.externalIds");
    if entity.external_ids.len() > MAX_EXTERNAL_IDS {
        v.add(
            &field,
            "TOO_MANY_ITEMS",
            format!("must have at most {MAX_EXTERNAL_IDS} entries"),
        );
    }
    for (key, value) in &entity.external_ids {
        let valid_key = !key.is_empty()
            && key.len() <= 63
            && key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !valid_key {
            v.add(
                format!("{field}.{key}"),
                "INVALID_KEY",
                "keys are 1 to 63 characters of letters, digits, '_' and '-'",
            );
        }
        if value.is_empty() {
            v.add(
                format!("{field}.{key}"),
                "REQUIRED",
                "the value must not be empty",
            );
        }
        v.optional_text(&format!("{field}.{key}"), value, MAX_EXTERNAL_ID_VALUE);
    }
}

fn check_tags(tags: &[String], v: &mut Violations) {
    let field = format!("{PREFIX}.tags");
    v.max_items(&field, tags, MAX_TAGS);
    for (i, tag) in tags.iter().enumerate() {
        if let Err(problem) = check_tag(tag) {
            v.add(format!("{field}[{i}]"), "INVALID_TAG", problem);
        }
    }
}

fn dedupe<T: Ord + Clone>(items: &mut Vec<T>) {
    let mut seen = BTreeSet::new();
    items.retain(|item| seen.insert(item.clone()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::{CountryCode, PartialDate};
    use time::macros::date;

    fn person() -> Entity {
        Entity {
            display_name: "Jane Doe".into(),
            individual: Some(Individual {
                legal_name: Some(PersonName {
                    given_name: "Jane".into(),
                    family_name: "Doe".into(),
                    ..PersonName::default()
                }),
                ..Individual::default()
            }),
            ..Entity::default()
        }
    }

    fn violations(entity: &mut Entity) -> Vec<(String, &'static str)> {
        match validate_entity(entity, date!(2026 - 11 - 22)) {
            Ok(()) => vec![],
            Err(e) => e
                .field_violations
                .into_iter()
                .map(|v| (v.field, v.reason))
                .collect(),
        }
    }

    #[test]
    fn a_valid_person_passes_and_gets_its_type() {
        let mut entity = person();
        assert!(violations(&mut entity).is_empty());
        assert_eq!(entity.entity_type, EntityType::Individual);
    }

    #[test]
    fn display_name_is_required_and_bounded() {
        let mut entity = person();
        entity.display_name = String::new();
        assert_eq!(
            violations(&mut entity),
            vec![("entity.displayName".into(), "REQUIRED")]
        );
        entity.display_name = "x".repeat(201);
        assert_eq!(
            violations(&mut entity),
            vec![("entity.displayName".into(), "TOO_LONG")]
        );
    }

    #[test]
    fn type_must_match_details() {
        let mut entity = person();
        entity.entity_type = EntityType::Company;
        assert_eq!(
            violations(&mut entity),
            vec![("entity.entityType".into(), "TYPE_MISMATCH")]
        );
        let mut none = Entity {
            display_name: "X".into(),
            ..Entity::default()
        };
        assert_eq!(
            violations(&mut none),
            vec![("entity".into(), "ONE_DETAILS_OBJECT")]
        );
    }

    #[test]
    fn birth_dates_are_bounded() {
        let mut entity = person();
        if let Some(i) = entity.individual.as_mut() {
            i.date_of_birth = Some(PartialDate::parse("2027").unwrap());
        }
        assert_eq!(
            violations(&mut entity),
            vec![("entity.individual.dateOfBirth".into(), "IN_THE_FUTURE")]
        );
        if let Some(i) = entity.individual.as_mut() {
            i.date_of_birth = Some(PartialDate::parse("1700-01-01").unwrap());
        }
        assert_eq!(
            violations(&mut entity),
            vec![("entity.individual.dateOfBirth".into(), "OUT_OF_RANGE")]
        );
    }

    #[test]
    fn duplicates_are_removed_keeping_order() {
        let mut entity = person();
        entity.tags = vec!["b".into(), "a".into(), "b".into()];
        if let Some(i) = entity.individual.as_mut() {
            i.nationalities = vec![
                CountryCode::parse("FR").unwrap(),
                CountryCode::parse("fr").unwrap(),
            ];
        }
        assert!(violations(&mut entity).is_empty());
        assert_eq!(entity.tags, vec!["b".to_string(), "a".to_string()]);
        assert_eq!(entity.individual.unwrap().nationalities.len(), 1);
    }

    #[test]
    fn contact_details_are_checked() {
        let mut entity = person();
        entity.contact_info = Some(ContactInfo {
            emails: vec!["jane@example.com".into(), "not-an-email".into()],
            phone_numbers: vec!["+33 1 23 45 67 89".into(), "call me".into()],
            addresses: vec![],
        });
        assert_eq!(
            violations(&mut entity),
            vec![
                ("entity.contactInfo.emails[1]".into(), "INVALID_EMAIL"),
                (
                    "entity.contactInfo.phoneNumbers[1]".into(),
                    "INVALID_PHONE_NUMBER"
                ),
            ]
        );
    }

    #[test]
    fn tags_and_external_ids_are_checked() {
        let mut entity = person();
        entity.tags = vec!["ok".into(), "has space".into()];
        entity.external_ids.insert("crm".into(), "42".into());
        entity.external_ids.insert("bad key".into(), "1".into());
        assert_eq!(
            violations(&mut entity),
            vec![
                ("entity.externalIds.bad key".into(), "INVALID_KEY"),
                ("entity.tags[1]".into(), "INVALID_TAG"),
            ]
        );
    }
}
