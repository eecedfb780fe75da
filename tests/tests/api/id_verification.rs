//! ID document verification jobs over HTTP: created about an individual and one of its
//! documents (or a document type), run by a worker, with named checks, the entity's
//! verification status, a DOCUMENT_VERIFICATION activity log and, on failure, one
//! "Individual Verification Failed" alert; and the MRZ rules of documents.

use rics_domain::mrz::{MrzFields, MrzFormat, Sex, compose};
use rics_e2e::*;
use serde_json::{Value, json};

const JOBS: &str = "/v1alpha/individualEntityIDVerificationJobs";
const DOCUMENTS: &str = "/v1alpha/documents";
const FAILED_ALERT: &str = "alertTypes/individual-verification-failed";

/// The TD3 zone of Anna Maria Eriksson's Utopian passport, valid until 2041.
fn zone() -> Vec<String> {
    compose(&MrzFields {
        format: MrzFormat::Td3,
        document_code: "P".into(),
        issuing_state: "UTO".into(),
        primary_identifier: "ERIKSSON".into(),
        secondary_identifier: "ANNA MARIA".into(),
        document_number: "L898902C3".into(),
        nationality: "UTO".into(),
        birth_date: "740812".into(),
        sex: Sex::Female,
        expiry_date: "410415".into(),
        optional_data: "ZE184226B".into(),
        optional_data_2: String::new(),
    })
    .unwrap()
}

fn passport(entity: &str, mrz: &[String], extra: Value) -> Value {
    let mut body = json!({
        "entity": format!("entities/{entity}"),
        "documentType": "PASSPORT",
        "documentNumber": "L898902C3",
        "issuingCountry": "UTO",
        "nationality": "UTO",
        "givenName": "Anna Maria",
        "familyName": "Eriksson",
        "dateOfBirth": "1974-08-12",
        "gender": "FEMALE",
        "issueDate": "2021-04-16",
        "expiryDate": "2041-04-15",
        "mrz": mrz,
    });
    if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
        body.extend(extra.clone());
    }
    body
}

fn anna(server: &Server) {
    server.create(
        "?entityId=anna",
        &json!({
            "displayName": "Anna Eriksson",
            "individual": {
                "legalName": {"givenName": "Anna", "middleNames": "Maria", "familyName": "Eriksson"},
                "dateOfBirth": "1974-08-12"
            }
        }),
    );
}

fn add_document(server: &Server, id: &str, body: &Value) -> Value {
    server
        .post(&format!("{DOCUMENTS}?documentId={id}"), body)
        .ok()
}

/// Creates a job with `body` and runs it; returns the finished operation.
fn verify(server: &Server, body: &Value) -> Value {
    let job = server.post(JOBS, body).ok();
    let name = job["name"].as_str().unwrap().to_owned();
    assert!(
        name.starts_with("individualEntityIDVerificationJobs/"),
        "{name}"
    );
    let operation = server
        .post(&format!("/v1alpha/{name}:run"), &json!({}))
        .ok();
    server.wait_for(&operation)
}

fn statuses(result: &Value) -> Vec<(String, String)> {
    array(&result["checks"])
        .iter()
        .map(|c| {
            (
                c["check"].as_str().unwrap().to_owned(),
                c["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn failed_alerts(server: &Server) -> Vec<Value> {
    let filter = format!("alertType = \"{FAILED_ALERT}\"");
    let page = server
        .get(&format!("/v1alpha/alerts{}", query(&[("filter", &filter)])))
        .ok();
    page["alerts"].as_array().cloned().unwrap_or_default()
}

#[test]
fn a_consistent_passport_verifies_the_individual_sqlite() {
    a_consistent_passport_verifies_the_individual(Backend::Sqlite);
}

#[test]
fn a_consistent_passport_verifies_the_individual_postgres() {
    a_consistent_passport_verifies_the_individual(Backend::Postgres);
}

fn a_consistent_passport_verifies_the_individual(backend: Backend) {
    let server = Server::start(backend);
    anna(&server);
    add_document(
        &server,
        "anna-passport",
        &passport("anna", &zone(), json!({})),
    );
    let done = verify(
        &server,
        &json!({"entity": "entities/anna", "document": "documents/anna-passport"}),
    );
    assert!(done.get("error").is_none(), "{done}");
    assert_eq!(
        done["metadata"]["type"],
        "rics.v1alpha.IndividualEntityIDVerificationJob"
    );
    let job = &done["response"];
    assert_eq!(job["entity"], "entities/anna");
    assert_eq!(job["document"], "documents/anna-passport");
    let result = &job["result"];
    assert_eq!(result["outcome"], "PASSED", "{result}");
    let expected: Vec<(String, String)> = [
        "MRZ_FORMAT",
        "MRZ_CHECK_DIGITS",
        "MRZ_MATCHES_FIELDS",
        "NOT_EXPIRED",
        "ISSUE_DATE_VALID",
        "ISSUING_COUNTRY_VALID",
        "NAME_MATCHES_ENTITY",
        "DATE_OF_BIRTH_MATCHES_ENTITY",
    ]
    .iter()
    .map(|c| ((*c).to_owned(), "PASSED".to_owned()))
    .collect();
    assert_eq!(statuses(result), expected);
    assert_eq!(server.entity("anna")["verificationStatus"], "VERIFIED");
    let log = server
        .get(&format!(
            "/v1alpha/{}",
            result["activityLog"].as_str().unwrap()
        ))
        .ok();
    assert_eq!(log["type"], "DOCUMENT_VERIFICATION");
    assert_eq!(log["payload"]["outcome"], "PASSED");
    assert!(result.get("alert").is_none());
    assert!(failed_alerts(&server).is_empty());

    // By type: the newest live passport of the entity; listed among every entity's jobs.
    let by_type = verify(
        &server,
        &json!({"entity": "entities/anna", "idType": "PASSPORT"}),
    );
    assert_eq!(
        by_type["response"]["result"]["document"],
        "documents/anna-passport"
    );
    let listed = server.get(JOBS).ok();
    assert_eq!(
        array(&listed["individualEntityIDVerificationJobs"]).len(),
        2
    );
    // The list filters on the entity.
    server.create_person("bob-ray", "Bob Ray");
    add_document(
        &server,
        "bob-passport",
        &passport("bob-ray", &zone(), json!({})),
    );
    verify(
        &server,
        &json!({"entity": "entities/bob-ray", "idType": "PASSPORT"}),
    );
    let of = |entity: &str| {
        let filter = format!("entity = \"entities/{entity}\"");
        let page = server
            .get(&format!("{JOBS}{}", query(&[("filter", &filter)])))
            .ok();
        array(&page["individualEntityIDVerificationJobs"])
            .iter()
            .map(|j| j["entity"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(of("anna"), ["entities/anna", "entities/anna"]);
    assert_eq!(of("bob-ray"), ["entities/bob-ray"]);
    assert_eq!(of("nobody"), Vec::<String>::new());
    let name = by_type["response"]["name"].as_str().unwrap();
    assert_eq!(
        server.get(&format!("/v1alpha/{name}")).ok(),
        by_type["response"]
    );
}

#[test]
fn a_failing_document_names_its_checks_and_raises_one_alert_sqlite() {
    a_failing_document_names_its_checks_and_raises_one_alert(Backend::Sqlite);
}

#[test]
fn a_failing_document_names_its_checks_and_raises_one_alert_postgres() {
    a_failing_document_names_its_checks_and_raises_one_alert(Backend::Postgres);
}

fn a_failing_document_names_its_checks_and_raises_one_alert(backend: Backend) {
    let server = Server::start(backend);
    anna(&server);
    // Doc 9303's own specimen: expired in 2012. One check digit changed: the document
    // number's (line 2 column 10), 6 -> 7.
    let specimen = [
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<".to_owned(),
        "L898902C37UTO7408122F1204159ZE184226B<<<<<10".to_owned(),
    ];
    add_document(
        &server,
        "old-passport",
        &passport(
            "anna",
            &specimen,
            json!({"issueDate": "2002-04-16", "expiryDate": "2012-04-15"}),
        ),
    );
    let done = verify(
        &server,
        &json!({"entity": "entities/anna", "document": "documents/old-passport"}),
    );
    let result = &done["response"]["result"];
    assert_eq!(result["outcome"], "FAILED", "{result}");
    let checks = statuses(result);
    assert!(
        checks.contains(&("MRZ_CHECK_DIGITS".into(), "FAILED".into())),
        "{checks:?}"
    );
    assert!(
        checks.contains(&("NOT_EXPIRED".into(), "FAILED".into())),
        "{checks:?}"
    );
    assert!(
        checks.contains(&("NAME_MATCHES_ENTITY".into(), "PASSED".into())),
        "{checks:?}"
    );
    let digits = array(&result["checks"])
        .iter()
        .find(|c| c["check"] == "MRZ_CHECK_DIGITS")
        .unwrap();
    assert!(
        digits["reason"]
            .as_str()
            .unwrap()
            .contains("line 2 column 10"),
        "{digits}"
    );
    assert_eq!(server.entity("anna")["verificationStatus"], "FAILED");
    let alerts = failed_alerts(&server);
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert_eq!(alerts[0]["name"], result["alert"]);
    assert_eq!(alerts[0]["entities"], json!(["entities/anna"]));
    assert_eq!(alerts[0]["source"], done["response"]["name"]);

    // A document of someone else fails on the entity checks, whatever its zone says.
    server.create_person("john-smith", "John Smith");
    add_document(
        &server,
        "johns-copy",
        &passport("john-smith", &zone(), json!({})),
    );
    let other = verify(
        &server,
        &json!({"entity": "entities/john-smith", "document": "documents/johns-copy"}),
    );
    let result = &other["response"]["result"];
    assert_eq!(result["outcome"], "FAILED");
    assert!(statuses(result).contains(&("NAME_MATCHES_ENTITY".into(), "FAILED".into())));
    assert_eq!(failed_alerts(&server).len(), 2);
}

#[test]
fn bad_jobs_and_bad_zones_are_refused_sqlite() {
    bad_jobs_and_bad_zones_are_refused(Backend::Sqlite);
}

#[test]
fn bad_jobs_and_bad_zones_are_refused_postgres() {
    bad_jobs_and_bad_zones_are_refused(Backend::Postgres);
}

fn bad_jobs_and_bad_zones_are_refused(backend: Backend) {
    let server = Server::start(backend);
    anna(&server);
    server.create_person("bob-ray", "Bob Ray");
    add_document(
        &server,
        "anna-passport",
        &passport("anna", &zone(), json!({})),
    );

    server
        .post(JOBS, &json!({"document": "documents/anna-passport"}))
        .invalid("REQUIRED", "job.entity");
    server
        .post(JOBS, &json!({"entity": "anna", "idType": "PASSPORT"}))
        .invalid("INVALID_NAME", "job.entity");
    server
        .post(JOBS, &json!({"entity": "entities/anna"}))
        .invalid("REQUIRED", "job.document");
    server
        .post(JOBS, &json!({"entity": "entities/anna", "document": "documents/anna-passport", "idType": "PASSPORT"}))
        .invalid("ONE_OF", "job.idType");
    server
        .post(
            JOBS,
            &json!({"entity": "entities/bob-ray", "document": "documents/anna-passport"}),
        )
        .invalid("DOCUMENT_OF_ANOTHER_ENTITY", "job.document");
    server
        .post(
            JOBS,
            &json!({"entity": "entities/anna", "document": "documents/nothing"}),
        )
        .error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
    server
        .post(
            JOBS,
            &json!({"entity": "entities/nobody", "idType": "PASSPORT"}),
        )
        .error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
    server.create("?entityId=acme", &company("Acme"));
    server
        .post(
            JOBS,
            &json!({"entity": "entities/acme", "idType": "PASSPORT"}),
        )
        .error(400, "FAILED_PRECONDITION", "NOT_AN_INDIVIDUAL");
    server
        .get(&format!("{JOBS}/nothing-here"))
        .error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");

    // No document of the type: the run fails with the reason.
    let done = verify(
        &server,
        &json!({"entity": "entities/bob-ray", "idType": "VISA"}),
    );
    assert_eq!(done["metadata"]["value"], "FAILED", "{done}");
    assert_eq!(
        done["error"]["details"][0]["reason"], "NO_DOCUMENT",
        "{done}"
    );
    assert_eq!(done["error"]["code"], 9, "{done}");
    assert!(
        done["error"]["message"].as_str().unwrap().contains("VISA"),
        "{done}"
    );

    // An MRZ of the wrong length or in lower case is no MRZ; a wrong check digit is
    // stored, for a verification to name.
    let mut short = zone();
    short[1].pop();
    server
        .post(DOCUMENTS, &passport("anna", &short, json!({})))
        .assert_violation("document.mrz[1]");
    let mut lower = zone();
    lower[0] = lower[0].replacen("ERIKSSON", "Eriksson", 1);
    let reply = server.post(DOCUMENTS, &passport("anna", &lower, json!({})));
    reply.assert_violation("document.mrz[0]");
    assert!(reply.text.contains("MRZ_LOWER_CASE"), "{}", reply.text);
    let mut wrong_digit = zone();
    let last = wrong_digit[1].pop().unwrap();
    wrong_digit[1].push(if last == '1' { '2' } else { '1' });
    server
        .post(DOCUMENTS, &passport("anna", &wrong_digit, json!({})))
        .ok();
    // An expiry before the issue date is refused.
    server
        .post(
            DOCUMENTS,
            &passport(
                "anna",
                &zone(),
                json!({"issueDate": "2021-04-16", "expiryDate": "2020-01-01"}),
            ),
        )
        .assert_violation("document.expiryDate");
}

on_both_backends! {
    /// `:run` takes the ID document verification guide's `entity` and `idType` too:
    /// `entity` must be the job's (else 400 ENTITY_MISMATCH, and nothing starts);
    /// `idType` picks the entity's newest live document of that type for this run only,
    /// and the run's result records it. A request id replays only the same run body.
    fn run_takes_the_entity_and_an_id_type_for_that_run(server) {
        anna(&server);
        server.create_person("bob-ray", "Bob Ray");
        add_document(&server, "anna-passport", &passport("anna", &zone(), json!({})));
        let national_id = json!({"entity": "entities/anna", "documentType": "NATIONAL_ID", "documentNumber": "UT-1234567", "issuingCountry": "UTO", "givenName": "Anna Maria", "familyName": "Eriksson", "dateOfBirth": "1974-08-12"});
        add_document(&server, "anna-id-card", &national_id);
        let job = server
            .post(JOBS, &json!({"entity": "entities/anna", "document": "documents/anna-passport"}))
            .ok();
        let name = job["name"].as_str().unwrap().to_owned();
        let run = |body: &Value| server.post(&format!("/v1alpha/{name}:run"), body);

        run(&json!({"entity": "entities/bob-ray"})).invalid("ENTITY_MISMATCH", "run.entity");
        run(&json!({"entity": "anna"})).invalid("ENTITY_MISMATCH", "run.entity");
        run(&json!({"idType": "CARD"})).invalid("INVALID_VALUE", "run.idType");
        run(&json!({"colour": "red"})).invalid("UNKNOWN_FIELD", "run.colour");
        assert_eq!(server.get(&format!("/v1alpha/{name}")).ok()["state"], "PENDING");

        let by_type = server.wait_for(&run(&json!({"entity": "entities/anna", "idType": "NATIONAL_ID"})).ok());
        assert!(by_type.get("error").is_none(), "{by_type}");
        let result = &by_type["response"]["result"];
        assert_eq!(result["document"], "documents/anna-id-card", "{result}");
        assert_eq!(result["documentType"], "NATIONAL_ID");
        assert_eq!(result["idType"], "NATIONAL_ID");
        assert_eq!(by_type["response"]["document"], "documents/anna-passport", "the job's input is unchanged");
        assert!(by_type["response"].get("idType").is_none());
        let log = server.get(&format!("/v1alpha/{}", result["activityLog"].as_str().unwrap())).ok();
        assert_eq!(log["payload"]["idType"], "NATIONAL_ID");

        let plain = server.wait_for(&run(&json!({"entity": "entities/anna"})).ok());
        let result = &plain["response"]["result"];
        assert_eq!(result["document"], "documents/anna-passport", "{result}");
        assert!(result.get("idType").is_none(), "{result}");

        let missing = server.wait_for(&run(&json!({"idType": "VISA"})).ok());
        assert_eq!(missing["error"]["details"][0]["reason"], "NO_DOCUMENT", "{missing}");

        let request_id = "5f0b7a52-8c9d-4e1f-a2b3-c4d5e6f7a8b9";
        let first = run(&json!({"requestId": request_id, "idType": "NATIONAL_ID"})).ok();
        assert_eq!(run(&json!({"requestId": request_id, "idType": "NATIONAL_ID"})).ok()["name"], first["name"]);
        run(&json!({"requestId": request_id})).invalid("REQUEST_ID_REUSED", "requestId");
        server.wait_for(&first);
    }
}
