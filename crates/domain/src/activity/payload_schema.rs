//! The JSON Schemas of activity payloads, checked with the `jsonschema` crate: an
//! activity log type's `payloadSchema` must be a valid schema, and the `payload` of
//! each log of the type must satisfy it.
//!
//! The draft is the one `$schema` names (draft 4 to 2020-12), 2020-12 without it.
//! Only references inside the schema resolve: nothing is ever fetched, from the
//! network or from files.

use jsonschema::Validator;
use serde_json::{Map, Value};

use crate::error::FieldViolation;

/// Most violations reported for one payload; the first ones found are kept.
pub const MAX_PAYLOAD_VIOLATIONS: usize = 100;

/// Longest violation description; a longer one (quoting a large value) names the
/// value `value` instead.
const MAX_DESCRIPTION: usize = 300;

/// A compiled payload schema.
pub struct PayloadSchema(Validator);

impl std::fmt::Debug for PayloadSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PayloadSchema")
    }
}

impl PayloadSchema {
    /// Compiles `schema`, checking it against its draft's meta-schema.
    ///
    /// # Errors
    /// Why `schema` is not a usable JSON Schema: it breaks its meta-schema (with the
    /// location of the fault), or it refers to a document outside itself.
    pub fn compile(schema: &Map<String, Value>) -> Result<PayloadSchema, String> {
        let schema = Value::Object(schema.clone());
        jsonschema::options()
            .offline()
            .build(&schema)
            .map(PayloadSchema)
            .map_err(|error| {
                let location = error.instance_path().as_str();
                let problem = shorten(&error.to_string());
                if location.is_empty() {
                    format!("is not a valid JSON Schema: {problem}")
                } else {
                    format!("is not a valid JSON Schema: at {location}: {problem}")
                }
            })
    }

    /// The ways `payload` breaks the schema, at most [`MAX_PAYLOAD_VIOLATIONS`], each
    /// naming the offending value's path under `field`: `activityLog.payload.amount`,
    /// `activityLog.payload.items[0]`, and a key that is not a plain word in backticks
    /// (``activityLog.payload.`first name` ``).
    pub fn violations(&self, payload: &Value, field: &str) -> Vec<FieldViolation> {
        self.0
            .iter_errors(payload)
            .take(MAX_PAYLOAD_VIOLATIONS)
            .map(|error| FieldViolation {
                field: value_path(field, payload, error.instance_path()),
                description: describe(&error),
                reason: "PAYLOAD_SCHEMA_VIOLATION",
            })
            .collect()
    }
}

/// The request path of the value at `location` in `payload`, under `prefix`. The
/// payload itself tells whether a numeric segment is an array index or an object key.
pub(crate) fn value_path(
    prefix: &str,
    payload: &Value,
    location: &jsonschema::paths::Location,
) -> String {
    let mut path = prefix.to_owned();
    let mut current = Some(payload);
    for segment in location.iter() {
        let text = segment.to_string();
        match current {
            Some(Value::Array(items)) => {
                path.push_str(&format!("[{text}]"));
                current = text.parse::<usize>().ok().and_then(|i| items.get(i));
            }
            other => {
                let plain =
                    !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if plain {
                    path.push_str(&format!(".{text}"));
                } else {
                    path.push_str(&format!(".`{text}`"));
                }
                current = other.and_then(|value| value.get(&text));
            }
        }
    }
    path
}

/// What is wrong with the value, quoting it when it is short enough
/// (`"high" is not of type "number"`), else calling it `value`.
pub(crate) fn describe(error: &jsonschema::ValidationError<'_>) -> String {
    let full = error.to_string();
    if full.chars().count() <= MAX_DESCRIPTION {
        full
    } else {
        shorten(&error.masked().to_string())
    }
}

/// `text`, cut at [`MAX_DESCRIPTION`] characters.
fn shorten(text: &str) -> String {
    if text.chars().count() <= MAX_DESCRIPTION {
        text.to_owned()
    } else {
        let cut: String = text.chars().take(MAX_DESCRIPTION).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(value: Value) -> Result<PayloadSchema, String> {
        match value {
            Value::Object(map) => PayloadSchema::compile(&map),
            _ => panic!("not an object"),
        }
    }

    #[test]
    fn invalid_schemas_are_refused_with_their_fault() {
        let problem = schema(json!({"type": 5})).unwrap_err();
        assert!(
            problem.starts_with("is not a valid JSON Schema"),
            "{problem}"
        );
        assert!(problem.contains("/type"), "{problem}");
        let remote = schema(json!({"$ref": "https://example.com/x.json"})).unwrap_err();
        assert!(remote.contains("is not a valid JSON Schema"), "{remote}");
        assert!(schema(json!({"$defs": {"a": {"type": "string"}}, "$ref": "#/$defs/a"})).is_ok());
    }

    #[test]
    fn each_violation_names_the_value_path() {
        let compiled = schema(json!({
            "type": "object",
            "required": ["amount"],
            "properties": {
                "amount": {"type": "number"},
                "items": {"type": "array", "items": {"type": "string"}},
                "first name": {"type": "string"},
                "7": {"type": "string"}
            }
        }))
        .unwrap();
        let payload = json!({"items": ["a", 2], "first name": 3, "7": 7});
        let found: Vec<(String, &str)> = compiled
            .violations(&payload, "activityLog.payload")
            .into_iter()
            .map(|v| (v.field, v.reason))
            .collect();
        let fields: Vec<&str> = found.iter().map(|(f, _)| f.as_str()).collect();
        for expected in [
            "activityLog.payload",
            "activityLog.payload.items[1]",
            "activityLog.payload.`first name`",
            "activityLog.payload.7",
        ] {
            assert!(fields.contains(&expected), "{expected} in {fields:?}");
        }
        assert!(found.iter().all(|(_, r)| *r == "PAYLOAD_SCHEMA_VIOLATION"));
        assert!(
            compiled
                .violations(&json!({"amount": 1}), "activityLog.payload")
                .is_empty()
        );
    }

    #[test]
    fn descriptions_are_readable_and_bounded() {
        let compiled = schema(json!({"properties": {"a": {"type": "integer"}}})).unwrap();
        let violations = compiled.violations(&json!({"a": "x".repeat(1000)}), "p");
        assert!(violations[0].description.contains("integer"));
        assert!(violations[0].description.chars().count() <= MAX_DESCRIPTION + 1);
        let many = schema(json!({"items": {"type": "string"}})).unwrap();
        let payload = Value::Array((0..500).map(Value::from).collect());
        assert_eq!(many.violations(&payload, "p").len(), MAX_PAYLOAD_VIOLATIONS);
    }
}
