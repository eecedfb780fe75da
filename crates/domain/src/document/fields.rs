//! The identity document's declarations for the AIP machinery: update behaviour of
//! each field, filterable and sortable fields, and list limits.

use std::sync::LazyLock;

use rics_aip::field_mask::{Behavior, FieldKind, FieldTable};
use rics_aip::filter::{FieldType, FilterSchema};

use super::model::{Document, DocumentType};
use crate::list::ListSpec;

/// Every field of the document JSON with its update behaviour. `entity` is set on
/// create and never changes; the service requires it.
pub static TABLE: LazyLock<FieldTable> = LazyLock::new(|| {
    use Behavior::{Immutable, Mutable, Required};
    use FieldKind::{Repeated, Scalar};
    FieldTable::new()
        .output_only(Document::STANDARD_FIELDS)
        .field("displayName", Scalar, Mutable)
        .field("entity", Scalar, Immutable)
        .field("documentType", Scalar, Required)
        .field("documentNumber", Scalar, Required)
        .field("issuingCountry", Scalar, Mutable)
        .field("nationality", Scalar, Mutable)
        .field("issuingState", Scalar, Mutable)
        .field("givenName", Scalar, Mutable)
        .field("familyName", Scalar, Mutable)
        .field("dateOfBirth", Scalar, Mutable)
        .field("gender", Scalar, Mutable)
        .field("placeOfBirth", Scalar, Mutable)
        .field("issueDate", Scalar, Mutable)
        .field("expiryDate", Scalar, Mutable)
        .field("mrz", Repeated, Mutable)
        .field("workspace", Scalar, Mutable)
        .field("files", Repeated, Mutable)
});

/// What document list filters may refer to. `displayName:` is a fuzzy search, `=` an
/// exact comparison. `expiryDate` is `YYYY-MM-DD` text, so `expiryDate < "2027-01-01"`
/// compares dates; a document without one matches no comparison.
pub static FILTER: LazyLock<FilterSchema> = LazyLock::new(|| {
    FilterSchema::new()
        .fuzzy_field("displayName")
        .field("entity", FieldType::String)
        .field("workspace", FieldType::String)
        .field("documentType", FieldType::Enum(DocumentType::VALUES))
        .field("issuingCountry", FieldType::String)
        .field("expiryDate", FieldType::String)
        .field("createTime", FieldType::Timestamp)
        .field("updateTime", FieldType::Timestamp)
        .field("deleteTime", FieldType::Timestamp)
});

/// How documents are listed, in the collection and under one entity: 50 per page by
/// default, at most 1000 (larger sizes coerced), oldest first, as entities are.
pub static LIST: LazyLock<ListSpec> = LazyLock::new(|| {
    ListSpec::new("documents.list", &FILTER)
        .sortable(&["displayName", "createTime", "updateTime"])
        .soft_deletable()
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::model::Document;
    use serde_json::json;

    #[test]
    fn every_serialised_field_is_declared() {
        let full: Document = serde_json::from_value(json!({
            "name": "documents/a", "uid": "u", "displayName": "Passport", "entity": "entities/e",
            "documentType": "PASSPORT",
            "documentNumber": "L898902C3", "issuingCountry": "UTO", "nationality": "UTO",
            "issuingState": "NSW", "givenName": "Anna Maria", "familyName": "Eriksson",
            "dateOfBirth": "1974-08-12", "gender": "FEMALE", "placeOfBirth": "Zenith",
            "issueDate": "2020-01-01", "expiryDate": "2030-01-01", "mrz": ["P<UTO", "L898"],
            "workspace": "workspaces/w", "files": ["entities/e/files/f"],
            "createTime": "2026-01-01T00:00:00Z", "updateTime": "2026-01-01T00:00:00Z",
            "deleteTime": "2026-01-01T00:00:00Z", "purgeTime": "2026-01-01T00:00:00Z",
            "etag": "\"e\""
        }))
        .unwrap();
        let value = serde_json::to_value(&full).unwrap();
        for key in value.as_object().map(|o| o.keys()).into_iter().flatten() {
            assert!(TABLE.get(key).is_some(), "{key} is not declared");
        }
        assert_eq!(value.as_object().map(|o| o.len()), Some(24));
    }
}
