//! The form's declarations for the AIP machinery: update behaviour of each field,
//! filterable and sortable fields, and list limits.

use std::sync::LazyLock;

use rics_aip::field_mask::{Behavior, FieldKind, FieldTable};
use rics_aip::filter::{FieldType, FilterSchema};

use super::model::{Form, FormState};
use crate::list::ListSpec;

/// Every field of the form JSON with its update behaviour. The response is replaced
/// whole; the service requires `formDefinition`.
pub static TABLE: LazyLock<FieldTable> = LazyLock::new(|| {
    use Behavior::{Immutable, Mutable, OutputOnly};
    use FieldKind::{FreeForm, Repeated, Scalar};
    FieldTable::new()
        .output_only(Form::STANDARD_FIELDS)
        .field("displayName", Scalar, Mutable)
        .field("formDefinition", Scalar, Immutable)
        .field("entity", Scalar, Immutable)
        .field("workspaces", Repeated, Mutable)
        .field("state", Scalar, OutputOnly)
        .field("response", FreeForm, Mutable)
        .field("submitTime", Scalar, OutputOnly)
        .field("expireTime", Scalar, Mutable)
});

/// What form list filters may refer to. `state` is the state the form reads in: a
/// DRAFT form past its `expireTime` is EXPIRED.
pub static FILTER: LazyLock<FilterSchema> = LazyLock::new(|| {
    FilterSchema::new()
        .field("displayName", FieldType::String)
        .field("state", FieldType::Enum(FormState::VALUES))
        .field("formDefinition", FieldType::String)
        .field("entity", FieldType::String)
        .field("workspaces", FieldType::RepeatedString)
        .field("createTime", FieldType::Timestamp)
        .field("updateTime", FieldType::Timestamp)
        .field("submitTime", FieldType::Timestamp)
        .field("expireTime", FieldType::Timestamp)
});

/// How forms are listed, in the collection and in a workspace: 50 per page by
/// default, at most 1000, oldest first.
pub static LIST: LazyLock<ListSpec> = LazyLock::new(|| {
    ListSpec::new("forms.list", &FILTER).sortable(&["displayName", "createTime", "updateTime"])
});

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_serialised_field_is_declared() {
        let full: Form = serde_json::from_value(json!({
            "name": "forms/a", "uid": "u", "displayName": "KYC",
            "formDefinition": "formDefinitions/kyc@ab12cd34", "entity": "entities/e",
            "workspaces": ["workspaces/w"], "state": "DRAFT", "response": {"a": 1},
            "submitTime": "2026-01-01T00:00:00Z", "expireTime": "2026-01-01T00:00:00Z",
            "createTime": "2026-01-01T00:00:00Z", "updateTime": "2026-01-01T00:00:00Z",
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
