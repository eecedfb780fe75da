//! Batch get (AIP-231), the same for every collection: 1 to [`MAX_BATCH_GET`] names,
//! answered all or nothing, in the order asked, a name given twice answered twice.

use std::collections::BTreeSet;

use crate::error::{Error, Result};
use crate::id::is_well_formed_id;

/// Most names in one `:batchGet`.
pub const MAX_BATCH_GET: usize = 1000;

/// The names of one collection: `{collection}/{id}`.
#[derive(Debug, Clone, Copy)]
pub struct Collection {
    /// The collection id in names (`entities`).
    pub id: &'static str,
    /// The pattern of a name, for messages (`entities/{entity}`).
    pub pattern: &'static str,
    /// What one resource is called, for messages (`an entity`).
    pub called: &'static str,
}

impl Collection {
    /// The resource name of `id` in this collection.
    pub fn name_of(&self, id: &str) -> String {
        format!("{}/{id}", self.id)
    }
}

/// The ids `names` ask for, in order.
///
/// # Errors
/// INVALID_ARGUMENT on `names` for no name or too many, on `names[i]` for the first
/// name that is not one of `collection`.
pub fn requested_ids(names: &[String], collection: Collection) -> Result<Vec<String>> {
    if names.is_empty() {
        return Err(Error::invalid_field(
            "names",
            "REQUIRED",
            "give at least one name",
        ));
    }
    if names.len() > MAX_BATCH_GET {
        return Err(Error::invalid_field(
            "names",
            "TOO_MANY_NAMES",
            format!("at most {MAX_BATCH_GET} names (got {})", names.len()),
        ));
    }
    names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            name.strip_prefix(collection.id)
                .and_then(|rest| rest.strip_prefix('/'))
                .filter(|id| is_well_formed_id(id))
                .map(str::to_owned)
                .ok_or_else(|| {
                    Error::invalid_field(
                        format!("names[{i}]"),
                        "INVALID_NAME",
                        format!(
                            "'{name}' is not {} name ({})",
                            collection.called, collection.pattern
                        ),
                    )
                })
        })
        .collect()
}

/// The distinct `ids`, sorted: what to read.
pub fn distinct(ids: &[String]) -> Vec<String> {
    ids.iter()
        .cloned()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// The resources `found` in the order of `ids`, each as often as asked.
///
/// # Errors
/// NOT_FOUND naming the first id of `ids` that `found` lacks.
pub fn in_request_order<T: Clone>(
    ids: &[String],
    found: &[T],
    id_of: impl Fn(&T) -> &str,
    collection: Collection,
) -> Result<Vec<T>> {
    ids.iter()
        .map(|id| {
            found
                .iter()
                .find(|item| id_of(item) == id)
                .cloned()
                .ok_or_else(|| Error::not_found(&collection.name_of(id)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const THINGS: Collection = Collection {
        id: "things",
        pattern: "things/{thing}",
        called: "a thing",
    };

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn names_are_checked_in_order() {
        let ids = requested_ids(&names(&["things/b-1", "things/a-1", "things/b-1"]), THINGS);
        assert_eq!(ids.unwrap(), ["b-1", "a-1", "b-1"]);
        let error =
            requested_ids(&names(&["things/a-1", "thingsx/a", "others/b"]), THINGS).unwrap_err();
        assert_eq!(error.field_violations[0].field, "names[1]");
        assert!(
            error
                .message
                .contains("is not a thing name (things/{thing})")
        );
        assert_eq!(requested_ids(&[], THINGS).unwrap_err().reason, "REQUIRED");
        let many = vec!["things/abcd".to_owned(); MAX_BATCH_GET + 1];
        assert_eq!(
            requested_ids(&many, THINGS).unwrap_err().reason,
            "TOO_MANY_NAMES"
        );
    }

    #[test]
    fn answers_follow_the_request_or_name_the_first_missing() {
        let ids = names(&["b", "a", "b"]);
        assert_eq!(distinct(&ids), ["a", "b"]);
        let found = names(&["a", "b"]);
        let ordered = in_request_order(&ids, &found, |s| s.as_str(), THINGS).unwrap();
        assert_eq!(ordered, ["b", "a", "b"]);
        let error =
            in_request_order(&names(&["a", "x", "y"]), &found, |s| s.as_str(), THINGS).unwrap_err();
        assert_eq!(error.metadata["resource"], "things/x");
    }
}
