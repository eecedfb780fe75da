//! The file's declarations for the AIP machinery: update behaviour of each field,
//! filterable and sortable fields, and list limits.

use std::sync::LazyLock;

use rics_aip::field_mask::{Behavior, FieldKind, FieldTable};
use rics_aip::filter::{FieldType, FilterSchema};

use super::model::File;
use crate::list::ListSpec;

/// Every field of the file JSON with its behaviour. A file never changes after its
/// create: its content type is given (optionally) there, and its size and digest come
/// from the content.
pub static TABLE: LazyLock<FieldTable> = LazyLock::new(|| {
    use Behavior::{Immutable, OutputOnly, Required};
    use FieldKind::Scalar;
    FieldTable::new()
        .output_only(File::STANDARD_FIELDS)
        .field("displayName", Scalar, Required)
        .field("contentType", Scalar, Immutable)
        .field("sizeBytes", Scalar, OutputOnly)
        .field("sha256", Scalar, OutputOnly)
});

/// What file list filters may refer to.
pub static FILTER: LazyLock<FilterSchema> = LazyLock::new(|| {
    FilterSchema::new()
        .field("displayName", FieldType::String)
        .field("contentType", FieldType::String)
        .field("createTime", FieldType::Timestamp)
});

/// How files are listed: 50 per page by default, at most 1000 (larger sizes coerced),
/// oldest first; deleted ones only with `showDeleted`.
pub static LIST: LazyLock<ListSpec> = LazyLock::new(|| {
    ListSpec::new("files.list", &FILTER)
        .sortable(&["displayName", "createTime"])
        .soft_deletable()
});

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_serialised_field_is_declared() {
        let full: File = serde_json::from_value(json!({
            "name": "entities/e/files/f", "uid": "u", "displayName": "scan.pdf",
            "contentType": "application/pdf", "sizeBytes": 3, "sha256": "ab",
            "createTime": "2026-01-01T00:00:00Z", "updateTime": "2026-01-01T00:00:00Z",
            "deleteTime": "2026-01-01T00:00:00Z", "purgeTime": "2026-01-01T00:00:00Z",
            "etag": "\"e\""
        }))
        .unwrap();
        let json = serde_json::to_value(&full).unwrap();
        for key in json.as_object().unwrap().keys() {
            assert!(TABLE.get(key).is_some(), "{key} is not in the field table");
        }
    }
}
