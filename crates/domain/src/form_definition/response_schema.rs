//! The JSON Schema (draft 2020-12) of a form's response, derived from a definition's
//! schema, and the checks of responses against it with the `jsonschema` crate.
//!
//! A response is one flat object keyed by field key, with no other key
//! (`additionalProperties: false`). Each field's answer is typed by its field:
//!
//! | type | answer |
//! |---|---|
//! | TEXT | a string; `min`/`max` bound its length, `pattern` must match |
//! | EMAIL | a string of [`EMAIL_PATTERN`], at most 254 characters; `pattern` too |
//! | PHONE | a string of [`PHONE_PATTERN`]; `pattern` too |
//! | DATE | a full date `YYYY-MM-DD` ([`FULL_DATE_PATTERN`]); `min`/`max` bound it |
//! | COUNTRY | an assigned ISO 3166-1 alpha-2 code, upper case |
//! | SELECT | one of `options` |
//! | MULTISELECT | options, each once; `min`/`max` bound their count |
//! | CHECKBOX | `true` or `false`; `true` when required |
//! | NUMBER | a number; `min`/`max` bound it |
//! | FILE | a form file's name, `forms/{form}/files/{file}` |
//! | ADDRESS | `{lines[] (1 to 5), locality, region, postalCode, country}`, lines and country required |
//! | DOCUMENT | `{documentType, documentNumber, issuingCountry, expiryDate, mrz[], files[]}`, type and number required |
//!
//! A required field must be present. Bounds of dates are patterns over the text (the
//! order of `YYYY-MM-DD` texts is the order of their dates), so any draft 2020-12
//! validator, with or without format assertions, decides as the server does.
//!
//! A draft response (a form being filled in) is checked against a weaker schema:
//! only its keys and the JSON types of its answers ([`Completeness::Draft`]).

use jsonschema::Validator;
use jsonschema::error::ValidationErrorKind;
use serde_json::{Map, Value, json};

use super::model::{Bound, FieldType, FormField, FormSchema};
use crate::activity::payload_schema::{describe, value_path};
use crate::document::model::DocumentType;
use crate::entity::validate::{
    MAX_ADDRESS_LINES, MAX_ADDRESS_PART, MAX_EMAIL, MAX_POSTAL_CODE, MAX_TEXT,
};
use crate::error::{Error, FieldViolation, Result};
use crate::icao::IcaoCode;
use crate::values::{EMAIL_PATTERN, FULL_DATE_PATTERN, PHONE_PATTERN};

/// The name of a file of the form or of its entity, as FILE answers and a DOCUMENT's
/// `files` hold it.
pub const FORM_FILE_NAME_PATTERN: &str = "^(forms|entities)/[a-z0-9-]{1,63}/files/[a-z0-9-]{1,63}$";

/// An MRZ line as printed: 30, 36 or 44 of `A-Z 0-9 <`.
const MRZ_LINE_PATTERN: &str = "^([A-Z0-9<]{30}|[A-Z0-9<]{36}|[A-Z0-9<]{44})$";

/// A document number as printed: letters, digits, spaces and hyphens.
const DOCUMENT_NUMBER_PATTERN: &str = "^[A-Z0-9][A-Z0-9 -]{0,29}$";

/// Most files of a DOCUMENT answer.
pub const MAX_DOCUMENT_FILES: usize = 20;

/// Most violations reported for one response; the first ones found are kept.
pub const MAX_RESPONSE_VIOLATIONS: usize = 100;

/// The draft of JSON Schema the derived schemas declare.
const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

/// Which response a schema admits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completeness {
    /// A submitted response: every rule, required fields included.
    Complete,
    /// A response being filled in: known keys and the JSON types of the answers given.
    Draft,
}

/// The JSON Schema of a complete, valid response to `schema`: the definition's
/// `responseSchema`.
pub fn response_schema(schema: &FormSchema) -> Map<String, Value> {
    derive(schema, Completeness::Complete)
}

/// The JSON Schema of a response to `schema` as `completeness` admits it.
pub fn derive(schema: &FormSchema, completeness: Completeness) -> Map<String, Value> {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for field in schema.fields() {
        let mut answer = match completeness {
            Completeness::Complete => complete_answer(field),
            Completeness::Draft => draft_answer(field.field_type),
        };
        if let Value::Object(members) = &mut answer
            && completeness == Completeness::Complete
        {
            members.insert("title".into(), json!(field.label));
        }
        properties.insert(field.key.clone(), answer);
        if field.required && completeness == Completeness::Complete {
            required.push(json!(field.key));
        }
    }
    let mut root = Map::new();
    root.insert("$schema".into(), json!(DRAFT));
    root.insert("type".into(), json!("object"));
    root.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        root.insert("required".into(), Value::Array(required));
    }
    root.insert("additionalProperties".into(), json!(false));
    root
}

/// The schema of a complete answer to `field`.
fn complete_answer(field: &FormField) -> Value {
    let mut answer = match field.field_type {
        FieldType::Text | FieldType::Unspecified => json!({"type": "string"}),
        FieldType::Email => {
            json!({"type": "string", "maxLength": MAX_EMAIL, "pattern": EMAIL_PATTERN})
        }
        FieldType::Phone => json!({"type": "string", "pattern": PHONE_PATTERN}),
        FieldType::Date => json!({"type": "string", "pattern": FULL_DATE_PATTERN}),
        FieldType::Country => json!({"type": "string", "enum": country_codes()}),
        FieldType::Select => json!({"type": "string", "enum": field.options}),
        FieldType::Multiselect => json!({
            "type": "array",
            "items": {"type": "string", "enum": field.options},
            "uniqueItems": true,
        }),
        FieldType::Checkbox if field.required => json!({"type": "boolean", "const": true}),
        FieldType::Checkbox => json!({"type": "boolean"}),
        FieldType::Number => json!({"type": "number"}),
        FieldType::File => json!({"type": "string", "pattern": FORM_FILE_NAME_PATTERN}),
        FieldType::Address => address(),
        FieldType::Document => document(),
    };
    let Value::Object(members) = &mut answer else {
        return answer;
    };
    let (low, high) = match field.field_type {
        FieldType::Text => ("minLength", "maxLength"),
        FieldType::Multiselect => ("minItems", "maxItems"),
        FieldType::Number => ("minimum", "maximum"),
        _ => ("", ""),
    };
    let mut all_of = Vec::new();
    for (bound, keyword, side) in [
        (&field.min, low, Side::From),
        (&field.max, high, Side::Until),
    ] {
        match (bound, field.field_type) {
            (Some(Bound::Date(date)), FieldType::Date) => {
                all_of.push(json!({"pattern": date_bound_pattern(date, side)}));
            }
            (Some(Bound::Number(number)), _) if !keyword.is_empty() => {
                members.insert(keyword.into(), Value::Number(number.clone()));
            }
            _ => {}
        }
    }
    if !field.pattern.is_empty() {
        if members.contains_key("pattern") {
            all_of.push(json!({"pattern": field.pattern}));
        } else {
            members.insert("pattern".into(), json!(field.pattern));
        }
    }
    if !all_of.is_empty() {
        members.insert("allOf".into(), Value::Array(all_of));
    }
    answer
}

/// The schema of a draft answer of `field_type`: its JSON type and, for the objects,
/// their keys and the types of their members.
fn draft_answer(field_type: FieldType) -> Value {
    let strings = json!({"type": "array", "items": {"type": "string"}});
    match field_type {
        FieldType::Multiselect => strings,
        FieldType::Checkbox => json!({"type": "boolean"}),
        FieldType::Number => json!({"type": "number"}),
        FieldType::Address => json!({
            "type": "object",
            "properties": {
                "lines": strings,
                "locality": {"type": "string"},
                "region": {"type": "string"},
                "postalCode": {"type": "string"},
                "country": {"type": "string"},
            },
            "additionalProperties": false,
        }),
        FieldType::Document => json!({
            "type": "object",
            "properties": {
                "documentType": {"type": "string"},
                "documentNumber": {"type": "string"},
                "issuingCountry": {"type": "string"},
                "expiryDate": {"type": "string"},
                "mrz": strings,
                "files": strings,
            },
            "additionalProperties": false,
        }),
        _ => json!({"type": "string"}),
    }
}

/// A postal address, with the limits of an entity's address.
fn address() -> Value {
    let part = json!({"type": "string", "maxLength": MAX_ADDRESS_PART});
    json!({
        "type": "object",
        "properties": {
            "lines": {
                "type": "array",
                "items": {"type": "string", "minLength": 1, "maxLength": MAX_TEXT},
                "minItems": 1,
                "maxItems": MAX_ADDRESS_LINES,
            },
            "locality": part,
            "region": part,
            "postalCode": {"type": "string", "maxLength": MAX_POSTAL_CODE},
            "country": {"type": "string", "enum": country_codes()},
        },
        "required": ["lines", "country"],
        "additionalProperties": false,
    })
}

/// An identity document as printed, with its machine readable zone and its images.
fn document() -> Value {
    json!({
        "type": "object",
        "properties": {
            "documentType": {"type": "string", "enum": &DocumentType::VALUES[1..]},
            "documentNumber": {"type": "string", "pattern": DOCUMENT_NUMBER_PATTERN},
            "issuingCountry": {"type": "string", "enum": IcaoCode::printed()},
            "expiryDate": {"type": "string", "pattern": FULL_DATE_PATTERN},
            "mrz": {
                "type": "array",
                "items": {"type": "string", "pattern": MRZ_LINE_PATTERN},
                "maxItems": 3,
            },
            "files": {
                "type": "array",
                "items": {"type": "string", "pattern": FORM_FILE_NAME_PATTERN},
                "maxItems": MAX_DOCUMENT_FILES,
                "uniqueItems": true,
            },
        },
        "required": ["documentType", "documentNumber"],
        "additionalProperties": false,
    })
}

/// Every assigned ISO 3166-1 alpha-2 code, sorted.
fn country_codes() -> Vec<&'static str> {
    let mut codes: Vec<&'static str> = celes::Country::get_countries()
        .iter()
        .map(|country| country.alpha2)
        .collect();
    codes.sort_unstable();
    codes.dedup();
    codes
}

/// Which side of a bound the admitted dates lie on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    /// The bound or after.
    From,
    /// The bound or before.
    Until,
}

/// The pattern of the `YYYY-MM-DD` texts on `side` of the date `bound` (itself
/// included). Texts of one fixed shape sort as their dates do, so they are the bound
/// itself, or a prefix of it followed by a greater (or smaller) digit and any digits.
fn date_bound_pattern(bound: &str, side: Side) -> String {
    let shape = |from: usize| -> String {
        bound[from..]
            .chars()
            .map(|c| if c.is_ascii_digit() { "[0-9]" } else { "-" })
            .collect()
    };
    let mut alternatives = vec![bound.to_owned()];
    for (at, c) in bound.char_indices() {
        let Some(digit) = c.to_digit(10) else {
            continue;
        };
        let class = match side {
            Side::From if digit < 9 => format!("[{}-9]", digit + 1),
            Side::Until if digit > 0 => format!("[0-{}]", digit - 1),
            _ => continue,
        };
        alternatives.push(format!("{}{class}{}", &bound[..at], shape(at + 1)));
    }
    format!("^({})$", alternatives.join("|"))
}

/// The compiled schemas of a response to one revision of a definition.
pub struct ResponseSchema {
    complete: Validator,
    draft: Validator,
}

impl std::fmt::Debug for ResponseSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ResponseSchema")
    }
}

impl ResponseSchema {
    /// Compiles the schemas of `schema`, a checked definition schema.
    ///
    /// # Errors
    /// INTERNAL when a derived schema does not compile (a stored schema that was never
    /// checked, or a bug).
    pub fn compile(schema: &FormSchema) -> Result<ResponseSchema> {
        let build = |completeness| {
            jsonschema::options()
                .build(&Value::Object(derive(schema, completeness)))
                .map_err(|e| Error::internal(format!("a response schema does not compile: {e}")))
        };
        Ok(ResponseSchema {
            complete: build(Completeness::Complete)?,
            draft: build(Completeness::Draft)?,
        })
    }

    /// The ways `response` breaks the schema of `completeness`, at most
    /// [`MAX_RESPONSE_VIOLATIONS`], each naming its answer under `field`
    /// (`form.response.email`, `form.response.identity_document.files[0]`): a missing
    /// required answer (`ANSWER_REQUIRED`), a key that is no field (`UNKNOWN_ANSWER`),
    /// or an answer of the wrong type or value (`INVALID_ANSWER`).
    pub fn violations(
        &self,
        response: &Map<String, Value>,
        completeness: Completeness,
        field: &str,
    ) -> Vec<FieldViolation> {
        let validator = match completeness {
            Completeness::Complete => &self.complete,
            Completeness::Draft => &self.draft,
        };
        let instance = Value::Object(response.clone());
        let mut found = Vec::new();
        for error in validator.iter_errors(&instance) {
            let at = value_path(field, &instance, error.instance_path());
            match error.kind() {
                ValidationErrorKind::Required { property } => found.push(FieldViolation {
                    field: format!("{at}.{}", property.as_str().unwrap_or_default()),
                    description: "is required".into(),
                    reason: "ANSWER_REQUIRED",
                }),
                ValidationErrorKind::AdditionalProperties { unexpected } => {
                    found.extend(unexpected.iter().map(|key| FieldViolation {
                        field: format!("{at}.{key}"),
                        description: "is not a field of the form".into(),
                        reason: "UNKNOWN_ANSWER",
                    }));
                }
                _ => found.push(FieldViolation {
                    field: at,
                    description: describe(&error),
                    reason: "INVALID_ANSWER",
                }),
            }
            if found.len() >= MAX_RESPONSE_VIOLATIONS {
                break;
            }
        }
        found.truncate(MAX_RESPONSE_VIOLATIONS);
        found
    }
}

#[cfg(test)]
#[path = "response_schema_tests.rs"]
mod tests;
