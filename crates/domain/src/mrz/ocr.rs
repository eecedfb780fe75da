//! Probable OCR confusions: letters read where a digit must be, and digits read where
//! a letter must be. They are reported, never corrected, since the reader cannot know
//! which is true; a check digit that passes once they are corrected says which.

use std::fmt;

use super::field::MrzField;

/// A character that is probably an OCR misreading of another, in a position where
/// Doc 9303 allows only digits or only letters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Suspicion {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1.
    pub column: usize,
    /// The character printed.
    pub found: char,
    /// The character it probably is.
    pub likely: char,
    /// The field it is in.
    pub field: MrzField,
}

impl fmt::Display for Suspicion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {} column {}: '{}' in the {} is probably '{}'",
            self.line, self.column, self.found, self.field, self.likely
        )
    }
}

/// The digit a letter found in a digit position probably is: O, I, S, B, Z, G for
/// 0, 1, 5, 8, 2, 6.
pub(crate) fn likely_digit(letter: u8) -> Option<u8> {
    match letter {
        b'O' => Some(b'0'),
        b'I' => Some(b'1'),
        b'S' => Some(b'5'),
        b'B' => Some(b'8'),
        b'Z' => Some(b'2'),
        b'G' => Some(b'6'),
        _ => None,
    }
}

/// The letter a digit found in a letter position probably is: 0, 1, 5, 8 for O, I, S,
/// B.
pub(crate) fn likely_letter(digit: u8) -> Option<u8> {
    match digit {
        b'0' => Some(b'O'),
        b'1' => Some(b'I'),
        b'5' => Some(b'S'),
        b'8' => Some(b'B'),
        _ => None,
    }
}
