//! The machine readable zone (MRZ) of travel and identity documents, per ICAO Doc 9303:
//! TD1 identity cards (3 lines of 30), TD2 documents (2 of 36), TD3 passports (2 of 44)
//! and MRV-A and MRV-B visas (2 of 44 and 2 of 36, document code `V`).
//!
//! [`parse`] reads the lines into an [`Mrz`]. Text that cannot be an MRZ (line count,
//! line length, characters, document code) is an [`MrzFormatError`]. Everything else
//! is part of the value, so a verification can report it as named checks:
//! - each check digit (document number, birth date, expiry date, TD3's optional data,
//!   the composite) as a [`CheckDigitResult`]: printed, computed, valid
//!   ([`check_digit`] is the Doc 9303 algorithm: weights 7-3-1, `<` = 0, `A` = 10 ..
//!   `Z` = 35);
//! - fields that break Doc 9303's rules (an impossible date, a digit in a name) as
//!   [`FieldProblem`]s;
//! - probable OCR confusions as [`Suspicion`]s: letters `O I S B Z G` where a digit
//!   must be (dates, check digits) and digits `0 1 5 8` where a letter must be
//!   (document code, states, names). They are reported, never corrected; a failed
//!   check says whether correcting them would make it pass.
//!
//! Dates take their century from the day of reading: see [`date`] for the rules.
//! [`compose`] writes an MRZ from its fields, for tests and specimens.
//!
//! Pure code: no I/O.

mod check_digit;
mod compose;
pub mod date;
mod error;
mod field;
mod layout;
mod model;
mod ocr;
mod parse;
mod problem;

pub use check_digit::check_digit;
pub use compose::{ComposeError, MrzFields, compose};
pub use date::{DateProblem, DateReading, MrzDate};
pub use error::{ExpectedLength, MrzFormatError};
pub use field::{CheckedField, MrzField};
pub use model::{CheckDigitResult, Mrz, MrzFormat, Sex};
pub use ocr::Suspicion;
pub use parse::{parse, parse_text};
pub use problem::FieldProblem;

#[cfg(test)]
mod tests;
