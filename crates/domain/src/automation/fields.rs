//! The automation's declarations for the AIP machinery: update behaviour of each
//! field, filterable and sortable fields, and list limits.

use std::sync::LazyLock;

use rics_aip::field_mask::{Behavior, FieldKind, FieldTable};
use rics_aip::filter::{FieldType, FilterSchema};

use super::model::Automation;
use crate::list::ListSpec;

/// Every field of the automation JSON with its update behaviour. The parameters and
/// the steps are each replaced whole; a change of either makes a new revision.
pub static TABLE: LazyLock<FieldTable> = LazyLock::new(|| {
    use Behavior::{Mutable, OutputOnly, Required};
    use FieldKind::{FreeForm, MultiLineText, Repeated, Scalar};
    FieldTable::new()
        .output_only(Automation::STANDARD_FIELDS)
        .field("displayName", Scalar, Required)
        .field("description", MultiLineText, Mutable)
        .field("inputSchema", FreeForm, Mutable)
        .field("steps", Repeated, Required)
        .field("builtIn", Scalar, OutputOnly)
        .field("revisionId", Scalar, OutputOnly)
        .field("revisionCreateTime", Scalar, OutputOnly)
});

/// What automation list filters may refer to.
pub static FILTER: LazyLock<FilterSchema> = LazyLock::new(|| {
    FilterSchema::new()
        .field("displayName", FieldType::String)
        .field("revisionId", FieldType::String)
        .field("createTime", FieldType::Timestamp)
        .field("updateTime", FieldType::Timestamp)
        .field("deleteTime", FieldType::Timestamp)
});

/// How automations are listed: 50 per page by default, at most 1000, oldest first.
pub static LIST: LazyLock<ListSpec> = LazyLock::new(|| {
    ListSpec::new("automations.list", &FILTER)
        .sortable(&["displayName", "createTime", "updateTime"])
        .soft_deletable()
});

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_serialised_field_is_declared() {
        let full: Automation = serde_json::from_value(json!({
            "name": "automations/a", "uid": "u", "displayName": "A", "description": "d",
            "inputSchema": {"entity": {"type": "string"}},
            "steps": [{"key": "tag", "kind": "ADD_TAG", "args": {"entity": "e", "tag": "t"}}],
            "builtIn": true, "revisionId": "ab12cd34",
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
        assert_eq!(value.as_object().map(|o| o.len()), Some(14));
    }
}
