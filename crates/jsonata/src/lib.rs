//! The JSONata adapter of rics: the domain's [`MappingEngine`] port over the `jsonata-rs`
//! crate. A JSONata mapping is an expression a tenant supplies to turn one JSON document
//! (a form's response) into another (an entity body).
//!
//! The engine is the `jsonata-rs` crate, which implements most of JSONata 2 but not all
//! of it. A [`JsonataMapping`] is checked once, when the tenant hands it over: it must
//! parse, and it must call no built-in function the engine lacks ([`UNSUPPORTED_FUNCTIONS`])
//! or that the reference implementation lacks, so a mapping that is accepted never fails
//! later for want of a function. Evaluation is bounded in depth and time, so a mapping
//! that recurses without end fails instead of holding a worker. The corpus in
//! `crates/jsonata/tests/jsonata_corpus.json` pins what the engine computes against the
//! reference implementation (npm `jsonata`).

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use bumpalo::Bump;
use jsonata_rs::{JsonAta, Value};
use rics_domain::error::{Error, Result};
use rics_domain::onboarding::mapping::{CompiledMapping, MappingEngine};
pub use rics_domain::onboarding::mapping::{
    INVALID_JSONATA, JSONATA_EVALUATION_FAILED, UNSUPPORTED_JSONATA_FUNCTION,
};
use serde_json::{Map, Number};

/// The JSONata engine rics runs mappings with: `jsonata-rs`, checked and bounded as
/// [`JsonataMapping`] says.
#[derive(Debug, Default, Clone, Copy)]
pub struct JsonataEngine;

impl MappingEngine for JsonataEngine {
    fn parse(&self, expression: &[u8], field: &str) -> Result<Arc<dyn CompiledMapping>> {
        let source = std::str::from_utf8(expression).map_err(|_| {
            Error::invalid_field(
                field,
                INVALID_JSONATA,
                "the decoded expression is not UTF-8",
            )
        })?;
        Ok(Arc::new(JsonataMapping::parse(source, field)?))
    }
}

/// The deepest nesting of evaluation frames a mapping may reach; a form mapping is
/// shallow, so only runaway recursion comes near it.
pub const MAX_DEPTH: usize = 200;
/// The longest one evaluation may run, in milliseconds. This bounds CPU time, not a
/// business deadline, so it is measured by the engine's own monotonic clock.
pub const TIME_LIMIT_MS: usize = 500;

/// Built-in functions that read the clock or chance: refused, so a mapping gives the same
/// entity whenever it runs, and a run repeated after a crash maps as the first did.
pub const NONDETERMINISTIC_FUNCTIONS: [&str; 3] = ["millis", "now", "random"];

/// Built-in functions of JSONata 2 (the reference implementation) that the engine does
/// not implement, plus `$uuid`, which the engine adds but JSONata does not have: an
/// expression that names one is refused when it is handed over.
pub const UNSUPPORTED_FUNCTIONS: [&str; 16] = [
    "average",
    "clone",
    "decodeUrl",
    "decodeUrlComponent",
    "encodeUrl",
    "encodeUrlComponent",
    "eval",
    "formatBase",
    "formatInteger",
    "formatNumber",
    "parseInteger",
    "shuffle",
    "sift",
    "spread",
    "type",
    "uuid",
];

/// A checked JSONata expression, ready to evaluate any number of times.
///
/// The engine's parse tree lives in an arena that one evaluation owns, so the checked
/// source is kept and parsed again by each evaluation; parsing costs microseconds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonataMapping {
    source: String,
    /// The request field the expression came from, named by evaluation failures.
    field: String,
}

impl JsonataMapping {
    /// Checks `source`: it must parse and call no unsupported function. `field` names
    /// where the expression came from in the caller's request, for the error.
    pub fn parse(source: &str, field: &str) -> Result<Self> {
        let parsed = catch_unwind(|| {
            let arena = Bump::new();
            JsonAta::new(source, &arena)
                .map(|_| ())
                .map_err(|e| e.to_string())
        });
        match parsed {
            Ok(Ok(())) => {}
            Ok(Err(message)) => {
                return Err(Error::invalid_field(
                    field,
                    INVALID_JSONATA,
                    format!("the expression does not parse: {message}"),
                ));
            }
            Err(_) => {
                return Err(Error::invalid_field(
                    field,
                    INVALID_JSONATA,
                    "the expression does not parse",
                ));
            }
        }
        let tokens = scan(source);
        if let Some(position) = tokens.partial_application {
            return Err(Error::invalid_field(
                field,
                UNSUPPORTED_JSONATA_FUNCTION,
                format!(
                    "the expression applies a function partially (`?` at character {position}), \
                     which rics does not support"
                ),
            ));
        }
        let nondeterministic: Vec<String> = tokens
            .variables
            .iter()
            .filter(|name| NONDETERMINISTIC_FUNCTIONS.contains(&name.as_str()))
            .map(|name| format!("${name}"))
            .collect();
        if !nondeterministic.is_empty() {
            return Err(Error::invalid_field(
                field,
                UNSUPPORTED_JSONATA_FUNCTION,
                format!(
                    "the expression calls {}, which depends on when it runs: a mapping must \
                     give the same entity every time",
                    nondeterministic.join(", ")
                ),
            ));
        }
        let unsupported: Vec<String> = tokens
            .variables
            .into_iter()
            .filter(|name| UNSUPPORTED_FUNCTIONS.contains(&name.as_str()))
            .map(|name| format!("${name}"))
            .collect();
        if !unsupported.is_empty() {
            return Err(Error::invalid_field(
                field,
                UNSUPPORTED_JSONATA_FUNCTION,
                format!(
                    "the expression calls {}, which rics does not support (docs/api.md lists them)",
                    unsupported.join(", ")
                ),
            ));
        }
        Ok(Self {
            source: source.to_owned(),
            field: field.to_owned(),
        })
    }
}

impl CompiledMapping for JsonataMapping {
    fn source(&self) -> &str {
        &self.source
    }

    /// Evaluates the expression with `input` as its root `$`. `None` when the result is
    /// undefined (nothing matched). A failure is FAILED_PRECONDITION naming the field
    /// the expression came from: it was valid when accepted, and it is this input that
    /// it cannot map.
    fn evaluate(&self, input: &serde_json::Value) -> Result<Option<serde_json::Value>> {
        let field = self.field.as_str();
        let fail = |message: String| {
            Error::failed_precondition(
                JSONATA_EVALUATION_FAILED,
                format!("'{field}' failed on this input: {message}"),
            )
            .with_metadata("field", field)
        };
        let input = input.to_string();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let arena = Bump::new();
            let expression = JsonAta::new(&self.source, &arena).map_err(|e| e.to_string())?;
            let value = expression
                .evaluate_timeboxed(Some(&input), Some(MAX_DEPTH), Some(TIME_LIMIT_MS))
                .map_err(|e| e.to_string())?;
            to_json(value, "$")
        }));
        match outcome {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(message)) => Err(fail(message)),
            Err(_) => Err(fail("the JSONata engine failed".to_owned())),
        }
    }
}

/// What a lexical scan of an expression finds outside string literals, quoted names and
/// comments.
struct Scan {
    /// The names of the variables it refers to (`$name`, without the `$`).
    variables: BTreeSet<String>,
    /// The character position of the first `?` standing for an argument (`$f(?, 1)`):
    /// partial application, which the engine fails on.
    partial_application: Option<usize>,
}

fn scan(source: &str) -> Scan {
    let chars: Vec<char> = source.chars().collect();
    let mut names = BTreeSet::new();
    let mut partial_application = None;
    let neighbour = |from: usize, step: isize| {
        let mut at = from.checked_add_signed(step);
        while let Some(i) = at.filter(|i| *i < chars.len()) {
            if !chars[i].is_whitespace() {
                return Some(chars[i]);
            }
            at = i.checked_add_signed(step);
        }
        None
    };
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            quote @ ('"' | '\'' | '`') => {
                i += 1;
                while i < chars.len() && chars[i] != quote {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
            }
            '/' if chars.get(i + 1) == Some(&'*') => {
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    i += 1;
                }
                i += 2;
            }
            '$' => {
                let start = i + 1;
                i = start;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                if i > start {
                    names.insert(chars[start..i].iter().collect());
                }
            }
            '?' => {
                let argument = matches!(neighbour(i, -1), Some('(' | ','))
                    && matches!(neighbour(i, 1), Some(')' | ','));
                if argument && partial_application.is_none() {
                    partial_application = Some(i);
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    Scan {
        variables: names,
        partial_application,
    }
}

/// The JSON form of an engine value: `None` for undefined (dropped from objects and
/// arrays, as JSONata's own JSON output drops it). `path` locates the value for errors.
fn to_json<'a>(
    value: &'a Value<'a>,
    path: &str,
) -> std::result::Result<Option<serde_json::Value>, String> {
    Ok(Some(match value {
        Value::Undefined => return Ok(None),
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Number(n) => number(*n).ok_or_else(|| format!("{path} is not a finite number"))?,
        Value::String(s) => serde_json::Value::String(s.to_string()),
        Value::Array(..) | Value::Range(..) => {
            let mut items = Vec::new();
            for (index, member) in value.members().enumerate() {
                if let Some(item) = to_json(member, &format!("{path}[{index}]"))? {
                    items.push(item);
                }
            }
            serde_json::Value::Array(items)
        }
        Value::Object(_) => {
            let mut object = Map::new();
            for (key, member) in value.entries() {
                if let Some(item) = to_json(member, &format!("{path}.{key}"))? {
                    object.insert(key.to_string(), item);
                }
            }
            serde_json::Value::Object(object)
        }
        Value::Regex(_)
        | Value::Lambda { .. }
        | Value::NativeFn { .. }
        | Value::Transformer { .. } => {
            return Err(format!("{path} is a function, not JSON"));
        }
    }))
}

/// A JSON number as JavaScript writes it: whole numbers within the safe integer range as
/// integers, others as floats; `None` for NaN and infinities, which JSON cannot hold.
fn number(n: f64) -> Option<serde_json::Value> {
    const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;
    if !n.is_finite() {
        return None;
    }
    if n.fract() == 0.0 && n.abs() <= MAX_SAFE_INTEGER {
        #[allow(clippy::cast_possible_truncation)]
        return Some(serde_json::Value::from(n as i64));
    }
    Number::from_f64(n).map(serde_json::Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rics_domain::error::Code;
    use serde_json::json;

    const FIELD: &str = "job.jsonataExpression";

    #[test]
    fn an_expression_that_does_not_parse_is_invalid_jsonata_naming_the_field() {
        let err = JsonataMapping::parse("{ \"a\": ", FIELD).unwrap_err();
        assert_eq!(err.code, Code::InvalidArgument);
        assert_eq!(err.reason, INVALID_JSONATA);
        assert_eq!(err.field_violations[0].field, FIELD);
    }

    #[test]
    fn an_expression_that_is_not_utf8_is_invalid_jsonata() {
        let err = JsonataEngine.parse(&[0xff, 0xfe], FIELD).unwrap_err();
        assert_eq!(err.reason, INVALID_JSONATA);
        assert!(err.message.contains("UTF-8"), "{}", err.message);
    }

    #[test]
    fn an_unsupported_function_is_refused_by_name() {
        let err = JsonataMapping::parse("{ \"n\": $formatNumber(a, '#0') }", FIELD).unwrap_err();
        assert_eq!(err.reason, UNSUPPORTED_JSONATA_FUNCTION);
        assert!(err.message.contains("$formatNumber"), "{}", err.message);
    }

    #[test]
    fn a_function_of_the_clock_or_chance_is_refused() {
        for source in ["$now()", "{\"at\": $millis()}", "$random() > 0.5"] {
            let err = JsonataMapping::parse(source, FIELD).unwrap_err();
            assert_eq!(err.reason, UNSUPPORTED_JSONATA_FUNCTION, "{source}");
            assert!(err.message.contains("when it runs"), "{}", err.message);
        }
    }

    #[test]
    fn a_function_name_inside_a_string_or_comment_is_not_a_call() {
        let mapping =
            JsonataMapping::parse("/* $eval */ { \"note\": \"$formatNumber\" & 'x' }", FIELD);
        assert!(mapping.is_ok(), "{mapping:?}");
    }

    #[test]
    fn partial_application_is_refused_but_a_conditional_is_not() {
        let err = JsonataMapping::parse("($f := $substring(?, 0, 1); $f(a))", FIELD).unwrap_err();
        assert_eq!(err.reason, UNSUPPORTED_JSONATA_FUNCTION);
        assert!(JsonataMapping::parse("(a ? b : c)", FIELD).is_ok());
        assert!(JsonataMapping::parse("$f(a ? b : c, 1)", FIELD).is_ok());
    }

    #[test]
    fn the_engine_compiles_the_bytes_it_is_given() {
        let mapping = JsonataEngine.parse(b"a.b", FIELD).unwrap();
        assert_eq!(mapping.source(), "a.b");
    }

    #[test]
    fn evaluation_maps_the_input_and_drops_undefined_members() {
        let mapping =
            JsonataMapping::parse("{ \"name\": $uppercase(given), \"missing\": nope }", FIELD)
                .unwrap();
        let out = mapping.evaluate(&json!({"given": "ada"})).unwrap();
        assert_eq!(out, Some(json!({"name": "ADA"})));
    }

    #[test]
    fn runaway_recursion_fails_within_the_bounds_naming_the_field() {
        let mapping =
            JsonataMapping::parse("($f := function($n) { $f($n + 1) }; $f(0))", FIELD).unwrap();
        let err = mapping.evaluate(&json!({})).unwrap_err();
        assert_eq!(err.code, Code::FailedPrecondition);
        assert_eq!(err.reason, JSONATA_EVALUATION_FAILED);
        assert!(err.message.contains(FIELD), "{}", err.message);
    }

    #[test]
    fn a_function_as_the_result_is_not_json() {
        let mapping = JsonataMapping::parse("{ \"f\": function($x) { $x } }", FIELD).unwrap();
        let err = mapping.evaluate(&json!({})).unwrap_err();
        assert!(err.message.contains("$.f"), "{}", err.message);
    }
}
