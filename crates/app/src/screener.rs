//! The screening port over the screening engine: the configured lists (or the bundled
//! ones) are loaded on first use, off the async runtime, and every screen of one party
//! runs on one snapshot of the index, so its result names exactly the list versions it
//! was computed from. A reload builds a new index beside the one in use and swaps it in
//! at once.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use arc_swap::ArcSwapOption;
use async_trait::async_trait;
use rics_domain::error::{Error, Result};
use rics_domain::job::dismissals::record_hash;
use rics_domain::monitoring::{DatasetVersion, ListMonitor, MonitoredParty};
use rics_domain::resource::to_json;
use rics_domain::screen::{
    ListLoadFailure, ListVersionInfo, ListedPosition, ListedRecord, MatchCategory, NameMatcher,
    ScreenMatch, ScreenOutcome, ScreenPart, ScreenRequest, Screener,
};
use rics_domain::time::Clock;
use rics_screening::model::{EntityKind, Gender, Record, Topic};
use rics_screening::{BirthDate, Evidence, Index, ListVersion, Query, ScreenOptions, published};
use tokio::sync::Mutex;

/// Most matches kept per screened name.
const MATCHES_PER_NAME: usize = 10;

/// Screens against lists loaded from files.
pub struct ListScreener {
    index: ArcSwapOption<Index>,
    /// The list files and folders the index was (or is to be) loaded from; empty for the
    /// bundled lists. Held while lists load, so that concurrent first uses load them once
    /// and reloads never interleave.
    paths: Mutex<Vec<PathBuf>>,
    /// The failure of the latest load, until a load succeeds.
    failure: ArcSwapOption<ListLoadFailure>,
    /// Records the versions of every load (ongoing monitoring), once set.
    monitor: OnceLock<Arc<ListMonitor>>,
    clock: Arc<dyn Clock>,
}

impl ListScreener {
    /// A screener of the lists at `paths`; with none, of the lists bundled in the
    /// repository's `data/lists` (dated fixtures, for first runs and tests).
    pub fn new(paths: Vec<PathBuf>, clock: Arc<dyn Clock>) -> ListScreener {
        ListScreener {
            index: ArcSwapOption::empty(),
            paths: Mutex::new(paths),
            failure: ArcSwapOption::empty(),
            monitor: OnceLock::new(),
            clock,
        }
    }

    /// From now on, every load of the lists (the first, each reload) is recorded by
    /// `monitor`, which queues the re-screens of what changed. Set once; later calls
    /// are ignored.
    pub fn monitor_with(&self, monitor: Arc<ListMonitor>) {
        let _ = self.monitor.set(monitor);
    }

    /// The index in use, loaded first if none is.
    async fn index(&self) -> Result<Arc<Index>> {
        if let Some(index) = self.index.load_full() {
            return Ok(index);
        }
        let paths = self.paths.lock().await;
        if let Some(index) = self.index.load_full() {
            return Ok(index);
        }
        self.load_and_swap(paths.clone()).await
    }

    /// Loads the lists at `paths` and swaps them in, then has the monitor record their
    /// versions. A load that fails keeps the lists in use: it is logged as an ERROR,
    /// counted (`rics_screening_list_load_failures_total`) and shown by
    /// [`Screener::load_failure`] until a load succeeds. The caller holds `paths`.
    async fn load_and_swap(&self, paths: Vec<PathBuf>) -> Result<Arc<Index>> {
        let index = match load_off_runtime(paths).await {
            Ok(index) => index,
            Err(error) => {
                tracing::error!(error = %error.message, "loading the screening lists failed; the lists in use stay");
                crate::metrics::record_list_load_failure();
                self.failure.store(Some(Arc::new(ListLoadFailure {
                    message: error.message.clone(),
                    failure_time: self.clock.now(),
                })));
                return Err(error);
            }
        };
        self.failure.store(None);
        self.index.store(Some(index.clone()));
        if let Some(monitor) = self.monitor.get() {
            let versions = dataset_versions_off_runtime(index.clone()).await?;
            match monitor.record(&versions).await {
                Ok(changes) => {
                    for change in changes {
                        tracing::info!(
                            dataset = change.dataset,
                            old_version = change.old_version,
                            new_version = change.new_version,
                            added = change.delta.added.len(),
                            changed = change.delta.changed.len(),
                            removed = change.delta.removed.len(),
                            "screening list changed; its re-screen is queued"
                        );
                    }
                }
                // The next load records it: it compares with what is stored.
                Err(error) => tracing::error!(
                    error = %error,
                    "recording the screening list versions failed; the next reload records them"
                ),
            }
        }
        Ok(index)
    }

    /// The versions of the lists in use, when they are loaded (never loads them).
    pub fn loaded(&self) -> Option<Vec<ListVersionInfo>> {
        self.index
            .load_full()
            .map(|index| index.versions().iter().map(version_info).collect())
    }

    /// Loads the lists at `paths` (none: the bundled ones) and swaps them in at once, and
    /// from then on reloads from `paths`: how SIGHUP switches to the lists the setting now
    /// names. Screens already running finish on the lists they started with. Returns the
    /// new versions.
    ///
    /// # Errors
    /// UNAVAILABLE when a list cannot be loaded; the lists and paths in use stay.
    pub async fn reload_from(&self, paths: Vec<PathBuf>) -> Result<Vec<ListVersionInfo>> {
        let mut current = self.paths.lock().await;
        let index = self.load_and_swap(paths.clone()).await?;
        *current = paths;
        Ok(index.versions().iter().map(version_info).collect())
    }
}

/// Builds an index from the sources, off the async runtime.
async fn load_off_runtime(paths: Vec<PathBuf>) -> Result<Arc<Index>> {
    tokio::task::spawn_blocking(move || load(&paths))
        .await
        .map_err(|e| Error::internal(format!("list loading stopped: {e}")))?
}

/// Loads the lists and builds the index.
fn load(paths: &[PathBuf]) -> Result<Arc<Index>> {
    let unavailable = |e: rics_screening::LoadError| {
        Error::unavailable(
            "SCREENING_LISTS_UNAVAILABLE",
            format!("cannot load the lists: {e}"),
        )
    };
    let lists = rics_screening::bundled::load_configured(paths).map_err(unavailable)?;
    Ok(Arc::new(Index::build(lists)))
}

fn version_info(version: &ListVersion) -> ListVersionInfo {
    ListVersionInfo {
        dataset: version.dataset.clone(),
        content_hash: version.content_hash.clone(),
        list_date: version.list_date.clone(),
        records: version.records as u64,
        topics: version
            .topics
            .iter()
            .map(|t| topic_name(*t).to_owned())
            .collect(),
    }
}

/// A topic as the API writes it.
fn topic_name(topic: Topic) -> &'static str {
    match topic {
        Topic::Sanction => "sanction",
        Topic::Pep => "pep",
    }
}

/// The category of a matched record: SANCTIONS when it is sanctioned at all, else PEP.
fn category(record: &Record) -> MatchCategory {
    if record.topics.contains(&Topic::Pep) && !record.topics.contains(&Topic::Sanction) {
        MatchCategory::Pep
    } else {
        MatchCategory::Sanctions
    }
}

/// The record as a reviewer reads it.
fn listed(record: &Record) -> ListedRecord {
    ListedRecord {
        dataset: record.dataset.clone(),
        id: record.id.clone(),
        names: record.names.iter().map(|n| n.full.clone()).collect(),
        dates_of_birth: record.birth_dates.iter().map(ToString::to_string).collect(),
        nationalities: record.nationalities.clone(),
        programs: record.programs.clone(),
        positions: record
            .positions
            .iter()
            .map(|p| ListedPosition {
                title: p.title.clone(),
                start_date: p.start_date.clone(),
                end_date: p.end_date.clone(),
            })
            .collect(),
        source_url: record.source_url.clone(),
    }
}

/// Each dataset of `index` with the hash of each record's content, off the async
/// runtime.
async fn dataset_versions_off_runtime(index: Arc<Index>) -> Result<Vec<DatasetVersion>> {
    tokio::task::spawn_blocking(move || dataset_versions(&index))
        .await
        .map_err(|e| Error::internal(format!("hashing the list records stopped: {e}")))?
}

/// Each dataset of `index` with the hash of each record's content: the
/// [`record_hash`] of the record as a match shows it, which the dismissal memory
/// keys on too.
fn dataset_versions(index: &Index) -> Result<Vec<DatasetVersion>> {
    let mut hashes: BTreeMap<&str, BTreeMap<String, String>> = BTreeMap::new();
    for record in index.records() {
        hashes
            .entry(record.dataset.as_str())
            .or_default()
            .insert(record.id.clone(), record_hash(&to_json(&listed(record))?));
    }
    Ok(index
        .versions()
        .iter()
        .map(|version| DatasetVersion {
            dataset: version.dataset.clone(),
            content_hash: version.content_hash.clone(),
            record_hashes: hashes.remove(version.dataset.as_str()).unwrap_or_default(),
        })
        .collect())
}

/// What a screen of `request` compares besides names.
fn evidence(request: &ScreenRequest) -> Evidence {
    Evidence {
        birth_date: request
            .date_of_birth
            .as_deref()
            .and_then(|d| BirthDate::parse(d).ok()),
        nationalities: request.nationalities.clone(),
        gender: request.gender.as_deref().and_then(Gender::parse),
    }
}

/// The options of a screen of `request`.
fn options(request: &ScreenRequest) -> ScreenOptions {
    ScreenOptions {
        threshold: request.threshold as f32,
        limit: MATCHES_PER_NAME,
        datasets: (!request.datasets.is_empty()).then(|| request.datasets.clone()),
    }
}

/// The kind of party `request` screens.
fn kind(request: &ScreenRequest) -> EntityKind {
    if request.organisation {
        EntityKind::Organisation
    } else {
        EntityKind::Person
    }
}

/// The queries a screen of `request` runs: one per name, each with the request's kind
/// and evidence.
fn queries(request: &ScreenRequest) -> impl Iterator<Item = Query> + '_ {
    let (evidence, kind) = (evidence(request), kind(request));
    request.names.iter().map(move |name| Query {
        name: name.clone(),
        kind,
        evidence: evidence.clone(),
    })
}

/// Whether a screen of `request` against `index` has any match: each of its names
/// screened as [`Screener::screen`] screens it.
fn has_match(index: &Index, request: &ScreenRequest) -> bool {
    let options = options(request);
    queries(request).any(|query| !index.screen(&query, &options).matches.is_empty())
}

/// The ids of the `parties` with a match in `part`, in their order, screened on every
/// core: the parties are split into one run of consecutive parties per core.
fn matching(part: &Index, parties: &[MonitoredParty]) -> Vec<String> {
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let chunk = parties.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = parties
            .chunks(chunk)
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .filter(|party| has_match(part, &party.request))
                        .map(|party| party.entity_id.clone())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| match worker.join() {
                Ok(found) => found,
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    })
}

/// A part of the lists (the added and changed records of a list change) that
/// monitored parties are screened against; logs, when dropped, how many it screened
/// and named.
struct ListPart {
    part: Arc<Index>,
    dataset: String,
    records: usize,
    screened: AtomicUsize,
    matched: AtomicUsize,
    /// Microseconds spent screening.
    busy: AtomicU64,
    began: Instant,
}

#[async_trait]
impl ScreenPart for ListPart {
    async fn matching(&self, parties: Vec<MonitoredParty>) -> Result<Vec<String>> {
        let part = self.part.clone();
        let count = parties.len();
        let began = Instant::now();
        let found = tokio::task::spawn_blocking(move || matching(&part, &parties))
            .await
            .map_err(|e| Error::internal(format!("screening monitored entities stopped: {e}")))?;
        let micros = u64::try_from(began.elapsed().as_micros()).unwrap_or(u64::MAX);
        self.busy.fetch_add(micros, Ordering::Relaxed);
        self.screened.fetch_add(count, Ordering::Relaxed);
        self.matched.fetch_add(found.len(), Ordering::Relaxed);
        Ok(found)
    }
}

impl Drop for ListPart {
    fn drop(&mut self) {
        tracing::info!(
            dataset = self.dataset,
            records = self.records,
            monitored = self.screened.load(Ordering::Relaxed),
            candidates = self.matched.load(Ordering::Relaxed),
            screening_seconds = self.busy.load(Ordering::Relaxed) as f64 / 1e6,
            seconds = self.began.elapsed().as_secs_f64(),
            "monitored entities screened against the records of a list change"
        );
    }
}

#[async_trait]
impl Screener for ListScreener {
    async fn reload(&self) -> Result<Vec<ListVersionInfo>> {
        let paths = self.paths.lock().await;
        let index = self.load_and_swap(paths.clone()).await?;
        Ok(index.versions().iter().map(version_info).collect())
    }

    fn load_failure(&self) -> Option<ListLoadFailure> {
        self.failure.load_full().map(|failure| (*failure).clone())
    }

    async fn datasets(&self) -> Result<Vec<DatasetVersion>> {
        dataset_versions_off_runtime(self.index().await?).await
    }

    async fn part(&self, dataset: &str, records: &[String]) -> Result<Arc<dyn ScreenPart>> {
        let index = self.index().await?;
        let wanted: HashSet<String> = records.iter().cloned().collect();
        let (name, began) = (dataset.to_owned(), Instant::now());
        let part = tokio::task::spawn_blocking(move || {
            index.part(|r| r.dataset == name && wanted.contains(&r.id))
        })
        .await
        .map_err(|e| Error::internal(format!("preparing the changed records stopped: {e}")))?;
        Ok(Arc::new(ListPart {
            records: part.records().len(),
            part: Arc::new(part),
            dataset: dataset.to_owned(),
            screened: AtomicUsize::new(0),
            matched: AtomicUsize::new(0),
            busy: AtomicU64::new(0),
            began,
        }))
    }

    async fn lists(&self) -> Result<Vec<ListVersionInfo>> {
        Ok(self
            .index()
            .await?
            .versions()
            .iter()
            .map(version_info)
            .collect())
    }

    async fn screen(&self, request: &ScreenRequest) -> Result<ScreenOutcome> {
        let index = self.index().await?;
        let started = std::time::Instant::now();
        let options = options(request);
        let mut best: Vec<ScreenMatch> = Vec::new();
        for query in queries(request) {
            for found in index.screen(&query, &options).matches {
                let score = published(found.score);
                let candidate = ScreenMatch {
                    id: ScreenMatch::id_for(&found.dataset, &found.list_entry),
                    list_entry: found.list_entry,
                    dataset: found.dataset,
                    matched_name: found.explanation.matched_name.clone(),
                    screened_name: query.name.clone(),
                    score,
                    category: category(&found.record),
                    record: listed(&found.record),
                    explanation: serde_json::to_value(&found.explanation)
                        .map_err(|e| Error::internal(e.to_string()))?,
                    review: None,
                    previously_dismissed: false,
                };
                match best.iter_mut().find(|m| {
                    m.dataset == candidate.dataset && m.list_entry == candidate.list_entry
                }) {
                    Some(existing) if existing.score >= score => {}
                    Some(existing) => *existing = candidate,
                    None => best.push(candidate),
                }
            }
        }
        best.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then(a.list_entry.cmp(&b.list_entry))
        });
        let list_versions = index
            .versions()
            .iter()
            .filter(|v| request.datasets.is_empty() || request.datasets.contains(&v.dataset))
            .map(version_info)
            .collect();
        crate::metrics::record_screen(started.elapsed());
        Ok(ScreenOutcome {
            matches: best,
            list_versions,
        })
    }
}

/// The screening engine's name comparison, as the domain's [`NameMatcher`].
pub struct EngineNameMatcher;

impl NameMatcher for EngineNameMatcher {
    fn similarity(&self, a: &str, b: &str) -> f64 {
        f64::from(rics_screening::person_name_similarity(a, b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(name: &str) -> ScreenRequest {
        ScreenRequest {
            names: vec![name.to_owned()],
            threshold: 0.7,
            ..ScreenRequest::default()
        }
    }

    fn party(id: &str, name: &str) -> MonitoredParty {
        MonitoredParty {
            entity_id: id.to_owned(),
            request: request(name),
        }
    }

    #[tokio::test]
    async fn parties_match_a_part_as_they_match_the_whole_lists() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("watchlist.csv");
        std::fs::write(
            &path,
            "id,name\n1,Ivan Petrovich Sidorov\n2,Maria Gonzalez\n3,Usama Hamdan\n",
        )
        .unwrap();
        let screener = ListScreener::new(vec![path], Arc::new(rics_domain::time::SystemClock));
        let part = screener
            .part("watchlist", &["2".into(), "3".into(), "9".into()])
            .await
            .unwrap();
        let parties: Vec<MonitoredParty> = (0..50)
            .map(|i| match i % 5 {
                0 => party(&format!("e{i:02}"), "Maria Gonzalez"),
                1 => party(&format!("e{i:02}"), "Ivan Petrovich Sidorov"),
                2 => party(&format!("e{i:02}"), "Hamdan Usama"),
                _ => party(&format!("e{i:02}"), "Jane Doe"),
            })
            .collect();
        let mut expected = Vec::new();
        for p in &parties {
            let outcome = screener.screen(&p.request).await.unwrap();
            if outcome.matches.iter().any(|m| m.list_entry != "1") {
                expected.push(p.entity_id.clone());
            }
        }
        assert_eq!(expected.len(), 20, "{expected:?}");
        assert_eq!(part.matching(parties).await.unwrap(), expected);
        assert!(part.matching(Vec::new()).await.unwrap().is_empty());
        assert!(
            screener
                .part("other", &["2".into()])
                .await
                .unwrap()
                .matching(vec![party("e", "Maria Gonzalez")])
                .await
                .unwrap()
                .is_empty()
        );
    }

    #[tokio::test]
    async fn a_reload_swaps_in_the_lists_as_they_now_are() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("watchlist.csv");
        std::fs::write(&path, "id,name\n1,Ivan Petrovich Sidorov\n").unwrap();
        let screener =
            ListScreener::new(vec![path.clone()], Arc::new(rics_domain::time::SystemClock));
        let before = screener.lists().await.unwrap();
        assert_eq!(
            (before[0].dataset.as_str(), before[0].records),
            ("watchlist", 1)
        );
        assert!(
            screener
                .screen(&request("Maria Gonzalez"))
                .await
                .unwrap()
                .matches
                .is_empty()
        );

        std::fs::write(
            &path,
            "id,name\n1,Ivan Petrovich Sidorov\n2,Maria Gonzalez\n",
        )
        .unwrap();
        assert_eq!(
            screener.lists().await.unwrap(),
            before,
            "nothing changes until a reload"
        );
        let after = screener.reload().await.unwrap();
        assert_eq!(after[0].records, 2);
        assert_ne!(after[0].content_hash, before[0].content_hash);
        let found = screener.screen(&request("Maria Gonzalez")).await.unwrap();
        assert_eq!(found.matches[0].list_entry, "2");
        assert_eq!(found.list_versions, after);

        std::fs::write(&path, "no name column\n").unwrap();
        assert!(screener.reload().await.is_err());
        assert_eq!(
            screener.lists().await.unwrap(),
            after,
            "a failed reload keeps the lists"
        );
    }
}
