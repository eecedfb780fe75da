//! The screening port over the screening engine: the configured lists (or the bundled
//! ones) are loaded on first use, off the async runtime, and every screen of one party
//! runs on one snapshot of the index, so its result names exactly the list versions it
//! was computed from. A reload builds a new index beside the one in use and swaps it in
//! at once.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use arc_swap::ArcSwapOption;
use async_trait::async_trait;
use rics_domain::error::{Error, Result};
use rics_domain::job::dismissals::record_hash;
use rics_domain::monitoring::{DatasetVersion, ListMonitor, MonitoredParty};
use rics_domain::resource::to_json;
use rics_domain::screen::{
    ListLoadFailure, ListVersionInfo, ListedPosition, ListedRecord, MatchCategory, NameMatcher,
    ScreenMatch, ScreenOutcome, ScreenRequest, Screener,
};
use rics_domain::time::Clock;
use rics_screening::model::{EntityKind, Gender, Name, NameRole, Record, Topic};
use rics_screening::{
    BirthDate, Evidence, Index, ListVersion, LoadReport, LoadedList, Query, ScreenOptions,
    published,
};
use tokio::sync::Mutex;

/// Most matches kept per screened name.
const MATCHES_PER_NAME: usize = 10;

/// The score at which reverse screening names an entity for a full screen: below the
/// lowest threshold a job is likely to use, as the index of entity names weighs tokens
/// by their rarity among the entities, not in the lists, and the full screen decides.
const REVERSE_THRESHOLD: f32 = 0.45;

/// Most entities one listed name may name in reverse screening.
const REVERSE_MATCHES_PER_NAME: usize = 1000;

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

/// The ids of the `parties` that the `listed` records may match: an index of the
/// parties' names (each party a record of its names, date of birth, nationalities and
/// gender), screened with every name of each listed record and its evidence.
fn reverse_screen(listed: &[Record], parties: Vec<MonitoredParty>) -> Vec<String> {
    if listed.is_empty() || parties.is_empty() {
        return Vec::new();
    }
    let records: Vec<Record> = parties.into_iter().map(party_record).collect();
    let index = Index::build(vec![LoadedList {
        version: ListVersion {
            dataset: "monitored".into(),
            content_hash: String::new(),
            list_date: None,
            records: records.len(),
            topics: Vec::new(),
        },
        records,
        report: LoadReport::default(),
    }]);
    let options = ScreenOptions {
        threshold: REVERSE_THRESHOLD,
        limit: REVERSE_MATCHES_PER_NAME,
        datasets: None,
    };
    let mut found = BTreeSet::new();
    for record in listed {
        let evidence = Evidence {
            birth_date: record.birth_dates.first().cloned(),
            nationalities: record.nationalities.clone(),
            gender: record.gender,
        };
        for name in &record.names {
            let query = Query {
                name: name.full.clone(),
                kind: record.kind,
                evidence: evidence.clone(),
            };
            found.extend(
                index
                    .screen(&query, &options)
                    .matches
                    .into_iter()
                    .map(|m| m.list_entry),
            );
        }
    }
    found.into_iter().collect()
}

/// A monitored party as a record of the reverse index.
fn party_record(party: MonitoredParty) -> Record {
    let request = party.request;
    let kind = if request.organisation {
        EntityKind::Organisation
    } else {
        EntityKind::Person
    };
    let mut record = Record::new(party.entity_id, "monitored", kind);
    for (i, name) in request.names.into_iter().enumerate() {
        let role = if i == 0 {
            NameRole::Primary
        } else {
            NameRole::Alias
        };
        record.names.push(Name::new(name, role));
    }
    if let Some(date) = request
        .date_of_birth
        .as_deref()
        .and_then(|d| BirthDate::parse(d).ok())
    {
        record.birth_dates.push(date);
    }
    record.nationalities = request.nationalities;
    record.gender = request.gender.as_deref().and_then(Gender::parse);
    record
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

    async fn reverse_screen(
        &self,
        dataset: &str,
        records: &[String],
        parties: Vec<MonitoredParty>,
    ) -> Result<Vec<String>> {
        let index = self.index().await?;
        let wanted: HashSet<&str> = records.iter().map(String::as_str).collect();
        let listed: Vec<Record> = index
            .records()
            .iter()
            .filter(|r| r.dataset == dataset && wanted.contains(r.id.as_str()))
            .cloned()
            .collect();
        let monitored = parties.len();
        let began = std::time::Instant::now();
        let candidates = tokio::task::spawn_blocking(move || reverse_screen(&listed, parties))
            .await
            .map_err(|e| Error::internal(format!("reverse screening stopped: {e}")))?;
        tracing::info!(
            dataset,
            records = records.len(),
            monitored,
            candidates = candidates.len(),
            seconds = began.elapsed().as_secs_f64(),
            "reverse screening of a list change done"
        );
        Ok(candidates)
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
        let evidence = Evidence {
            birth_date: request
                .date_of_birth
                .as_deref()
                .and_then(|d| BirthDate::parse(d).ok()),
            nationalities: request.nationalities.clone(),
            gender: request.gender.as_deref().and_then(Gender::parse),
        };
        let options = ScreenOptions {
            threshold: request.threshold as f32,
            limit: MATCHES_PER_NAME,
            datasets: (!request.datasets.is_empty()).then(|| request.datasets.clone()),
        };
        let kind = if request.organisation {
            EntityKind::Organisation
        } else {
            EntityKind::Person
        };
        let mut best: Vec<ScreenMatch> = Vec::new();
        for name in &request.names {
            let query = Query {
                name: name.clone(),
                kind,
                evidence: evidence.clone(),
            };
            for found in index.screen(&query, &options).matches {
                let score = published(found.score);
                let candidate = ScreenMatch {
                    id: ScreenMatch::id_for(&found.dataset, &found.list_entry),
                    list_entry: found.list_entry,
                    dataset: found.dataset,
                    matched_name: found.explanation.matched_name.clone(),
                    screened_name: name.clone(),
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
