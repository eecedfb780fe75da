//! Ongoing monitoring over HTTP: a server reloading its list file every second
//! re-screens, when the file changes, only the monitored entities that the added or
//! changed records may match, and alerts exactly on the new matches; a file that stops
//! loading keeps the lists in use and says so; an entity whose name changes is
//! screened again.

use std::path::Path;
use std::time::{Duration, Instant};

use rics_e2e::*;
use serde_json::{Value, json};

const JOBS: &str = "pepSanctionIndividualEntityJobs";

/// Waits up to 60 s for `found` to give a value, asking again every 200 ms.
fn wait_until<T>(what: &str, mut found: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(value) = found() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The screening jobs of the tenant once none is pending or running.
fn settled_jobs(server: &Server) -> Vec<Value> {
    wait_until("the screening jobs to finish", || {
        let all = server
            .get(&format!("{ENTITIES}/-/{JOBS}?pageSize=100"))
            .ok();
        let jobs = all[JOBS].clone();
        let jobs = array(&jobs).to_vec();
        jobs.iter()
            .all(|job| job["state"] == "SUCCEEDED" || job["state"] == "FAILED")
            .then_some(jobs)
    })
}

/// The entity (`entities/{id}`) of each alert, sorted.
fn alerted_entities(server: &Server) -> Vec<String> {
    let alerts = server.get("/v1alpha/alerts?pageSize=100").ok();
    let mut entities: Vec<String> = array(&alerts["alerts"])
        .iter()
        .flat_map(|alert| array(&alert["entities"]).to_vec())
        .map(|entity| entity.as_str().unwrap().to_owned())
        .collect();
    entities.sort();
    entities
}

fn write_list(path: &Path, rows: &str) {
    std::fs::write(path, format!("id,name\n{rows}")).unwrap();
}

#[test]
fn a_list_change_alerts_exactly_the_new_matches_sqlite() {
    a_list_change_alerts_exactly_the_new_matches(Backend::Sqlite);
}

#[test]
fn a_list_change_alerts_exactly_the_new_matches_postgres() {
    a_list_change_alerts_exactly_the_new_matches(Backend::Postgres);
}

fn a_list_change_alerts_exactly_the_new_matches(backend: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("watchlist.csv");
    write_list(&list, "1,Ivan Petrovich Sidorov\n");
    let server = Server::start_with(backend, |config| {
        config.screening_lists = vec![list.clone()];
        config.screening_reload_interval = Some(Duration::from_secs(1));
        config.metrics_address = Some("127.0.0.1:0".to_owned());
    });
    server.create_person("maria-gonzalez", "Maria Gonzalez");
    let mut unmonitored = person("Maria Gonzalez");
    unmonitored["monitoring"] = json!(false);
    let created = server.create("?entityId=maria-unmonitored", &unmonitored);
    assert_eq!(created["monitoring"], false, "{created}");
    // Matches the record that stays as it is: no list change concerns him.
    server.create_person("ivan-sidorov", "Ivan Sidorov");
    server.create_person("tomasz-wisniewski", "Tomasz Wisniewski");
    let lists = server.get("/v1alpha/screeningLists").ok();
    assert_eq!(lists["screeningLists"][0]["records"], 1, "{lists}");

    write_list(&list, "1,Ivan Petrovich Sidorov\n2,Maria Gonzalez\n");
    let jobs = wait_until("the re-screen of the list change", || {
        let jobs = settled_jobs(&server);
        (!jobs.is_empty()).then_some(jobs)
    });
    assert_eq!(jobs.len(), 1, "one entity is re-screened: {jobs:#?}");
    let job = &jobs[0];
    assert_eq!(job["entity"], "entities/maria-gonzalez", "{job}");
    assert_eq!(job["result"]["reason"], "LIST_CHANGE", "{job}");
    assert_eq!(job["result"]["status"], "POTENTIAL_MATCH", "{job}");
    assert_eq!(job["result"]["matches"][0]["listEntry"], "2", "{job}");
    assert_eq!(
        alerted_entities(&server),
        ["entities/maria-gonzalez"],
        "exactly the new match alerts"
    );
    assert_eq!(
        server.entity("maria-gonzalez")["screeningStatus"],
        "POTENTIAL_MATCH"
    );

    // A file that no longer loads keeps the lists in use, and says so.
    std::fs::write(&list, "no name column\n").unwrap();
    let lists = wait_until("the failed reload to show", || {
        let lists = server.get("/v1alpha/screeningLists").ok();
        lists.get("lastLoadFailure").is_some().then_some(lists)
    });
    assert_eq!(lists["screeningLists"][0]["records"], 2, "{lists}");
    let failure = &lists["lastLoadFailure"];
    assert!(
        failure["message"]
            .as_str()
            .unwrap()
            .contains("watchlist.csv"),
        "{failure}"
    );
    assert!(failure["failureTime"].is_string(), "{failure}");
    assert!(
        server
            .metrics()
            .lines()
            .any(|line| line.starts_with("rics_screening_list_load_failures_total")),
        "the failure is counted"
    );

    // A monitored entity renamed is screened again; an unmonitored one is not.
    server
        .patch(
            &format!("{ENTITIES}/tomasz-wisniewski?updateMask=displayName"),
            &json!({"displayName": "Ivan Petrovich Sidorov"}),
        )
        .ok();
    server
        .patch(
            &format!("{ENTITIES}/maria-unmonitored?updateMask=displayName"),
            &json!({"displayName": "Ivan Petrovich Sidorov"}),
        )
        .ok();
    let jobs = wait_until("the re-screen of the renamed entity", || {
        let jobs = settled_jobs(&server);
        (jobs.len() > 1).then_some(jobs)
    });
    assert_eq!(jobs.len(), 2, "{jobs:#?}");
    let renamed = jobs
        .iter()
        .find(|job| job["entity"] == "entities/tomasz-wisniewski")
        .unwrap();
    assert_eq!(renamed["result"]["reason"], "ENTITY_CHANGE", "{renamed}");
    assert_eq!(
        renamed["result"]["matches"][0]["listEntry"], "1",
        "{renamed}"
    );
    assert_eq!(
        alerted_entities(&server),
        ["entities/maria-gonzalez", "entities/tomasz-wisniewski"]
    );
    let lists = server.get("/v1alpha/screeningLists").ok();
    assert!(lists.get("lastLoadFailure").is_some(), "{lists}");

    // A file that loads again clears the failure.
    write_list(&list, "1,Ivan Petrovich Sidorov\n2,Maria Gonzalez\n");
    wait_until("the reload to succeed", || {
        let lists = server.get("/v1alpha/screeningLists").ok();
        lists.get("lastLoadFailure").is_none().then_some(())
    });
}

#[test]
fn the_monitoring_filter_follows_the_field_sqlite() {
    the_monitoring_filter_follows_the_field(Backend::Sqlite);
}

#[test]
fn the_monitoring_filter_follows_the_field_postgres() {
    the_monitoring_filter_follows_the_field(Backend::Postgres);
}

/// `filter=monitoring = false` lists the entities monitoring leaves out, as created and
/// as updated since.
fn the_monitoring_filter_follows_the_field(backend: Backend) {
    let server = Server::start(backend);
    server.create_person("watched", "Jane Watched");
    let mut unwatched = person("John Unwatched");
    unwatched["monitoring"] = json!(false);
    server.create("?entityId=unwatched", &unwatched);
    let listed = |filter: &str| -> Vec<String> {
        let page = server
            .get(&format!("{ENTITIES}?filter={}", filter.replace(' ', "%20")))
            .ok();
        let ids = page
            .get("entities")
            .map(|entities| array(entities).to_vec())
            .unwrap_or_default();
        ids.iter()
            .map(|e| e["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(listed("monitoring = false"), ["entities/unwatched"]);
    assert_eq!(listed("monitoring = true"), ["entities/watched"]);
    server
        .patch(
            &format!("{ENTITIES}/unwatched?updateMask=monitoring"),
            &json!({"monitoring": true}),
        )
        .ok();
    let patched = server
        .patch(
            &format!("{ENTITIES}/watched?updateMask=monitoring"),
            &json!({"monitoring": false}),
        )
        .ok();
    assert_eq!(patched["monitoring"], false, "{patched}");
    assert_eq!(server.entity("watched")["monitoring"], false);
    assert_eq!(listed("monitoring = false"), ["entities/watched"]);
    assert_eq!(listed("NOT monitoring = false"), ["entities/unwatched"]);
}
