//! The mapping step of an onboarding: the job's JSONata expression turns the submitted
//! form's `response` (the expression's root `$`) into an entity body as
//! `POST /v1alpha/entities` takes it, with `entityType` INDIVIDUAL implied. The body is
//! then created or applied through the entity service, which validates it exactly as
//! that API does and names the bad path (`entity.individual.dateOfBirth`).

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::jsonata::{JSONATA_EVALUATION_FAILED, JsonataMapping};

/// The request field the mapping came from, named by its errors.
pub const MAPPING_FIELD: &str = "job.jsonataExpression";

/// The entity body `mapping` makes of `response`.
///
/// # Errors
/// FAILED_PRECONDITION `JSONATA_EVALUATION_FAILED` naming `job.jsonataExpression` when
/// the evaluation fails or gives no object; INVALID_ARGUMENT `ENTITY_TYPE_NOT_INDIVIDUAL`
/// on `entity.entityType` when the mapping names another type.
pub fn entity_body(mapping: &JsonataMapping, response: &Map<String, Value>) -> Result<Value> {
    let mapped = mapping.evaluate(&Value::Object(response.clone()), MAPPING_FIELD)?;
    let mut body = match mapped {
        Some(Value::Object(body)) => body,
        Some(other) => return Err(not_an_object(kind_of(&other))),
        None => return Err(not_an_object("nothing")),
    };
    match body.get("entityType") {
        None | Some(Value::Null) => {
            body.insert("entityType".into(), Value::from("INDIVIDUAL"));
        }
        Some(Value::String(given)) if given == "INDIVIDUAL" => {}
        Some(other) => {
            return Err(Error::invalid_field(
                "entity.entityType",
                "ENTITY_TYPE_NOT_INDIVIDUAL",
                format!("an onboarding makes an INDIVIDUAL; the mapping gave {other}"),
            ));
        }
    }
    Ok(Value::Object(body))
}

fn not_an_object(gave: &str) -> Error {
    Error::failed_precondition(
        JSONATA_EVALUATION_FAILED,
        format!("'{MAPPING_FIELD}' must give an entity object; it gave {gave}"),
    )
    .with_metadata("field", MAPPING_FIELD)
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use time::macros::date;

    use super::*;
    use crate::entity::Entity;
    use crate::entity::fields::TABLE;
    use crate::entity::validate::validate_entity;
    use crate::error::Code;
    use crate::resource::parse_body;

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
        let body = crate::fields::input(&TABLE, body, "entity")?;
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
}
