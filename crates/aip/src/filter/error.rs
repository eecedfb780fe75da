//! The error every stage of filter processing returns.

use std::fmt;

/// A place in the filter text, so an error can point at the offending token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Position {
    /// Byte offset from the start of the filter (0-based).
    pub offset: usize,
    /// Line number (1-based); lines are separated by `\n`.
    pub line: usize,
    /// Column on that line (1-based), counted in Unicode scalar values, not bytes.
    pub column: usize,
}

impl Position {
    /// The position of the first byte of a filter.
    pub const START: Position = Position {
        offset: 0,
        line: 1,
        column: 1,
    };
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// What kind of problem a [`FilterError`] reports; each kind has its own
/// [`FilterError::reason`] code for the API's `ErrorInfo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FilterErrorKind {
    /// The text does not follow the AIP-160 grammar (includes lexer errors such as an
    /// unterminated string or a bad escape).
    Syntax,
    /// A literal (quoted, escaped or bare) holds a control character (C0, DEL or C1,
    /// line breaks and tabs included): filter literals are single-line text.
    ControlCharacter,
    /// The filter is longer, deeper or has more restrictions than the documented limits.
    LimitExceeded,
    /// A field path names no declared field.
    UnknownField,
    /// A path goes where traversal is not allowed: an index into a repeated field
    /// or a `.` after a scalar, repeated or map value.
    InvalidTraversal,
    /// The operator cannot be used on this field: ordering operators on bool or enum
    /// fields, `=` on a repeated field, comparing a whole message or map.
    UnsupportedOperator,
    /// The value has the wrong type for the field (`count = hello` on an integer field).
    TypeMismatch,
    /// The value has the right shape but is not acceptable: an enum value that is not
    /// declared, a timestamp that is not RFC 3339, a misplaced `*` wildcard.
    InvalidValue,
    /// The comparison itself is malformed: a literal on the left (`"foo" = name`,
    /// ), a field path or function call where a literal value is needed.
    InvalidComparison,
    /// A function that the resource does not declare.
    UnknownFunction,
    /// A declared function called with the wrong number or types of arguments.
    InvalidFunctionArguments,
    /// A bare value (global restriction, R-160.14) on a resource that declares no
    /// field for global search.
    GlobalRestrictionUnsupported,
}

impl FilterErrorKind {
    /// The UPPER_SNAKE_CASE `ErrorInfo.reason` for this kind (AIP-193).
    pub fn reason(self) -> &'static str {
        match self {
            Self::Syntax => "INVALID_FILTER_SYNTAX",
            Self::ControlCharacter => "CONTROL_CHARACTER",
            Self::LimitExceeded => "FILTER_LIMIT_EXCEEDED",
            Self::UnknownField => "UNKNOWN_FILTER_FIELD",
            Self::InvalidTraversal => "INVALID_FILTER_TRAVERSAL",
            Self::UnsupportedOperator => "UNSUPPORTED_FILTER_OPERATOR",
            Self::TypeMismatch => "FILTER_TYPE_MISMATCH",
            Self::InvalidValue => "INVALID_FILTER_VALUE",
            Self::InvalidComparison => "INVALID_FILTER_COMPARISON",
            Self::UnknownFunction => "UNKNOWN_FILTER_FUNCTION",
            Self::InvalidFunctionArguments => "INVALID_FILTER_FUNCTION_ARGUMENTS",
            Self::GlobalRestrictionUnsupported => "UNSUPPORTED_GLOBAL_RESTRICTION",
        }
    }
}

/// Why a filter was rejected: the kind, where in the text, and an English message
/// written for the API caller (all map to 400 INVALID_ARGUMENT, R-160.17).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (at {position})")]
pub struct FilterError {
    kind: FilterErrorKind,
    position: Position,
    message: String,
    subject: Option<String>,
}

impl FilterError {
    /// Builds an error; `subject` is the offending text (field path, function name,
    /// value) when there is one, for `ErrorInfo.metadata`.
    pub(crate) fn new(
        kind: FilterErrorKind,
        position: Position,
        message: impl Into<String>,
        subject: Option<String>,
    ) -> Self {
        Self {
            kind,
            position,
            message: message.into(),
            subject,
        }
    }

    /// A syntax error without a subject.
    pub(crate) fn syntax(position: Position, message: impl Into<String>) -> Self {
        Self::new(FilterErrorKind::Syntax, position, message, None)
    }

    /// What kind of problem this is.
    pub fn kind(&self) -> FilterErrorKind {
        self.kind
    }

    /// Where the problem starts in the filter text.
    pub fn position(&self) -> Position {
        self.position
    }

    /// The English message, without the position suffix that `Display` adds.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The offending text (a field path, function name or value) when the error is
    /// about one, so the API can put it in `ErrorInfo.metadata`.
    pub fn subject(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// The UPPER_SNAKE_CASE `ErrorInfo.reason`, e.g. `INVALID_FILTER_SYNTAX`.
    pub fn reason(&self) -> &'static str {
        self.kind.reason()
    }
}
