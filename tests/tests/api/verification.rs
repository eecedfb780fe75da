//! Identity verification with Truuth, against a stand-in for Truuth's API inside the
//! test (no provider is reachable here) that follows design.md's shapes: verification
//! sessions with and without an entity, Truuth's callback (good, unauthenticated, with
//! a bad secret, replayed, for an unknown session, too old), and
//! `individualEntityVerificationJobs` from create to the callback that ends the run,
//! with the signed delivery to the job's `webhookUri`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::Duration;

use rics_e2e::*;
use serde_json::{Value, json};

use crate::webhook_deliveries::{next, receiver, signed_with};

/// The callback's path.
const CALLBACK: &str = "/v1alpha/truuth/webhooks/callback";

/// A stand-in for Truuth's API on 127.0.0.1: it answers every
/// `POST /v1/verificationSessions` as Truuth's CreateVerificationSession does, and
/// hands over each request's body. Returns its base URL.
fn truuth_stand_in() -> (String, mpsc::Receiver<Value>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (tell, told) = mpsc::channel();
    let api = base.clone();
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().enumerate() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request_line = String::new();
            let _ = reader.read_line(&mut request_line);
            let mut length = 0;
            let mut authorized = false;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if let Some(value) = lower.strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap_or(0);
                }
                if lower.starts_with("authorization: bearer truuth-test-key") {
                    authorized = true;
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let (status, answer) = if !request_line.starts_with("POST /v1/verificationSessions ") {
                (404, json!({"error": "not found"}))
            } else if !authorized {
                (401, json!({"error": "unauthorized"}))
            } else {
                (
                    200,
                    json!({
                        "token": format!("truuth-token-{n}"),
                        "tenant": "acme-kyc",
                        "apiUrl": api,
                        "sessionUri": format!("{api}/capture/{n}"),
                        "verificationSessionId": format!("truuth-session-{n}"),
                        "identityOwner": body["identityOwner"],
                    }),
                )
            };
            let answer = answer.to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 {status} Answer\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                answer.len()
            );
            if tell.send(body).is_err() {
                return;
            }
        }
    });
    (base, told)
}

/// A server whose Truuth is the stand-in.
fn with_truuth(backend: Backend) -> (Server, mpsc::Receiver<Value>) {
    let (base, told) = truuth_stand_in();
    let server = Server::start_with(backend, |config| {
        config.truuth_api_url = Some(base);
        config.truuth_api_key = rics::config::SecretKey(Some("truuth-test-key".into()));
    });
    (server, told)
}

/// The next request the stand-in got, within 10 s.
fn created(told: &mpsc::Receiver<Value>) -> Value {
    told.recv_timeout(Duration::from_secs(10))
        .expect("the stand-in got no request within 10 s")
}

/// Truuth's callback body for the session of reference `reference`.
fn callback(verification_id: &str, reference: &str, status: &str, outcomes: &[&str]) -> Value {
    json!({
        "verificationId": verification_id,
        "externalRefId": reference,
        "status": status,
        "identityOwner": {
            "givenName": "Amelia", "familyName": "Stone", "middleName": "Rose",
            "dateOfBirth": "1988-04-12", "email": "amelia@example.com",
            "gender": "FEMALE", "mobileNumber": "+61400000000",
        },
        "results": {"proofingOutcomes": outcomes.iter().map(|s| json!({"status": s})).collect::<Vec<_>>()},
    })
}

/// Posts `body` to the callback with `secret` as Bearer token (none with `None`).
fn post_callback(server: &Server, secret: Option<&str>, body: &Value) -> Reply {
    let mut request = server
        .request_as(None, reqwest::Method::POST, CALLBACK)
        .json(body);
    if let Some(secret) = secret {
        request = request.bearer_auth(secret);
    }
    server.send(request)
}

/// An individual with an email, for the provider to reach.
fn person_with_email(server: &Server, id: &str) -> Value {
    let mut body = person("Amelia Stone");
    body["individual"] = json!({"legalName": {"familyName": "Stone"}});
    body["contactInfo"] = json!({"emails": ["amelia@example.com"]});
    server.create(&format!("?entityId={id}"), &body)
}

/// The id of the server's partner tenant.
fn tenant_id(server: &Server) -> &str {
    server.partner().trim_start_matches("tenants/")
}

/// The tenant's Truuth callback secret, rotated now.
fn callback_secret(server: &Server) -> String {
    let rotated = server
        .post(
            "/v1alpha/tenants/current:rotateTruuthCallbackSecret",
            &json!({}),
        )
        .ok();
    let secret = rotated["secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("tcbsec_"), "{rotated}");
    secret
}

/// The IDENTITY_CHECK activity logs naming `entity`.
fn identity_checks(server: &Server, entity: &str) -> Vec<Value> {
    let page = server.get(&format!("/v1alpha/{entity}/activityLogs")).ok();
    array(&page["activityLogs"])
        .iter()
        .filter(|log| log["type"] == "IDENTITY_CHECK")
        .cloned()
        .collect()
}

/// The types of the events of `entity` that begin with `verification_session.`.
fn session_events(server: &Server, entity: &str) -> Vec<String> {
    let page = server.get(&format!("/v1alpha/{entity}/events")).ok();
    array(&page["events"])
        .iter()
        .filter_map(|e| e["eventType"].as_str())
        .filter(|t| t.starts_with("verification_session."))
        .map(str::to_owned)
        .collect()
}

fn sessions_and_callbacks(backend: Backend) {
    let (server, told) = with_truuth(backend);
    person_with_email(&server, "amelia");
    let secret = callback_secret(&server);

    // A session about an entity: what a front end needs, from the provider.
    let answer = server
        .post(
            "/v1alpha/verificationSessions",
            &json!({"identityOwner": {"email": "amelia@example.com", "givenName": "Amelia"},
                    "entity": "entities/amelia", "enrichEntity": true}),
        )
        .ok();
    let asked = created(&told);
    assert_eq!(
        asked["identityOwner"],
        json!({"email": "amelia@example.com", "givenName": "Amelia"})
    );
    let reference = asked["externalRefId"].as_str().unwrap().to_owned();
    let session = answer["name"].as_str().unwrap();
    assert_eq!(
        reference,
        format!(
            "{}.{}",
            tenant_id(&server),
            session.trim_start_matches("verificationSessions/")
        )
    );
    assert_eq!(answer["tenant"], "acme-kyc", "{answer}");
    assert!(
        answer["token"]
            .as_str()
            .unwrap()
            .starts_with("truuth-token-"),
        "{answer}"
    );
    assert!(
        answer["sessionUri"].as_str().unwrap().contains("/capture/"),
        "{answer}"
    );
    assert!(
        answer["apiUrl"]
            .as_str()
            .unwrap()
            .starts_with("http://127.0.0.1:"),
        "{answer}"
    );
    assert!(answer["expireTime"].is_string(), "{answer}");
    assert_eq!(answer["identityOwner"]["email"], "amelia@example.com");
    assert_eq!(answer["entity"], "entities/amelia");

    // Refused callbacks change nothing.
    let done = callback(
        "v-1",
        &reference,
        "VERIFICATION_STATUS_DONE",
        &["PASS", "PASS"],
    );
    post_callback(&server, None, &done).error(401, "UNAUTHENTICATED", "MISSING_CALLBACK_SECRET");
    post_callback(&server, Some("tcbsec_not-it"), &done).error(
        401,
        "UNAUTHENTICATED",
        "INVALID_CALLBACK_SECRET",
    );
    let unknown = callback(
        "v-2",
        &format!("{}.nosuchsession", tenant_id(&server)),
        "VERIFICATION_STATUS_DONE",
        &["PASS"],
    );
    post_callback(&server, Some(&secret), &unknown).error(404, "NOT_FOUND", "UNKNOWN_SESSION");
    let malformed =
        json!({"verificationId": "v-3", "externalRefId": reference, "status": "FINISHED"});
    post_callback(&server, Some(&secret), &malformed).invalid("UNKNOWN_STATUS", "callback.status");
    assert!(identity_checks(&server, "entities/amelia").is_empty());

    // An interim status is taken and completes nothing; the final one completes.
    let processing = callback("v-1", &reference, "VERIFICATION_STATUS_PROCESSING", &[]);
    let receipt = post_callback(&server, Some(&secret), &processing).ok();
    assert_eq!(receipt["state"], "ACTIVE", "{receipt}");
    let receipt = post_callback(&server, Some(&secret), &done).ok();
    assert_eq!(
        receipt,
        json!({"verificationSession": session, "state": "COMPLETED"})
    );
    let entity = server.entity("amelia");
    assert_eq!(entity["verificationStatus"], "VERIFIED", "{entity}");
    assert_eq!(
        entity["individual"],
        json!({"legalName": {"givenName": "Amelia", "middleNames": "Rose", "familyName": "Stone"},
               "dateOfBirth": "1988-04-12"}),
        "missing names and birth date filled, the family name kept"
    );
    let logs = identity_checks(&server, "entities/amelia");
    assert_eq!(
        logs.len(),
        1,
        "{}",
        server.get("/v1alpha/entities/amelia/activityLogs").ok()
    );
    assert_eq!(logs[0]["source"], "TRUUTH");
    assert_eq!(logs[0]["payload"]["verificationStatus"], "VERIFIED");
    assert_eq!(logs[0]["payload"]["assurance"], "DOCUMENT_AND_BIOMETRIC");
    assert_eq!(
        session_events(&server, "entities/amelia"),
        [
            "verification_session.created",
            "verification_session.completed"
        ]
    );

    // A replay is refused, whatever its secret.
    post_callback(&server, Some(&secret), &done).error(409, "ALREADY_EXISTS", "CALLBACK_REPLAYED");
    assert_eq!(identity_checks(&server, "entities/amelia").len(), 1);

    // A session without an entity: the event now, the log once `:linkEntity` names one.
    let loose = server
        .post(
            "/v1alpha/verificationSessions",
            &json!({"identityOwner": {"email": "x@example.com"}}),
        )
        .ok();
    let loose_reference = created(&told)["externalRefId"].as_str().unwrap().to_owned();
    assert!(loose.get("entity").is_none(), "{loose}");
    let failed = callback(
        "v-4",
        &loose_reference,
        "VERIFICATION_STATUS_DONE",
        &["PASS", "FAIL"],
    );
    post_callback(&server, Some(&secret), &failed).ok();
    let loose_name = loose["name"].as_str().unwrap();
    person_with_email(&server, "later");
    let linked = server
        .post(
            &format!("/v1alpha/{loose_name}:linkEntity"),
            &json!({"entity": "entities/later"}),
        )
        .ok();
    assert_eq!(linked["entity"], "entities/later", "{linked}");
    assert_eq!(linked["state"], "COMPLETED");
    assert_eq!(server.entity("later")["verificationStatus"], "FAILED");
    assert_eq!(identity_checks(&server, "entities/later").len(), 1);
    assert_eq!(
        session_events(&server, "entities/later"),
        ["verification_session.entity_linked"]
    );
    server
        .post(
            &format!("/v1alpha/{loose_name}:linkEntity"),
            &json!({"entity": "entities/amelia"}),
        )
        .error(400, "FAILED_PRECONDITION", "SESSION_HAS_ENTITY");

    // Too old: a session expired more than an hour ago takes no callback.
    let old = server
        .post(
            "/v1alpha/verificationSessions",
            &json!({"identityOwner": {"email": "old@example.com"}}),
        )
        .ok();
    let old_reference = created(&told)["externalRefId"].as_str().unwrap().to_owned();
    let old_id = old["name"]
        .as_str()
        .unwrap()
        .trim_start_matches("verificationSessions/");
    server.execute_sql(&format!(
        "UPDATE verification_sessions SET expire_time = 1000000 WHERE id = '{old_id}'"
    ));
    let late = callback("v-5", &old_reference, "VERIFICATION_STATUS_DONE", &["PASS"]);
    post_callback(&server, Some(&secret), &late).error(
        400,
        "FAILED_PRECONDITION",
        "CALLBACK_TOO_OLD",
    );

    // Bad input to the session route.
    server
        .post(
            "/v1alpha/verificationSessions",
            &json!({"identityOwner": {"givenName": "No Mail"}}),
        )
        .invalid("REQUIRED", "session.identityOwner.email");
    server
        .post(
            "/v1alpha/verificationSessions",
            &json!({"identityOwner": {"email": "x@example.com"}, "entity": "entities/nobody"}),
        )
        .error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
}

#[test]
fn sessions_and_callbacks_sqlite() {
    sessions_and_callbacks(Backend::Sqlite);
}

#[test]
fn sessions_and_callbacks_postgres() {
    sessions_and_callbacks(Backend::Postgres);
}

/// The jobs' collection.
const JOBS: &str = "/v1alpha/individualEntityVerificationJobs";

fn jobs_end_at_the_callback(backend: Backend) {
    let (server, told) = with_truuth(backend);
    person_with_email(&server, "jobbed");
    server.create_person("no-mail", "No Mail");
    let secret = callback_secret(&server);
    let (hook, hooks) = receiver(vec![]);
    let signing = server
        .post("/v1alpha/tenants/current:rotateWebhookSecret", &json!({}))
        .ok()["secret"]
        .as_str()
        .unwrap()
        .to_owned();

    // Bad jobs are refused at create.
    server
        .post(
            JOBS,
            &json!({"entity": "entities/jobbed", "truuthVerificationConfig": {},
                            "hostedCaptureConfig": {}}),
        )
        .invalid("ONE_OF", "job.hostedCaptureConfig");
    server
        .post(
            JOBS,
            &json!({"entity": "entities/jobbed", "truuthVerificationConfig": {},
                            "webhookUri": "https://10.0.0.1/hooks"}),
        )
        .error(400, "FAILED_PRECONDITION", "URL_FORBIDDEN_ADDRESS");
    server
        .post(
            JOBS,
            &json!({"entity": "entities/no-mail", "truuthVerificationConfig": {}}),
        )
        .error(400, "FAILED_PRECONDITION", "NO_EMAIL");

    let job = server
        .post(
            JOBS,
            &json!({"entity": "entities/jobbed", "truuthVerificationConfig": {},
                            "enrichEntity": true, "webhookUri": hook}),
        )
        .ok();
    let name = job["name"].as_str().unwrap().to_owned();
    assert!(
        name.starts_with("individualEntityVerificationJobs/"),
        "{job}"
    );
    assert_eq!(job["state"], "PENDING");
    assert_eq!(job["truuthVerificationConfig"], json!({}));

    // `:run` answers at once with the session's URL; the run waits for the callback.
    let operation = server
        .post(&format!("/v1alpha/{name}:run"), &json!({}))
        .ok();
    let asked = created(&told);
    let operation_id = operation["name"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap();
    assert_eq!(
        asked["externalRefId"],
        format!("{}.{operation_id}", tenant_id(&server))
    );
    assert_eq!(
        asked["identityOwner"],
        json!({"email": "amelia@example.com", "familyName": "Stone"})
    );
    let debug = &operation["metadata"]["debug"];
    assert!(
        debug["verificationUri"]
            .as_str()
            .unwrap()
            .contains("/capture/"),
        "{operation}"
    );
    assert!(debug["expireTime"].is_string(), "{operation}");
    assert_eq!(operation["done"], false);
    assert_eq!(
        server.get(&format!("/v1alpha/{name}")).ok()["state"],
        "RUNNING"
    );

    let done = callback(
        "v-job",
        asked["externalRefId"].as_str().unwrap(),
        "VERIFICATION_STATUS_DONE",
        &["PASS"],
    );
    post_callback(&server, Some(&secret), &done).ok();
    let ended = server.wait_for(&operation);
    assert!(ended.get("error").is_none(), "{ended}");
    let job = server.get(&format!("/v1alpha/{name}")).ok();
    assert_eq!(job["state"], "SUCCEEDED", "{job}");
    let result = &job["result"];
    assert_eq!(result["verificationStatus"], "VERIFIED", "{job}");
    assert_eq!(result["provider"], "TRUUTH");
    assert_eq!(
        result["verificationSession"],
        format!("verificationSessions/{operation_id}")
    );
    assert!(
        result["activityLog"]
            .as_str()
            .unwrap()
            .starts_with("activityLogs/identity-check-"),
        "{job}"
    );
    let entity = server.entity("jobbed");
    assert_eq!(entity["verificationStatus"], "VERIFIED");
    assert_eq!(entity["individual"]["dateOfBirth"], "1988-04-12");
    assert_eq!(identity_checks(&server, "entities/jobbed").len(), 1);

    // The completion goes to the job's webhookUri, signed with the tenant's secret.
    let message = next(&hooks);
    assert_eq!(
        message.body["type"], "verification_session.completed",
        "{}",
        message.body
    );
    assert_eq!(
        message.body["data"]["object"]["name"], name,
        "{}",
        message.body
    );
    assert_eq!(
        message.body["data"]["object"]["state"], "SUCCEEDED",
        "{}",
        message.body
    );
    assert!(signed_with(&message, &signing), "{:?}", message.headers);

    // Lists by entity; a replayed callback is refused and changes nothing.
    let filter = query(&[("filter", "entity = \"entities/jobbed\"")]);
    let page = server.get(&format!("{JOBS}{filter}")).ok();
    assert_eq!(
        names(&page["individualEntityVerificationJobs"]),
        [name.as_str()]
    );
    post_callback(&server, Some(&secret), &done).error(409, "ALREADY_EXISTS", "CALLBACK_REPLAYED");
}

#[test]
fn jobs_end_at_the_callback_sqlite() {
    jobs_end_at_the_callback(Backend::Sqlite);
}

#[test]
fn jobs_end_at_the_callback_postgres() {
    jobs_end_at_the_callback(Backend::Postgres);
}

/// Without Truuth configured, a session uses the built-in hosted capture (see
/// hosted_capture.rs); a job that asks for Truuth is refused at `:run`.
#[test]
fn without_truuth_a_session_uses_the_hosted_capture() {
    let server = Server::start(Backend::Sqlite);
    person_with_email(&server, "amelia");
    let answer = server
        .post(
            "/v1alpha/verificationSessions",
            &json!({"identityOwner": {"email": "amelia@example.com"}, "entity": "entities/amelia"}),
        )
        .ok();
    let uri = answer["sessionUri"].as_str().unwrap();
    assert!(uri.starts_with(&format!("{ISSUER}/hosted/")), "{answer}");
    assert_eq!(answer["tenant"], tenant_id(&server), "{answer}");
    assert!(uri.ends_with(answer["token"].as_str().unwrap()), "{answer}");
    let page = server.send(server.request_as(None, reqwest::Method::GET, &uri[ISSUER.len()..]));
    assert_eq!(page.status, 200, "{}", page.text);

    let job = server
        .post(
            JOBS,
            &json!({"entity": "entities/amelia", "truuthVerificationConfig": {}}),
        )
        .ok();
    server
        .post(
            &format!("/v1alpha/{}:run", job["name"].as_str().unwrap()),
            &json!({}),
        )
        .error(400, "FAILED_PRECONDITION", "PROVIDER_NOT_CONFIGURED");
}

/// A verification job's path.
fn job_path(job: &Value) -> String {
    format!("/v1alpha/{}", job["name"].as_str().unwrap())
}

/// The event types of `entity` that begin with `individual_entity_verification_job.`.
fn job_events(server: &Server, entity: &str) -> Vec<String> {
    let page = server
        .get(&format!("/v1alpha/{entity}/events?pageSize=100"))
        .ok();
    array(&page["events"])
        .iter()
        .filter_map(|e| e["eventType"].as_str())
        .filter(|t| t.starts_with("individual_entity_verification_job."))
        .map(str::to_owned)
        .collect()
}

/// Verification jobs take PATCH of their inputs (AIP-134 masks, etag, the family's
/// checks), a soft DELETE hiding them from lists unless `showDeleted`, and
/// `:undelete`; a deleted job is read as it is and refuses changes and runs, a
/// running one refuses changes and deletion. The other families take none of these.
fn jobs_change_delete_and_undelete(backend: Backend) {
    let (server, told) = with_truuth(backend);
    person_with_email(&server, "changed");
    let job = server
        .post(
            JOBS,
            &json!({"entity": "entities/changed", "truuthVerificationConfig": {}}),
        )
        .ok();
    let path = job_path(&job);
    assert_eq!(job["enrichEntity"], false, "{job}");

    // PATCH: the fields the body gives change; nothing else does.
    let updated = server
        .patch(&path, &json!({"enrichEntity": true, "state": "SUCCEEDED"}))
        .ok();
    assert_eq!(updated["enrichEntity"], true, "{updated}");
    assert_eq!(updated["state"], "PENDING", "{updated}");
    assert_eq!(updated["truuthVerificationConfig"], json!({}), "{updated}");
    assert_ne!(updated["etag"], job["etag"]);
    assert_eq!(server.get(&path).ok(), updated);
    // The same values again store nothing.
    let same = server
        .patch(&path, &json!({"enrichEntity": true, "name": job["name"]}))
        .ok();
    assert_eq!(same["etag"], updated["etag"]);
    // Bad changes are refused with the field they concern, and store nothing.
    server
        .patch(&path, &json!({"entity": "entities/someone-else"}))
        .invalid("IMMUTABLE_FIELD_CHANGED", "job.entity");
    server
        .patch(&path, &json!({"displayName": "x"}))
        .invalid("UNKNOWN_FIELD", "job.displayName");
    server
        .patch(&format!("{path}?updateMask=nope"), &json!({}))
        .invalid("UNKNOWN_UPDATE_MASK_PATH", "updateMask");
    server
        .patch(&path, &json!({"webhookUri": "https://10.0.0.1/hooks"}))
        .error(400, "FAILED_PRECONDITION", "URL_FORBIDDEN_ADDRESS");
    server
        .patch(
            &path,
            &json!({"name": "individualEntityVerificationJobs/other"}),
        )
        .invalid("NAME_MISMATCH", "job.name");
    server
        .patch(&path, &json!({"enrichEntity": false, "etag": job["etag"]}))
        .error(409, "ABORTED", "ETAG_MISMATCH");
    // A mask naming a field the body leaves out clears it.
    let cleared = server
        .patch(&format!("{path}?updateMask=enrichEntity"), &json!({}))
        .ok();
    assert_eq!(cleared["enrichEntity"], false, "{cleared}");
    assert_eq!(server.get(&path).ok(), cleared);

    // DELETE is soft: the job is read as it is, listed only with showDeleted, and
    // refuses changes and runs.
    server
        .delete(&format!(
            "{path}?etag={}",
            encode(job["etag"].as_str().unwrap())
        ))
        .error(409, "ABORTED", "ETAG_MISMATCH");
    let deleted = server.delete(&path).ok();
    assert!(deleted["deleteTime"].is_string(), "{deleted}");
    assert!(deleted["purgeTime"].is_string(), "{deleted}");
    assert_eq!(server.get(&path).ok(), deleted);
    let name = job["name"].as_str().unwrap();
    assert!(
        !names(&server.get(JOBS).ok()["individualEntityVerificationJobs"])
            .contains(&name.to_owned())
    );
    let with_deleted = server.get(&format!("{JOBS}?showDeleted=true")).ok();
    assert!(names(&with_deleted["individualEntityVerificationJobs"]).contains(&name.to_owned()));
    server.patch(&path, &json!({"enrichEntity": true})).error(
        400,
        "FAILED_PRECONDITION",
        "RESOURCE_DELETED",
    );
    server.post(&format!("{path}:run"), &json!({})).error(
        400,
        "FAILED_PRECONDITION",
        "RESOURCE_DELETED",
    );
    server
        .delete(&path)
        .error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
    assert_eq!(
        server.delete(&format!("{path}?allowMissing=true")).ok(),
        deleted
    );
    assert_eq!(
        server
            .delete(&format!("{JOBS}/never-was?allowMissing=true"))
            .ok(),
        json!({})
    );

    // :undelete restores it; a live job is not undeleted.
    server
        .post(&format!("{path}:undelete"), &json!({"etag": job["etag"]}))
        .error(409, "ABORTED", "ETAG_MISMATCH");
    let restored = server
        .post(
            &format!("{path}:undelete"),
            &json!({"etag": deleted["etag"]}),
        )
        .ok();
    assert!(restored.get("deleteTime").is_none(), "{restored}");
    assert!(restored.get("purgeTime").is_none(), "{restored}");
    server.post(&format!("{path}:undelete"), &json!({})).error(
        409,
        "ALREADY_EXISTS",
        "RESOURCE_NOT_DELETED",
    );
    assert!(
        names(&server.get(JOBS).ok()["individualEntityVerificationJobs"])
            .contains(&name.to_owned())
    );

    // While a run is under way, the job is neither changed nor deleted.
    server.post(&format!("{path}:run"), &json!({})).ok();
    created(&told);
    server.patch(&path, &json!({"enrichEntity": true})).error(
        400,
        "FAILED_PRECONDITION",
        "JOB_RUNNING",
    );
    server
        .delete(&path)
        .error(400, "FAILED_PRECONDITION", "JOB_RUNNING");
    assert_eq!(server.get(&path).ok()["state"], "RUNNING");

    assert_eq!(
        job_events(&server, "entities/changed"),
        [
            "individual_entity_verification_job.created",
            "individual_entity_verification_job.updated",
            "individual_entity_verification_job.updated",
            "individual_entity_verification_job.deleted",
            "individual_entity_verification_job.undeleted",
            "individual_entity_verification_job.started",
        ]
    );

    // The families that do not declare their inputs changeable have none of these.
    let id_job = "/v1alpha/individualEntityIDVerificationJobs/some-job";
    assert_eq!(server.patch(id_job, &json!({})).status, 405);
    assert_eq!(server.delete(id_job).status, 405);
    assert_eq!(
        server
            .get("/v1alpha/individualEntityIDVerificationJobs?showDeleted=true")
            .status,
        400
    );
}

#[test]
fn jobs_change_delete_and_undelete_sqlite() {
    jobs_change_delete_and_undelete(Backend::Sqlite);
}

#[test]
fn jobs_change_delete_and_undelete_postgres() {
    jobs_change_delete_and_undelete(Backend::Postgres);
}

/// A deleted verification job is purged once its purge time passes (here at once,
/// with a retention of zero), with its runs' operations and the event
/// `individual_entity_verification_job.purged`.
fn deleted_jobs_are_purged(backend: Backend) {
    let (base, told) = truuth_stand_in();
    let server = Server::start_with(backend, |config| {
        config.truuth_api_url = Some(base);
        config.truuth_api_key = rics::config::SecretKey(Some("truuth-test-key".into()));
        config.soft_delete_retention = Duration::ZERO;
        config.purge_interval = Duration::from_millis(100);
    });
    person_with_email(&server, "purged");
    let secret = callback_secret(&server);
    let job = server
        .post(
            JOBS,
            &json!({"entity": "entities/purged", "truuthVerificationConfig": {}}),
        )
        .ok();
    let path = job_path(&job);
    let operation = server.post(&format!("{path}:run"), &json!({})).ok();
    let asked = created(&told);
    let done = callback(
        "v-purged",
        asked["externalRefId"].as_str().unwrap(),
        "VERIFICATION_STATUS_DONE",
        &["PASS"],
    );
    post_callback(&server, Some(&secret), &done).ok();
    server.wait_for(&operation);
    let operation_path = format!("/v1alpha/{}", operation["name"].as_str().unwrap());
    let operations = server.count_rows("operations");
    server.delete(&path).ok();
    let started = std::time::Instant::now();
    while server.get(&path).status != 404 {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the deleted job was not purged"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    server
        .get(&operation_path)
        .error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
    assert_eq!(server.count_rows("operations"), operations - 1);
    assert_eq!(
        job_events(&server, "entities/purged")
            .last()
            .map(String::as_str),
        Some("individual_entity_verification_job.purged")
    );
}

#[test]
fn deleted_jobs_are_purged_sqlite() {
    deleted_jobs_are_purged(Backend::Sqlite);
}

#[test]
fn deleted_jobs_are_purged_postgres() {
    deleted_jobs_are_purged(Backend::Postgres);
}
