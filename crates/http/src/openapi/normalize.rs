//! What the document gets after utoipa has written it, by rules that hold for every
//! operation and schema, so that no handler can forget them and stock generators read
//! the document as it is meant:
//! - every operation's `operationId` comes from the route table
//!   ([`crate::routes::operation_id`]);
//! - every API operation documents the AIP-193 error envelope for each error it can
//!   answer, and `default` for the rest;
//! - a nullable reference carries its description beside the `oneOf`, not inside the
//!   reference;
//! - each variant of a tagged union is a named schema, referenced from the union with a
//!   discriminator;
//! - every parameter states the rule the server checks it by, where JSON Schema can:
//!   id patterns, UUID request ids, page bounds and each list's `orderBy` grammar.

use rics_aip::order_by::OrderBy;
use rics_aip::resource_id::USER_ID_PATTERN;
use rics_domain::id::{REQUEST_ID_PATTERN, WELL_FORMED_ID_PATTERN};
use rics_domain::list::ListSpec;
use rics_domain::risk::model::VERSION_PATTERN;
use serde_json::{Map, Value, json};

use crate::routes::operation_id::operation_ids;
use crate::routes::{ROUTES, Route};

/// The shared response every API error refers to.
const ERROR_RESPONSE: &str = "Error";

/// Applies every rule of this module to `document`.
///
/// # Errors
/// The route table's naming problems ([`operation_ids`]).
pub fn normalize(document: &mut Value) -> Result<(), String> {
    let ids = operation_ids()?;
    for route in ROUTES {
        let Some(operation) = operation_mut(document, route) else {
            continue;
        };
        if let Some(id) = ids.get(&(route.method, route.path)) {
            operation.insert("operationId".into(), Value::String(id.clone()));
        }
        if route.path.starts_with("/v1alpha/") && route.scope.is_some() {
            document_errors(operation, route);
        }
        state_parameter_rules(operation, route);
    }
    insert_error_response(document);
    lift_nullable_descriptions(document);
    name_tagged_variants(document);
    state_schema_rules(document);
    Ok(())
}

/// The keywords a rule adds to a schema.
type SchemaRule = fn() -> Value;

/// Rules over several fields of a schema, which field attributes cannot state, by
/// schema name.
const SCHEMA_RULES: &[(&str, SchemaRule)] = &[(
    "IndividualEntityIDVerificationJob",
    // Exactly one of `document` and `idType` (ONE_OF, REQUIRED).
    || json!({ "oneOf": [{ "required": ["document"] }, { "required": ["idType"] }] }),
)];

fn state_schema_rules(document: &mut Value) {
    for (name, rule) in SCHEMA_RULES {
        if let (Some(Value::Object(schema)), Value::Object(rule)) = (
            document.pointer_mut(&format!("/components/schemas/{name}")),
            rule(),
        ) {
            schema.extend(rule);
        }
    }
}

/// The operation of `route` in `document`, if documented.
fn operation_mut<'a>(document: &'a mut Value, route: &Route) -> Option<&'a mut Map<String, Value>> {
    document
        .get_mut("paths")?
        .get_mut(route.path)?
        .get_mut(route.method.to_ascii_lowercase())?
        .as_object_mut()
}

/// The error statuses an authenticated API operation can answer: bad input, missing or
/// refused credentials, a missing resource (or parent), the rate limit, and a conflict
/// (AIP-154 etags, ids taken) when it writes. `default` covers the rest (5xx, 413, 415).
fn error_statuses(route: &Route) -> Vec<&'static str> {
    let mut statuses = vec!["400", "401", "403", "404"];
    if route.method != "GET" {
        statuses.push("409");
    }
    statuses.extend(["429", "default"]);
    statuses
}

fn document_errors(operation: &mut Map<String, Value>, route: &Route) {
    let responses = operation
        .entry("responses")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(responses) = responses.as_object_mut() else {
        return;
    };
    let reference = json!({ "$ref": format!("#/components/responses/{ERROR_RESPONSE}") });
    for status in error_statuses(route) {
        responses.insert(status.to_owned(), reference.clone());
    }
}

/// Merges into each parameter's schema what the server checks of it.
fn state_parameter_rules(operation: &mut Map<String, Value>, route: &Route) {
    let Some(Value::Array(parameters)) = operation.get_mut("parameters") else {
        return;
    };
    for parameter in parameters {
        let location = parameter["in"].as_str().unwrap_or_default().to_owned();
        let name = parameter["name"].as_str().unwrap_or_default().to_owned();
        let Some(Value::Object(rule)) = parameter_rule(route, &location, &name) else {
            continue;
        };
        if let Some(Value::Object(schema)) = parameter.get_mut("schema") {
            schema.extend(rule);
        }
    }
}

/// The schema keywords of the parameter `name` in `location` of `route`, beyond its
/// type: see [`normalize`].
fn parameter_rule(route: &Route, location: &str, name: &str) -> Option<Value> {
    let rule = match (location, name) {
        ("path", "riskModel") => json!({ "pattern": VERSION_PATTERN }),
        ("path", _) => json!({ "pattern": WELL_FORMED_ID_PATTERN }),
        ("query", "requestId") => json!({
            "format": "uuid",
            "pattern": REQUEST_ID_PATTERN,
            "not": { "const": "00000000-0000-0000-0000-000000000000" }
        }),
        ("query", "pageSize" | "skip") => json!({ "minimum": 0, "maximum": i32::MAX }),
        ("query", "orderBy") => json!({ "pattern": OrderBy::pattern(list_spec(route)?.sortable) }),
        ("query", id) if id.ends_with("Id") => json!({ "pattern": USER_ID_PATTERN }),
        _ => return None,
    };
    Some(rule)
}

/// The list declaration behind a list route.
fn list_spec(route: &Route) -> Option<&'static ListSpec> {
    use rics_domain::{activity, alert, document, entity, event, job, note, risk, workspace};
    let spec: &'static ListSpec = match route.path {
        "/v1alpha/entities" => &entity::fields::LIST,
        "/v1alpha/entities/{entity}:EntityRelationships" => &entity::fields::RELATIONSHIP_LIST,
        "/v1alpha/entities/{entity}/events" => &event::service::EVENT_LIST,
        "/v1alpha/riskModels" => &risk::service::LIST,
        "/v1alpha/workspaces" => &workspace::fields::LIST,
        "/v1alpha/activityLogTypes" => &activity::fields::TYPE_LIST,
        "/v1alpha/entities/{entity}/activityLogs" => &activity::fields::LOG_LIST,
        "/v1alpha/alertTypes" => &alert::fields::TYPE_LIST,
        "/v1alpha/alerts" => &alert::fields::LIST,
        "/v1alpha/documents" | "/v1alpha/entities/{entity}/documents" => &document::fields::LIST,
        path if path.ends_with("/notes") => &note::fields::LIST,
        path if path.ends_with("Jobs") => &job::service::JOB_LIST,
        _ => return None,
    };
    Some(spec)
}

fn insert_error_response(document: &mut Value) {
    let Some(components) = document
        .get_mut("components")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let responses = components
        .entry("responses")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(responses) = responses.as_object_mut() {
        responses.insert(
            ERROR_RESPONSE.to_owned(),
            json!({
                "description": "An AIP-193 error: the canonical status, an ErrorInfo with the reason, field violations for bad input, and the request id.",
                "content": {
                    "application/json": {
                        "schema": { "$ref": "#/components/schemas/ErrorEnvelope" }
                    }
                }
            }),
        );
    }
}

/// Rewrites `{"oneOf": [{"type": "null"}, {"$ref": R, "description": D}]}` as
/// `{"oneOf": [{"type": "null"}, {"$ref": R}], "description": D}`, at any depth:
/// generators read a reference with other keywords as an untyped value.
fn lift_nullable_descriptions(value: &mut Value) {
    match value {
        Value::Object(members) => {
            let mut lifted = Map::new();
            if let Some(Value::Array(variants)) = members.get_mut("oneOf") {
                for variant in variants.iter_mut() {
                    if let Value::Object(variant) = variant
                        && variant.contains_key("$ref")
                    {
                        variant.retain(|key, value| {
                            if key == "$ref" {
                                true
                            } else {
                                lifted.insert(key.clone(), value.clone());
                                false
                            }
                        });
                    }
                }
            }
            for (key, value) in lifted {
                members.entry(key).or_insert(value);
            }
            for member in members.values_mut() {
                lift_nullable_descriptions(member);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(lift_nullable_descriptions),
        _ => {}
    }
}

/// Moves each inline variant of a component's tagged `oneOf` (every variant an object
/// whose tag property has one `enum` value) into a schema of its own, named
/// `{Union}{Tag}` (`ErrorDetailErrorInfo`, `FactorNationality`), and adds the
/// discriminator: generators then make one model per variant instead of clashing
/// anonymous ones.
fn name_tagged_variants(document: &mut Value) {
    let Some(schemas) = document
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let mut named = Vec::new();
    for (union, schema) in schemas.iter_mut() {
        let Some(Value::Array(variants)) = schema.get_mut("oneOf") else {
            continue;
        };
        let Some(tag) = common_tag(variants) else {
            continue;
        };
        let mut mapping = Map::new();
        for variant in variants.iter_mut() {
            let Some(value) = tag_value(variant, &tag) else {
                continue;
            };
            let name = format!("{union}{}", variant_name(&value));
            let reference = format!("#/components/schemas/{name}");
            mapping.insert(value, Value::String(reference.clone()));
            let inline = std::mem::replace(variant, json!({ "$ref": reference }));
            named.push((name, inline));
        }
        if let Some(schema) = schema.as_object_mut() {
            schema.insert(
                "discriminator".into(),
                json!({ "propertyName": tag, "mapping": mapping }),
            );
        }
    }
    for (name, schema) in named {
        schemas.insert(name, schema);
    }
}

/// The property every variant fixes to one value, when all variants are inline objects
/// that have one.
fn common_tag(variants: &[Value]) -> Option<String> {
    let first = variants.first()?.get("properties")?.as_object()?;
    first
        .keys()
        .find(|key| {
            variants
                .iter()
                .all(|variant| tag_value(variant, key).is_some())
        })
        .cloned()
}

fn tag_value(variant: &Value, tag: &str) -> Option<String> {
    let values = variant
        .get("properties")?
        .get(tag)?
        .get("enum")?
        .as_array()?;
    match values.as_slice() {
        [Value::String(value)] => Some(value.clone()),
        _ => None,
    }
}

/// `type.googleapis.com/google.rpc.ErrorInfo` as `ErrorInfo`, `COUNTRY_OF_RESIDENCE` as
/// `CountryOfResidence`.
fn variant_name(tag_value: &str) -> String {
    let last = tag_value.rsplit(['.', '/']).next().unwrap_or(tag_value);
    if last.contains('_') || last.chars().all(|c| !c.is_lowercase()) {
        last.split('_')
            .filter(|word| !word.is_empty())
            .map(|word| {
                let lower = word.to_lowercase();
                let mut chars = lower.chars();
                chars
                    .next()
                    .map(|first| first.to_uppercase().chain(chars).collect::<String>())
                    .unwrap_or_default()
            })
            .collect()
    } else {
        last.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_names_come_from_the_tag() {
        assert_eq!(
            variant_name("type.googleapis.com/google.rpc.ErrorInfo"),
            "ErrorInfo"
        );
        assert_eq!(variant_name("COUNTRY_OF_RESIDENCE"), "CountryOfResidence");
        assert_eq!(variant_name("AGE"), "Age");
    }

    #[test]
    fn nullable_references_keep_their_description_outside() {
        let mut schema = json!({"properties": {"company": {"oneOf": [
            {"type": "null"},
            {"$ref": "#/components/schemas/Company", "description": "Details."}
        ]}}});
        lift_nullable_descriptions(&mut schema);
        assert_eq!(
            schema,
            json!({"properties": {"company": {"description": "Details.", "oneOf": [
                {"type": "null"},
                {"$ref": "#/components/schemas/Company"}
            ]}}})
        );
    }

    #[test]
    fn tagged_variants_become_named_schemas() {
        let mut document = json!({"components": {"schemas": {"Shape": {"oneOf": [
            {"type": "object", "properties": {"kind": {"type": "string", "enum": ["CIRCLE"]}, "radius": {"type": "number"}}},
            {"type": "object", "properties": {"kind": {"type": "string", "enum": ["UNIT_SQUARE"]}}}
        ]}}}});
        name_tagged_variants(&mut document);
        let schemas = &document["components"]["schemas"];
        assert_eq!(
            schemas["Shape"]["oneOf"],
            json!([
                {"$ref": "#/components/schemas/ShapeCircle"},
                {"$ref": "#/components/schemas/ShapeUnitSquare"}
            ])
        );
        assert_eq!(schemas["Shape"]["discriminator"]["propertyName"], "kind");
        assert_eq!(
            schemas["ShapeCircle"]["properties"]["radius"]["type"],
            "number"
        );
    }
}
