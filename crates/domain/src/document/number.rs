//! Document numbers: the format of each document type's numbers. Numbers are read
//! trimmed and in upper case, so `l898902c3 ` is stored as `L898902C3`.

use super::model::DocumentType;

/// Length of the MRZ's document number field (Doc 9303): a passport's or visa's
/// number fits in it.
pub const MRZ_NUMBER_FIELD: usize = 9;
/// Longest number a TD1 MRZ (Doc 9303 Part 5) holds: 9 characters in the number
/// field, the rest at the start of the 15-character optional data, followed there by
/// the check digit and a filler, so at most 13 more.
pub const TD1_OVERFLOW_MAX: usize = MRZ_NUMBER_FIELD + 13;
/// Longest number of the types without a format of their own.
pub const MAX_OTHER: usize = 30;

/// Why a number is refused: its reason, and a description of the format it misses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumberProblem {
    /// `INVALID_DOCUMENT_NUMBER` for a number outside its type's format,
    /// `CHECK_DIGIT_MISMATCH` for one in the format whose check digit is wrong.
    pub reason: &'static str,
    /// What the number misses.
    pub description: String,
}

impl NumberProblem {
    fn format(description: String) -> Self {
        Self {
            reason: "INVALID_DOCUMENT_NUMBER",
            description,
        }
    }
}

/// The number as stored: without surrounding white space, in upper case.
pub fn normalise(number: &str) -> String {
    number.trim().to_uppercase()
}

/// Checks a normalised number against the format of `document_type`:
///
/// - `PASSPORT`, `VISA`: 1 to 9 of `A-Z 0-9`, what the MRZ's number field holds;
///   up to 22 for a number that overflows into a TD1 MRZ's optional data (passport
///   cards). A filler `<` is not part of a number.
/// - `MEDICARE_CARD`: an Australian Medicare card number: 10 digits, the 9th the
///   check digit of the first 8 (weights 1, 3, 7, 9, 1, 3, 7, 9, sum modulo 10), the
///   10th the card's issue number, and optionally an 11th, the holder's individual
///   reference number.
/// - the others: 1 to 30 of `A-Z 0-9`, space and hyphen.
///
/// # Errors
/// The problem, with the format the number misses.
pub fn check(document_type: DocumentType, number: &str) -> Result<(), NumberProblem> {
    match document_type {
        DocumentType::Passport | DocumentType::Visa => {
            if !(1..=TD1_OVERFLOW_MAX).contains(&number.len())
                || !number
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
            {
                return Err(NumberProblem::format(format!(
                    "a {document_type} number is 1 to {MRZ_NUMBER_FIELD} letters A-Z and \
                     digits (up to {TD1_OVERFLOW_MAX} as a TD1 machine readable zone \
                     continues it), not '{number}'"
                )));
            }
        }
        DocumentType::MedicareCard => {
            let digits: Vec<u32> = number.chars().filter_map(|c| c.to_digit(10)).collect();
            if digits.len() != number.len() || !(10..=11).contains(&digits.len()) {
                return Err(NumberProblem::format(format!(
                    "a Medicare card number is 10 digits, or 11 with the individual \
                     reference number, not '{number}'"
                )));
            }
            if !medicare_check_digit_holds(&digits) {
                return Err(NumberProblem {
                    reason: "CHECK_DIGIT_MISMATCH",
                    description: format!(
                        "'{number}' is not a Medicare card number: its 9th digit is not \
                         the check digit of the first 8"
                    ),
                });
            }
        }
        DocumentType::Unspecified
        | DocumentType::DriversLicence
        | DocumentType::NationalId
        | DocumentType::BirthCertificate => {
            if !(1..=MAX_OTHER).contains(&number.len())
                || !number
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b' ' || b == b'-')
            {
                return Err(NumberProblem::format(format!(
                    "a document number is 1 to {MAX_OTHER} letters A-Z, digits, spaces and \
                     hyphens, not '{number}'"
                )));
            }
        }
    }
    Ok(())
}

/// The format of `document_type`'s numbers as given, before trimming and upper-casing,
/// as a JSON Schema pattern: what [`check`] accepts, with spaces as the only padding,
/// and short of a Medicare number's check digit, which no pattern can state.
pub fn pattern(document_type: DocumentType) -> &'static str {
    match document_type {
        DocumentType::Passport | DocumentType::Visa => "^ *[A-Za-z0-9]{1,22} *$",
        DocumentType::MedicareCard => "^ *[0-9]{10,11} *$",
        DocumentType::Unspecified
        | DocumentType::DriversLicence
        | DocumentType::NationalId
        | DocumentType::BirthCertificate => "^ *[A-Za-z0-9-]([A-Za-z0-9 -]{0,28}[A-Za-z0-9-])? *$",
    }
}

/// Whether the 9th digit of a Medicare number is the check digit of the first 8.
fn medicare_check_digit_holds(digits: &[u32]) -> bool {
    const WEIGHTS: [u32; 8] = [1, 3, 7, 9, 1, 3, 7, 9];
    let sum: u32 = digits.iter().zip(WEIGHTS).map(|(d, w)| d * w).sum();
    digits.get(8) == Some(&(sum % 10))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_trimmed_and_upper_cased() {
        assert_eq!(normalise("  l898902c3 "), "L898902C3");
        assert_eq!(normalise("nsw-123 4"), "NSW-123 4");
    }

    #[test]
    fn passport_and_visa_numbers_fit_the_mrz() {
        for kind in [DocumentType::Passport, DocumentType::Visa] {
            for good in [
                "L898902C3",
                "A",
                "123456789",
                "D23145890734",
                "ABCDEFGHIJ0123456789XY",
            ] {
                assert!(check(kind, good).is_ok(), "{kind} {good}");
            }
            for bad in [
                "",
                "L898902C<",
                "L8989 02C3",
                "AB-123",
                "ABCDEFGHIJ0123456789XYZ",
                "É12345",
                "l898902c3",
            ] {
                assert!(check(kind, bad).is_err(), "{kind} {bad:?}");
            }
        }
    }

    #[test]
    fn medicare_numbers_carry_their_check_digit() {
        // 2*1 + 1*3 + 2*7 + 3*9 + 4*1 + 5*3 + 6*7 + 7*9 = 170: check digit 0.
        for good in ["2123456701", "21234567011", "2123456709"] {
            assert!(check(DocumentType::MedicareCard, good).is_ok(), "{good}");
        }
        let wrong_digit = check(DocumentType::MedicareCard, "2123456711");
        assert_eq!(
            wrong_digit.map_err(|problem| problem.reason),
            Err("CHECK_DIGIT_MISMATCH")
        );
        for bad in [
            "2123456711",
            "212345670",
            "212345670111",
            "2123 45670 1",
            "21234567A1",
            "",
        ] {
            assert!(check(DocumentType::MedicareCard, bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_patterns_state_the_formats() {
        let samples = [
            "",
            " ",
            "l898902c3",
            " L898902C3  ",
            "L898902C<",
            "L8989 02C3",
            "ABCDEFGHIJ0123456789XY",
            "ABCDEFGHIJ0123456789XYZ",
            "2123456701",
            "21234567011",
            "2123456711",
            "212345670",
            "NSW-123 4",
            " -a- ",
            &"9".repeat(30),
            &format!(" {} ", "9".repeat(30)),
            &"9".repeat(31),
            "AB/12",
            "É12345",
        ];
        for value in DocumentType::VALUES {
            let Some(kind) = DocumentType::parse(value) else {
                continue;
            };
            for sample in samples {
                let fits = jsonschema::is_valid(
                    &serde_json::json!({ "type": "string", "pattern": pattern(kind) }),
                    &serde_json::json!(sample),
                );
                let accepted = match check(kind, &normalise(sample)) {
                    Ok(()) => true,
                    Err(problem) => problem.reason == "CHECK_DIGIT_MISMATCH",
                };
                assert_eq!(fits, accepted, "{kind} {sample:?}");
            }
        }
    }

    #[test]
    fn other_numbers_are_short_words_with_spaces_and_hyphens() {
        for kind in [
            DocumentType::DriversLicence,
            DocumentType::NationalId,
            DocumentType::BirthCertificate,
        ] {
            for good in ["NSW-123 4567", "1", &"9".repeat(30)] {
                assert!(check(kind, good).is_ok(), "{kind} {good}");
            }
            for bad in ["", &"9".repeat(31), "AB/12", "AB_12", "ab12"] {
                assert!(check(kind, bad).is_err(), "{kind} {bad:?}");
            }
        }
    }
}
