//! Dates of birth: exact, partial, approximate and ranges, as lists and customers write them.

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A date of birth with the precision the source gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BirthDate {
    /// A full calendar date.
    Exact {
        /// Year.
        year: i32,
        /// Month, 1 to 12.
        month: u8,
        /// Day of month, valid for the month and year.
        day: u8,
    },
    /// Year and month, day unknown.
    YearMonth {
        /// Year.
        year: i32,
        /// Month, 1 to 12.
        month: u8,
    },
    /// Year only.
    Year {
        /// Year.
        year: i32,
    },
    /// "circa YYYY": treated as the year plus or minus one.
    Circa {
        /// The approximate year.
        year: i32,
    },
    /// An inclusive range of years ("1960 to 1962", UN `BETWEEN`).
    Range {
        /// First year of the range.
        from: i32,
        /// Last year of the range.
        to: i32,
    },
}

/// Why a date of birth could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DateError {
    /// The text has no recognisable date shape.
    #[error("unrecognised date of birth {0:?}")]
    Unrecognised(String),
    /// The shape is right but the date does not exist (for example 31 Feb 1970).
    #[error("impossible date of birth {0:?}")]
    Impossible(String),
}

/// Years accepted as birth years; anything else is a typo or a placeholder.
const MIN_YEAR: i32 = 1800;
const MAX_YEAR: i32 = 2100;

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

fn is_leap(year: i32) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i32, month: u8) -> u8 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn month_from_name(text: &str) -> Option<u8> {
    let lower = text.trim_end_matches('.').to_ascii_lowercase();
    if lower.len() < 3 {
        return None;
    }
    MONTHS
        .iter()
        .position(|m| lower.starts_with(m))
        .and_then(|i| u8::try_from(i + 1).ok())
}

fn parse_year(text: &str) -> Option<i32> {
    if text.len() != 4 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse()
        .ok()
        .filter(|y| (MIN_YEAR..=MAX_YEAR).contains(y))
}

fn parse_small(text: &str) -> Option<u8> {
    if text.is_empty() || text.len() > 2 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

impl BirthDate {
    /// Builds an exact date, checking that it exists.
    pub fn exact(year: i32, month: u8, day: u8) -> Option<Self> {
        ((MIN_YEAR..=MAX_YEAR).contains(&year)
            && (1..=12).contains(&month)
            && day >= 1
            && day <= days_in_month(year, month))
        .then_some(Self::Exact { year, month, day })
    }

    /// Parses the shapes found in lists and customer files: `YYYY-MM-DD`, `YYYY-MM`, `YYYY`,
    /// `DD Mon YYYY`, `Mon YYYY`, `DD.MM.YYYY`, `circa ...`, `approximately ...`, ranges
    /// `A to B` and `YYYY-YYYY`. Ranges of full or month dates keep their years only.
    pub fn parse(text: &str) -> Result<Self, DateError> {
        let trimmed = text.trim().trim_end_matches('.').trim();
        let lower = trimmed.to_ascii_lowercase();
        for prefix in ["circa", "approximately", "approx.", "approx", "ca.", "c."] {
            if let Some(rest) = lower.strip_prefix(prefix) {
                let inner = Self::parse(rest)?;
                return Ok(match inner {
                    Self::Range { .. } => inner,
                    other => {
                        let (from, to) = other.year_span();
                        if from == to {
                            Self::Circa { year: from }
                        } else {
                            Self::Range { from, to }
                        }
                    }
                });
            }
        }
        if let Some((a, b)) = lower.split_once(" to ") {
            return Self::range_of(Self::parse(a)?, Self::parse(b)?, text);
        }
        if let Some((a, b)) = lower.split_once('-')
            && parse_year(a.trim()).is_some()
            && parse_year(b.trim()).is_some()
        {
            return Self::range_of(Self::parse(a)?, Self::parse(b)?, text);
        }
        Self::parse_single(trimmed).ok_or_else(|| Self::classify_failure(trimmed))
    }

    fn range_of(a: Self, b: Self, text: &str) -> Result<Self, DateError> {
        let (from, _) = a.year_span();
        let (_, to) = b.year_span();
        if from > to {
            return Err(DateError::Impossible(text.to_string()));
        }
        Ok(if from == to {
            Self::Year { year: from }
        } else {
            Self::Range { from, to }
        })
    }

    fn classify_failure(text: &str) -> DateError {
        let digits_shape = text
            .split(['-', ' ', '.', '/'])
            .filter(|p| !p.is_empty())
            .count();
        if digits_shape == 3 && text.bytes().any(|b| b.is_ascii_digit()) {
            DateError::Impossible(text.to_string())
        } else {
            DateError::Unrecognised(text.to_string())
        }
    }

    fn parse_single(text: &str) -> Option<Self> {
        if let Some(year) = parse_year(text) {
            return Some(Self::Year { year });
        }
        let dashed: Vec<&str> = text.split('-').collect();
        if dashed.len() >= 2 && parse_year(dashed[0]).is_some() {
            let year = parse_year(dashed[0])?;
            let month = parse_small(dashed[1]).filter(|m| (1..=12).contains(m))?;
            return match dashed.len() {
                2 => Some(Self::YearMonth { year, month }),
                3 => Self::exact(year, month, parse_small(dashed[2])?),
                _ => None,
            };
        }
        let dotted: Vec<&str> = text.split(['.', '/']).collect();
        if dotted.len() == 3 {
            let year = parse_year(dotted[2])?;
            return Self::exact(year, parse_small(dotted[1])?, parse_small(dotted[0])?);
        }
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            [day, month, year] => Self::exact(
                parse_year(year)?,
                month_from_name(month)?,
                parse_small(day.trim_end_matches('.'))?,
            ),
            [month, year] => {
                let year = parse_year(year)?;
                Some(Self::YearMonth {
                    year,
                    month: month_from_name(month)?,
                })
            }
            _ => None,
        }
    }

    /// The inclusive range of years this date may fall in (circa widens by one year each way).
    pub fn year_span(&self) -> (i32, i32) {
        match *self {
            Self::Exact { year, .. } | Self::YearMonth { year, .. } | Self::Year { year } => {
                (year, year)
            }
            Self::Circa { year } => (year - 1, year + 1),
            Self::Range { from, to } => (from, to),
        }
    }
}

impl fmt::Display for BirthDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Exact { year, month, day } => write!(f, "{year:04}-{month:02}-{day:02}"),
            Self::YearMonth { year, month } => write!(f, "{year:04}-{month:02}"),
            Self::Year { year } => write!(f, "{year:04}"),
            Self::Circa { year } => write!(f, "circa {year:04}"),
            Self::Range { from, to } => write!(f, "{from:04} to {to:04}"),
        }
    }
}

/// How a screened date of birth compares with a listed one, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DobAgreement {
    /// Both full dates and equal.
    SameDay,
    /// Both full dates, day and month swapped (a common keying error).
    DayMonthSwapped,
    /// Same year and month, at least one side without a day.
    SameMonth,
    /// Same year, at least one side without a month.
    SameYear,
    /// The screened year falls inside the listed range or circa year.
    WithinRange,
    /// Same year but both full dates differ: weak evidence either way.
    SameYearOtherDay,
    /// One year apart (or one year outside a range): probably different.
    OneYearApart,
    /// Two or more years apart: a different person.
    Different,
}

/// Compares one screened date with one listed date.
pub fn compare_dates(query: &BirthDate, listed: &BirthDate) -> DobAgreement {
    use BirthDate::{Exact, YearMonth};
    match (query, listed) {
        (
            Exact {
                year: y1,
                month: m1,
                day: d1,
            },
            Exact {
                year: y2,
                month: m2,
                day: d2,
            },
        ) if y1 == y2 => {
            if m1 == m2 && d1 == d2 {
                DobAgreement::SameDay
            } else if m1 == d2 && d1 == m2 {
                DobAgreement::DayMonthSwapped
            } else {
                DobAgreement::SameYearOtherDay
            }
        }
        (
            Exact {
                year: y1,
                month: m1,
                ..
            }
            | YearMonth {
                year: y1,
                month: m1,
            },
            Exact {
                year: y2,
                month: m2,
                ..
            }
            | YearMonth {
                year: y2,
                month: m2,
            },
        ) if y1 == y2 => {
            if m1 == m2 {
                DobAgreement::SameMonth
            } else {
                DobAgreement::SameYearOtherDay
            }
        }
        _ => {
            let (q_lo, q_hi) = query.year_span();
            let (l_lo, l_hi) = listed.year_span();
            let exactish = |d: &BirthDate| {
                matches!(
                    d,
                    BirthDate::Exact { .. } | BirthDate::YearMonth { .. } | BirthDate::Year { .. }
                )
            };
            if q_lo <= l_hi && l_lo <= q_hi {
                if exactish(query) && exactish(listed) {
                    DobAgreement::SameYear
                } else {
                    DobAgreement::WithinRange
                }
            } else {
                let gap = if q_hi < l_lo {
                    l_lo - q_hi
                } else {
                    q_lo - l_hi
                };
                if gap <= 1 {
                    DobAgreement::OneYearApart
                } else {
                    DobAgreement::Different
                }
            }
        }
    }
}

/// The best agreement between a screened date and any of a record's listed dates, with the
/// listed date that gave it. `None` when either side has no date: a missing date is unknown,
/// never a mismatch.
pub fn best_agreement(
    query: &BirthDate,
    listed: &[BirthDate],
) -> Option<(DobAgreement, BirthDate)> {
    listed
        .iter()
        .map(|l| (compare_dates(query, l), *l))
        .min_by_key(|(a, _)| *a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_list_shapes() {
        assert_eq!(
            BirthDate::parse("19 Jun 1951"),
            Ok(BirthDate::Exact {
                year: 1951,
                month: 6,
                day: 19
            })
        );
        assert_eq!(
            BirthDate::parse("Sep 1938"),
            Ok(BirthDate::YearMonth {
                year: 1938,
                month: 9
            })
        );
        assert_eq!(BirthDate::parse("1946"), Ok(BirthDate::Year { year: 1946 }));
        assert_eq!(
            BirthDate::parse("circa 1951"),
            Ok(BirthDate::Circa { year: 1951 })
        );
        assert_eq!(
            BirthDate::parse("1951 to 1953"),
            Ok(BirthDate::Range {
                from: 1951,
                to: 1953
            })
        );
        assert_eq!(
            BirthDate::parse("01 Jan 1961 to 31 Dec 1962"),
            Ok(BirthDate::Range {
                from: 1961,
                to: 1962
            })
        );
        assert_eq!(
            BirthDate::parse("circa 1979-1982"),
            Ok(BirthDate::Range {
                from: 1979,
                to: 1982
            })
        );
        assert_eq!(
            BirthDate::parse("circa 07 Jul 1966"),
            Ok(BirthDate::Circa { year: 1966 })
        );
        assert_eq!(
            BirthDate::parse("1978-04-28"),
            Ok(BirthDate::Exact {
                year: 1978,
                month: 4,
                day: 28
            })
        );
        assert_eq!(
            BirthDate::parse("11 Apr. 1963"),
            Ok(BirthDate::Exact {
                year: 1963,
                month: 4,
                day: 11
            })
        );
    }

    #[test]
    fn rejects_impossible_and_garbage() {
        assert!(matches!(
            BirthDate::parse("31 Feb 1970"),
            Err(DateError::Impossible(_))
        ));
        assert!(matches!(
            BirthDate::parse("1970-02-30"),
            Err(DateError::Impossible(_))
        ));
        assert!(matches!(
            BirthDate::parse("yesterday"),
            Err(DateError::Unrecognised(_))
        ));
        assert!(BirthDate::parse("").is_err());
        assert!(BirthDate::parse("29 Feb 2000").is_ok());
        assert!(BirthDate::parse("29 Feb 1900").is_err());
        assert!(BirthDate::parse("1962 to 1960").is_err());
    }

    #[test]
    fn compares_with_partial_and_ranges() {
        let exact = BirthDate::parse("1970-03-05").unwrap_or(BirthDate::Year { year: 0 });
        let swapped = BirthDate::parse("1970-05-03").unwrap_or(BirthDate::Year { year: 0 });
        assert_eq!(compare_dates(&exact, &exact), DobAgreement::SameDay);
        assert_eq!(
            compare_dates(&exact, &swapped),
            DobAgreement::DayMonthSwapped
        );
        assert_eq!(
            compare_dates(&exact, &BirthDate::Year { year: 1970 }),
            DobAgreement::SameYear
        );
        assert_eq!(
            compare_dates(
                &exact,
                &BirthDate::Range {
                    from: 1968,
                    to: 1971
                }
            ),
            DobAgreement::WithinRange
        );
        assert_eq!(
            compare_dates(&exact, &BirthDate::Circa { year: 1971 }),
            DobAgreement::WithinRange
        );
        assert_eq!(
            compare_dates(&exact, &BirthDate::Year { year: 1971 }),
            DobAgreement::OneYearApart
        );
        assert_eq!(
            compare_dates(&exact, &BirthDate::Year { year: 1980 }),
            DobAgreement::Different
        );
        let best = best_agreement(
            &exact,
            &[
                BirthDate::Year { year: 1990 },
                BirthDate::Year { year: 1970 },
            ],
        );
        assert_eq!(best.map(|b| b.0), Some(DobAgreement::SameYear));
        assert_eq!(best_agreement(&exact, &[]), None);
    }
}
