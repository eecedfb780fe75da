//! AIP-122 user-chosen resource ids and resource-name patterns.
//!
//! # User-chosen ids
//!
//! A `{resource}Id` query parameter on Create must be 4 to 63 characters
//! of `[a-z0-9-]`, start with a letter and not end with a hyphen (R-122.3, narrowed by
//! design.md §3: at least 4 characters). So `:` and `/` are never part of an id
//! and UUID-shaped ids starting with a digit are refused; server-generated
//! ids are not checked here.
//!
//! Activity log types and activity logs take the spec's wider rule instead
//! ([`validate_spec_id`]): 4 to 63 characters of `[a-z0-9-]` in any order, so
//! `2024-kyc` is an id, but not one that reads as a UUID, the shape of a
//! server-assigned id, so that a chosen id never collides with a generated one.
//!
//! # Resource names
//!
//! [`parse_name`] matches a name such as `entities/a/notes/b` against a pattern such
//! as `entities/{entity}/notes/{note}` and returns the ids. Literal segments must be
//! equal; each variable matches one non-empty segment. Names have no leading or
//! trailing slash; full names (`//service/...`) are not accepted.

/// The shortest user-chosen id.
pub const MIN_ID_LENGTH: usize = 4;
/// The longest user-chosen id.
pub const MAX_ID_LENGTH: usize = 63;

/// The rule of [`validate_user_id`] as an ECMA-262 regular expression, for JSON Schema.
pub const USER_ID_PATTERN: &str = "^[a-z][a-z0-9-]{2,61}[a-z0-9]$";

/// Why a user-chosen id was refused (400 INVALID_ARGUMENT on the `{resource}Id`
/// parameter).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResourceIdError {
    /// Fewer than [`MIN_ID_LENGTH`] characters.
    #[error("the id must be at least {MIN_ID_LENGTH} characters long, got {length}")]
    TooShort {
        /// Length in characters.
        length: usize,
    },
    /// More than [`MAX_ID_LENGTH`] characters.
    #[error("the id must be at most {MAX_ID_LENGTH} characters long, got {length}")]
    TooLong {
        /// Length in characters.
        length: usize,
    },
    /// A character outside `[a-z0-9-]`.
    #[error(
        "the id may only contain lower-case letters, digits and '-'; found {character:?} at index {index}"
    )]
    InvalidCharacter {
        /// The character.
        character: char,
        /// Its 0-based index in characters.
        index: usize,
    },
    /// The first character is a digit or a hyphen.
    #[error("the id must start with a lower-case letter, not {character:?}")]
    MustStartWithLetter {
        /// The first character.
        character: char,
    },
    /// The last character is a hyphen.
    #[error("the id must not end with '-'")]
    TrailingHyphen,
    /// The id reads as a UUID, which only the server assigns.
    #[error("the id must not be a UUID: those are the ids the server assigns")]
    UuidShaped,
}

impl ResourceIdError {
    /// The `ErrorInfo.reason`; the variant's message describes the details.
    pub fn reason(&self) -> &'static str {
        "INVALID_RESOURCE_ID"
    }
}

/// Checks a user-chosen id; see the [module docs](self).
///
/// # Errors
///
/// The first problem found, checking length, then characters, then the first and
/// last character.
pub fn validate_user_id(id: &str) -> Result<(), ResourceIdError> {
    check_length_and_characters(id)?;
    match id.chars().next() {
        Some(character) if !character.is_ascii_lowercase() => {
            return Err(ResourceIdError::MustStartWithLetter { character });
        }
        _ => {}
    }
    if id.ends_with('-') {
        return Err(ResourceIdError::TrailingHyphen);
    }
    Ok(())
}

/// Checks an id by the spec's rule for `activityLogTypeId` and `activityLogId`; see
/// the [module docs](self).
///
/// # Errors
///
/// The first problem found, checking length, then characters, then the UUID shape.
pub fn validate_spec_id(id: &str) -> Result<(), ResourceIdError> {
    check_length_and_characters(id)?;
    if is_uuid_shaped(id) {
        return Err(ResourceIdError::UuidShaped);
    }
    Ok(())
}

/// Whether `id` (already known to be `[a-z0-9-]`) is a UUID in a text form the
/// `uuid` crate parses: 32 hex digits, either bare or hyphenated 8-4-4-4-12.
fn is_uuid_shaped(id: &str) -> bool {
    let groups: Vec<&str> = id.split('-').collect();
    let lengths: Vec<usize> = groups.iter().map(|group| group.len()).collect();
    let hex = groups
        .iter()
        .all(|group| group.bytes().all(|b| b.is_ascii_hexdigit()));
    hex && (lengths == [32] || lengths == [8, 4, 4, 4, 12])
}

/// The length and character checks both id rules share.
fn check_length_and_characters(id: &str) -> Result<(), ResourceIdError> {
    let length = id.chars().count();
    if length < MIN_ID_LENGTH {
        return Err(ResourceIdError::TooShort { length });
    }
    if length > MAX_ID_LENGTH {
        return Err(ResourceIdError::TooLong { length });
    }
    if let Some((index, character)) = id
        .chars()
        .enumerate()
        .find(|(_, c)| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
    {
        return Err(ResourceIdError::InvalidCharacter { character, index });
    }
    Ok(())
}

/// Why a resource name did not match its pattern.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResourceNameError {
    /// The pattern itself is malformed (a programming error).
    #[error("invalid resource name pattern '{pattern}'")]
    InvalidPattern {
        /// The pattern.
        pattern: String,
    },
    /// The name does not have the pattern's shape.
    #[error("'{name}' is not a valid resource name; expected the form {pattern}")]
    Mismatch {
        /// The name given.
        name: String,
        /// The expected pattern.
        pattern: String,
    },
}

impl ResourceNameError {
    /// The `ErrorInfo.reason`.
    pub fn reason(&self) -> &'static str {
        match self {
            Self::InvalidPattern { .. } => "INVALID_RESOURCE_NAME_PATTERN",
            Self::Mismatch { .. } => "INVALID_RESOURCE_NAME",
        }
    }
}

/// Matches `name` against `pattern` (`entities/{entity}/notes/{note}`) and returns the
/// values of the variables in order.
///
/// # Errors
///
/// [`ResourceNameError::Mismatch`] when the name does not fit,
/// [`ResourceNameError::InvalidPattern`] when the pattern has an empty segment or a
/// malformed `{variable}`.
pub fn parse_name<'n>(pattern: &str, name: &'n str) -> Result<Vec<&'n str>, ResourceNameError> {
    let mismatch = || ResourceNameError::Mismatch {
        name: name.to_owned(),
        pattern: pattern.to_owned(),
    };
    let pattern_segments: Vec<&str> = pattern.split('/').collect();
    let name_segments: Vec<&'n str> = name.split('/').collect();
    let mut ids = Vec::new();
    let mut fits = pattern_segments.len() == name_segments.len();
    for (i, expected) in pattern_segments.iter().enumerate() {
        let variable = expected
            .strip_prefix('{')
            .and_then(|rest| rest.strip_suffix('}'));
        let valid = match variable {
            Some(var) => !var.is_empty() && !var.contains(['{', '}']),
            None => !expected.is_empty() && !expected.contains(['{', '}']),
        };
        if !valid {
            return Err(ResourceNameError::InvalidPattern {
                pattern: pattern.to_owned(),
            });
        }
        let Some(actual) = name_segments.get(i).filter(|_| fits) else {
            continue;
        };
        match variable {
            Some(_) if !actual.is_empty() => ids.push(*actual),
            None if actual == expected => {}
            _ => fits = false,
        }
    }
    if fits { Ok(ids) } else { Err(mismatch()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_user_ids() {
        let max = format!("a{}", "b".repeat(MAX_ID_LENGTH - 1));
        for id in [
            "abcd",
            "a-b-c",
            "abc1",
            "a123",
            "my-entity-42",
            "a--b",
            max.as_str(),
        ] {
            assert_eq!(validate_user_id(id), Ok(()), "{id}");
        }
    }

    #[test]
    fn invalid_user_ids() {
        use ResourceIdError as E;
        let too_long = format!("a{}", "b".repeat(MAX_ID_LENGTH));
        let cases = [
            ("", E::TooShort { length: 0 }),
            ("abc", E::TooShort { length: 3 }),
            ("é", E::TooShort { length: 1 }),
            (too_long.as_str(), E::TooLong { length: 64 }),
            (
                "Bad_ID",
                E::InvalidCharacter {
                    character: 'B',
                    index: 0,
                },
            ),
            (
                "bad_id",
                E::InvalidCharacter {
                    character: '_',
                    index: 3,
                },
            ),
            (
                "abcD",
                E::InvalidCharacter {
                    character: 'D',
                    index: 3,
                },
            ),
            (
                "ab:cd",
                E::InvalidCharacter {
                    character: ':',
                    index: 2,
                },
            ),
            (
                "ab/cd",
                E::InvalidCharacter {
                    character: '/',
                    index: 2,
                },
            ),
            (
                "ab cd",
                E::InvalidCharacter {
                    character: ' ',
                    index: 2,
                },
            ),
            (
                "abcé",
                E::InvalidCharacter {
                    character: 'é',
                    index: 3,
                },
            ),
            ("1abc", E::MustStartWithLetter { character: '1' }),
            ("-abc", E::MustStartWithLetter { character: '-' }),
            (
                "0190f4c2-7b3a-7d1e-9c2f-3a4b5c6d7e8f",
                E::MustStartWithLetter { character: '0' },
            ),
            ("abc-", E::TrailingHyphen),
        ];
        for (id, want) in cases {
            let err = validate_user_id(id).unwrap_err();
            assert_eq!(err, want, "{id:?}");
            assert_eq!(err.reason(), "INVALID_RESOURCE_ID");
            assert!(!err.to_string().is_empty());
        }
    }

    #[test]
    fn spec_ids_allow_any_order_but_not_uuids() {
        for id in [
            "2024-kyc",
            "kyc-",
            "----",
            "0000",
            "-abc",
            "abcd",
            "0190f4c2-7b3a",
        ] {
            assert_eq!(validate_spec_id(id), Ok(()), "{id}");
        }
        use ResourceIdError as E;
        for (id, want) in [
            ("abc", E::TooShort { length: 3 }),
            (
                "2024_kyc",
                E::InvalidCharacter {
                    character: '_',
                    index: 4,
                },
            ),
            ("0190f4c2-7b3a-7d1e-9c2f-3a4b5c6d7e8f", E::UuidShaped),
            ("0190f4c27b3a7d1e9c2f3a4b5c6d7e8f", E::UuidShaped),
            ("00000000-0000-0000-0000-000000000000", E::UuidShaped),
        ] {
            let err = validate_spec_id(id).unwrap_err();
            assert_eq!(err, want, "{id:?}");
            assert_eq!(err.reason(), "INVALID_RESOURCE_ID");
        }
        assert_eq!(
            validate_spec_id("0190f4c2-7b3a-7d1e-9c2f-3a4b5c6d7e8g"),
            Ok(())
        );
    }

    #[test]
    fn names_matching_patterns() {
        let cases = [
            ("entities/{entity}", "entities/a", vec!["a"]),
            (
                "entities/{entity}/notes/{note}",
                "entities/a/notes/b",
                vec!["a", "b"],
            ),
            (
                "entities/{entity}/files/{file}",
                "entities/-/files/x",
                vec!["-", "x"],
            ),
            ("tenants/current", "tenants/current", vec![]),
        ];
        for (pattern, name, want) in cases {
            assert_eq!(parse_name(pattern, name), Ok(want), "{pattern} {name}");
        }
    }

    #[test]
    fn names_not_matching() {
        let cases = [
            ("entities/{entity}", ""),
            ("entities/{entity}", "entities"),
            ("entities/{entity}", "entities/"),
            ("entities/{entity}", "/entities/a"),
            ("entities/{entity}", "entities/a/"),
            ("entities/{entity}", "entities/a/notes/b"),
            ("entities/{entity}", "notes/a"),
            ("entities/{entity}", "Entities/a"),
            ("entities/{entity}", "//rics/entities/a"),
            ("entities/{entity}/notes/{note}", "entities/a/notes"),
            ("entities/{entity}/notes/{note}", "entities/a/files/b"),
            ("entities/{entity}/notes/{note}", "entities//notes/b"),
        ];
        for (pattern, name) in cases {
            let err = parse_name(pattern, name).unwrap_err();
            assert_eq!(err.reason(), "INVALID_RESOURCE_NAME", "{pattern} {name}");
            assert!(err.to_string().contains(pattern));
        }
    }

    #[test]
    fn invalid_patterns() {
        for pattern in [
            "",
            "entities/{}",
            "entities//x",
            "entities/{a",
            "entities/a}",
            "{a{b}}",
        ] {
            let err = parse_name(pattern, "entities/a").unwrap_err();
            assert_eq!(err.reason(), "INVALID_RESOURCE_NAME_PATTERN", "{pattern:?}");
        }
    }
}
