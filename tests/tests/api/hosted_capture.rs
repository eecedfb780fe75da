//! The built-in identity verification provider (`hostedCaptureConfig {}`, the default
//! of `individualEntityVerificationJobs`): `:run` gives a hosted capture page, the
//! person submits the identity document (MRZ typed in, a photo) and a selfie through
//! it as a browser would (multipart, the link's cookie and CSRF token), and the
//! completion follows durably: the document verified, the IDENTITY_CHECK log with
//! source RICS, `verificationStatus`, the missing names and date of birth filled, the
//! run done and the webhook delivered. Also the link's bad inputs: a selfie that is not
//! an image, a second submit, an expired and a tampered link.

use reqwest::Method;
use rics_e2e::*;
use serde_json::{Value, json};

use crate::hosted::{PNG, Part, Visitor, csrf};
use crate::webhook_deliveries::{next, receiver};

/// The collection of verification jobs.
const JOBS: &str = "/v1alpha/individualEntityVerificationJobs";

/// The machine readable zone of Anna Eriksson's passport L898902C3, as printed.
const MRZ: &str =
    "P<SWEERIKSSON<<ANNA<<<<<<<<<<<<<<<<<<<<<<<<<\nL898902C36SWE7408122F3001019<<<<<<<<<<<<<<04";

/// An individual known by family name only, with an email, for the provider.
fn eriksson(server: &Server, id: &str) {
    let mut body = person("Anna Eriksson");
    body["individual"] = json!({"legalName": {"familyName": "Eriksson"}});
    body["contactInfo"] = json!({"emails": ["anna@example.com"]});
    server.create(&format!("?entityId={id}"), &body);
}

/// The document step's parts: the passport as printed, its MRZ, a photo.
fn document_parts(token: &str) -> Vec<Part<'_>> {
    vec![
        Part::Text("csrf", token),
        Part::Text("identity_document.documentType", "PASSPORT"),
        Part::Text("identity_document.documentNumber", "L898902C3"),
        Part::Text("identity_document.issuingCountry", "SWE"),
        Part::Text("identity_document.expiryDate", "2030-01-01"),
        Part::Text("identity_document.mrz", MRZ),
        Part::File("identity_document.files", "passport.png", PNG),
        Part::Text("action", "next"),
    ]
}

/// The path of a hosted link under the servers' public URL.
fn path_of(uri: &Value) -> String {
    let uri = uri.as_str().unwrap_or_else(|| panic!("no link: {uri}"));
    assert!(uri.starts_with(&format!("{ISSUER}/hosted/")), "{uri}");
    uri[ISSUER.len()..].to_owned()
}

/// The status of a GET of `path` without a token, and its text.
fn open(server: &Server, path: &str) -> Reply {
    server.send(server.request_as(None, Method::GET, path))
}

on_both_backends! {
    /// A job created without providerConfig captures on the hosted page: the run's
    /// `verificationUri` opens it, the document and selfie submitted through it
    /// complete the run with the built-in provider's outcome.
    fn a_job_without_a_provider_captures_on_the_hosted_page(server) {
        eriksson(&server, "anna");
        let (hook, hooks) = receiver(vec![]);
        let job = server
            .post(JOBS, &json!({"entity": "entities/anna", "enrichEntity": true, "webhookUri": hook}))
            .ok();
        assert_eq!(job["hostedCaptureConfig"], json!({}), "{job}");
        assert!(job.get("truuthVerificationConfig").is_none(), "{job}");
        let name = job["name"].as_str().unwrap().to_owned();

        let operation = server.post(&format!("/v1alpha/{name}:run"), &json!({})).ok();
        assert_eq!(operation["done"], false, "{operation}");
        let debug = &operation["metadata"]["debug"];
        let link = path_of(&debug["verificationUri"]);
        assert!(debug["expireTime"].is_string(), "{operation}");

        // The page: the document step first, its MRZ typed in and a photo captured.
        let mut visitor = Visitor::new(&server, &link);
        let first = visitor.get("");
        assert_eq!(first.status, 200, "{}", first.text);
        assert!(first.text.contains("Machine readable zone"), "{}", first.text);
        assert!(first.text.contains("capture=\"environment\""), "{}", first.text);
        let token = csrf(&first);
        let reply = visitor.post("document", &document_parts(&token));
        assert_eq!(reply.status, 303, "{}", reply.text);

        // A selfie that is not an image is refused next to its field.
        let selfie = visitor.get("/steps/selfie");
        assert!(selfie.text.contains("capture=\"user\""), "{}", selfie.text);
        let reply = visitor.post("selfie", &[
            Part::Text("csrf", &token), Part::File("selfie", "selfie.txt", b"not a picture"),
            Part::Text("action", "submit"),
        ]);
        assert_eq!(reply.status, 422, "{}", reply.text);
        assert!(reply.text.contains("This file is not an image."), "{}", reply.text);
        assert!(reply.text.contains("id=\"e-selfie\""), "{}", reply.text);

        let reply = visitor.post("selfie", &[
            Part::Text("csrf", &token), Part::File("selfie", "selfie.png", PNG),
            Part::Text("action", "submit"),
        ]);
        assert_eq!(reply.status, 200, "{}", reply.text);
        assert!(reply.text.contains("Thank you"), "{}", reply.text);
        // A second submit finds the link used.
        let again = visitor.post("selfie", &[
            Part::Text("csrf", &token), Part::File("selfie", "selfie.png", PNG),
            Part::Text("action", "submit"),
        ]);
        assert_eq!(again.status, 410, "{}", again.text);
        assert!(!again.text.contains("Eriksson"), "{}", again.text);

        // The completion: the run done with the built-in provider's outcome.
        let ended = server.wait_for(&operation);
        assert!(ended.get("error").is_none(), "{ended}");
        let job = server.get(&format!("/v1alpha/{name}")).ok();
        assert_eq!(job["state"], "SUCCEEDED", "{job}");
        let result = &job["result"];
        let verified = server.get("/v1alpha/individualEntityIDVerificationJobs").ok();
        assert_eq!(result["provider"], "HOSTED_CAPTURE", "{job}");
        assert_eq!(result["proofingOutcomes"], json!(["PASSED"]), "{verified}");
        assert_eq!(result["assurance"], "DOCUMENT_ONLY", "{job}");
        assert_eq!(result["verificationStatus"], "VERIFIED", "{job}");
        assert_eq!(result["proofingOutcomes"], json!(["PASSED"]), "{job}");
        let mut enriched: Vec<&str> = array(&result["enrichedFields"]).iter().filter_map(Value::as_str).collect();
        enriched.sort_unstable();
        assert_eq!(enriched.len(), 2, "{job}");

        let entity = server.entity("anna");
        assert_eq!(entity["verificationStatus"], "VERIFIED", "{entity}");
        assert_eq!(entity["individual"]["legalName"]["givenName"], "Anna", "{entity}");
        assert_eq!(entity["individual"]["legalName"]["familyName"], "Eriksson", "{entity}");
        assert_eq!(entity["individual"]["dateOfBirth"], "1974-08-12", "{entity}");

        let logs = server.get("/v1alpha/entities/anna/activityLogs").ok();
        let checks: Vec<&Value> = array(&logs["activityLogs"]).iter().filter(|l| l["type"] == "IDENTITY_CHECK").collect();
        assert_eq!(checks.len(), 1, "{logs}");
        assert_eq!(checks[0]["source"], "RICS", "{logs}");
        assert_eq!(checks[0]["name"], result["activityLog"], "{logs}");

        // The document stored from the page, verified by the ID document verification.
        let documents = server.get("/v1alpha/entities/anna/documents").ok();
        let stored = &array(&documents["documents"])[0];
        assert_eq!(stored["documentNumber"], "L898902C3", "{documents}");
        assert_eq!(array(&stored["mrz"]).len(), 2, "{documents}");

        let message = next(&hooks);
        assert_eq!(message.body["type"], "verification_session.completed", "{}", message.body);
        assert_eq!(message.body["data"]["object"]["name"], name, "{}", message.body);
        assert_eq!(message.body["data"]["object"]["state"], "SUCCEEDED", "{}", message.body);
    }

    /// Without Truuth configured, a session started without an entity is the hosted
    /// capture's: the person may submit at once, and the completion (the document
    /// stored and verified as the entity's, the IDENTITY_CHECK log) follows once
    /// `:linkEntity` names the entity.
    fn a_session_without_an_entity_completes_once_linked(server) {
        eriksson(&server, "anna");
        let answer = server
            .post("/v1alpha/verificationSessions",
                &json!({"identityOwner": {"email": "anna@example.com"}, "enrichEntity": true}))
            .ok();
        let session = answer["name"].as_str().unwrap().to_owned();
        let mut visitor = Visitor::new(&server, &path_of(&answer["sessionUri"]));
        let token = csrf(&visitor.get(""));
        assert_eq!(visitor.post("document", &document_parts(&token)).status, 303);
        let reply = visitor.post("selfie", &[
            Part::Text("csrf", &token), Part::File("selfie", "selfie.png", PNG),
            Part::Text("action", "submit"),
        ]);
        assert_eq!(reply.status, 200, "{}", reply.text);

        let link = || server.post(&format!("/v1alpha/{session}:linkEntity"), &json!({"entity": "entities/anna"})).ok();
        let mut linked = link();
        assert_eq!(linked["entity"], "entities/anna", "{linked}");
        // Linking again changes nothing, and shows when the session completed.
        for _ in 0..100 {
            if linked["state"] == "COMPLETED" {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
            linked = link();
        }
        assert_eq!(linked["state"], "COMPLETED", "{linked}");
        let entity = server.entity("anna");
        assert_eq!(entity["verificationStatus"], "VERIFIED", "{entity}");
        assert_eq!(entity["individual"]["legalName"]["givenName"], "Anna", "{entity}");
        let logs = server.get("/v1alpha/entities/anna/activityLogs").ok();
        let checks: Vec<&Value> = array(&logs["activityLogs"]).iter().filter(|l| l["type"] == "IDENTITY_CHECK").collect();
        assert_eq!(checks.len(), 1, "{logs}");
        assert_eq!(checks[0]["source"], "RICS", "{logs}");
        assert_eq!(linked["activityLog"], checks[0]["name"], "{linked}");
    }

    /// A hosted capture link that expired answers 410, a tampered one 404, both
    /// showing nothing; a link of one tenant opens nothing of another's. Both
    /// providers at once are refused; clearing Truuth's leaves the default.
    fn capture_links_that_expired_or_were_tampered_with_show_nothing(server) {
        eriksson(&server, "anna");
        server
            .post(JOBS, &json!({"entity": "entities/anna", "hostedCaptureConfig": {}, "truuthVerificationConfig": {}}))
            .invalid("ONE_OF", "job.hostedCaptureConfig");
        let truuth = server.post(JOBS, &json!({"entity": "entities/anna", "truuthVerificationConfig": {}})).ok();
        let cleared = server
            .patch(&format!("/v1alpha/{}?updateMask=truuthVerificationConfig", truuth["name"].as_str().unwrap()), &json!({}))
            .ok();
        assert_eq!(cleared["hostedCaptureConfig"], json!({}), "{cleared}");
        assert!(cleared.get("truuthVerificationConfig").is_none(), "{cleared}");

        let job = server.post(JOBS, &json!({"entity": "entities/anna"})).ok();
        let name = job["name"].as_str().unwrap();
        let operation = server.post(&format!("/v1alpha/{name}:run"), &json!({})).ok();
        let link = path_of(&operation["metadata"]["debug"]["verificationUri"]);
        assert_eq!(open(&server, &link).status, 200);

        let token = link.strip_prefix("/hosted/").unwrap();
        let mut tampered: Vec<char> = token.chars().collect();
        let middle = tampered.len() / 2;
        tampered[middle] = if tampered[middle] == 'A' { 'B' } else { 'A' };
        let reply = open(&server, &format!("/hosted/{}", tampered.into_iter().collect::<String>()));
        assert_eq!(reply.status, 404, "{}", reply.text);
        assert!(!reply.text.contains("Eriksson") && !reply.text.contains("Machine readable"), "{}", reply.text);

        // The same form id in another tenant is not this link's.
        let form = operation["metadata"]["debug"]["verificationSession"].as_str().unwrap()
            .replace("verificationSessions/", "capture-");
        let (child, _) = server.child_tenant("Other tenant");
        let foreign = crate::hosted::link(&server, &child, &form, 3600, None);
        assert_eq!(open(&server, &foreign).status, 404);

        // Past its expiry (a link of the same form issued already expired), 410.
        let expired = crate::hosted::link(&server, server.partner(), &form, -1, None);
        let reply = open(&server, &expired);
        assert_eq!(reply.status, 410, "{}", reply.text);
        assert!(!reply.text.contains("Eriksson"), "{}", reply.text);
    }
}
