//! Per-resource declarations of what a filter may refer to.

/// The type of a filterable field; it decides which operators and literals the
/// checker accepts (see the [module docs](super)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// A string: all comparators, `*` wildcards at the ends of quoted values.
    String,
    /// A 64-bit integer: all comparators, integer literals only.
    Integer,
    /// A boolean: `=`/`!=` with `true`/`false`.
    Bool,
    /// A timestamp: all comparators with a quoted RFC 3339 value.
    Timestamp,
    /// An enum with these value names: `=`/`!=`, case-sensitive.
    Enum(&'static [&'static str]),
    /// An enum with these value names that also reads older or other spellings
    /// (`(alias, value)` pairs) as their value: `RATED` as `ACTIVE`.
    EnumWithAliases(
        &'static [&'static str],
        &'static [(&'static str, &'static str)],
    ),
    /// A repeated string: `field:value` (contains) and `field:*` (non-empty).
    RepeatedString,
    /// A map from string to string: `field:key`, `field.key:*`, `field.key = value`.
    Map,
}

/// The type of a declared function parameter; arguments must be literals of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    /// A string (quoted, or unquoted text); no wildcards.
    String,
    /// A 64-bit integer.
    Integer,
    /// `true` or `false`.
    Bool,
    /// A quoted RFC 3339 timestamp.
    Timestamp,
    /// One of these enum value names.
    Enum(&'static [&'static str]),
}

#[derive(Debug, Clone)]
pub(super) struct FieldDecl {
    pub(super) path: &'static str,
    pub(super) segments: Vec<&'static str>,
    pub(super) field_type: FieldType,
    pub(super) fuzzy: bool,
}

impl FieldDecl {
    /// The declared path cut after its first `len` segments (a message prefix).
    pub(super) fn prefix(&self, len: usize) -> &'static str {
        let end = self
            .segments
            .iter()
            .take(len)
            .map(|s| s.len())
            .sum::<usize>()
            + len.saturating_sub(1);
        self.path.get(..end).unwrap_or(self.path)
    }
}

#[derive(Debug, Clone)]
pub(super) struct FunctionDecl {
    pub(super) name: &'static str,
    pub(super) params: &'static [ParamType],
}

/// What a filter may refer to on one resource: fields (dotted lowerCamelCase paths with
/// a [`FieldType`]), which string fields are fuzzy, which fields a bare value searches,
/// and functions.
///
/// Every prefix of a declared path (`riskDetails` of `riskDetails.riskLevel`) is a
/// message: the filter may traverse it and test it with `riskDetails:*`. Declaring the
/// same path again replaces the earlier declaration.
///
/// ```
/// use rics_aip::filter::{FieldType, FilterSchema, ParamType};
///
/// let schema = FilterSchema::new()
///     .global_search_field("displayName")
///     .field("state", FieldType::Enum(&["ACTIVE", "DELETED"]))
///     .field("tags", FieldType::RepeatedString)
///     .field("externalIds", FieldType::Map)
///     .field("createTime", FieldType::Timestamp)
///     .field("riskDetails.riskScore", FieldType::Integer)
///     .function("nearBirthday", &[ParamType::Integer]);
/// # let _ = schema;
/// ```
#[derive(Debug, Clone, Default)]
pub struct FilterSchema {
    pub(super) fields: Vec<FieldDecl>,
    pub(super) global_fields: Vec<&'static str>,
    pub(super) functions: Vec<FunctionDecl>,
}

impl FilterSchema {
    /// An empty schema: no fields, no functions, no global search.
    pub fn new() -> Self {
        Self::default()
    }

    /// Declares a field by its dotted lowerCamelCase path.
    #[must_use]
    pub fn field(self, path: &'static str, field_type: FieldType) -> Self {
        self.declare(path, field_type, false)
    }

    /// Declares a string field on which `field:value` is a fuzzy text search
    /// ([`Condition::Fuzzy`](super::Condition::Fuzzy)); `=` and `!=` still compare exactly.
    #[must_use]
    pub fn fuzzy_field(self, path: &'static str) -> Self {
        self.declare(path, FieldType::String, true)
    }

    /// Declares a fuzzy string field (as [`fuzzy_field`](Self::fuzzy_field)) that bare
    /// global restrictions search (R-160.14): `Hugo` becomes a fuzzy search of every
    /// field declared this way (`OR` of them when there are several). Without any such
    /// field, a global restriction is an error.
    #[must_use]
    pub fn global_search_field(mut self, path: &'static str) -> Self {
        if !self.global_fields.contains(&path) {
            self.global_fields.push(path);
        }
        self.declare(path, FieldType::String, true)
    }

    /// Declares a function usable as a restriction (`name(arg, …)`); arguments are
    /// literals of the given types, in order. Names are matched exactly and may be
    /// qualified (`math.near`).
    #[must_use]
    pub fn function(mut self, name: &'static str, params: &'static [ParamType]) -> Self {
        self.functions.retain(|f| f.name != name);
        self.functions.push(FunctionDecl { name, params });
        self
    }

    fn declare(mut self, path: &'static str, field_type: FieldType, fuzzy: bool) -> Self {
        self.fields.retain(|f| f.path != path);
        if !fuzzy {
            self.global_fields.retain(|p| *p != path);
        }
        self.fields.push(FieldDecl {
            path,
            segments: path.split('.').collect(),
            field_type,
            fuzzy,
        });
        self
    }
}
