//! Field problems: an MRZ that has the right shape but a field that breaks Doc 9303's
//! rules. They are part of the parsed value, not errors, so a reader still gets every
//! other field and every check digit.

use time::Date;

use super::date::DateProblem;
use super::field::MrzField;

/// A field that does not follow Doc 9303.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FieldProblem {
    /// A character other than a digit where only digits are allowed (dates).
    #[error("line {line} column {column}: the {field} has '{found}' where a digit must be")]
    DigitExpected {
        /// The field.
        field: MrzField,
        /// The line, from 1.
        line: usize,
        /// The column, from 1.
        column: usize,
        /// The character printed.
        found: char,
    },
    /// A digit where only letters and fillers are allowed (codes, states, names).
    #[error("line {line} column {column}: the {field} has '{found}' where a letter or '<' must be")]
    LetterExpected {
        /// The field.
        field: MrzField,
        /// The line, from 1.
        line: usize,
        /// The column, from 1.
        column: usize,
        /// The character printed.
        found: char,
    },
    /// Six digits that are not a date.
    #[error("the {field} '{printed}' is not a date: {reason}")]
    ImpossibleDate {
        /// The field.
        field: MrzField,
        /// The six characters printed.
        printed: String,
        /// Why.
        reason: DateProblem,
    },
    /// The document expires before the holder was born.
    #[error("the expiry date {expiry} is before the birth date {birth}")]
    ExpiryBeforeBirth {
        /// The date of birth read.
        birth: Date,
        /// The date of expiry read.
        expiry: Date,
    },
    /// A sex code other than `M`, `F`, `X` or `<`.
    #[error("line {line} column {column}: '{found}' is not a sex code (M, F, X or <)")]
    UnknownSex {
        /// The line, from 1.
        line: usize,
        /// The column, from 1.
        column: usize,
        /// The character printed.
        found: char,
    },
    /// The document number field holds only fillers.
    #[error("line {line} column {column}: the document number is missing")]
    MissingDocumentNumber {
        /// The line, from 1.
        line: usize,
        /// The column of its first character, from 1.
        column: usize,
    },
    /// The document number starts with a filler; Doc 9303 aligns data to the left.
    #[error("line {line} column {column}: the document number starts with a filler '<'")]
    DocumentNumberNotLeftAligned {
        /// The line, from 1.
        line: usize,
        /// The column of its first character, from 1.
        column: usize,
    },
}
