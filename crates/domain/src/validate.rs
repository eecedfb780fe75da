//! Small, reusable checks for text fields, collected as field violations so that a
//! client learns about every problem of a request at once.

use crate::error::FieldViolation;

/// Collects field violations while a resource is checked.
#[derive(Debug, Default)]
pub struct Violations(Vec<FieldViolation>);

impl Violations {
    /// No violations yet.
    pub fn new() -> Violations {
        Violations::default()
    }

    /// Records a violation.
    pub fn add(
        &mut self,
        field: impl Into<String>,
        reason: &'static str,
        description: impl Into<String>,
    ) {
        self.0.push(FieldViolation {
            field: field.into(),
            description: description.into(),
            reason,
        });
    }

    /// How many violations were recorded.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The recorded violations.
    pub fn into_vec(self) -> Vec<FieldViolation> {
        self.0
    }

    /// `Ok` when nothing was recorded.
    ///
    /// # Errors
    /// INVALID_ARGUMENT with every recorded violation; with one, its reason is the
    /// error's reason.
    pub fn finish(mut self) -> crate::error::Result<()> {
        match self.0.len() {
            0 => Ok(()),
            1 => {
                let only = self.0.remove(0);
                Err(crate::error::Error::invalid_field(
                    only.field,
                    only.reason,
                    only.description,
                ))
            }
            _ => Err(crate::error::Error::invalid_fields(self.0)),
        }
    }

    /// Checks a required single-line text: present, at most `max` characters, no
    /// control characters.
    pub fn required_text(&mut self, field: &str, value: &str, max: usize) {
        if value.trim().is_empty() {
            self.add(field, "REQUIRED", "is required and must not be blank");
        } else {
            self.optional_text(field, value, max);
        }
    }

    /// Checks an optional single-line text: at most `max` characters, no control
    /// characters.
    pub fn optional_text(&mut self, field: &str, value: &str, max: usize) {
        let length = value.chars().count();
        if length > max {
            self.add(
                field,
                "TOO_LONG",
                format!("must be at most {max} characters (got {length})"),
            );
        }
        if value.chars().any(char::is_control) {
            self.add(
                field,
                "CONTROL_CHARACTER",
                "must not contain control characters",
            );
        }
    }

    /// Checks free text that may span lines (notes, descriptions): at most `max`
    /// characters, no control characters but line breaks and tabs.
    pub fn multiline_text(&mut self, field: &str, value: &str, max: usize) {
        let length = value.chars().count();
        if length > max {
            self.add(
                field,
                "TOO_LONG",
                format!("must be at most {max} characters (got {length})"),
            );
        }
        if value
            .chars()
            .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
        {
            self.add(
                field,
                "CONTROL_CHARACTER",
                "must not contain control characters other than line breaks and tabs",
            );
        }
    }

    /// Checks that a list has at most `max` items.
    pub fn max_items<T>(&mut self, field: &str, items: &[T], max: usize) {
        if items.len() > max {
            self.add(
                field,
                "TOO_MANY_ITEMS",
                format!("must have at most {max} items (got {})", items.len()),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_rules() {
        let mut v = Violations::new();
        v.required_text("a", "  ", 10);
        v.optional_text("b", "12345678901", 10);
        v.optional_text("c", "x\u{7}y", 10);
        v.optional_text("d", "ok", 10);
        v.multiline_text("e", "two\nlines\tok", 20);
        v.multiline_text("f", "bell\u{7}", 20);
        let reasons: Vec<_> = v
            .into_vec()
            .into_iter()
            .map(|v| (v.field, v.reason))
            .collect();
        assert_eq!(
            reasons,
            vec![
                ("a".to_string(), "REQUIRED"),
                ("b".to_string(), "TOO_LONG"),
                ("c".to_string(), "CONTROL_CHARACTER"),
                ("f".to_string(), "CONTROL_CHARACTER")
            ]
        );
    }
}
