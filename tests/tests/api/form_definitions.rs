//! Form definitions over HTTP: the seeded `kyc-individual`, the rules of a schema with
//! every fault reported at once, the derived `responseSchema`, revisions read by name
//! (AIP-162), soft delete and restore.

use rics_e2e::*;
use serde_json::{Value, json};

const DEFINITIONS: &str = "/v1alpha/formDefinitions";

/// A one-step schema of `fields`.
fn schema(fields: Value) -> Value {
    json!({"steps": [{"key": "contact", "label": "Contact", "fields": fields}]})
}

/// The keys of a definition's fields, in order.
fn keys(definition: &Value) -> Vec<String> {
    array(&definition["schema"]["steps"])
        .iter()
        .flat_map(|step| array(&step["fields"]).iter())
        .map(|field| field["key"].as_str().unwrap().to_owned())
        .collect()
}

on_both_backends! {
    /// Every tenant has `kyc-individual`; a definition's schema change is a new
    /// revision, readable as `{id}@{revisionId}` ever after, while a rename is not; a
    /// deleted definition makes no forms until it is restored.
    fn form_definitions_are_versioned(server) {
        let kyc = server.get(&format!("{DEFINITIONS}/kyc-individual")).ok();
        assert_eq!(kyc["revisionId"], "kyc00001");
        assert_eq!(keys(&kyc), ["given_name", "middle_names", "family_name", "date_of_birth", "nationality",
            "occupation", "email", "phone", "residential_address", "identity_document", "selfie"]);
        assert_eq!(kyc["responseSchema"]["required"], json!(["given_name", "family_name", "date_of_birth",
            "nationality", "email", "identity_document"]));
        assert_eq!(kyc["responseSchema"]["$schema"], "https://json-schema.org/draft/2020-12/schema");
        assert_eq!(kyc["responseSchema"]["additionalProperties"], false);
        let (_, child) = server.child_tenant("Child");
        let theirs = server.send(server.request_as(Some(&child), Method::GET, &format!("{DEFINITIONS}/kyc-individual"))).ok();
        assert_eq!(theirs["revisionId"], "kyc00001", "a new tenant gets it too");
        assert_ne!(theirs["uid"], kyc["uid"]);

        let fields = json!([
            {"key": "email", "label": "Email", "type": "email", "required": true},
            {"key": "colour", "label": "Colour", "type": "SELECT", "options": ["red", "blue"]}
        ]);
        let created = server.post(&format!("{DEFINITIONS}?formDefinitionId=contact"),
            &json!({"displayName": "Contact", "schema": schema(fields.clone())})).ok();
        assert_eq!(created["schema"]["steps"][0]["fields"][0]["type"], "EMAIL", "lower case is stored in upper case");
        let first = created["revisionId"].as_str().unwrap().to_owned();
        assert!(first.len() == 8 && first.bytes().all(|b| b.is_ascii_hexdigit()), "{first}");
        assert_eq!(created["responseSchema"]["properties"]["colour"]["enum"], json!(["red", "blue"]));
        let path = format!("{DEFINITIONS}/contact");
        assert_eq!(server.get(&path).ok(), created);
        assert_eq!(server.get(&format!("{path}?name=formDefinitions/contact")).ok(), created);

        let renamed = server.patch(&path, &json!({"displayName": "Contacts"})).ok();
        assert_eq!(renamed["revisionId"], first.as_str(), "a rename is no new revision");
        let mut optional = fields.clone();
        optional[0]["required"] = json!(false);
        let revised = server.patch(&format!("{path}?updateMask=schema"), &json!({"schema": schema(optional), "etag": renamed["etag"]})).ok();
        let second = revised["revisionId"].as_str().unwrap().to_owned();
        assert_ne!(second, first);
        assert!(revised["responseSchema"].get("required").is_none(), "{revised}");
        let old = server.get(&format!("{path}@{first}")).ok();
        assert_eq!(old["name"], format!("formDefinitions/contact@{first}"));
        assert_eq!(old["schema"], created["schema"]);
        assert_eq!(old["responseSchema"], created["responseSchema"]);
        assert_eq!(old["displayName"], "Contacts", "names are not versioned");
        assert_eq!(server.get(&format!("{path}@{second}")).ok()["schema"], revised["schema"]);
        server.get(&format!("{path}@zzzz9999")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        server.get(&format!("{path}@NOT-ONE")).invalid("INVALID_NAME", "name");
        server.patch(&format!("{path}@{first}"), &json!({"displayName": "x"})).invalid("INVALID_NAME", "name");
        let by_revision = |revision: &str| {
            let page = server.get(&format!("{DEFINITIONS}{}", query(&[("filter", &format!("revisionId = \"{revision}\""))]))).ok();
            names(&page["formDefinitions"])
        };
        assert_eq!(by_revision(&second), ["formDefinitions/contact"]);
        assert!(by_revision(&first).is_empty(), "lists show the latest revision");

        server.delete(&path).ok();
        let reply = server.post("/v1alpha/forms", &json!({"formDefinition": format!("formDefinitions/contact@{first}")}));
        reply.error(400, "FAILED_PRECONDITION", "FORM_DEFINITION_DELETED");
        assert_eq!(reply.metadata("formDefinition"), Some("formDefinitions/contact"));
        server.post(&format!("{path}:undelete"), &json!({})).ok();
        let form = server.post("/v1alpha/forms", &json!({"formDefinition": format!("formDefinitions/contact@{first}")})).ok();
        assert_eq!(form["formDefinition"], format!("formDefinitions/contact@{first}"), "an older revision may be named");
        assert_eq!(form["displayName"], "Contacts");
    }

    /// A bad schema is refused with every fault at once, named by its path, and
    /// nothing is stored: two fields with one key (across steps), a select without
    /// options, a bad key, an attribute of another type, a pattern that is no
    /// regular expression, bounds of the wrong kind or order, no steps.
    fn bad_definitions_are_refused_with_every_fault(server) {
        let bad = json!({"displayName": "Bad", "schema": {"steps": [
            {"key": "one", "label": "One", "fields": [
                {"key": "email", "label": "Email", "type": "EMAIL"},
                {"key": "choice", "label": "Choice", "type": "SELECT"},
                {"key": "Bad Key", "label": "Bad", "type": "TEXT"},
                {"key": "tick", "label": "Tick", "type": "CHECKBOX", "accept": ["image/png"]},
                {"key": "name", "label": "Name", "type": "TEXT", "pattern": "([a-z]"},
                {"key": "amount", "label": "Amount", "type": "NUMBER", "min": 10, "max": 1},
                {"key": "born", "label": "Born", "type": "DATE", "max": 2000}
            ]},
            {"key": "two", "label": "Two", "fields": [
                {"key": "email", "label": "Email again", "type": "EMAIL"}
            ]}
        ]}});
        let reply = server.post(DEFINITIONS, &bad);
        reply.error(400, "INVALID_ARGUMENT", "INVALID_FIELDS");
        let at = |s: usize, f: usize, attribute: &str| format!("formDefinition.schema.steps[{s}].fields[{f}].{attribute}");
        assert_eq!(reply.violation_fields(), [
            at(0, 1, "options"), at(0, 2, "key"), at(0, 3, "accept"), at(0, 4, "pattern"),
            at(0, 5, "min"), at(0, 6, "max"), at(1, 0, "key"),
        ]);
        let reasons: Vec<&str> = array(&reply.detail("BadRequest").unwrap()["fieldViolations"])
            .iter().map(|v| v["reason"].as_str().unwrap()).collect();
        assert_eq!(reasons, ["OPTIONS_REQUIRED", "INVALID_KEY", "NOT_FOR_TYPE", "INVALID_PATTERN",
            "MIN_ABOVE_MAX", "INVALID_BOUND", "DUPLICATE_FIELD_KEY"]);
        server.post(DEFINITIONS, &json!({"displayName": "Empty", "schema": {"steps": []}}))
            .invalid("INVALID_FIELDS", "formDefinition.schema.steps");
        server.post(DEFINITIONS, &json!({"displayName": "None"})).invalid("INVALID_FIELDS", "formDefinition.schema");
        server.post(DEFINITIONS, &json!({"displayName": "Typo", "schema": schema(json!([{"key": "a", "label": "A", "type": "TEXTAREA"}]))}))
            .invalid("INVALID_VALUE", "formDefinition.schema.steps[0].fields[0].type");
        server.post(DEFINITIONS, &json!({"displayName": "Extra", "colour": "red", "schema": schema(json!([]))}))
            .invalid("UNKNOWN_FIELD", "formDefinition.colour");
        let listed = server.get(&format!("{DEFINITIONS}?showDeleted=true")).ok();
        assert_eq!(names(&listed["formDefinitions"]), ["formDefinitions/identity-capture", "formDefinitions/kyc-individual"], "nothing was stored");
    }
}
