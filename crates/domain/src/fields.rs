//! Reading request bodies and update masks against a resource's [`FieldTable`]: the
//! same AIP-134 and AIP-203 rules for every resource.

use rics_aip::field_mask::{self, Behavior, FieldKind, FieldTable, UpdateMask};
use serde_json::Value;

use crate::error::{Error, Result};

/// A request body made ready to read: output-only fields dropped (ignored on input,
/// Nulls stay: they read as unset, and an unknown field is refused even when
/// null.
///
/// # Errors
/// INVALID_ARGUMENT naming `field` when the body is not a JSON object.
pub fn input(table: &FieldTable, mut body: Value, field: &str) -> Result<Value> {
    crate::resource::require_object(&body, field)?;
    strip_output_only(table, &mut body);
    Ok(body)
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
