//! The note's declarations for the AIP machinery.

use std::sync::LazyLock;

use rics_aip::field_mask::{Behavior, FieldKind, FieldTable};
use rics_aip::filter::{FieldType, FilterSchema};

use super::model::Note;
use crate::list::ListSpec;

/// Every field of the note JSON with its update behaviour. The name is checked
/// against the path before the body is read, and is otherwise output only.
pub static TABLE: LazyLock<FieldTable> = LazyLock::new(|| {
    use Behavior::{OutputOnly, Required};
    use FieldKind::{MultiLineText, Scalar};
    FieldTable::new()
        .output_only(Note::STANDARD_FIELDS)
        .field("content", MultiLineText, Required)
        .field("authorId", Scalar, OutputOnly)
        .field("author", Scalar, OutputOnly)
        .field("isEdited", Scalar, OutputOnly)
});

/// What note list filters may refer to.
pub static FILTER: LazyLock<FilterSchema> = LazyLock::new(|| {
    FilterSchema::new()
        .field("authorId", FieldType::String)
        .field("isEdited", FieldType::Bool)
        .field("createTime", FieldType::Timestamp)
        .field("updateTime", FieldType::Timestamp)
});

/// How notes are listed: 50 per page by default, at most 1000 (larger sizes
/// coerced), oldest first.
pub static LIST: LazyLock<ListSpec> =
    LazyLock::new(|| ListSpec::new("notes.list", &FILTER).sortable(&["createTime", "updateTime"]));
