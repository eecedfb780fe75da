//! Field-name spelling helpers shared by the filter, field-mask and order-by modules.
//!
//! Declared names are lowerCamelCase (the JSON spelling); requests may also use the
//! snake_case spelling. A request segment matches a
//! declared one when it is equal to it, or when converting it from snake_case to
//! lowerCamelCase makes it equal.

/// Converts a snake_case identifier to lowerCamelCase (`create_time` becomes `createTime`).
///
/// Text without underscores is returned unchanged, so a name already in lowerCamelCase
/// survives the conversion.
pub(crate) fn snake_to_camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper_next = false;
    for ch in name.chars() {
        if ch == '_' {
            upper_next = true;
        } else if upper_next {
            out.extend(ch.to_uppercase());
            upper_next = false;
        } else {
            out.push(ch);
        }
    }
    out
}

/// Converts a lowerCamelCase identifier to snake_case (`createTime` becomes `create_time`).
pub(crate) fn camel_to_snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for ch in name.chars() {
        if ch.is_ascii_uppercase() {
            out.push('_');
            out.push(ch.to_ascii_lowercase());
        } else {
            out.push(ch);
        }
    }
    out
}

/// Whether the request spelling `given` names the declared lowerCamelCase `declared`.
pub(crate) fn matches(given: &str, declared: &str) -> bool {
    given == declared || (given.contains('_') && snake_to_camel(given) == declared)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_snake_case() {
        let cases = [
            ("create_time", "createTime"),
            ("createTime", "createTime"),
            ("display_name", "displayName"),
            ("a_b_c", "aBC"),
            ("tags", "tags"),
        ];
        for (input, want) in cases {
            assert_eq!(snake_to_camel(input), want, "{input}");
        }
    }

    #[test]
    fn matches_both_spellings() {
        assert!(matches("create_time", "createTime"));
        assert!(matches("createTime", "createTime"));
        assert!(!matches("createtime", "createTime"));
        assert!(!matches("CreateTime", "createTime"));
    }
}
