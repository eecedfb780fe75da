//! The mapping step of an onboarding: the job's JSONata expression turns the submitted
//! form's `response` (the expression's root `$`) into an entity body as
//! `POST /v1alpha/entities` takes it, with `entityType` INDIVIDUAL implied. The body is
//! then created or applied through the entity service, which validates it exactly as
//! that API does and names the bad path (`entity.individual.dateOfBirth`).
//!
//! The domain holds the port ([`MappingEngine`], [`CompiledMapping`]); the engine is an
//! adapter (the `rics-jsonata` crate over `jsonata-rs`), wired by the app, so that the
//! domain builds and tests without a JSONata implementation.

use std::fmt::Debug;
use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// The request field the mapping came from, named by its errors.
pub const MAPPING_FIELD: &str = "job.jsonataExpression";
/// The reason of an expression that is not base64, not UTF-8 or does not parse.
pub const INVALID_JSONATA: &str = "INVALID_JSONATA";
/// The reason of an expression that calls a built-in function the engine lacks (or one
/// of the clock or chance, which rics refuses).
pub const UNSUPPORTED_JSONATA_FUNCTION: &str = "UNSUPPORTED_JSONATA_FUNCTION";
/// The reason of an evaluation that failed: a type error, `$error`, a bound exceeded, or
/// a result that is not JSON or not an entity object.
pub const JSONATA_EVALUATION_FAILED: &str = "JSONATA_EVALUATION_FAILED";

/// Checks JSONata expressions and compiles them for evaluation: the port the JSONata
/// adapter implements.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
pub trait MappingEngine: Send + Sync {
    /// Checks `expression` (UTF-8 bytes): it must parse and call no function rics does
    /// not support. `field` names where the expression came from in the caller's
    /// request, for the error and for later evaluation failures.
    ///
    /// # Errors
    /// INVALID_ARGUMENT on `field`, reason [`INVALID_JSONATA`] (not UTF-8, does not
    /// parse) or [`UNSUPPORTED_JSONATA_FUNCTION`].
    fn parse(&self, expression: &[u8], field: &str) -> Result<Arc<dyn CompiledMapping>>;
}

/// A checked expression, ready to evaluate any number of times.
pub trait CompiledMapping: Send + Sync + Debug {
    /// The expression's text.
    fn source(&self) -> &str;

    /// Evaluates the expression with `input` as its root `$`, bounded in time and
    /// depth. `None` when the result is undefined (nothing matched).
    ///
    /// # Errors
    /// FAILED_PRECONDITION [`JSONATA_EVALUATION_FAILED`] naming the field the
    /// expression came from: it was valid when accepted, and it is this input that it
    /// cannot map (or a bound was exceeded).
    fn evaluate(&self, input: &Value) -> Result<Option<Value>>;
}

/// The bytes of an expression sent as base64, as the API carries it.
///
/// # Errors
/// INVALID_ARGUMENT [`INVALID_JSONATA`] on `field` when it is not base64.
pub fn decode_expression(encoded: &str, field: &str) -> Result<Vec<u8>> {
    STANDARD
        .decode(encoded.trim())
        .map_err(|_| Error::invalid_field(field, INVALID_JSONATA, "the expression is not base64"))
}

/// The entity body `mapping` makes of `response`.
///
/// # Errors
/// FAILED_PRECONDITION `JSONATA_EVALUATION_FAILED` naming `job.jsonataExpression` when
/// the evaluation fails or gives no object; INVALID_ARGUMENT `ENTITY_TYPE_NOT_INDIVIDUAL`
/// on `entity.entityType` when the mapping names another type.
pub fn entity_body(mapping: &dyn CompiledMapping, response: &Map<String, Value>) -> Result<Value> {
    let mapped = mapping.evaluate(&Value::Object(response.clone()))?;
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

    use super::*;

    /// A mapping that gives `value` whatever its input.
    #[derive(Debug)]
    struct Gives(Option<Value>);

    impl CompiledMapping for Gives {
        fn source(&self) -> &str {
            "fixed"
        }

        fn evaluate(&self, _input: &Value) -> Result<Option<Value>> {
            Ok(self.0.clone())
        }
    }

    #[test]
    fn an_object_becomes_an_individual() {
        let body = entity_body(&Gives(Some(json!({"displayName": "Ada"}))), &Map::new()).unwrap();
        assert_eq!(
            body,
            json!({"displayName": "Ada", "entityType": "INDIVIDUAL"})
        );
    }

    #[test]
    fn a_mapping_that_gives_no_object_fails_naming_the_expression() {
        for gives in [Some(json!("Ada")), Some(json!(["Ada"])), None] {
            let err = entity_body(&Gives(gives.clone()), &Map::new()).unwrap_err();
            assert_eq!(err.reason, JSONATA_EVALUATION_FAILED, "{gives:?}");
            assert_eq!(err.metadata["field"], MAPPING_FIELD);
        }
    }

    #[test]
    fn a_mapping_naming_another_entity_type_is_refused() {
        let mapping = Gives(Some(json!({"displayName": "X", "entityType": "COMPANY"})));
        let err = entity_body(&mapping, &Map::new()).unwrap_err();
        assert_eq!(err.field_violations[0].field, "entity.entityType");
    }

    #[test]
    fn an_expression_that_is_not_base64_is_invalid_jsonata() {
        let err = decode_expression("not base64!", MAPPING_FIELD).unwrap_err();
        assert_eq!(err.reason, INVALID_JSONATA);
        assert_eq!(err.field_violations[0].field, MAPPING_FIELD);
        assert_eq!(
            decode_expression(&STANDARD.encode("a.b"), MAPPING_FIELD).unwrap(),
            b"a.b"
        );
    }
}
