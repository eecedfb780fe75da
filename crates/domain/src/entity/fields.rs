//! The entity's declarations for the AIP machinery: which fields a filter may use,
//! how update masks treat each field, and how lists page and sort.

use std::sync::LazyLock;

use rics_aip::field_mask::{Behavior, FieldKind, FieldTable};
use rics_aip::filter::{FieldType, FilterSchema};

use super::model::{
    Entity, EntityType, RiskLevel, RiskStatus, ScreeningStatus, VerificationStatus,
};
use super::relationship::RelationshipType;
use crate::list::ListSpec;

/// What entity list filters may refer to. A bare word searches `displayName` fuzzily.
pub static FILTER: LazyLock<FilterSchema> = LazyLock::new(|| {
    FilterSchema::new()
        .global_search_field("displayName")
        .field("entityType", FieldType::Enum(EntityType::VALUES))
        .field("tags", FieldType::RepeatedString)
        .field("externalIds", FieldType::Map)
        .field("createTime", FieldType::Timestamp)
        .field("updateTime", FieldType::Timestamp)
        .field("deleteTime", FieldType::Timestamp)
        .field("riskDetails.riskLevel", FieldType::Enum(RiskLevel::VALUES))
        .field(
            "riskDetails.riskStatus",
            FieldType::EnumWithAliases(RiskStatus::VALUES, RiskStatus::ALIASES),
        )
        .field("screeningStatus", FieldType::Enum(ScreeningStatus::VALUES))
        .field(
            "verificationStatus",
            FieldType::Enum(VerificationStatus::VALUES),
        )
        .field("legalHold", FieldType::Bool)
        .field("monitoring", FieldType::Bool)
});

/// How entities are listed: 50 per page by default, at most 1000, oldest first.
pub static LIST: LazyLock<ListSpec> = LazyLock::new(|| {
    ListSpec::new("entities.list", &FILTER)
        .sortable(&["displayName", "createTime", "updateTime"])
        .soft_deletable()
});

/// What relationship list filters may refer to.
pub static RELATIONSHIP_FILTER: LazyLock<FilterSchema> = LazyLock::new(|| {
    FilterSchema::new()
        .field(
            "relationshipType",
            FieldType::Enum(RelationshipType::VALUES),
        )
        .field("createTime", FieldType::Timestamp)
});

/// How an entity's relationships are listed: 50 per page by default, at most 1000,
/// oldest first.
pub static RELATIONSHIP_LIST: LazyLock<ListSpec> =
    LazyLock::new(|| ListSpec::new("entities.relationships.list", &RELATIONSHIP_FILTER));

fn scalars(names: &[&'static str]) -> FieldTable {
    names.iter().fold(FieldTable::new(), |table, name| {
        table.field(name, FieldKind::Scalar, Behavior::Mutable)
    })
}

fn party() -> FieldTable {
    scalars(&[
        "legalName",
        "tradingName",
        "registrationNumber",
        "countryOfRegistration",
    ])
}

/// Every field of the entity JSON with its update behaviour.
pub static TABLE: LazyLock<FieldTable> = LazyLock::new(|| {
    use Behavior::{Immutable, Mutable, OutputOnly, Required};
    use FieldKind::{Map, Message, Repeated, Scalar};
    let person_name = scalars(&["givenName", "middleNames", "familyName"]);
    let individual = scalars(&[
        "dateOfBirth",
        "placeOfBirth",
        "countryOfBirth",
        "countryOfResidence",
        "gender",
        "occupation",
    ])
    .field("legalName", Message(person_name), Mutable)
    .field("otherNames", Repeated, Mutable)
    .field("nationalities", Repeated, Mutable);
    let company = scalars(&[
        "legalName",
        "type",
        "industry",
        "registrationNumber",
        "countryOfIncorporation",
    ]);
    let contact = FieldTable::new()
        .field("emails", Repeated, Mutable)
        .field("phoneNumbers", Repeated, Mutable)
        .field("addresses", Repeated, Mutable);
    FieldTable::new()
        .output_only(Entity::STANDARD_FIELDS)
        .field("entityType", Scalar, Immutable)
        .field("displayName", Scalar, Required)
        .field("individual", Message(individual), Mutable)
        .field("company", Message(company), Mutable)
        .field("trust", Message(party()), Mutable)
        .field("partnership", Message(party()), Mutable)
        .field("soleProprietor", Message(party()), Mutable)
        .field("contactInfo", Message(contact), Mutable)
        .field("externalIds", Map, Mutable)
        .field("tags", Repeated, Mutable)
        .field("riskDetails", Scalar, OutputOnly)
        .field("screeningStatus", Scalar, OutputOnly)
        .field("verificationStatus", Scalar, OutputOnly)
        .field("legalHold", Scalar, Mutable)
        .field("monitoring", FieldKind::OptionalScalar, Mutable)
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entity::model::Entity;
    use serde_json::{Value, json};

    #[test]
    fn every_serialised_field_is_declared() {
        let full: Entity = serde_json::from_value(json!({
            "displayName": "X",
            "individual": {"legalName": {"givenName": "a", "middleNames": "b", "familyName": "c"},
                           "otherNames": [{"givenName": "d"}], "dateOfBirth": "1970", "placeOfBirth": "p",
                           "nationalities": ["FR"], "countryOfResidence": "FR", "countryOfBirth": "DZ", "gender": "FEMALE", "occupation": "o"},
            "contactInfo": {"emails": ["a@b.co"], "phoneNumbers": ["+331234567"], "addresses": [{"locality": "x"}]},
            "externalIds": {"crm": "1"}, "tags": ["t"], "legalHold": true, "monitoring": false
        }))
        .unwrap();
        let value = serde_json::to_value(&full).unwrap();
        fn walk(table: &FieldTable, value: &Value, path: &str) {
            for (key, member) in value.as_object().unwrap() {
                let field = table
                    .get(key)
                    .unwrap_or_else(|| panic!("{path}{key} is not declared"));
                if let FieldKind::Message(inner) = &field.kind {
                    walk(inner, member, &format!("{path}{key}."));
                }
            }
        }
        walk(&TABLE, &value, "");
    }

    #[test]
    fn output_only_input_is_dropped() {
        let body = crate::fields::input(
            &TABLE,
            json!({"displayName": "A", "createTime": "garbage", "etag": "x", "uid": null}),
            "entity",
        )
        .unwrap();
        assert_eq!(body, json!({"displayName": "A"}));
    }

    #[test]
    fn unknown_mask_paths_name_update_mask() {
        let error = crate::fields::update_mask(&TABLE, Some("colour")).unwrap_err();
        assert_eq!(error.field_violations[0].field, "updateMask");
    }
}
