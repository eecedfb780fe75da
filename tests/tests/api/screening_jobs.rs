//! PEP and sanctions screening jobs over HTTP: created, run as a long-running
//! operation that a worker completes, with matches explained, the list versions used,
//! and the entity's screening status set.

use rics_e2e::*;
use serde_json::{Value, json};

const JOBS: &str = "pepSanctionIndividualEntityJobs";

/// A server with `workers` job workers (screening against the bundled UN list, as
/// every test server).
fn screening_server(backend: Backend, workers: u32) -> Server {
    Server::start_with(backend, |config| config.job_concurrency = workers)
}

fn jobs_of(entity: &str) -> String {
    format!("{ENTITIES}/{entity}/{JOBS}")
}

/// Fails unless every key in `value` is lowerCamelCase and every number has at most 4
/// decimals: the API's rule, which holds inside the screening engine's explanations too.
fn assert_camel_case_with_four_decimals(value: &Value, path: &str) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                assert!(
                    key.starts_with(|c: char| c.is_ascii_lowercase())
                        && key.chars().all(|c| c.is_ascii_alphanumeric()),
                    "{path}.{key} is not lowerCamelCase"
                );
                assert_camel_case_with_four_decimals(inner, &format!("{path}.{key}"));
            }
        }
        Value::Array(items) => {
            for (i, inner) in items.iter().enumerate() {
                assert_camel_case_with_four_decimals(inner, &format!("{path}[{i}]"));
            }
        }
        Value::Number(n) => {
            let text = n.to_string();
            let decimals = text.split_once('.').map_or(0, |(_, d)| d.len());
            assert!(decimals <= 4, "{path} = {text} has more than 4 decimals");
        }
        _ => {}
    }
}

/// Creates a job about `entity` and runs it; returns the finished operation.
fn screen(server: &Server, entity: &str, body: &Value) -> (Value, Value) {
    let job = server.post(&jobs_of(entity), body).ok();
    let name = job["name"].as_str().unwrap().to_owned();
    let operation = server
        .post(&format!("/v1alpha/{name}:run"), &json!({}))
        .ok();
    assert_eq!(operation["done"], false, "{operation}");
    assert!(
        operation["name"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{name}/operations/"))
    );
    (server.wait_for(&operation), job)
}

#[test]
fn a_listed_person_is_a_potential_match_with_explanations_sqlite() {
    a_listed_person_is_a_potential_match_with_explanations(Backend::Sqlite);
}

#[test]
fn a_listed_person_is_a_potential_match_with_explanations_postgres() {
    a_listed_person_is_a_potential_match_with_explanations(Backend::Postgres);
}

fn a_listed_person_is_a_potential_match_with_explanations(backend: Backend) {
    let server = screening_server(backend, 2);
    server.create_person("eric-badege", "Eric Badege");
    let (done, job) = screen(&server, "eric-badege", &json!({}));
    assert!(done.get("error").is_none(), "{done}");
    assert_eq!(
        done["metadata"]["type"],
        "rics.v1alpha.PepSanctionIndividualEntityJob"
    );
    assert_eq!(done["metadata"]["value"], "SUCCEEDED");
    let response = &done["response"];
    assert_eq!(response["state"], "SUCCEEDED");
    assert_eq!(
        response["threshold"], 0.7,
        "the default threshold is recorded"
    );
    let result = &response["result"];
    assert_eq!(result["status"], "POTENTIAL_MATCH");
    let best = &result["matches"][0];
    assert_eq!(best["dataset"], "un_sc");
    assert!(best["score"].as_f64().unwrap() >= 0.7);
    assert!(
        best["explanation"]["factors"]
            .as_array()
            .is_some_and(|f| !f.is_empty()),
        "{best}"
    );
    assert!(
        best["explanation"]["factors"][0]["logOdds"].is_number(),
        "{best}"
    );
    assert!(best["explanation"]["matchedName"].is_string(), "{best}");
    assert_camel_case_with_four_decimals(&done, "operation");
    let versions = result["listVersions"].as_array().unwrap();
    assert_eq!(versions.len(), 1);
    assert_eq!(versions[0]["contentHash"].as_str().unwrap().len(), 64);
    // The job reads back as the operation left it; the entity carries the status.
    let name = job["name"].as_str().unwrap();
    let stored = server.get(&format!("/v1alpha/{name}")).ok();
    assert_eq!(&stored, response);
    assert_eq!(stored["latestOperation"], done["name"]);
    assert_eq!(
        server.entity("eric-badege")["screeningStatus"],
        "POTENTIAL_MATCH"
    );
    // Its events: created, started, succeeded, and the entity's status change.
    let events = server
        .get(&format!("{ENTITIES}/eric-badege/events?pageSize=100"))
        .ok();
    let types: Vec<&str> = array(&events["events"])
        .iter()
        .map(|e| e["eventType"].as_str().unwrap())
        .collect();
    for expected in [
        "pep_sanction_job.created",
        "pep_sanction_job.started",
        "entity.updated",
        "pep_sanction_job.succeeded",
    ] {
        assert!(
            types.contains(&expected),
            "{expected} missing from {types:?}"
        );
    }

    // The run wrote a PEP_AND_SANCTIONS activity log with the result, and raised one
    // alert naming the job as its source.
    let log = server
        .get(&format!(
            "/v1alpha/{}",
            result["activityLog"].as_str().unwrap()
        ))
        .ok();
    assert_eq!(
        (log["type"].as_str(), log["source"].as_str()),
        (Some("PEP_AND_SANCTIONS"), Some("RICS"))
    );
    assert_eq!(log["entityNames"], json!(["entities/eric-badege"]));
    assert_eq!(log["payload"]["matches"], result["matches"]);
    assert_camel_case_with_four_decimals(&log, "activityLog");
    let alert = server
        .get(&format!("/v1alpha/{}", result["alert"].as_str().unwrap()))
        .ok();
    assert_eq!(
        alert["alertType"],
        "alertTypes/pep-and-sanctions-match-found"
    );
    assert_camel_case_with_four_decimals(&alert, "alert");
    assert_eq!(alert["severity"], "HIGH", "the type's default");
    assert_eq!(alert["state"], "ACTIVE");
    assert_eq!(alert["source"], job["name"]);
    assert_eq!(
        alert["details"]["bestMatch"]["listEntry"],
        best["listEntry"]
    );

    // The lists screened against, as loaded.
    let lists = server.get("/v1alpha/screeningLists").ok();
    assert_eq!(lists["screeningLists"], json!(result["listVersions"]));

    server.create_person("jane-doe", "Jane Quietlife");
    let (clear, _) = screen(&server, "jane-doe", &json!({"threshold": 0.9}));
    assert_eq!(clear["response"]["result"]["status"], "CLEAR");
    assert_eq!(clear["response"]["result"]["matches"], json!([]));
    assert!(
        clear["response"]["result"].get("alert").is_none(),
        "no match, no alert"
    );
    assert!(
        clear["response"]["result"]["activityLog"].is_string(),
        "every run is logged"
    );
    assert_eq!(server.entity("jane-doe")["screeningStatus"], "CLEAR");
}

#[test]
fn a_member_of_congress_is_a_pep_match_with_positions_sqlite() {
    a_member_of_congress_is_a_pep_match_with_positions(Backend::Sqlite);
}

#[test]
fn a_member_of_congress_is_a_pep_match_with_positions_postgres() {
    a_member_of_congress_is_a_pep_match_with_positions(Backend::Postgres);
}

/// With the bundled PEP list beside the UN list, a senator screened by the name he goes
/// by is a PEP match that shows the listed record: names, date of birth, nationality,
/// positions and the publisher's page; the lists say which topic each holds.
fn a_member_of_congress_is_a_pep_match_with_positions(backend: Backend) {
    let server = Server::start_with(backend, |config| {
        config.screening_lists.push(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../data/lists/us_congress_2026-06/us_congress_pep.jsonl"),
        );
    });
    let mut sanders = person("Bernie Sanders");
    sanders["individual"]["dateOfBirth"] = json!("1941-09-08");
    sanders["individual"]["nationalities"] = json!(["US"]);
    server.create("?entityId=bernie-sanders", &sanders);
    let (done, _) = screen(&server, "bernie-sanders", &json!({}));
    let result = &done["response"]["result"];
    assert_eq!(result["status"], "POTENTIAL_MATCH", "{done}");
    let best = &result["matches"][0];
    assert_eq!(
        (
            best["dataset"].as_str(),
            best["listEntry"].as_str(),
            best["category"].as_str()
        ),
        (Some("us_congress_pep"), Some("S000033"), Some("PEP")),
        "{best}"
    );
    let record = &best["record"];
    assert_eq!(
        record["names"],
        json!(["Bernard Sanders", "Bernie Sanders"])
    );
    assert_eq!(record["datesOfBirth"], json!(["1941-09-08"]));
    assert_eq!(record["nationalities"], json!(["US"]));
    assert_eq!(
        record["positions"][1],
        json!({"title": "United States Senator for Vermont", "startDate": "2007-01-04", "endDate": "2031-01-03"})
    );
    assert_eq!(
        record["sourceUrl"],
        "https://bioguide.congress.gov/search/bio/S000033"
    );
    assert_camel_case_with_four_decimals(&done, "operation");
    let lists = server.get("/v1alpha/screeningLists").ok();
    let topics: Vec<(&str, &Value)> = array(&lists["screeningLists"])
        .iter()
        .map(|l| (l["dataset"].as_str().unwrap(), &l["topics"]))
        .collect();
    assert_eq!(
        topics,
        vec![
            ("un_sc", &json!(["sanction"])),
            ("us_congress_pep", &json!(["pep"]))
        ]
    );
}

on_both_backends! {
    /// The bad inputs of jobs and runs.
    fn bad_job_requests_are_refused(server) {
        server.create_person("jane-doe", "Jane Doe");
        let jobs = jobs_of("jane-doe");
        server.post(&jobs, &json!({"threshold": 0})).invalid("OUT_OF_RANGE", "job.threshold");
        server.post(&jobs, &json!({"threshold": 1.5})).invalid("OUT_OF_RANGE", "job.threshold");
        server.post(&jobs, &json!({"colour": 1})).invalid("UNKNOWN_FIELD", "job.colour");
        server.post(&jobs, &json!({"entity": "entities/other"})).invalid("ENTITY_MISMATCH", "job.entity");
        server.post(&jobs_of("nobody"), &json!({})).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        let job = server.post(&jobs, &json!({"state": "SUCCEEDED"})).ok();
        assert_eq!(job["state"], "PENDING", "state is output only");
        let name = job["name"].as_str().unwrap().to_owned();
        // An operation name under the wrong job.
        let other = server.post(&jobs, &json!({})).ok();
        let operation = server.post(&format!("/v1alpha/{}:run", other["name"].as_str().unwrap()), &json!({})).ok();
        let operation_id = operation["name"].as_str().unwrap().rsplit('/').next().unwrap();
        server.get(&format!("/v1alpha/{name}/operations/{operation_id}")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        server.get(&format!("/v1alpha/{}", operation["name"].as_str().unwrap())).ok();
        // A job of a deleted entity cannot run.
        server.delete(&format!("{ENTITIES}/jane-doe")).ok();
        server.post(&format!("/v1alpha/{name}:run"), &json!({})).error(400, "FAILED_PRECONDITION", "ENTITY_DELETED");
        server.post(&jobs, &json!({})).error(400, "FAILED_PRECONDITION", "ENTITY_DELETED");
        server.post(&format!("/v1alpha/{name}:run"), &json!({"requestId": "not-a-uuid"})).invalid("INVALID_REQUEST_ID", "requestId");
    }

    /// Job lists page 10 by default and at most 100; `entities/-` lists every
    /// entity's jobs; a pageToken is bound to its filter.
    fn job_lists_page(server) {
        server.create_person("jane-doe", "Jane Doe");
        server.create_person("john-doe", "John Doe");
        for _ in 0..103 {
            server.post(&jobs_of("jane-doe"), &json!({})).ok();
        }
        server.post(&jobs_of("john-doe"), &json!({})).ok();
        let first = server.get(&jobs_of("jane-doe")).ok();
        assert_eq!(array(&first[JOBS]).len(), 10);
        assert_eq!(first["totalSize"], 103);
        let coerced = server.get(&format!("{}?pageSize=1000", jobs_of("jane-doe"))).ok();
        assert_eq!(array(&coerced[JOBS]).len(), 100);
        let token = coerced["nextPageToken"].as_str().unwrap();
        let rest = server.get(&format!("{}?pageSize=1000&pageToken={token}", jobs_of("jane-doe"))).ok();
        assert_eq!(array(&rest[JOBS]).len(), 3);
        assert!(rest.get("nextPageToken").is_none());
        server.get(&format!("{}?pageSize=1000&pageToken={token}&filter=state%3DPENDING", jobs_of("jane-doe")))
            .invalid("PAGE_TOKEN_REQUEST_MISMATCH", "pageToken");
        let across = server.get(&format!("{}?pageSize=100", jobs_of("-"))).ok();
        assert_eq!(across["totalSize"], 104);
        let newest = &array(&across[JOBS])[0];
        assert_eq!(newest["entity"], "entities/john-doe", "newest first");
        server.get(&jobs_of("nobody")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
    }
}

#[test]
fn runs_are_idempotent_and_never_overlap_sqlite() {
    runs_are_idempotent_and_never_overlap(Backend::Sqlite);
}

#[test]
fn runs_are_idempotent_and_never_overlap_postgres() {
    runs_are_idempotent_and_never_overlap(Backend::Postgres);
}

/// With no worker in the process, a run stays queued: a second `:run` is refused,
/// a retry with the same request id returns the same operation, another request id
/// is refused as the job is running.
fn runs_are_idempotent_and_never_overlap(backend: Backend) {
    let server = screening_server(backend, 0);
    server.create_person("jane-doe", "Jane Doe");
    let job = server.post(&jobs_of("jane-doe"), &json!({})).ok();
    let run = format!("/v1alpha/{}:run", job["name"].as_str().unwrap());
    let request = "0b0c9a52-1a34-4b7c-9d55-55d3d7b6b2c1";
    let first = server
        .post(&format!("{run}?requestId={request}"), &json!({}))
        .ok();
    let again = server.post(&run, &json!({"requestId": request})).ok();
    assert_eq!(first, again);
    server
        .post(&run, &json!({}))
        .error(400, "FAILED_PRECONDITION", "JOB_RUNNING");
    let job = server
        .get(&format!("/v1alpha/{}", job["name"].as_str().unwrap()))
        .ok();
    assert_eq!(job["state"], "RUNNING");
    assert_eq!(job["latestOperation"], first["name"]);
    // A worker on the same database (another process in production) runs it.
    let worker = server.sibling(|config| config.job_concurrency = 1);
    let done = worker.wait_for(&first);
    assert_eq!(done["response"]["state"], "SUCCEEDED", "{done}");
    drop(worker);
    // The same request id now replays the finished run.
    assert_eq!(server.post(&run, &json!({"requestId": request})).ok(), done);
    let rerun = server.post(&run, &json!({})).ok();
    assert_ne!(rerun["name"], done["name"], "a finished job runs again");
}

#[test]
fn analysts_review_matches_and_the_status_and_alert_follow_sqlite() {
    analysts_review_matches_and_the_status_and_alert_follow(Backend::Sqlite);
}

#[test]
fn analysts_review_matches_and_the_status_and_alert_follow_postgres() {
    analysts_review_matches_and_the_status_and_alert_follow(Backend::Postgres);
}

/// `:reviewMatch` stores each decision on its match; the entity's status follows
/// (POTENTIAL_MATCH while any match is unreviewed, CLEAR when all are dismissed,
/// CONFIRMED_MATCH once one is confirmed, a later review replacing an earlier one); the
/// alert is resolved when every match is reviewed; each review is an event and an
/// activity log, and a retry of the same review writes nothing.
fn analysts_review_matches_and_the_status_and_alert_follow(backend: Backend) {
    let server = screening_server(backend, 2);
    server.create_person("eric-badege", "Eric Badege");
    let (done, job) = screen(&server, "eric-badege", &json!({}));
    let name = job["name"].as_str().unwrap();
    let review = format!("/v1alpha/{name}:reviewMatch");
    let result = &done["response"]["result"];
    let ids: Vec<String> = array(&result["matches"])
        .iter()
        .map(|m| {
            let id = m["id"].as_str().unwrap().to_owned();
            assert_eq!(
                id,
                format!(
                    "{}:{}",
                    m["dataset"].as_str().unwrap(),
                    m["listEntry"].as_str().unwrap()
                )
            );
            id
        })
        .collect();
    assert!(!ids.is_empty(), "{result}");
    let alert = format!("/v1alpha/{}", result["alert"].as_str().unwrap());

    server
        .post(
            &review,
            &json!({"match": "un_sc:nobody", "decision": "FALSE_POSITIVE", "reason": "x"}),
        )
        .invalid("UNKNOWN_MATCH", "match");
    let bad = server.post(&review, &json!({"match": ids[0], "reason": " "}));
    bad.error(400, "INVALID_ARGUMENT", "INVALID_FIELDS");
    assert_eq!(bad.violation_fields(), ["decision", "reason"]);

    let dismissed = |id: &str| json!({"match": id, "decision": "FALSE_POSITIVE", "reason": "Born 1990 in Lyon; the listed Badege is Congolese"});
    let first = server.post(&review, &dismissed(&ids[0])).ok();
    let reviewed = &first["result"]["matches"][0]["review"];
    assert_eq!(reviewed["decision"], "FALSE_POSITIVE");
    assert_eq!(reviewed["reviewer"], ADMIN_CLIENT_ID);
    assert!(reviewed["reviewTime"].is_string());
    let retried = server.post(&review, &dismissed(&ids[0])).ok();
    assert_eq!(
        retried["etag"], first["etag"],
        "the same review again stores nothing"
    );
    for id in &ids[1..] {
        assert_eq!(
            server.entity("eric-badege")["screeningStatus"],
            "POTENTIAL_MATCH"
        );
        assert_eq!(server.get(&alert).ok()["state"], "ACTIVE");
        server.post(&review, &dismissed(id)).ok();
    }
    assert_eq!(server.entity("eric-badege")["screeningStatus"], "CLEAR");
    let resolved = server.get(&alert).ok();
    assert_eq!(resolved["state"], "RESOLVED", "{resolved}");
    assert_eq!(resolved["disposition"], "FALSE_POSITIVE");
    assert_eq!(resolved["resolver"], ADMIN_CLIENT_ID);

    // The dismissals are remembered: a new screen finds the same entries, marks them and
    // raises nothing.
    let (again, _) = screen(&server, "eric-badege", &json!({}));
    let again = &again["response"]["result"];
    assert_eq!(again["status"], "CLEAR", "{again}");
    assert!(
        array(&again["matches"])
            .iter()
            .all(|m| m["previouslyDismissed"] == true),
        "{again}"
    );
    assert!(
        again.get("alert").is_none(),
        "no alert for dismissed matches: {again}"
    );
    assert_eq!(server.entity("eric-badege")["screeningStatus"], "CLEAR");

    let confirmed = server
        .post(&review, &json!({"match": ids[0], "decision": "TRUE_POSITIVE", "reason": "Same date of birth on the passport"}))
        .ok();
    assert_eq!(
        confirmed["result"]["matches"][0]["review"]["decision"], "TRUE_POSITIVE",
        "the later review stands"
    );
    assert_eq!(
        server.entity("eric-badege")["screeningStatus"],
        "CONFIRMED_MATCH"
    );
    assert_eq!(
        server.get(&alert).ok()["disposition"],
        "FALSE_POSITIVE",
        "a resolved alert stays as it was resolved"
    );

    let events = server
        .get(&format!("{ENTITIES}/eric-badege/events?pageSize=1000"))
        .ok();
    let reviews = array(&events["events"])
        .iter()
        .filter(|e| e["eventType"] == "pep_sanction_job.match_reviewed")
        .count();
    assert_eq!(
        reviews,
        ids.len() + 1,
        "one event per stored review, both decisions on the first match"
    );
    let logs = server
        .get(&format!(
            "{ENTITIES}/eric-badege/activityLogs?pageSize=100&filter={}",
            encode("type = PEP_AND_SANCTIONS")
        ))
        .ok();
    assert_eq!(
        array(&logs["activityLogs"]).len(),
        2 + ids.len() + 1,
        "the screens' logs and one per review"
    );

    // A confirmation forgets the dismissal: the next screen alerts on that entry again.
    let (third, _) = screen(&server, "eric-badege", &json!({}));
    let third = &third["response"]["result"];
    let first_again = array(&third["matches"])
        .iter()
        .find(|m| m["id"] == ids[0].as_str())
        .unwrap();
    assert!(first_again.get("previouslyDismissed").is_none(), "{third}");
    assert!(third["alert"].is_string(), "{third}");
    assert_eq!(third["status"], "POTENTIAL_MATCH");

    let unrun = server.post(&jobs_of("eric-badege"), &json!({})).ok();
    server
        .post(
            &format!("/v1alpha/{}:reviewMatch", unrun["name"].as_str().unwrap()),
            &dismissed(&ids[0]),
        )
        .error(400, "FAILED_PRECONDITION", "JOB_HAS_NO_RESULT");
    server
        .post(
            &format!(
                "{ENTITIES}/nobody/{JOBS}/{}:reviewMatch",
                name.rsplit('/').next().unwrap()
            ),
            &dismissed(&ids[0]),
        )
        .error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
}
