//! Reading an MRZ: the shape and characters first (errors), then each field, check
//! digit, suspicion and problem (parts of the value).

use time::Date;

use super::check_digit::check_digit_of_bytes;
use super::date::{DateParts, DateReading, MrzDate, read_birth_date, read_expiry_date};
use super::error::{ExpectedLength, MrzFormatError};
use super::field::{CheckedField, MrzField};
use super::layout::{Layout, Position, Span, layout};
use super::model::{CheckDigitResult, Mrz, MrzFormat, Sex};
use super::ocr::{Suspicion, likely_digit, likely_letter};
use super::problem::FieldProblem;

/// The filler character.
const FILLER: u8 = b'<';

/// Reads an MRZ from its lines, exactly as printed (no surrounding spaces).
///
/// `today` fixes the centuries of the dates (see [`super::date`]).
///
/// # Errors
/// [`MrzFormatError`] when the lines cannot be an MRZ: not 2 or 3 lines, a line of the
/// wrong length, a character outside `A-Z 0-9 <`, or a document code that no format of
/// this shape allows. Wrong check digits and malformed fields are not errors: they are
/// reported in the [`Mrz`].
pub fn parse<S: AsRef<str>>(lines: &[S], today: Date) -> Result<Mrz, MrzFormatError> {
    let lines = read_characters(lines)?;
    let format = format_of(&lines)?;
    Ok(Reader::new(&lines).read(format, today))
}

/// Reads an MRZ from text with one line per line: surrounding spaces and blank lines
/// are ignored, as OCR output and pasted text often have them.
///
/// # Errors
/// As [`parse`].
pub fn parse_text(text: &str, today: Date) -> Result<Mrz, MrzFormatError> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect();
    parse(&lines, today)
}

/// Checks the number and lengths of the lines and their characters.
fn read_characters<S: AsRef<str>>(lines: &[S]) -> Result<Vec<Vec<u8>>, MrzFormatError> {
    let lengths: Vec<usize> = lines
        .iter()
        .map(|line| line.as_ref().chars().count())
        .collect();
    match lengths.as_slice() {
        [first, second] => {
            if *first != 36 && *first != 44 {
                return Err(MrzFormatError::LineLength {
                    line: 1,
                    found: *first,
                    expected: ExpectedLength::TwoLineFormats,
                });
            }
            if second != first {
                return Err(MrzFormatError::LineLength {
                    line: 2,
                    found: *second,
                    expected: ExpectedLength::SameAsLineOne(*first),
                });
            }
        }
        [_, _, _] => {
            if let Some((index, found)) = lengths
                .iter()
                .enumerate()
                .find(|(_, length)| **length != 30)
            {
                return Err(MrzFormatError::LineLength {
                    line: index + 1,
                    found: *found,
                    expected: ExpectedLength::ThreeLineFormat,
                });
            }
        }
        _ => return Err(MrzFormatError::LineCount { found: lines.len() }),
    }
    lines
        .iter()
        .enumerate()
        .map(|(index, line)| {
            line.as_ref()
                .chars()
                .enumerate()
                .map(|(column, found)| mrz_character(index + 1, column + 1, found))
                .collect()
        })
        .collect()
}

fn mrz_character(line: usize, column: usize, found: char) -> Result<u8, MrzFormatError> {
    match found {
        'A'..='Z' | '0'..='9' | '<' => {
            u8::try_from(found).map_err(|_| MrzFormatError::InvalidCharacter {
                line,
                column,
                found,
            })
        }
        'a'..='z' => Err(MrzFormatError::LowerCase {
            line,
            column,
            found,
        }),
        _ => Err(MrzFormatError::InvalidCharacter {
            line,
            column,
            found,
        }),
    }
}

/// The format, from the shape and the document code (Doc 9303 Parts 4 to 7): `P`
/// for passports (TD3), `V` for visas (MRV-A on 44 characters, MRV-B on 36), `A`, `C`
/// or `I` for the other travel documents (TD1 on three lines, TD2 on two of 36), whose
/// second character may not be `V`. A digit that is probably an OCR confusion of a
/// letter (`1` for `I`) is read as that letter here and reported as a suspicion.
fn format_of(lines: &[Vec<u8>]) -> Result<MrzFormat, MrzFormatError> {
    let first_line = lines.first().map(Vec::as_slice).unwrap_or_default();
    let code = |index: usize| {
        let found = first_line.get(index).copied().unwrap_or(FILLER);
        likely_letter(found).unwrap_or(found)
    };
    let unknown = |column: usize, allowed: &'static str| MrzFormatError::UnknownDocumentCode {
        column,
        code: first_line.iter().take(2).map(|&b| char::from(b)).collect(),
        allowed,
    };
    let format = match (lines.len(), first_line.len(), code(0)) {
        (3, _, b'A' | b'C' | b'I') => MrzFormat::Td1,
        (3, _, _) => return Err(unknown(1, "A, C or I (TD1)")),
        (_, 36, b'A' | b'C' | b'I') => MrzFormat::Td2,
        (_, 36, b'V') => MrzFormat::MrvB,
        (_, 36, _) => return Err(unknown(1, "A, C or I (TD2), or V (MRV-B visa)")),
        (_, _, b'P') => MrzFormat::Td3,
        (_, _, b'V') => MrzFormat::MrvA,
        (_, _, _) => return Err(unknown(1, "P (TD3 passport) or V (MRV-A visa)")),
    };
    if matches!(format, MrzFormat::Td1 | MrzFormat::Td2) && code(1) == b'V' {
        return Err(unknown(
            2,
            "the second character of an A, C or I code may not be V",
        ));
    }
    Ok(format)
}

/// Reads fields out of well-formed lines, collecting suspicions and problems.
struct Reader<'a> {
    lines: &'a [Vec<u8>],
    suspicions: Vec<Suspicion>,
    problems: Vec<FieldProblem>,
}

impl<'a> Reader<'a> {
    fn new(lines: &'a [Vec<u8>]) -> Reader<'a> {
        Reader {
            lines,
            suspicions: Vec::new(),
            problems: Vec::new(),
        }
    }

    fn read(mut self, format: MrzFormat, today: Date) -> Mrz {
        let layout = layout(format);
        let document_code = self.letters(layout.document_code, MrzField::DocumentCode);
        let issuing_state = self.letters(layout.issuing_state, MrzField::IssuingState);
        let name = self.letters(layout.name, MrzField::Name);
        let (primary_identifier, secondary_identifier) = split_name(&name);
        let nationality = self.letters(layout.nationality, MrzField::Nationality);
        let number = self.document_number(format, layout);
        let birth_date = self.birth_date(layout.birth_date, today);
        let sex = self.sex(layout.sex);
        let expiry_date = self.expiry_date(layout.expiry_date, today);
        if let (Some(birth), Some(expiry)) = (birth_date.date(), expiry_date.date())
            && expiry < birth
        {
            self.problems
                .push(FieldProblem::ExpiryBeforeBirth { birth, expiry });
        }

        let checks = checked_data(layout, number.positions, number.check);
        for (field, _, check) in &checks {
            self.suspect_digit(*check, MrzField::CheckDigit(*field));
        }
        self.suspicions.sort_by_key(|s| (s.line, s.column));
        let check_digits = checks
            .iter()
            .map(|(field, data, check)| self.check(*field, data, *check))
            .collect();

        Mrz {
            format,
            document_code: strip_fillers(&document_code),
            issuing_state: strip_fillers(&issuing_state),
            primary_identifier,
            secondary_identifier,
            document_number: number.text,
            nationality: strip_fillers(&nationality),
            birth_date,
            sex,
            expiry_date,
            optional_data: strip_fillers(&self.text(number.optional_data)),
            optional_data_2: layout
                .optional_data_2
                .map(|span| strip_fillers(&self.text(span))),
            check_digits,
            suspicions: self.suspicions,
            problems: self.problems,
        }
    }

    fn at(&self, position: Position) -> u8 {
        self.lines
            .get(position.line - 1)
            .and_then(|line| line.get(position.column - 1))
            .copied()
            .unwrap_or(FILLER)
    }

    fn text(&self, span: Span) -> String {
        span.positions().map(|p| char::from(self.at(p))).collect()
    }

    /// The text of a field of letters and fillers, reporting each digit in it.
    fn letters(&mut self, span: Span, field: MrzField) -> String {
        for position in span.positions() {
            let found = self.at(position);
            if found.is_ascii_digit() {
                self.problems.push(FieldProblem::LetterExpected {
                    field,
                    line: position.line,
                    column: position.column,
                    found: char::from(found),
                });
                if let Some(likely) = likely_letter(found) {
                    self.suspect(position, found, likely, field);
                }
            }
        }
        self.text(span)
    }

    /// Reports a letter in a digit position that is probably a misread digit.
    fn suspect_digit(&mut self, position: Position, field: MrzField) {
        let found = self.at(position);
        if let Some(likely) = likely_digit(found) {
            self.suspect(position, found, likely, field);
        }
    }

    fn suspect(&mut self, position: Position, found: u8, likely: u8, field: MrzField) {
        self.suspicions.push(Suspicion {
            line: position.line,
            column: position.column,
            found: char::from(found),
            likely: char::from(likely),
            field,
        });
    }

    fn document_number(&mut self, format: MrzFormat, layout: &Layout) -> DocumentNumber {
        let span = layout.document_number;
        let mut positions: Vec<Position> = span.positions().collect();
        let mut check = layout.document_number_check;
        let mut optional_data = layout.optional_data;
        if format == MrzFormat::Td1
            && let Some(overflow) = self.td1_overflow(layout)
        {
            positions.extend(overflow.positions().take(overflow.len - 1));
            let last = Position {
                line: overflow.line,
                column: overflow.column + overflow.len - 1,
            };
            check = last;
            optional_data = Span {
                line: optional_data.line,
                column: last.column + 1,
                len: optional_data.len - overflow.len,
            };
        }
        let printed: String = positions.iter().map(|p| char::from(self.at(*p))).collect();
        let start = Position {
            line: span.line,
            column: span.column,
        };
        if printed.bytes().all(|b| b == FILLER) {
            self.problems.push(FieldProblem::MissingDocumentNumber {
                line: start.line,
                column: start.column,
            });
        } else if self.at(start) == FILLER {
            self.problems
                .push(FieldProblem::DocumentNumberNotLeftAligned {
                    line: start.line,
                    column: start.column,
                });
        }
        DocumentNumber {
            text: strip_fillers(&printed),
            positions,
            check,
            optional_data,
        }
    }

    /// TD1's long document number (Doc 9303 Part 5, note to the document number): the
    /// first 9 characters fill the field, a filler takes the check digit's place, and
    /// the rest of the number and its check digit start the optional data, followed by
    /// a filler. Returns the span of the rest and the check digit (at least two
    /// characters).
    fn td1_overflow(&self, layout: &Layout) -> Option<Span> {
        let number = layout.document_number;
        let last_of_number = Position {
            line: number.line,
            column: number.column + number.len - 1,
        };
        if self.at(layout.document_number_check) != FILLER || self.at(last_of_number) == FILLER {
            return None;
        }
        let len = layout
            .optional_data
            .positions()
            .take_while(|p| self.at(*p) != FILLER)
            .count();
        (len >= 2).then_some(Span {
            len,
            ..layout.optional_data
        })
    }

    /// The six characters of a date: each pair two digits, or `<<` (unknown) where
    /// allowed. Reports every other character; `None` when the date is unreadable.
    fn date_parts(
        &mut self,
        span: Span,
        field: MrzField,
        unknown_allowed: bool,
    ) -> Option<DateParts> {
        let mut values = [None; 3];
        let mut readable = true;
        for (index, value) in values.iter_mut().enumerate() {
            let first = Position {
                line: span.line,
                column: span.column + 2 * index,
            };
            let second = Position {
                column: first.column + 1,
                ..first
            };
            let (tens, units) = (self.at(first), self.at(second));
            if unknown_allowed && tens == FILLER && units == FILLER {
                continue;
            }
            for (position, found) in [(first, tens), (second, units)] {
                if !found.is_ascii_digit() {
                    readable = false;
                    self.problems.push(FieldProblem::DigitExpected {
                        field,
                        line: position.line,
                        column: position.column,
                        found: char::from(found),
                    });
                    self.suspect_digit(position, field);
                }
            }
            if tens.is_ascii_digit() && units.is_ascii_digit() {
                *value = Some((tens - b'0') * 10 + (units - b'0'));
            }
        }
        readable.then_some(DateParts {
            year: values[0],
            month: values[1],
            day: values[2],
        })
    }

    fn birth_date(&mut self, span: Span, today: Date) -> MrzDate {
        let field = MrzField::BirthDate;
        let reading = match self.date_parts(span, field, true) {
            Some(parts) => self.date_reading(field, span, read_birth_date(parts, today)),
            None => DateReading::Unreadable,
        };
        MrzDate {
            printed: self.text(span),
            reading,
        }
    }

    fn expiry_date(&mut self, span: Span, today: Date) -> MrzDate {
        let field = MrzField::ExpiryDate;
        let reading = match self.date_parts(span, field, false) {
            Some(DateParts {
                year: Some(year),
                month: Some(month),
                day: Some(day),
            }) => {
                let read = read_expiry_date(year, month, day, today).map(DateReading::Complete);
                self.date_reading(field, span, read)
            }
            _ => DateReading::Unreadable,
        };
        MrzDate {
            printed: self.text(span),
            reading,
        }
    }

    fn date_reading(
        &mut self,
        field: MrzField,
        span: Span,
        read: Result<DateReading, super::date::DateProblem>,
    ) -> DateReading {
        read.unwrap_or_else(|reason| {
            self.problems.push(FieldProblem::ImpossibleDate {
                field,
                printed: self.text(span),
                reason,
            });
            DateReading::Unreadable
        })
    }

    fn sex(&mut self, position: Position) -> Option<Sex> {
        match self.at(position) {
            b'F' => Some(Sex::Female),
            b'M' => Some(Sex::Male),
            b'X' | FILLER => Some(Sex::Unspecified),
            found => {
                self.problems.push(FieldProblem::UnknownSex {
                    line: position.line,
                    column: position.column,
                    found: char::from(found),
                });
                None
            }
        }
    }

    /// Computes one check digit. `data` are the positions it covers, in order.
    fn check(&self, field: CheckedField, data: &[Position], check: Position) -> CheckDigitResult {
        let printed = self.at(check);
        let characters: Vec<u8> = data.iter().map(|p| self.at(*p)).collect();
        let computed = check_digit_of_bytes(characters.iter().copied());
        let valid = check_passes(field, &characters, printed, computed);
        let likely = |position: &Position| {
            self.suspicions
                .iter()
                .find(|s| s.line == position.line && s.column == position.column)
                .and_then(|s| u8::try_from(s.likely).ok())
        };
        let suspected = data.iter().chain([&check]).any(|p| likely(p).is_some());
        let passes_with_likely_characters = !valid && suspected && {
            let corrected: Vec<u8> = data
                .iter()
                .map(|p| likely(p).unwrap_or_else(|| self.at(*p)))
                .collect();
            let corrected_printed = likely(&check).unwrap_or(printed);
            check_passes(
                field,
                &corrected,
                corrected_printed,
                check_digit_of_bytes(corrected.iter().copied()),
            )
        };
        CheckDigitResult {
            field,
            line: check.line,
            column: check.column,
            printed: char::from(printed),
            computed,
            valid,
            passes_with_likely_characters,
        }
    }
}

/// Each check digit of a layout: what it protects, the positions it covers in the
/// order they are summed, and where it is printed.
fn checked_data(
    layout: &Layout,
    number_positions: Vec<Position>,
    number_check: Position,
) -> Vec<(CheckedField, Vec<Position>, Position)> {
    let mut checks = vec![
        (CheckedField::DocumentNumber, number_positions, number_check),
        (
            CheckedField::BirthDate,
            positions(&[layout.birth_date]),
            layout.birth_date_check,
        ),
        (
            CheckedField::ExpiryDate,
            positions(&[layout.expiry_date]),
            layout.expiry_date_check,
        ),
    ];
    if let Some(check) = layout.optional_data_check {
        checks.push((
            CheckedField::OptionalData,
            positions(&[layout.optional_data]),
            check,
        ));
    }
    if let Some(composite) = layout.composite {
        checks.push((
            CheckedField::Composite,
            positions(composite.covers),
            composite.check,
        ));
    }
    checks
}

/// Whether a printed check digit is right: the computed digit, or for TD3 optional
/// data that is all fillers, the filler too (Doc 9303 Part 4 allows `<` or `0` there).
fn check_passes(field: CheckedField, data: &[u8], printed: u8, computed: u8) -> bool {
    printed == b'0' + computed
        || (field == CheckedField::OptionalData
            && printed == FILLER
            && data.iter().all(|&b| b == FILLER))
}

/// The document number, where it is and where its check digit is.
struct DocumentNumber {
    text: String,
    positions: Vec<Position>,
    check: Position,
    /// The optional data element that follows the number's overflow, if any.
    optional_data: Span,
}

fn positions(spans: &[Span]) -> Vec<Position> {
    spans.iter().flat_map(|span| span.positions()).collect()
}

fn strip_fillers(text: &str) -> String {
    text.trim_matches('<').to_owned()
}

/// Splits the name field at the first `<<` into the primary and secondary
/// identifiers; a `<` inside either is a space.
fn split_name(field: &str) -> (String, String) {
    let name = field.trim_end_matches('<');
    let (primary, secondary) = name.split_once("<<").unwrap_or((name, ""));
    let words = |part: &str| {
        part.split('<')
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    };
    (words(primary), words(secondary))
}
