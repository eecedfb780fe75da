//! Time: the [`Timestamp`] value type and the [`Clock`] port.
//!
//! Timestamps have microsecond precision (what both databases store exactly) and are
//! written as RFC 3339 in UTC with a `Z` suffix, as AIP-142 asks.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// An instant in UTC with microsecond precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(OffsetDateTime);

impl Timestamp {
    /// The instant `micros` microseconds after the Unix epoch, if representable.
    pub fn from_unix_micros(micros: i64) -> Option<Timestamp> {
        OffsetDateTime::from_unix_timestamp_nanos(i128::from(micros) * 1_000)
            .ok()
            .map(Timestamp)
    }

    /// Microseconds since the Unix epoch, as stored in the database.
    pub fn unix_micros(self) -> i64 {
        // Every timestamp is built from an i64 count of microseconds or truncated to one.
        i64::try_from(self.0.unix_timestamp_nanos() / 1_000).unwrap_or(i64::MAX)
    }

    /// Truncates an `OffsetDateTime` to microseconds and converts it to UTC.
    pub fn from_datetime(datetime: OffsetDateTime) -> Timestamp {
        let utc = datetime.to_offset(time::UtcOffset::UTC);
        let micros = utc.unix_timestamp_nanos() / 1_000;
        let micros = i64::try_from(micros).unwrap_or(i64::MAX);
        Timestamp::from_unix_micros(micros).unwrap_or(Timestamp(utc))
    }

    /// Parses an RFC 3339 timestamp with any offset.
    ///
    /// # Errors
    /// Returns the parser's message when the text is not RFC 3339.
    pub fn parse_rfc3339(text: &str) -> Result<Timestamp, String> {
        OffsetDateTime::parse(text, &Rfc3339)
            .map(Timestamp::from_datetime)
            .map_err(|e| e.to_string())
    }

    /// The underlying date-time, in UTC.
    pub fn datetime(self) -> OffsetDateTime {
        self.0
    }

    /// The instant `duration` later (saturating at the largest representable instant).
    #[must_use]
    pub fn plus(self, duration: Duration) -> Timestamp {
        let micros = i64::try_from(duration.as_micros()).unwrap_or(i64::MAX);
        Timestamp::from_unix_micros(self.unix_micros().saturating_add(micros)).unwrap_or(self)
    }

    /// The instant `duration` earlier (saturating at the earliest representable
    /// instant).
    #[must_use]
    pub fn minus(self, duration: Duration) -> Timestamp {
        let micros = i64::try_from(duration.as_micros()).unwrap_or(i64::MAX);
        Timestamp::from_unix_micros(self.unix_micros().saturating_sub(micros)).unwrap_or(self)
    }

    /// The time from `earlier` to this instant; zero when `earlier` is not earlier.
    pub fn since(self, earlier: Timestamp) -> Duration {
        let micros = self.unix_micros().saturating_sub(earlier.unix_micros());
        Duration::from_micros(u64::try_from(micros).unwrap_or_default())
    }

    /// RFC 3339 text in UTC with `Z`, with as many fractional digits as needed.
    pub fn to_rfc3339(self) -> String {
        self.0
            .format(&Rfc3339)
            .unwrap_or_else(|_| self.unix_micros().to_string())
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_rfc3339())
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_rfc3339())
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Timestamp::parse_rfc3339(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for Timestamp {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, SchemaFormat, Type};
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)))
            .description(Some(
                "RFC 3339 timestamp in UTC, such as 2026-01-15T10:00:00Z",
            ))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for Timestamp {}

/// The source of the current time. A port so that services can be tested with a fixed
/// clock.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
pub trait Clock: Send + Sync {
    /// The current instant.
    fn now(&self) -> Timestamp;
}

/// The real clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_datetime(OffsetDateTime::now_utc())
    }
}

/// Waits for a while: the pause between the renewals of a long run's lease. A port,
/// so the domain needs no runtime of its own.
#[async_trait::async_trait]
pub trait Pause: Send + Sync {
    /// Returns after `duration`.
    async fn pause(&self, duration: Duration);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_counts_forward_and_never_below_zero() {
        let earlier = Timestamp::parse_rfc3339("2026-01-15T10:00:00Z").unwrap();
        let later = earlier.plus(Duration::from_millis(1500));
        assert_eq!(later.since(earlier), Duration::from_millis(1500));
        assert_eq!(earlier.since(later), Duration::ZERO);
    }

    #[test]
    fn formats_utc_with_z() {
        let t = Timestamp::parse_rfc3339("2026-01-15T12:00:00+02:00").unwrap();
        assert_eq!(t.to_rfc3339(), "2026-01-15T10:00:00Z");
    }

    #[test]
    fn keeps_microseconds_and_round_trips() {
        let t = Timestamp::parse_rfc3339("2026-01-15T10:00:00.123456789Z").unwrap();
        assert_eq!(t.to_rfc3339(), "2026-01-15T10:00:00.123456Z");
        assert_eq!(Timestamp::from_unix_micros(t.unix_micros()), Some(t));
    }

    #[test]
    fn rejects_non_rfc3339() {
        assert!(Timestamp::parse_rfc3339("yesterday").is_err());
        assert!(Timestamp::parse_rfc3339("2026-01-15").is_err());
    }

    #[test]
    fn plus_adds_duration() {
        let t = Timestamp::from_unix_micros(0).unwrap();
        assert_eq!(t.plus(Duration::from_secs(1)).unix_micros(), 1_000_000);
    }
}
