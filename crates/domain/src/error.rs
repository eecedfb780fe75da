//! The service's error model: a `google.rpc.Status`-shaped error with a canonical
//! [`Code`], a machine-readable reason and metadata, and optional field violations.
//!
//! Every failure the domain reports is an [`Error`]. Adapters never invent codes: the
//! HTTP adapter turns [`Code`] into an HTTP status in exactly one place, and long-running
//! operations store [`Code::number`] in their `error.code`.

use std::collections::BTreeMap;
use std::fmt;

/// The canonical error codes of `google/rpc/code.proto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// The operation was cancelled, typically by the caller.
    Cancelled,
    /// Unknown error.
    Unknown,
    /// The client specified an invalid argument, whatever the system state.
    InvalidArgument,
    /// The deadline expired before the operation could complete.
    DeadlineExceeded,
    /// A requested resource was not found (or is invisible to the caller).
    NotFound,
    /// The resource the client tried to create already exists.
    AlreadyExists,
    /// The caller is known but not allowed to do this.
    PermissionDenied,
    /// A quota or rate limit was exhausted.
    ResourceExhausted,
    /// The system is not in the state the operation requires.
    FailedPrecondition,
    /// A concurrency conflict: etag mismatch or transaction abort.
    Aborted,
    /// The operation was attempted past the valid range.
    OutOfRange,
    /// The operation is not implemented or supported.
    Unimplemented,
    /// An invariant of the service is broken.
    Internal,
    /// The service is unavailable right now; retry with backoff.
    Unavailable,
    /// Unrecoverable data loss or corruption.
    DataLoss,
    /// The request has no valid credentials.
    Unauthenticated,
}

impl Code {
    /// Every code, in the order of their numbers.
    pub const ALL: [Code; 16] = [
        Code::Cancelled,
        Code::Unknown,
        Code::InvalidArgument,
        Code::DeadlineExceeded,
        Code::NotFound,
        Code::AlreadyExists,
        Code::PermissionDenied,
        Code::ResourceExhausted,
        Code::FailedPrecondition,
        Code::Aborted,
        Code::OutOfRange,
        Code::Unimplemented,
        Code::Internal,
        Code::Unavailable,
        Code::DataLoss,
        Code::Unauthenticated,
    ];

    /// The canonical number of the code (`INVALID_ARGUMENT` = 3), as stored in an
    /// operation's `error.code`.
    pub fn number(self) -> i32 {
        match self {
            Code::Cancelled => 1,
            Code::Unknown => 2,
            Code::InvalidArgument => 3,
            Code::DeadlineExceeded => 4,
            Code::NotFound => 5,
            Code::AlreadyExists => 6,
            Code::PermissionDenied => 7,
            Code::ResourceExhausted => 8,
            Code::FailedPrecondition => 9,
            Code::Aborted => 10,
            Code::OutOfRange => 11,
            Code::Unimplemented => 12,
            Code::Internal => 13,
            Code::Unavailable => 14,
            Code::DataLoss => 15,
            Code::Unauthenticated => 16,
        }
    }

    /// The enum name of the code (`INVALID_ARGUMENT`), as sent in an error's `status`.
    pub fn name(self) -> &'static str {
        match self {
            Code::Cancelled => "CANCELLED",
            Code::Unknown => "UNKNOWN",
            Code::InvalidArgument => "INVALID_ARGUMENT",
            Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
            Code::NotFound => "NOT_FOUND",
            Code::AlreadyExists => "ALREADY_EXISTS",
            Code::PermissionDenied => "PERMISSION_DENIED",
            Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
            Code::FailedPrecondition => "FAILED_PRECONDITION",
            Code::Aborted => "ABORTED",
            Code::OutOfRange => "OUT_OF_RANGE",
            Code::Unimplemented => "UNIMPLEMENTED",
            Code::Internal => "INTERNAL",
            Code::Unavailable => "UNAVAILABLE",
            Code::DataLoss => "DATA_LOSS",
            Code::Unauthenticated => "UNAUTHENTICATED",
        }
    }

    /// Whether errors with this code are server faults whose details must stay out of
    /// responses (they are logged instead).
    pub fn is_server_fault(self) -> bool {
        matches!(
            self,
            Code::Unknown | Code::Internal | Code::DataLoss | Code::Unavailable
        )
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One invalid field of a request (`google.rpc.BadRequest.FieldViolation`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldViolation {
    /// Path of the field in the request, lowerCamelCase (`entity.displayName`, `pageSize`).
    pub field: String,
    /// What is wrong and how to fix it.
    pub description: String,
    /// UPPER_SNAKE reason for the violation (`REQUIRED`, `TOO_LONG`, ...).
    pub reason: &'static str,
}

/// A failure reported to the caller: a canonical code, an `ErrorInfo` reason and
/// metadata, a developer-facing message, and field violations for bad input.
///
/// For server faults ([`Code::is_server_fault`]) the message stays internal: the HTTP
/// adapter sends a generic text and logs this one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Error {
    /// The canonical code.
    pub code: Code,
    /// The `ErrorInfo.reason`: UPPER_SNAKE, stable for one logical error.
    pub reason: &'static str,
    /// Developer-facing English message.
    pub message: String,
    /// `ErrorInfo.metadata`: every dynamic value that appears in the message.
    pub metadata: BTreeMap<String, String>,
    /// Field violations, for input errors.
    pub field_violations: Vec<FieldViolation>,
}

/// Result type of the domain.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error with a code, a reason and a message.
    pub fn new(code: Code, reason: &'static str, message: impl Into<String>) -> Self {
        Error {
            code,
            reason,
            message: message.into(),
            metadata: BTreeMap::new(),
            field_violations: Vec::new(),
        }
    }

    /// Adds an `ErrorInfo.metadata` entry.
    #[must_use]
    pub fn with_metadata(mut self, key: &str, value: impl Into<String>) -> Self {
        self.metadata.insert(key.to_owned(), value.into());
        self
    }

    /// The same error with another code (for a violation that is not INVALID_ARGUMENT).
    #[must_use]
    pub fn with_code(mut self, code: Code) -> Self {
        self.code = code;
        self
    }

    /// Adds a field violation.
    #[must_use]
    pub fn with_violation(
        mut self,
        field: impl Into<String>,
        reason: &'static str,
        description: impl Into<String>,
    ) -> Self {
        self.field_violations.push(FieldViolation {
            field: field.into(),
            description: description.into(),
            reason,
        });
        self
    }

    /// The same error about one part of a larger request: every field it names, in
    /// its violations, metadata and message, is under `prefix` (`requests[3]` makes
    /// `entity.displayName` `requests[3].entity.displayName`).
    #[must_use]
    pub fn within(mut self, prefix: &str) -> Self {
        let mut renamed: Vec<String> = Vec::new();
        for violation in &mut self.field_violations {
            let field = std::mem::take(&mut violation.field);
            violation.field = format!("{prefix}.{field}");
            if !renamed.contains(&field) {
                self.message = self
                    .message
                    .replace(&format!("'{field}'"), &format!("'{}'", violation.field));
                renamed.push(field);
            }
        }
        for key in ["field", "fields"] {
            if let Some(fields) = self.metadata.get_mut(key) {
                *fields = fields
                    .split(',')
                    .map(|field| format!("{prefix}.{field}"))
                    .collect::<Vec<_>>()
                    .join(",");
            }
        }
        self
    }

    /// The `ErrorInfo.metadata` to send: the error's metadata plus every value the
    /// message quotes (`'abc'`) that it does not hold yet, under `value`, `value2`, ...
    /// Every dynamic value of a message is quoted, so every one reaches the metadata
    /// (AIP-193: metadata holds each dynamic value of the message).
    pub fn complete_metadata(&self) -> BTreeMap<String, String> {
        let mut metadata = self.metadata.clone();
        let mut next = 1;
        for value in quoted_values(&self.message) {
            if metadata.values().any(|v| v == value) {
                continue;
            }
            let key = if next == 1 {
                "value".to_owned()
            } else {
                format!("value{next}")
            };
            next += 1;
            metadata.insert(key, value.to_owned());
        }
        metadata
    }

    /// INVALID_ARGUMENT for one bad request field.
    pub fn invalid_field(
        field: impl Into<String>,
        reason: &'static str,
        description: impl Into<String>,
    ) -> Self {
        let field = field.into();
        let description = description.into();
        Error::new(
            Code::InvalidArgument,
            reason,
            format!("Invalid value for '{field}': {description}"),
        )
        .with_metadata("field", field.clone())
        .with_violation(field, reason, description)
    }

    /// INVALID_ARGUMENT collecting several field violations found together.
    pub fn invalid_fields(violations: Vec<FieldViolation>) -> Self {
        let summary = violations
            .iter()
            .map(|v| format!("'{}': {}", v.field, v.description))
            .collect::<Vec<_>>()
            .join("; ");
        let fields = violations
            .iter()
            .map(|v| v.field.as_str())
            .collect::<Vec<_>>()
            .join(",");
        let mut error = Error::new(
            Code::InvalidArgument,
            "INVALID_FIELDS",
            format!("The request has invalid fields: {summary}"),
        )
        .with_metadata("fields", fields);
        error.field_violations = violations;
        error
    }

    /// NOT_FOUND for a resource name.
    pub fn not_found(resource: &str) -> Self {
        Error::new(
            Code::NotFound,
            "RESOURCE_NOT_FOUND",
            format!("Resource '{resource}' was not found."),
        )
        .with_metadata("resource", resource)
    }

    /// ALREADY_EXISTS for a resource name.
    pub fn already_exists(resource: &str) -> Self {
        Error::new(
            Code::AlreadyExists,
            "RESOURCE_ALREADY_EXISTS",
            format!("Resource '{resource}' already exists."),
        )
        .with_metadata("resource", resource)
    }

    /// FAILED_PRECONDITION with a reason.
    pub fn failed_precondition(reason: &'static str, message: impl Into<String>) -> Self {
        Error::new(Code::FailedPrecondition, reason, message)
    }

    /// ABORTED because the caller's etag does not match the resource's.
    pub fn etag_mismatch(resource: &str) -> Self {
        Error::new(
            Code::Aborted,
            "ETAG_MISMATCH",
            format!(
                "The etag does not match the current version of '{resource}': read it again and retry."
            ),
        )
        .with_metadata("resource", resource)
    }

    /// ABORTED because a concurrent change won the race; the whole read-modify-write
    /// should be retried.
    pub fn concurrent_modification(resource: &str) -> Self {
        Error::new(
            Code::Aborted,
            "CONCURRENT_MODIFICATION",
            format!("'{resource}' was changed concurrently: read it again and retry."),
        )
        .with_metadata("resource", resource)
    }

    /// UNAVAILABLE: a transient failure the caller may retry with backoff.
    pub fn unavailable(reason: &'static str, message: impl Into<String>) -> Self {
        Error::new(Code::Unavailable, reason, message)
    }

    /// INTERNAL: a broken invariant. The message is logged, never sent.
    pub fn internal(message: impl Into<String>) -> Self {
        Error::new(Code::Internal, "INTERNAL", message)
    }
}

/// The texts between single quotes in `message`; a quote inside a word (`don't`) does
/// not open a value.
fn quoted_values(message: &str) -> Vec<&str> {
    let mut values = Vec::new();
    let mut rest = message;
    while let Some(open) = rest.find('\'') {
        let before = rest[..open].chars().last();
        if before.is_some_and(char::is_alphanumeric) {
            rest = &rest[open + 1..];
            continue;
        }
        let after = &rest[open + 1..];
        let Some(close) = after.find('\'') else {
            break;
        };
        values.push(&after[..close]);
        rest = &after[close + 1..];
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_message_values_reach_the_metadata() {
        let error = Error::invalid_field(
            "pageSize",
            "INVALID_INTEGER",
            "'abc' is not a 32-bit integer",
        );
        let metadata = error.complete_metadata();
        assert_eq!(metadata["field"], "pageSize");
        assert_eq!(metadata["value"], "abc");
        assert_eq!(metadata.len(), 2);
        assert_eq!(quoted_values("don't 'x' and 'y'"), vec!["x", "y"]);
    }

    #[test]
    fn numbers_follow_code_proto() {
        let numbers: Vec<i32> = Code::ALL.iter().map(|c| c.number()).collect();
        assert_eq!(numbers, (1..=16).collect::<Vec<_>>());
    }

    #[test]
    fn invalid_field_carries_violation_and_metadata() {
        let error = Error::invalid_field("pageSize", "NEGATIVE", "must not be negative");
        assert_eq!(error.code, Code::InvalidArgument);
        assert_eq!(error.metadata["field"], "pageSize");
        assert_eq!(error.field_violations[0].field, "pageSize");
        assert!(error.message.contains("pageSize"));
    }

    #[test]
    fn server_faults_are_marked() {
        assert!(Code::Internal.is_server_fault());
        assert!(Code::Unavailable.is_server_fault());
        assert!(!Code::NotFound.is_server_fault());
    }
}
