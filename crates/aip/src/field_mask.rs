//! AIP-134/161/203 update masks applied to JSON resources.
//!
//! A resource's fields are declared once in a [`FieldTable`] (names in lowerCamelCase,
//! the JSON spelling), each with a [`FieldKind`] and a [`Behavior`]. Every field the
//! resource JSON may carry must be declared, including `name` and `etag` (declare
//! them [`Behavior::OutputOnly`] when the caller handles them itself): a patch with an
//! undeclared key is refused ([`FieldMaskError::UnknownField`]), like strict proto3
//! JSON parsing (R-127.8). Patch keys must be the lowerCamelCase names (the JSON
//! spelling); only mask paths accept snake_case.
//!
//! # Parsing the mask ([`UpdateMask::parse`])
//!
//! - Missing, empty or all-whitespace: [`UpdateMask::Populated`].
//! - Paths are separated by `,`; spaces around a path are ignored; segments are
//!   separated by `.` and may be written in lowerCamelCase or snake_case (R-161.8).
//! - `.` goes into messages (`contactInfo.emails`, R-161.1) and, one step, into maps
//!   (`externalIds.crm`, R-161.2). A segment in backticks is taken literally, with
//!   ```` `` ```` standing for one backtick: ``externalIds.`my.key` ``.
//! - `*` alone is [`UpdateMask::Full`] (R-134.5). `*` together with other paths, or
//!   inside a path (`authors.*.givenName`, R-161.3, a MAY we do not offer), is an
//!   error \[ours\].
//! - Unknown paths (R-161.5), paths into scalars or past a map key, indexes into
//!   repeated fields (`tags.0`, R-161.4) and empty segments are errors naming the path.
//! - Paths to output-only fields are accepted (and ignored when applying, R-161.6).
//!
//! # Applying ([`apply`])
//!
//! "Populated" means not null, not `""`, not `0`, not `false`, not `[]`, not `{}`
//! (proto3 defaults, R-127.6). A cleared field is removed from the JSON.
//!
//! - [`UpdateMask::Populated`] (R-134.4): every populated field of the patch is set;
//!   messages are merged recursively; repeated fields and maps are replaced whole
//!   (R-161.8 \[ours\]). `{"displayName": ""}` changes nothing.
//! - [`UpdateMask::Full`] (R-134.5): every field that is not output-only takes the
//!   patch's value; a field the patch leaves out (or sends empty) is cleared.
//!   Messages are replaced field by field, so output-only fields inside them survive.
//!   An immutable field the patch leaves out keeps its value \[ours\].
//! - [`UpdateMask::Paths`]: each named field is set from the patch, or cleared when
//!   the patch leaves it out or empty. A map-key path sets or removes that one key. A
//!   message path replaces the message as `*` does for the resource. Repeated fields
//!   and maps are replaced whole.
//!
//! In every mode: output-only fields, in the patch or named in the mask (directly or
//! through a parent), are ignored (R-203.1, R-161.6, R-134.8). An immutable field may
//! appear only with its current value; a change (including clearing it, or setting
//! it when unset) is [`FieldMaskError::ImmutableFieldChanged`] (R-203.3). A required
//! field that the mask covers (named, inside a named message, or every one under `*`)
//! and that ends up empty is [`FieldMaskError::RequiredFieldMissing`] (R-203.4); for
//! Create, [`missing_required_fields`] lists them (R-203.2).

use std::fmt;

use serde_json::{Map, Value};

use crate::case;

/// What a field holds; decides how masks traverse and replace it, and which control
/// characters its text may hold (the rule itself is the service's: rics refuses every
/// control character in one-line text, and all but line breaks and tabs in multi-line
/// text).
#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    /// Any single JSON value, replaced whole: one-line strings (names, titles, ids),
    /// numbers, bools, enums, timestamps.
    Scalar,
    /// A scalar with explicit presence (proto3 `optional`): a given `false`, `0` or
    /// `""` is set, not cleared as a [`FieldKind::Scalar`]'s would be; only null or
    /// absence clears it. For a field whose unset value is not the zero value (an
    /// entity's `monitoring`, true unless turned off).
    OptionalScalar,
    /// A string that may span lines (a description, a note's content); replaced whole
    /// like a [`FieldKind::Scalar`].
    MultiLineText,
    /// Free-form JSON (`google.protobuf.Struct` or `Value`: an alert's `details`, a
    /// log's `payload`), replaced whole; its strings are data, not text of the
    /// resource's own.
    FreeForm,
    /// A nested message with its own declared fields; masks can go into it.
    Message(FieldTable),
    /// A repeated field (JSON array); replaced whole, never indexed.
    Repeated,
    /// A map from string keys (JSON object); replaced whole, or one key at a time
    /// through a key path.
    Map,
}

/// The field behaviour of AIP-203.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Behavior {
    /// Set by the caller on create and update.
    Mutable,
    /// Set by the server; ignored on input.
    OutputOnly,
    /// Set on create; an update may repeat the value but not change it.
    Immutable,
    /// Mutable and must not be empty.
    Required,
}

/// One declared field.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The lowerCamelCase JSON name.
    pub name: &'static str,
    /// What it holds.
    pub kind: FieldKind,
    /// Its behaviour.
    pub behavior: Behavior,
}

/// The declared fields of a resource or message.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FieldTable {
    fields: Vec<Field>,
}

impl FieldTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Declares a field; declaring a name again replaces the earlier declaration.
    #[must_use]
    pub fn field(mut self, name: &'static str, kind: FieldKind, behavior: Behavior) -> Self {
        self.fields.retain(|f| f.name != name);
        self.fields.push(Field {
            name,
            kind,
            behavior,
        });
        self
    }

    /// Declares each of `names` a scalar output-only field (a resource's standard
    /// fields: `name`, `uid`, its times, `etag`).
    #[must_use]
    pub fn output_only(self, names: &[&'static str]) -> Self {
        names.iter().fold(self, |table, name| {
            table.field(name, FieldKind::Scalar, Behavior::OutputOnly)
        })
    }

    /// The declared fields, in declaration order.
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// The field named `name` (lowerCamelCase or snake_case).
    pub fn get(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| case::matches(name, f.name))
    }

    fn exact(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// One resolved path of an update mask.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MaskPath {
    /// The canonical field names from the resource down (at least one).
    pub fields: Vec<&'static str>,
    /// The map key, when the path ends one step inside a map.
    pub key: Option<String>,
}

impl fmt::Display for MaskPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fields.join("."))?;
        if let Some(key) = &self.key {
            let plain = !key.is_empty() && key.chars().all(|c| c.is_alphanumeric() || c == '_');
            if plain {
                write!(f, ".{key}")?;
            } else {
                write!(f, ".`{}`", key.replace('`', "``"))?;
            }
        }
        Ok(())
    }
}

/// A parsed `updateMask`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpdateMask {
    /// No mask: update the populated fields of the patch (R-134.4).
    Populated,
    /// `*`: full replacement (R-134.5).
    Full,
    /// These paths, deduplicated, in the order given.
    Paths(Vec<MaskPath>),
}

/// Why a mask or a patch was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FieldMaskError {
    /// The mask text is malformed (empty segment, unterminated backtick, …).
    #[error("invalid update mask '{path}': {detail}")]
    InvalidSyntax {
        /// The whole mask as written.
        path: String,
        /// What is wrong.
        detail: &'static str,
    },
    /// The path names no field that can exist (R-161.5).
    #[error("update mask path '{path}' does not name a field of this resource")]
    UnknownPath {
        /// The path as written.
        path: String,
    },
    /// The path indexes a repeated field (R-161.4).
    #[error("update mask path '{path}' indexes a repeated field; name the whole field instead")]
    IndexIntoRepeated {
        /// The path as written.
        path: String,
    },
    /// `*` used with other paths or inside a path.
    #[error("'*' in update mask path '{path}': use '*' alone for a full replacement")]
    WildcardNotAlone {
        /// The path as written.
        path: String,
    },
    /// An immutable field would change (R-203.3).
    #[error("field '{path}' is immutable and cannot be changed")]
    ImmutableFieldChanged {
        /// Canonical path of the field.
        path: String,
    },
    /// A required field would be empty (R-203.2, R-203.4).
    #[error("field '{path}' is required and cannot be empty")]
    RequiredFieldMissing {
        /// Canonical path of the field.
        path: String,
    },
    /// The patch has a key that is not a declared field.
    #[error("unknown field '{path}'")]
    UnknownField {
        /// Path of the key in the patch.
        path: String,
    },
    /// A value of the wrong JSON shape for its field kind.
    #[error("field '{path}' must be {expected}")]
    WrongValueType {
        /// Canonical path of the field (empty for the resource itself).
        path: String,
        /// The JSON shape expected.
        expected: &'static str,
    },
}

impl FieldMaskError {
    /// The UPPER_SNAKE_CASE `ErrorInfo.reason`.
    pub fn reason(&self) -> &'static str {
        match self {
            Self::InvalidSyntax { .. } => "INVALID_UPDATE_MASK",
            Self::UnknownPath { .. } => "UNKNOWN_UPDATE_MASK_PATH",
            Self::IndexIntoRepeated { .. } => "UPDATE_MASK_INDEXES_REPEATED_FIELD",
            Self::WildcardNotAlone { .. } => "UPDATE_MASK_WILDCARD_NOT_ALONE",
            Self::ImmutableFieldChanged { .. } => "IMMUTABLE_FIELD_CHANGED",
            Self::RequiredFieldMissing { .. } => "REQUIRED_FIELD_MISSING",
            Self::UnknownField { .. } => "UNKNOWN_FIELD",
            Self::WrongValueType { .. } => "INVALID_FIELD_VALUE",
        }
    }

    /// The offending path: a mask path as written, or a resource field path.
    pub fn path(&self) -> &str {
        match self {
            Self::InvalidSyntax { path, .. }
            | Self::UnknownPath { path }
            | Self::IndexIntoRepeated { path }
            | Self::WildcardNotAlone { path }
            | Self::ImmutableFieldChanged { path }
            | Self::RequiredFieldMissing { path }
            | Self::UnknownField { path }
            | Self::WrongValueType { path, .. } => path,
        }
    }

    /// Whether the violation is in the `updateMask` parameter (otherwise it is in the
    /// resource body, at [`path`](Self::path) under the resource's request field).
    pub fn in_mask(&self) -> bool {
        matches!(
            self,
            Self::InvalidSyntax { .. }
                | Self::UnknownPath { .. }
                | Self::IndexIntoRepeated { .. }
                | Self::WildcardNotAlone { .. }
        )
    }
}

/// One segment of a mask path as written.
struct Segment {
    text: String,
    quoted: bool,
}

/// Splits the raw mask into paths of segments, honouring backticks.
fn split(raw: &str) -> Result<Vec<(String, Vec<Segment>)>, FieldMaskError> {
    let mut paths = Vec::new();
    let mut segments: Vec<Segment> = Vec::new();
    let mut text = String::new();
    let mut written = String::new();
    let mut quoted = false;
    let mut closed = false;
    let mut chars = raw.chars().peekable();
    let syntax = |detail| FieldMaskError::InvalidSyntax {
        path: raw.trim().to_owned(),
        detail,
    };
    while let Some(ch) = chars.next() {
        if quoted && !closed {
            written.push(ch);
            if ch == '`' {
                if chars.peek() == Some(&'`') {
                    chars.next();
                    written.push('`');
                    text.push('`');
                } else {
                    closed = true;
                }
            } else {
                text.push(ch);
            }
            continue;
        }
        match ch {
            '.' | ',' => {
                let segment = if quoted {
                    Segment {
                        text: std::mem::take(&mut text),
                        quoted: true,
                    }
                } else {
                    Segment {
                        text: std::mem::take(&mut text).trim().to_owned(),
                        quoted: false,
                    }
                };
                if !segment.quoted && segment.text.is_empty() {
                    written.push(ch);
                    return Err(syntax("empty path segment"));
                }
                segments.push(segment);
                quoted = false;
                closed = false;
                if ch == ',' {
                    paths.push((written.trim().to_owned(), std::mem::take(&mut segments)));
                    written.clear();
                } else {
                    written.push(ch);
                }
            }
            '`' if !quoted && text.trim().is_empty() => {
                written.push(ch);
                text.clear();
                quoted = true;
            }
            _ if quoted && ch.is_whitespace() => written.push(ch),
            _ if quoted => {
                written.push(ch);
                return Err(syntax("unexpected text after a closing backtick"));
            }
            '`' => {
                written.push(ch);
                return Err(syntax("a backtick may only start a segment"));
            }
            _ => {
                written.push(ch);
                text.push(ch);
            }
        }
    }
    if quoted && !closed {
        return Err(syntax("unterminated backtick"));
    }
    let last = Segment {
        text: if quoted { text } else { text.trim().to_owned() },
        quoted,
    };
    if !last.quoted && last.text.is_empty() {
        return Err(syntax("empty path segment"));
    }
    segments.push(last);
    paths.push((written.trim().to_owned(), segments));
    Ok(paths)
}

impl UpdateMask {
    /// The paths a caller may change as an ECMA-262 regular expression over the
    /// `updateMask` parameter, for JSON Schema: `*` alone, or paths separated by `,`
    /// (spaces around), each a mutable or required field of `table` in either spelling,
    /// into nested messages, or a map key (`externalIds.crm`). Output-only and immutable
    /// fields are left out: the mask may name them only to repeat their value.
    pub fn pattern(table: &FieldTable) -> String {
        let path = Self::path_pattern(table);
        format!("^( *\\* *|( *{path} *(, *{path} *)*)?)$")
    }

    fn path_pattern(table: &FieldTable) -> String {
        let mut alternatives = Vec::new();
        for field in table.fields() {
            if matches!(field.behavior, Behavior::OutputOnly | Behavior::Immutable) {
                continue;
            }
            let snake = crate::case::camel_to_snake(field.name);
            let name = if snake == field.name {
                field.name.to_owned()
            } else {
                format!("({}|{snake})", field.name)
            };
            alternatives.push(match &field.kind {
                FieldKind::Message(inner) => {
                    format!("{name}(\\.{})?", Self::path_pattern(inner))
                }
                FieldKind::Map => format!("{name}(\\.[A-Za-z_][A-Za-z0-9_]*)?"),
                _ => name,
            });
        }
        format!("({})", alternatives.join("|"))
    }

    /// Parses the `updateMask` query parameter against a resource's table; see the
    /// [module docs](self).
    ///
    /// # Errors
    ///
    /// [`FieldMaskError::InvalidSyntax`], [`UnknownPath`](FieldMaskError::UnknownPath),
    /// [`IndexIntoRepeated`](FieldMaskError::IndexIntoRepeated) or
    /// [`WildcardNotAlone`](FieldMaskError::WildcardNotAlone), naming the path.
    pub fn parse(raw: Option<&str>, table: &FieldTable) -> Result<Self, FieldMaskError> {
        let Some(raw) = raw.filter(|r| !r.trim().is_empty()) else {
            return Ok(Self::Populated);
        };
        let paths = split(raw)?;
        let is_star = |segments: &[Segment]| {
            segments.len() == 1 && !segments[0].quoted && segments[0].text == "*"
        };
        if paths.len() == 1 && is_star(&paths[0].1) {
            return Ok(Self::Full);
        }
        let mut resolved: Vec<MaskPath> = Vec::with_capacity(paths.len());
        for (written, segments) in &paths {
            if segments.iter().any(|s| !s.quoted && s.text == "*") {
                return Err(FieldMaskError::WildcardNotAlone {
                    path: written.clone(),
                });
            }
            let path = resolve(written, segments, table)?;
            if !resolved.contains(&path) {
                resolved.push(path);
            }
        }
        Ok(Self::Paths(resolved))
    }
}

fn resolve(
    written: &str,
    segments: &[Segment],
    table: &FieldTable,
) -> Result<MaskPath, FieldMaskError> {
    let unknown = || FieldMaskError::UnknownPath {
        path: written.to_owned(),
    };
    let mut fields = Vec::new();
    let mut current = Some(table);
    let mut iter = segments.iter();
    while let Some(segment) = iter.next() {
        let Some(table) = current else {
            return Err(unknown());
        };
        let field = if segment.quoted {
            table.exact(&segment.text)
        } else {
            table.get(&segment.text)
        }
        .ok_or_else(unknown)?;
        fields.push(field.name);
        match &field.kind {
            FieldKind::Message(sub) => current = Some(sub),
            FieldKind::Scalar
            | FieldKind::OptionalScalar
            | FieldKind::MultiLineText
            | FieldKind::FreeForm => current = None,
            FieldKind::Repeated => {
                if let Some(next) = iter.next() {
                    let numeric =
                        !next.text.is_empty() && next.text.chars().all(|c| c.is_ascii_digit());
                    return Err(if numeric {
                        FieldMaskError::IndexIntoRepeated {
                            path: written.to_owned(),
                        }
                    } else {
                        unknown()
                    });
                }
            }
            FieldKind::Map => {
                let Some(key) = iter.next() else { break };
                if iter.next().is_some() {
                    return Err(unknown());
                }
                return Ok(MaskPath {
                    fields,
                    key: Some(key.text.clone()),
                });
            }
        }
    }
    Ok(MaskPath { fields, key: None })
}

/// Whether a JSON value is set to something other than its proto3 default.
pub fn is_populated(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

fn populated(value: Option<&Value>) -> Option<&Value> {
    value.filter(|v| is_populated(v))
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_owned()
    } else {
        format!("{prefix}.{name}")
    }
}

/// Checks that every key of `patch` is declared and has the right JSON shape.
fn validate(
    table: &FieldTable,
    patch: &Map<String, Value>,
    prefix: &str,
) -> Result<(), FieldMaskError> {
    for (key, value) in patch {
        let path = join(prefix, key);
        let Some(field) = table.exact(key) else {
            return Err(FieldMaskError::UnknownField { path });
        };
        if value.is_null() {
            continue;
        }
        let wrong = |expected| FieldMaskError::WrongValueType {
            path: path.clone(),
            expected,
        };
        match &field.kind {
            FieldKind::Message(sub) => {
                let object = value.as_object().ok_or_else(|| wrong("an object"))?;
                validate(sub, object, &path)?;
            }
            FieldKind::Repeated if !value.is_array() => return Err(wrong("an array")),
            FieldKind::Map if !value.is_object() => return Err(wrong("an object")),
            FieldKind::Scalar
            | FieldKind::OptionalScalar
            | FieldKind::MultiLineText
            | FieldKind::FreeForm
            | FieldKind::Repeated
            | FieldKind::Map => {}
        }
    }
    Ok(())
}

/// Applies `patch` to `current` under `mask` and returns the updated resource; see
/// the [module docs](self).
///
/// # Errors
///
/// [`FieldMaskError::UnknownField`] or [`WrongValueType`](FieldMaskError::WrongValueType)
/// for a bad patch, [`ImmutableFieldChanged`](FieldMaskError::ImmutableFieldChanged),
/// [`RequiredFieldMissing`](FieldMaskError::RequiredFieldMissing).
pub fn apply(
    mask: &UpdateMask,
    table: &FieldTable,
    current: &Value,
    patch: &Value,
) -> Result<Value, FieldMaskError> {
    let not_object = || FieldMaskError::WrongValueType {
        path: String::new(),
        expected: "an object",
    };
    let current = current.as_object().ok_or_else(not_object)?;
    let patch = patch.as_object().ok_or_else(not_object)?;
    validate(table, patch, "")?;
    let mut result = current.clone();
    match mask {
        UpdateMask::Populated => merge_populated(table, &mut result, patch, "")?,
        UpdateMask::Full => {
            result = replace(table, Some(current), Some(patch), "")?;
            require(table, &result, "")?;
        }
        UpdateMask::Paths(paths) => {
            for path in paths {
                apply_path(table, &mut result, patch, path)?;
            }
        }
    }
    Ok(Value::Object(result))
}

/// Lists the required fields that are empty in `resource`: top-level ones, and those
/// inside messages that are present. For Create (R-203.2).
pub fn missing_required_fields(table: &FieldTable, resource: &Value) -> Vec<String> {
    let mut missing = Vec::new();
    if let Some(object) = resource.as_object() {
        collect_missing(table, object, "", &mut missing);
    }
    missing
}

fn collect_missing(
    table: &FieldTable,
    object: &Map<String, Value>,
    prefix: &str,
    missing: &mut Vec<String>,
) {
    for field in &table.fields {
        let value = populated(object.get(field.name));
        let path = join(prefix, field.name);
        if field.behavior == Behavior::Required && value.is_none() {
            missing.push(path.clone());
        }
        if let (FieldKind::Message(sub), Some(Value::Object(inner))) = (&field.kind, value) {
            collect_missing(sub, inner, &path, missing);
        }
    }
}

fn require(
    table: &FieldTable,
    object: &Map<String, Value>,
    prefix: &str,
) -> Result<(), FieldMaskError> {
    let mut missing = Vec::new();
    collect_missing(table, object, prefix, &mut missing);
    match missing.into_iter().next() {
        Some(path) => Err(FieldMaskError::RequiredFieldMissing { path }),
        None => Ok(()),
    }
}

fn check_immutable(
    field: &Field,
    before: Option<&Value>,
    after: Option<&Value>,
    path: &str,
) -> Result<(), FieldMaskError> {
    if field.behavior == Behavior::Immutable && populated(before) != populated(after) {
        return Err(FieldMaskError::ImmutableFieldChanged {
            path: path.to_owned(),
        });
    }
    Ok(())
}

/// No mask: set every populated field of the patch, merging messages.
fn merge_populated(
    table: &FieldTable,
    result: &mut Map<String, Value>,
    patch: &Map<String, Value>,
    prefix: &str,
) -> Result<(), FieldMaskError> {
    for field in &table.fields {
        if field.behavior == Behavior::OutputOnly {
            continue;
        }
        let Some(value) = populated(patch.get(field.name)) else {
            continue;
        };
        let path = join(prefix, field.name);
        let before = result.get(field.name).cloned();
        match (&field.kind, value) {
            (FieldKind::Message(sub), Value::Object(inner)) => {
                let mut merged = match result.get(field.name) {
                    Some(Value::Object(existing)) => existing.clone(),
                    _ => Map::new(),
                };
                merge_populated(sub, &mut merged, inner, &path)?;
                result.insert(field.name.to_owned(), Value::Object(merged));
            }
            _ => {
                result.insert(field.name.to_owned(), value.clone());
            }
        }
        check_immutable(field, before.as_ref(), result.get(field.name), &path)?;
    }
    Ok(())
}

/// Full replacement of a message's fields (`*`, or a message named in the mask).
fn replace(
    table: &FieldTable,
    current: Option<&Map<String, Value>>,
    patch: Option<&Map<String, Value>>,
    prefix: &str,
) -> Result<Map<String, Value>, FieldMaskError> {
    let mut result = current.cloned().unwrap_or_default();
    for field in &table.fields {
        let path = join(prefix, field.name);
        let before = current.and_then(|c| c.get(field.name));
        let given = given_value(field, patch.and_then(|p| p.get(field.name)));
        let after = match field.behavior {
            Behavior::OutputOnly => continue,
            Behavior::Immutable if given.is_none() => continue,
            _ => match &field.kind {
                FieldKind::Message(sub) => {
                    let inner = replace(
                        sub,
                        before.and_then(Value::as_object),
                        given.and_then(Value::as_object),
                        &path,
                    )?;
                    (given.is_some() || !inner.is_empty()).then_some(Value::Object(inner))
                }
                _ => given.cloned(),
            },
        };
        check_immutable(field, before, after.as_ref(), &path)?;
        match after {
            Some(value) => result.insert(field.name.to_owned(), value),
            None => result.remove(field.name),
        };
    }
    Ok(result)
}

/// What a patch gives `field`: a populated value, or for an
/// [`FieldKind::OptionalScalar`] any value but null.
fn given_value<'a>(field: &Field, value: Option<&'a Value>) -> Option<&'a Value> {
    match field.kind {
        FieldKind::OptionalScalar => value.filter(|v| !v.is_null()),
        _ => populated(value),
    }
}

/// One explicit mask path.
fn apply_path(
    table: &FieldTable,
    result: &mut Map<String, Value>,
    patch: &Map<String, Value>,
    path: &MaskPath,
) -> Result<(), FieldMaskError> {
    let mut fields = Vec::with_capacity(path.fields.len());
    let mut table = table;
    for name in &path.fields {
        let Some(field) = table.exact(name) else {
            return Err(FieldMaskError::UnknownPath {
                path: path.to_string(),
            });
        };
        if field.behavior == Behavior::OutputOnly {
            return Ok(());
        }
        if let FieldKind::Message(sub) = &field.kind {
            table = sub;
        }
        fields.push(field);
    }
    let Some((leaf, parents)) = fields.split_last() else {
        return Ok(());
    };
    let canonical = path.fields.join(".");
    let lookup = |root: &Map<String, Value>| -> Option<Value> {
        let mut object = root;
        for parent in parents {
            object = object.get(parent.name)?.as_object()?;
        }
        object.get(leaf.name).cloned()
    };
    let before = lookup(result);
    let given = lookup(patch);
    let after = match (&leaf.kind, &path.key) {
        (FieldKind::Map, Some(key)) => {
            let mut map = before
                .as_ref()
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            match given
                .as_ref()
                .and_then(|m| m.get(key))
                .filter(|v| !v.is_null())
            {
                Some(value) => map.insert(key.clone(), value.clone()),
                None => map.remove(key),
            };
            (!map.is_empty()).then_some(Value::Object(map))
        }
        (FieldKind::Message(sub), _) => {
            let inner = replace(
                sub,
                before.as_ref().and_then(Value::as_object),
                populated(given.as_ref()).and_then(Value::as_object),
                &canonical,
            )?;
            if populated(given.as_ref()).is_some() || !inner.is_empty() {
                require(sub, &inner, &canonical)?;
                Some(Value::Object(inner))
            } else {
                None
            }
        }
        _ => given_value(leaf, given.as_ref()).cloned(),
    };
    check_immutable(leaf, before.as_ref(), after.as_ref(), &canonical)?;
    if leaf.behavior == Behavior::Required && populated(after.as_ref()).is_none() {
        return Err(FieldMaskError::RequiredFieldMissing { path: canonical });
    }
    set_at(result, parents, leaf.name, after);
    Ok(())
}

/// Sets (or with `None` removes) `leaf` under the `parents` messages of `root`,
/// creating missing parents only when setting.
fn set_at(root: &mut Map<String, Value>, parents: &[&Field], leaf: &str, value: Option<Value>) {
    let mut object = root;
    for parent in parents {
        if value.is_none() && !object.get(parent.name).is_some_and(Value::is_object) {
            return;
        }
        let entry = object
            .entry(parent.name.to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
        if !entry.is_object() {
            *entry = Value::Object(Map::new());
        }
        let Value::Object(inner) = entry else { return };
        object = inner;
    }
    match value {
        Some(value) => object.insert(leaf.to_owned(), value),
        None => object.remove(leaf),
    };
}

#[cfg(test)]
mod tests;
