//! The screening port over the screening engine: the configured lists (or the bundled
//! ones) are loaded on first use, off the async runtime, and every screen of one party
//! runs on one snapshot of the index, so its result names exactly the list versions it
//! was computed from. A reload builds a new index beside the one in use and swaps it in
//! at once.

use std::path::PathBuf;
use std::sync::Arc;

use arc_swap::ArcSwapOption;
use async_trait::async_trait;
use rics_domain::error::{Error, Result};
use rics_domain::screen::{
    ListVersionInfo, ListedPosition, ListedRecord, MatchCategory, NameMatcher, ScreenMatch,
    ScreenOutcome, ScreenRequest, Screener,
};
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
}

impl ListScreener {
    /// A screener of the lists at `paths`; with none, of the lists bundled in the
    /// repository's `data/lists` (dated fixtures, for first runs and tests).
    pub fn new(paths: Vec<PathBuf>) -> ListScreener {
        ListScreener {
            index: ArcSwapOption::empty(),
            paths: Mutex::new(paths),
        }
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
        let index = load_off_runtime(paths.clone()).await?;
        self.index.store(Some(index.clone()));
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
        let index = load_off_runtime(paths.clone()).await?;
        *current = paths;
        self.index.store(Some(index.clone()));
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

#[async_trait]
impl Screener for ListScreener {
    async fn reload(&self) -> Result<Vec<ListVersionInfo>> {
        let paths = self.paths.lock().await;
        let index = load_off_runtime(paths.clone()).await?;
        self.index.store(Some(index.clone()));
        Ok(index.versions().iter().map(version_info).collect())
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
        let screener = ListScreener::new(vec![path.clone()]);
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
