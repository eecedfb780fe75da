//! The operator's metrics: a Prometheus recorder for the whole process, and `/metrics`
//! on a listener of its own (`RICS_METRICS_ADDRESS`), apart from the API: it needs no
//! token, so it must not be reachable where the API is. docs/operations.md lists the
//! metrics and the alerts to build on them.
//!
//! Counters and histograms are recorded where things happen (requests in rics-http,
//! the pool in rics-storage, job runs and screens here). Gauges of state (queue depth,
//! connections in use) and the list versions are read when Prometheus scrapes, so
//! they are never stale.

use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use actix_web::web::{self, Data};
use actix_web::{App, HttpResponse, HttpServer};
use anyhow::Context;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use rics_domain::job::RunReport;
use rics_domain::time::Clock;
use rics_storage::{Database, DieselJobRepository};

use crate::screener::ListScreener;

/// Runs of a family not yet done, by `family`.
const JOB_QUEUE_DEPTH: &str = "rics_job_queue_depth";
/// Seconds since the oldest of them was queued, by `family` (0 when none is waiting).
const JOB_OLDEST_AGE: &str = "rics_job_oldest_age_seconds";
/// Attempts of job runs, by `family` and `outcome` (`succeeded`, `failed`, `retried`).
const JOB_RUNS: &str = "rics_job_runs_total";
/// Seconds an attempt took, by `family`.
const JOB_RUN_DURATION: &str = "rics_job_run_duration_seconds";
/// Seconds one screen of a party took (every name, against the index in use).
pub const SCREENING_DURATION: &str = "rics_screening_duration_seconds";
/// Loads of the screening lists that failed (the lists loaded before stay in use).
const SCREENING_LIST_LOAD_FAILURES: &str = "rics_screening_list_load_failures_total";
/// 1 for each list version screened against, by `dataset` and `version` (its date),
/// with its `content_hash`.
const SCREENING_LIST_INFO: &str = "rics_screening_list_info";
/// Database connections held by units of work now.
const DB_POOL_IN_USE: &str = "rics_db_pool_in_use";
/// Rows held by the in-memory search indexes (entity names), every tenant's together.
const SEARCH_INDEX_ENTRIES: &str = "rics_search_index_entries";

/// Histogram buckets of every `*_seconds` metric: from half a millisecond (a GET
/// entity) to ten seconds (a slow job run).
const SECONDS_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// The process's recorder, once installed.
static RECORDER: OnceLock<PrometheusHandle> = OnceLock::new();

/// Installs the process's recorder, or returns the one installed (servers started in
/// one process, as the tests start them, share it); from then on every metric is kept.
///
/// # Errors
/// When another recorder than ours is installed.
pub fn install() -> anyhow::Result<PrometheusHandle> {
    if let Some(handle) = RECORDER.get() {
        return Ok(handle.clone());
    }
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), SECONDS_BUCKETS)
        .context("histogram buckets")?
        .install_recorder()
        .context("cannot install the metrics recorder")?;
    describe();
    Ok(RECORDER.get_or_init(|| handle).clone())
}

/// The `# HELP` line of every metric rics records.
fn describe() {
    use metrics::{Unit, describe_counter, describe_gauge, describe_histogram};
    describe_counter!(
        rics_http::metrics::REQUESTS,
        "Requests answered, by route template, method and status."
    );
    describe_histogram!(
        rics_http::metrics::REQUEST_DURATION,
        Unit::Seconds,
        "Time to answer a request, by route template and method."
    );
    describe_gauge!(
        JOB_QUEUE_DEPTH,
        "Job runs not yet done (queued, running or waiting to retry), by family."
    );
    describe_gauge!(
        JOB_OLDEST_AGE,
        Unit::Seconds,
        "Age of the oldest job run not yet done, by family."
    );
    describe_counter!(
        JOB_RUNS,
        "Attempts of job runs, by family and outcome (succeeded, failed, retried)."
    );
    describe_histogram!(
        JOB_RUN_DURATION,
        Unit::Seconds,
        "Time an attempt of a job run took, by family."
    );
    describe_histogram!(
        SCREENING_DURATION,
        Unit::Seconds,
        "Time one screen of a party against the lists took."
    );
    describe_counter!(
        SCREENING_LIST_LOAD_FAILURES,
        "Loads of the screening lists that failed; the lists loaded before stay in use."
    );
    describe_gauge!(DB_POOL_IN_USE, "Database connections held now.");
    describe_gauge!(
        SEARCH_INDEX_ENTRIES,
        "Entity names held by the in-memory search indexes, every tenant's together."
    );
    describe_histogram!(
        rics_storage::search_index::SEARCH_INDEX_BUILD_SECONDS,
        Unit::Seconds,
        "Time the first build of a tenant's search index took."
    );
    describe_counter!(
        rics_storage::database::POOL_WAITS,
        "Units of database work that waited for a connection."
    );
    describe_counter!(
        rics_storage::database::POOL_TIMEOUTS,
        "Units of database work refused because no connection came in time."
    );
}

/// Records the attempts one pass of a job worker finished.
pub fn record_job_runs(report: &RunReport) {
    for attempt in &report.attempts {
        metrics::counter!(JOB_RUNS, "family" => attempt.family.clone(),
            "outcome" => attempt.outcome.as_str())
        .increment(1);
        metrics::histogram!(JOB_RUN_DURATION, "family" => attempt.family.clone())
            .record(attempt.duration.as_secs_f64());
    }
}

/// What `/metrics` reads when it is scraped.
pub struct Scrape {
    /// The recorder's handle.
    pub handle: PrometheusHandle,
    /// The pool and the queue.
    pub db: Database,
    /// The families the queue serves, so that an empty queue reads 0.
    pub families: Vec<&'static str>,
    /// The lists in use.
    pub screener: Arc<ListScreener>,
    /// Ages of queued runs.
    pub clock: Arc<dyn Clock>,
}

impl Scrape {
    /// The metrics in Prometheus' text format, the gauges read now.
    async fn render(&self) -> String {
        metrics::gauge!(DB_POOL_IN_USE).set(self.db.connections_in_use() as f64);
        metrics::gauge!(SEARCH_INDEX_ENTRIES).set(self.db.search_indexes().entries() as f64);
        match DieselJobRepository::new(self.db.clone())
            .queue_depths()
            .await
        {
            Ok(depths) => {
                let now = self.clock.now();
                for family in &self.families {
                    let depth = depths.iter().find(|d| d.family == *family);
                    let runs = depth.map_or(0, |d| d.runs);
                    let age = depth.map_or(Duration::ZERO, |d| now.since(d.oldest_queue_time));
                    metrics::gauge!(JOB_QUEUE_DEPTH, "family" => *family).set(runs as f64);
                    metrics::gauge!(JOB_OLDEST_AGE, "family" => *family).set(age.as_secs_f64());
                }
            }
            Err(e) => tracing::warn!(error = %e, "metrics: the job queue cannot be read"),
        }
        let mut text = self.handle.render();
        if let Some(lists) = self.screener.loaded() {
            let _ = writeln!(
                text,
                "# HELP {SCREENING_LIST_INFO} The list versions screened against.\n# TYPE {SCREENING_LIST_INFO} gauge"
            );
            for list in lists {
                let _ = writeln!(
                    text,
                    "{SCREENING_LIST_INFO}{{dataset=\"{}\",version=\"{}\",content_hash=\"{}\"}} 1",
                    label(&list.dataset),
                    label(list.list_date.as_deref().unwrap_or_default()),
                    label(&list.content_hash),
                );
            }
        }
        text
    }
}

/// A label value escaped as the text format wants (`\`, `"` and newlines).
fn label(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

async fn metrics_page(scrape: Data<Scrape>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(scrape.render().await)
}

/// How often histograms' recent samples are folded into their buckets between scrapes,
/// which bounds the memory they hold.
const UPKEEP_INTERVAL: Duration = Duration::from_secs(5);

/// Serves `/metrics` at `address` until the process ends: one worker, no signals of
/// its own (the API's server handles shutdown); and keeps the recorder's upkeep.
///
/// # Errors
/// When the address cannot be bound.
pub fn serve(address: &str, scrape: Scrape) -> anyhow::Result<std::net::SocketAddr> {
    let handle = scrape.handle.clone();
    actix_web::rt::spawn(async move {
        let mut ticker = tokio::time::interval(UPKEEP_INTERVAL);
        loop {
            ticker.tick().await;
            handle.run_upkeep();
        }
    });
    let scrape = Data::new(scrape);
    let server = HttpServer::new(move || {
        App::new()
            .app_data(scrape.clone())
            .route("/metrics", web::get().to(metrics_page))
    })
    .workers(1)
    .disable_signals()
    .bind(address)
    .with_context(|| format!("cannot listen for metrics on {address}"))?;
    let bound = server
        .addrs()
        .first()
        .copied()
        .context("the metrics server has no address")?;
    actix_web::rt::spawn(server.run());
    Ok(bound)
}

/// The time of a screen, recorded when it ends.
pub fn record_screen(duration: Duration) {
    metrics::histogram!(SCREENING_DURATION).record(duration.as_secs_f64());
}

/// Counts a load of the screening lists that failed.
pub fn record_list_load_failure() {
    metrics::counter!(SCREENING_LIST_LOAD_FAILURES).increment(1);
}

#[cfg(test)]
mod tests {
    use super::label;

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
