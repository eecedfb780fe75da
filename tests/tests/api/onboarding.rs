//! Onboarding jobs over HTTP: a job created at `entities/-`, its `:run`'s hosted link
//! filled and submitted through the hosted pages, the journey's decision arriving at a
//! local receiver as a signed webhook, the job's result, the entity made, the activity
//! log and the REFER alert; a job about an existing individual updating it; create
//! refusals; a mapping that builds an invalid entity, a second submit and a cancelled
//! journey; the erasure of the entity a journey made erasing its run's form's answers.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rics_e2e::*;
use serde_json::{Value, json};

use crate::hosted::{PNG, Part, Visitor, csrf};
use crate::webhook_deliveries::{next, receiver, signed_with};

/// The mapping of the seeded KYC form's response to an individual.
pub(crate) const KYC_MAPPING: &str = r#"{
    "displayName": given_name & " " & family_name,
    "individual": {
        "legalName": {"givenName": given_name, "familyName": family_name},
        "dateOfBirth": date_of_birth,
        "nationalities": [nationality]
    },
    "contactInfo": {"emails": [email]}
}"#;

/// The mapping of the test's own short form.
const BASIC_MAPPING: &str = r#"{
    "displayName": given_name & " " & family_name,
    "individual": {
        "legalName": {"givenName": given_name, "familyName": family_name},
        "dateOfBirth": date_of_birth
    }
}"#;

/// The body of an onboarding job of `definition` mapped by `mapping`, told at `webhook`.
fn job_body(definition: &str, mapping: &str, webhook: &str) -> Value {
    json!({
        "formDefinition": definition,
        "jsonataExpression": STANDARD.encode(mapping),
        "webhookUri": webhook,
        "redirectUri": "https://example.com/welcome",
    })
}

/// A short form definition `basic`: names and a date of birth, on one step.
fn basic_definition(server: &Server) {
    server
        .post(
            "/v1alpha/formDefinitions?formDefinitionId=basic",
            &json!({"displayName": "Basic", "schema": {"steps": [{"key": "me", "label": "Me", "fields": [
                {"key": "given_name", "label": "Given name", "type": "TEXT", "required": true},
                {"key": "family_name", "label": "Family name", "type": "TEXT", "required": true},
                {"key": "date_of_birth", "label": "Born", "type": "DATE", "required": true}
            ]}]}}),
        )
        .ok();
}

/// Fills the run's form through the API and submits it.
fn submit_through_api(server: &Server, form: &str, response: Value) {
    server
        .patch(&format!("/v1alpha/{form}"), &json!({"response": response}))
        .ok();
    server
        .post(&format!("/v1alpha/{form}:submit"), &json!({}))
        .ok();
}

/// The path of the hosted link in a run's operation (under the server's public URL).
pub(crate) fn link_path(operation: &Value) -> String {
    let uri = operation["metadata"]["debug"]["hostedFormUri"]
        .as_str()
        .unwrap_or_else(|| panic!("no link: {operation}"));
    assert!(uri.starts_with(&format!("{ISSUER}/hosted/")), "{uri}");
    uri[ISSUER.len()..].to_owned()
}

on_both_backends! {
    /// The journey end to end: created at `entities/-`, run, the link filled and
    /// submitted through the hosted pages; the decision (REFER: the built-in capture
    /// is document only) arrives signed with the tenant's secret, with the job as its
    /// object; the job, its operation, the entity, the activity log and the alert agree.
    fn an_onboarding_goes_from_link_to_a_signed_decision(server) {
        let (url, told) = receiver(vec![]);
        let secret = server.post("/v1alpha/tenants/current:rotateWebhookSecret", &json!({})).ok()["secret"]
            .as_str().unwrap().to_owned();
        let job = server.post(
            "/v1alpha/entities/-/onboardIndividualEntityJobs",
            &job_body("formDefinitions/kyc-individual", KYC_MAPPING, &url),
        ).ok();
        let name = job["name"].as_str().unwrap().to_owned();
        assert!(name.starts_with("entities/-/onboardIndividualEntityJobs/"), "{job}");
        assert!(job.get("entity").is_none(), "no entity yet: {job}");
        assert_eq!(job["state"], "PENDING");
        assert_eq!(job["webhookUri"], url.as_str());

        let operation = server.post(&format!("/v1alpha/{name}:run"), &json!({})).ok();
        assert_eq!(operation["done"], false);
        assert_eq!(operation["metadata"]["type"], "rics.v1alpha.OnboardIndividualEntityJob");
        timestamp(&operation["metadata"]["debug"]["expireTime"]);
        let link = link_path(&operation);
        assert!(link.starts_with("/hosted/"), "{link}");

        let mut visitor = Visitor::new(&server, &link);
        let token = csrf(&visitor.get(""));
        let reply = visitor.post("personal", &[
            Part::Text("csrf", &token), Part::Text("given_name", "Anna"), Part::Text("family_name", "Eriksson"),
            Part::Text("date_of_birth", "1974-08-12"), Part::Text("nationality", "SE"), Part::Text("action", "next"),
        ]);
        assert_eq!(reply.status, 303, "{}", reply.text);
        let reply = visitor.post("contact", &[
            Part::Text("csrf", &token), Part::Text("email", "anna@example.com"),
            Part::Text("residential_address.lines", "1 Storgatan"), Part::Text("residential_address.locality", "Umeå"),
            Part::Text("residential_address.country", "SE"), Part::Text("action", "next"),
        ]);
        assert_eq!(reply.status, 303, "{}", reply.text);
        let reply = visitor.post("identity", &[
            Part::Text("csrf", &token), Part::Text("identity_document.documentType", "PASSPORT"),
            Part::Text("identity_document.documentNumber", "L898902C3"), Part::Text("identity_document.issuingCountry", "SWE"),
            Part::Text("identity_document.expiryDate", "2030-01-01"),
            Part::File("identity_document.files", "passport.png", PNG),
            Part::File("selfie", "selfie.png", PNG), Part::Text("action", "submit"),
        ]);
        assert_eq!(reply.status, 200, "{}", reply.text);
        assert!(reply.text.contains("https://example.com/welcome"), "{}", reply.text);
        assert_eq!(visitor.get("").status, 410, "the link is used");

        let decided = next(&told);
        assert_eq!(decided.body["type"], "onboard_individual_entity_job.decided", "{}", decided.body);
        assert!(signed_with(&decided, &secret), "{:?}", decided.headers);
        let object = &decided.body["data"]["object"];
        assert_eq!(object["name"], name.as_str());
        assert_eq!(object["state"], "SUCCEEDED");
        let result = &object["result"];
        assert_eq!(result["decision"], "REFER", "{result}");
        let codes: Vec<&str> = array(&result["reasons"]).iter().map(|r| r["code"].as_str().unwrap()).collect();
        assert!(codes.contains(&"DOCUMENT_ONLY_ASSURANCE"), "{codes:?}");

        let done = server.wait_for(&operation);
        assert_eq!(done["response"]["result"], *result, "{done}");
        assert!(done.get("error").is_none(), "{done}");
        let job = server.get(&format!("/v1alpha/{name}")).ok();
        assert_eq!(job["state"], "SUCCEEDED");
        assert_eq!(job["result"], *result);
        let entity_name = job["entity"].as_str().unwrap().to_owned();
        assert_eq!(result["entity"], entity_name.as_str());
        assert!(result["document"].as_str().unwrap().starts_with("documents/"), "{result}");
        assert!(result["screeningJob"].as_str().unwrap().contains("/pepSanctionIndividualEntityJobs/"), "{result}");
        assert!(result["ratingJob"].as_str().unwrap().contains("/individualEntityRiskRatingJobs/"), "{result}");
        timestamp(&result["decideTime"]);

        let entity = server.get(&format!("/v1alpha/{entity_name}")).ok();
        assert_eq!(entity["displayName"], "Anna Eriksson");
        assert_eq!(entity["entityType"], "INDIVIDUAL");
        assert_eq!(entity["individual"]["dateOfBirth"], "1974-08-12");
        let listed = server.get(&format!("/v1alpha/{entity_name}/onboardIndividualEntityJobs")).ok();
        assert_eq!(names(&listed["onboardIndividualEntityJobs"]), [name.as_str()]);

        let log = server.get(&format!("/v1alpha/{}", result["activityLog"].as_str().unwrap())).ok();
        assert_eq!(log["type"], "IDENTITY_CHECK", "{log}");
        assert_eq!(log["payload"]["decision"], "REFER");
        let alert = server.get(&format!("/v1alpha/{}", result["alert"].as_str().unwrap())).ok();
        assert_eq!(alert["alertType"], "alertTypes/onboarding-referred", "{alert}");
        assert_eq!(alert["entities"], json!([entity_name]));

        // The run's form holds the person's answers: it is about the entity the journey
        // made, and the entity's erasure erases its response and files with it.
        let form_name = operation["metadata"]["debug"]["form"].as_str().unwrap().to_owned();
        let form = server.get(&format!("/v1alpha/{form_name}")).ok();
        assert_eq!(form["entity"], entity_name.as_str(), "{form}");
        let selfie = form["response"]["selfie"].as_str().unwrap().to_owned();
        server.delete(&format!("/v1alpha/{entity_name}:hardDelete")).ok();
        let form = server.get(&format!("/v1alpha/{form_name}")).ok();
        assert!(form.get("response").is_none() && form.get("entity").is_none(), "{form}");
        assert_eq!(form["state"], "SUBMITTED");
        assert_eq!(server.get(&format!("/v1alpha/{selfie}")).status, 404);
    }

    /// A job about an existing individual updates it, keeps its name, and names the
    /// run's execution; create refuses bad inputs on their fields.
    fn an_onboarding_updates_its_individual_and_refuses_bad_inputs(server) {
        basic_definition(&server);
        server.create_person("ola-nordmann", "Ola");
        let hook = "http://127.0.0.1:9/onboarding";
        let path = "/v1alpha/entities/ola-nordmann/onboardIndividualEntityJobs";
        let job = server.post(path, &job_body("formDefinitions/basic", BASIC_MAPPING, hook)).ok();
        let name = job["name"].as_str().unwrap().to_owned();
        assert_eq!(job["entity"], "entities/ola-nordmann");
        let operation = server.post(&format!("/v1alpha/{name}:run"), &json!({})).ok();
        let form = operation["metadata"]["debug"]["form"].as_str().unwrap().to_owned();
        assert_eq!(server.get(&format!("/v1alpha/{form}")).ok()["entity"], "entities/ola-nordmann");
        server.post(&format!("/v1alpha/{name}:run"), &json!({})).error(400, "FAILED_PRECONDITION", "JOB_RUNNING");
        submit_through_api(&server, &form, json!({"given_name": "Ola", "family_name": "Nordmann", "date_of_birth": "1980-02-03"}));
        let done = server.wait_for(&operation);
        assert_eq!(done["response"]["result"]["entity"], "entities/ola-nordmann", "{done}");
        assert_eq!(done["response"]["name"], name.as_str());
        let entity = server.entity("ola-nordmann");
        assert_eq!(entity["displayName"], "Ola Nordmann");
        assert_eq!(entity["individual"]["legalName"]["familyName"], "Nordmann");
        let execution = server.get(&format!("/v1alpha/{name}/operations/{}", done["name"].as_str().unwrap().rsplit('/').next().unwrap())).ok();
        assert!(execution["metadata"]["debug"]["execution"].as_str().unwrap().starts_with("automations/onboard-individual/executions/"), "{execution}");

        let refused = |body: Value, reason: &str, field: &str| {
            server.post("/v1alpha/entities/-/onboardIndividualEntityJobs", &body).invalid(reason, field);
        };
        let good = job_body("formDefinitions/basic", BASIC_MAPPING, hook);
        let with = |key: &str, value: Value| {
            let mut body = good.clone();
            body[key] = value;
            body
        };
        refused(with("jsonataExpression", json!(STANDARD.encode("{ \"a\": "))), "INVALID_JSONATA", "job.jsonataExpression");
        refused(with("jsonataExpression", json!("not base64!")), "INVALID_JSONATA", "job.jsonataExpression");
        refused(with("jsonataExpression", json!(STANDARD.encode("$formatNumber(income, '#0')"))), "UNSUPPORTED_JSONATA_FUNCTION", "job.jsonataExpression");
        refused(with("redirectUri", json!("javascript:alert(1)")), "INVALID_URL", "job.redirectUri");
        let ssrf = server.post("/v1alpha/entities/-/onboardIndividualEntityJobs", &with("webhookUri", json!("https://10.0.0.7/hook")));
        assert_eq!(ssrf.status, 400, "{}", ssrf.text);
        assert_eq!(ssrf.metadata("field"), Some("job.webhookUri"), "{}", ssrf.text);
        let mut missing = good.clone();
        missing.as_object_mut().unwrap().remove("formDefinition");
        let reply = server.post("/v1alpha/entities/-/onboardIndividualEntityJobs", &missing);
        assert_eq!(reply.status, 400, "{}", reply.text);
        assert!(reply.text.contains("formDefinition"), "{}", reply.text);
        server.post("/v1alpha/entities/-/onboardIndividualEntityJobs", &with("formDefinition", json!("formDefinitions/nope")))
            .error(404, "NOT_FOUND", "FORM_DEFINITION_NOT_FOUND");
    }

    /// A mapping that builds an invalid entity fails the run naming the path, and no
    /// entity is made; the form cannot be submitted twice; a cancelled journey ends its
    /// run CANCELLED and expires its link.
    fn a_bad_mapping_fails_and_a_cancel_ends_the_run(server) {
        basic_definition(&server);
        let hook = "http://127.0.0.1:9/onboarding";
        let job = server.post("/v1alpha/entities/-/onboardIndividualEntityJobs", &job_body("formDefinitions/basic", BASIC_MAPPING, hook)).ok();
        let name = job["name"].as_str().unwrap().to_owned();
        let entities_before = server.count_rows("entities");
        let operation = server.post(&format!("/v1alpha/{name}:run"), &json!({})).ok();
        let form = operation["metadata"]["debug"]["form"].as_str().unwrap().to_owned();
        submit_through_api(&server, &form, json!({"given_name": "Old", "family_name": "Timer", "date_of_birth": "1700-01-01"}));
        server.post(&format!("/v1alpha/{form}:submit"), &json!({})).error(400, "FAILED_PRECONDITION", "FORM_NOT_DRAFT");
        let done = server.wait_for(&operation);
        let message = done["error"]["message"].as_str().unwrap_or_else(|| panic!("{done}"));
        assert!(message.contains("entity.individual.dateOfBirth"), "{message}");
        assert_eq!(done["error"]["code"], 3, "{done}");
        assert_eq!(server.count_rows("entities"), entities_before, "no entity is made");
        let failed = server.get(&format!("/v1alpha/{name}")).ok();
        assert_eq!(failed["state"], "FAILED");
        assert!(failed.get("entity").is_none(), "{failed}");

        // Run again and cancel the journey while it waits for the form.
        let operation = server.post(&format!("/v1alpha/{name}:run"), &json!({})).ok();
        let link = link_path(&operation);
        // Once the journey waits for the form (a cancel racing a step is ABORTED).
        let execution = loop {
            let current = server.get(&format!("/v1alpha/{}", operation["name"].as_str().unwrap())).ok();
            if let Some(execution) = current["metadata"]["debug"]["execution"].as_str()
                && server.get(&format!("/v1alpha/{execution}")).ok()["state"] == "WAITING_FOR_INPUT"
            {
                break execution.to_owned();
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        server.post(&format!("/v1alpha/{execution}:cancel"), &json!({})).ok();
        let done = server.wait_for(&operation);
        assert_eq!(done["error"]["code"], 1, "{done}");
        assert_eq!(server.get(&format!("/v1alpha/{name}")).ok()["state"], "CANCELLED");
        let reply = server.send(server.request_as(None, reqwest::Method::GET, &link));
        assert_eq!(reply.status, 410, "the cancel expired the form");
    }
}
