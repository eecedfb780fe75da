//! The checked filter tree that storage compiles to SQL.

use time::OffsetDateTime;

/// A type-checked filter over one resource's declared fields.
///
/// Every `field` is the canonical lowerCamelCase path as declared in the
/// [`FilterSchema`](super::FilterSchema) (`riskDetails.riskLevel`), whatever spelling the
/// caller used. `And`/`Or` lists are flattened (no `And` directly inside an `And`) and
/// hold at least two items.
///
/// # Evaluation rules storage must honour
///
/// - **Unset messages .** A condition on a field inside a message
///   (`riskDetails.riskLevel`) is false when the message (`riskDetails`) is unset,
///   *even for [`Comparator::Ne`]*. [`Condition::Not`] is plain logical negation of its
///   operand's result, so `NOT riskDetails.riskLevel = HIGH` is true for an entity
///   without `riskDetails`.
/// - **Missing map keys .** [`Condition::MapValue`] is false when the key is
///   absent, even for `Ne`.
/// - **Unset scalars.** A scalar field compares as its proto3 default when unset
///   (`""`, `0`, `false`, the enum's `…_UNSPECIFIED`), so `displayName != "x"` matches
///   an entity without a display name.
/// - **Presence .** [`Condition::Present`] is true for a non-empty repeated
///   field or map, a message holding at least one non-default field, and a scalar
///   holding a non-default value.
/// - **Sequences.** A whitespace sequence (`Victor Hugo`) is checked as plain `And`;
///   storage may rank results by how well [`Condition::Fuzzy`] items match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    /// All must hold (`AND`, and whitespace sequences).
    And(Vec<Condition>),
    /// At least one must hold (`OR`).
    Or(Vec<Condition>),
    /// The operand must not hold (`NOT x`, `-x`, `NOT(x)`).
    Not(Box<Condition>),
    /// A scalar field compared with a literal: `state = ACTIVE`,
    /// `createTime > "2026-01-01T00:00:00Z"`, `displayName = "web-*"`.
    /// `field:value` on a scalar field is the same as `field = value`.
    Compare {
        /// Canonical declared path.
        field: &'static str,
        /// The comparison.
        op: Comparator,
        /// The value, already converted to the field's type.
        value: Literal,
    },
    /// A repeated string field contains a matching element: `tags:red`,
    /// `tags:"re*"` (any element starting with `re`).
    Contains {
        /// Canonical declared path of the repeated field.
        field: &'static str,
        /// What an element must match.
        value: StringMatch,
    },
    /// A map has a key: `externalIds:crm` or `externalIds.crm:*`.
    HasKey {
        /// Canonical declared path of the map.
        field: &'static str,
        /// The key, exactly as given.
        key: String,
    },
    /// The value under one map key compared with a string: `externalIds.crm = "x"`,
    /// `externalIds.crm:x` (equality). False when the key is absent.
    MapValue {
        /// Canonical declared path of the map.
        field: &'static str,
        /// The key, exactly as given.
        key: String,
        /// The comparison.
        op: Comparator,
        /// The value to compare the map value with.
        value: StringMatch,
    },
    /// A field is present (non-default): `tags:*`, `riskDetails:*`, `displayName:*`.
    Present {
        /// Canonical declared path; may be a message prefix such as `riskDetails`.
        field: &'static str,
    },
    /// Fuzzy text search on a field declared fuzzy: `displayName:"jon smith"`, or a
    /// bare global restriction (`Hugo`) on a field declared for global search.
    /// Storage decides the matching (case folding, typo tolerance, ranking).
    Fuzzy {
        /// Canonical declared path of the searched field.
        field: &'static str,
        /// The search text, without quotes.
        text: String,
    },
    /// A call of a declared function, its arguments converted to the declared types.
    Call {
        /// The declared function name.
        function: &'static str,
        /// The arguments, in order.
        args: Vec<Literal>,
    },
}

/// A comparison operator after checking (`:` has become one of the other conditions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Comparator {
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Comparator {
    /// Whether this is one of the ordering operators `<`, `<=`, `>`, `>=`.
    pub fn is_ordering(self) -> bool {
        matches!(self, Self::Lt | Self::Le | Self::Gt | Self::Ge)
    }
}

/// A value converted to the type of the field it is compared with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Literal {
    /// For string fields; may carry a wildcard.
    String(StringMatch),
    /// For integer fields.
    Integer(i64),
    /// For bool fields.
    Bool(bool),
    /// For timestamp fields, normalised to UTC.
    Timestamp(OffsetDateTime),
    /// For enum fields: the declared value name.
    Enum(&'static str),
}

/// A string value, with the `*` wildcard of resolved.
///
/// A quoted string starting with `*` matches by suffix, one ending with `*` by prefix
/// (`"*"` alone is `Prefix("")`, which any value matches). A string starting *and*
/// ending with `*` is rejected; a `*` elsewhere is an ordinary character. Unquoted
/// values never carry wildcards. With `Ne`, a wildcard negates the match
/// (`displayName != "web-*"`: does not start with `web-`). Wildcards are only accepted
/// with `=`, `!=` and `:`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum StringMatch {
    /// Equal to this string.
    Exact(String),
    /// Starts with this string (`"web-*"`).
    Prefix(String),
    /// Ends with this string (`"*.prod"`).
    Suffix(String),
}
