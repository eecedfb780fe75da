//! AIP-132 `orderBy` parsing against an allow-list.
//!
//! Syntax: fields separated by `,`, each optionally followed by `asc` or
//! `desc` (lower case, \[ours\] as einride), ascending by default; extra spaces are
//! ignored, so `"foo, bar desc"`, `" foo , bar desc "` and `"foo,bar desc"` are
//! equal. Field paths use `.` for subfields and may be written in lowerCamelCase or
//! snake_case; they must be in the caller's allow-list of canonical
//! lowerCamelCase paths. An empty or all-space value means the default order.
//!
//! Errors (R-132.8 \[ours\], all 400 INVALID_ARGUMENT on `orderBy`): an empty item
//! (`a,,b`, a trailing comma), a field not in the allow-list, a suffix other than
//! `asc`/`desc` (including `DESC`), more than one word after the field, and the same
//! field twice.
//!
//! The [`Display`](std::fmt::Display) form is canonical (`createTime desc,
//! displayName`), so equal orderings print the same; use it when binding `orderBy`
//! into a page-token fingerprint. Adding the final tie-breaker (`name`, R-132.8) is
//! the caller's job.

use std::fmt;

use crate::case;

/// One sort key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OrderField {
    /// The canonical lowerCamelCase path from the allow-list.
    pub field: &'static str,
    /// Whether the order is descending.
    pub descending: bool,
}

/// A parsed `orderBy`: sort keys, most significant first (empty = default order).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct OrderBy {
    /// The sort keys.
    pub fields: Vec<OrderField>,
}

/// Why an `orderBy` was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OrderByError {
    /// An empty item or an item with extra words.
    #[error(
        "invalid orderBy item '{item}': write a field name, optionally followed by asc or desc, and separate items with ','"
    )]
    InvalidSyntax {
        /// The item as written (trimmed).
        item: String,
    },
    /// A field that is not sortable (not in the allow-list).
    #[error("cannot order by '{field}'; sortable fields: {allowed}")]
    UnknownField {
        /// The field as written.
        field: String,
        /// The allowed fields, comma-separated.
        allowed: String,
    },
    /// A suffix other than `asc` or `desc`.
    #[error("invalid direction '{direction}' after '{field}'; use asc or desc")]
    InvalidDirection {
        /// The field as written.
        field: String,
        /// The suffix as written.
        direction: String,
    },
    /// The same field twice.
    #[error("'{field}' appears more than once in orderBy")]
    DuplicateField {
        /// The canonical field.
        field: &'static str,
    },
}

impl OrderByError {
    /// The request field at fault, for a `BadRequest` field violation.
    pub fn field(&self) -> &'static str {
        "orderBy"
    }

    /// The UPPER_SNAKE_CASE `ErrorInfo.reason`.
    pub fn reason(&self) -> &'static str {
        match self {
            Self::InvalidSyntax { .. } => "INVALID_ORDER_BY",
            Self::UnknownField { .. } => "UNKNOWN_ORDER_BY_FIELD",
            Self::InvalidDirection { .. } => "INVALID_ORDER_BY_DIRECTION",
            Self::DuplicateField { .. } => "DUPLICATE_ORDER_BY_FIELD",
        }
    }
}

/// Whether the written path names the canonical dotted path, segment by segment.
fn path_matches(written: &str, canonical: &str) -> bool {
    let mut written = written.split('.');
    let mut canonical = canonical.split('.');
    loop {
        match (written.next(), canonical.next()) {
            (None, None) => return true,
            (Some(w), Some(c)) if !w.is_empty() && case::matches(w, c) => {}
            _ => return false,
        }
    }
}

impl OrderBy {
    /// Parses `input` against the canonical lowerCamelCase paths in `allowed`; see the
    /// [module docs](self).
    ///
    /// # Errors
    ///
    /// [`OrderByError`] for the first bad item.
    pub fn parse(input: &str, allowed: &[&'static str]) -> Result<Self, OrderByError> {
        let mut fields: Vec<OrderField> = Vec::new();
        if input.trim().is_empty() {
            return Ok(Self { fields });
        }
        for item in input.split(',') {
            let item = item.trim();
            let mut words = item.split_whitespace();
            let (Some(name), direction, None) = (words.next(), words.next(), words.next()) else {
                return Err(OrderByError::InvalidSyntax {
                    item: item.to_owned(),
                });
            };
            let field = allowed
                .iter()
                .copied()
                .find(|canonical| path_matches(name, canonical))
                .ok_or_else(|| OrderByError::UnknownField {
                    field: name.to_owned(),
                    allowed: allowed.join(", "),
                })?;
            let descending = match direction {
                None | Some("asc") => false,
                Some("desc") => true,
                Some(other) => {
                    return Err(OrderByError::InvalidDirection {
                        field: name.to_owned(),
                        direction: other.to_owned(),
                    });
                }
            };
            if fields.iter().any(|f| f.field == field) {
                return Err(OrderByError::DuplicateField { field });
            }
            fields.push(OrderField { field, descending });
        }
        Ok(Self { fields })
    }

    /// The grammar of [`OrderBy::parse`] over `allowed` as an ECMA-262 regular
    /// expression, for JSON Schema: items of a field (lowerCamelCase or snake_case) and an
    /// optional `asc` or `desc`, separated by `,` with spaces around. The one rule it
    /// cannot state, a field named twice, is `parse`'s alone.
    pub fn pattern(allowed: &[&str]) -> String {
        let mut names: Vec<String> = Vec::with_capacity(allowed.len() * 2);
        for field in allowed {
            let snake = crate::case::camel_to_snake(field);
            if snake != *field {
                names.push(snake.replace('.', "\\."));
            }
            names.push(field.replace('.', "\\."));
        }
        let item = format!(" *({})( +(asc|desc))? *", names.join("|"));
        format!("^({item}(,{item})*)?$")
    }

    /// Whether no order was requested.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }
}

impl fmt::Display for OrderBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, field) in self.fields.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(field.field)?;
            if field.descending {
                f.write_str(" desc")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALLOWED: &[&str] = &["createTime", "displayName", "riskDetails.riskScore", "name"];

    #[test]
    fn valid() {
        let cases = [
            ("", ""),
            ("   ", ""),
            ("displayName", "displayName"),
            ("displayName asc", "displayName"),
            ("displayName desc", "displayName desc"),
            (
                "createTime desc,displayName",
                "createTime desc, displayName",
            ),
            (
                "createTime desc, displayName",
                "createTime desc, displayName",
            ),
            (
                "  createTime   desc ,  displayName  ",
                "createTime desc, displayName",
            ),
            ("create_time desc", "createTime desc"),
            ("risk_details.risk_score desc", "riskDetails.riskScore desc"),
            ("riskDetails.riskScore", "riskDetails.riskScore"),
            ("createTime\tdesc", "createTime desc"),
        ];
        for (input, want) in cases {
            let order = OrderBy::parse(input, ALLOWED).unwrap_or_else(|e| panic!("{input:?}: {e}"));
            assert_eq!(order.to_string(), want, "{input:?}");
        }
        let order = OrderBy::parse("createTime desc, name", ALLOWED).unwrap();
        assert_eq!(
            order.fields,
            vec![
                OrderField {
                    field: "createTime",
                    descending: true
                },
                OrderField {
                    field: "name",
                    descending: false
                },
            ]
        );
        assert!(OrderBy::parse(" ", ALLOWED).unwrap().is_empty());
        // spacing variants are equal.
        let a = OrderBy::parse("createTime, displayName desc", ALLOWED).unwrap();
        let b = OrderBy::parse(" createTime , displayName desc ", ALLOWED).unwrap();
        let c = OrderBy::parse("createTime,displayName desc", ALLOWED).unwrap();
        assert!(a == b && b == c);
    }

    #[test]
    fn invalid() {
        let cases = [
            ("colour", "UNKNOWN_ORDER_BY_FIELD"),
            ("CreateTime", "UNKNOWN_ORDER_BY_FIELD"),
            ("riskDetails", "UNKNOWN_ORDER_BY_FIELD"),
            ("riskDetails.", "UNKNOWN_ORDER_BY_FIELD"),
            ("riskDetails..riskScore", "UNKNOWN_ORDER_BY_FIELD"),
            ("riskDetails.riskScore.x", "UNKNOWN_ORDER_BY_FIELD"),
            ("displayName descending", "INVALID_ORDER_BY_DIRECTION"),
            ("displayName DESC", "INVALID_ORDER_BY_DIRECTION"),
            ("displayName -", "INVALID_ORDER_BY_DIRECTION"),
            ("displayName desc extra", "INVALID_ORDER_BY"),
            ("displayName,", "INVALID_ORDER_BY"),
            (",displayName", "INVALID_ORDER_BY"),
            ("displayName,,createTime", "INVALID_ORDER_BY"),
            ("displayName, display_name desc", "DUPLICATE_ORDER_BY_FIELD"),
            (
                "createTime, displayName, createTime",
                "DUPLICATE_ORDER_BY_FIELD",
            ),
        ];
        for (input, reason) in cases {
            let err = OrderBy::parse(input, ALLOWED).unwrap_err();
            assert_eq!(err.reason(), reason, "{input:?}: {err}");
            assert_eq!(err.field(), "orderBy");
        }
        let err = OrderBy::parse("colour", ALLOWED).unwrap_err();
        assert!(err.to_string().contains("createTime, displayName"), "{err}");
    }

    #[test]
    fn the_pattern_names_both_spellings() {
        assert_eq!(
            OrderBy::pattern(&["displayName", "riskDetails.riskLevel"]),
            "^( *(display_name|displayName|risk_details\\.risk_level|riskDetails\\.riskLevel)( +(asc|desc))? *\
             (, *(display_name|displayName|risk_details\\.risk_level|riskDetails\\.riskLevel)( +(asc|desc))? *)*)?$"
        );
    }
}
