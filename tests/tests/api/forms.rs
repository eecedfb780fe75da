//! Forms over HTTP: drafts saved in part and checked for keys and types, a submit that
//! checks the whole response against the revision's `responseSchema` and reports every
//! fault at once, read-only forms after it, `:expire` and the expiry past `expireTime`
//! (recorded by housekeeping), the forms a workspace opens and lists, and an entity's
//! erasure.

use std::time::{Duration, Instant};

use base64::Engine;
use rics_e2e::*;
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

const FORMS: &str = "/v1alpha/forms";

/// A 1x1 PNG: a selfie of a type the KYC definition accepts.
const PNG: &[u8] =
    b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";

/// The KYC definition's pinned name.
const KYC: &str = "formDefinitions/kyc-individual@kyc00001";

/// `now + seconds` in RFC 3339.
fn in_seconds(seconds: i64) -> String {
    (OffsetDateTime::now_utc() + time::Duration::seconds(seconds))
        .format(&Rfc3339)
        .unwrap()
}

/// `(field, reason)` of each violation of an error reply.
fn faults(reply: &Reply) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = reply
        .detail("BadRequest")
        .map(|d| array(&d["fieldViolations"]).to_vec())
        .unwrap_or_default()
        .iter()
        .map(|v| {
            (
                v["field"].as_str().unwrap().to_owned(),
                v["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    found.sort();
    found
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(f, r)| ((*f).to_owned(), (*r).to_owned()))
        .collect()
}

/// A complete, valid KYC response of the form `form`.
fn complete(form: &str) -> Value {
    json!({
        "given_name": "Anna", "family_name": "Eriksson", "date_of_birth": "1974-08-12",
        "nationality": "SE", "email": "anna@example.com",
        "residential_address": {"lines": ["1 Storgatan"], "locality": "Umeå", "country": "SE"},
        "identity_document": {"documentType": "PASSPORT", "documentNumber": "L898902C3",
            "issuingCountry": "SWE", "files": [format!("forms/{form}/files/passport")]},
        "selfie": format!("forms/{form}/files/selfie")
    })
}

/// The event types of the entity `id`, oldest first.
fn event_types(server: &Server, id: &str) -> Vec<String> {
    let page = server
        .get(&format!("{ENTITIES}/{id}/events?pageSize=100"))
        .ok();
    array(&page["events"])
        .iter()
        .map(|e| e["eventType"].as_str().unwrap().to_owned())
        .collect()
}

on_both_backends! {
    /// A draft is saved in part (each answer checked for its key and type, files only
    /// of this form), then submitted whole: every fault of the response at once, then
    /// SUBMITTED and read-only, with a FORM_CREATED activity log on its entity and the
    /// form's events under the entity.
    fn forms_are_filled_in_then_submitted_once(server) {
        server.create_person("jane-doe", "Jane Doe");
        let created = server.post(&format!("{FORMS}?formId=kyc-jane"), &json!({
            "formDefinition": "formDefinitions/kyc-individual", "entity": "entities/jane-doe",
            "response": {"given_name": "Anna"}, "state": "SUBMITTED", "expireTime": in_seconds(3600)
        })).ok();
        assert_eq!(created["state"], "DRAFT", "state is output only");
        assert_eq!(created["formDefinition"], KYC, "pinned to the latest revision");
        assert_eq!(created["displayName"], "Individual KYC");
        let path = format!("{FORMS}/kyc-jane");
        assert_eq!(server.get(&format!("{path}?name=forms/kyc-jane")).ok(), created);

        // A draft keeps unfinished answers, but not unknown keys or wrong types.
        let saved = server.patch(&path, &json!({"response": {"given_name": "Anna", "email": "anna@"}})).ok();
        assert_eq!(saved["response"]["email"], "anna@");
        let reply = server.patch(&path, &json!({"response": {"given_name": 7, "shoe_size": 42,
            "residential_address": {"lines": "1 Storgatan", "zip": "1"}}}));
        reply.error(400, "INVALID_ARGUMENT", "INVALID_FIELDS");
        assert_eq!(faults(&reply), pairs(&[
            ("form.response.given_name", "INVALID_ANSWER"),
            ("form.response.residential_address.lines", "INVALID_ANSWER"),
            ("form.response.residential_address.zip", "UNKNOWN_ANSWER"),
            ("form.response.shoe_size", "UNKNOWN_ANSWER"),
        ]));
        // Files are this form's only.
        let mut others = complete("kyc-jane");
        others["selfie"] = json!("forms/someone-else/files/selfie");
        others["identity_document"]["files"] = json!(["forms/someone-else/files/passport"]);
        let reply = server.patch(&path, &json!({"response": others}));
        assert_eq!(faults(&reply), pairs(&[
            ("form.response.identity_document.files[0]", "FILE_OF_ANOTHER_FORM"),
            ("form.response.selfie", "FILE_OF_ANOTHER_FORM"),
        ]));
        server.patch(&path, &json!({"formDefinition": "formDefinitions/kyc-individual"}))
            .invalid("IMMUTABLE_FIELD_CHANGED", "form.formDefinition");
        assert_eq!(server.get(&path).ok(), saved, "refused changes change nothing");

        // The submit checks the whole response, every fault at once.
        let reply = server.post(&format!("{path}:submit"), &json!({}));
        reply.error(400, "INVALID_ARGUMENT", "INVALID_FIELDS");
        assert_eq!(faults(&reply), pairs(&[
            ("form.response.date_of_birth", "ANSWER_REQUIRED"),
            ("form.response.email", "INVALID_ANSWER"),
            ("form.response.family_name", "ANSWER_REQUIRED"),
            ("form.response.identity_document", "ANSWER_REQUIRED"),
            ("form.response.nationality", "ANSWER_REQUIRED"),
        ]));
        // The files the response names are the form's, uploaded to it.
        let content = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
        server.post(&format!("{path}/files?fileId=passport"), &json!({"displayName": "passport.txt", "content": content(b"passport")})).ok();
        server.post(&format!("{path}/files?fileId=selfie"), &json!({"displayName": "selfie.png", "content": content(PNG)})).ok();
        let filled = server.patch(&path, &json!({"response": complete("kyc-jane")})).ok();
        server.post(&format!("{path}:submit"), &json!({"etag": saved["etag"]})).error(409, "ABORTED", "ETAG_MISMATCH");
        server.post(&format!("{path}:submit"), &json!({"etag": filled["etag"], "colour": 1})).invalid("UNKNOWN_FIELD", "submit.colour");
        let submitted = server.post(&format!("{path}:submit"), &json!({"etag": filled["etag"]})).ok();
        assert_eq!(submitted["state"], "SUBMITTED");
        timestamp(&submitted["submitTime"]);
        assert_eq!(server.get(&path).ok(), submitted);

        // Read-only from now on.
        let again = server.post(&format!("{path}:submit"), &json!({}));
        again.error(400, "FAILED_PRECONDITION", "FORM_NOT_DRAFT");
        assert_eq!(again.metadata("state"), Some("SUBMITTED"));
        server.patch(&path, &json!({"displayName": "Late"})).error(400, "FAILED_PRECONDITION", "FORM_NOT_DRAFT");
        server.post(&format!("{path}:expire"), &json!({})).error(400, "FAILED_PRECONDITION", "FORM_NOT_DRAFT");

        let logs = server.get(&format!("{ENTITIES}/jane-doe/activityLogs")).ok();
        let logs = array(&logs["activityLogs"]);
        assert_eq!(logs.len(), 1);
        assert_eq!(logs[0]["type"], "FORM_CREATED");
        assert_eq!(logs[0]["source"], "RICS");
        assert_eq!(logs[0]["payload"], json!({"form": "forms/kyc-jane", "formDefinition": KYC}));
        assert_eq!(event_types(&server, "jane-doe"), ["entity.created", "form.created", "form.updated",
            "file.created", "file.created", "form.updated", "form.submitted", "activity_log.created"]);

        // `:expire` ends another draft.
        let other = server.post(FORMS, &json!({"formDefinition": KYC})).ok();
        let other_path = format!("/v1alpha/{}", other["name"].as_str().unwrap());
        let expired = server.post(&format!("{other_path}:expire"), &json!({})).ok();
        assert_eq!(expired["state"], "EXPIRED");
        server.patch(&other_path, &json!({"response": {}})).error(400, "FAILED_PRECONDITION", "FORM_NOT_DRAFT");
        let list = |filter: &str| names(&server.get(&format!("{FORMS}{}", query(&[("filter", filter)]))).ok()["forms"]);
        assert_eq!(list("state = SUBMITTED"), ["forms/kyc-jane"]);
        assert_eq!(list("state = EXPIRED"), [other["name"].as_str().unwrap().to_owned()]);
        assert_eq!(list("entity = \"entities/jane-doe\""), ["forms/kyc-jane"]);

        // Bad creates: each names what is wrong, and nothing is written.
        server.post(FORMS, &json!({"displayName": "No definition"})).invalid("INVALID_FIELDS", "form.formDefinition");
        let missing = server.post(FORMS, &json!({"formDefinition": "formDefinitions/nothing"}));
        missing.error(404, "NOT_FOUND", "FORM_DEFINITION_NOT_FOUND");
        missing.assert_violation("form.formDefinition");
        server.post(FORMS, &json!({"formDefinition": "formDefinitions/kyc-individual@zzzz9999"}))
            .error(404, "NOT_FOUND", "FORM_DEFINITION_NOT_FOUND");
        server.post(FORMS, &json!({"formDefinition": "kyc-individual"})).invalid("INVALID_NAME", "form.formDefinition");
        server.post(FORMS, &json!({"formDefinition": KYC, "entity": "entities/nobody"})).error(404, "NOT_FOUND", "ENTITY_NOT_FOUND");
        server.post(FORMS, &json!({"formDefinition": KYC, "expireTime": "2020-01-01T00:00:00Z"}))
            .invalid("INVALID_FIELDS", "form.expireTime");
        let early = server.post(FORMS, &json!({"formDefinition": KYC, "response": {"selfie": "forms/kyc-jane/files/selfie"}}));
        assert_eq!(faults(&early), pairs(&[("form.response.selfie", "FILE_OF_ANOTHER_FORM")]), "a new form has no files yet");
        assert_eq!(array(&server.get(FORMS).ok()["forms"]).len(), 2);
    }

    /// Past its `expireTime` a draft reads EXPIRED at once (and filters as EXPIRED),
    /// refuses changes, and housekeeping records it with one `form.expired` event.
    fn a_form_expires_by_itself_past_its_deadline(server) {
        server.create_person("jane-doe", "Jane Doe");
        let form = server.post(&format!("{FORMS}?formId=soon"), &json!({
            "formDefinition": KYC, "entity": "entities/jane-doe", "expireTime": in_seconds(2)
        })).ok();
        assert_eq!(form["state"], "DRAFT");
        let list = |filter: &str| names(&server.get(&format!("{FORMS}{}", query(&[("filter", filter)]))).ok()["forms"]);
        assert_eq!(list("state = DRAFT"), ["forms/soon"]);
        let deadline = timestamp(&form["expireTime"]);
        while OffsetDateTime::now_utc() <= deadline {
            std::thread::sleep(Duration::from_millis(100));
        }
        let read = server.get(&format!("{FORMS}/soon")).ok();
        assert_eq!(read["state"], "EXPIRED");
        assert_eq!(read["etag"], form["etag"], "nothing was written yet");
        assert_eq!(list("state = EXPIRED"), ["forms/soon"]);
        assert!(list("state = DRAFT").is_empty());
        assert_eq!(list("state != DRAFT"), ["forms/soon"]);
        server.post(&format!("{FORMS}/soon:submit"), &json!({})).error(400, "FAILED_PRECONDITION", "FORM_NOT_DRAFT");
        server.patch(&format!("{FORMS}/soon"), &json!({"displayName": "x"})).error(400, "FAILED_PRECONDITION", "FORM_NOT_DRAFT");
        assert!(!event_types(&server, "jane-doe").contains(&"form.expired".to_owned()));

        // A replica whose housekeeping runs every second records the expiry.
        let sweeping = server.sibling(|config| config.purge_interval = Duration::from_secs(1));
        let started = Instant::now();
        while !event_types(&server, "jane-doe").contains(&"form.expired".to_owned()) {
            assert!(started.elapsed() < Duration::from_secs(20), "housekeeping did not expire the form");
            std::thread::sleep(Duration::from_millis(200));
        }
        drop(sweeping);
        let recorded = server.get(&format!("{FORMS}/soon")).ok();
        assert_eq!(recorded["state"], "EXPIRED");
        assert_ne!(recorded["etag"], form["etag"]);
        let events = server.get(&format!("{ENTITIES}/jane-doe/events{}", query(&[("filter", "eventType = \"form.expired\"")]))).ok();
        let events = array(&events["events"]);
        assert_eq!(events.len(), 1, "expired once");
        assert_eq!(events[0]["creator"], "system");
    }

    /// A workspace created with form definitions opens one DRAFT form of each, naming
    /// it, in the same transaction; its forms and documents are listed under it;
    /// erasing an entity clears the response of its forms.
    fn workspaces_open_forms_and_list_what_they_hold(server) {
        server.create_person("jane-doe", "Jane Doe");
        server.post("/v1alpha/formDefinitions?formDefinitionId=contact", &json!({"displayName": "Contact",
            "schema": {"steps": [{"key": "s", "label": "S", "fields": [{"key": "email", "label": "Email", "type": "EMAIL"}]}]}})).ok();
        let case = server.post("/v1alpha/workspaces?workspaceId=case-1", &json!({"displayName": "Case",
            "formDefinitions": ["formDefinitions/kyc-individual", "formDefinitions/contact"]})).ok();
        let contact = server.get("/v1alpha/formDefinitions/contact").ok();
        let pinned = format!("formDefinitions/contact@{}", contact["revisionId"].as_str().unwrap());
        assert_eq!(case["formDefinitions"], json!([KYC, pinned]));
        let opened = server.get("/v1alpha/workspaces/case-1/forms").ok();
        let opened = array(&opened["forms"]);
        let mut definitions: Vec<&str> = opened.iter().map(|f| f["formDefinition"].as_str().unwrap()).collect();
        definitions.sort_unstable();
        assert_eq!(definitions, [pinned.as_str(), KYC]);
        for form in opened {
            assert_eq!(form["workspaces"], json!(["workspaces/case-1"]));
            assert_eq!(form["state"], "DRAFT");
        }
        server.patch("/v1alpha/workspaces/case-1", &json!({"formDefinitions": [KYC]}))
            .invalid("IMMUTABLE_FIELD_CHANGED", "workspace.formDefinitions");

        // A refused workspace opens nothing.
        let twice = server.post("/v1alpha/workspaces", &json!({"displayName": "Twice",
            "formDefinitions": ["formDefinitions/contact", pinned]}));
        twice.invalid("INVALID_FIELDS", "workspace.formDefinitions[1]");
        let unknown = server.post("/v1alpha/workspaces", &json!({"displayName": "Unknown",
            "formDefinitions": [KYC, "formDefinitions/nothing"]}));
        unknown.error(404, "NOT_FOUND", "FORM_DEFINITION_NOT_FOUND");
        unknown.assert_violation("workspace.formDefinitions[1]");
        assert_eq!(array(&server.get(FORMS).ok()["forms"]).len(), 2);
        assert_eq!(names(&server.get("/v1alpha/workspaces").ok()["workspaces"]), ["workspaces/case-1"]);

        // Forms and documents of the case, and of no other.
        let answered = server.post(&format!("{FORMS}?formId=jane-contact"), &json!({"formDefinition": "formDefinitions/contact",
            "entity": "entities/jane-doe", "workspaces": ["workspaces/case-1"], "response": {"email": "jane@example.com"}})).ok();
        let listed = server.get(&format!("/v1alpha/workspaces/case-1/forms{}", query(&[("filter", "entity = \"entities/jane-doe\"")]))).ok();
        assert_eq!(names(&listed["forms"]), ["forms/jane-contact"]);
        server.post(&format!("{FORMS}?formId=elsewhere"), &json!({"formDefinition": KYC, "workspaces": ["workspaces/nothing"]}))
            .error(404, "NOT_FOUND", "WORKSPACE_NOT_FOUND");
        server.post("/v1alpha/documents?documentId=passport", &json!({"entity": "entities/jane-doe", "documentType": "PASSPORT",
            "documentNumber": "L898902C3", "workspace": "workspaces/case-1"})).ok();
        server.post("/v1alpha/documents?documentId=licence", &json!({"entity": "entities/jane-doe", "documentType": "DRIVERS_LICENCE",
            "documentNumber": "D1"})).ok();
        let documents = server.get("/v1alpha/workspaces/case-1/documents").ok();
        assert_eq!(names(&documents["documents"]), ["documents/passport"]);
        server.get("/v1alpha/workspaces/nothing/documents").error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        server.get("/v1alpha/workspaces/nothing/forms").error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        server.get("/v1alpha/workspaces/case-1/forms?parent=workspaces/x").invalid("UNKNOWN_PARAMETER", "parent");

        // Erasing the entity clears its forms' response and names it no more.
        let receipt = server.delete(&format!("{ENTITIES}/jane-doe:hardDelete")).ok();
        assert_eq!(receipt["erasedCounts"]["forms"], 1, "{receipt}");
        let kept = server.get(&format!("{FORMS}/jane-contact")).ok();
        assert!(kept.get("response").is_none() && kept.get("entity").is_none(), "{kept}");
        assert_eq!(kept["workspaces"], answered["workspaces"]);
        server.delete("/v1alpha/workspaces/case-1").ok();
        server.get("/v1alpha/workspaces/case-1/forms").error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        server.get("/v1alpha/workspaces/case-1/documents").error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
    }
}
