//! The rules of a definition's schema: its steps, its fields and what each type of
//! field may say. Every fault is reported at once, named by its path
//! (`formDefinition.schema.steps[0].fields[2].key`).

use std::collections::BTreeMap;

use serde_json::json;

use super::model::{Bound, FieldType, FormField, FormSchema};
use crate::validate::Violations;
use crate::values::PartialDate;

/// Most steps of a definition.
pub const MAX_STEPS: usize = 20;
/// Most fields of one step.
pub const MAX_FIELDS: usize = 100;
/// Longest key of a step or a field.
pub const MAX_KEY: usize = 63;
/// Longest label of a step or a field.
pub const MAX_LABEL: usize = 200;
/// Most options of a SELECT or MULTISELECT.
pub const MAX_OPTIONS: usize = 100;
/// Longest option.
pub const MAX_OPTION: usize = 200;
/// Longest pattern.
pub const MAX_PATTERN: usize = 1000;
/// Most content types a FILE accepts.
pub const MAX_ACCEPT: usize = 20;
/// The largest length or count bound (`min`, `max` of a TEXT or MULTISELECT).
pub const MAX_COUNT_BOUND: u64 = 1_000_000;

/// The pattern of step and field keys.
pub const KEY_PATTERN: &str = "^[a-z][a-z0-9_]*$";

/// The pattern of a content type a FILE accepts: `type/subtype` or `type/*`, lower
/// case.
pub const ACCEPT_PATTERN: &str =
    "^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}/([a-z0-9][a-z0-9!#$&^_.+-]{0,126}|\\*)$";

/// Checks `schema`, named `prefix` (`formDefinition.schema`), recording every fault.
pub fn check(schema: &FormSchema, prefix: &str, v: &mut Violations) {
    let steps = format!("{prefix}.steps");
    if schema.steps.is_empty() {
        v.add(&steps, "REQUIRED", "needs 1 to 20 steps");
    }
    v.max_items(&steps, &schema.steps, MAX_STEPS);
    let mut step_keys = BTreeMap::new();
    let mut field_keys = BTreeMap::new();
    for (s, step) in schema.steps.iter().enumerate() {
        let at = format!("{steps}[{s}]");
        check_key(&format!("{at}.key"), &step.key, v);
        if let Some(first) = step_keys.insert(step.key.as_str(), s)
            && !step.key.is_empty()
        {
            v.add(
                format!("{at}.key"),
                "DUPLICATE_STEP_KEY",
                format!("'{}' is the key of steps[{first}] too", step.key),
            );
        }
        v.required_text(&format!("{at}.label"), &step.label, MAX_LABEL);
        let fields = format!("{at}.fields");
        if step.fields.is_empty() {
            v.add(&fields, "REQUIRED", "needs 1 to 100 fields");
        }
        v.max_items(&fields, &step.fields, MAX_FIELDS);
        for (f, field) in step.fields.iter().enumerate() {
            let at = format!("{fields}[{f}]");
            if let Some((first_step, first_field)) = field_keys.insert(field.key.as_str(), (s, f))
                && !field.key.is_empty()
            {
                v.add(
                    format!("{at}.key"),
                    "DUPLICATE_FIELD_KEY",
                    format!(
                        "'{}' is the key of steps[{first_step}].fields[{first_field}] too: keys are unique across the definition",
                        field.key
                    ),
                );
            }
            check_field(field, &at, v);
        }
    }
}

/// A step's or a field's key: present, of [`KEY_PATTERN`], at most [`MAX_KEY`].
pub(crate) fn check_key(at: &str, key: &str, v: &mut Violations) {
    if key.is_empty() {
        v.add(at, "REQUIRED", "is required");
    } else if key.len() > MAX_KEY || !is_key(key) {
        v.add(
            at,
            "INVALID_KEY",
            format!(
                "'{key}' must be 1 to {MAX_KEY} lower-case letters, digits and underscores, starting with a letter"
            ),
        );
    }
}

/// Whether `key` matches [`KEY_PATTERN`].
fn is_key(key: &str) -> bool {
    key.starts_with(|c: char| c.is_ascii_lowercase())
        && key
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// One field at `at`: its own attributes, and those its type allows.
fn check_field(field: &FormField, at: &str, v: &mut Violations) {
    check_key(&format!("{at}.key"), &field.key, v);
    v.required_text(&format!("{at}.label"), &field.label, MAX_LABEL);
    let kind = field.field_type;
    if kind.is_unspecified() {
        v.add(format!("{at}.type"), "REQUIRED", "is required");
    }
    let not_for = |attribute: &str, v: &mut Violations| {
        v.add(
            format!("{at}.{attribute}"),
            "NOT_FOR_TYPE",
            format!("does not apply to a {kind} field"),
        );
    };
    check_options(field, at, v, not_for);
    if !field.pattern.is_empty() {
        if matches!(kind, FieldType::Text | FieldType::Email | FieldType::Phone) {
            check_pattern(&format!("{at}.pattern"), &field.pattern, v);
        } else {
            not_for("pattern", v);
        }
    }
    let low = field.min.as_ref().map(|bound| (bound, "min"));
    let high = field.max.as_ref().map(|bound| (bound, "max"));
    let mut read = Vec::new();
    for (bound, attribute) in low.into_iter().chain(high) {
        match bound_value(kind, bound) {
            Ok(value) => read.push(value),
            Err(BoundFault::NotForType) => not_for(attribute, v),
            Err(BoundFault::Invalid(expected)) => v.add(
                format!("{at}.{attribute}"),
                "INVALID_BOUND",
                format!("must be {expected} for a {kind} field"),
            ),
        }
    }
    if let (Some(min), Some(max), [low, high]) = (&field.min, &field.max, read.as_slice())
        && low > high
    {
        v.add(
            format!("{at}.min"),
            "MIN_ABOVE_MAX",
            format!(
                "{} is above max {}",
                json!(min).to_string().trim_matches('"'),
                json!(max).to_string().trim_matches('"')
            ),
        );
    }
    if !field.accept.is_empty() {
        if kind == FieldType::File {
            v.max_items(&format!("{at}.accept"), &field.accept, MAX_ACCEPT);
            for (i, accepted) in field.accept.iter().enumerate() {
                if !is_content_type(accepted) {
                    v.add(
                        format!("{at}.accept[{i}]"),
                        "INVALID_CONTENT_TYPE",
                        format!("'{accepted}' is not a content type (type/subtype or type/*)"),
                    );
                } else if field.accept[..i].contains(accepted) {
                    v.add(
                        format!("{at}.accept[{i}]"),
                        "DUPLICATE_CONTENT_TYPE",
                        format!("'{accepted}' is listed twice"),
                    );
                }
            }
        } else {
            not_for("accept", v);
        }
    }
}

/// A SELECT's or MULTISELECT's options: 1 to [`MAX_OPTIONS`], each once, not blank;
/// no other type has any.
fn check_options(
    field: &FormField,
    at: &str,
    v: &mut Violations,
    not_for: impl Fn(&str, &mut Violations),
) {
    let at = format!("{at}.options");
    if !matches!(field.field_type, FieldType::Select | FieldType::Multiselect) {
        if !field.options.is_empty() {
            not_for("options", v);
        }
        return;
    }
    if field.options.is_empty() {
        v.add(
            &at,
            "OPTIONS_REQUIRED",
            format!(
                "a {} field needs 1 to {MAX_OPTIONS} options",
                field.field_type
            ),
        );
    }
    v.max_items(&at, &field.options, MAX_OPTIONS);
    for (i, option) in field.options.iter().enumerate() {
        let item = format!("{at}[{i}]");
        v.required_text(&item, option, MAX_OPTION);
        if field.options[..i].contains(option) {
            v.add(
                item,
                "DUPLICATE_OPTION",
                format!("'{option}' is listed twice"),
            );
        }
    }
}

/// A pattern: at most [`MAX_PATTERN`] characters and an ECMA-262 regular expression
/// the `jsonschema` crate compiles, as it will when it checks answers.
fn check_pattern(at: &str, pattern: &str, v: &mut Violations) {
    if pattern.chars().count() > MAX_PATTERN {
        v.optional_text(at, pattern, MAX_PATTERN);
    } else if let Err(problem) = jsonschema::validator_for(&json!({"pattern": pattern})) {
        v.add(
            at,
            "INVALID_PATTERN",
            format!("is not an ECMA-262 regular expression: {problem}"),
        );
    }
}

/// Whether `text` matches [`ACCEPT_PATTERN`].
fn is_content_type(text: &str) -> bool {
    let token = |part: &str| {
        (1..=127).contains(&part.len())
            && part.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
            && part
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"!#$&^_.+-".contains(&b))
    };
    match text.split_once('/') {
        Some((kind, sub)) => token(kind) && (sub == "*" || token(sub)),
        None => false,
    }
}

/// Why a bound does not fit its field.
enum BoundFault {
    /// The type has no bounds.
    NotForType,
    /// The type's bounds are of another kind: what they must be.
    Invalid(&'static str),
}

/// A bound of a field of type `kind` as a comparable value: a number, a count, or the
/// days of a date.
fn bound_value(kind: FieldType, bound: &Bound) -> Result<f64, BoundFault> {
    match (kind, bound) {
        (FieldType::Number, Bound::Number(number)) => {
            number.as_f64().ok_or(BoundFault::Invalid("a number"))
        }
        (FieldType::Number, Bound::Date(_)) => Err(BoundFault::Invalid("a number")),
        (FieldType::Text | FieldType::Multiselect, Bound::Number(number)) => number
            .as_u64()
            .filter(|count| *count <= MAX_COUNT_BOUND)
            .map(|count| count as f64)
            .ok_or(BoundFault::Invalid("a whole number from 0 to 1000000")),
        (FieldType::Text | FieldType::Multiselect, Bound::Date(_)) => {
            Err(BoundFault::Invalid("a whole number from 0 to 1000000"))
        }
        (FieldType::Date, Bound::Date(text)) => PartialDate::parse(text)
            .ok()
            .filter(|_| text.len() == "YYYY-MM-DD".len())
            .and_then(|date| date.earliest())
            .map(|date| f64::from(date.to_julian_day()))
            .ok_or(BoundFault::Invalid("a full date, YYYY-MM-DD")),
        (FieldType::Date, Bound::Number(_)) => Err(BoundFault::Invalid("a full date, YYYY-MM-DD")),
        _ => Err(BoundFault::NotForType),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn faults(schema: Value) -> Vec<(String, &'static str)> {
        let schema: FormSchema = serde_json::from_value(schema).unwrap();
        let mut v = Violations::new();
        check(&schema, "formDefinition.schema", &mut v);
        v.into_vec()
            .into_iter()
            .map(|violation| (violation.field, violation.reason))
            .collect()
    }

    fn one_step(fields: Value) -> Value {
        json!({"steps": [{"key": "one", "label": "One", "fields": fields}]})
    }

    #[test]
    fn a_sound_schema_has_no_fault() {
        let fields = json!([
            {"key": "name", "label": "Name", "type": "TEXT", "required": true, "min": 1, "max": 100, "pattern": "^[A-Za-z ]+$"},
            {"key": "born", "label": "Born", "type": "date", "min": "1900-01-01", "max": "2010-12-31"},
            {"key": "colour", "label": "Colour", "type": "SELECT", "options": ["red", "blue"]},
            {"key": "age", "label": "Age", "type": "NUMBER", "min": -1.5, "max": 200},
            {"key": "photo", "label": "Photo", "type": "FILE", "accept": ["image/jpeg", "image/*"]}
        ]);
        assert_eq!(faults(one_step(fields)), vec![]);
    }

    #[test]
    fn every_fault_is_named_at_once() {
        let schema = json!({"steps": [
            {"key": "one", "label": "One", "fields": [
                {"key": "email", "label": "Email", "type": "EMAIL"},
                {"key": "Bad-Key", "label": "", "type": "TEXT"},
                {"key": "choice", "label": "Choice", "type": "SELECT"},
                {"key": "tick", "label": "Tick", "type": "CHECKBOX", "options": ["a"], "accept": ["image/png"]},
                {"key": "amount", "label": "Amount", "type": "NUMBER", "min": 10, "max": 5},
                {"key": "when", "label": "When", "type": "DATE", "min": 3},
                {"key": "pattern", "label": "P", "type": "TEXT", "pattern": "(unclosed"},
                {"key": "untyped", "label": "U"}
            ]},
            {"key": "one", "label": "Again", "fields": [
                {"key": "email", "label": "Email again", "type": "EMAIL"},
                {"key": "file", "label": "File", "type": "FILE", "accept": ["not a type"]}
            ]},
            {"key": "empty", "label": "Empty", "fields": []}
        ]});
        let at = |s: usize, f: usize, attribute: &str| {
            format!("formDefinition.schema.steps[{s}].fields[{f}].{attribute}")
        };
        let expected = vec![
            (at(0, 1, "key"), "INVALID_KEY"),
            (at(0, 1, "label"), "REQUIRED"),
            (at(0, 2, "options"), "OPTIONS_REQUIRED"),
            (at(0, 3, "options"), "NOT_FOR_TYPE"),
            (at(0, 3, "accept"), "NOT_FOR_TYPE"),
            (at(0, 4, "min"), "MIN_ABOVE_MAX"),
            (at(0, 5, "min"), "INVALID_BOUND"),
            (at(0, 6, "pattern"), "INVALID_PATTERN"),
            (at(0, 7, "type"), "REQUIRED"),
            (
                "formDefinition.schema.steps[1].key".to_owned(),
                "DUPLICATE_STEP_KEY",
            ),
            (at(1, 0, "key"), "DUPLICATE_FIELD_KEY"),
            (format!("{}[0]", at(1, 1, "accept")), "INVALID_CONTENT_TYPE"),
            (
                "formDefinition.schema.steps[2].fields".to_owned(),
                "REQUIRED",
            ),
        ];
        assert_eq!(faults(schema), expected);
    }

    #[test]
    fn steps_and_fields_are_counted() {
        assert_eq!(
            faults(json!({"steps": []})),
            vec![("formDefinition.schema.steps".to_owned(), "REQUIRED")]
        );
        let step = |i: usize| json!({"key": format!("s{i}"), "label": "S", "fields": [{"key": format!("f{i}"), "label": "F", "type": "TEXT"}]});
        let many: Vec<Value> = (0..=MAX_STEPS).map(step).collect();
        assert_eq!(
            faults(json!({"steps": many})),
            vec![("formDefinition.schema.steps".to_owned(), "TOO_MANY_ITEMS")]
        );
        let fields: Vec<Value> = (0..=MAX_FIELDS)
            .map(|i| json!({"key": format!("f{i}"), "label": "F", "type": "TEXT"}))
            .collect();
        assert_eq!(
            faults(one_step(Value::Array(fields))),
            vec![(
                "formDefinition.schema.steps[0].fields".to_owned(),
                "TOO_MANY_ITEMS"
            )]
        );
    }

    #[test]
    fn bounds_fit_their_type() {
        let field = |kind: &str, min: Value| {
            one_step(json!([{"key": "x", "label": "X", "type": kind, "min": min}]))
        };
        assert!(faults(field("MULTISELECT", json!(1)))[0].1 == "OPTIONS_REQUIRED");
        assert_eq!(faults(field("TEXT", json!(-1)))[0].1, "INVALID_BOUND");
        assert_eq!(faults(field("TEXT", json!(1.5)))[0].1, "INVALID_BOUND");
        assert_eq!(
            faults(field("DATE", json!("2020-02-30")))[0].1,
            "INVALID_BOUND"
        );
        assert_eq!(
            faults(field("DATE", json!("2020-02")))[0].1,
            "INVALID_BOUND"
        );
        assert_eq!(faults(field("EMAIL", json!(1)))[0].1, "NOT_FOR_TYPE");
        assert!(faults(field("DATE", json!("2020-02-29"))).is_empty());
    }
}
