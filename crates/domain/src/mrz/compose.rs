//! Writing an MRZ from its fields, with every check digit computed: the inverse of
//! [`super::parse`], used to build MRZs for tests and specimens.

use super::check_digit::check_digit_of_bytes;
use super::field::MrzField;
use super::layout::{Position, Span, layout};
use super::model::{MrzFormat, Sex};

/// The filler character.
const FILLER: u8 = b'<';

/// The content of an MRZ, as [`compose`] writes it. Text is upper case `A`-`Z`,
/// `0`-`9`, `<` and spaces (written as `<`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MrzFields {
    /// The format to write.
    pub format: MrzFormat,
    /// The document code, one or two characters.
    pub document_code: String,
    /// The issuing state or organization, one to three characters.
    pub issuing_state: String,
    /// The primary identifier (surname).
    pub primary_identifier: String,
    /// The secondary identifier (given names); may be empty.
    pub secondary_identifier: String,
    /// The document number; longer than 9 characters only in TD1.
    pub document_number: String,
    /// The nationality, one to three characters.
    pub nationality: String,
    /// The date of birth as printed: `YYMMDD`, unknown parts as `<<`.
    pub birth_date: String,
    /// The sex; unspecified is written `<`.
    pub sex: Sex,
    /// The date of expiry as printed: `YYMMDD`.
    pub expiry_date: String,
    /// The optional data element.
    pub optional_data: String,
    /// TD1's second optional data element; must be empty in other formats.
    pub optional_data_2: String,
}

/// Why fields cannot be written as an MRZ.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ComposeError {
    /// The text is longer than its field.
    #[error("the {field} has {found} characters; at most {max} fit")]
    DoesNotFit {
        /// The field.
        field: MrzField,
        /// The characters given.
        found: usize,
        /// The characters that fit.
        max: usize,
    },
    /// A date is not six characters.
    #[error("the {field} has {found} characters; a date has 6 (YYMMDD)")]
    DateLength {
        /// The field.
        field: MrzField,
        /// The characters given.
        found: usize,
    },
    /// A character an MRZ cannot print.
    #[error("the {field} has '{found}', which is not an MRZ character")]
    InvalidCharacter {
        /// The field.
        field: MrzField,
        /// The character.
        found: char,
    },
    /// The format has no such field.
    #[error("the {format} format has no {field}")]
    NotInFormat {
        /// The field.
        field: MrzField,
        /// The format.
        format: MrzFormat,
    },
}

/// Writes the lines of an MRZ, check digits included. A TD1 document number longer
/// than 9 characters overflows into the optional data as Doc 9303 Part 5 says. An
/// optional data check digit over fillers only is written `0`.
///
/// # Errors
/// [`ComposeError`] when a field does not fit or holds a character an MRZ cannot print.
pub fn compose(fields: &MrzFields) -> Result<Vec<String>, ComposeError> {
    let layout = layout(fields.format);
    let mut lines = vec![vec![FILLER; layout.line_length]; layout.line_count];
    let mut put = |span: Span, text: &[u8]| {
        for (position, &character) in span.positions().zip(text) {
            lines[position.line - 1][position.column - 1] = character;
        }
    };

    put(
        layout.document_code,
        &encode(&fields.document_code, MrzField::DocumentCode, 2)?,
    );
    put(
        layout.issuing_state,
        &encode(&fields.issuing_state, MrzField::IssuingState, 3)?,
    );
    let mut name = encode(&fields.primary_identifier, MrzField::Name, layout.name.len)?;
    if !fields.secondary_identifier.is_empty() {
        name.extend_from_slice(b"<<");
        name.extend(encode(
            &fields.secondary_identifier,
            MrzField::Name,
            layout.name.len,
        )?);
    }
    fits(&name, MrzField::Name, layout.name.len)?;
    put(layout.name, &name);
    put(
        layout.nationality,
        &encode(&fields.nationality, MrzField::Nationality, 3)?,
    );
    put(
        layout.birth_date,
        &date(&fields.birth_date, MrzField::BirthDate)?,
    );
    put(
        layout.expiry_date,
        &date(&fields.expiry_date, MrzField::ExpiryDate)?,
    );
    let sex = match fields.sex {
        Sex::Female => b'F',
        Sex::Male => b'M',
        Sex::Unspecified => FILLER,
    };
    put(single(layout.sex), &[sex]);

    let number = encode(
        &fields.document_number,
        MrzField::DocumentNumber,
        usize::MAX,
    )?;
    let number_check = b'0' + check_digit_of_bytes(number.iter().copied());
    let mut optional_data = encode(&fields.optional_data, MrzField::OptionalData, usize::MAX)?;
    match (
        fields.format,
        number.split_at_checked(layout.document_number.len),
    ) {
        (MrzFormat::Td1, Some((principal, rest))) if !rest.is_empty() => {
            put(layout.document_number, principal);
            let mut overflow = rest.to_vec();
            overflow.push(number_check);
            if !optional_data.is_empty() {
                overflow.push(FILLER);
            }
            overflow.append(&mut optional_data);
            optional_data = overflow;
        }
        _ => {
            fits(
                &number,
                MrzField::DocumentNumber,
                layout.document_number.len,
            )?;
            put(layout.document_number, &number);
            put(single(layout.document_number_check), &[number_check]);
        }
    }
    fits(
        &optional_data,
        MrzField::OptionalData,
        layout.optional_data.len,
    )?;
    put(layout.optional_data, &optional_data);
    let optional_data_2 = encode(&fields.optional_data_2, MrzField::OptionalData2, usize::MAX)?;
    match layout.optional_data_2 {
        Some(span) => {
            fits(&optional_data_2, MrzField::OptionalData2, span.len)?;
            put(span, &optional_data_2);
        }
        None if !optional_data_2.is_empty() => {
            return Err(ComposeError::NotInFormat {
                field: MrzField::OptionalData2,
                format: fields.format,
            });
        }
        None => {}
    }

    let birth_check = check_over(&lines, &[layout.birth_date]);
    set(&mut lines, layout.birth_date_check, birth_check);
    let expiry_check = check_over(&lines, &[layout.expiry_date]);
    set(&mut lines, layout.expiry_date_check, expiry_check);
    if let Some(position) = layout.optional_data_check {
        let optional_check = check_over(&lines, &[layout.optional_data]);
        set(&mut lines, position, optional_check);
    }
    if let Some(composite) = layout.composite {
        let composite_check = check_over(&lines, composite.covers);
        set(&mut lines, composite.check, composite_check);
    }
    Ok(lines
        .into_iter()
        .map(|line| line.into_iter().map(char::from).collect())
        .collect())
}

/// The check digit character over `spans` of the lines written so far.
fn check_over(lines: &[Vec<u8>], spans: &[Span]) -> u8 {
    b'0' + check_digit_of_bytes(
        spans
            .iter()
            .flat_map(|span| span.positions())
            .map(|p| lines[p.line - 1][p.column - 1]),
    )
}

fn set(lines: &mut [Vec<u8>], position: Position, character: u8) {
    lines[position.line - 1][position.column - 1] = character;
}

/// The span of one position.
fn single(position: Position) -> Span {
    Span {
        line: position.line,
        column: position.column,
        len: 1,
    }
}

/// The MRZ characters of `text` (spaces as fillers), refusing more than `max`.
fn encode(text: &str, field: MrzField, max: usize) -> Result<Vec<u8>, ComposeError> {
    let encoded = text
        .chars()
        .map(|character| match character {
            ' ' => Ok(FILLER),
            'A'..='Z' | '0'..='9' | '<' => {
                u8::try_from(character).map_err(|_| ComposeError::InvalidCharacter {
                    field,
                    found: character,
                })
            }
            found => Err(ComposeError::InvalidCharacter { field, found }),
        })
        .collect::<Result<Vec<u8>, ComposeError>>()?;
    fits(&encoded, field, max)?;
    Ok(encoded)
}

fn fits(text: &[u8], field: MrzField, max: usize) -> Result<(), ComposeError> {
    if text.len() > max {
        return Err(ComposeError::DoesNotFit {
            field,
            found: text.len(),
            max,
        });
    }
    Ok(())
}

fn date(text: &str, field: MrzField) -> Result<Vec<u8>, ComposeError> {
    let encoded = encode(text, field, 6)?;
    if encoded.len() != 6 {
        return Err(ComposeError::DateLength {
            field,
            found: encoded.len(),
        });
    }
    Ok(encoded)
}
