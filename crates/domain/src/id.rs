//! Identifiers: the [`IdGenerator`] port and the validation of user-chosen ids.

use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::error::{Error, Result};

/// A request id (an RFC 9562 version 8 UUID) derived from `id` and `purpose`: the same
/// on every attempt, so a step retried after a crash makes its change once.
pub fn derived_request_id(id: &str, purpose: &str) -> String {
    let digest = Sha256::digest(format!("{id}/{purpose}").as_bytes());
    let mut bytes = [0_u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_custom_bytes(bytes)
        .into_uuid()
        .to_string()
}

/// Generates server-assigned identifiers. A port so that tests get predictable ids.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
pub trait IdGenerator: Send + Sync {
    /// A new resource id: a lower-case UUID v7, so ids sort by creation time.
    fn resource_id(&self) -> String;
    /// A new `uid`: a random UUID v4 (AIP-148).
    fn uid(&self) -> String;
    /// A new secret: 32 random bytes from the operating system, base64url without
    /// padding (client secrets, authorization codes, refresh tokens).
    ///
    /// # Errors
    /// INTERNAL when the operating system has no randomness to give.
    fn secret(&self) -> crate::Result<String>;
}

/// The production id generator.
#[derive(Debug, Default, Clone, Copy)]
pub struct UuidGenerator;

impl IdGenerator for UuidGenerator {
    fn resource_id(&self) -> String {
        Uuid::now_v7().to_string()
    }

    fn uid(&self) -> String {
        Uuid::new_v4().to_string()
    }

    fn secret(&self) -> crate::Result<String> {
        use base64::Engine;
        let mut bytes = [0_u8; 32];
        getrandom::fill(&mut bytes)
            .map_err(|e| crate::Error::internal(format!("no randomness: {e}")))?;
        Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
    }
}

/// Checks a user-chosen id given in the query parameter `parameter` (`entityId`, ...):
/// 4 to 63 characters of `[a-z0-9-]`, starting with a letter, not ending with `-`.
///
/// # Errors
/// INVALID_ARGUMENT with a field violation on `parameter`.
pub fn validate_user_id(parameter: &str, id: &str) -> Result<()> {
    rics_aip::resource_id::validate_user_id(id)
        .map_err(|e| Error::invalid_field(parameter, "INVALID_RESOURCE_ID", e.to_string()))
}

/// Checks an `activityLogTypeId` or `activityLogId` (`parameter`) by the spec's rule:
/// 4 to 63 characters of `[a-z0-9-]` in any order (`2024-kyc`), but not a UUID, the
/// shape of the ids the server assigns.
///
/// # Errors
/// INVALID_ARGUMENT `INVALID_RESOURCE_ID` with a field violation on `parameter`.
pub fn validate_spec_id(parameter: &str, id: &str) -> Result<()> {
    rics_aip::resource_id::validate_spec_id(id)
        .map_err(|e| Error::invalid_field(parameter, "INVALID_RESOURCE_ID", e.to_string()))
}

/// Checks a request id (AIP-155): a UUID of RFC 9562 (its variant, a version 1 to 8)
/// in the hyphenated text form, as [`REQUEST_ID_PATTERN`] states it. So the nil and max
/// UUIDs, and the braced, URN and unhyphenated forms, are refused.
///
/// # Errors
/// INVALID_ARGUMENT with a field violation on `requestId`.
pub fn parse_request_id(raw: &str) -> Result<Uuid> {
    Uuid::try_parse(raw)
        .ok()
        .filter(|id| {
            raw.len() == 36
                && id.get_variant() == uuid::Variant::RFC4122
                && (1..=8).contains(&id.get_version_num())
        })
        .ok_or_else(|| {
            Error::invalid_field(
                "requestId",
                "INVALID_REQUEST_ID",
                "must be a hyphenated RFC 9562 UUID (version 1 to 8) such as 0192a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
            )
        })
}

/// The rule of [`is_well_formed_id`] as an ECMA-262 regular expression, for JSON Schema.
pub const WELL_FORMED_ID_PATTERN: &str = "^[a-z0-9-]{1,63}$";

/// The rule of [`parse_request_id`] as an ECMA-262 regular expression, for JSON Schema.
pub const REQUEST_ID_PATTERN: &str =
    "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$";

/// Whether `id` could name a stored resource: the characters a user-chosen id or a
/// UUID may contain. Used to answer malformed names with INVALID_ARGUMENT, not
/// NOT_FOUND.
pub fn is_well_formed_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 63
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_ids_are_well_formed() {
        let ids = UuidGenerator;
        assert!(is_well_formed_id(&ids.resource_id()));
        assert_ne!(ids.uid(), ids.uid());
    }

    #[test]
    fn request_ids_must_be_non_nil_uuids() {
        assert!(parse_request_id("123e4567-e89b-12d3-a456-426614174000").is_ok());
        assert!(parse_request_id("00000000-0000-0000-0000-000000000000").is_err());
        assert!(parse_request_id("abc").is_err());
    }

    #[test]
    fn malformed_ids_are_detected() {
        assert!(!is_well_formed_id("UPPER_CASE!"));
        assert!(!is_well_formed_id(""));
        assert!(is_well_formed_id("abc-1"));
    }

    /// Whether `text` matches `pattern` as a JSON Schema validator reads it.
    fn fits(pattern: &str, text: &str) -> bool {
        jsonschema::is_valid(
            &serde_json::json!({ "type": "string", "pattern": pattern }),
            &serde_json::json!(text),
        )
    }

    #[test]
    fn the_patterns_state_the_id_rules() {
        let samples = [
            "",
            "a",
            "abc",
            "abcd",
            "jane-doe",
            "a-b-",
            "-abc",
            "4abc",
            "ab_c",
            "ABCD",
            "abc d",
            "0192a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
            &"a".repeat(63),
            &"a".repeat(64),
            "ñame",
        ];
        for sample in samples {
            assert_eq!(
                fits(WELL_FORMED_ID_PATTERN, sample),
                is_well_formed_id(sample),
                "{sample:?}"
            );
            assert_eq!(
                fits(rics_aip::resource_id::USER_ID_PATTERN, sample),
                rics_aip::resource_id::validate_user_id(sample).is_ok(),
                "{sample:?}"
            );
        }
        assert!(fits(
            REQUEST_ID_PATTERN,
            "0192a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
        ));
        assert!(!fits(
            REQUEST_ID_PATTERN,
            "0192a1b2c3d47e5f8a9b0c1d2e3f4a5b-"
        ));
    }
}
