//! MRZ dates: six characters `YYMMDD` (Doc 9303 Part 3, 4.4) and the century rules
//! that give them a year.
//!
//! An MRZ writes two digits of the year, so the reader chooses the century:
//! - a **birth date** takes the latest century that puts it on or before `today`
//!   (`250101` read in June 2025 is 2025-01-01; read in 2024 it is 1925-01-01);
//! - an **expiry date** takes the century that puts it in the hundred years from
//!   `today` minus 50 years (included) to `today` plus 50 years (excluded), since a
//!   document read now expired at most 50 years ago or expires at most 50 years ahead.
//!
//! A birth date may have unknown parts, written `<<` (Doc 9303 Part 3: the day, the
//! month, or the whole date may be unknown); an expiry date may not.

use std::fmt;

use time::{Date, Month};

/// A date field as printed and as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MrzDate {
    /// The six characters as printed, such as `740812` or `7408<<`.
    pub printed: String,
    /// What the characters say.
    pub reading: DateReading,
}

impl MrzDate {
    /// The calendar date, when the field is complete and real.
    pub fn date(&self) -> Option<Date> {
        match self.reading {
            DateReading::Complete(date) => Some(date),
            DateReading::Partial { .. } | DateReading::Unreadable => None,
        }
    }
}

/// What a date field says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateReading {
    /// A real calendar date, its century chosen by the rules of this module.
    Complete(Date),
    /// A birth date with unknown parts (`<<`); the known parts are real.
    Partial {
        /// The year, when known.
        year: Option<i32>,
        /// The month, when known.
        month: Option<Month>,
        /// The day of the month, when known.
        day: Option<u8>,
    },
    /// Not a date: the characters are not digits, or the date does not exist. The
    /// problem is among the [`super::Mrz::problems`].
    Unreadable,
}

/// Why six digits are not a date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DateProblem {
    /// The month is not 1 to 12.
    #[error("month {0} does not exist")]
    NoSuchMonth(u8),
    /// The day is not in the month.
    #[error("day {day} does not exist in {month} {year}")]
    NoSuchDay {
        /// The day printed.
        day: u8,
        /// The month.
        month: Month,
        /// The year the century rule chose.
        year: i32,
    },
    /// The day is not in the month of a birth date whose year is unknown.
    #[error("day {day} does not exist in {month}")]
    NoSuchDayInMonth {
        /// The day printed.
        day: u8,
        /// The month.
        month: Month,
    },
    /// The day is 0 or over 31 in a birth date whose month is unknown.
    #[error("day {0} does not exist")]
    NoSuchDayOfAnyMonth(u8),
}

/// The two-digit parts of a date: `None` where the date printed `<<`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DateParts {
    pub year: Option<u8>,
    pub month: Option<u8>,
    pub day: Option<u8>,
}

/// Reads a birth date from its parts (`<<` parts already `None`).
pub(crate) fn read_birth_date(parts: DateParts, today: Date) -> Result<DateReading, DateProblem> {
    // For the century, an unknown month or day counts as the earliest one, so a date
    // that may be on or before today is placed in today's century.
    let year = parts.year.map(|yy| {
        let candidate = century_of(today.year()) + i32::from(yy);
        let month = parts.month.unwrap_or(1);
        let day = parts.day.unwrap_or(1);
        if (candidate, month, day) > (today.year(), u8::from(today.month()), today.day()) {
            candidate - 100
        } else {
            candidate
        }
    });
    let month = parts.month.map(month_of).transpose()?;
    match (year, month, parts.day) {
        (Some(year), Some(month), Some(day)) => Date::from_calendar_date(year, month, day)
            .map(DateReading::Complete)
            .map_err(|_| DateProblem::NoSuchDay { day, month, year }),
        (year, month, day) => {
            if let Some(day) = day {
                // Without the year, 29 February may be real (2000 is a leap year).
                match month {
                    Some(month) if day == 0 || day > month.length(2000) => {
                        return Err(DateProblem::NoSuchDayInMonth { day, month });
                    }
                    None if day == 0 || day > 31 => {
                        return Err(DateProblem::NoSuchDayOfAnyMonth(day));
                    }
                    _ => {}
                }
            }
            Ok(DateReading::Partial { year, month, day })
        }
    }
}

/// Reads an expiry date from its six digits.
pub(crate) fn read_expiry_date(
    year: u8,
    month: u8,
    day: u8,
    today: Date,
) -> Result<Date, DateProblem> {
    let earliest = (today.year() - 50, u8::from(today.month()), today.day());
    let mut full_year = century_of(earliest.0) + i32::from(year);
    if (full_year, month, day) < earliest {
        full_year += 100;
    }
    let month = month_of(month)?;
    Date::from_calendar_date(full_year, month, day).map_err(|_| DateProblem::NoSuchDay {
        day,
        month,
        year: full_year,
    })
}

/// The first year of the century of `year` (1900 for 1974).
fn century_of(year: i32) -> i32 {
    year - year.rem_euclid(100)
}

fn month_of(number: u8) -> Result<Month, DateProblem> {
    Month::try_from(number).map_err(|_| DateProblem::NoSuchMonth(number))
}

impl fmt::Display for MrzDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.reading {
            DateReading::Complete(date) => write!(f, "{date} ({})", self.printed),
            DateReading::Partial { .. } | DateReading::Unreadable => f.write_str(&self.printed),
        }
    }
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;

    fn full(year: u8, month: u8, day: u8) -> DateParts {
        DateParts {
            year: Some(year),
            month: Some(month),
            day: Some(day),
        }
    }

    #[test]
    fn birth_dates_take_the_latest_century_not_after_today() {
        let today = date!(2025 - 06 - 15);
        let read = |parts| read_birth_date(parts, today).unwrap();
        assert_eq!(
            read(full(74, 8, 12)),
            DateReading::Complete(date!(1974 - 08 - 12))
        );
        assert_eq!(
            read(full(25, 6, 15)),
            DateReading::Complete(date!(2025 - 06 - 15))
        );
        assert_eq!(
            read(full(25, 6, 16)),
            DateReading::Complete(date!(1925 - 06 - 16))
        );
        assert_eq!(
            read(full(0, 2, 29)),
            DateReading::Complete(date!(2000 - 02 - 29))
        );
        assert_eq!(
            read(full(99, 12, 31)),
            DateReading::Complete(date!(1999 - 12 - 31))
        );
    }

    #[test]
    fn expiry_dates_fall_within_fifty_years_of_today() {
        let today = date!(2025 - 06 - 15);
        let read = |y, m, d| read_expiry_date(y, m, d, today).unwrap();
        assert_eq!(read(12, 4, 15), date!(2012 - 04 - 15));
        assert_eq!(read(75, 6, 15), date!(1975 - 06 - 15));
        assert_eq!(read(75, 6, 14), date!(2075 - 06 - 14));
        assert_eq!(read(74, 12, 31), date!(2074 - 12 - 31));
        assert_eq!(read(99, 1, 1), date!(1999 - 01 - 01));
        assert_eq!(read(35, 1, 1), date!(2035 - 01 - 01));
    }

    #[test]
    fn impossible_dates_are_problems() {
        let today = date!(2025 - 06 - 15);
        assert_eq!(
            read_birth_date(full(74, 13, 1), today),
            Err(DateProblem::NoSuchMonth(13))
        );
        assert_eq!(
            read_expiry_date(12, 0, 1, today),
            Err(DateProblem::NoSuchMonth(0))
        );
        assert_eq!(
            read_expiry_date(23, 2, 29, today),
            Err(DateProblem::NoSuchDay {
                day: 29,
                month: Month::February,
                year: 2023
            })
        );
        assert_eq!(
            read_birth_date(full(74, 4, 31), today)
                .unwrap_err()
                .to_string(),
            "day 31 does not exist in April 1974"
        );
    }

    #[test]
    fn birth_dates_may_have_unknown_parts() {
        let today = date!(2025 - 06 - 15);
        let parts = |year, month, day| DateParts { year, month, day };
        assert_eq!(
            read_birth_date(parts(Some(74), Some(8), None), today),
            Ok(DateReading::Partial {
                year: Some(1974),
                month: Some(Month::August),
                day: None
            })
        );
        assert_eq!(
            read_birth_date(parts(Some(25), None, None), today),
            Ok(DateReading::Partial {
                year: Some(2025),
                month: None,
                day: None
            })
        );
        assert_eq!(
            read_birth_date(parts(None, Some(2), Some(29)), today),
            Ok(DateReading::Partial {
                year: None,
                month: Some(Month::February),
                day: Some(29)
            })
        );
        assert_eq!(
            read_birth_date(parts(Some(74), None, Some(32)), today),
            Err(DateProblem::NoSuchDayOfAnyMonth(32))
        );
        assert_eq!(
            read_birth_date(parts(None, None, None), today),
            Ok(DateReading::Partial {
                year: None,
                month: None,
                day: None
            })
        );
    }
}
