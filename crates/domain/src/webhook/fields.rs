//! The webhook endpoint's declarations for the AIP machinery: update behaviour of each
//! field, filterable and sortable fields, and list limits.

use std::sync::LazyLock;

use rics_aip::field_mask::{Behavior, FieldKind, FieldTable};
use rics_aip::filter::{FieldType, FilterSchema};

use super::model::{WebhookEndpoint, WebhookEndpointState};
use crate::list::ListSpec;

/// Every field of the webhook endpoint JSON with its update behaviour.
pub static TABLE: LazyLock<FieldTable> = LazyLock::new(|| {
    use Behavior::{Mutable, OutputOnly, Required};
    use FieldKind::{MultiLineText, Repeated, Scalar};
    FieldTable::new()
        .output_only(WebhookEndpoint::STANDARD_FIELDS)
        .field("url", Scalar, Required)
        .field("eventTypes", Repeated, Required)
        .field("description", MultiLineText, Mutable)
        .field("state", Scalar, Mutable)
        .field("secret", Scalar, OutputOnly)
});

/// What webhook endpoint list filters may refer to.
pub static FILTER: LazyLock<FilterSchema> = LazyLock::new(|| {
    FilterSchema::new()
        .field("url", FieldType::String)
        .field("state", FieldType::Enum(WebhookEndpointState::VALUES))
        .field("createTime", FieldType::Timestamp)
        .field("updateTime", FieldType::Timestamp)
        .field("deleteTime", FieldType::Timestamp)
});

/// How webhook endpoints are listed: 50 per page by default, at most 1000, oldest
/// first.
pub static LIST: LazyLock<ListSpec> = LazyLock::new(|| {
    ListSpec::new("webhookEndpoints.list", &FILTER)
        .sortable(&["url", "createTime", "updateTime"])
        .soft_deletable()
});

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_serialised_field_is_declared() {
        let full: WebhookEndpoint = serde_json::from_value(json!({
            "name": "webhookEndpoints/a", "uid": "u", "url": "https://example.com/hook",
            "eventTypes": ["entity.*"], "description": "d", "state": "ENABLED",
            "secret": "whsec_x", "createTime": "2026-01-01T00:00:00Z",
            "updateTime": "2026-01-01T00:00:00Z", "deleteTime": "2026-01-01T00:00:00Z",
            "purgeTime": "2026-01-01T00:00:00Z", "etag": "\"e\""
        }))
        .unwrap();
        let value = serde_json::to_value(&full).unwrap();
        for key in value.as_object().map(|o| o.keys()).into_iter().flatten() {
            assert!(TABLE.get(key).is_some(), "{key} is not declared");
        }
        assert_eq!(value.as_object().map(|o| o.len()), Some(12));
    }
}
