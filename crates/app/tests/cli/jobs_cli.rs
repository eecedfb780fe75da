//! Job runs survive their workers: the built `rics serve` is killed (SIGKILL) while
//! runs are queued and executing, started again on the same database, and every run
//! (screenings and risk ratings) ends exactly once with its side effects once; two
//! servers on one PostgreSQL share the queue and never run a job twice.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "a test: failing loudly is the point"
)]

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::{Serving, http, rics_on};
use base64::Engine;
use reqwest::Method;
use rics_storage::Backend;
use rics_storage::testing::TestDatabase;
use serde_json::{Value, json};

const CLIENT_ID: &str = "jobs-admin";
const CLIENT_SECRET: &str = "jobs-admin-secret-0001";
const JOBS: &str = "pepSanctionIndividualEntityJobs";
/// The risk rating family, whose runs share the queue with the screening runs.
const RATINGS: &str = "individualEntityRiskRatingJobs";

/// Starts `rics serve` on `database_url` with short leases, `workers` job workers and
/// the bundled UN list.
fn serve(dir: &Path, database_url: &str, workers: u32) -> Serving {
    let lists = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../data/lists/un_2026-02/UN_consolidated.xml");
    let workers = workers.to_string();
    Serving::spawn(
        rics_on(dir, database_url),
        &[
            ("RICS_MIGRATE_ON_START", "true"),
            ("RICS_LOG", "info"),
            ("RICS_BOOTSTRAP_CLIENT_ID", CLIENT_ID),
            ("RICS_BOOTSTRAP_CLIENT_SECRET", CLIENT_SECRET),
            ("RICS_RATE_LIMIT_PER_MINUTE", "1000000"),
            ("RICS_JOB_LEASE_SECONDS", "2"),
            ("RICS_JOB_CONCURRENCY", &workers),
            ("RICS_SCREENING_LISTS", lists.to_str().unwrap()),
        ],
    )
}

/// A caller of one server.
struct Api {
    base: String,
    token: String,
}

impl Api {
    fn of(server: &Serving) -> Api {
        let response: Value = http()
            .post(server.url("/oauth2/token"))
            .basic_auth(CLIENT_ID, Some(CLIENT_SECRET))
            .form(&[("grant_type", "client_credentials")])
            .send()
            .unwrap()
            .json()
            .unwrap();
        Api {
            base: server.base.clone(),
            token: response["access_token"].as_str().unwrap().to_owned(),
        }
    }

    fn call(&self, method: Method, path: &str, body: Option<Value>) -> Value {
        let mut request = http()
            .request(method.clone(), format!("{}{path}", self.base))
            .bearer_auth(&self.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().unwrap();
        let status = response.status();
        let text = response.text().unwrap();
        assert!(status.is_success(), "{method} {path}: {status} {text}");
        serde_json::from_str(&text).unwrap()
    }

    fn get(&self, path: &str) -> Value {
        self.call(Method::GET, path, None)
    }

    fn post(&self, path: &str, body: Value) -> Value {
        self.call(Method::POST, path, Some(body))
    }

    /// Creates `count` screening jobs about `entity` and runs each; returns the run
    /// operations' names.
    fn queue_runs(&self, entity: &str, count: usize) -> Vec<String> {
        self.queue_family_runs(entity, JOBS, count)
    }

    /// Creates `count` jobs of `family` about `entity` and runs each; returns the run
    /// operations' names.
    fn queue_family_runs(&self, entity: &str, family: &str, count: usize) -> Vec<String> {
        (0..count)
            .map(|_| {
                let job = self.post(&format!("/v1alpha/entities/{entity}/{family}"), json!({}));
                let run = self.post(
                    &format!("/v1alpha/{}:run", job["name"].as_str().unwrap()),
                    json!({}),
                );
                run["name"].as_str().unwrap().to_owned()
            })
            .collect()
    }

    /// How many of the entity's jobs are in `state`.
    fn count_in(&self, entity: &str, state: &str) -> i64 {
        let page = self.get(&format!(
            "/v1alpha/entities/{entity}/{JOBS}?filter=state%3D{state}&pageSize=1"
        ));
        page["totalSize"].as_i64().unwrap()
    }

    /// Waits until every operation is done; returns them.
    fn wait_all(&self, operations: &[String]) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(120);
        operations
            .iter()
            .map(|name| {
                loop {
                    let operation = self.get(&format!("/v1alpha/{name}"));
                    if operation["done"] == true {
                        break operation;
                    }
                    assert!(Instant::now() < deadline, "{name} never ended: {operation}");
                    std::thread::sleep(Duration::from_millis(50));
                }
            })
            .collect()
    }

    /// How many events of each type name each job of the entity.
    fn job_events(&self, entity: &str) -> BTreeMap<(String, String), usize> {
        let mut counts = BTreeMap::new();
        let mut token = String::new();
        loop {
            let page = self.get(&format!(
                "/v1alpha/entities/{entity}/events?pageSize=100&pageToken={token}"
            ));
            for event in page["events"].as_array().unwrap() {
                let payload = base64::engine::general_purpose::STANDARD
                    .decode(event["eventPayload"].as_str().unwrap())
                    .unwrap();
                let payload: Value = serde_json::from_slice(&payload).unwrap();
                let key = (
                    payload["resource"].as_str().unwrap_or_default().to_owned(),
                    event["eventType"].as_str().unwrap().to_owned(),
                );
                *counts.entry(key).or_default() += 1;
            }
            match page["nextPageToken"].as_str() {
                Some(next) => token = next.to_owned(),
                None => return counts,
            }
        }
    }
}

/// Every run of `operations` succeeded, and its job has exactly one `started` and one
/// `succeeded` event.
fn assert_each_ran_once(api: &Api, entity: &str, operations: &[Value]) {
    let events = api.job_events(entity);
    for operation in operations {
        assert_eq!(operation["response"]["state"], "SUCCEEDED", "{operation}");
        let name = operation["name"].as_str().unwrap();
        let job = name.split("/operations/").next().unwrap().to_owned();
        for kind in ["pep_sanction_job.started", "pep_sanction_job.succeeded"] {
            assert_eq!(
                events.get(&(job.clone(), kind.to_owned())),
                Some(&1),
                "{job} {kind}"
            );
        }
    }
}

fn a_killed_server_leaves_no_run_behind_and_none_twice(backend: Backend) {
    let db = TestDatabase::empty(backend);
    let dir = tempfile::tempdir().unwrap();
    // Queue the runs on a server without workers, so that they are all waiting.
    let queueing = serve(dir.path(), db.url(), 0);
    let api = Api::of(&queueing);
    api.post("/v1alpha/entities?entityId=eric-badege", eric_badege());
    let operations = api.queue_runs("eric-badege", 40);
    api.post("/v1alpha/entities?entityId=reza", high_risk_person());
    let ratings = api.queue_family_runs("reza", RATINGS, 20);
    queueing.stop();
    // A server with workers starts on them; kill it as the first runs finish, with
    // some runs claimed and executing and the rest queued.
    let working = serve(dir.path(), db.url(), 4);
    let api = Api::of(&working);
    let deadline = Instant::now() + Duration::from_secs(120);
    let finished_before = loop {
        let finished = api.count_in("eric-badege", "SUCCEEDED");
        if finished >= 3 {
            break finished;
        }
        assert!(Instant::now() < deadline, "no run finished");
        std::thread::sleep(Duration::from_millis(5));
    };
    working.stop();
    assert!(
        finished_before < 40,
        "the server was killed with runs left to do"
    );

    let restarted = serve(dir.path(), db.url(), 4);
    let api = Api::of(&restarted);
    let ended = api.wait_all(&operations);
    assert_each_ran_once(&api, "eric-badege", &ended);
    assert_eq!(api.count_in("eric-badege", "SUCCEEDED"), 40);
    // No double side effect: one activity log and one alert per run.
    let logs = api.get("/v1alpha/entities/eric-badege/activityLogs?pageSize=1");
    assert_eq!(logs["totalSize"], 40);
    let alerts =
        api.get("/v1alpha/alerts?pageSize=1&filter=entities%3A%22entities%2Feric-badege%22");
    assert_eq!(alerts["totalSize"], 40);
    assert_eq!(
        api.get("/v1alpha/entities/eric-badege")["screeningStatus"],
        "POTENTIAL_MATCH"
    );
    // The ratings too: one RISK_RATING log per run, and an EDD alert for exactly the
    // runs whose log records a rise to High (from unrated), however often they ran.
    let rated = api.wait_all(&ratings);
    for operation in &rated {
        assert_eq!(operation["response"]["state"], "SUCCEEDED", "{operation}");
    }
    let logs = api.get("/v1alpha/entities/reza/activityLogs?pageSize=100");
    assert_eq!(logs["totalSize"], 20, "{logs}");
    let rises = logs["activityLogs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|log| log["payload"].get("previousRiskLevel").is_none())
        .count();
    assert!(rises >= 1);
    let alerts = api.get("/v1alpha/alerts?pageSize=1&filter=entities%3A%22entities%2Freza%22");
    assert_eq!(alerts["totalSize"], rises);
    assert_eq!(
        api.get("/v1alpha/entities/reza")["riskDetails"]["riskLevel"],
        "HIGH"
    );
}

/// An individual of Iranian nationality living in Iran: rated High.
fn high_risk_person() -> Value {
    json!({"displayName": "Reza Example", "individual": {
        "legalName": {"givenName": "Reza", "familyName": "Example"},
        "nationalities": ["IR"], "countryOfResidence": "IR"}})
}

/// A person on the UN list.
fn eric_badege() -> Value {
    json!({"displayName": "Eric Badege", "individual": {"legalName": {"givenName": "Eric", "familyName": "Badege"}}})
}

#[test]
fn a_killed_server_leaves_no_run_behind_and_none_twice_sqlite() {
    a_killed_server_leaves_no_run_behind_and_none_twice(Backend::Sqlite);
}

#[test]
fn a_killed_server_leaves_no_run_behind_and_none_twice_postgres() {
    a_killed_server_leaves_no_run_behind_and_none_twice(Backend::Postgres);
}

/// Two servers on one PostgreSQL database: each queues half the runs, both workers
/// run some, and every run happens once.
#[test]
fn two_servers_share_the_queue() {
    let db = TestDatabase::empty(Backend::Postgres);
    let dir = tempfile::tempdir().unwrap();
    let first = serve(dir.path(), db.url(), 2);
    let second = serve(dir.path(), db.url(), 2);
    let (one, two) = (Api::of(&first), Api::of(&second));
    one.post("/v1alpha/entities?entityId=eric-badege", eric_badege());
    let mut operations = one.queue_runs("eric-badege", 30);
    operations.extend(two.queue_runs("eric-badege", 30));
    let ended = one.wait_all(&operations);
    assert_each_ran_once(&one, "eric-badege", &ended);
    let workers: std::collections::BTreeSet<&str> = ended
        .iter()
        .map(|operation| operation["metadata"]["debug"]["worker"].as_str().unwrap())
        .collect();
    assert_eq!(workers.len(), 2, "both servers ran jobs: {workers:?}");
}
