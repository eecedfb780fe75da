//! Helpers every resource uses: etags, request fingerprints, and reading a JSON body
//! into a resource with precise field errors.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// A resource named `{collection}/{id}`, as its model declares it with
/// [`named_resource!`](crate::named_resource).
pub trait Named {
    /// The collection id in resource names (`activityLogTypes`).
    const COLLECTION: &'static str;
    /// What messages call one (`activity log type`).
    const LABEL: &'static str;
    /// The method its idempotency keys name (`activityLogTypes.create`).
    const CREATE_METHOD: &'static str;

    /// The resource name of the one with `id`.
    fn name_of(id: &str) -> String {
        format!("{}/{id}", Self::COLLECTION)
    }
}

/// A resource of a collection under a parent resource, named
/// `{parent}/{collection}/{id}` (`entities/{entity}/notes/{note}`), as its model
/// declares it with `named_resource!(.., under a parent)`. Its [`Named::name_of`] is
/// its name within the parent (`notes/{note}`), which requests may also give.
pub trait Parented: Named {
    /// The name of the resource `id` under the parent named `parent`.
    fn name_in(parent: &str, id: &str) -> String {
        format!("{parent}/{}", Self::name_of(id))
    }

    /// The parent's name and the id in the resource name `name`; `None` for a name of
    /// another shape.
    fn parent_and_id(name: &str) -> Option<(&str, &str)> {
        let (rest, id) = name.rsplit_once('/')?;
        let parent = rest.strip_suffix(Self::COLLECTION)?.strip_suffix('/')?;
        Some((parent, id))
    }
}

/// What the path of a [`Parented`] resource names as its parent (an entity or a
/// workspace for a note).
pub trait Parent: Clone + Send + Sync + 'static {
    /// The parent's resource name (`entities/{entity}`).
    fn name(&self) -> String;

    /// The parent's id.
    fn id(&self) -> &str;
}

/// Declares a model with a `name` field a resource named `{collection}/{id}`: gives it
/// `COLLECTION`, `name_of(id)` and `id()`, and implements [`Named`] with `label`, the
/// word messages use for one. With `under a parent`, a resource named
/// `{parent}/{collection}/{id}`: implements [`Named`] and [`Parented`] and gives it
/// `parent_and_id()`.
#[macro_export]
macro_rules! named_resource {
    ($resource:ty, $collection:literal, $label:literal) => {
        impl $resource {
            /// The collection id in resource names.
            pub const COLLECTION: &'static str = $collection;

            /// The resource name of the one with `id`.
            pub fn name_of(id: &str) -> String {
                <$resource as $crate::resource::Named>::name_of(id)
            }

            /// The id part of the resource name.
            pub fn id(&self) -> &str {
                self.name
                    .strip_prefix(concat!($collection, "/"))
                    .unwrap_or(self.name.as_str())
            }
        }

        impl $crate::resource::Named for $resource {
            const COLLECTION: &'static str = $collection;
            const LABEL: &'static str = $label;
            const CREATE_METHOD: &'static str = concat!($collection, ".create");
        }
    };
    ($resource:ty, $collection:literal, $label:literal, under a parent) => {
        impl $resource {
            /// The parent's name and the id, from the resource name.
            pub fn parent_and_id(&self) -> Option<(&str, &str)> {
                <$resource as $crate::resource::Parented>::parent_and_id(&self.name)
            }
        }

        impl $crate::resource::Named for $resource {
            const COLLECTION: &'static str = $collection;
            const LABEL: &'static str = $label;
            const CREATE_METHOD: &'static str = concat!($collection, ".create");
        }

        impl $crate::resource::Parented for $resource {}
    };
}

/// Declares a stored resource's model: the struct with its own fields between the
/// standard ones. Before them, `name` (documented by the literal after `named`) and
/// `uid`; after them, `createTime`, the times listed after `times` (`update_time`,
/// `delete_time`, `purge_time`), `etag`, and `revision` (not part of the JSON). All
/// are output only.
#[macro_export]
macro_rules! resource_struct {
    (
        $(#[$meta:meta])*
        pub struct $resource:ident named $name_doc:literal {
            $($fields:tt)*
        }
        times: $($time:ident)*;
    ) => {
        $crate::resource_struct!(
            @build [$(#[$meta])*] $resource $name_doc [$($fields)*] [] $($time)*
        );

        impl $resource {
            /// The JSON names of the standard fields the model's declaration adds, all
            /// output only: its field table declares them from here.
            pub const STANDARD_FIELDS: &'static [&'static str] = &[
                "name",
                "uid",
                "createTime",
                $($crate::resource_struct!(@json $time),)*
                "etag",
            ];
        }
    };
    (@json update_time) => { "updateTime" };
    (@json delete_time) => { "deleteTime" };
    (@json purge_time) => { "purgeTime" };
    (@build $meta:tt $resource:ident $name_doc:literal $fields:tt [$($times:tt)*]
        update_time $($rest:ident)*) => {
        $crate::resource_struct!(@build $meta $resource $name_doc $fields [$($times)*
            /// Last change time. Output only.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub update_time: Option<$crate::time::Timestamp>,
        ] $($rest)*);
    };
    (@build $meta:tt $resource:ident $name_doc:literal $fields:tt [$($times:tt)*]
        delete_time $($rest:ident)*) => {
        $crate::resource_struct!(@build $meta $resource $name_doc $fields [$($times)*
            /// Soft-deletion time, when deleted. Output only.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub delete_time: Option<$crate::time::Timestamp>,
        ] $($rest)*);
    };
    (@build $meta:tt $resource:ident $name_doc:literal $fields:tt [$($times:tt)*]
        purge_time $($rest:ident)*) => {
        $crate::resource_struct!(@build $meta $resource $name_doc $fields [$($times)*
            /// When it will be purged, once soft-deleted. Output only.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub purge_time: Option<$crate::time::Timestamp>,
        ] $($rest)*);
    };
    (@build [$($meta:tt)*] $resource:ident $name_doc:literal [$($fields:tt)*] [$($times:tt)*]) => {
        $($meta)*
        pub struct $resource {
            #[doc = $name_doc]
            #[serde(
                default,
                deserialize_with = "crate::serde_util::null_as_default",
                skip_serializing_if = "String::is_empty"
            )]
            pub name: String,
            /// Server-assigned unique identifier, a UUID (AIP-148). Output only.
            #[serde(
                default,
                deserialize_with = "crate::serde_util::null_as_default",
                skip_serializing_if = "String::is_empty"
            )]
            pub uid: String,
            $($fields)*
            /// Creation time. Output only.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub create_time: Option<$crate::time::Timestamp>,
            $($times)*
            /// Strong etag of this version (AIP-154), quotes included. Output only.
            #[serde(
                default,
                deserialize_with = "crate::serde_util::null_as_default",
                skip_serializing_if = "String::is_empty"
            )]
            pub etag: String,
            /// Version counter behind the etag, bumped on every change, delete and
            /// undelete included. Not part of the JSON.
            #[serde(skip)]
            #[cfg_attr(feature = "openapi", schema(ignore))]
            pub revision: i64,
        }
    };
}

/// The strong etag (AIP-154) of version `revision` of the resource with `uid`:
/// a quoted hex digest, changing on every change, including delete and undelete.
pub fn etag(uid: &str, revision: i64) -> String {
    let digest = Sha256::digest(format!("{uid}:{revision}").as_bytes());
    format!("\"{}\"", hex(&digest[..10]))
}

/// A resource (or any part of one) as JSON, for change records and comparisons.
///
/// # Errors
/// INTERNAL when it does not serialise (a bug: resources are plain data).
pub fn to_json<T: Serialize>(value: &T) -> Result<Value> {
    serde_json::to_value(value).map_err(|e| Error::internal(e.to_string()))
}

/// Hex SHA-256 of the method and its parameters, for idempotency keys: the same
/// request gives the same fingerprint whatever the order of object keys.
pub fn fingerprint(method: &str, parts: &[(&str, &Value)]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(method.as_bytes());
    for (name, value) in parts {
        hasher.update([0]);
        hasher.update(name.as_bytes());
        hasher.update([0]);
        // serde_json's maps are ordered by key, so this text is canonical.
        hasher.update(value.to_string().as_bytes());
    }
    hex(&hasher.finalize())
}

/// Lower-case hex digits of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Reads `body` as a `T`, reporting the exact path of a bad field under `prefix`
/// (`entity.individual.dateOfBirth`). As in strict proto3 JSON, a message must be a
/// JSON object: serde would also read a struct from an array, by position, so the body
/// is compared with the value read and an array standing for an object is refused.
///
/// # Errors
/// INVALID_ARGUMENT with a field violation: unknown field, wrong type or bad value.
pub fn parse_body<T: DeserializeOwned + Serialize>(body: Value, prefix: &str) -> Result<T> {
    let parsed = deserialize::<T>(body.clone(), prefix)?;
    let read = serde_json::to_value(&parsed).map_err(|e| Error::internal(e.to_string()))?;
    check_shapes(&body, &read, prefix)?;
    Ok(parsed)
}

/// Refuses an array in `input` where the value read from it is an object.
fn check_shapes(input: &Value, read: &Value, path: &str) -> Result<()> {
    match (input, read) {
        (Value::Array(_), Value::Object(_)) => Err(Error::invalid_field(
            path,
            "INVALID_VALUE",
            "must be a JSON object, not an array",
        )),
        (Value::Object(input), Value::Object(read)) => input.iter().try_for_each(|(key, value)| {
            read.get(key)
                .map_or(Ok(()), |r| check_shapes(value, r, &format!("{path}.{key}")))
        }),
        (Value::Array(input), Value::Array(read)) => input
            .iter()
            .zip(read)
            .enumerate()
            .try_for_each(|(i, (value, r))| check_shapes(value, r, &format!("{path}[{i}]"))),
        _ => Ok(()),
    }
}

fn deserialize<T: DeserializeOwned>(body: Value, prefix: &str) -> Result<T> {
    serde_path_to_error::deserialize::<_, T>(body).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." || path.is_empty() {
            prefix.to_owned()
        } else {
            format!("{prefix}.{path}")
        };
        let message = e.into_inner().to_string();
        let reason = if message.starts_with("unknown field") {
            "UNKNOWN_FIELD"
        } else {
            "INVALID_VALUE"
        };
        Error::invalid_field(field, reason, message)
    })
}

/// Requires `body` to be a JSON object.
///
/// # Errors
/// INVALID_ARGUMENT naming `field` otherwise.
pub fn require_object(body: &Value, field: &str) -> Result<()> {
    if body.is_object() {
        Ok(())
    } else {
        Err(Error::invalid_field(
            field,
            "INVALID_VALUE",
            "must be a JSON object",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn etags_are_quoted_and_change_with_revision() {
        let a = etag("uid", 1);
        assert!(a.starts_with('"') && a.ends_with('"'));
        assert_ne!(a, etag("uid", 2));
        assert_ne!(a, etag("other", 1));
    }

    #[test]
    fn fingerprints_ignore_key_order() {
        let a = json!({"a": 1, "b": 2});
        let b: Value = serde_json::from_str(r#"{"b": 2, "a": 1}"#).unwrap();
        assert_eq!(
            fingerprint("m", &[("body", &a)]),
            fingerprint("m", &[("body", &b)])
        );
        assert_ne!(
            fingerprint("m", &[("body", &a)]),
            fingerprint("n", &[("body", &a)])
        );
    }

    #[test]
    fn arrays_do_not_stand_for_objects() {
        #[derive(Debug, serde::Deserialize, serde::Serialize)]
        struct Outer {
            inner: Option<Inner>,
            list: Vec<Inner>,
        }
        #[derive(Debug, serde::Deserialize, serde::Serialize)]
        struct Inner {
            a: i32,
        }
        let error = parse_body::<Outer>(json!({"inner": [1], "list": []}), "x").unwrap_err();
        assert_eq!(error.field_violations[0].field, "x.inner");
        let error = parse_body::<Outer>(json!({"list": [{"a": 1}, [2]]}), "x").unwrap_err();
        assert_eq!(error.field_violations[0].field, "x.list[1]");
        assert!(parse_body::<Outer>(json!({"inner": {"a": 1}, "list": [{"a": 2}]}), "x").is_ok());
    }

    #[test]
    fn body_errors_name_the_field() {
        #[derive(Debug, serde::Deserialize, serde::Serialize)]
        #[serde(deny_unknown_fields, rename_all = "camelCase")]
        struct Inner {
            #[allow(dead_code)]
            page_size: i32,
        }
        let error = parse_body::<Inner>(json!({"pageSize": "x"}), "entity").unwrap_err();
        assert_eq!(error.field_violations[0].field, "entity.pageSize");
        let error = parse_body::<Inner>(json!({"pageSize": 1, "zzz": 1}), "entity").unwrap_err();
        assert_eq!(error.field_violations[0].reason, "UNKNOWN_FIELD");
    }
}
