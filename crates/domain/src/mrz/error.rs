//! Format errors: text that is not an MRZ at all, so no field can be read.

use std::fmt;

/// Why text is not an MRZ. Each error names the line and column where it applies,
/// counted from 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MrzFormatError {
    /// An MRZ has two lines (TD2, TD3, visas) or three (TD1).
    #[error("an MRZ has 2 or 3 lines; found {found}")]
    LineCount {
        /// The number of lines given.
        found: usize,
    },
    /// A line is not as long as the format's lines.
    #[error("line {line} has {found} characters; expected {expected}")]
    LineLength {
        /// The line, from 1.
        line: usize,
        /// The characters it has.
        found: usize,
        /// The lengths it may have.
        expected: ExpectedLength,
    },
    /// A lower-case letter: MRZ characters are upper case.
    #[error("line {line} column {column}: '{found}' is lower case; MRZ characters are upper case")]
    LowerCase {
        /// The line, from 1.
        line: usize,
        /// The column, from 1.
        column: usize,
        /// The character.
        found: char,
    },
    /// A character outside `A`-`Z`, `0`-`9` and `<`.
    #[error("line {line} column {column}: {} is not an MRZ character (A-Z, 0-9, <)", quoted(*.found))]
    InvalidCharacter {
        /// The line, from 1.
        line: usize,
        /// The column, from 1.
        column: usize,
        /// The character.
        found: char,
    },
    /// The document code does not belong to an MRZ of this shape.
    #[error("line 1 column {column}: document code '{code}' is not allowed here: {allowed}")]
    UnknownDocumentCode {
        /// The column of the offending character, from 1.
        column: usize,
        /// The two characters of the code, as printed.
        code: String,
        /// The codes Doc 9303 allows for the shape.
        allowed: &'static str,
    },
}

/// The lengths a line may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpectedLength {
    /// A line of a three-line MRZ: 30 (TD1).
    ThreeLineFormat,
    /// The first of two lines: 36 (TD2, MRV-B) or 44 (TD3, MRV-A).
    TwoLineFormats,
    /// The second of two lines: as long as the first.
    SameAsLineOne(usize),
}

impl fmt::Display for ExpectedLength {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExpectedLength::ThreeLineFormat => f.write_str("30 (TD1)"),
            ExpectedLength::TwoLineFormats => f.write_str("36 (TD2, MRV-B) or 44 (TD3, MRV-A)"),
            ExpectedLength::SameAsLineOne(length) => write!(f, "{length}, as line 1 has"),
        }
    }
}

/// A character as an error message shows it: quoted, and spelled out when invisible.
fn quoted(character: char) -> String {
    match character {
        ' ' => "a space".to_owned(),
        '\t' => "a tab".to_owned(),
        other if other.is_control() => format!("U+{:04X}", u32::from(other)),
        other => format!("'{other}'"),
    }
}
