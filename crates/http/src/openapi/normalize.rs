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
//! - a schema that flattens a closed one (`allOf` with a struct that refuses unknown
//!   fields) is one closed object holding every member's properties;
//! - every parameter states the rule the server checks it by, where JSON Schema can:
//!   id patterns, UUID request ids, page bounds and each list's `orderBy` grammar;
//! - every resource schema states its field table: output-only fields are `readOnly`,
//!   required ones `required` and not blank, multi-line text may hold line breaks and
//!   tabs, and every other string is one line without control characters (docs/api.md
//!   "Control characters"); a PATCH body is the resource with nothing required;
//! - every length and count the validators allow ([`super::limits`]).

use rics_aip::field_mask::{Behavior, FieldKind, FieldTable, UpdateMask};
use rics_aip::order_by::OrderBy;
use rics_aip::resource_id::USER_ID_PATTERN;
use rics_domain::automation::rules::{
    MAX_ARG as AUTOMATION_MAX_ARG, PARAMETER_PATTERN as AUTOMATION_PARAMETER_PATTERN,
};
use rics_domain::form_definition::model::REVISION_ID_PATTERN;
use rics_domain::form_definition::rules::{ACCEPT_PATTERN, KEY_PATTERN};
use rics_domain::id::{REQUEST_ID_PATTERN, WELL_FORMED_ID_PATTERN};
use rics_domain::list::ListSpec;
use rics_domain::risk::model::VERSION_PATTERN;
use rics_domain::values::FULL_DATE_PATTERN as FULL_DATE;
use rics_domain::values::{EMAIL_PATTERN, PHONE_PATTERN};
use serde_json::{Map, Value, json};

use super::limits::state_limits;
use crate::routes::operation_id::operation_ids;
use crate::routes::{ROUTES, Route};

/// The shared response every API error refers to.
const ERROR_RESPONSE: &str = "Error";

/// Applies every rule of this module to `document`.
///
/// # Errors
/// The route table's naming problems ([`operation_ids`]), and limits on fields the
/// document lacks ([`state_limits`]).
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
    allow_missing_deletes(document);
    insert_error_response(document);
    lift_nullable_descriptions(document);
    name_tagged_variants(document);
    merge_flattened(document);
    for (name, table) in resource_tables() {
        state_field_table(document, name, table);
    }
    state_schema_rules(document);
    accept_lower_case_field_types(document);
    state_limits(document)?;
    bound_scores(document);
    state_text_rule(document);
    relax_update_bodies(document);
    add_specified_enums(document);
    Ok(())
}

/// No U+0000, the one rule of every query value (docs/api.md "Control characters").
const WITHOUT_NUL: &str = "^[^\\u0000]*$";
/// One line: no C0 or C1 control character.
const SINGLE_LINE: &str = "^[^\\u0000-\\u001f\\u007f-\\u009f]*$";
/// One line with something other than white space.
const SINGLE_LINE_NOT_BLANK: &str = "^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\s\\u0000-\\u001f\\u007f-\\u009f][^\\u0000-\\u001f\\u007f-\\u009f]*$";
/// Text that may hold line breaks and tabs, and no other control character.
const MULTI_LINE: &str = "^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]*$";
/// Multi-line text with something other than white space.
const MULTI_LINE_NOT_BLANK: &str = "^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]*[^\\s\\u0000-\\u001f\\u007f-\\u009f][^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]*$";

/// Merges each component composed (`allOf`) of objects, one of them closed
/// (`additionalProperties: false`: a `#[serde(flatten)]` struct that refuses unknown
/// fields), into one closed object with every member's properties and required fields:
/// inside an `allOf` the closed member would refuse the others' properties, so no
/// instance could fit, and the server, which reads the flattened struct, refuses any
/// other property.
fn merge_flattened(document: &mut Value) {
    let Some(components) = document
        .pointer("/components/schemas")
        .and_then(Value::as_object)
        .cloned()
    else {
        return;
    };
    let Some(schemas) = document
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    for schema in schemas.values_mut() {
        let Some(object) = schema.as_object_mut() else {
            continue;
        };
        let Some(members) = object.get("allOf").and_then(Value::as_array) else {
            continue;
        };
        let resolved: Option<Vec<&Map<String, Value>>> = members
            .iter()
            .map(|member| {
                let target = match member.get("$ref").and_then(Value::as_str) {
                    Some(reference) => components.get(reference.rsplit('/').next()?)?,
                    None => member,
                };
                target.as_object().filter(|t| t.contains_key("properties"))
            })
            .collect();
        let Some(resolved) = resolved else { continue };
        let closed = |member: &&Map<String, Value>| {
            member.get("additionalProperties") == Some(&Value::Bool(false))
        };
        if !resolved.iter().any(closed) {
            continue;
        }
        let mut properties = Map::new();
        let mut required: Vec<Value> = Vec::new();
        for member in &resolved {
            if let Some(own) = member.get("properties").and_then(Value::as_object) {
                properties.extend(own.clone());
            }
            for field in member
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if !required.contains(field) {
                    required.push(field.clone());
                }
            }
        }
        object.remove("allOf");
        object.insert("type".into(), json!("object"));
        object.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            object.insert("required".into(), Value::Array(required));
        }
        object.insert("additionalProperties".into(), Value::Bool(false));
    }
}

/// The schemas whose fields a domain field table declares.
fn resource_tables() -> [(&'static str, &'static FieldTable); 16] {
    use rics_domain::{
        activity, alert, automation, document, entity, file, form, form_definition, job, note,
        risk, tenant, webhook, workspace,
    };
    [
        ("File", &file::fields::TABLE),
        ("Entity", &entity::fields::TABLE),
        ("Workspace", &workspace::fields::TABLE),
        ("Note", &note::fields::TABLE),
        ("Alert", &alert::fields::TABLE),
        ("Document", &document::fields::TABLE),
        ("ActivityLogType", &activity::fields::TYPE_TABLE),
        ("ActivityLog", &activity::fields::LOG_TABLE),
        ("RiskModel", &risk::service::TABLE),
        ("Tenant", &tenant::service::TABLE),
        ("FormDefinition", &form_definition::fields::TABLE),
        ("Form", &form::fields::TABLE),
        ("Automation", &automation::fields::TABLE),
        ("ResolveRequest", &alert::fields::RESOLVE_TABLE),
        ("ReviewMatchRequest", &job::match_review::REVIEW_TABLE),
        ("WebhookEndpoint", &webhook::fields::TABLE),
    ]
}

/// The field tables of the job families whose jobs take PATCH, by job schema: what an
/// update mask of theirs may name.
fn changeable_job_tables() -> [(&'static str, &'static FieldTable); 1] {
    [(
        "IndividualEntityVerificationJob",
        &rics_domain::verification::jobs::FIELDS,
    )]
}

/// Applies `table` to the component schema `name`, and each nested message's table to
/// the schema its property refers to.
fn state_field_table(document: &mut Value, name: &str, table: &FieldTable) {
    let mut nested = Vec::new();
    let mut enums_needing_a_value = Vec::new();
    let specified_values = specified_enum_values(document);
    let Some(Value::Object(schema)) = document.pointer_mut(&format!("/components/schemas/{name}"))
    else {
        return;
    };
    let mut required: Vec<Value> = Vec::new();
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for field in table.fields() {
            let Some(Value::Object(property)) = properties.get_mut(field.name) else {
                continue;
            };
            let is_string = has_type(property, "string");
            match (&field.kind, field.behavior) {
                (_, Behavior::OutputOnly) => {
                    property.insert("readOnly".into(), Value::Bool(true));
                }
                (FieldKind::MultiLineText, Behavior::Required) => {
                    required.push(json!(field.name));
                    property.insert("pattern".into(), json!(MULTI_LINE_NOT_BLANK));
                }
                (FieldKind::MultiLineText, _) => {
                    property.insert("pattern".into(), json!(MULTI_LINE));
                }
                (FieldKind::Scalar, Behavior::Required) if is_string => {
                    required.push(json!(field.name));
                    property.insert("pattern".into(), json!(SINGLE_LINE_NOT_BLANK));
                }
                (FieldKind::Scalar, Behavior::Required) => {
                    required.push(json!(field.name));
                    if let Some(target) = referenced_schema(property) {
                        enums_needing_a_value.push((field.name, target));
                    }
                }
                (FieldKind::Message(inner), _) => {
                    if let Some(target) = referenced_schema(property) {
                        nested.push((target, inner));
                    }
                }
                _ => {}
            }
        }
    }
    for (field, target) in enums_needing_a_value {
        if specified_values.contains_key(&target)
            && let Some(Value::Object(properties)) = schema.get_mut("properties")
            && let Some(Value::Object(property)) = properties.get_mut(field)
        {
            require_a_value(property, &target);
        }
    }
    if !required.is_empty() {
        let list = schema
            .entry("required")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = list {
            for field in required {
                if !list.contains(&field) {
                    list.push(field);
                }
            }
        }
    }
    for (target, inner) in nested {
        state_field_table(document, &target, inner);
    }
}

/// Points an enum property at `{Enum}Specified`, the enum without its zero value, which
/// [`add_specified_enums`] declares: a required enum needs a value.
fn require_a_value(property: &mut Map<String, Value>, target: &str) {
    property.remove("oneOf");
    property.insert(
        "$ref".into(),
        json!(format!("#/components/schemas/{target}{SPECIFIED}")),
    );
}

/// The suffix of an enum's schema without its zero value.
const SPECIFIED: &str = "Specified";

/// Declares `{Enum}Specified` for each such schema a property refers to.
fn add_specified_enums(document: &mut Value) {
    let specified_values = specified_enum_values(document);
    let text = document.to_string();
    let Some(Value::Object(schemas)) = document.pointer_mut("/components/schemas") else {
        return;
    };
    for (name, values) in specified_values {
        if text.contains(&format!("\"#/components/schemas/{name}{SPECIFIED}\"")) {
            schemas.insert(
                format!("{name}{SPECIFIED}"),
                json!({
                    "type": "string",
                    "enum": values,
                    "description": format!("A {name} other than its zero value: this field needs one.")
                }),
            );
        }
    }
}

/// The values of each proto-style enum schema but its zero value (`X_UNSPECIFIED`,
/// first), by schema name.
fn specified_enum_values(document: &Value) -> std::collections::BTreeMap<String, Vec<Value>> {
    let mut found = std::collections::BTreeMap::new();
    for (name, schema) in document
        .pointer("/components/schemas")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if let Some(Value::Array(values)) = schema.get("enum")
            && values
                .first()
                .and_then(Value::as_str)
                .is_some_and(|zero| zero.ends_with("_UNSPECIFIED"))
        {
            found.insert(name.clone(), values[1..].to_vec());
        }
    }
    found
}

/// Whether a schema's `type` is `kind`, alone or beside `null`.
fn has_type(schema: &Map<String, Value>, kind: &str) -> bool {
    match schema.get("type") {
        Some(Value::String(declared)) => declared == kind,
        Some(Value::Array(declared)) => declared.iter().any(|declared| declared == kind),
        _ => false,
    }
}

/// The component a property refers to, directly or as the non-null side of a nullable.
fn referenced_schema(property: &Map<String, Value>) -> Option<String> {
    let reference = property.get("$ref").or_else(|| {
        property
            .get("oneOf")?
            .as_array()?
            .iter()
            .find_map(|variant| variant.get("$ref"))
    })?;
    Some(reference.as_str()?.rsplit('/').next()?.to_owned())
}

/// Gives every string of the component schemas, and every string query parameter, the
/// one-line rule when nothing states a rule for it yet (a pattern, an enum or a
/// format). The error envelope is left alone, its messages quoting what was refused,
/// and a rating's input, data read as given, only refuses NUL, as do the contributions
/// of a rating, whose reasons quote that input.
fn state_text_rule(document: &mut Value) {
    if let Some(Value::Object(schemas)) = document.pointer_mut("/components/schemas") {
        schemas.insert(FREE_FORM_VALUE.into(), free_form_value());
        for (name, schema) in schemas.iter_mut() {
            if matches!(
                name.as_str(),
                "EvaluationInput" | "RelatedEntityInput" | "Contribution"
            ) {
                strings_by(schema, WITHOUT_NUL);
            } else if !name.starts_with("Error")
                && !matches!(name.as_str(), "FieldViolationBody" | "OAuthErrorBody")
            {
                strings_by(schema, SINGLE_LINE);
            }
        }
    }
    if let Some(Value::Object(paths)) = document.get_mut("paths") {
        for operation in paths.values_mut().filter_map(Value::as_object_mut) {
            for operation in operation.values_mut() {
                for parameter in operation
                    .get_mut("parameters")
                    .and_then(Value::as_array_mut)
                    .into_iter()
                    .flatten()
                {
                    let name = parameter["name"].as_str().unwrap_or_default();
                    let rule = if matches!(name, "name" | "parent") {
                        SINGLE_LINE
                    } else {
                        WITHOUT_NUL
                    };
                    if let Some(schema) = parameter.get_mut("schema") {
                        strings_by(schema, rule);
                    }
                }
            }
        }
    }
}

/// The component of a value inside free-form JSON.
const FREE_FORM_VALUE: &str = "JsonValue";

/// Any JSON value whose strings and keys, at any depth, hold no U+0000: each keyword
/// applies to the instances of its type only, and arrays and objects nest the same rule.
fn free_form_value() -> Value {
    let itself = json!({ "$ref": format!("#/components/schemas/{FREE_FORM_VALUE}") });
    json!({
        "description": "Any JSON value with no U+0000 in a string or a key, at any depth.",
        "pattern": WITHOUT_NUL,
        "propertyNames": { "type": "string", "pattern": WITHOUT_NUL },
        "additionalProperties": itself,
        "items": itself,
    })
}

/// Whether an object's values are left free: no schema, `true` or `{}`.
fn is_unconstrained(values: Option<&Value>) -> bool {
    match values {
        None | Some(Value::Bool(true)) => true,
        Some(Value::Object(schema)) => schema.is_empty(),
        Some(_) => false,
    }
}

/// Gives `pattern` to every string of `schema` that has no rule yet, and the values of
/// a free-form object (no properties) the NUL rule at any depth.
fn strings_by(schema: &mut Value, pattern: &str) {
    let Value::Object(members) = schema else {
        return;
    };
    if has_type(members, "string")
        && !["pattern", "enum", "format", "const"]
            .iter()
            .any(|keyword| members.contains_key(*keyword))
    {
        members.insert("pattern".into(), json!(pattern));
    }
    if has_type(members, "object")
        && !members.contains_key("propertyNames")
        && members.get("additionalProperties") != Some(&Value::Bool(false))
    {
        // Keys the schema does not name: of a message, one line like its text; of a
        // free-form value (no properties), data that only refuses NUL.
        let free_form = !members.contains_key("properties");
        let keys = if free_form { WITHOUT_NUL } else { pattern };
        members.insert(
            "propertyNames".into(),
            json!({ "type": "string", "pattern": keys }),
        );
        if free_form && is_unconstrained(members.get("additionalProperties")) {
            members.insert(
                "additionalProperties".into(),
                json!({ "$ref": format!("#/components/schemas/{FREE_FORM_VALUE}") }),
            );
        }
    }
    for keyword in ["items", "additionalProperties", "propertyNames"] {
        if let Some(inner) = members.get_mut(keyword) {
            strings_by(inner, pattern);
        }
    }
    if let Some(Value::Object(properties)) = members.get_mut("properties") {
        for property in properties.values_mut() {
            strings_by(property, pattern);
        }
    }
    for keyword in ["oneOf", "anyOf", "allOf"] {
        if let Some(Value::Array(variants)) = members.get_mut(keyword) {
            for variant in variants {
                strings_by(variant, pattern);
            }
        }
    }
}

/// Points each PATCH body at a copy of its resource schema with nothing required and
/// no rule over several fields (`{Resource}Update`): the update mask, or the fields present, say what
/// changes (AIP-134), and the server checks the resource that results.
fn relax_update_bodies(document: &mut Value) {
    let mut copies = Vec::new();
    if let Some(Value::Object(paths)) = document.get_mut("paths") {
        for item in paths.values_mut() {
            let Some(reference) =
                item.pointer_mut("/patch/requestBody/content/application~1json/schema/$ref")
            else {
                continue;
            };
            let Some(name) = reference.as_str().and_then(|r| r.rsplit('/').next()) else {
                continue;
            };
            let copy = format!("{name}Update");
            copies.push((name.to_owned(), copy.clone()));
            *reference = json!(format!("#/components/schemas/{copy}"));
        }
    }
    let Some(Value::Object(schemas)) = document.pointer_mut("/components/schemas") else {
        return;
    };
    for (name, copy) in copies {
        if let Some(Value::Object(schema)) = schemas.get(&name).cloned() {
            let mut relaxed = schema;
            relaxed.remove("required");
            relaxed.remove("not");
            schemas.insert(copy, Value::Object(relaxed));
        }
    }
}

/// The keywords a rule adds to a schema.
type SchemaRule = fn() -> Value;

/// Rules over several fields of a schema, which field attributes cannot state, by
/// schema name.
const SCHEMA_RULES: &[(&str, SchemaRule)] = &[
    (
        "PersonName",
        // A givenName or a familyName that is not blank (REQUIRED).
        || {
            json!({ "not": { "properties": {
                "givenName": { "pattern": "^\\s*$" },
                "familyName": { "pattern": "^\\s*$" }
            } } })
        },
    ),
    (
        "IndividualEntityIDVerificationJob",
        // Exactly one of `document` and `idType` (ONE_OF, REQUIRED).
        || exactly_one(&[("document", "string"), ("idType", "string")]),
    ),
    (
        "Entity",
        // Exactly one details object, the one `entityType` names when given
        // (docs/api.md "Entities").
        entity_details,
    ),
    ("Document", document_numbers),
    (
        "IndividualEntityVerificationJob",
        // At most one provider of the `providerConfig` oneof (ONE_OF); none is the
        // built-in hosted capture.
        || {
            json!({ "not": {
                "required": ["hostedCaptureConfig", "truuthVerificationConfig"],
                "properties": {
                    "hostedCaptureConfig": { "type": "object" },
                    "truuthVerificationConfig": { "type": "object" }
                }
            } })
        },
    ),
    // An upload names its fields only (UNKNOWN_FIELD), and its form its parts.
    ("FileUpload", || json!({ "additionalProperties": false })),
    (
        "FileUploadForm",
        || json!({ "additionalProperties": false }),
    ),
    // The provider may add fields to its callback; their values, like every body's,
    // hold no U+0000 (CONTROL_CHARACTER).
    ("TruuthCallback", provider_fields),
    ("TruuthOwner", provider_fields),
    ("TruuthResults", provider_fields),
    ("TruuthProofingOutcome", provider_fields),
    // A job's result, output only, is ignored in a PATCH body, but its values hold no
    // U+0000 either (the fuzzer sent one inside a member rics does not know).
    ("VerificationResult", provider_fields),
];

/// Fields a provider adds beyond those rics reads: any JSON without U+0000.
fn provider_fields() -> Value {
    json!({ "additionalProperties": { "$ref": format!("#/components/schemas/{FREE_FORM_VALUE}") } })
}

/// A document number in its type's format (INVALID_DOCUMENT_NUMBER), stated as the
/// numbers it refuses, type by type.
fn document_numbers() -> Value {
    use rics_domain::document::{model::DocumentType, number};
    let refused: Vec<Value> = DocumentType::VALUES
        .iter()
        .filter_map(|value| DocumentType::parse(value))
        .filter(|kind| !kind.is_unspecified())
        .map(|kind| {
            json!({
                "required": ["documentType", "documentNumber"],
                "properties": {
                    "documentType": { "const": kind.as_str() },
                    "documentNumber": { "type": "string", "not": { "pattern": number::pattern(kind) } }
                }
            })
        })
        .collect();
    json!({ "not": { "anyOf": refused } })
}

/// The details object of each entity type.
const ENTITY_DETAILS: [(&str, &str); 5] = [
    ("INDIVIDUAL", "individual"),
    ("COMPANY", "company"),
    ("TRUST", "trust"),
    ("PARTNERSHIP", "partnership"),
    ("SOLE_PROPRIETOR", "soleProprietor"),
];

fn entity_details() -> Value {
    let fields: Vec<(&str, &str)> = ENTITY_DETAILS
        .iter()
        .map(|(_, field)| (*field, "object"))
        .collect();
    let mut rule = exactly_one(&fields);
    if let Some(Value::Array(violations)) = rule.pointer_mut("/not/anyOf") {
        for (entity_type, own) in ENTITY_DETAILS {
            for (_, other) in ENTITY_DETAILS.iter().filter(|(_, field)| *field != own) {
                violations.push(json!({
                    "required": ["entityType", other],
                    "properties": { "entityType": { "const": entity_type }, *other: { "type": "object" } }
                }));
            }
        }
    }
    rule
}

/// Exactly one of `fields` set, each with its JSON type (null reads as unset), stated
/// as what it is not: none set, or two set. A `oneOf` would say it shorter, but
/// generators read a `oneOf` beside `properties` as a union of anonymous models.
fn exactly_one(fields: &[(&str, &str)]) -> Value {
    let none: Map<String, Value> = fields
        .iter()
        .map(|(field, _)| ((*field).to_owned(), json!({ "type": "null" })))
        .collect();
    let mut violations = vec![json!({ "properties": none })];
    for (index, (first, first_type)) in fields.iter().enumerate() {
        for (second, second_type) in &fields[index + 1..] {
            violations.push(json!({
                "required": [first, second],
                "properties": { *first: { "type": first_type }, *second: { "type": second_type } }
            }));
        }
    }
    json!({ "not": { "anyOf": violations } })
}

/// The pattern of an entity's resource name.
const ENTITY_NAME: &str = "^entities/[a-z0-9-]{1,63}$";

/// The keywords a property rule merges into the property.
type PropertyRule = fn() -> Value;

/// Properties whose rule no field table states, by schema: the keywords to merge into
/// the property, and whether it is required.
const PROPERTY_RULES: &[(&str, &str, PropertyRule, bool)] = &[
    (
        "Entity",
        "tags",
        || json!({ "items": { "type": "string", "pattern": TAG } }),
        false,
    ),
    (
        "Document",
        "files",
        || {
            json!({
                "maxItems": rics_domain::document::service::MAX_FILES,
                "uniqueItems": true,
                "items": { "type": "string", "pattern": "^(entities|forms)/[a-z0-9-]{1,63}/files/[a-z0-9-]{1,63}$" }
            })
        },
        false,
    ),
    ("Document", "dateOfBirth", full_date_or_null, false),
    (
        "FileUpload",
        "displayName",
        || json!({ "pattern": SINGLE_LINE_NOT_BLANK }),
        true,
    ),
    (
        "FileUpload",
        "contentType",
        // A media type, or nothing (then the bytes alone say), before any
        // parameters; white space around it (INVALID_VALUE).
        || json!({ "pattern": DECLARED_MEDIA_TYPE }),
        false,
    ),
    (
        "FileUpload",
        "content",
        // Base64 of 1 byte to the size limit (INVALID_BASE64, FILE_EMPTY,
        // FILE_TOO_LARGE); the limit stated is the default one.
        || {
            json!({
                "pattern": BASE64,
                "minLength": 2,
                "maxLength": (rics_domain::file::inspect::DEFAULT_MAX_BYTES * 4).div_ceil(3),
            })
        },
        true,
    ),
    (
        "FileUploadForm",
        "displayName",
        || json!({ "pattern": SINGLE_LINE_NOT_BLANK }),
        false,
    ),
    (
        "Individual",
        "dateOfBirth",
        // Not before entity::validate::MIN_BIRTH_YEAR, 1800 (OUT_OF_RANGE).
        || json!({ "pattern": "^(1[89]|[2-9][0-9])" }),
        false,
    ),
    ("Document", "issueDate", full_date_or_null, false),
    ("Document", "expiryDate", full_date_or_null, false),
    (
        "ContactInfo",
        "emails",
        // What the email_address crate reads, and no longer than 254 (INVALID_EMAIL).
        || {
            json!({
                "maxItems": rics_domain::entity::validate::MAX_LIST_ITEMS,
                "items": { "type": "string", "maxLength": 254, "pattern": EMAIL_PATTERN }
            })
        },
        false,
    ),
    (
        "ContactInfo",
        "phoneNumbers",
        // A leading +, then 6 to 15 digits among spaces, hyphens, dots and parentheses
        // (INVALID_PHONE_NUMBER).
        || {
            json!({
                "maxItems": rics_domain::entity::validate::MAX_LIST_ITEMS,
                "items": { "type": "string", "pattern": PHONE_PATTERN }
            })
        },
        false,
    ),
    ("FactorAge", "bands", || json!({ "minItems": 1 }), true),
    (
        "AgeBand",
        "below",
        // A whole number of years that fits the server's byte (INVALID_VALUE).
        || json!({ "maximum": u8::MAX }),
        false,
    ),
    (
        "ActivityLog",
        "workspace",
        || json!({ "pattern": WORKSPACE_NAME }),
        false,
    ),
    (
        "IdVerificationRunRequest",
        "requestId",
        || json!({ "pattern": REQUEST_ID_PATTERN }),
        false,
    ),
    (
        "IdVerificationRunRequest",
        "entity",
        || json!({ "pattern": ENTITY_NAME }),
        false,
    ),
    (
        "AddRelationshipRequest",
        "ownershipPercentage",
        || json!({ "exclusiveMinimum": 0, "maximum": 100 }),
        false,
    ),
    (
        "CountryRisk",
        "source",
        || json!({ "pattern": SINGLE_LINE_NOT_BLANK }),
        true,
    ),
    (
        "RegisteredParty",
        "legalName",
        || json!({ "pattern": SINGLE_LINE_NOT_BLANK }),
        true,
    ),
    (
        "Individual",
        "legalName",
        // Not null: an individual needs a name (REQUIRED).
        || json!({ "oneOf": [{ "$ref": "#/components/schemas/PersonName" }] }),
        true,
    ),
    (
        "Entity",
        "externalIds",
        // Keys of letters, digits, `_` and `-` (INVALID_KEY); values not empty.
        || {
            json!({
                "propertyNames": { "type": "string", "pattern": "^[A-Za-z0-9_-]{1,63}$" },
                "additionalProperties": { "type": "string", "minLength": 1 }
            })
        },
        false,
    ),
    ("Document", "mrz", machine_readable_zone, false),
    (
        "Document",
        "entity",
        || json!({ "pattern": ENTITY_NAME }),
        true,
    ),
    (
        "AddRelationshipRequest",
        "relatedEntity",
        || json!({ "pattern": ENTITY_NAME }),
        true,
    ),
    (
        "RemoveRelationshipRequest",
        "relatedEntity",
        || json!({ "pattern": ENTITY_NAME }),
        true,
    ),
    ("TagRequest", "tag", || json!({ "pattern": TAG }), true),
    (
        "RunRequest",
        "requestId",
        || json!({ "pattern": REQUEST_ID_PATTERN }),
        false,
    ),
    (
        "RunAutomationRequest",
        "requestId",
        || json!({ "pattern": REQUEST_ID_PATTERN }),
        false,
    ),
    (
        "ActivityLog",
        "activityLogType",
        || json!({ "pattern": "^activityLogTypes/[a-z0-9-]{1,63}$" }),
        false,
    ),
    (
        "Alert",
        "alertType",
        || json!({ "pattern": "^alertTypes/[a-z0-9-]{1,63}$" }),
        true,
    ),
    (
        "ActivityLog",
        "entityNames",
        || json!({ "minItems": 1, "items": { "type": "string", "pattern": ENTITY_NAME } }),
        true,
    ),
    ("ActivityLog", "type", || json!({}), true),
    (
        "AddRelationshipRequest",
        "relationshipType",
        || json!({}),
        true,
    ),
    (
        "RemoveRelationshipRequest",
        "relationshipType",
        || json!({}),
        true,
    ),
    (
        "Workspace",
        "entities",
        || json!({ "items": { "type": "string", "pattern": ENTITY_NAME } }),
        false,
    ),
    (
        "Alert",
        "workspace",
        || json!({ "pattern": WORKSPACE_NAME }),
        false,
    ),
    (
        "Alert",
        "entities",
        || json!({ "items": { "type": "string", "pattern": ENTITY_NAME } }),
        false,
    ),
    (
        "Document",
        "workspace",
        || json!({ "pattern": WORKSPACE_NAME }),
        false,
    ),
    (
        "EvaluationInput",
        "evaluationDate",
        || json!({ "pattern": FULL_DATE }),
        false,
    ),
    (
        "CountryRisk",
        "effectiveDate",
        || json!({ "pattern": FULL_DATE }),
        true,
    ),
    (
        "CountryRisk",
        "scores",
        || json!({ "propertyNames": { "$ref": "#/components/schemas/CountryCode" } }),
        false,
    ),
    ("Threshold", "riskLevel", || json!({}), true),
    (
        "Threshold",
        "label",
        || json!({ "pattern": SINGLE_LINE, "maxLength": rics_domain::risk::model::MAX_LABEL }),
        false,
    ),
    // Three levels or five (which ones, in order: LEVELS_MUST_BE_3_OR_5).
    (
        "RiskModel",
        "thresholds",
        || json!({ "minItems": 3, "maxItems": 5 }),
        true,
    ),
    (
        "RiskModel",
        "factors",
        // At least one factor with a weight (NO_WEIGHT).
        || json!({ "contains": { "required": ["weight"], "properties": { "weight": { "minimum": 1 } } } }),
        true,
    ),
    (
        "FactorOccupation",
        "categories",
        || json!({ "maxItems": rics_domain::risk::model::MAX_CATEGORIES }),
        true,
    ),
    (
        "OccupationCategory",
        "keywords",
        // Each keyword one line with a letter or digit (BLANK_KEYWORD).
        || {
            json!({
                "minItems": 1,
                "maxItems": rics_domain::risk::model::MAX_KEYWORDS,
                "items": { "type": "string", "pattern": concat!(
                    "^[^\\u0000-\\u001f\\u007f-\\u009f]*[A-Za-z0-9]",
                    "[^\\u0000-\\u001f\\u007f-\\u009f]*$"
                ) }
            })
        },
        true,
    ),
    (
        "FormDefinition",
        "schema",
        // Not null: a definition needs its steps (REQUIRED).
        || json!({ "oneOf": [{ "$ref": "#/components/schemas/FormSchema" }] }),
        true,
    ),
    (
        "FormDefinition",
        "revisionId",
        || json!({ "pattern": REVISION_ID_PATTERN }),
        false,
    ),
    ("FormSchema", "steps", || json!({ "minItems": 1 }), true),
    (
        "Automation",
        "inputSchema",
        || {
            json!({
                "propertyNames": { "pattern": AUTOMATION_PARAMETER_PATTERN },
                "additionalProperties": { "type": "object" }
            })
        },
        false,
    ),
    ("Automation", "steps", || json!({ "minItems": 1 }), true),
    (
        "AutomationStep",
        "key",
        || json!({ "pattern": KEY_PATTERN }),
        true,
    ),
    ("AutomationStep", "kind", || json!({}), true),
    (
        "AutomationStep",
        "args",
        // Every string of a step is one line, the argument names included.
        || {
            json!({
                "propertyNames": { "pattern": SINGLE_LINE },
                "additionalProperties": {
                    "type": "string", "maxLength": AUTOMATION_MAX_ARG, "pattern": SINGLE_LINE
                }
            })
        },
        false,
    ),
    (
        "FormStep",
        "key",
        || json!({ "pattern": KEY_PATTERN }),
        true,
    ),
    (
        "FormStep",
        "label",
        || json!({ "pattern": SINGLE_LINE_NOT_BLANK }),
        true,
    ),
    ("FormStep", "fields", || json!({ "minItems": 1 }), true),
    (
        "FormField",
        "key",
        || json!({ "pattern": KEY_PATTERN }),
        true,
    ),
    (
        "FormField",
        "label",
        || json!({ "pattern": SINGLE_LINE_NOT_BLANK }),
        true,
    ),
    (
        "FormField",
        "options",
        || json!({ "items": { "type": "string", "pattern": SINGLE_LINE_NOT_BLANK } }),
        false,
    ),
    (
        "FormField",
        "accept",
        || json!({ "items": { "type": "string", "pattern": ACCEPT_PATTERN } }),
        false,
    ),
    ("FormField", "min", field_bound, false),
    ("FormField", "max", field_bound, false),
    (
        "Form",
        "formDefinition",
        || json!({ "pattern": FORM_DEFINITION_NAME }),
        true,
    ),
    (
        "Form",
        "entity",
        || json!({ "pattern": ENTITY_NAME }),
        false,
    ),
    (
        "Form",
        "workspaces",
        || json!({ "items": { "type": "string", "pattern": WORKSPACE_NAME } }),
        false,
    ),
    (
        "Workspace",
        "formDefinitions",
        || json!({ "items": { "type": "string", "pattern": FORM_DEFINITION_NAME } }),
        false,
    ),
    (
        "WebhookEndpoint",
        "eventTypes",
        subscribable_event_types,
        true,
    ),
    (
        "WebhookEndpoint",
        "url",
        // http(s), and no credentials: nothing before an `@` in the authority.
        || json!({ "format": "uri", "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://[^/?#@\\s]+([/?#]\\S*)?$" }),
        true,
    ),
    (
        "CreateSessionRequest",
        "identityOwner",
        // Given, not null (REQUIRED).
        || json!({ "oneOf": [{ "$ref": "#/components/schemas/IdentityOwner" }] }),
        true,
    ),
    (
        "IdentityOwner",
        "email",
        // What the email_address crate reads, and no longer than 254 (INVALID_EMAIL).
        || json!({ "maxLength": 254, "pattern": EMAIL_PATTERN }),
        true,
    ),
    (
        "CreateSessionRequest",
        "entity",
        // An entity's name, not the wildcard `-`, or empty for none (INVALID_NAME).
        || json!({ "pattern": "^(entities/([a-z0-9][a-z0-9-]{0,62}|-[a-z0-9-]{1,62}))?$" }),
        false,
    ),
    (
        "TruuthCallback",
        "verificationId",
        || json!({ "minLength": 1, "maxLength": rics_domain::verification::truuth::MAX_ID }),
        true,
    ),
    (
        "TruuthCallback",
        "externalRefId",
        || json!({ "minLength": 1, "maxLength": rics_domain::verification::truuth::MAX_ID }),
        true,
    ),
    (
        "TruuthCallback",
        "status",
        // A status the provider sends (UNKNOWN_STATUS).
        || json!({ "enum": &rics_domain::verification::provider::ProviderStatus::VALUES[1..] }),
        true,
    ),
    (
        "FactorScreeningStatus",
        "scores",
        || score_keys(rics_domain::entity::model::ScreeningStatus::VALUES),
        true,
    ),
    (
        "FactorVerificationStatus",
        "scores",
        || score_keys(rics_domain::entity::model::VerificationStatus::VALUES),
        true,
    ),
    (
        "FactorRelatedEntityRisk",
        "riskLevelScores",
        || score_keys(rics_domain::entity::model::RiskLevel::VALUES),
        true,
    ),
];

/// An MRZ as printed: no lines, two of 36 or of 44 characters (TD2, TD3, visas), or
/// three of 30 (TD1), of `A`-`Z`, `0`-`9` and `<` (MRZ_LINE_COUNT, MRZ_LINE_LENGTH,
/// MRZ_LOWER_CASE, MRZ_INVALID_CHARACTER), with a document code its format knows.
fn machine_readable_zone() -> Value {
    let length = |characters: u32| json!({ "pattern": format!("^.{{{characters}}}$") });
    json!({
        "maxItems": 3,
        "items": { "type": "string", "pattern": "^([A-Z0-9<]{30}|[A-Z0-9<]{36}|[A-Z0-9<]{44})$" },
        "not": { "anyOf": [
            { "minItems": 1, "maxItems": 1 },
            { "minItems": 3, "contains": { "not": length(30) } },
            { "minItems": 2, "maxItems": 2, "contains": length(30) },
            { "minItems": 2, "maxItems": 2, "allOf": [
                { "contains": length(36) },
                { "contains": length(44) }
            ] },
            // The document code, in the first line's first two characters
            // (MRZ_DOCUMENT_CODE): A, C or I but not followed by V (TD1, TD2), V (visas),
            // P (passports).
            { "minItems": 3, "prefixItems": [{ "not": { "pattern": "^[ACI][^V]" } }] },
            { "minItems": 2, "maxItems": 2, "prefixItems": [
                { "pattern": "^.{36}$", "not": { "pattern": "^([ACI][^V]|V)" } }
            ] },
            { "minItems": 2, "maxItems": 2, "prefixItems": [
                { "pattern": "^.{44}$", "not": { "pattern": "^[PV]" } }
            ] }
        ] }
    })
}

/// A full date, or null for none: a document's dates are never partial.
fn full_date_or_null() -> Value {
    json!({ "oneOf": [{ "type": "null" }, { "type": "string", "pattern": FULL_DATE }] })
}

/// A tag: 1 to 64 characters, no white space, no control character (INVALID_TAG).
const TAG: &str = "^[^\\s\\u0000-\\u001f\\u007f-\\u009f]{1,64}$";

/// White space that is no control character, as Rust's `trim` removes it.
macro_rules! spaces {
    () => {
        "[ \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*"
    };
}

/// A declared content type as uploads read it: empty, or `type/subtype` of RFC 6838's
/// restricted names, in any case, with white space around it and any parameters after
/// a `;`, all on one line.
const DECLARED_MEDIA_TYPE: &str = concat!(
    "^",
    spaces!(),
    "(?:[A-Za-z0-9!#$&^_.+-]{1,127}/[A-Za-z0-9!#$&^_.+-]{1,127}",
    spaces!(),
    ")?(?:;[^\\u0000-\\u001f\\u007f-\\u009f]*)?$"
);

/// Base64 of either alphabet, padded or not, in whole characters.
const BASE64: &str = "^(?:[A-Za-z0-9+/_-]{4})*(?:[A-Za-z0-9+/_-]{2}(?:==)?|[A-Za-z0-9+/_-]{3}=?)?$";

/// What a webhook endpoint may subscribe to: at least one of the catalogue's event
/// types, `prefix.*` of each prefix, or `*`.
fn subscribable_event_types() -> Value {
    use rics_domain::event::catalogue::{CATALOGUE, event_types};
    let mut values: Vec<String> = vec!["*".to_owned()];
    values.extend(
        CATALOGUE
            .iter()
            .map(|family| format!("{}.*", family.prefix)),
    );
    values.extend(event_types());
    json!({ "minItems": 1, "items": { "type": "string", "enum": values } })
}

/// A workspace's resource name.
const WORKSPACE_NAME: &str = "^workspaces/[a-z0-9-]{1,63}$";

/// A form definition's id in a path, optionally with a revision
/// (`kyc-individual@ab12cd34`).
const FORM_DEFINITION_ID: &str = "^[a-z0-9-]{1,63}(@[a-z0-9]{8})?$";

/// A form definition's name as forms and workspaces give it, optionally with a
/// revision.
const FORM_DEFINITION_NAME: &str = "^formDefinitions/[a-z0-9-]{1,63}(@[a-z0-9]{8})?$";

/// A bound of a form field: a number, or a full date (which bound a field's type takes
/// is the server's to check: INVALID_BOUND).
fn field_bound() -> Value {
    json!({ "oneOf": [
        { "type": "null" },
        { "type": "number" },
        { "type": "string", "pattern": FULL_DATE }
    ] })
}

/// States a form field's `type`: required, and read in upper or lower case
/// (`FieldType::ALIASES`), though always answered in upper case.
fn accept_lower_case_field_types(document: &mut Value) {
    use rics_domain::form_definition::FieldType;
    let Some(Value::Object(schema)) = document.pointer_mut("/components/schemas/FormField") else {
        return;
    };
    let mut values: Vec<&str> = FieldType::VALUES[1..].to_vec();
    values.extend(FieldType::ALIASES.iter().map(|(alias, _)| *alias));
    // Generators name enum members by upper-casing the values; the lower-case
    // spellings get names of their own.
    let mut names: Vec<String> = FieldType::VALUES[1..]
        .iter()
        .map(|v| (*v).to_owned())
        .collect();
    names.extend(
        FieldType::ALIASES
            .iter()
            .map(|(_, value)| format!("{value}_LOWER_CASE")),
    );
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        properties.insert(
            "type".into(),
            json!({
                "type": "string",
                "enum": values,
                "x-enum-varnames": names,
                "description": "What the answer is, in upper or lower case (answered in upper case). Required."
            }),
        );
    }
    if let Value::Array(required) = schema
        .entry("required")
        .or_insert_with(|| Value::Array(Vec::new()))
        && !required.contains(&json!("type"))
    {
        required.push(json!("type"));
    }
}

/// A map of scores keyed by the values of a proto-style enum but its zero value.
fn score_keys(values: &[&str]) -> Value {
    json!({ "propertyNames": { "enum": values[1..] } })
}

/// The schemas of a risk model: every integer in them is a score or a weight, 0 to
/// [`rics_domain::risk::model::MAX_SCORE`], but an age band's bound.
fn is_risk_model_schema(name: &str) -> bool {
    matches!(
        name,
        "RiskModel" | "CountryRisk" | "Threshold" | "AgeBand" | "OccupationCategory"
    ) || name.starts_with("Factor")
}

fn bound_scores(document: &mut Value) {
    let Some(Value::Object(schemas)) = document.pointer_mut("/components/schemas") else {
        return;
    };
    for (_, schema) in schemas
        .iter_mut()
        .filter(|(name, _)| is_risk_model_schema(name))
    {
        bound_integers(schema);
    }
}

fn bound_integers(schema: &mut Value) {
    let Value::Object(members) = schema else {
        return;
    };
    if has_type(members, "integer") {
        members.insert("maximum".into(), json!(rics_domain::risk::model::MAX_SCORE));
    }
    if let Some(inner) = members.get_mut("additionalProperties") {
        bound_integers(inner);
    }
    if let Some(Value::Object(properties)) = members.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            if name != "below" {
                bound_integers(property);
            }
        }
    }
}

fn state_schema_rules(document: &mut Value) {
    let specified_values = specified_enum_values(document);
    for (name, property, rule, required) in PROPERTY_RULES {
        let Some(Value::Object(schema)) =
            document.pointer_mut(&format!("/components/schemas/{name}"))
        else {
            continue;
        };
        if let (Some(Value::Object(target)), Value::Object(rule)) = (
            schema
                .get_mut("properties")
                .and_then(|properties| properties.get_mut(*property)),
            rule(),
        ) {
            target.extend(rule);
        }
        if *required
            && let Some(Value::Object(target)) = schema
                .get_mut("properties")
                .and_then(|properties| properties.get_mut(*property))
            && let Some(reference) = referenced_schema(target)
            && specified_values.contains_key(&reference)
        {
            require_a_value(target, &reference);
        }
        if *required
            && let Value::Array(list) = schema
                .entry("required")
                .or_insert_with(|| Value::Array(Vec::new()))
            && !list.contains(&json!(property))
        {
            list.push(json!(property));
        }
    }
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
        ("path", "formDefinition")
            if route.method == "GET"
                && route.path == "/v1alpha/formDefinitions/{formDefinition}" =>
        {
            json!({ "pattern": FORM_DEFINITION_ID })
        }
        ("path", "token") if route.path.starts_with("/hosted/") => {
            json!({ "pattern": "^[A-Za-z0-9_-]+$" })
        }
        ("path", "step") if route.path.starts_with("/hosted/") => {
            json!({ "pattern": "^[a-z][a-z0-9_]{0,62}$" })
        }
        ("path", _) => json!({ "pattern": WELL_FORMED_ID_PATTERN }),
        ("query", "requestId") => json!({ "format": "uuid", "pattern": REQUEST_ID_PATTERN }),
        ("query", "names") => {
            let collection = route.path.strip_prefix("/v1alpha/")?.split(':').next()?;
            json!({ "items": { "type": "string", "pattern": format!("^{collection}/[a-z0-9-]{{1,63}}$") } })
        }
        ("query", "pageSize" | "skip") => json!({ "minimum": 0, "maximum": i32::MAX }),
        ("query", "updateMask") => {
            json!({ "pattern": UpdateMask::pattern(update_table(route)?) })
        }
        ("query", "orderBy") => json!({ "pattern": OrderBy::pattern(list_spec(route)?.sortable) }),
        // The spec's rule: 4 to 63 of `[a-z0-9-]` in any order, but not a UUID, bare
        // or hyphenated (INVALID_RESOURCE_ID).
        ("query", "activityLogTypeId" | "activityLogId") => json!({
            "pattern": "^[a-z0-9-]{4,63}$",
            "not": { "anyOf": [
                { "pattern": "^[0-9a-f]{32}$" },
                { "pattern": "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$" }
            ] }
        }),
        ("query", id) if id.ends_with("Id") => json!({ "pattern": USER_ID_PATTERN }),
        _ => return None,
    };
    Some(rule)
}

/// The field table an update route's mask is read against.
fn update_table(route: &Route) -> Option<&'static FieldTable> {
    let resource = route.path.rsplit('/').nth(1)?;
    resource_tables()
        .into_iter()
        .chain(changeable_job_tables())
        .find(|(name, _)| {
            let singular = name.to_ascii_lowercase();
            let plural = match singular.strip_suffix('y') {
                Some(stem) => format!("{stem}ies"),
                None => format!("{singular}s"),
            };
            resource.to_ascii_lowercase() == plural
        })
        .map(|(_, table)| table)
}

/// The list declaration behind a list route, as its row declares it.
fn list_spec(route: &Route) -> Option<&'static ListSpec> {
    route.list.map(|spec| &**spec)
}

/// A DELETE with `allowMissing` answers `{}` when nothing was there: its 200 is the
/// resource or an empty object.
fn allow_missing_deletes(document: &mut Value) {
    let Some(Value::Object(paths)) = document.get_mut("paths") else {
        return;
    };
    for item in paths.values_mut() {
        let Some(operation) = item.get_mut("delete") else {
            continue;
        };
        let allows_missing = operation["parameters"]
            .as_array()
            .is_some_and(|parameters| parameters.iter().any(|p| p["name"] == "allowMissing"));
        let Some(schema) = operation.pointer_mut("/responses/200/content/application~1json/schema")
        else {
            continue;
        };
        if allows_missing && schema.get("$ref").is_some() {
            let resource = schema.take();
            *schema = json!({ "anyOf": [resource, { "type": "object", "maxProperties": 0 }] });
        }
    }
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
/// `{Union}{Tag}` (`ErrorDetailErrorInfo`, `FactorNationality`), closed to fields it
/// does not name as the server's unions are, and adds the discriminator: generators then
/// make one model per variant instead of clashing anonymous ones.
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
            let mut inline = std::mem::replace(variant, json!({ "$ref": reference }));
            if let Value::Object(members) = &mut inline {
                members.insert("additionalProperties".into(), Value::Bool(false));
            }
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
