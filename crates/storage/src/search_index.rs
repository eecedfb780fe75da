//! Fuzzy search over a tenant's texts in memory, kept current from the database.
//!
//! A fuzzy search over trigram tables must aggregate every posting of the query's
//! trigrams (half a million rows for `jon smith` over a million names) to rank the page
//! and count the matches exactly; no SQL over those tables answers in tens of
//! milliseconds at that size (docs/benchmarks.md, "A million entities"). A
//! [`TenantIndex`] holds the same postings in memory: each trigram's documents as
//! numbers, counted per search in an array. It applies [`text_search`]'s rule (a text
//! matches with at least half the query's trigrams, ranked by Jaccard similarity in
//! millionths), so results are those of the SQL path, on both backends.
//!
//! The index is built from the table on first use and then follows the table's change
//! log ([`ChangeLog`]), which triggers write for every insert, rename, soft delete,
//! undelete and removal. Before each search it reads the changes since its last read,
//! one indexed statement, so a write is searchable on every replica as soon as it is
//! committed. Each read starts at a horizon no later commit can precede: on PostgreSQL
//! the xmin of a snapshot taken before the read (every transaction below it has
//! ended), on SQLite, whose writers take turns, one past the tenant's last change.

use std::collections::{BTreeSet, HashMap};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};
use std::time::Instant;

use diesel::sql_types::{BigInt, Nullable, Text};
use diesel::{QueryableByName, RunQueryDsl};
use rics_domain::repository::RepositoryError;
use rics_domain::text_search;

use crate::connection::DbConnection;
use crate::error::repository_error;
use crate::sql::Sql;

/// Seconds a first build of a tenant's index took (reading its rows and indexing them).
pub const SEARCH_INDEX_BUILD_SECONDS: &str = "rics_search_index_build_seconds";

/// Where the changes of an indexed text are logged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChangeLog {
    /// The log table (`tenant_id`, `change_xid`, owner column).
    pub table: &'static str,
    /// Its column holding the changed row's id.
    pub owner: &'static str,
    /// The indexed table (with `tenant_id`, `id` and `delete_time` columns).
    pub source: &'static str,
    /// Its column holding the indexed text.
    pub text: &'static str,
}

/// The in-memory indexes of one process, one per change log and tenant, built on
/// first use and kept for the life of the process.
#[derive(Debug, Default)]
pub struct SearchIndexes {
    tenants: Mutex<HashMap<(&'static str, String), Arc<TenantIndex>>>,
}

impl SearchIndexes {
    /// How many rows the indexes of this process hold, every tenant's together.
    pub fn entries(&self) -> usize {
        let indexes: Vec<Arc<TenantIndex>> = lock(&self.tenants).values().cloned().collect();
        indexes
            .iter()
            .map(|index| {
                index
                    .postings
                    .read()
                    .unwrap_or_else(PoisonError::into_inner)
                    .numbers
                    .len()
            })
            .sum()
    }

    /// The index of `log`'s texts in `tenant`, empty until its first refresh.
    pub(crate) fn tenant(&self, log: &ChangeLog, tenant: &str) -> Arc<TenantIndex> {
        let mut tenants = lock(&self.tenants);
        Arc::clone(
            tenants
                .entry((log.table, tenant.to_owned()))
                .or_insert_with(|| Arc::new(TenantIndex::new(*log))),
        )
    }
}

/// The index of one tenant's texts.
#[derive(Debug)]
pub(crate) struct TenantIndex {
    log: ChangeLog,
    /// Held while the log is read and applied, so that refreshes apply in turn.
    refresh: Mutex<()>,
    postings: RwLock<Postings>,
}

/// A matching row of a search, with its similarity in millionths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hit {
    /// The row's id.
    pub id: String,
    /// Its similarity to the query.
    pub score: i64,
}

/// One page of a ranked search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// The page's rows, best first (ties by id, descending).
    pub page: Vec<Hit>,
    /// Whether more rows follow the page.
    pub more: bool,
    /// How many rows match in all.
    pub total: i64,
}

/// Where a ranked search starts: the page after `after` (a score and id), skipping
/// `skip`, at most `limit` rows.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Window<'a> {
    /// The last row of the previous page.
    pub after: Option<(i64, &'a str)>,
    /// Rows to skip after it.
    pub skip: usize,
    /// Most rows to return.
    pub limit: usize,
    /// Whether soft-deleted rows count.
    pub show_deleted: bool,
}

/// A row read from the table or the log: its text, or `None` when it is gone.
#[derive(Debug, QueryableByName)]
struct Change {
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = Nullable<Text>)]
    text: Option<String>,
    #[diesel(sql_type = Nullable<BigInt>)]
    delete_time: Option<i64>,
}

#[derive(Debug, QueryableByName)]
struct Horizon {
    #[diesel(sql_type = BigInt)]
    horizon: i64,
}

impl TenantIndex {
    fn new(log: ChangeLog) -> TenantIndex {
        TenantIndex {
            log,
            refresh: Mutex::new(()),
            postings: RwLock::new(Postings::default()),
        }
    }

    /// Brings the index up to what `conn` sees: builds it from the table on first use,
    /// then applies the changes logged since the last refresh.
    ///
    /// # Errors
    /// Database failures.
    pub(crate) fn refresh(
        &self,
        conn: &mut DbConnection,
        tenant: &str,
    ) -> Result<(), RepositoryError> {
        let _turn = lock(&self.refresh);
        let since = self
            .postings
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .since;
        let began = Instant::now();
        let horizon = self.horizon(conn, tenant)?;
        let changes = match since {
            None => self.rows(conn, tenant)?,
            Some(since) => self.changes(conn, tenant, since)?,
        };
        if since == Some(horizon) && changes.is_empty() {
            return Ok(());
        }
        let mut postings = self
            .postings
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        for change in changes {
            postings.apply(change);
        }
        if since.is_none() {
            postings.shrink();
            metrics::histogram!(SEARCH_INDEX_BUILD_SECONDS).record(began.elapsed().as_secs_f64());
        }
        postings.since = Some(horizon);
        postings.compact_when_sparse();
        Ok(())
    }

    /// One page of the rows matching `text`, ranked.
    pub(crate) fn search(&self, text: &str, window: Window<'_>) -> Found {
        self.postings
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .search(text, window)
    }

    /// Every row matching `text`, deleted or not, with its hits (trigrams in common with
    /// the text), as a JSON object of id -> hits: what a list with other conditions
    /// reads in SQL ([`crate::filter::Searched`]).
    pub(crate) fn hits(&self, text: &str) -> String {
        let postings = self.postings.read().unwrap_or_else(PoisonError::into_inner);
        let matches: serde_json::Map<String, serde_json::Value> = postings
            .matches(&text_search::trigrams(text))
            .map(|(number, hits)| (postings.documents[number].id.to_string(), hits.into()))
            .collect();
        serde_json::Value::Object(matches).to_string()
    }

    /// Where the next read of the log starts, taken before this one reads.
    fn horizon(&self, conn: &mut DbConnection, tenant: &str) -> Result<i64, RepositoryError> {
        let sql = match conn {
            DbConnection::Postgresql(_) => {
                Sql::from("SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS horizon")
            }
            DbConnection::Sqlite(_) => {
                let mut sql = Sql::from(&format!(
                    "SELECT coalesce(max(c.change_xid), 0) + 1 AS horizon FROM {} c \
                     WHERE c.tenant_id = ",
                    self.log.table
                ));
                sql.bind(tenant);
                sql
            }
        };
        sql.load::<Horizon>(conn)
            .map_err(repository_error)?
            .first()
            .map(|h| h.horizon)
            .ok_or_else(|| RepositoryError::Internal("no search log horizon".into()))
    }

    /// Every row of the tenant, for a first build.
    fn rows(&self, conn: &mut DbConnection, tenant: &str) -> Result<Vec<Change>, RepositoryError> {
        let mut sql = Sql::from(&format!(
            "SELECT s.id AS id, s.{text} AS text, s.delete_time AS delete_time FROM {source} s \
             WHERE s.tenant_id = ",
            text = self.log.text,
            source = self.log.source
        ));
        sql.bind(tenant);
        sql.load(conn).map_err(repository_error)
    }

    /// The current state of every row changed at or after `since`.
    fn changes(
        &self,
        conn: &mut DbConnection,
        tenant: &str,
        since: i64,
    ) -> Result<Vec<Change>, RepositoryError> {
        let mut sql = Sql::from(&format!(
            "SELECT c.{owner} AS id, s.{text} AS text, s.delete_time AS delete_time \
             FROM {table} c LEFT JOIN {source} s ON s.tenant_id = c.tenant_id AND s.id = c.{owner} \
             WHERE c.tenant_id = ",
            owner = self.log.owner,
            text = self.log.text,
            table = self.log.table,
            source = self.log.source
        ));
        sql.bind(tenant).push(" AND c.change_xid >= ").bind(since);
        sql.load(conn).map_err(repository_error)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The postings of one tenant's texts. A document is a number; a changed text gets a
/// new number (so postings stay sorted by appending) and its old number is dead until
/// the postings are rebuilt without the dead ones.
#[derive(Debug, Default)]
struct Postings {
    /// The horizon of the last refresh; `None` before the first.
    since: Option<i64>,
    documents: Vec<Document>,
    /// The live number of each row id.
    numbers: HashMap<Arc<str>, u32>,
    /// Each trigram's documents, ascending.
    trigrams: HashMap<u32, Vec<u32>>,
    dead: usize,
}

/// A row's indexed text, by number. The text itself is not kept (its trigrams are in the
/// postings): a hash of it tells an unchanged text when a change is read again.
#[derive(Debug)]
struct Document {
    id: Arc<str>,
    text_hash: u64,
    trigram_count: u32,
    deleted: bool,
    live: bool,
}

/// A trigram of [`text_search::trigrams`] (three ASCII bytes) as a number.
fn packed(trigram: &str) -> u32 {
    trigram
        .bytes()
        .fold(0_u32, |packed, byte| (packed << 8) | u32::from(byte))
}

/// SipHash of a text, to tell an unchanged text (a collision, one in 2^64, would keep a
/// renamed row's old trigrams until its next rename).
fn text_hash(text: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

impl Postings {
    /// Makes the row `change` describes current: its text and deleted state, or gone.
    fn apply(&mut self, change: Change) {
        let deleted = change.delete_time.is_some();
        let hash = change.text.as_deref().map(text_hash);
        if let Some(&number) = self.numbers.get(change.id.as_str()) {
            let document = &mut self.documents[number as usize];
            if hash == Some(document.text_hash) {
                document.deleted = deleted;
                return;
            }
            document.live = false;
            self.dead += 1;
            self.numbers.remove(change.id.as_str());
        }
        let (Some(text), Some(hash)) = (change.text, hash) else {
            return;
        };
        let Ok(number) = u32::try_from(self.documents.len()) else {
            return;
        };
        let trigrams = text_search::trigrams(&text);
        for trigram in &trigrams {
            self.trigrams
                .entry(packed(trigram))
                .or_default()
                .push(number);
        }
        let id: Arc<str> = change.id.into();
        self.numbers.insert(Arc::clone(&id), number);
        self.documents.push(Document {
            id,
            text_hash: hash,
            trigram_count: u32::try_from(trigrams.len()).unwrap_or(u32::MAX),
            deleted,
            live: true,
        });
    }

    /// Gives back the postings' spare capacity, after a build.
    fn shrink(&mut self) {
        self.trigrams.values_mut().for_each(Vec::shrink_to_fit);
        self.documents.shrink_to_fit();
    }

    /// Renumbers the live documents once most numbers are dead: each keeps its order,
    /// so the postings stay ascending.
    fn compact_when_sparse(&mut self) {
        if self.dead < 1024 || self.dead * 2 < self.documents.len() {
            return;
        }
        let mut renumbered = Vec::with_capacity(self.documents.len());
        let mut next = 0_u32;
        for document in &self.documents {
            renumbered.push(document.live.then_some(next));
            next += u32::from(document.live);
        }
        for numbers in self.trigrams.values_mut() {
            numbers.retain_mut(|number| match renumbered[*number as usize] {
                Some(new) => {
                    *number = new;
                    true
                }
                None => false,
            });
        }
        self.trigrams.retain(|_, numbers| !numbers.is_empty());
        self.documents.retain(|document| document.live);
        for (number, document) in (0_u32..).zip(&self.documents) {
            self.numbers.insert(Arc::clone(&document.id), number);
        }
        self.dead = 0;
        self.shrink();
    }

    /// The live documents matching a text whose trigrams are `query` (at least the
    /// needed share of them), each with its number and hits.
    fn matches(&self, query: &BTreeSet<String>) -> impl Iterator<Item = (usize, i64)> + '_ {
        let needed = text_search::required_hits(query.len());
        let mut hits = vec![0_u16; self.documents.len()];
        let mut touched = Vec::new();
        for trigram in query {
            let Some(numbers) = self.trigrams.get(&packed(trigram)) else {
                continue;
            };
            for &number in numbers {
                let count = &mut hits[number as usize];
                if *count == 0 {
                    touched.push(number as usize);
                }
                *count = count.saturating_add(1);
            }
        }
        touched.into_iter().filter_map(move |number| {
            let found = i64::from(hits[number]);
            (self.documents[number].live && found >= needed).then_some((number, found))
        })
    }

    fn search(&self, text: &str, window: Window<'_>) -> Found {
        let query = text_search::trigrams(text);
        let query_count = query.len() as i64;
        let mut matches: Vec<(i64, &str)> = self
            .matches(&query)
            .filter_map(|(number, found)| {
                let document = &self.documents[number];
                (window.show_deleted || !document.deleted).then(|| {
                    let score = text_search::similarity_per_million(
                        found,
                        query_count,
                        i64::from(document.trigram_count),
                    );
                    (score, &*document.id)
                })
            })
            .collect();
        let total = matches.len() as i64;
        if let Some(after) = window.after {
            // Best first, ties by id descending: the rows after `after` sort below it.
            matches.retain(|&hit| hit < after);
        }
        let wanted = window.skip + window.limit + 1;
        let descending = |a: &(i64, &str), b: &(i64, &str)| b.cmp(a);
        if matches.len() > wanted {
            matches.select_nth_unstable_by(wanted - 1, descending);
            matches.truncate(wanted);
        }
        matches.sort_unstable_by(descending);
        let mut rest = matches.into_iter().skip(window.skip);
        let page = rest
            .by_ref()
            .take(window.limit)
            .map(|(score, id)| Hit {
                id: id.to_owned(),
                score,
            })
            .collect();
        Found {
            page,
            more: rest.next().is_some(),
            total,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(id: &str, text: Option<&str>, deleted: bool) -> Change {
        Change {
            id: id.to_owned(),
            text: text.map(str::to_owned),
            delete_time: deleted.then_some(1),
        }
    }

    fn postings(rows: &[(&str, &str)]) -> Postings {
        let mut postings = Postings::default();
        for (id, text) in rows {
            postings.apply(change(id, Some(text), false));
        }
        postings
    }

    fn window(limit: usize) -> Window<'static> {
        Window {
            after: None,
            skip: 0,
            limit,
            show_deleted: false,
        }
    }

    fn ids(found: &Found) -> Vec<&str> {
        found.page.iter().map(|h| h.id.as_str()).collect()
    }

    /// The SQL path's rule, computed apart: hits, the threshold and the similarity.
    fn expected_score(query: &str, text: &str) -> Option<i64> {
        let (q, t) = (text_search::trigrams(query), text_search::trigrams(text));
        let hits = q.intersection(&t).count();
        (hits as i64 >= text_search::required_hits(q.len())).then(|| {
            text_search::similarity_per_million(hits as i64, q.len() as i64, t.len() as i64)
        })
    }

    /// The ids of `rows` that match `query` by the SQL rule, best first.
    fn ranked<'a>(query: &str, rows: &[(&'a str, &str)]) -> Vec<&'a str> {
        let mut expected: Vec<(i64, &str)> = rows
            .iter()
            .filter_map(|(id, text)| expected_score(query, text).map(|s| (s, *id)))
            .collect();
        expected.sort_by(|a, b| b.cmp(a));
        expected.into_iter().map(|(_, id)| id).collect()
    }

    const NAMES: [(&str, &str); 6] = [
        ("a", "John Smith"),
        ("b", "Jon Smith"),
        ("c", "John Smithers"),
        ("d", "Jane Doe"),
        ("e", "Smith John"),
        ("f", "Joan Smyth"),
    ];

    #[test]
    fn matches_and_scores_follow_the_sql_rule() {
        let index = postings(&NAMES);
        for query in ["jon smith", "john", "smith", "doe", "joan smyth", "xyz"] {
            let found = index.search(query, window(10));
            let mut expected: Vec<(i64, &str)> = NAMES
                .iter()
                .filter_map(|(id, text)| expected_score(query, text).map(|s| (s, *id)))
                .collect();
            expected.sort_by(|a, b| b.cmp(a));
            let got: Vec<(i64, &str)> = found
                .page
                .iter()
                .map(|h| (h.score, h.id.as_str()))
                .collect();
            assert_eq!(got, expected, "{query}");
            assert_eq!(found.total, expected.len() as i64);
            assert!(!found.more);
        }
    }

    #[test]
    fn pages_follow_each_other_without_gaps_or_repeats() {
        let index = postings(&NAMES);
        let all = ids(&index.search("john smith", window(10))).join(",");
        let mut seen = Vec::new();
        let mut after: Option<(i64, String)> = None;
        loop {
            let found = index.search(
                "john smith",
                Window {
                    after: after.as_ref().map(|(s, id)| (*s, id.as_str())),
                    ..window(2)
                },
            );
            seen.extend(found.page.iter().map(|h| h.id.clone()));
            match (found.more, found.page.last()) {
                (true, Some(last)) => after = Some((last.score, last.id.clone())),
                _ => break,
            }
        }
        assert_eq!(seen.join(","), all);
        let skipped = index.search(
            "john smith",
            Window {
                skip: 1,
                ..window(1)
            },
        );
        assert_eq!(ids(&skipped), [seen[1].as_str()]);
    }

    #[test]
    fn renames_deletes_and_removals_apply() {
        let mut index = postings(&NAMES);
        index.apply(change("a", Some("Alice Brown"), false));
        index.apply(change("b", Some("Jon Smith"), true));
        index.apply(change("c", None, false));
        let found = index.search("jon smith", window(10));
        let remaining = [NAMES[3], NAMES[4], NAMES[5], ("a", "Alice Brown")];
        assert_eq!(ids(&found), ranked("jon smith", &remaining));
        let with_deleted = index.search(
            "jon smith",
            Window {
                show_deleted: true,
                ..window(10)
            },
        );
        assert_eq!(with_deleted.page[0].id, "b");
        assert_eq!(ids(&index.search("alice", window(10))), ["a"]);
        index.apply(change("b", Some("Jon Smith"), false));
        assert_eq!(index.search("jon smith", window(10)).page[0].id, "b");
    }

    #[test]
    fn compaction_keeps_what_is_live() {
        let mut index = Postings::default();
        for word in ["maple", "birch", "cedar"] {
            for i in 0..1000 {
                let deleted = i % 10 == 0;
                index.apply(change(
                    &format!("id-{i:04}"),
                    Some(&format!("{word} {i}")),
                    deleted,
                ));
            }
            index.compact_when_sparse();
        }
        assert!(index.dead < index.documents.len());
        assert_eq!(index.documents.len(), index.numbers.len() + index.dead);
        let found = index.search("cedar 17", window(1));
        assert_eq!(found.page[0].id, "id-0017");
        // Only the names of the last round, the deleted ones left out.
        assert_eq!(index.search("cedar", window(1)).total, 900);
        assert_eq!(index.search("birch", window(1)).total, 0);
        let with_deleted = Window {
            show_deleted: true,
            ..window(1)
        };
        assert_eq!(index.search("cedar", with_deleted).total, 1000);
        let rows: Vec<(String, String)> = (0..1000)
            .map(|i| (format!("id-{i:04}"), format!("cedar {i}")))
            .collect();
        let fresh = postings(
            &rows
                .iter()
                .map(|(id, text)| (id.as_str(), text.as_str()))
                .collect::<Vec<_>>(),
        );
        for query in ["cedar 17", "cedar 999", "ceder 5"] {
            assert_eq!(
                index.search(query, with_deleted),
                fresh.search(query, with_deleted),
                "{query}"
            );
        }
    }
}
