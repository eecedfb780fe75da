//! Small, reusable checks for text fields, collected as field violations so that a
//! client learns about every problem of a request at once.

use crate::error::FieldViolation;

/// How many lines a text may span, which decides the control characters (C0, DEL, C1)
/// it may hold: the one rule of docs/api.md ("Text"). U+0000 never gets this far: the
/// HTTP adapter refuses it in any request text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lines {
    /// One line (names, titles, ids, tags, filter literals): no control character,
    /// TAB, LF and CR included.
    Single,
    /// Several lines (descriptions, note content): TAB, LF and CR allowed, every other
    /// control character refused.
    Multi,
}

impl Lines {
    /// Whether `text` holds a control character these lines may not.
    pub fn refuses(self, text: &str) -> bool {
        text.chars()
            .any(|c| c.is_control() && !(self == Lines::Multi && matches!(c, '\t' | '\n' | '\r')))
    }

    /// The rule, for field violations.
    fn rule(self) -> &'static str {
        match self {
            Lines::Single => {
                "must be one line, without control characters (tabs and line breaks included)"
            }
            Lines::Multi => "must not contain control characters other than line breaks and tabs",
        }
    }
}

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

    /// Checks a required text: present (not blank) and at most `max` characters. Its
    /// control characters are the field table's to check ([`crate::fields::input`]).
    pub fn required_text(&mut self, field: &str, value: &str, max: usize) {
        if value.trim().is_empty() {
            self.add(field, "REQUIRED", "is required and must not be blank");
        } else {
            self.optional_text(field, value, max);
        }
    }

    /// Checks an optional text: at most `max` characters. Its control characters are
    /// the field table's to check ([`crate::fields::input`]).
    pub fn optional_text(&mut self, field: &str, value: &str, max: usize) {
        let length = value.chars().count();
        if length > max {
            self.add(
                field,
                "TOO_LONG",
                format!("must be at most {max} characters (got {length})"),
            );
        }
    }

    /// Checks the control characters of a text that may span `lines`.
    pub fn control_characters(&mut self, field: &str, value: &str, lines: Lines) {
        if lines.refuses(value) {
            self.add(field, "CONTROL_CHARACTER", lines.rule());
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
        v.optional_text("c", "ok", 10);
        v.control_characters("d", "x\u{7}y", Lines::Single);
        v.control_characters("e", "two\nlines\tok\r", Lines::Multi);
        v.control_characters("f", "tab\t", Lines::Single);
        v.control_characters("g", "bell\u{7}", Lines::Multi);
        v.control_characters("h", "nel\u{85}", Lines::Multi);
        v.control_characters("i", "del\u{7f}", Lines::Single);
        v.control_characters("j", "Zoë 東京 \u{a0}", Lines::Single);
        let reasons: Vec<_> = v
            .into_vec()
            .into_iter()
            .map(|v| (v.field, v.reason))
            .collect();
        let expected = [
            ("a", "REQUIRED"),
            ("b", "TOO_LONG"),
            ("d", "CONTROL_CHARACTER"),
            ("f", "CONTROL_CHARACTER"),
            ("g", "CONTROL_CHARACTER"),
            ("h", "CONTROL_CHARACTER"),
            ("i", "CONTROL_CHARACTER"),
        ];
        assert_eq!(
            reasons,
            expected
                .iter()
                .map(|(f, r)| ((*f).to_owned(), *r))
                .collect::<Vec<_>>()
        );
    }
}
