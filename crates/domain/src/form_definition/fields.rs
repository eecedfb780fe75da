//! The form definition's declarations for the AIP machinery: update behaviour of each
//! field, filterable and sortable fields, and list limits.

use std::sync::LazyLock;

use rics_aip::field_mask::{Behavior, FieldKind, FieldTable};
use rics_aip::filter::{FieldType, FilterSchema};

use super::model::FormDefinition;
use crate::list::ListSpec;

/// Every field of the form definition JSON with its update behaviour. The schema is
/// replaced whole; a change of it makes a new revision.
pub static TABLE: LazyLock<FieldTable> = LazyLock::new(|| {
    use Behavior::{Mutable, OutputOnly, Required};
    use FieldKind::{FreeForm, MultiLineText, Scalar};
    FieldTable::new()
        .output_only(FormDefinition::STANDARD_FIELDS)
        .field("displayName", Scalar, Required)
        .field("description", MultiLineText, Mutable)
        .field("schema", Scalar, Required)
        .field("responseSchema", FreeForm, OutputOnly)
        .field("revisionId", Scalar, OutputOnly)
        .field("revisionCreateTime", Scalar, OutputOnly)
});

/// What form definition list filters may refer to.
pub static FILTER: LazyLock<FilterSchema> = LazyLock::new(|| {
    FilterSchema::new()
        .field("displayName", FieldType::String)
        .field("revisionId", FieldType::String)
        .field("createTime", FieldType::Timestamp)
        .field("updateTime", FieldType::Timestamp)
        .field("deleteTime", FieldType::Timestamp)
});

/// How form definitions are listed: 50 per page by default, at most 1000, oldest
/// first.
pub static LIST: LazyLock<ListSpec> = LazyLock::new(|| {
    ListSpec::new("formDefinitions.list", &FILTER)
        .sortable(&["displayName", "createTime", "updateTime"])
        .soft_deletable()
});

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_serialised_field_is_declared() {
        let full: FormDefinition = serde_json::from_value(json!({
            "name": "formDefinitions/a", "uid": "u", "displayName": "KYC", "description": "d",
            "schema": {"steps": [{"key": "s", "label": "S", "fields": [{"key": "a", "label": "A", "type": "TEXT"}]}]},
            "responseSchema": {"type": "object"}, "revisionId": "ab12cd34",
            "revisionCreateTime": "2026-01-01T00:00:00Z",
            "createTime": "2026-01-01T00:00:00Z", "updateTime": "2026-01-01T00:00:00Z",
            "deleteTime": "2026-01-01T00:00:00Z", "purgeTime": "2026-01-01T00:00:00Z",
            "etag": "\"e\""
        }))
        .unwrap();
        let value = serde_json::to_value(&full).unwrap();
        for key in value.as_object().map(|o| o.keys()).into_iter().flatten() {
            assert!(TABLE.get(key).is_some(), "{key} is not declared");
        }
        assert_eq!(value.as_object().map(|o| o.len()), Some(13));
    }
}
