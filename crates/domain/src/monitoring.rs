//! Ongoing monitoring: when a screening list changes, or a monitored entity's names,
//! date of birth or nationalities do, the entities concerned are screened again.
//!
//! A list changes when the screener loads a version of a dataset other than the one
//! stored (a reload on SIGHUP or on the schedule). [`ListMonitor::record`] compares
//! the loaded datasets with the stored versions, computes each change's
//! [`ListDelta`] (records added, changed, removed) and records it once for every
//! replica: the store swaps the version only if it still holds the old one, and in
//! the same transaction queues one re-screening task per tenant keyed by the dataset
//! and both versions. [`ListChangeWork`] works on those tasks: it reads the tenant's
//! monitored entities page by page and screens each, as its screening job would,
//! against a part of the lists holding only the added and changed records (scoring as
//! the whole lists do, [`Screener::part`]), the next page read while one is screened;
//! for each entity with a match it starts, a few at a time, a run of a system-created
//! `pepSanctionIndividualEntityJobs` job with the reason `LIST_CHANGE`; that run
//! screens the entity as any run does and alerts only on a match with a record of the
//! change. [`Rescreens`] starts those runs, and the `ENTITY_CHANGE` ones an entity
//! update asks for.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use async_trait::async_trait;
use futures_util::future::join;
use futures_util::stream::{self, StreamExt, TryStreamExt};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::entity::model::Entity;
use crate::entity::repository::EntityRepository;
use crate::error::{Code, Error, Result};
use crate::job::model::{ClaimedTask, TaskFinish, worker_principal};
use crate::job::pep_sanction::{DEFAULT_THRESHOLD, ScreenReason, ScreenTrigger, screen_request};
use crate::job::ports::{JobRepository, QueuedWork, RunQueued};
use crate::job::{AttemptOutcome, JobService, RunnerSettings};
use crate::principal::TenantId;
use crate::repository::RepositoryError;
use crate::screen::{ScreenMatch, ScreenPart, ScreenRequest, Screener};
use crate::time::{Clock, Timestamp};

/// The queue (`family` of its tasks) of the re-screens of list changes.
pub const LIST_CHANGE_QUEUE: &str = "screeningListChanges";

/// How many monitored entities are read from the store at once.
const ENTITY_PAGE: u32 = 5000;

/// How many re-screen runs of a list change are started at once.
const STARTS_AT_ONCE: usize = 8;

/// A dataset as loaded: its version and the hash of each record's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatasetVersion {
    /// The dataset, such as `un_sc`.
    pub dataset: String,
    /// SHA-256 of the files it was loaded from.
    pub content_hash: String,
    /// The hash of each record's content (the record as a match shows it), by record id.
    pub record_hashes: BTreeMap<String, String>,
}

/// What changed between two versions of a dataset, record ids sorted.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ListDelta {
    /// Records in the new version only.
    pub added: Vec<String>,
    /// Records in both whose content differs.
    pub changed: Vec<String>,
    /// Records in the old version only.
    pub removed: Vec<String>,
}

impl ListDelta {
    /// The delta from the records `old` to `new` (record id to content hash).
    pub fn between(old: &BTreeMap<String, String>, new: &BTreeMap<String, String>) -> ListDelta {
        let mut delta = ListDelta::default();
        for (id, hash) in new {
            match old.get(id) {
                None => delta.added.push(id.clone()),
                Some(before) if before != hash => delta.changed.push(id.clone()),
                Some(_) => {}
            }
        }
        delta.removed = old
            .keys()
            .filter(|id| !new.contains_key(*id))
            .cloned()
            .collect();
        delta
    }

    /// The records a re-screen looks at: the added and the changed ones (a removed
    /// record matches nobody any more).
    pub fn to_screen(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.added.iter().chain(&self.changed).cloned().collect();
        ids.sort_unstable();
        ids
    }
}

/// A change of a dataset from one version to another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListChange {
    /// The dataset.
    pub dataset: String,
    /// The content hash it had.
    pub old_version: String,
    /// The content hash it has.
    pub new_version: String,
    /// What changed.
    pub delta: ListDelta,
    /// When it was seen.
    pub change_time: Timestamp,
}

impl ListChange {
    /// The id of its re-screening task in every tenant, from the dataset and both
    /// versions: replicas that see the same change name the same task.
    pub fn task_id(&self) -> String {
        let digest = Sha256::digest(
            format!(
                "{}\n{}\n{}",
                self.dataset, self.old_version, self.new_version
            )
            .as_bytes(),
        );
        format!("list-change-{}", crate::resource::hex(&digest[..16]))
    }

    /// What its task carries to [`ListChangeWork`].
    pub fn task_input(&self) -> Value {
        json!(ListChangeTask {
            dataset: self.dataset.clone(),
            old_version: self.old_version.clone(),
            new_version: self.new_version.clone(),
            records: self.delta.to_screen(),
        })
    }
}

/// The input of a re-screening task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListChangeTask {
    dataset: String,
    old_version: String,
    new_version: String,
    /// The added and changed records.
    records: Vec<String>,
}

/// Stores the dataset versions the replicas agree on. Every method may fail with
/// [`RepositoryError::Unavailable`] or [`RepositoryError::Internal`] only.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait ListVersionRepository: Send + Sync {
    /// The stored version of `dataset`, if any.
    async fn current(&self, dataset: &str) -> Result<Option<DatasetVersion>, RepositoryError>;

    /// Stores the first version of a dataset seen; `false`, writing nothing, when one
    /// is stored already.
    async fn first(
        &self,
        version: &DatasetVersion,
        now: Timestamp,
    ) -> Result<bool, RepositoryError>;

    /// In one transaction, if the stored version of the dataset is still
    /// `change.old_version`: stores `version` in its place, records `change` and
    /// queues its re-screen in every tenant (a task of [`LIST_CHANGE_QUEUE`] with the
    /// id [`ListChange::task_id`] and the input [`ListChange::task_input`]). Returns
    /// `false`, writing nothing, when the stored version is another (a replica
    /// recorded a change first).
    async fn record_change(
        &self,
        change: &ListChange,
        version: &DatasetVersion,
    ) -> Result<bool, RepositoryError>;

    /// Ends a claimed re-screening task, with the error that failed it for good if
    /// any (kept for operators), if its claim still holds; `false` when it does not.
    async fn end_task<'a>(
        &self,
        task: &ClaimedTask,
        error: Option<&'a str>,
        now: Timestamp,
    ) -> Result<bool, RepositoryError>;
}

/// Records the changes of the lists the screener loaded.
#[derive(derive_new::new)]
pub struct ListMonitor {
    versions: Arc<dyn ListVersionRepository>,
    queued: Arc<dyn RunQueued>,
    clock: Arc<dyn Clock>,
}

impl ListMonitor {
    /// Compares the loaded datasets with the stored versions and records each change
    /// once (a dataset seen for the first time is stored, with nothing to re-screen).
    /// Returns the changes this call recorded.
    ///
    /// # Errors
    /// UNAVAILABLE or INTERNAL when the store fails; the next load records what this
    /// one could not, as it compares with what is stored.
    pub async fn record(&self, loaded: &[DatasetVersion]) -> Result<Vec<ListChange>> {
        let mut recorded = Vec::new();
        for version in loaded {
            let now = self.clock.now();
            let Some(stored) = self.versions.current(&version.dataset).await? else {
                self.versions.first(version, now).await?;
                continue;
            };
            if stored.content_hash == version.content_hash {
                continue;
            }
            let change = ListChange {
                dataset: version.dataset.clone(),
                old_version: stored.content_hash,
                new_version: version.content_hash.clone(),
                delta: ListDelta::between(&stored.record_hashes, &version.record_hashes),
                change_time: now,
            };
            if self.versions.record_change(&change, version).await? {
                recorded.push(change);
            }
        }
        if !recorded.is_empty() {
            self.queued.queued();
        }
        Ok(recorded)
    }
}

/// A monitored entity as a list change's re-screen reads it: its id and what a screen
/// of it gives.
#[derive(Debug, Clone, PartialEq)]
pub struct MonitoredParty {
    /// The entity's id.
    pub entity_id: String,
    /// Its names, kind and evidence, as its screening job screens it.
    pub request: ScreenRequest,
}

/// Starts the system's re-screens of entities: a run, with its reason, of a
/// `pepSanctionIndividualEntityJobs` job that rics creates for it.
pub struct Rescreens {
    jobs: Arc<JobService>,
}

impl Rescreens {
    /// Re-screens through `jobs`, the service of the screening family.
    pub fn new(jobs: Arc<JobService>) -> Rescreens {
        Rescreens { jobs }
    }

    /// Creates a screening job for the entity and starts its run for `trigger`, once
    /// per `key`: a caller repeating itself with the same key (a task retried after a
    /// crash) creates and starts nothing more.
    ///
    /// # Errors
    /// As the job service's create and run (NOT_FOUND or FAILED_PRECONDITION for an
    /// entity gone or deleted since).
    pub async fn start(
        &self,
        tenant: &TenantId,
        entity_id: &str,
        trigger: &ScreenTrigger,
        key: &str,
    ) -> Result<String> {
        let worker = worker_principal(tenant);
        let create_id = request_uuid(tenant, key, "create").to_string();
        let job = self
            .jobs
            .create(&worker, Some(entity_id), json!({}), Some(&create_id))
            .await?;
        let job_id = job
            .get("name")
            .and_then(Value::as_str)
            .and_then(|name| name.rsplit('/').next())
            .ok_or_else(|| Error::internal("a created job has no name"))?
            .to_owned();
        let trigger = serde_json::to_value(trigger).map_err(|e| Error::internal(e.to_string()))?;
        let operation = self
            .jobs
            .run_for_system(
                &worker,
                entity_id,
                &job_id,
                trigger,
                request_uuid(tenant, key, "run"),
            )
            .await?;
        Ok(operation.name)
    }
}

/// Starts a system re-screen of an entity (the port [`ListChangeWork`] starts its runs
/// through; [`Rescreens`] is its implementation).
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait StartRescreen: Send + Sync {
    /// Starts, once per `key`, a re-screen of the entity for `trigger`; returns the
    /// operation's name.
    ///
    /// # Errors
    /// As [`Rescreens::start`]: NOT_FOUND, or FAILED_PRECONDITION with the reason
    /// `ENTITY_DELETED`, for an entity gone or deleted; the common errors.
    async fn start(
        &self,
        tenant: &TenantId,
        entity_id: &str,
        trigger: &ScreenTrigger,
        key: &str,
    ) -> Result<String>;
}

#[async_trait]
impl StartRescreen for Rescreens {
    async fn start(
        &self,
        tenant: &TenantId,
        entity_id: &str,
        trigger: &ScreenTrigger,
        key: &str,
    ) -> Result<String> {
        Rescreens::start(self, tenant, entity_id, trigger, key).await
    }
}

/// The request id rics gives its own create or run for `key` in `tenant`: a UUID
/// (version 8) made of the hash of both, so a repeat replays the first.
fn request_uuid(tenant: &TenantId, key: &str, step: &str) -> uuid::Uuid {
    let digest = Sha256::digest(format!("{}\n{key}\n{step}", tenant.as_str()).as_bytes());
    let mut bytes = [0_u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_custom_bytes(bytes).into_uuid()
}

/// Re-screens, in each tenant, the monitored entities that a list change may affect.
#[derive(derive_new::new)]
pub struct ListChangeWork {
    screener: Arc<dyn Screener>,
    entities: Arc<dyn EntityRepository>,
    versions: Arc<dyn ListVersionRepository>,
    jobs: Arc<dyn JobRepository>,
    rescreens: Arc<dyn StartRescreen>,
    clock: Arc<dyn Clock>,
    settings: RunnerSettings,
}

impl ListChangeWork {
    /// The ids of the tenant's monitored, live entities with a match in `part`: the
    /// entities are read page by page (a keyset scan), and the next page is read while
    /// one is screened.
    async fn matching(&self, tenant: &TenantId, part: &dyn ScreenPart) -> Result<Vec<String>> {
        let mut matching = Vec::new();
        let mut page = self.entities.monitored(tenant, None, ENTITY_PAGE).await?;
        loop {
            let after = (page.len() == ENTITY_PAGE as usize)
                .then(|| page.last().map(|e| e.id().to_owned()))
                .flatten();
            let parties: Vec<MonitoredParty> = page.iter().map(monitored_party).collect();
            drop(page);
            let Some(after) = after else {
                if !parties.is_empty() {
                    matching.extend(part.matching(parties).await?);
                }
                return Ok(matching);
            };
            let (found, next) = join(
                part.matching(parties),
                self.entities.monitored(tenant, Some(&after), ENTITY_PAGE),
            )
            .await;
            matching.extend(found?);
            page = next?;
        }
    }

    /// One attempt at a task: how many re-screens it started; an error is retried.
    /// The runs start [`STARTS_AT_ONCE`] at a time, each once per task and entity (its
    /// key): a retried attempt starts nothing twice.
    async fn rescreen(&self, task: &ClaimedTask, change: &ListChangeTask) -> Result<usize> {
        if change.records.is_empty() {
            return Ok(0);
        }
        let part = self.screener.part(&change.dataset, &change.records).await?;
        let candidates = self.matching(&task.tenant, part.as_ref()).await?;
        drop(part);
        let trigger = ScreenTrigger {
            reason: ScreenReason::ListChange,
            records: change
                .records
                .iter()
                .map(|id| ScreenMatch::id_for(&change.dataset, id))
                .collect(),
        };
        let trigger = &trigger;
        stream::iter(candidates)
            .map(|entity_id| async move {
                let key = format!("{}/{entity_id}", task.id);
                match self
                    .rescreens
                    .start(&task.tenant, &entity_id, trigger, &key)
                    .await
                {
                    Ok(_) => Ok(1),
                    // Erased or deleted since it was read: nobody to re-screen.
                    Err(e) if e.code == Code::NotFound || e.reason == "ENTITY_DELETED" => Ok(0),
                    Err(e) => Err(e),
                }
            })
            .buffer_unordered(STARTS_AT_ONCE)
            .try_fold(0, |started, one| async move { Ok(started + one) })
            .await
    }
}

/// What a monitored entity gives a list change's re-screen: what its screening job
/// screens.
fn monitored_party(entity: &Entity) -> MonitoredParty {
    MonitoredParty {
        entity_id: entity.id().to_owned(),
        request: screen_request(entity, &[], DEFAULT_THRESHOLD),
    }
}

#[async_trait]
impl QueuedWork for ListChangeWork {
    fn queue(&self) -> &'static str {
        LIST_CHANGE_QUEUE
    }

    async fn work(&self, task: &ClaimedTask) -> Result<AttemptOutcome> {
        let change: ListChangeTask = serde_json::from_value(task.run_input.clone())
            .map_err(|e| Error::internal(format!("a list change task does not read: {e}")))?;
        match self.rescreen(task, &change).await {
            Ok(_) => {
                self.versions.end_task(task, None, self.clock.now()).await?;
                Ok(AttemptOutcome::Succeeded)
            }
            Err(error) if task.attempt < self.settings.max_attempts => {
                let now = self.clock.now();
                let retry = Arc::new(TaskFinish::Retry {
                    error: error.message.clone(),
                    at: now.plus(self.settings.backoff(task.attempt)),
                });
                self.jobs.finish(task, retry, now).await?;
                Ok(AttemptOutcome::Retried)
            }
            Err(error) => {
                self.versions
                    .end_task(task, Some(&error.message), self.clock.now())
                    .await?;
                Ok(AttemptOutcome::Failed)
            }
        }
    }
}

/// Whether an update of an entity changed what screening reads of it: its names,
/// date of birth or nationalities (its kind included).
pub fn screened_fields_changed(before: &Entity, after: &Entity) -> bool {
    let before = screen_request(before, &[], DEFAULT_THRESHOLD);
    let after = screen_request(after, &[], DEFAULT_THRESHOLD);
    let names = |r: &ScreenRequest| r.names.iter().cloned().collect::<BTreeSet<_>>();
    names(&before) != names(&after)
        || before.organisation != after.organisation
        || before.date_of_birth != after.date_of_birth
        || before.nationalities != after.nationalities
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hashes(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(id, hash)| ((*id).to_owned(), (*hash).to_owned()))
            .collect()
    }

    #[test]
    fn the_delta_names_added_changed_and_removed_records() {
        let old = hashes(&[("a", "1"), ("b", "2"), ("c", "3")]);
        let new = hashes(&[("a", "1"), ("b", "2x"), ("d", "4"), ("e", "5")]);
        let delta = ListDelta::between(&old, &new);
        assert_eq!(
            delta,
            ListDelta {
                added: vec!["d".into(), "e".into()],
                changed: vec!["b".into()],
                removed: vec!["c".into()],
            }
        );
        assert_eq!(delta.to_screen(), ["b", "d", "e"]);
    }

    #[test]
    fn the_same_records_make_an_empty_delta() {
        let same = hashes(&[("a", "1"), ("b", "2")]);
        let delta = ListDelta::between(&same, &same);
        assert_eq!(delta, ListDelta::default());
        assert!(delta.to_screen().is_empty());
    }

    #[test]
    fn a_first_or_emptied_list_is_all_added_or_all_removed() {
        let records = hashes(&[("a", "1"), ("b", "2")]);
        let added = ListDelta::between(&BTreeMap::new(), &records);
        assert_eq!((added.added.len(), added.removed.len()), (2, 0));
        let removed = ListDelta::between(&records, &BTreeMap::new());
        assert_eq!(removed.removed, ["a", "b"]);
        assert!(removed.to_screen().is_empty());
    }

    #[test]
    fn one_change_names_one_task_whatever_replica_sees_it() {
        let change = |new: &str| ListChange {
            dataset: "un_sc".into(),
            old_version: "aaaa".into(),
            new_version: new.into(),
            delta: ListDelta::default(),
            change_time: Timestamp::from_unix_micros(0).unwrap(),
        };
        assert_eq!(change("bbbb").task_id(), change("bbbb").task_id());
        assert_ne!(change("bbbb").task_id(), change("cccc").task_id());
        assert!(crate::id::is_well_formed_id(&change("bbbb").task_id()));
    }

    #[test]
    fn request_ids_are_stable_uuids_per_key_and_step() {
        let tenant = TenantId::new("acme");
        let create = request_uuid(&tenant, "k", "create");
        assert_eq!(create, request_uuid(&tenant, "k", "create"));
        assert_ne!(create, request_uuid(&tenant, "k", "run"));
        assert_ne!(create, request_uuid(&TenantId::new("other"), "k", "create"));
        assert!(crate::id::parse_request_id(&create.to_string()).is_ok());
    }

    fn person(json: Value) -> Entity {
        serde_json::from_value(json).unwrap()
    }

    mod list_change_work {
        use std::sync::Mutex;

        use super::*;
        use crate::entity::repository::MockEntityRepository;
        use crate::job::ports::MockJobRepository;
        use crate::screen::{MockScreenPart, MockScreener};
        use crate::time::MockClock;

        fn now() -> Timestamp {
            Timestamp::from_unix_micros(1_000_000).unwrap()
        }

        fn task(records: &[&str]) -> ClaimedTask {
            ClaimedTask {
                tenant: TenantId::new("t1"),
                id: "list-change-1".into(),
                job_id: String::new(),
                family: LIST_CHANGE_QUEUE.into(),
                operation_name: "op".into(),
                attempt: 1,
                claim: "claim".into(),
                queue_time: now(),
                claim_time: now(),
                run_input: json!({"dataset": "un_sc", "oldVersion": "a", "newVersion": "b",
                    "records": records}),
                job: None,
            }
        }

        fn entity(id: usize) -> Entity {
            Entity {
                name: format!("entities/e{id:06}"),
                display_name: format!("Person {id}"),
                ..Entity::default()
            }
        }

        /// A store of `count` monitored entities, `e000000` onwards, that records the
        /// key after which each page was read.
        fn entities(count: usize, reads: Arc<Mutex<Vec<Option<String>>>>) -> MockEntityRepository {
            let mut entities = MockEntityRepository::new();
            entities
                .expect_monitored()
                .returning(move |tenant, after, limit| {
                    assert_eq!(tenant.as_str(), "t1");
                    reads.lock().unwrap().push(after.map(str::to_owned));
                    let first = after.map_or(0, |a| a[1..].parse::<usize>().unwrap() + 1);
                    Ok((first..count.min(first + limit as usize))
                        .map(entity)
                        .collect())
                });
            entities
        }

        /// A part that matches the entities whose number `matches` takes, and records
        /// the size of each page it screens.
        fn screener(matches: fn(usize) -> bool, pages: Arc<Mutex<Vec<usize>>>) -> MockScreener {
            let mut screener = MockScreener::new();
            screener
                .expect_part()
                .withf(|dataset, records| dataset == "un_sc" && records == ["r1", "r2"])
                .times(1)
                .returning(move |_, _| {
                    let mut part = MockScreenPart::new();
                    let pages = pages.clone();
                    part.expect_matching().returning(move |parties| {
                        pages.lock().unwrap().push(parties.len());
                        Ok(parties
                            .into_iter()
                            .filter(|p| {
                                assert_eq!(
                                    p.request.names,
                                    [format!(
                                        "Person {}",
                                        &p.entity_id[1..].parse::<usize>().unwrap()
                                    )]
                                );
                                matches(p.entity_id[1..].parse().unwrap())
                            })
                            .map(|p| p.entity_id)
                            .collect())
                    });
                    Ok(Arc::new(part) as Arc<dyn ScreenPart>)
                });
            screener
        }

        fn clock() -> Arc<MockClock> {
            let mut clock = MockClock::new();
            clock.expect_now().returning(now);
            Arc::new(clock)
        }

        fn work(
            screener: MockScreener,
            entities: MockEntityRepository,
            versions: MockListVersionRepository,
            jobs: MockJobRepository,
            rescreens: MockStartRescreen,
        ) -> ListChangeWork {
            ListChangeWork::new(
                Arc::new(screener),
                Arc::new(entities),
                Arc::new(versions),
                Arc::new(jobs),
                Arc::new(rescreens),
                clock(),
                RunnerSettings::default(),
            )
        }

        fn ended() -> MockListVersionRepository {
            let mut versions = MockListVersionRepository::new();
            versions
                .expect_end_task()
                .withf(|task, error, _| task.id == "list-change-1" && error.is_none())
                .times(1)
                .returning(|_, _, _| Ok(true));
            versions
        }

        #[tokio::test]
        async fn every_page_is_screened_and_each_match_started_once_by_its_key() {
            let count = 2 * ENTITY_PAGE as usize + 7;
            let reads = Arc::new(Mutex::new(Vec::new()));
            let pages = Arc::new(Mutex::new(Vec::new()));
            let started = Arc::new(Mutex::new(Vec::new()));
            let mut rescreens = MockStartRescreen::new();
            let log = started.clone();
            rescreens
                .expect_start()
                .returning(move |tenant, entity_id, trigger, key| {
                    assert_eq!(tenant.as_str(), "t1");
                    assert_eq!(trigger.reason, ScreenReason::ListChange);
                    assert_eq!(trigger.records, ["un_sc:r1", "un_sc:r2"]);
                    assert_eq!(key, format!("list-change-1/{entity_id}"));
                    log.lock().unwrap().push(entity_id.to_owned());
                    match entity_id {
                        // Erased, or deleted, since it was read: skipped.
                        "e000003" => Err(Error::not_found("entity")),
                        "e010006" => Err(Error::failed_precondition("ENTITY_DELETED", "deleted")),
                        _ => Ok(format!("operations/{entity_id}")),
                    }
                });
            let work = work(
                screener(|n| n % 1000 == 3 || n == 10_006, pages.clone()),
                entities(count, reads.clone()),
                ended(),
                MockJobRepository::new(),
                rescreens,
            );
            let task = task(&["r1", "r2"]);
            assert!(matches!(
                work.work(&task).await.unwrap(),
                AttemptOutcome::Succeeded
            ));
            assert_eq!(
                *reads.lock().unwrap(),
                [None, Some("e004999".into()), Some("e009999".into())]
            );
            assert_eq!(*pages.lock().unwrap(), [5000, 5000, 7]);
            let mut started = started.lock().unwrap().clone();
            started.sort();
            let mut expected: Vec<String> = (0..count)
                .filter(|n| n % 1000 == 3 || *n == 10_006)
                .map(|n| format!("e{n:06}"))
                .collect();
            expected.sort();
            assert_eq!(started, expected, "each match started once");
        }

        #[tokio::test]
        async fn a_last_full_page_ends_with_an_empty_read() {
            let reads = Arc::new(Mutex::new(Vec::new()));
            let pages = Arc::new(Mutex::new(Vec::new()));
            let work = work(
                screener(|_| false, pages.clone()),
                entities(ENTITY_PAGE as usize, reads.clone()),
                ended(),
                MockJobRepository::new(),
                MockStartRescreen::new(),
            );
            assert!(matches!(
                work.work(&task(&["r1", "r2"])).await.unwrap(),
                AttemptOutcome::Succeeded
            ));
            assert_eq!(reads.lock().unwrap().len(), 2);
            assert_eq!(*pages.lock().unwrap(), [5000]);
        }

        #[tokio::test]
        async fn a_start_that_fails_retries_the_task() {
            let mut rescreens = MockStartRescreen::new();
            rescreens
                .expect_start()
                .returning(|_, _, _, _| Err(Error::unavailable("DATABASE_UNAVAILABLE", "down")));
            let mut jobs = MockJobRepository::new();
            jobs.expect_finish()
                .withf(|_, finish, _| matches!(**finish, TaskFinish::Retry { .. }))
                .times(1)
                .returning(|_, _, _| Ok(true));
            let work = work(
                screener(|n| n == 1, Arc::default()),
                entities(3, Arc::default()),
                MockListVersionRepository::new(),
                jobs,
                rescreens,
            );
            assert!(matches!(
                work.work(&task(&["r1", "r2"])).await.unwrap(),
                AttemptOutcome::Retried
            ));
        }

        #[tokio::test]
        async fn a_change_without_added_or_changed_records_reads_nothing() {
            let work = work(
                MockScreener::new(),
                MockEntityRepository::new(),
                ended(),
                MockJobRepository::new(),
                MockStartRescreen::new(),
            );
            assert!(matches!(
                work.work(&task(&[])).await.unwrap(),
                AttemptOutcome::Succeeded
            ));
        }
    }

    #[test]
    fn names_birth_date_and_nationality_are_what_screening_reads() {
        let before = person(
            json!({"displayName": "Jane Doe", "entityType": "INDIVIDUAL",
            "individual": {"dateOfBirth": "1980-04-01", "nationalities": ["GB"]}, "tags": ["a"]}),
        );
        let mut retagged = before.clone();
        retagged.tags = vec!["b".into()];
        assert!(!screened_fields_changed(&before, &retagged));
        let renamed = person(
            json!({"displayName": "Jane Smith", "entityType": "INDIVIDUAL",
            "individual": {"dateOfBirth": "1980-04-01", "nationalities": ["GB"]}}),
        );
        assert!(screened_fields_changed(&before, &renamed));
        let reborn = person(
            json!({"displayName": "Jane Doe", "entityType": "INDIVIDUAL",
            "individual": {"dateOfBirth": "1981-04-01", "nationalities": ["GB"]}}),
        );
        assert!(screened_fields_changed(&before, &reborn));
        let moved = person(
            json!({"displayName": "Jane Doe", "entityType": "INDIVIDUAL",
            "individual": {"dateOfBirth": "1980-04-01", "nationalities": ["IE"]}}),
        );
        assert!(screened_fields_changed(&before, &moved));
    }
}
