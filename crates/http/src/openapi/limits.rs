//! The lengths and counts the domain's validators allow, stated in the document: each
//! limit is named by its schema and the request path below it that a violation names
//! (`entity.contactInfo.addresses[i].postalCode` is `contactInfo.addresses[].postalCode`
//! of `Entity`), and resolved through the component schemas, so a limit on a shared
//! message (a person's name, an address) is stated once where the message is declared.

use rics_domain::entity::relationship::MAX_RELATIONSHIP_NOTE;
use rics_domain::entity::validate::{
    MAX_ADDRESS_LINES, MAX_ADDRESS_PART, MAX_DISPLAY_NAME, MAX_EXTERNAL_ID_VALUE, MAX_EXTERNAL_IDS,
    MAX_LIST_ITEMS, MAX_NAME_PART, MAX_NATIONALITIES, MAX_POSTAL_CODE, MAX_REGISTRATION_NUMBER,
    MAX_TAGS, MAX_TEXT,
};
use rics_domain::form_definition::rules::{
    MAX_ACCEPT, MAX_FIELDS, MAX_KEY, MAX_LABEL, MAX_OPTION, MAX_OPTIONS, MAX_PATTERN, MAX_STEPS,
};
use rics_domain::{
    activity, alert, automation, document, file, form, form_definition, job, note, risk, tenant,
    verification, webhook, workspace,
};
use serde_json::{Value, json};

/// What a limit bounds.
#[derive(Clone, Copy)]
enum Limit {
    /// A text's characters (`maxLength`).
    Characters(usize),
    /// A list's items (`maxItems`).
    Items(usize),
    /// A list's items, none given twice (`maxItems`, `uniqueItems`).
    DistinctItems(usize),
    /// A map's entries (`maxProperties`).
    Entries(usize),
}

use Limit::{Characters, DistinctItems, Entries, Items};

/// Every limit, by schema and path: `name[]` is each item of the list `name`, `*` each
/// value of a map.
const LIMITS: &[(&str, &str, Limit)] = &[
    (
        "File",
        "displayName",
        Characters(file::service::MAX_DISPLAY_NAME),
    ),
    (
        "FileUpload",
        "displayName",
        Characters(file::service::MAX_DISPLAY_NAME),
    ),
    (
        "FileUploadForm",
        "displayName",
        Characters(file::service::MAX_DISPLAY_NAME),
    ),
    ("Entity", "displayName", Characters(MAX_DISPLAY_NAME)),
    (
        "IdentityOwner",
        "givenName",
        Characters(verification::provider::MAX_NAME),
    ),
    (
        "IdentityOwner",
        "familyName",
        Characters(verification::provider::MAX_NAME),
    ),
    (
        "IdentityOwner",
        "middleName",
        Characters(verification::provider::MAX_NAME),
    ),
    (
        "Entity",
        "individual.legalName.givenName",
        Characters(MAX_NAME_PART),
    ),
    (
        "Entity",
        "individual.legalName.middleNames",
        Characters(MAX_NAME_PART),
    ),
    (
        "Entity",
        "individual.legalName.familyName",
        Characters(MAX_NAME_PART),
    ),
    ("Entity", "individual.otherNames", Items(MAX_LIST_ITEMS)),
    ("Entity", "individual.placeOfBirth", Characters(MAX_TEXT)),
    ("Entity", "individual.occupation", Characters(MAX_TEXT)),
    (
        "Entity",
        "individual.nationalities",
        Items(MAX_NATIONALITIES),
    ),
    ("Entity", "company.legalName", Characters(MAX_TEXT)),
    ("Entity", "company.industry", Characters(MAX_TEXT)),
    (
        "Entity",
        "company.registrationNumber",
        Characters(MAX_REGISTRATION_NUMBER),
    ),
    ("Entity", "trust.legalName", Characters(MAX_TEXT)),
    ("Entity", "trust.tradingName", Characters(MAX_TEXT)),
    (
        "Entity",
        "trust.registrationNumber",
        Characters(MAX_REGISTRATION_NUMBER),
    ),
    ("Entity", "contactInfo.addresses", Items(MAX_LIST_ITEMS)),
    (
        "Entity",
        "contactInfo.addresses[].lines",
        Items(MAX_ADDRESS_LINES),
    ),
    (
        "Entity",
        "contactInfo.addresses[].lines[]",
        Characters(MAX_TEXT),
    ),
    (
        "Entity",
        "contactInfo.addresses[].locality",
        Characters(MAX_ADDRESS_PART),
    ),
    (
        "Entity",
        "contactInfo.addresses[].region",
        Characters(MAX_ADDRESS_PART),
    ),
    (
        "Entity",
        "contactInfo.addresses[].postalCode",
        Characters(MAX_POSTAL_CODE),
    ),
    ("Entity", "externalIds", Entries(MAX_EXTERNAL_IDS)),
    ("Entity", "externalIds.*", Characters(MAX_EXTERNAL_ID_VALUE)),
    ("Entity", "tags", Items(MAX_TAGS)),
    (
        "AddRelationshipRequest",
        "note",
        Characters(MAX_RELATIONSHIP_NOTE),
    ),
    (
        "Workspace",
        "displayName",
        Characters(workspace::service::MAX_DISPLAY_NAME),
    ),
    (
        "Workspace",
        "description",
        Characters(workspace::service::MAX_DESCRIPTION),
    ),
    (
        "Workspace",
        "entities",
        DistinctItems(workspace::service::MAX_ENTITIES),
    ),
    // Bytes of UTF-8 on the server: as many characters bound ASCII text exactly and
    // other text loosely, which JSON Schema cannot say closer.
    (
        "Note",
        "content",
        Characters(note::service::MAX_CONTENT_BYTES),
    ),
    ("Alert", "title", Characters(alert::service::MAX_TITLE)),
    (
        "Alert",
        "description",
        Characters(alert::service::MAX_DESCRIPTION),
    ),
    (
        "Alert",
        "entities",
        DistinctItems(alert::service::MAX_ENTITIES),
    ),
    (
        "ResolveRequest",
        "comment",
        Characters(alert::service::MAX_DESCRIPTION),
    ),
    (
        "ReviewMatchRequest",
        "reason",
        Characters(job::match_review::MAX_REASON),
    ),
    (
        "Document",
        "displayName",
        Characters(document::service::MAX_DISPLAY_NAME),
    ),
    (
        "Document",
        "issuingState",
        Characters(document::service::MAX_ISSUING_STATE),
    ),
    (
        "Document",
        "givenName",
        Characters(document::service::MAX_NAME),
    ),
    (
        "Document",
        "familyName",
        Characters(document::service::MAX_NAME),
    ),
    (
        "Document",
        "placeOfBirth",
        Characters(document::service::MAX_NAME),
    ),
    (
        "ActivityLogType",
        "displayName",
        Characters(activity::type_service::MAX_DISPLAY_NAME),
    ),
    (
        "ActivityLogType",
        "description",
        Characters(activity::type_service::MAX_DESCRIPTION),
    ),
    (
        "ActivityLog",
        "source",
        Characters(activity::log_service::MAX_SOURCE),
    ),
    (
        "ActivityLog",
        "description",
        Characters(activity::log_service::MAX_DESCRIPTION),
    ),
    (
        "ActivityLog",
        "entityNames",
        Items(activity::log_service::MAX_ENTITY_NAMES),
    ),
    (
        "RiskModel",
        "displayName",
        Characters(risk::model::MAX_DISPLAY_NAME),
    ),
    (
        "RiskModel",
        "description",
        Characters(risk::model::MAX_DESCRIPTION),
    ),
    (
        "Tenant",
        "displayName",
        Characters(tenant::service::MAX_DISPLAY_NAME),
    ),
    (
        "FormDefinition",
        "displayName",
        Characters(form_definition::service::MAX_DISPLAY_NAME),
    ),
    (
        "FormDefinition",
        "description",
        Characters(form_definition::service::MAX_DESCRIPTION),
    ),
    ("FormDefinition", "schema.steps", Items(MAX_STEPS)),
    ("FormDefinition", "schema.steps[].key", Characters(MAX_KEY)),
    (
        "FormDefinition",
        "schema.steps[].label",
        Characters(MAX_LABEL),
    ),
    ("FormDefinition", "schema.steps[].fields", Items(MAX_FIELDS)),
    (
        "FormDefinition",
        "schema.steps[].fields[].key",
        Characters(MAX_KEY),
    ),
    (
        "FormDefinition",
        "schema.steps[].fields[].label",
        Characters(MAX_LABEL),
    ),
    (
        "FormDefinition",
        "schema.steps[].fields[].options",
        DistinctItems(MAX_OPTIONS),
    ),
    (
        "FormDefinition",
        "schema.steps[].fields[].options[]",
        Characters(MAX_OPTION),
    ),
    (
        "FormDefinition",
        "schema.steps[].fields[].pattern",
        Characters(MAX_PATTERN),
    ),
    (
        "FormDefinition",
        "schema.steps[].fields[].accept",
        DistinctItems(MAX_ACCEPT),
    ),
    (
        "Form",
        "displayName",
        Characters(form::service::MAX_DISPLAY_NAME),
    ),
    (
        "Automation",
        "displayName",
        Characters(automation::service::MAX_DISPLAY_NAME),
    ),
    (
        "Automation",
        "description",
        Characters(automation::service::MAX_DESCRIPTION),
    ),
    (
        "Automation",
        "inputSchema",
        Entries(automation::rules::MAX_PARAMETERS),
    ),
    ("Automation", "steps", Items(automation::rules::MAX_STEPS)),
    ("Automation", "steps[].key", Characters(MAX_KEY)),
    (
        "Form",
        "workspaces",
        DistinctItems(form::service::MAX_WORKSPACES),
    ),
    (
        "Workspace",
        "formDefinitions",
        Items(form::service::MAX_WORKSPACE_DEFINITIONS),
    ),
    (
        "WebhookEndpoint",
        "url",
        Characters(webhook::service::MAX_URL),
    ),
    (
        "WebhookEndpoint",
        "description",
        Characters(webhook::service::MAX_DESCRIPTION),
    ),
    (
        "WebhookEndpoint",
        "eventTypes",
        DistinctItems(webhook::service::MAX_EVENT_TYPES),
    ),
];

/// States every limit of [`LIMITS`] in `document`.
///
/// # Errors
/// The limits whose path the document does not hold, so that a renamed field cannot
/// silently drop its limit.
pub fn state_limits(document: &mut Value) -> Result<(), String> {
    let mut missing = Vec::new();
    for (schema, path, limit) in LIMITS {
        let Some(pointer) = resolve(document, schema, path) else {
            missing.push(format!("{schema}.{path}"));
            continue;
        };
        if let Some(Value::Object(target)) = document.pointer_mut(&pointer) {
            let (keyword, max) = match limit {
                Characters(max) => ("maxLength", max),
                Items(max) | DistinctItems(max) => ("maxItems", max),
                Entries(max) => ("maxProperties", max),
            };
            target.insert(keyword.into(), json!(max));
            if matches!(limit, DistinctItems(_)) {
                target.insert("uniqueItems".into(), json!(true));
            }
        }
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "limits on paths the document lacks: {}",
            missing.join(", ")
        ))
    }
}

/// The JSON pointer of `path` below the component `schema`, following references
/// (nullable ones included) into the components they name.
fn resolve(document: &Value, schema: &str, path: &str) -> Option<String> {
    let mut pointer = format!("/components/schemas/{schema}");
    for segment in path.split('.') {
        let (name, items) = match segment.strip_suffix("[]") {
            Some(name) => (name, true),
            None => (segment, false),
        };
        pointer = follow_reference(document, pointer)?;
        pointer = if name == "*" {
            format!("{pointer}/additionalProperties")
        } else {
            format!("{pointer}/properties/{name}")
        };
        document.pointer(&pointer)?;
        if items {
            pointer = format!("{}/items", follow_reference(document, pointer)?);
            document.pointer(&pointer)?;
        }
    }
    Some(pointer)
}

/// The component `pointer`'s schema refers to, or `pointer` when it refers to none.
fn follow_reference(document: &Value, pointer: String) -> Option<String> {
    let schema = document.pointer(&pointer)?;
    let reference = schema.get("$ref").or_else(|| {
        schema
            .get("oneOf")?
            .as_array()?
            .iter()
            .find_map(|variant| variant.get("$ref"))
    });
    match reference.and_then(Value::as_str) {
        Some(reference) => Some(reference.trim_start_matches('#').to_owned()),
        None => Some(pointer),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_through_references_lists_and_maps() {
        let mut document = json!({ "components": { "schemas": {
            "Entity": { "properties": {
                "contactInfo": { "oneOf": [{ "$ref": "#/components/schemas/ContactInfo" }, { "type": "null" }] },
                "externalIds": { "type": "object", "additionalProperties": { "type": "string" } }
            } },
            "ContactInfo": { "properties": {
                "addresses": { "type": "array", "items": { "$ref": "#/components/schemas/Address" } }
            } },
            "Address": { "properties": { "lines": { "type": "array", "items": { "type": "string" } } } }
        } } });
        assert_eq!(
            resolve(&document, "Entity", "contactInfo.addresses[].lines[]").as_deref(),
            Some("/components/schemas/Address/properties/lines/items")
        );
        assert_eq!(
            resolve(&document, "Entity", "externalIds.*").as_deref(),
            Some("/components/schemas/Entity/properties/externalIds/additionalProperties")
        );
        assert_eq!(resolve(&document, "Entity", "contactInfo.phones"), None);
        assert!(state_limits(&mut document).is_err());
    }
}
