//! Reading a JSON request body strictly, in one pass: serde_json's parser drives a
//! visitor that builds the [`Value`] and refuses, on the way, a key given twice in one
//! object (serde_json would keep the last) and U+0000 in any string or key (PostgreSQL
//! cannot store it). Both name where they are, from the body's root:
//! `individual.legalName.givenName`, `tags[2]`.

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Why a body was refused.
#[derive(Debug)]
pub enum BodyError {
    /// Not JSON at all (syntax, bad UTF-8, nesting too deep, trailing text).
    Malformed(serde_json::Error),
    /// A key appears twice in one object; the path of that key.
    DuplicateKey(String),
    /// A string or key holds U+0000; the path of that value or key.
    Nul(String),
}

/// Parses `body` as one JSON value.
///
/// # Errors
/// [`BodyError`] for the first problem found.
pub fn read(body: &[u8]) -> Result<Value, BodyError> {
    let problem = RefCell::new(None);
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let parsed = Node {
        place: Place::Root,
        problem: &problem,
    }
    .deserialize(&mut deserializer)
    .and_then(|value| deserializer.end().map(|()| value));
    parsed.map_err(|error| problem.into_inner().unwrap_or(BodyError::Malformed(error)))
}

/// A field path as the error envelope shows it: U+0000 written `\u0000`, as JSON
/// escapes it.
pub fn show_path(text: &str) -> String {
    text.replace('\0', "\\u0000")
}

/// Where a value lies in the body.
#[derive(Debug, Clone, Copy)]
enum Place<'a> {
    Root,
    Member(&'a Place<'a>, &'a str),
    Item(&'a Place<'a>, usize),
}

impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Root => Ok(()),
            Place::Member(Place::Root, key) => f.write_str(&show_path(key)),
            Place::Member(parent, key) => write!(f, "{parent}.{}", show_path(key)),
            Place::Item(parent, index) => write!(f, "{parent}[{index}]"),
        }
    }
}

impl Place<'_> {
    /// The path for an error; the body itself is `body`.
    fn path(&self) -> String {
        match self {
            Place::Root => "body".to_owned(),
            _ => self.to_string(),
        }
    }
}

/// The seed and visitor of one value at `place`; a refusal is recorded in `problem`
/// before serde's error unwinds the parse.
struct Node<'a> {
    place: Place<'a>,
    problem: &'a RefCell<Option<BodyError>>,
}

impl Node<'_> {
    /// Records `problem` and returns the error that stops the parse; [`read`] answers
    /// the recorded problem, not this error.
    fn refuse<E: de::Error>(&self, problem: BodyError) -> E {
        *self.problem.borrow_mut() = Some(problem);
        E::custom("refused")
    }

    fn text<E: de::Error>(&self, text: &str) -> Result<(), E> {
        if text.contains('\0') {
            return Err(self.refuse(BodyError::Nul(self.place.path())));
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Value, E> {
        Number::from_f64(value)
            .map(Value::Number)
            .ok_or_else(|| E::custom("a number must be finite"))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Value, E> {
        self.text(value)?;
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<Value, E> {
        self.text(&value)?;
        Ok(Value::String(value))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Value, A::Error> {
        let mut array = Vec::new();
        while let Some(item) = items.next_element_seed(Node {
            place: Place::Item(&self.place, array.len()),
            problem: self.problem,
        })? {
            array.push(item);
        }
        Ok(Value::Array(array))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut members: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = members.next_key::<String>()? {
            let place = Place::Member(&self.place, &key);
            if key.contains('\0') {
                return Err(self.refuse(BodyError::Nul(place.path())));
            }
            if object.contains_key(&key) {
                return Err(self.refuse(BodyError::DuplicateKey(place.path())));
            }
            let value = members.next_value_seed(Node {
                place,
                problem: self.problem,
            })?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn refused(text: &str) -> BodyError {
        read(text.as_bytes()).unwrap_err()
    }

    #[test]
    fn reads_what_serde_json_reads() {
        let text = r#"{"a": [1, -2, 2.5, 18446744073709551615, true, null, "é"], "b": {"c": {}}}"#;
        assert_eq!(
            read(text.as_bytes()).unwrap(),
            serde_json::from_str::<Value>(text).unwrap()
        );
        assert_eq!(read(b"\"x\"").unwrap(), json!("x"));
    }

    #[test]
    fn duplicate_keys_name_their_path() {
        for (text, path) in [
            (r#"{"a": 1, "a": 2}"#, "a"),
            (r#"{"a": {"b": {"c": 1, "c": 1}}}"#, "a.b.c"),
            (r#"{"a": [{"b": 1}, {"b": 1, "b": 2}]}"#, "a[1].b"),
            (r#"[[{"x": 1, "x": 2}]]"#, "[0][0].x"),
        ] {
            match refused(text) {
                BodyError::DuplicateKey(found) => assert_eq!(found, path, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        assert!(read(br#"{"a": {"b": 1}, "c": {"b": 1}}"#).is_ok());
    }

    #[test]
    fn nul_is_refused_in_strings_and_keys() {
        for (text, path) in [
            (r#"{"a": "x\u0000"}"#, "a"),
            (r#"{"a": ["ok", "\u0000"]}"#, "a[1]"),
            (r#"{"a": {"k\u0000": 1}}"#, "a.k\\u0000"),
            (r#""\u0000""#, "body"),
        ] {
            match refused(text) {
                BodyError::Nul(found) => assert_eq!(found, path, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        assert!(
            read(br#"{"a": "\u0001\n"}"#).is_ok(),
            "other controls are the resources' to judge"
        );
    }

    #[test]
    fn malformed_text_keeps_serde_jsons_position() {
        for text in [
            "{\"a\": ",
            "{} trailing",
            "{\"a\": \"\u{0}\"}",
            "[1,]",
            "1e400",
        ] {
            assert!(matches!(refused(text), BodyError::Malformed(_)), "{text:?}");
        }
        let BodyError::Malformed(error) = refused("{\n  \"a\": x}") else {
            panic!("malformed");
        };
        assert_eq!((error.line(), error.column()), (2, 8));
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert!(matches!(refused(&deep), BodyError::Malformed(_)));
    }
}
