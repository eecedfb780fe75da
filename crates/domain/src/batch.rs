//! Batch get (AIP-231) and batch create (AIP-233), the same for every collection.
//! A batch get takes 1 to [`MAX_BATCH_GET`] names, answered all or nothing, in the
//! order asked, a name given twice answered twice. A batch create takes 1 to
//! [`MAX_BATCH_CREATE`] create requests, each as its Create reads it, stored all or
//! nothing and answered in the order asked.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use crate::error::{Code, Error, Result};
use crate::id::is_well_formed_id;

/// Most names in one `:batchGet`.
pub const MAX_BATCH_GET: usize = 1000;

/// Most create requests in one `:batchCreate`.
pub const MAX_BATCH_CREATE: usize = 1000;

/// One create request of a batch (`{entity, entityId}`): the resource's body and
/// the id the caller chose for it, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateRequest {
    /// The resource, as the body of its Create.
    pub body: Value,
    /// The id the caller chose, as its Create's id parameter.
    pub id: Option<String>,
}

/// The create requests of a `:batchCreate` body (`{requests: [...]}`), in order,
/// each read by [`create_request`] with `resource` the member holding the resource
/// and `id_parameter` the one holding its id.
///
/// # Errors
/// INVALID_ARGUMENT on `requests` for none or too many, on the body or
/// `requests[i]` for what is not a create request.
pub fn create_requests(
    body: Value,
    resource: &str,
    id_parameter: &str,
) -> Result<Vec<CreateRequest>> {
    let Value::Object(mut members) = body else {
        return Err(Error::invalid_field(
            "requests",
            "REQUIRED",
            "give the create requests",
        ));
    };
    let requests = members.remove("requests");
    if let Some(other) = members.keys().next() {
        return Err(Error::invalid_field(
            other.clone(),
            "UNKNOWN_FIELD",
            "is not a field of a batch create request",
        ));
    }
    let requests = match requests {
        Some(Value::Array(requests)) if !requests.is_empty() => requests,
        Some(Value::Array(_) | Value::Null) | None => {
            return Err(Error::invalid_field(
                "requests",
                "REQUIRED",
                "give at least one create request",
            ));
        }
        Some(_) => {
            return Err(Error::invalid_field(
                "requests",
                "INVALID_VALUE",
                "must be an array of create requests",
            ));
        }
    };
    if requests.len() > MAX_BATCH_CREATE {
        return Err(Error::invalid_field(
            "requests",
            "TOO_MANY_REQUESTS",
            format!(
                "at most {MAX_BATCH_CREATE} create requests (got {})",
                requests.len()
            ),
        ));
    }
    requests
        .into_iter()
        .enumerate()
        .map(|(i, request)| {
            create_request(request, resource, id_parameter)
                .map_err(|e| e.within(&format!("requests[{i}]")))
        })
        .collect()
}

/// One create request, `{<resource>: {...}, <id_parameter>: "..."}`, the id optional.
///
/// # Errors
/// INVALID_ARGUMENT naming the member that is missing, unknown or of the wrong type
/// (the request itself when it is not an object).
pub fn create_request(request: Value, resource: &str, id_parameter: &str) -> Result<CreateRequest> {
    let Value::Object(mut members) = request else {
        return Err(Error::invalid_field(
            resource,
            "REQUIRED",
            "a create request is a JSON object holding the resource",
        ));
    };
    let body = members.remove(resource);
    let id = members.remove(id_parameter);
    if let Some(other) = members.keys().next() {
        return Err(Error::invalid_field(
            other.clone(),
            "UNKNOWN_FIELD",
            format!("is not a field of a create request ({resource}, {id_parameter})"),
        ));
    }
    let body = match body {
        Some(body @ Value::Object(_)) => body,
        None | Some(Value::Null) => {
            return Err(Error::invalid_field(resource, "REQUIRED", "is required"));
        }
        Some(_) => {
            return Err(Error::invalid_field(
                resource,
                "INVALID_VALUE",
                "must be a JSON object",
            ));
        }
    };
    let id = match id {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) => Some(id),
        Some(_) => {
            return Err(Error::invalid_field(
                id_parameter,
                "INVALID_VALUE",
                "must be a string",
            ));
        }
    };
    Ok(CreateRequest { body, id })
}

/// Refuses an id chosen twice among `requests`.
///
/// # Errors
/// INVALID_ARGUMENT (`DUPLICATE_ID`) on `requests[j].<id_parameter>` for the first
/// request `j` choosing an id an earlier request chose.
pub fn distinct_ids(requests: &[CreateRequest], id_parameter: &str) -> Result<()> {
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(requests.len());
    for (j, request) in requests.iter().enumerate() {
        let Some(id) = request.id.as_deref() else {
            continue;
        };
        if let Some(i) = seen.insert(id, j) {
            return Err(Error::invalid_field(
                format!("requests[{j}].{id_parameter}"),
                "DUPLICATE_ID",
                format!("'{id}' is also the id of requests[{i}]; each id once"),
            ));
        }
    }
    Ok(())
}

/// ALREADY_EXISTS for the resource `name`, which `requests[i]` would create.
pub fn already_exists(i: usize, name: &str) -> Error {
    let field = format!("requests[{i}]");
    Error::new(
        Code::AlreadyExists,
        "RESOURCE_ALREADY_EXISTS",
        format!("Resource '{name}' of '{field}' already exists."),
    )
    .with_metadata("resource", name)
    .with_metadata("field", field)
}

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

    #[test]
    fn create_requests_are_read_in_order_and_named_by_index() {
        let body = serde_json::json!({"requests": [
            {"thing": {"a": 1}, "thingId": "t-1"},
            {"thing": {"a": 2}},
        ]});
        let requests = create_requests(body, "thing", "thingId").unwrap();
        assert_eq!(requests[0].id.as_deref(), Some("t-1"));
        assert_eq!(requests[1].body, serde_json::json!({"a": 2}));
        let field = |body: Value| {
            create_requests(body, "thing", "thingId")
                .unwrap_err()
                .field_violations[0]
                .field
                .clone()
        };
        assert_eq!(field(serde_json::json!({"requests": []})), "requests");
        assert_eq!(field(serde_json::json!({"other": 1})), "other");
        let bad = serde_json::json!({"requests": [{"thing": {}}, {"thingId": "x"}]});
        assert_eq!(field(bad), "requests[1].thing");
        let bad = serde_json::json!({"requests": [{"thing": {}, "thingId": 3}]});
        assert_eq!(field(bad), "requests[0].thingId");
        let many = vec![serde_json::json!({"thing": {}}); MAX_BATCH_CREATE + 1];
        let error = create_requests(serde_json::json!({ "requests": many }), "thing", "thingId");
        assert_eq!(error.unwrap_err().reason, "TOO_MANY_REQUESTS");
    }

    #[test]
    fn an_id_chosen_twice_names_the_second_request() {
        let request = |id: Option<&str>| CreateRequest {
            body: serde_json::json!({}),
            id: id.map(str::to_owned),
        };
        let requests = [request(Some("a-1")), request(None), request(Some("a-1"))];
        let error = distinct_ids(&requests, "thingId").unwrap_err();
        assert_eq!(error.reason, "DUPLICATE_ID");
        assert_eq!(error.field_violations[0].field, "requests[2].thingId");
        assert!(distinct_ids(&requests[..2], "thingId").is_ok());
        let taken = already_exists(4, "things/a-1");
        assert_eq!(taken.code, Code::AlreadyExists);
        assert_eq!(taken.metadata["field"], "requests[4]");
    }

    #[test]
    fn an_error_within_a_request_names_its_fields_under_it() {
        let error = Error::invalid_field("entity.displayName", "REQUIRED", "is required")
            .within("requests[3]");
        assert_eq!(
            error.field_violations[0].field,
            "requests[3].entity.displayName"
        );
        assert_eq!(error.metadata["field"], "requests[3].entity.displayName");
        assert!(error.message.contains("'requests[3].entity.displayName'"));
    }
}
