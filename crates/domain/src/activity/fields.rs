//! The declarations of activity log types and activity logs for the AIP machinery:
//! which fields a filter may use, how update masks treat each field, and how lists
//! page and sort.

use std::sync::LazyLock;

use rics_aip::field_mask::{Behavior, FieldKind, FieldTable};
use rics_aip::filter::{FieldType, FilterSchema};

use super::model::{ActivityLog, ActivityLogType, ActivityType};
use crate::list::{ListSpec, SortKey};

/// What activity log type list filters may refer to. A bare word searches
/// `displayName` fuzzily, as `displayName:"kyc reveiw"` does.
pub static TYPE_FILTER: LazyLock<FilterSchema> = LazyLock::new(|| {
    FilterSchema::new()
        .global_search_field("displayName")
        .field("activityType", FieldType::Enum(ActivityType::VALUES))
        .field("createTime", FieldType::Timestamp)
        .field("updateTime", FieldType::Timestamp)
        .field("deleteTime", FieldType::Timestamp)
});

/// How activity log types are listed: 50 per page by default, at most 1000 (larger
/// sizes coerced), oldest first; a fuzzy search without `orderBy` ranks by similarity.
pub static TYPE_LIST: LazyLock<ListSpec> = LazyLock::new(|| {
    ListSpec::new("activityLogTypes.list", &TYPE_FILTER)
        .sortable(&["displayName", "createTime", "updateTime"])
        .soft_deletable()
});

/// What the list of an entity's activity logs may filter on.
pub static LOG_FILTER: LazyLock<FilterSchema> = LazyLock::new(|| {
    FilterSchema::new()
        .field("type", FieldType::Enum(ActivityType::VALUES))
        .field("activityLogType", FieldType::String)
        .field("source", FieldType::String)
        .field("occurTime", FieldType::Timestamp)
        .field("createTime", FieldType::Timestamp)
});

/// How an entity's activity logs are listed: 50 per page by default, at most 1000
/// (larger sizes coerced), most recent activity first.
pub static LOG_LIST: LazyLock<ListSpec> = LazyLock::new(|| {
    ListSpec::new("entities.activityLogs.list", &LOG_FILTER)
        .sortable(&["occurTime", "createTime"])
        .ordered(const { &[SortKey::descending("occurTime")] })
        .soft_deletable()
});

/// Every field of the activity log type JSON with its update behaviour.
pub static TYPE_TABLE: LazyLock<FieldTable> = LazyLock::new(|| {
    use Behavior::{Mutable, Required};
    use FieldKind::{FreeForm, MultiLineText, Scalar};
    FieldTable::new()
        .output_only(ActivityLogType::STANDARD_FIELDS)
        .field("displayName", Scalar, Required)
        .field("description", MultiLineText, Mutable)
        .field("activityType", Scalar, Mutable)
        .field("payloadSchema", FreeForm, Mutable)
});

/// Every field of the activity log JSON. Logs are never updated, so this only tells
/// which fields are ignored on input.
pub static LOG_TABLE: LazyLock<FieldTable> = LazyLock::new(|| {
    use Behavior::Immutable;
    use FieldKind::{FreeForm, MultiLineText, Repeated, Scalar};
    FieldTable::new()
        .output_only(ActivityLog::STANDARD_FIELDS)
        .field("type", Scalar, Immutable)
        .field("activityLogType", Scalar, Immutable)
        .field("source", Scalar, Immutable)
        .field("payload", FreeForm, Immutable)
        .field("entityNames", Repeated, Immutable)
        .field("workspace", Scalar, Immutable)
        .field("description", MultiLineText, Immutable)
        .field("occurTime", Scalar, Immutable)
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::activity::model::{ActivityLog, ActivityLogType};
    use serde_json::{Value, json};

    fn assert_declared(table: &FieldTable, value: &Value) {
        for key in value.as_object().unwrap().keys() {
            assert!(table.get(key).is_some(), "{key} is not declared");
        }
    }

    #[test]
    fn every_serialised_field_is_declared() {
        let now = crate::time::Timestamp::from_unix_micros(1).unwrap();
        let log_type = ActivityLogType {
            name: "activityLogTypes/a".into(),
            uid: "u".into(),
            display_name: "A".into(),
            description: "d".into(),
            activity_type: ActivityType::Custom,
            payload_schema: Some(serde_json::Map::new()),
            create_time: Some(now),
            update_time: Some(now),
            delete_time: Some(now),
            purge_time: Some(now),
            etag: "e".into(),
            revision: 1,
        };
        assert_declared(&TYPE_TABLE, &serde_json::to_value(&log_type).unwrap());
        let log = ActivityLog {
            name: "activityLogs/a".into(),
            uid: "u".into(),
            activity_type: ActivityType::Custom,
            activity_log_type: "activityLogTypes/a".into(),
            source: "CUSTOMER".into(),
            payload: Some(serde_json::Map::new()),
            entity_names: vec!["entities/e".into()],
            workspace: "workspaces/w".into(),
            description: "d".into(),
            occur_time: Some(now),
            create_time: Some(now),
            delete_time: Some(now),
            purge_time: Some(now),
            etag: "e".into(),
            revision: 1,
        };
        assert_declared(&LOG_TABLE, &serde_json::to_value(&log).unwrap());
    }

    #[test]
    fn output_only_input_is_dropped() {
        let log = json!({"type": "CUSTOM", "createTime": "x", "etag": "y"});
        let body = crate::fields::input(&LOG_TABLE, log, "activityLog").unwrap();
        assert_eq!(body, json!({"type": "CUSTOM"}));
        let log_type = json!({"displayName": "A", "uid": "u"});
        let body = crate::fields::input(&TYPE_TABLE, log_type, "activityLogType").unwrap();
        assert_eq!(body, json!({"displayName": "A"}));
    }

    #[test]
    fn unknown_mask_paths_name_update_mask() {
        let error = crate::fields::update_mask(&TYPE_TABLE, Some("colour")).unwrap_err();
        assert_eq!(error.field_violations[0].field, "updateMask");
    }
}
