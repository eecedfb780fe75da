//! The workspace's declarations for the AIP machinery: update behaviour of each field,
//! filterable and sortable fields, and list limits.

use std::sync::LazyLock;

use rics_aip::field_mask::{Behavior, FieldKind, FieldTable};
use rics_aip::filter::{FieldType, FilterSchema};

use super::model::{Workspace, WorkspaceState};
use crate::list::ListSpec;

/// Every field of the workspace JSON with its update behaviour.
pub static TABLE: LazyLock<FieldTable> = LazyLock::new(|| {
    use Behavior::{Immutable, Mutable, OutputOnly, Required};
    use FieldKind::{MultiLineText, Repeated, Scalar};
    FieldTable::new()
        .output_only(Workspace::STANDARD_FIELDS)
        .field("displayName", Scalar, Required)
        .field("description", MultiLineText, Mutable)
        .field("entities", Repeated, Mutable)
        .field("state", Scalar, OutputOnly)
        .field("formDefinitions", Repeated, Immutable)
});

/// What workspace list filters may refer to.
pub static FILTER: LazyLock<FilterSchema> = LazyLock::new(|| {
    FilterSchema::new()
        .field("displayName", FieldType::String)
        .field("state", FieldType::Enum(WorkspaceState::VALUES))
        .field("entities", FieldType::RepeatedString)
        .field("createTime", FieldType::Timestamp)
        .field("updateTime", FieldType::Timestamp)
        .field("deleteTime", FieldType::Timestamp)
});

/// How workspaces are listed: 50 per page by default, at most 1000, oldest first.
pub static LIST: LazyLock<ListSpec> = LazyLock::new(|| {
    ListSpec::new("workspaces.list", &FILTER)
        .sortable(&["displayName", "createTime", "updateTime"])
        .soft_deletable()
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::model::Workspace;
    use serde_json::{Value, json};

    #[test]
    fn every_serialised_field_is_declared() {
        let full: Workspace = serde_json::from_value(json!({
            "name": "workspaces/a", "uid": "u", "displayName": "Case", "description": "d",
            "entities": ["entities/a"], "state": "OPEN",
            "formDefinitions": ["formDefinitions/kyc@ab12cd34"], "createTime": "2026-01-01T00:00:00Z",
            "updateTime": "2026-01-01T00:00:00Z", "deleteTime": "2026-01-01T00:00:00Z",
            "purgeTime": "2026-01-01T00:00:00Z", "etag": "\"e\""
        }))
        .unwrap();
        let value = serde_json::to_value(&full).unwrap();
        for key in value.as_object().map(|o| o.keys()).into_iter().flatten() {
            assert!(TABLE.get(key).is_some(), "{key} is not declared");
        }
        assert_eq!(value.as_object().map(|o| o.len()), Some(12));
        assert!(matches!(value["state"], Value::String(_)));
    }
}
