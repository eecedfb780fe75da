//! Validated value types shared by resources: country codes and partial dates.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use time::{Date, Month};

/// An ISO 3166-1 alpha-2 country code (`FR`). Input is accepted in any case and stored
/// in upper case; codes that ISO does not assign are refused.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CountryCode(String);

impl CountryCode {
    /// Parses an alpha-2 code.
    ///
    /// # Errors
    /// A description of the problem when the code is not an assigned alpha-2 code.
    pub fn parse(text: &str) -> Result<CountryCode, String> {
        let upper = text.trim().to_ascii_uppercase();
        if upper.len() != 2 || !upper.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(format!(
                "'{text}' is not an ISO 3166-1 alpha-2 country code (two letters, such as FR)"
            ));
        }
        if celes::Country::from_alpha2(&upper).is_err() {
            return Err(format!(
                "'{text}' is not an assigned ISO 3166-1 alpha-2 country code"
            ));
        }
        Ok(CountryCode(upper))
    }

    /// The code.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for CountryCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for CountryCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for CountryCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        CountryCode::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// Every assigned alpha-2 code, in upper case as the API answers them; input in other
/// cases is read too.
#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for CountryCode {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        let codes = celes::Country::get_countries()
            .iter()
            .map(|country| country.alpha2)
            .collect();
        code_list_schema(
            codes,
            "An assigned ISO 3166-1 alpha-2 country code, such as FR.",
        )
    }
}

/// A string schema whose values are `codes`, sorted, each once: the schema of a code
/// type that reads only listed codes.
#[cfg(feature = "openapi")]
pub(crate) fn code_list_schema(
    mut codes: Vec<&'static str>,
    description: &str,
) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    codes.sort_unstable();
    codes.dedup();
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(codes))
        .description(Some(description))
        .into()
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for CountryCode {}

/// The pattern of a year 0001 to 9999.
macro_rules! year_pattern {
    () => {
        "([0-9]{3}[1-9]|[0-9]{2}[1-9][0-9]|[0-9][1-9][0-9]{2}|[1-9][0-9]{3})"
    };
}

/// The pattern of a month and a day that exist in every year.
macro_rules! month_day_pattern {
    () => {
        "((0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])|(0[13-9]|1[0-2])-(29|30)|(0[13578]|1[02])-31)"
    };
}

/// The pattern of 29 February of a leap year.
macro_rules! leap_day_pattern {
    () => {
        "([0-9]{2}(0[48]|[2468][048]|[13579][26])|([02468][048]|[13579][26])00)-02-29"
    };
}

/// A full date that exists, `YYYY-MM-DD`, year 0001 to 9999, as an ECMA-262 regular
/// expression for JSON Schema.
pub const FULL_DATE_PATTERN: &str = concat!(
    "^(",
    year_pattern!(),
    "-",
    month_day_pattern!(),
    "|",
    leap_day_pattern!(),
    ")$"
);

/// An email address as the API states it for clients: one to three dot-separated
/// atoms of letters, digits, `_`, `+` and `-` (so the local part stays within 64
/// characters), then a domain of at least two labels. What the `email_address` crate
/// reads is wider; this is the part every client can check alike.
pub const EMAIL_PATTERN: &str = "^[A-Za-z0-9_+-]{1,16}(\\.[A-Za-z0-9_+-]{1,16}){0,2}@[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$";

/// A phone number: a leading `+`, then 6 to 15 digits among spaces, hyphens, dots and
/// parentheses.
pub const PHONE_PATTERN: &str = "^\\+?[ .()-]*([0-9][ .()-]*){6,15}$";

/// What [`PartialDate::parse`] accepts, as an ECMA-262 regular expression for JSON
/// Schema.
pub const PARTIAL_DATE_PATTERN: &str = concat!(
    "^(",
    year_pattern!(),
    "(-(0[1-9]|1[0-2]))?|",
    year_pattern!(),
    "-",
    month_day_pattern!(),
    "|",
    leap_day_pattern!(),
    ")$"
);

/// `YYYY-MM-DD`, `YYYY-MM` or `YYYY`: [`PARTIAL_DATE_PATTERN`].
#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for PartialDate {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some(PARTIAL_DATE_PATTERN))
            .description(Some(
                "A date that may be partial: YYYY-MM-DD, YYYY-MM or YYYY, such as 1970-01-31.",
            ))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for PartialDate {}

/// A calendar date that may be partial: `YYYY-MM-DD`, `YYYY-MM` or `YYYY`, as dates of
/// birth often are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PartialDate {
    /// The year (1 to 9999).
    pub year: i32,
    /// The month (1 to 12), when known.
    pub month: Option<u8>,
    /// The day of the month, when known (only with a month).
    pub day: Option<u8>,
}

impl PartialDate {
    /// Parses `YYYY-MM-DD`, `YYYY-MM` or `YYYY`; the day must exist in its month.
    ///
    /// # Errors
    /// A description of the problem when the text is not such a date.
    pub fn parse(text: &str) -> Result<PartialDate, String> {
        let shape = "must be YYYY-MM-DD, YYYY-MM or YYYY";
        let parts: Vec<&str> = text.split('-').collect();
        let number = |part: &str, len: usize| -> Result<u32, String> {
            if part.len() != len || !part.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("'{text}' {shape}"));
            }
            part.parse::<u32>().map_err(|_| format!("'{text}' {shape}"))
        };
        let year = i32::try_from(number(parts[0], 4)?).map_err(|_| format!("'{text}' {shape}"))?;
        if year == 0 {
            return Err(format!("'{text}' has year 0000"));
        }
        let month = match parts.get(1) {
            Some(part) => {
                let m = number(part, 2)?;
                let m = u8::try_from(m).map_err(|_| format!("'{text}' has no month {m}"))?;
                Month::try_from(m).map_err(|_| format!("'{text}' has no month {m}"))?;
                Some(m)
            }
            None => None,
        };
        let day = match parts.get(2) {
            Some(part) => {
                let d = number(part, 2)?;
                let d = u8::try_from(d).map_err(|_| format!("'{text}' is not a real date"))?;
                Some(d)
            }
            None => None,
        };
        if parts.len() > 3 {
            return Err(format!("'{text}' {shape}"));
        }
        if let (Some(m), Some(d)) = (month, day) {
            let month = Month::try_from(m).map_err(|_| format!("'{text}' is not a real date"))?;
            Date::from_calendar_date(year, month, d)
                .map_err(|_| format!("'{text}' is not a real date"))?;
        }
        Ok(PartialDate { year, month, day })
    }

    /// The earliest full date this partial date can stand for.
    pub fn earliest(&self) -> Option<Date> {
        let month = Month::try_from(self.month.unwrap_or(1)).ok()?;
        Date::from_calendar_date(self.year, month, self.day.unwrap_or(1)).ok()
    }
}

impl fmt::Display for PartialDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}", self.year)?;
        if let Some(m) = self.month {
            write!(f, "-{m:02}")?;
        }
        if let Some(d) = self.day {
            write!(f, "-{d:02}")?;
        }
        Ok(())
    }
}

impl Serialize for PartialDate {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for PartialDate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        PartialDate::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_date_patterns_state_the_parser() {
        let samples = [
            "2024-02-29",
            "2023-02-29",
            "1900-02-29",
            "2000-02-29",
            "2021-04-30",
            "2021-04-31",
            "2021-12-31",
            "2021-02-28",
            "2021-00-10",
            "2021-13",
            "2021-12",
            "2021",
            "0000",
            "0001-01-01",
            "2021-1",
            "2021-01-1",
            "12345",
            "2021-01-01-01",
            "",
        ];
        for sample in samples {
            let fits = |pattern: &str| {
                jsonschema::is_valid(
                    &serde_json::json!({ "type": "string", "pattern": pattern }),
                    &serde_json::json!(sample),
                )
            };
            let parsed = PartialDate::parse(sample);
            assert_eq!(fits(PARTIAL_DATE_PATTERN), parsed.is_ok(), "{sample:?}");
            assert_eq!(
                fits(FULL_DATE_PATTERN),
                parsed.is_ok_and(|date| date.day.is_some()),
                "{sample:?}"
            );
        }
    }

    #[test]
    fn country_codes_are_normalised_and_checked() {
        assert_eq!(CountryCode::parse("fr").unwrap().as_str(), "FR");
        assert!(CountryCode::parse("XX").is_err());
        assert!(CountryCode::parse("FRA").is_err());
        assert!(CountryCode::parse("F1").is_err());
    }

    #[test]
    fn partial_dates_parse_and_print() {
        for text in ["1970-02-28", "1970-02", "1970", "2000-02-29"] {
            assert_eq!(PartialDate::parse(text).unwrap().to_string(), text);
        }
    }

    #[test]
    fn impossible_dates_are_refused() {
        for text in [
            "1970-02-31",
            "1970-13",
            "1970-00",
            "1900-02-29",
            "70",
            "1970-2-3",
            "",
            "0000",
            "1970-01-01-01",
            "1970/01/01",
        ] {
            assert!(
                PartialDate::parse(text).is_err(),
                "{text} should be refused"
            );
        }
    }
}
