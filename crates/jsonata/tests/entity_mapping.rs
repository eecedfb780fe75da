//! The mapping step end to end with the real engine: a response mapped by a JSONata
//! expression gives an entity body that the entities API's validation accepts, or
//! refuses naming the path.

use rics_domain::entity::Entity;
use rics_domain::entity::fields::TABLE;
use rics_domain::entity::validate::validate_entity;
use rics_domain::error::{Code, Result};
use rics_domain::onboarding::entity_body;
use rics_domain::onboarding::mapping::{JSONATA_EVALUATION_FAILED, MAPPING_FIELD};
use rics_domain::resource::parse_body;
use rics_jsonata::JsonataMapping;
use serde_json::{Map, Value, json};
use time::macros::date;

const MAPPING: &str = r#"{
    "displayName": givenName & " " & familyName,
    "individual": {
        "legalName": {"givenName": givenName, "familyName": familyName},
        "dateOfBirth": dateOfBirth
    }
}"#;

fn response(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// What `POST /v1alpha/entities` does to a body before storing it.
fn as_the_entities_api_validates(body: Value) -> Result<Entity> {
    let body = rics_domain::fields::input(&TABLE, body, "entity")?;
    let mut entity: Entity = parse_body(body, "entity")?;
    validate_entity(&mut entity, date!(2026 - 11 - 25))?;
    Ok(entity)
}

#[test]
fn a_response_maps_to_an_individual_that_the_entities_api_accepts() {
    let mapping = JsonataMapping::parse(MAPPING, MAPPING_FIELD).unwrap();
    let body = entity_body(
        &mapping,
        &response(
            json!({"givenName": "Ada", "familyName": "Lovelace", "dateOfBirth": "1815-12-10"}),
        ),
    )
    .unwrap();
    assert_eq!(body["entityType"], "INDIVIDUAL");
    let entity = as_the_entities_api_validates(body).unwrap();
    assert_eq!(entity.display_name, "Ada Lovelace");
}

#[test]
fn an_invalid_mapped_entity_is_refused_naming_the_path() {
    let mapping = JsonataMapping::parse(MAPPING, MAPPING_FIELD).unwrap();
    let body = entity_body(
        &mapping,
        &response(
            json!({"givenName": "Ada", "familyName": "Lovelace", "dateOfBirth": "1700-01-01"}),
        ),
    )
    .unwrap();
    let err = as_the_entities_api_validates(body).unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument);
    assert!(
        err.field_violations
            .iter()
            .any(|v| v.field == "entity.individual.dateOfBirth"),
        "{err:?}"
    );
}

#[test]
fn a_mapping_that_gives_no_object_fails_naming_the_expression() {
    for source in ["givenName", "[givenName]", "nothing.here"] {
        let mapping = JsonataMapping::parse(source, MAPPING_FIELD).unwrap();
        let err = entity_body(&mapping, &response(json!({"givenName": "Ada"}))).unwrap_err();
        assert_eq!(err.reason, JSONATA_EVALUATION_FAILED, "{source}");
        assert_eq!(err.metadata["field"], MAPPING_FIELD);
    }
}

#[test]
fn a_mapping_naming_another_entity_type_is_refused() {
    let mapping = JsonataMapping::parse(
        r#"{"displayName": "X", "entityType": "COMPANY"}"#,
        MAPPING_FIELD,
    )
    .unwrap();
    let err = entity_body(&mapping, &Map::new()).unwrap_err();
    assert_eq!(err.field_violations[0].field, "entity.entityType");
}
