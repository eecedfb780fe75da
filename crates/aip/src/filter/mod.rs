//! AIP-160 filtering: lexer, parser, and a type checker against per-resource
//! declarations.
//!
//! Processing has two stages:
//!
//! 1. [`parse`] turns the text into an untyped [`Expr`] following the EBNF grammar of
//!    AIP-160 (checklist Appendix A) and the lexical rules of Appendix B.
//! 2. [`check`] resolves that tree against a [`FilterSchema`] and returns a typed
//!    [`Condition`] for storage to compile. [`parse_and_check`] does both.
//!
//! Every error is a [`FilterError`] with a kind, the position (byte offset, line and
//! column) and an English message; all of them are 400 INVALID_ARGUMENT,
//! with [`FilterError::reason`] as the `ErrorInfo.reason`.
//!
//! # Syntax
//!
//! - Precedence, tightest first: comparator > `NOT`/`-` > `OR` > whitespace sequence >
//!   `AND`. `a AND b OR c` is `a AND (b OR c)`. Parentheses group.
//! - `AND`, `OR`, `NOT` are keywords only in upper case; `and` is plain text. `AND`
//!   and `OR` need whitespace on both sides, `NOT` after it. `-` negates the
//!   restriction it is attached to (`-labels:tmp`); `-30` alone is the number -30
//!   and `-2.5 >= x` is `NOT (2.5 >= x)` (Appendix B).
//! - A negation cannot directly follow another (`NOT NOT a`, `--a`): the grammar has
//!   one prefix per term; use parentheses.
//! - `NOT(x)` without a space is, by the grammar, a call named `NOT`; it is accepted
//!   with a whole expression inside (`NOT(a = 1 OR b)`) and means `NOT x` \[ours\]. A
//!   call named `AND` or `OR` is a syntax error.
//! - Comparators: `=`, `!=`, `<`, `<=`, `>`, `>=`, `:` (has); whitespace around them is
//!   optional. A comparison's right side may be a parenthesised group of literals,
//!   `state = (ACTIVE OR PENDING)`, which applies the comparison to each literal.
//! - Strings are `"…"` or `'…'` with CEL escapes. Unquoted values are text or numbers;
//!   an unquoted value containing `.` is a field path (`package=com.google`), so quote
//!   values containing `.`, `:`, `-`, spaces, and every timestamp.
//!
//! # Limits
//!
//! Over a limit is a [`FilterErrorKind::LimitExceeded`] error. The defaults
//! ([`FilterLimits::default`]) are:
//!
//! - length: [`MAX_FILTER_LENGTH`] = 4096 bytes;
//! - nesting depth: [`MAX_NESTING_DEPTH`] = 32 levels of parentheses, function-call
//!   argument lists and `NOT(…)`;
//! - restrictions: [`MAX_RESTRICTIONS`] = 64 comparisons and bare values, counting the
//!   literals of a parenthesised group on the right of a comparator.
//!
//! # Semantics (checking)
//!
//! Field paths are the declared dotted lowerCamelCase paths; each segment may also be
//! written in snake_case (`create_time`, R-160.9). Unknown fields are errors
//! . The left side of a comparison must be a field; the right side
//! a literal.
//!
//! | Field type | Accepted |
//! | --- | --- |
//! | `String` | all comparators with a string or unquoted text; `"web-*"` prefix and `"*.prod"` suffix with `=`/`!=`/`:`; `field:value` is `field = value`, except on fuzzy fields where it is a fuzzy search |
//! | `Integer` | all comparators with an unquoted integer (decimal, `-7`, `0x1F`); `2.5` or `"42"` are type errors |
//! | `Bool` | `=`, `!=` with unquoted `true`/`false`; ordering operators are errors \[ours\] |
//! | `Timestamp` | all comparators with a quoted RFC 3339 value with an offset (R-160.7) |
//! | `Enum` | `=`, `!=` with a declared value name, case-sensitive, quoted or not; ordering operators are errors \[ours\] |
//! | `EnumWithAliases` | as `Enum`; an alias reads as its value (`RATED` as `ACTIVE`) |
//! | `RepeatedString` | `tags:red` contains (wildcards allowed in quoted values); `tags:*` non-empty. `=`, `!=` and ordering are errors \[ours\]: AIP-160 defines only `:` for repeated fields. Any traversal or index (`tags.0`, `tags[0]`) is an error (R-160.12) |
//! | `Map` | `m:key` and `m.key:*` has key; `m.key = "v"`, `m.key:v` (equality) and the other comparators on the value; `m:*` non-empty; quoted keys: `m."my key":*`. A missing key never matches \[ours\] (R-160.10) |
//! | message prefix | `riskDetails:*` presence; traversal to declared fields; any other comparison is an error |
//!
//! `field:*` is a presence test ([`Condition::Present`]) on every field type.
//! `field:value` on a scalar is `field = value`. Repeated messages cannot be
//! declared, so `authors.givenName:Ann` (R-160.13's "some element") is not offered;
//! declare the inner value as its own [`FieldType::RepeatedString`] path if needed.
//!
//! Bare values (global restrictions, R-160.14, e.g. `filter=Hugo`) are a fuzzy search
//! of the fields declared with [`FilterSchema::global_search_field`]; without one they
//! are an error ([`FilterErrorKind::GlobalRestrictionUnsupported`]). Function calls
//! must be declared with [`FilterSchema::function`]; they stand alone as
//! restrictions (their results cannot be compared) and take literal arguments.
//!
//! Evaluation rules for storage (unset messages, R-160.11; missing map keys; presence)
//! are documented on [`Condition`].

mod ast;
mod check;
mod condition;
mod error;
pub mod lexer;
mod parser;
mod schema;

#[cfg(test)]
mod tests;

pub use ast::{Arg, Comparable, Expr, Function, Member, Operator, Restriction, Value, ValueKind};
pub use check::check;
pub use condition::{Comparator, Condition, Literal, StringMatch};
pub use error::{FilterError, FilterErrorKind, Position};
pub use schema::{FieldType, FilterSchema, ParamType};

/// Default maximum filter length in bytes.
pub const MAX_FILTER_LENGTH: usize = 4096;
/// Default maximum nesting depth of parentheses, call argument lists and `NOT(…)`.
pub const MAX_NESTING_DEPTH: usize = 32;
/// Default maximum number of restrictions (comparisons and bare values).
pub const MAX_RESTRICTIONS: usize = 64;

/// Limits a filter must stay within; see the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FilterLimits {
    /// Maximum length in bytes.
    pub max_length: usize,
    /// Maximum nesting depth.
    pub max_depth: usize,
    /// Maximum number of restrictions.
    pub max_restrictions: usize,
}

impl Default for FilterLimits {
    fn default() -> Self {
        Self {
            max_length: MAX_FILTER_LENGTH,
            max_depth: MAX_NESTING_DEPTH,
            max_restrictions: MAX_RESTRICTIONS,
        }
    }
}

/// Parses a filter into an untyped tree with the default [`FilterLimits`]; `None` for
/// an empty or all-whitespace filter.
///
/// # Errors
///
/// [`FilterErrorKind::Syntax`] or [`FilterErrorKind::LimitExceeded`].
pub fn parse(input: &str) -> Result<Option<Expr>, FilterError> {
    parse_with_limits(input, &FilterLimits::default())
}

/// Parses a filter within the given limits; see [`parse`].
///
/// # Errors
///
/// [`FilterErrorKind::Syntax`] or [`FilterErrorKind::LimitExceeded`].
pub fn parse_with_limits(input: &str, limits: &FilterLimits) -> Result<Option<Expr>, FilterError> {
    parser::parse_with_limits(input, limits)
}

/// Parses and checks a filter with the default limits; `None` for an empty filter.
///
/// # Errors
///
/// Any [`FilterError`] of [`parse`] or [`check`].
pub fn parse_and_check(
    input: &str,
    schema: &FilterSchema,
) -> Result<Option<Condition>, FilterError> {
    parse(input)?.map(|expr| check(&expr, schema)).transpose()
}
