//! Errors of the screening library.

use thiserror::Error;

/// A list could not be loaded at all. Bad rows inside a readable list are not errors: they are
/// counted in [`crate::load::LoadReport`] and the rest of the list loads.
#[derive(Debug, Error)]
pub enum LoadError {
    /// A file could not be read. The message names the cause, so it is not also a
    /// `source` (error chains would print it twice).
    #[error("cannot read {path}: {error}")]
    Io {
        /// The file.
        path: String,
        /// The underlying error.
        error: std::io::Error,
    },
    /// A folder given as a list holds no list file.
    #[error("no list files (.csv, .xml, .jsonl, .ndjson) in the folder {0}")]
    EmptyFolder(String),
    /// The file is not in the expected format (wrong header, not XML, not UTF-8, ...).
    #[error("{path} is not a valid {format} list: {reason}")]
    Format {
        /// The file or a description of the input.
        path: String,
        /// The format the loader expected.
        format: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// The format of a file could not be recognised from its name and content.
    #[error("cannot tell the list format of {0}; name the format explicitly")]
    UnknownFormat(String),
}

/// A batch screen could not run to the end.
#[derive(Debug, Error)]
pub enum BatchError {
    /// Reading the input or writing the output failed.
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
    /// The CSV input has no usable header (a name column is required).
    #[error("input header has no name column (full_name, or first_name/last_name)")]
    MissingNameColumn,
    /// The CSV reader failed in a way that cannot be skipped.
    #[error("csv error: {0}")]
    Csv(#[from] csv::Error),
    /// Serialising a result line failed.
    #[error("json error: {0}")]
    Json(#[from] serde_json::Error),
}
