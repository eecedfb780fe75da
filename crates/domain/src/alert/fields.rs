//! The declarations of alert types and alerts for the AIP machinery: the fields of the
//! alert body, filterable and sortable fields, and list limits.

use std::sync::LazyLock;

use rics_aip::field_mask::{Behavior, FieldKind, FieldTable};
use rics_aip::filter::{FieldType, FilterSchema};

use super::model::{Alert, AlertState, Disposition, Severity};
use crate::list::{ListSpec, NEWEST_FIRST, SortKey};

/// What alert type list filters may refer to.
pub static TYPE_FILTER: LazyLock<FilterSchema> = LazyLock::new(|| {
    FilterSchema::new()
        .field("displayName", FieldType::String)
        .field("defaultSeverity", FieldType::Enum(Severity::VALUES))
});

/// How alert types are listed: 50 per page by default, at most 1000 (larger sizes
/// coerced), by display name (a catalogue to pick from).
pub static TYPE_LIST: LazyLock<ListSpec> = LazyLock::new(|| {
    ListSpec::new("alertTypes.list", &TYPE_FILTER)
        .sortable(&["displayName", "createTime"])
        .ordered(const { &[SortKey::ascending("displayName")] })
});

/// Every field of the alert JSON with its behaviour on create (alerts have no update).
pub static TABLE: LazyLock<FieldTable> = LazyLock::new(|| {
    use Behavior::{Immutable, OutputOnly, Required};
    use FieldKind::{FreeForm, MultiLineText, Repeated, Scalar};
    FieldTable::new()
        .output_only(Alert::STANDARD_FIELDS)
        .field("alertType", Scalar, Required)
        .field("entities", Repeated, Immutable)
        .field("workspace", Scalar, Immutable)
        .field("title", Scalar, Required)
        .field("description", MultiLineText, Immutable)
        .field("severity", Scalar, Immutable)
        .field("state", Scalar, OutputOnly)
        .field("source", Scalar, OutputOnly)
        .field("details", FreeForm, Immutable)
        .field("acknowledgeTime", Scalar, OutputOnly)
        .field("acknowledger", Scalar, OutputOnly)
        .field("resolveTime", Scalar, OutputOnly)
        .field("resolver", Scalar, OutputOnly)
        .field("disposition", Scalar, OutputOnly)
        .field("resolveComment", MultiLineText, OutputOnly)
});

/// The fields of the `:resolve` body: a disposition is required (its zero value is not
/// one), the comment may span lines.
pub static RESOLVE_TABLE: LazyLock<FieldTable> = LazyLock::new(|| {
    use Behavior::{Mutable, Required};
    use FieldKind::{MultiLineText, Scalar};
    FieldTable::new()
        .field("disposition", Scalar, Required)
        .field("comment", MultiLineText, Mutable)
        .field("etag", Scalar, Mutable)
});

/// What alert list filters may refer to.
pub static FILTER: LazyLock<FilterSchema> = LazyLock::new(|| {
    FilterSchema::new()
        .field("state", FieldType::Enum(AlertState::VALUES))
        .field("severity", FieldType::Enum(Severity::VALUES))
        .field("alertType", FieldType::String)
        .field("entities", FieldType::RepeatedString)
        .field("workspace", FieldType::String)
        .field("createTime", FieldType::Timestamp)
        .field("updateTime", FieldType::Timestamp)
        .field("acknowledgeTime", FieldType::Timestamp)
        .field("resolveTime", FieldType::Timestamp)
        .field("disposition", FieldType::Enum(Disposition::VALUES))
        .field("deleteTime", FieldType::Timestamp)
});

/// How alerts are listed: 50 per page by default, at most 1000 (larger sizes coerced),
/// newest first: an analyst works from the latest alerts down. `severity` is not
/// sortable: its values would sort by name (CRITICAL before LOW before MEDIUM), and
/// no index serves a rank; filter on it instead.
pub static LIST: LazyLock<ListSpec> = LazyLock::new(|| {
    ListSpec::new("alerts.list", &FILTER)
        .sortable(&["createTime", "updateTime"])
        .ordered(NEWEST_FIRST)
        .soft_deletable()
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alert::model::{Alert, AlertType};
    use serde_json::json;

    #[test]
    fn every_serialised_field_is_declared() {
        let full: Alert = serde_json::from_value(json!({
            "name": "alerts/a", "uid": "u", "alertType": "alertTypes/unusual-event",
            "entities": ["entities/a"], "workspace": "workspaces/w", "title": "T",
            "description": "d", "severity": "HIGH", "state": "ACTIVE", "source": "principals/p",
            "details": {"k": 1}, "acknowledgeTime": "2026-01-01T00:00:00Z", "acknowledger": "p",
            "createTime": "2026-01-01T00:00:00Z", "updateTime": "2026-01-01T00:00:00Z",
            "deleteTime": "2026-01-01T00:00:00Z", "purgeTime": "2026-01-01T00:00:00Z",
            "etag": "\"e\""
        }))
        .unwrap();
        let value = serde_json::to_value(&full).unwrap();
        for key in value.as_object().map(|o| o.keys()).into_iter().flatten() {
            assert!(TABLE.get(key).is_some(), "{key} is not declared");
        }
        assert_eq!(value.as_object().map(|o| o.len()), Some(18));
        let alert_type: AlertType = serde_json::from_value(json!({
            "name": "alertTypes/x", "uid": "u", "displayName": "X", "description": "d",
            "defaultSeverity": "LOW", "createTime": "2026-01-01T00:00:00Z",
            "updateTime": "2026-01-01T00:00:00Z", "etag": "\"e\""
        }))
        .unwrap();
        assert_eq!(
            serde_json::to_value(&alert_type)
                .unwrap()
                .as_object()
                .map(|o| o.len()),
            Some(8)
        );
    }
}
