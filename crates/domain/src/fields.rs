//! Reading request bodies and update masks against a resource's [`FieldTable`]: the
//! same AIP-134 and AIP-203 rules, and the same text rule, for every resource.

use rics_aip::field_mask::{self, Behavior, FieldKind, FieldTable, UpdateMask};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::validate::{Lines, Violations};

/// A request body made ready to read: output-only fields dropped (ignored on input,
/// R-203.1), then every string checked for control characters as the table declares
/// its field ([`check_text`]). Nulls stay: they read as unset, and an unknown field is
/// refused even when null.
///
/// # Errors
/// INVALID_ARGUMENT naming `field` when the body is not a JSON object;
/// `CONTROL_CHARACTER` naming each string that breaks its field's rule.
pub fn input(table: &FieldTable, mut body: Value, field: &str) -> Result<Value> {
    crate::resource::require_object(&body, field)?;
    strip_output_only(table, &mut body);
    let mut violations = Violations::new();
    if let Value::Object(members) = &body {
        check_text(table, members, field, &mut violations);
    }
    violations.finish()?;
    Ok(body)
}

/// Checks every string of a resource body against the text rule of its field
/// ([`Lines`], docs/api.md "Text"), in one pass, naming each offender under `prefix`:
/// [`FieldKind::MultiLineText`] fields may hold line breaks and tabs, the strings of
/// [`FieldKind::FreeForm`] values are data and not checked, and every other string
/// (scalars, list items, map keys and values, at any depth, and fields the table does
/// not declare, which are refused later) is one line.
fn check_text(
    table: &FieldTable,
    members: &Map<String, Value>,
    prefix: &str,
    violations: &mut Violations,
) {
    for (key, value) in members {
        let path = format!("{prefix}.{key}");
        match (table.get(key).map(|f| &f.kind), value) {
            (Some(FieldKind::FreeForm), _) => {}
            (Some(FieldKind::MultiLineText), _) => {
                check_strings(value, &path, Lines::Multi, violations);
            }
            (Some(FieldKind::Message(inner)), Value::Object(inner_members)) => {
                check_text(inner, inner_members, &path, violations);
            }
            _ => check_strings(value, &path, Lines::Single, violations),
        }
    }
}

/// Checks every string in `value` (object keys as one line) against `lines`.
fn check_strings(value: &Value, path: &str, lines: Lines, violations: &mut Violations) {
    match value {
        Value::String(text) => violations.control_characters(path, text, lines),
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                check_strings(item, &format!("{path}[{index}]"), lines, violations);
            }
        }
        Value::Object(members) => {
            for (key, member) in members {
                let member_path = format!("{path}.{key}");
                violations.control_characters(&member_path, key, Lines::Single);
                check_strings(member, &member_path, lines, violations);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

fn strip_output_only(table: &FieldTable, value: &mut Value) {
    let Some(object) = value.as_object_mut() else {
        return;
    };
    object.retain(|key, _| {
        table
            .get(key)
            .is_none_or(|f| f.behavior != Behavior::OutputOnly)
    });
    for (key, member) in object.iter_mut() {
        if let Some(FieldKind::Message(inner)) = table.get(key).map(|f| &f.kind) {
            strip_output_only(inner, member);
        }
    }
}

/// Parses an `updateMask` against the resource's fields.
///
/// # Errors
/// INVALID_ARGUMENT on `updateMask` naming the bad path.
pub fn update_mask(table: &FieldTable, raw: Option<&str>) -> Result<UpdateMask> {
    UpdateMask::parse(raw, table).map_err(|e| {
        Error::invalid_field("updateMask", e.reason(), e.to_string())
            .with_metadata("path", e.path())
    })
}

/// The body of an update (PATCH) made ready to apply.
#[derive(Debug, Clone, PartialEq)]
pub struct Patch {
    /// The body's `etag`, if any: it must be the resource's current one.
    pub etag: Option<String>,
    /// The `updateMask`.
    pub mask: UpdateMask,
    /// The body without its output-only fields, for [`apply_mask`].
    pub body: Value,
}

/// Reads the body and mask of an update of the resource `name` (AIP-134) as a `T`,
/// before the resource is read: the body's `name`, when given, must be `name` (an
/// update cannot move onto another resource); field violations are named under
/// `prefix` (`workspace.displayName`).
///
/// # Errors
/// INVALID_ARGUMENT: a body that is not an object, `NAME_MISMATCH` on
/// `{prefix}.name`, a bad mask (on `updateMask`), a field that does not read as `T`.
pub fn read_patch<T: DeserializeOwned + Serialize>(
    table: &FieldTable,
    body: Value,
    raw_mask: Option<&str>,
    name: &str,
    prefix: &str,
) -> Result<Patch> {
    crate::resource::require_object(&body, prefix)?;
    let body_name = body.get("name").and_then(Value::as_str).unwrap_or("");
    if !body_name.is_empty() && body_name != name {
        return Err(Error::invalid_field(
            format!("{prefix}.name"),
            "NAME_MISMATCH",
            format!("'{body_name}' is not the resource in the path ('{name}')"),
        ));
    }
    let etag = body.get("etag").and_then(Value::as_str).map(str::to_owned);
    let mask = update_mask(table, raw_mask)?;
    let body = input(table, body, prefix)?;
    crate::resource::parse_body::<T>(body.clone(), prefix)?;
    Ok(Patch { etag, mask, body })
}

/// Applies a patch to the current resource JSON under `mask`; field violations are
/// named under `prefix` (`entity.displayName`).
///
/// # Errors
/// INVALID_ARGUMENT naming the field: unknown field, wrong shape, changed immutable
/// field, emptied required field.
pub fn apply_mask(
    table: &FieldTable,
    mask: &UpdateMask,
    current: &Value,
    patch: &Value,
    prefix: &str,
) -> Result<Value> {
    field_mask::apply(mask, table, current, patch).map_err(|e| {
        let field = if e.in_mask() {
            "updateMask".to_owned()
        } else {
            format!("{prefix}.{}", e.path())
        };
        Error::invalid_field(field, e.reason(), e.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn table() -> FieldTable {
        FieldTable::new()
            .field("name", FieldKind::Scalar, Behavior::OutputOnly)
            .field("displayName", FieldKind::Scalar, Behavior::Required)
            .field(
                "inner",
                FieldKind::Message(FieldTable::new().field(
                    "createTime",
                    FieldKind::Scalar,
                    Behavior::OutputOnly,
                )),
                Behavior::Mutable,
            )
    }

    #[test]
    fn output_only_input_is_dropped_at_every_depth() {
        let body = input(
            &table(),
            json!({"name": "x", "displayName": "A", "inner": {"createTime": "t"}}),
            "thing",
        )
        .unwrap();
        assert_eq!(body, json!({"displayName": "A", "inner": {}}));
        let error = input(&table(), json!([1]), "thing").unwrap_err();
        assert_eq!(error.field_violations[0].field, "thing");
    }

    #[test]
    fn text_follows_the_kind_of_its_field() {
        let table = FieldTable::new()
            .field("createTime", FieldKind::Scalar, Behavior::OutputOnly)
            .field("title", FieldKind::Scalar, Behavior::Required)
            .field("description", FieldKind::MultiLineText, Behavior::Mutable)
            .field("details", FieldKind::FreeForm, Behavior::Mutable)
            .field("tags", FieldKind::Repeated, Behavior::Mutable)
            .field("ids", FieldKind::Map, Behavior::Mutable)
            .field(
                "inner",
                FieldKind::Message(FieldTable::new().field(
                    "notes",
                    FieldKind::MultiLineText,
                    Behavior::Mutable,
                )),
                Behavior::Mutable,
            );
        let fine = json!({
            "createTime": "ignored\u{7}", "title": "Zoë 東京", "description": "a\r\n\tb",
            "details": {"text": "x\n\u{7}", "k\ney": 1}, "tags": ["a"], "ids": {"crm": "1"},
            "inner": {"notes": "one\ntwo"}
        });
        assert!(input(&table, fine, "thing").is_ok());
        for (body, field) in [
            (json!({"title": "a\tb"}), "thing.title"),
            (json!({"title": "a\u{85}b"}), "thing.title"),
            (json!({"description": "bell\u{7}"}), "thing.description"),
            (json!({"tags": ["ok", "n\ne"]}), "thing.tags[1]"),
            (json!({"ids": {"c\u{1b}rm": "1"}}), "thing.ids.c\u{1b}rm"),
            (json!({"ids": {"crm": "1\r"}}), "thing.ids.crm"),
            (json!({"inner": {"notes": "x\u{7f}"}}), "thing.inner.notes"),
            (json!({"inner": ["a\n"]}), "thing.inner[0]"),
            (json!({"colour": "re\nd"}), "thing.colour"),
        ] {
            let error = input(&table, body.clone(), "thing").unwrap_err();
            assert_eq!(error.reason, "CONTROL_CHARACTER", "{body}");
            assert_eq!(error.field_violations[0].field, field, "{body}");
        }
        let both = input(&table, json!({"title": "\n", "tags": ["\t"]}), "thing");
        assert_eq!(both.unwrap_err().field_violations.len(), 2);
    }

    #[test]
    fn a_patch_names_its_own_resource_only() {
        #[derive(Debug, serde::Deserialize, serde::Serialize)]
        #[serde(deny_unknown_fields, rename_all = "camelCase")]
        struct Thing {
            #[serde(default)]
            name: String,
            #[serde(default)]
            display_name: String,
            #[serde(default)]
            etag: String,
        }
        let patch = read_patch::<Thing>(
            &table(),
            json!({"name": "things/a", "displayName": "B", "etag": "\"e\""}),
            Some("displayName"),
            "things/a",
            "thing",
        )
        .unwrap();
        assert_eq!(patch.etag.as_deref(), Some("\"e\""));
        assert_eq!(patch.body, json!({"displayName": "B", "etag": "\"e\""}));
        let moved = read_patch::<Thing>(
            &table(),
            json!({"name": "things/b"}),
            None,
            "things/a",
            "thing",
        )
        .unwrap_err();
        assert_eq!(
            (moved.reason, moved.field_violations[0].field.as_str()),
            ("NAME_MISMATCH", "thing.name")
        );
        let unknown =
            read_patch::<Thing>(&table(), json!({"colour": 1}), None, "things/a", "thing");
        assert_eq!(
            unknown.unwrap_err().field_violations[0].field,
            "thing.colour"
        );
    }

    #[test]
    fn mask_errors_name_the_mask_or_the_prefixed_field() {
        let error = update_mask(&table(), Some("colour")).unwrap_err();
        assert_eq!(error.field_violations[0].field, "updateMask");
        let mask = update_mask(&table(), Some("displayName")).unwrap();
        let error = apply_mask(
            &table(),
            &mask,
            &json!({"displayName": "A"}),
            &json!({"displayName": ""}),
            "thing",
        )
        .unwrap_err();
        assert_eq!(error.field_violations[0].field, "thing.displayName");
    }
}
