//! The value [`super::parse`] returns: every field of the MRZ, the result of every
//! check digit, the probable OCR confusions and the fields that break Doc 9303.

use std::fmt;

use super::date::MrzDate;
use super::field::CheckedField;
use super::ocr::Suspicion;
use super::problem::FieldProblem;

/// The five MRZ formats of Doc 9303.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MrzFormat {
    /// Part 5: identity cards, three lines of 30.
    Td1,
    /// Part 6: official travel documents, two lines of 36.
    Td2,
    /// Part 4: passports, two lines of 44.
    Td3,
    /// Part 7: visas of format A, two lines of 44.
    MrvA,
    /// Part 7: visas of format B, two lines of 36.
    MrvB,
}

impl fmt::Display for MrzFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MrzFormat::Td1 => "TD1",
            MrzFormat::Td2 => "TD2",
            MrzFormat::Td3 => "TD3",
            MrzFormat::MrvA => "MRV-A",
            MrzFormat::MrvB => "MRV-B",
        })
    }
}

/// The sex of the holder as the MRZ gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sex {
    /// `F`.
    Female,
    /// `M`.
    Male,
    /// `X` or the filler `<`.
    Unspecified,
}

/// The result of one check digit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckDigitResult {
    /// What the check digit protects.
    pub field: CheckedField,
    /// The line of the check digit, from 1.
    pub line: usize,
    /// The column of the check digit, from 1.
    pub column: usize,
    /// The character printed where the check digit is.
    pub printed: char,
    /// The check digit the data gives.
    pub computed: u8,
    /// Whether the printed check digit is the computed one (or the filler `<` Doc 9303
    /// allows for TD3 optional data that is all fillers).
    pub valid: bool,
    /// For a failed check: whether it would pass if the suspected OCR confusions in
    /// its data and in the check digit itself were read as their likely characters.
    pub passes_with_likely_characters: bool,
}

impl fmt::Display for CheckDigitResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {} column {}: the {} check digit is '{}'; the data gives {}",
            self.line, self.column, self.field, self.printed, self.computed
        )?;
        if self.passes_with_likely_characters {
            f.write_str(" (it passes when the suspected OCR confusions are corrected)")?;
        }
        Ok(())
    }
}

/// A machine readable zone, read field by field.
///
/// Text fields are as printed with their fillers `<` stripped; inside names a `<`
/// becomes a space. A wrong check digit, an impossible date or a digit in a name is
/// not an error: it is a failed check in [`Mrz::check_digits`] or a problem in
/// [`Mrz::problems`], so the reader still has everything else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mrz {
    /// The format, from the number and length of the lines and the document code.
    pub format: MrzFormat,
    /// The document code (`P`, `I`, `ID`, `AC`, `V`, ...).
    pub document_code: String,
    /// The issuing state or organization as printed (`UTO`, `D`, `XXA`, `UNO`, ...).
    pub issuing_state: String,
    /// The primary identifier (surname), before the first `<<`.
    pub primary_identifier: String,
    /// The secondary identifier (given names), after the first `<<`; may be empty.
    pub secondary_identifier: String,
    /// The document number; in TD1, with the characters that overflow into the
    /// optional data when it is longer than 9.
    pub document_number: String,
    /// The nationality of the holder as printed.
    pub nationality: String,
    /// The date of birth.
    pub birth_date: MrzDate,
    /// The sex, unless the character is not a sex code (then see the problems).
    pub sex: Option<Sex>,
    /// The date of expiry.
    pub expiry_date: MrzDate,
    /// The optional data element (TD1: line 1's, after any document number overflow;
    /// TD3: the personal number).
    pub optional_data: String,
    /// TD1's second optional data element (line 2); `None` in the other formats.
    pub optional_data_2: Option<String>,
    /// Every check digit of the format, in the order of the lines.
    pub check_digits: Vec<CheckDigitResult>,
    /// Characters that are probably OCR misreadings, in reading order.
    pub suspicions: Vec<Suspicion>,
    /// Fields that break Doc 9303's rules.
    pub problems: Vec<FieldProblem>,
}

impl Mrz {
    /// The result of the check digit protecting `field`, if the format has one.
    pub fn check(&self, field: CheckedField) -> Option<&CheckDigitResult> {
        self.check_digits.iter().find(|check| check.field == field)
    }

    /// Whether every check digit is valid.
    pub fn check_digits_valid(&self) -> bool {
        self.check_digits.iter().all(|check| check.valid)
    }

    /// Whether the MRZ is entirely valid: every check digit passes and no field
    /// breaks Doc 9303's rules.
    pub fn is_valid(&self) -> bool {
        self.check_digits_valid() && self.problems.is_empty()
    }
}
