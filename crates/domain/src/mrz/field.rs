//! The names of the MRZ fields, used by suspicions, problems and check results.

use std::fmt;

/// A field of the MRZ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MrzField {
    /// The document code (`P`, `I`, `ID`, `V`, ...).
    DocumentCode,
    /// The issuing state or organization.
    IssuingState,
    /// The name of the holder: primary and secondary identifiers.
    Name,
    /// The document number.
    DocumentNumber,
    /// The nationality of the holder.
    Nationality,
    /// The date of birth.
    BirthDate,
    /// The sex of the holder.
    Sex,
    /// The date of expiry.
    ExpiryDate,
    /// The optional data element (TD3: the personal number).
    OptionalData,
    /// TD1's second optional data element, on line 2.
    OptionalData2,
    /// A check digit.
    CheckDigit(CheckedField),
}

/// What a check digit protects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CheckedField {
    /// The document number (with TD1's overflow when it is longer than 9 characters).
    DocumentNumber,
    /// The date of birth.
    BirthDate,
    /// The date of expiry.
    ExpiryDate,
    /// TD3's optional data (personal number).
    OptionalData,
    /// The composite check digit over the upper and middle lines' checked data
    /// (TD1), or the second line's (TD2, TD3).
    Composite,
}

impl fmt::Display for CheckedField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CheckedField::DocumentNumber => "document number",
            CheckedField::BirthDate => "birth date",
            CheckedField::ExpiryDate => "expiry date",
            CheckedField::OptionalData => "optional data",
            CheckedField::Composite => "composite",
        })
    }
}

impl fmt::Display for MrzField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            MrzField::DocumentCode => "document code",
            MrzField::IssuingState => "issuing state",
            MrzField::Name => "name",
            MrzField::DocumentNumber => "document number",
            MrzField::Nationality => "nationality",
            MrzField::BirthDate => "birth date",
            MrzField::Sex => "sex",
            MrzField::ExpiryDate => "expiry date",
            MrzField::OptionalData => "optional data",
            MrzField::OptionalData2 => "second optional data",
            MrzField::CheckDigit(checked) => return write!(f, "{checked} check digit"),
        };
        f.write_str(name)
    }
}
