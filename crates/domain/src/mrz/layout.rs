//! Where each field sits in each MRZ format (Doc 9303 Parts 4 to 7). Lines and
//! columns count from 1, as Doc 9303 numbers positions.

use super::MrzFormat;

/// A run of characters on one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    /// The line, from 1.
    pub line: usize,
    /// The first column, from 1.
    pub column: usize,
    /// How many characters.
    pub len: usize,
}

impl Span {
    const fn new(line: usize, column: usize, len: usize) -> Span {
        Span { line, column, len }
    }

    /// The positions of the span, left to right.
    pub fn positions(self) -> impl Iterator<Item = Position> {
        (self.column..self.column + self.len).map(move |column| Position {
            line: self.line,
            column,
        })
    }
}

/// One character position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Position {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1.
    pub column: usize,
}

impl Position {
    const fn new(line: usize, column: usize) -> Position {
        Position { line, column }
    }
}

/// The composite check digit and the spans it covers, in the order they are summed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Composite {
    pub check: Position,
    pub covers: &'static [Span],
}

/// The fields of one format.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout {
    pub line_count: usize,
    pub line_length: usize,
    pub document_code: Span,
    pub issuing_state: Span,
    pub name: Span,
    pub document_number: Span,
    pub document_number_check: Position,
    pub nationality: Span,
    pub birth_date: Span,
    pub birth_date_check: Position,
    pub sex: Position,
    pub expiry_date: Span,
    pub expiry_date_check: Position,
    pub optional_data: Span,
    /// TD3 only: the check digit of the optional data (personal number).
    pub optional_data_check: Option<Position>,
    /// TD1 only: the second optional data element, on line 2.
    pub optional_data_2: Option<Span>,
    /// TD1, TD2 and TD3; the visas have none.
    pub composite: Option<Composite>,
}

/// Part 5: three lines of 30.
const TD1: Layout = Layout {
    line_count: 3,
    line_length: 30,
    document_code: Span::new(1, 1, 2),
    issuing_state: Span::new(1, 3, 3),
    document_number: Span::new(1, 6, 9),
    document_number_check: Position::new(1, 15),
    optional_data: Span::new(1, 16, 15),
    birth_date: Span::new(2, 1, 6),
    birth_date_check: Position::new(2, 7),
    sex: Position::new(2, 8),
    expiry_date: Span::new(2, 9, 6),
    expiry_date_check: Position::new(2, 15),
    nationality: Span::new(2, 16, 3),
    optional_data_2: Some(Span::new(2, 19, 11)),
    composite: Some(Composite {
        check: Position::new(2, 30),
        covers: &[
            Span::new(1, 6, 25),
            Span::new(2, 1, 7),
            Span::new(2, 9, 7),
            Span::new(2, 19, 11),
        ],
    }),
    optional_data_check: None,
    name: Span::new(3, 1, 30),
};

/// The second line shared by TD2, TD3 and both visas up to the expiry check digit.
const fn two_line_layout(
    line_length: usize,
    optional_data_len: usize,
    optional_data_check: Option<Position>,
    composite: Option<Composite>,
) -> Layout {
    Layout {
        line_count: 2,
        line_length,
        document_code: Span::new(1, 1, 2),
        issuing_state: Span::new(1, 3, 3),
        name: Span::new(1, 6, line_length - 5),
        document_number: Span::new(2, 1, 9),
        document_number_check: Position::new(2, 10),
        nationality: Span::new(2, 11, 3),
        birth_date: Span::new(2, 14, 6),
        birth_date_check: Position::new(2, 20),
        sex: Position::new(2, 21),
        expiry_date: Span::new(2, 22, 6),
        expiry_date_check: Position::new(2, 28),
        optional_data: Span::new(2, 29, optional_data_len),
        optional_data_check,
        optional_data_2: None,
        composite,
    }
}

/// Part 6: two lines of 36, a composite check digit at the end.
const TD2: Layout = two_line_layout(
    36,
    7,
    None,
    Some(Composite {
        check: Position::new(2, 36),
        covers: &[
            Span::new(2, 1, 10),
            Span::new(2, 14, 7),
            Span::new(2, 22, 14),
        ],
    }),
);

/// Part 4: two lines of 44, a check digit over the personal number and a composite.
const TD3: Layout = two_line_layout(
    44,
    14,
    Some(Position::new(2, 43)),
    Some(Composite {
        check: Position::new(2, 44),
        covers: &[
            Span::new(2, 1, 10),
            Span::new(2, 14, 7),
            Span::new(2, 22, 22),
        ],
    }),
);

/// Part 7, format A: two lines of 44 without composite check digit.
const MRV_A: Layout = two_line_layout(44, 16, None, None);

/// Part 7, format B: two lines of 36 without composite check digit.
const MRV_B: Layout = two_line_layout(36, 8, None, None);

/// The layout of a format.
pub(crate) fn layout(format: MrzFormat) -> &'static Layout {
    match format {
        MrzFormat::Td1 => &TD1,
        MrzFormat::Td2 => &TD2,
        MrzFormat::Td3 => &TD3,
        MrzFormat::MrvA => &MRV_A,
        MrzFormat::MrvB => &MRV_B,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FORMATS: [MrzFormat; 5] = [
        MrzFormat::Td1,
        MrzFormat::Td2,
        MrzFormat::Td3,
        MrzFormat::MrvA,
        MrzFormat::MrvB,
    ];

    /// Every position of every line belongs to exactly one field.
    #[test]
    fn fields_tile_every_line() {
        for format in FORMATS {
            let layout = layout(format);
            let mut spans = vec![
                layout.document_code,
                layout.issuing_state,
                layout.name,
                layout.document_number,
                layout.nationality,
                layout.birth_date,
                layout.expiry_date,
                layout.optional_data,
            ];
            spans.extend(layout.optional_data_2);
            let mut positions: Vec<Position> = spans.iter().flat_map(|s| s.positions()).collect();
            positions.extend([
                layout.document_number_check,
                layout.birth_date_check,
                layout.sex,
                layout.expiry_date_check,
            ]);
            positions.extend(layout.optional_data_check);
            positions.extend(layout.composite.map(|c| c.check));
            positions.sort();
            let expected: Vec<Position> = (1..=layout.line_count)
                .flat_map(|line| (1..=layout.line_length).map(move |c| Position::new(line, c)))
                .collect();
            assert_eq!(positions, expected, "{format}");
        }
    }
}
