//! The type checker: resolves an untyped [`Expr`] against a [`FilterSchema`].

use time::format_description::well_known::Rfc3339;
use time::{OffsetDateTime, UtcOffset};

use super::ast::{
    Arg, Comparable, Expr, Function, Member, Operator, Restriction, Value, ValueKind,
};
use super::condition::{Comparator, Condition, Literal, StringMatch};
use super::error::{FilterError, FilterErrorKind, Position};
use super::schema::{FieldDecl, FieldType, FilterSchema, ParamType};
use crate::case;

/// Checks a parsed filter against a resource's declarations.
///
/// # Errors
///
/// Unknown fields or functions, wrong operators or value types, and global
/// restrictions on a resource without a global-search field; see [`FilterErrorKind`].
pub fn check(expr: &Expr, schema: &FilterSchema) -> Result<Condition, FilterError> {
    Checker { schema }.expr(expr)
}

fn error(
    kind: FilterErrorKind,
    position: Position,
    message: impl Into<String>,
    subject: impl Into<String>,
) -> FilterError {
    FilterError::new(kind, position, message, Some(subject.into()))
}

fn and(items: Vec<Condition>) -> Condition {
    combine(items, Condition::And, |c| match c {
        Condition::And(inner) => Ok(inner),
        other => Err(other),
    })
}

fn or(items: Vec<Condition>) -> Condition {
    combine(items, Condition::Or, |c| match c {
        Condition::Or(inner) => Ok(inner),
        other => Err(other),
    })
}

/// Flattens nested lists of the same kind and unwraps a single item.
fn combine(
    items: Vec<Condition>,
    build: fn(Vec<Condition>) -> Condition,
    split: fn(Condition) -> Result<Vec<Condition>, Condition>,
) -> Condition {
    let mut flat = Vec::with_capacity(items.len());
    for item in items {
        match split(item) {
            Ok(inner) => flat.extend(inner),
            Err(other) => flat.push(other),
        }
    }
    if flat.len() == 1
        && let Some(only) = flat.pop()
    {
        return only;
    }
    build(flat)
}

/// What a field path resolved to.
enum Resolved<'s> {
    /// A declared field, with the map key when the path goes one step into a map.
    Field {
        decl: &'s FieldDecl,
        map_key: Option<String>,
    },
    /// A proper prefix of declared paths: a message.
    Message { path: &'static str },
}

fn comparator(op: Operator) -> Comparator {
    match op {
        Operator::NotEquals => Comparator::Ne,
        Operator::LessThan => Comparator::Lt,
        Operator::LessEquals => Comparator::Le,
        Operator::GreaterThan => Comparator::Gt,
        Operator::GreaterEquals => Comparator::Ge,
        Operator::Equals | Operator::Has => Comparator::Eq,
    }
}

fn type_name(field_type: FieldType) -> &'static str {
    match field_type {
        FieldType::String => "a string",
        FieldType::Integer => "an integer",
        FieldType::Bool => "a bool",
        FieldType::Timestamp => "a timestamp",
        FieldType::Enum(_) | FieldType::EnumWithAliases(..) => "an enum",
        FieldType::RepeatedString => "a repeated",
        FieldType::Map => "a map",
    }
}

struct Checker<'s> {
    schema: &'s FilterSchema,
}

impl<'s> Checker<'s> {
    fn expr(&self, expr: &Expr) -> Result<Condition, FilterError> {
        match expr {
            Expr::And(items) | Expr::Sequence(items) => Ok(and(self.all(items)?)),
            Expr::Or(items) => Ok(or(self.all(items)?)),
            Expr::Not { operand, .. } => Ok(Condition::Not(Box::new(self.expr(operand)?))),
            Expr::Global(Comparable::Member(member)) => self.global(member),
            Expr::Global(Comparable::Function(function)) => self.call(function),
            Expr::Restriction(restriction) => self.restriction(restriction),
        }
    }

    fn all(&self, items: &[Expr]) -> Result<Vec<Condition>, FilterError> {
        items.iter().map(|item| self.expr(item)).collect()
    }

    /// A bare value: a fuzzy search of the global-search fields.
    fn global(&self, member: &Member) -> Result<Condition, FilterError> {
        let text = member.dotted();
        let position = member.value.position;
        if self.schema.global_fields.is_empty() {
            return Err(error(
                FilterErrorKind::GlobalRestrictionUnsupported,
                position,
                format!(
                    "'{text}' is a bare value (a global restriction), which this collection \
                     does not support; compare a field instead, e.g. field = \"{text}\""
                ),
                text,
            ));
        }
        if text.contains('*') {
            return Err(error(
                FilterErrorKind::InvalidValue,
                position,
                "'*' wildcards are not supported in a global search",
                text,
            ));
        }
        if text.is_empty() {
            return Err(error(
                FilterErrorKind::InvalidValue,
                position,
                "a global search needs some text, not an empty string",
                text,
            ));
        }
        let items = self
            .schema
            .global_fields
            .iter()
            .map(|field| Condition::Fuzzy {
                field,
                text: text.clone(),
            })
            .collect();
        Ok(or(items))
    }

    fn call(&self, function: &Function) -> Result<Condition, FilterError> {
        if function.name == "NOT" {
            if let [arg] = function.args.as_slice() {
                let operand = match arg {
                    Arg::Composite { expr, .. } => self.expr(expr)?,
                    Arg::Comparable(Comparable::Member(member)) => self.global(member)?,
                    Arg::Comparable(Comparable::Function(inner)) => self.call(inner)?,
                };
                return Ok(Condition::Not(Box::new(operand)));
            }
            return Err(error(
                FilterErrorKind::InvalidFunctionArguments,
                function.position,
                "NOT(...) takes exactly one expression",
                "NOT",
            ));
        }
        let Some(decl) = self
            .schema
            .functions
            .iter()
            .find(|f| f.name == function.name)
        else {
            let known: Vec<&str> = self.schema.functions.iter().map(|f| f.name).collect();
            let hint = if known.is_empty() {
                "this collection declares no functions".to_owned()
            } else {
                format!("the declared functions are: {}", known.join(", "))
            };
            return Err(error(
                FilterErrorKind::UnknownFunction,
                function.position,
                format!("unknown function '{}'; {hint}", function.name),
                function.name.clone(),
            ));
        };
        if decl.params.len() != function.args.len() {
            return Err(error(
                FilterErrorKind::InvalidFunctionArguments,
                function.position,
                format!(
                    "function '{}' takes {} argument(s), but {} were given",
                    decl.name,
                    decl.params.len(),
                    function.args.len()
                ),
                decl.name,
            ));
        }
        let mut args = Vec::with_capacity(decl.params.len());
        for (param, arg) in decl.params.iter().zip(&function.args) {
            let value = match arg {
                Arg::Comparable(Comparable::Member(Member { value, fields }))
                    if fields.is_empty() =>
                {
                    value
                }
                Arg::Comparable(c) => {
                    return Err(error(
                        FilterErrorKind::InvalidFunctionArguments,
                        c.position(),
                        format!(
                            "the arguments of '{}' must be literal values; quote text that \
                             contains '.'",
                            decl.name
                        ),
                        decl.name,
                    ));
                }
                Arg::Composite { position, .. } => {
                    return Err(error(
                        FilterErrorKind::InvalidFunctionArguments,
                        *position,
                        format!("the arguments of '{}' must be literal values", decl.name),
                        decl.name,
                    ));
                }
            };
            args.push(self.param_literal(decl.name, *param, value)?);
        }
        Ok(Condition::Call {
            function: decl.name,
            args,
        })
    }

    fn param_literal(
        &self,
        function: &str,
        param: ParamType,
        value: &Value,
    ) -> Result<Literal, FilterError> {
        let what = format!("argument of '{function}'");
        match param {
            ParamType::String => {
                if value.kind != ValueKind::String && value.text.contains('*') {
                    return Err(wildcard_unquoted(value));
                }
                Ok(Literal::String(StringMatch::Exact(value.text.clone())))
            }
            ParamType::Integer => integer(&what, value).map(Literal::Integer),
            ParamType::Bool => boolean(&what, value).map(Literal::Bool),
            ParamType::Timestamp => timestamp(&what, value).map(Literal::Timestamp),
            ParamType::Enum(values) => enum_value(&what, values, &[], value).map(Literal::Enum),
        }
    }

    fn restriction(&self, restriction: &Restriction) -> Result<Condition, FilterError> {
        let op = restriction.operator;
        let member = match &restriction.comparable {
            Comparable::Member(member) => member,
            Comparable::Function(function) => {
                return Err(error(
                    FilterErrorKind::InvalidComparison,
                    function.position,
                    format!(
                        "the result of function '{}' cannot be compared; use the call as a \
                         restriction on its own",
                        function.name
                    ),
                    function.name.clone(),
                ));
            }
        };
        if member.value.kind != ValueKind::Text {
            let text = member.value.to_string();
            return Err(error(
                FilterErrorKind::InvalidComparison,
                member.value.position,
                format!(
                    "the left side of '{}' must be a field name, not the value {text}; write \
                     the field first, e.g. name {} {text}",
                    op.symbol(),
                    op.symbol()
                ),
                text,
            ));
        }
        let resolved = self.resolve(member)?;
        let path = member.dotted();
        match &restriction.arg {
            Arg::Comparable(Comparable::Member(value)) => self.compare(&resolved, &path, op, value),
            Arg::Comparable(Comparable::Function(function)) => Err(error(
                FilterErrorKind::InvalidComparison,
                function.position,
                format!(
                    "a function call ('{}') cannot be the value of a comparison; compare with \
                     a literal",
                    function.name
                ),
                function.name.clone(),
            )),
            Arg::Composite { expr, .. } => self.distribute(&resolved, &path, op, expr),
        }
    }

    /// `field = (a OR b)`: applies the comparison to each literal of the group.
    fn distribute(
        &self,
        resolved: &Resolved<'s>,
        path: &str,
        op: Operator,
        expr: &Expr,
    ) -> Result<Condition, FilterError> {
        let each = |items: &[Expr]| -> Result<Vec<Condition>, FilterError> {
            items
                .iter()
                .map(|item| self.distribute(resolved, path, op, item))
                .collect()
        };
        match expr {
            Expr::And(items) | Expr::Sequence(items) => Ok(and(each(items)?)),
            Expr::Or(items) => Ok(or(each(items)?)),
            Expr::Not { operand, .. } => Ok(Condition::Not(Box::new(
                self.distribute(resolved, path, op, operand)?,
            ))),
            Expr::Global(Comparable::Member(value)) => self.compare(resolved, path, op, value),
            Expr::Global(Comparable::Function(Function { position, .. }))
            | Expr::Restriction(Restriction {
                operator_position: position,
                ..
            }) => Err(error(
                FilterErrorKind::InvalidComparison,
                *position,
                format!(
                    "only literal values may appear in the parentheses after '{path} {}'",
                    op.symbol()
                ),
                path,
            )),
        }
    }

    /// Resolves a field path against the declarations.
    fn resolve(&self, member: &Member) -> Result<Resolved<'s>, FilterError> {
        let segments: Vec<&Value> = std::iter::once(&member.value)
            .chain(&member.fields)
            .collect();
        let written = |i: usize| {
            segments[..=i]
                .iter()
                .map(|v| v.text.as_str())
                .collect::<Vec<_>>()
                .join(".")
        };
        let mut candidates: Vec<&'s FieldDecl> = self.schema.fields.iter().collect();
        for (i, segment) in segments.iter().enumerate() {
            let next: Vec<&'s FieldDecl> = if segment.kind == ValueKind::Text {
                candidates
                    .iter()
                    .copied()
                    .filter(|d| {
                        d.segments
                            .get(i)
                            .is_some_and(|declared| case::matches(&segment.text, declared))
                    })
                    .collect()
            } else {
                Vec::new()
            };
            if !next.is_empty() {
                candidates = next;
                continue;
            }
            if i > 0
                && let Some(leaf) = candidates.iter().copied().find(|d| d.segments.len() == i)
            {
                return beyond_leaf(leaf, &segments, i, member);
            }
            let written = written(i);
            let (kind, message) = if segment.text.contains('[') {
                (
                    FilterErrorKind::InvalidTraversal,
                    format!("'{written}' indexes a field; filters cannot index repeated fields"),
                )
            } else if segment.kind == ValueKind::Text {
                (
                    FilterErrorKind::UnknownField,
                    format!("unknown field '{written}'"),
                )
            } else {
                (
                    FilterErrorKind::UnknownField,
                    format!(
                        "field names must not be quoted ('{written}'); only map keys may be quoted"
                    ),
                )
            };
            return Err(error(kind, segment.position, message, written));
        }
        let depth = segments.len();
        if let Some(decl) = candidates
            .iter()
            .copied()
            .find(|d| d.segments.len() == depth)
        {
            return Ok(Resolved::Field {
                decl,
                map_key: None,
            });
        }
        match candidates.first() {
            Some(decl) => Ok(Resolved::Message {
                path: decl.prefix(depth),
            }),
            None => Err(error(
                FilterErrorKind::UnknownField,
                member.value.position,
                format!("unknown field '{}'", member.dotted()),
                member.dotted(),
            )),
        }
    }

    /// One comparison of a resolved path with one value.
    fn compare(
        &self,
        resolved: &Resolved<'s>,
        path: &str,
        op: Operator,
        value_member: &Member,
    ) -> Result<Condition, FilterError> {
        if let Some(first) = value_member.fields.first() {
            let text = value_member.dotted();
            return Err(error(
                FilterErrorKind::InvalidComparison,
                first.position,
                format!(
                    "the value '{text}' is read as a field path because it is unquoted; quote \
                     it: \"{text}\""
                ),
                text,
            ));
        }
        let value = &value_member.value;
        let star = op == Operator::Has && value.kind == ValueKind::Text && value.text == "*";
        let (decl, map_key) = match resolved {
            Resolved::Message { path: message } => {
                if star {
                    return Ok(Condition::Present { field: message });
                }
                return Err(error(
                    FilterErrorKind::UnsupportedOperator,
                    value.position,
                    format!(
                        "'{path}' is a message: compare one of its fields, or test its presence \
                         with {path}:*"
                    ),
                    *message,
                ));
            }
            Resolved::Field { decl, map_key } => (*decl, map_key),
        };
        let field = decl.path;
        if let Some(key) = map_key {
            if star {
                return Ok(Condition::HasKey {
                    field,
                    key: key.clone(),
                });
            }
            return Ok(Condition::MapValue {
                field,
                key: key.clone(),
                op: comparator(op),
                value: string_match(op, value)?,
            });
        }
        if star {
            return Ok(Condition::Present { field });
        }
        let unsupported = |advice: &str| {
            Err(error(
                FilterErrorKind::UnsupportedOperator,
                value.position,
                format!(
                    "'{}' cannot be used on '{path}', which is {} field; {advice}",
                    op.symbol(),
                    type_name(decl.field_type)
                ),
                field,
            ))
        };
        let ordering = matches!(
            op,
            Operator::LessThan
                | Operator::LessEquals
                | Operator::GreaterThan
                | Operator::GreaterEquals
        );
        let literal = match decl.field_type {
            FieldType::String if op == Operator::Has && decl.fuzzy => {
                return fuzzy(field, value);
            }
            FieldType::String => Literal::String(string_match(op, value)?),
            FieldType::Integer => Literal::Integer(integer(&format!("'{path}'"), value)?),
            FieldType::Timestamp => Literal::Timestamp(timestamp(&format!("'{path}'"), value)?),
            FieldType::Bool if ordering => return unsupported("use = or != with true or false"),
            FieldType::Bool => Literal::Bool(boolean(&format!("'{path}'"), value)?),
            FieldType::Enum(_) | FieldType::EnumWithAliases(..) if ordering => {
                return unsupported("use = or !=");
            }
            FieldType::Enum(values) => {
                Literal::Enum(enum_value(&format!("'{path}'"), values, &[], value)?)
            }
            FieldType::EnumWithAliases(values, aliases) => {
                Literal::Enum(enum_value(&format!("'{path}'"), values, aliases, value)?)
            }
            FieldType::RepeatedString if op == Operator::Has => {
                return Ok(Condition::Contains {
                    field,
                    value: string_match(Operator::Has, value)?,
                });
            }
            FieldType::RepeatedString => {
                return unsupported(&format!(
                    "test membership with {path}:value, or non-emptiness with {path}:*"
                ));
            }
            FieldType::Map if op == Operator::Has => {
                if value.text.contains('*') {
                    return Err(error(
                        FilterErrorKind::InvalidValue,
                        value.position,
                        "'*' wildcards are not supported in map keys",
                        value.text.clone(),
                    ));
                }
                return Ok(Condition::HasKey {
                    field,
                    key: value.text.clone(),
                });
            }
            FieldType::Map => {
                return unsupported(&format!(
                    "test a key with {path}:key, or compare a value with {path}.key = value"
                ));
            }
        };
        Ok(Condition::Compare {
            field,
            op: comparator(op),
            value: literal,
        })
    }
}

fn fuzzy(field: &'static str, value: &Value) -> Result<Condition, FilterError> {
    if value.text.contains('*') {
        return Err(error(
            FilterErrorKind::InvalidValue,
            value.position,
            format!(
                "'*' wildcards are not supported in a fuzzy search of '{field}'; use = for a \
                 prefix or suffix match"
            ),
            value.text.clone(),
        ));
    }
    if value.text.trim().is_empty() {
        return Err(error(
            FilterErrorKind::InvalidValue,
            value.position,
            format!("a fuzzy search of '{field}' needs some text"),
            value.text.clone(),
        ));
    }
    Ok(Condition::Fuzzy {
        field,
        text: value.text.clone(),
    })
}

fn wildcard_unquoted(value: &Value) -> FilterError {
    error(
        FilterErrorKind::InvalidValue,
        value.position,
        format!(
            "'*' is only a wildcard at the start or end of a quoted string; quote the value, \
             e.g. \"{}\"",
            value.text
        ),
        value.text.clone(),
    )
}

/// A string value with its wildcards resolved.
fn string_match(op: Operator, value: &Value) -> Result<StringMatch, FilterError> {
    let text = &value.text;
    if value.kind != ValueKind::String {
        if text.contains('*') {
            return Err(wildcard_unquoted(value));
        }
        return Ok(StringMatch::Exact(text.clone()));
    }
    let leading = text.starts_with('*');
    let trailing = text.len() > 1 && text.ends_with('*');
    if !leading && !trailing && text != "*" {
        return Ok(StringMatch::Exact(text.clone()));
    }
    if !matches!(op, Operator::Equals | Operator::NotEquals | Operator::Has) {
        return Err(error(
            FilterErrorKind::InvalidValue,
            value.position,
            format!(
                "'*' wildcards only work with =, != and :, not with '{}'",
                op.symbol()
            ),
            text.clone(),
        ));
    }
    if leading && trailing {
        return Err(error(
            FilterErrorKind::InvalidValue,
            value.position,
            format!(
                "\"{text}\" has a '*' at both ends; a wildcard may be at the start (ends with) \
                 or at the end (starts with), not both"
            ),
            text.clone(),
        ));
    }
    Ok(if text == "*" {
        StringMatch::Prefix(String::new())
    } else if leading {
        StringMatch::Suffix(text[1..].to_owned())
    } else {
        StringMatch::Prefix(text[..text.len() - 1].to_owned())
    })
}

fn mismatch(what: &str, expected: &str, value: &Value) -> FilterError {
    error(
        FilterErrorKind::TypeMismatch,
        value.position,
        format!("{what} expects {expected}, but got {value}"),
        value.text.clone(),
    )
}

fn integer(what: &str, value: &Value) -> Result<i64, FilterError> {
    let not_integer = || mismatch(what, "an integer (unquoted digits, e.g. 42 or -7)", value);
    if value.kind != ValueKind::Number {
        return Err(not_integer());
    }
    let (negative, digits) = match value.text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, value.text.as_str()),
    };
    let (radix, digits) = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => (16, hex),
        None => (10, digits),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(not_integer());
    }
    let signed = if negative {
        format!("-{digits}")
    } else {
        digits.to_owned()
    };
    i64::from_str_radix(&signed, radix).map_err(|_| {
        error(
            FilterErrorKind::InvalidValue,
            value.position,
            format!("{what}: {value} does not fit in a 64-bit integer"),
            value.text.clone(),
        )
    })
}

fn boolean(what: &str, value: &Value) -> Result<bool, FilterError> {
    match (value.kind, value.text.as_str()) {
        (ValueKind::Text, "true") => Ok(true),
        (ValueKind::Text, "false") => Ok(false),
        _ => Err(mismatch(what, "true or false (unquoted)", value)),
    }
}

fn timestamp(what: &str, value: &Value) -> Result<OffsetDateTime, FilterError> {
    if value.kind != ValueKind::String {
        return Err(mismatch(
            what,
            "a quoted RFC 3339 timestamp, e.g. \"2026-01-01T00:00:00Z\"",
            value,
        ));
    }
    OffsetDateTime::parse(&value.text, &Rfc3339)
        .map(|t| t.to_offset(UtcOffset::UTC))
        .map_err(|_| {
            error(
                FilterErrorKind::InvalidValue,
                value.position,
                format!(
                    "{what}: {value} is not an RFC 3339 timestamp with an offset, e.g. \
                     \"2026-01-01T00:00:00Z\""
                ),
                value.text.clone(),
            )
        })
}

fn enum_value(
    what: &str,
    values: &'static [&'static str],
    aliases: &'static [(&'static str, &'static str)],
    value: &Value,
) -> Result<&'static str, FilterError> {
    if value.kind == ValueKind::Number {
        return Err(mismatch(what, "an enum value name", value));
    }
    values
        .iter()
        .copied()
        .find(|v| *v == value.text)
        .or_else(|| {
            aliases
                .iter()
                .find(|(alias, _)| *alias == value.text)
                .map(|(_, canonical)| *canonical)
        })
        .ok_or_else(|| {
            error(
                FilterErrorKind::InvalidValue,
                value.position,
                format!(
                    "{value} is not a value of {what}; the values are (case-sensitive): {}",
                    values.join(", ")
                ),
                value.text.clone(),
            )
        })
}

/// A path that goes on after reaching the declared field `leaf` at segment `i`.
fn beyond_leaf<'s>(
    leaf: &'s FieldDecl,
    segments: &[&Value],
    i: usize,
    member: &Member,
) -> Result<Resolved<'s>, FilterError> {
    let segment = segments[i];
    let full = member.dotted();
    match leaf.field_type {
        FieldType::Map if i + 1 == segments.len() => Ok(Resolved::Field {
            decl: leaf,
            map_key: Some(segment.text.clone()),
        }),
        FieldType::Map => Err(error(
            FilterErrorKind::InvalidTraversal,
            segments[i + 1].position,
            format!("'{full}' goes past a map value; map values are strings and have no fields"),
            full,
        )),
        FieldType::RepeatedString => Err(error(
            FilterErrorKind::InvalidTraversal,
            segment.position,
            format!(
                "'{full}' traverses or indexes the repeated field '{}'; filters cannot \
                 index repeated fields: use {}:value to test membership",
                leaf.path, leaf.path
            ),
            full,
        )),
        other => Err(error(
            FilterErrorKind::InvalidTraversal,
            segment.position,
            format!(
                "'{full}' goes past '{}', which is {} field and has no fields",
                leaf.path,
                type_name(other)
            ),
            full,
        )),
    }
}
