//! Fuzzy search and filtered lists over a tenant's rows in memory, kept current from
//! the database.
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
//! Beside each row's text the index keeps what [`Facets`] names: an enum column, a
//! repeated string field and the creation time. A list filtered by those alone (and
//! ordered by creation) is then filtered, paged and counted exactly in memory
//! ([`TenantIndex::list`]): an exact count over a million rows in SQL must visit every
//! match, here it is a pass over a bitset.
//!
//! The index is built from the table on first use and then follows the table's change
//! log ([`ChangeLog`]), which triggers write for every insert, rename, change of kind or
//! values, soft delete, undelete and removal. Before each search it reads the changes since its last read,
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
use rics_aip::filter::StringMatch;
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
    /// What else of each row the index keeps.
    pub facets: Facets,
}

/// The fields of a row kept beside its text, each with where it is stored: lists
/// filtered by them and ordered by creation time are answered in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Facets {
    /// The enum field (`entityType`) and its column in the source.
    pub kind: (&'static str, &'static str),
    /// The repeated string field (`tags`) and its side table.
    pub values: (&'static str, SideTable),
    /// The creation time field (`createTime`) and its column in the source.
    pub create_time: (&'static str, &'static str),
}

/// A side table holding one row per element of a repeated field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SideTable {
    /// The table (with a `tenant_id` column).
    pub table: &'static str,
    /// Its column holding the owner's id.
    pub owner: &'static str,
    /// Its column holding the element.
    pub value: &'static str,
}

/// A filter over the facets, as a list's filter condition translates
/// ([`crate::filter::facet_filter`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FacetFilter {
    /// Every part holds (none: every row).
    All(Vec<FacetFilter>),
    /// At least one part holds.
    Any(Vec<FacetFilter>),
    /// The part does not hold.
    Not(Box<FacetFilter>),
    /// The enum field equals this value.
    Kind(String),
    /// An element of the repeated field matches.
    Value(StringMatch),
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

/// One page of rows in an order by a value and then id (a search's similarity in
/// millionths, best first; a list's creation time): the page's rows with their value,
/// whether more rows follow, and how many rows match in all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listed {
    /// The page's rows: each one's value and id.
    pub page: Vec<(i64, String)>,
    /// Whether more rows follow the page.
    pub more: bool,
    /// How many rows match in all.
    pub total: i64,
}

/// Where a list in creation order starts: the page after `after` (a creation time and
/// id), skipping `skip`, at most `limit` rows.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Span<'a> {
    /// The last row of the previous page.
    pub after: Option<(i64, &'a str)>,
    /// Newest first (ties by id, descending) instead of oldest first.
    pub descending: bool,
    /// Rows to skip after it.
    pub skip: usize,
    /// Most rows to return.
    pub limit: usize,
    /// Whether soft-deleted rows count.
    pub show_deleted: bool,
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

/// A row read from the table or the log: its text and facets, or `None` when it is
/// gone.
#[derive(Debug, QueryableByName)]
struct Change {
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = Nullable<Text>)]
    text: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    kind: Option<String>,
    #[diesel(sql_type = Nullable<BigInt>)]
    create_time: Option<i64>,
    #[diesel(sql_type = Nullable<BigInt>)]
    delete_time: Option<i64>,
}

/// An element of a row's repeated field.
#[derive(Debug, QueryableByName)]
struct Element {
    #[diesel(sql_type = Text)]
    owner: String,
    #[diesel(sql_type = Text)]
    value: String,
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
        let (changes, mut elements) = match since {
            None => (self.rows(conn, tenant)?, self.elements(conn, tenant, None)?),
            Some(since) => {
                let changes = self.changes(conn, tenant, since)?;
                if changes.is_empty() {
                    (changes, HashMap::new())
                } else {
                    (changes, self.elements(conn, tenant, Some(since))?)
                }
            }
        };
        if since == Some(horizon) && changes.is_empty() {
            return Ok(());
        }
        let mut postings = self
            .postings
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        for change in changes {
            let mut values = elements.remove(&change.id).unwrap_or_default();
            values.sort_unstable();
            values.dedup();
            postings.apply(change, values);
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
    pub(crate) fn search(&self, text: &str, window: Window<'_>) -> Listed {
        self.postings
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .search(text, window)
    }

    /// One page of the rows `filter` selects, in creation order, with their count.
    pub(crate) fn list(&self, filter: &FacetFilter, span: Span<'_>) -> Listed {
        self.postings
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .list(filter, span)
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

    /// The columns of a row the index keeps, from the source aliased `s`.
    fn kept_columns(&self) -> String {
        format!(
            "s.{text} AS text, s.{kind} AS kind, s.{create_time} AS create_time, \
             s.delete_time AS delete_time",
            text = self.log.text,
            kind = self.log.facets.kind.1,
            create_time = self.log.facets.create_time.1,
        )
    }

    /// Every row of the tenant, for a first build.
    fn rows(&self, conn: &mut DbConnection, tenant: &str) -> Result<Vec<Change>, RepositoryError> {
        let mut sql = Sql::from(&format!(
            "SELECT s.id AS id, {kept} FROM {source} s WHERE s.tenant_id = ",
            kept = self.kept_columns(),
            source = self.log.source
        ));
        sql.bind(tenant);
        sql.load(conn).map_err(repository_error)
    }

    /// The repeated field's elements of every row of the tenant, or of the rows changed
    /// at or after `since`, by owner.
    fn elements(
        &self,
        conn: &mut DbConnection,
        tenant: &str,
        since: Option<i64>,
    ) -> Result<HashMap<String, Vec<String>>, RepositoryError> {
        let side = self.log.facets.values.1;
        let mut sql = Sql::from(&format!(
            "SELECT v.{owner} AS owner, v.{value} AS value FROM {table} v WHERE v.tenant_id = ",
            owner = side.owner,
            value = side.value,
            table = side.table
        ));
        sql.bind(tenant);
        if let Some(since) = since {
            sql.push(&format!(
                " AND v.{owner} IN (SELECT c.{log_owner} FROM {log} c WHERE c.tenant_id = ",
                owner = side.owner,
                log_owner = self.log.owner,
                log = self.log.table
            ))
            .bind(tenant)
            .push(" AND c.change_xid >= ")
            .bind(since)
            .push(")");
        }
        let mut by_owner: HashMap<String, Vec<String>> = HashMap::new();
        for element in sql.load::<Element>(conn).map_err(repository_error)? {
            by_owner
                .entry(element.owner)
                .or_default()
                .push(element.value);
        }
        Ok(by_owner)
    }

    /// The current state of every row changed at or after `since`.
    fn changes(
        &self,
        conn: &mut DbConnection,
        tenant: &str,
        since: i64,
    ) -> Result<Vec<Change>, RepositoryError> {
        let mut sql = Sql::from(&format!(
            "SELECT DISTINCT c.{owner} AS id, {kept} \
             FROM {table} c LEFT JOIN {source} s ON s.tenant_id = c.tenant_id AND s.id = c.{owner} \
             WHERE c.tenant_id = ",
            owner = self.log.owner,
            kept = self.kept_columns(),
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

/// The postings of one tenant's rows. A row is a number; a changed row gets a new
/// number (so postings stay sorted by appending) and its old number is dead until the
/// postings are rebuilt without the dead ones.
#[derive(Debug, Default)]
struct Postings {
    /// The horizon of the last refresh; `None` before the first.
    since: Option<i64>,
    documents: Vec<Document>,
    /// The live number of each row id.
    numbers: HashMap<Arc<str>, u32>,
    /// Each trigram's documents, ascending.
    trigrams: HashMap<u32, Vec<u32>>,
    /// The values of the enum field, in the order first seen.
    kinds: Vec<Box<str>>,
    /// Each kind's documents (by its place in `kinds`), ascending.
    of_kind: Vec<Vec<u32>>,
    /// Each element's documents, ascending.
    values: HashMap<Box<str>, Vec<u32>>,
    dead: usize,
}

/// A row by number. Its text is not kept (its trigrams are in the postings), nor its
/// kind and elements (in theirs): a hash of them tells an unchanged row when a change
/// is read again.
#[derive(Debug)]
struct Document {
    id: Arc<str>,
    content_hash: u64,
    trigram_count: u32,
    create_time: i64,
    deleted: bool,
    live: bool,
}

/// A trigram of [`text_search::trigrams`] (three ASCII bytes) as a number.
fn packed(trigram: &str) -> u32 {
    trigram
        .bytes()
        .fold(0_u32, |packed, byte| (packed << 8) | u32::from(byte))
}

/// SipHash of a row's text, kind and sorted elements, to tell an unchanged row (a
/// collision, one in 2^64, would keep a changed row's old postings until its next
/// change).
fn content_hash(text: &str, kind: &str, values: &[String]) -> u64 {
    let mut hasher = DefaultHasher::new();
    (text, kind, values).hash(&mut hasher);
    hasher.finish()
}

/// A set of document numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Bitset(Vec<u64>);

impl Bitset {
    fn empty(len: usize) -> Bitset {
        Bitset(vec![0; len.div_ceil(64)])
    }

    fn of(len: usize, numbers: &[u32]) -> Bitset {
        let mut set = Bitset::empty(len);
        set.add(numbers);
        set
    }

    fn add(&mut self, numbers: &[u32]) {
        for &number in numbers {
            self.0[number as usize / 64] |= 1 << (number % 64);
        }
    }

    fn and(&mut self, other: &Bitset) {
        self.0.iter_mut().zip(&other.0).for_each(|(a, b)| *a &= b);
    }

    fn or(&mut self, other: &Bitset) {
        self.0.iter_mut().zip(&other.0).for_each(|(a, b)| *a |= b);
    }

    /// The complement among the first `len` numbers.
    fn invert(&mut self, len: usize) {
        self.0.iter_mut().for_each(|word| *word = !*word);
        if !len.is_multiple_of(64)
            && let Some(last) = self.0.last_mut()
        {
            *last &= (1_u64 << (len % 64)) - 1;
        }
    }

    fn numbers(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(at, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let bit = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    at * 64 + bit
                })
            })
        })
    }
}

impl Postings {
    /// Makes the row `change` describes current: its text, facets (`values`, sorted)
    /// and deleted state, or gone.
    fn apply(&mut self, change: Change, values: Vec<String>) {
        let deleted = change.delete_time.is_some();
        let hash = match (&change.text, &change.kind) {
            (Some(text), Some(kind)) => Some(content_hash(text, kind, &values)),
            _ => None,
        };
        if let Some(&number) = self.numbers.get(change.id.as_str()) {
            let document = &mut self.documents[number as usize];
            if hash == Some(document.content_hash) {
                document.deleted = deleted;
                return;
            }
            document.live = false;
            self.dead += 1;
            self.numbers.remove(change.id.as_str());
        }
        let (Some(text), Some(kind), Some(hash)) = (change.text, change.kind, hash) else {
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
        let kind = match self.kinds.iter().position(|known| **known == *kind) {
            Some(place) => place,
            None => {
                self.kinds.push(kind.into());
                self.of_kind.push(Vec::new());
                self.kinds.len() - 1
            }
        };
        self.of_kind[kind].push(number);
        for value in values {
            self.values.entry(value.into()).or_default().push(number);
        }
        let id: Arc<str> = change.id.into();
        self.numbers.insert(Arc::clone(&id), number);
        self.documents.push(Document {
            id,
            content_hash: hash,
            trigram_count: u32::try_from(trigrams.len()).unwrap_or(u32::MAX),
            create_time: change.create_time.unwrap_or_default(),
            deleted,
            live: true,
        });
    }

    /// Gives back the postings' spare capacity, after a build.
    fn shrink(&mut self) {
        self.trigrams
            .values_mut()
            .chain(self.values.values_mut())
            .chain(self.of_kind.iter_mut())
            .for_each(Vec::shrink_to_fit);
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
        let renumber = |numbers: &mut Vec<u32>| {
            numbers.retain_mut(|number| match renumbered[*number as usize] {
                Some(new) => {
                    *number = new;
                    true
                }
                None => false,
            });
        };
        self.trigrams
            .values_mut()
            .chain(self.values.values_mut())
            .chain(self.of_kind.iter_mut())
            .for_each(renumber);
        self.trigrams.retain(|_, numbers| !numbers.is_empty());
        self.values.retain(|_, numbers| !numbers.is_empty());
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

    fn search(&self, text: &str, window: Window<'_>) -> Listed {
        let query = text_search::trigrams(text);
        let query_count = query.len() as i64;
        let matches: Vec<(i64, &str)> = self
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
        // Best first, ties by id descending.
        let (page, more) = page_of(matches, window.after, true, window.skip, window.limit);
        Listed {
            page: page
                .into_iter()
                .map(|(score, id)| (score, id.to_owned()))
                .collect(),
            more,
            total,
        }
    }

    /// The documents `filter` selects, live or not.
    fn select(&self, filter: &FacetFilter) -> Bitset {
        let len = self.documents.len();
        match filter {
            FacetFilter::All(parts) => {
                let mut set = Bitset::empty(len);
                set.invert(len);
                for part in parts {
                    set.and(&self.select(part));
                }
                set
            }
            FacetFilter::Any(parts) => {
                let mut set = Bitset::empty(len);
                for part in parts {
                    set.or(&self.select(part));
                }
                set
            }
            FacetFilter::Not(part) => {
                let mut set = self.select(part);
                set.invert(len);
                set
            }
            FacetFilter::Kind(kind) => {
                match self.kinds.iter().position(|known| **known == **kind) {
                    Some(place) => Bitset::of(len, &self.of_kind[place]),
                    None => Bitset::empty(len),
                }
            }
            FacetFilter::Value(StringMatch::Exact(value)) => self
                .values
                .get(value.as_str())
                .map_or_else(|| Bitset::empty(len), |numbers| Bitset::of(len, numbers)),
            FacetFilter::Value(pattern) => {
                let mut set = Bitset::empty(len);
                for (value, numbers) in &self.values {
                    if element_matches(pattern, value) {
                        set.add(numbers);
                    }
                }
                set
            }
        }
    }

    fn list(&self, filter: &FacetFilter, span: Span<'_>) -> Listed {
        let rows: Vec<(i64, &str)> = self
            .select(filter)
            .numbers()
            .filter_map(|number| {
                let document = &self.documents[number];
                (document.live && (span.show_deleted || !document.deleted))
                    .then_some((document.create_time, &*document.id))
            })
            .collect();
        let total = rows.len() as i64;
        let (page, more) = page_of(rows, span.after, span.descending, span.skip, span.limit);
        Listed {
            page: page
                .into_iter()
                .map(|(create_time, id)| (create_time, id.to_owned()))
                .collect(),
            more,
            total,
        }
    }
}

/// Whether an element matches a filter's string, as the SQL of
/// [`crate::filter`] compares it (bytes, no folding).
fn element_matches(pattern: &StringMatch, value: &str) -> bool {
    match pattern {
        StringMatch::Exact(exact) => value == exact,
        StringMatch::Prefix(prefix) => value.starts_with(prefix.as_str()),
        StringMatch::Suffix(suffix) => value.ends_with(suffix.as_str()),
    }
}

/// The page of `rows` in their order (descending or ascending) that starts after
/// `after`, skipping `skip`, at most `limit` rows; and whether more rows follow it.
/// Only the rows up to the page's end are sorted.
fn page_of<K: Ord + Copy>(
    mut rows: Vec<K>,
    after: Option<K>,
    descending: bool,
    skip: usize,
    limit: usize,
) -> (Vec<K>, bool) {
    if let Some(after) = after {
        rows.retain(|&row| if descending { row < after } else { row > after });
    }
    let in_order = |a: &K, b: &K| if descending { b.cmp(a) } else { a.cmp(b) };
    let wanted = skip + limit + 1;
    if rows.len() > wanted {
        rows.select_nth_unstable_by(wanted - 1, in_order);
        rows.truncate(wanted);
    }
    rows.sort_unstable_by(in_order);
    let mut rest = rows.into_iter().skip(skip);
    let page = rest.by_ref().take(limit).collect();
    (page, rest.next().is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(id: &str, text: Option<&str>, deleted: bool) -> Change {
        Change {
            id: id.to_owned(),
            text: text.map(str::to_owned),
            kind: text.map(|_| "INDIVIDUAL".to_owned()),
            create_time: text.map(|_| 1),
            delete_time: deleted.then_some(1),
        }
    }

    fn postings(rows: &[(&str, &str)]) -> Postings {
        let mut postings = Postings::default();
        for (id, text) in rows {
            postings.apply(change(id, Some(text), false), Vec::new());
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

    fn ids(found: &Listed) -> Vec<&str> {
        found.page.iter().map(|(_, id)| id.as_str()).collect()
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
                .map(|(score, id)| (*score, id.as_str()))
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
            seen.extend(found.page.iter().map(|(_, id)| id.clone()));
            match (found.more, found.page.last()) {
                (true, Some(last)) => after = Some(last.clone()),
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
        index.apply(change("a", Some("Alice Brown"), false), Vec::new());
        index.apply(change("b", Some("Jon Smith"), true), Vec::new());
        index.apply(change("c", None, false), Vec::new());
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
        assert_eq!(with_deleted.page[0].1, "b");
        assert_eq!(ids(&index.search("alice", window(10))), ["a"]);
        index.apply(change("b", Some("Jon Smith"), false), Vec::new());
        assert_eq!(index.search("jon smith", window(10)).page[0].1, "b");
    }

    #[test]
    fn compaction_keeps_what_is_live() {
        let mut index = Postings::default();
        for word in ["maple", "birch", "cedar"] {
            for i in 0..1000 {
                let deleted = i % 10 == 0;
                index.apply(
                    change(&format!("id-{i:04}"), Some(&format!("{word} {i}")), deleted),
                    Vec::new(),
                );
            }
            index.compact_when_sparse();
        }
        assert!(index.dead < index.documents.len());
        assert_eq!(index.documents.len(), index.numbers.len() + index.dead);
        let found = index.search("cedar 17", window(1));
        assert_eq!(found.page[0].1, "id-0017");
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

    /// A row of the facet tests: id, kind, elements, creation time, deleted.
    type Row = (
        &'static str,
        &'static str,
        &'static [&'static str],
        i64,
        bool,
    );

    const ROWS: [Row; 8] = [
        ("a", "COMPANY", &["high-risk", "vip"], 30, false),
        ("b", "COMPANY", &["review-2026"], 10, false),
        ("c", "INDIVIDUAL", &["high-risk"], 20, false),
        ("d", "TRUST", &[], 20, false),
        ("e", "COMPANY", &["high-risk"], 50, true),
        ("f", "INDIVIDUAL", &["vip", "review-2025"], 40, false),
        ("g", "COMPANY", &["high-risk"], 20, false),
        ("h", "TRUST", &["vip"], 60, false),
    ];

    fn facet_change(row: &Row) -> (Change, Vec<String>) {
        let (id, kind, values, create_time, deleted) = *row;
        let change = Change {
            id: id.to_owned(),
            text: Some(format!("name {id}")),
            kind: Some(kind.to_owned()),
            create_time: Some(create_time),
            delete_time: deleted.then_some(1),
        };
        (change, values.iter().map(|v| (*v).to_owned()).collect())
    }

    fn faceted(rows: &[Row]) -> Postings {
        let mut postings = Postings::default();
        for row in rows {
            let (change, values) = facet_change(row);
            postings.apply(change, values);
        }
        postings
    }

    /// The filter applied to one row, as SQL would.
    fn holds(filter: &FacetFilter, row: &Row) -> bool {
        match filter {
            FacetFilter::All(parts) => parts.iter().all(|p| holds(p, row)),
            FacetFilter::Any(parts) => parts.iter().any(|p| holds(p, row)),
            FacetFilter::Not(part) => !holds(part, row),
            FacetFilter::Kind(kind) => row.1 == kind,
            FacetFilter::Value(pattern) => row.2.iter().any(|v| element_matches(pattern, v)),
        }
    }

    fn span(limit: usize, descending: bool, show_deleted: bool) -> Span<'static> {
        Span {
            after: None,
            descending,
            skip: 0,
            limit,
            show_deleted,
        }
    }

    fn kind(k: &str) -> FacetFilter {
        FacetFilter::Kind(k.to_owned())
    }

    fn value(v: StringMatch) -> FacetFilter {
        FacetFilter::Value(v)
    }

    fn filters() -> Vec<FacetFilter> {
        let exact = |v: &str| value(StringMatch::Exact(v.to_owned()));
        vec![
            FacetFilter::All(Vec::new()),
            FacetFilter::All(vec![kind("COMPANY"), exact("high-risk")]),
            kind("TRUST"),
            kind("PARTNERSHIP"),
            FacetFilter::Not(Box::new(kind("COMPANY"))),
            exact("vip"),
            exact("unknown"),
            value(StringMatch::Prefix("review-".to_owned())),
            value(StringMatch::Prefix(String::new())),
            FacetFilter::Not(Box::new(value(StringMatch::Prefix(String::new())))),
            value(StringMatch::Suffix("-2025".to_owned())),
            FacetFilter::Any(vec![kind("TRUST"), exact("vip")]),
            FacetFilter::All(vec![
                FacetFilter::Not(Box::new(exact("vip"))),
                FacetFilter::Any(vec![kind("INDIVIDUAL"), kind("COMPANY")]),
            ]),
        ]
    }

    #[test]
    fn lists_select_count_and_order_as_sql_would() {
        let index = faceted(&ROWS);
        for filter in filters() {
            for descending in [false, true] {
                for show_deleted in [false, true] {
                    let mut expected: Vec<(i64, String)> = ROWS
                        .iter()
                        .filter(|row| holds(&filter, row) && (show_deleted || !row.4))
                        .map(|row| (row.3, row.0.to_owned()))
                        .collect();
                    expected.sort();
                    if descending {
                        expected.reverse();
                    }
                    let listed = index.list(&filter, span(20, descending, show_deleted));
                    assert_eq!(listed.page, expected, "{filter:?} {descending}");
                    assert_eq!(listed.total, expected.len() as i64);
                    assert!(!listed.more);
                }
            }
        }
    }

    #[test]
    fn list_pages_follow_each_other_in_creation_order() {
        let index = faceted(&ROWS);
        for descending in [false, true] {
            let all = index.list(&FacetFilter::All(Vec::new()), span(20, descending, true));
            let mut seen = Vec::new();
            let mut after: Option<(i64, String)> = None;
            loop {
                let listed = index.list(
                    &FacetFilter::All(Vec::new()),
                    Span {
                        after: after.as_ref().map(|(t, id)| (*t, id.as_str())),
                        ..span(3, descending, true)
                    },
                );
                assert_eq!(listed.total, 8);
                seen.extend(listed.page.iter().cloned());
                match (listed.more, listed.page.last()) {
                    (true, Some(last)) => after = Some(last.clone()),
                    _ => break,
                }
            }
            assert_eq!(seen, all.page);
            // Ties in creation time go by id: c, d, g at 20.
            let ids: Vec<&str> = all.page.iter().map(|(_, id)| id.as_str()).collect();
            let expected = if descending {
                ["h", "e", "f", "a", "g", "d", "c", "b"]
            } else {
                ["b", "c", "d", "g", "a", "f", "e", "h"]
            };
            assert_eq!(ids, expected);
            let skipped = index.list(
                &FacetFilter::All(Vec::new()),
                Span {
                    skip: 2,
                    ..span(1, descending, true)
                },
            );
            assert_eq!(skipped.page, all.page[2..3]);
            assert!(skipped.more);
        }
    }

    #[test]
    fn changes_of_kind_and_elements_apply_and_survive_compaction() {
        let mut index = faceted(&ROWS);
        let vip = value(StringMatch::Exact("vip".to_owned()));
        let (mut change, _) = facet_change(&ROWS[0]);
        change.kind = Some("TRUST".to_owned());
        index.apply(change, vec!["watch".to_owned()]);
        let (change, values) = facet_change(&ROWS[5]);
        index.apply(
            Change {
                text: None,
                kind: None,
                ..change
            },
            values,
        );
        let ids =
            |listed: Listed| -> Vec<String> { listed.page.into_iter().map(|(_, id)| id).collect() };
        assert_eq!(ids(index.list(&vip, span(10, false, false))), ["h"]);
        assert_eq!(
            ids(index.list(&kind("TRUST"), span(10, false, false))),
            ["d", "a", "h"]
        );
        // Unchanged content keeps its number; a delete alone flips the flag.
        let (mut change, values) = facet_change(&ROWS[7]);
        change.delete_time = Some(5);
        index.apply(change, values);
        assert_eq!(index.dead, 2);
        assert!(index.list(&vip, span(10, false, false)).page.is_empty());
        // Enough dead rows renumber the rest, keeping every facet.
        for round in 0..3 {
            for i in 0..1000 {
                let (mut change, _) = facet_change(&ROWS[1]);
                change.id = format!("n-{i:04}");
                change.create_time = Some(100 + i);
                index.apply(change, vec![format!("round-{round}")]);
            }
            index.compact_when_sparse();
        }
        assert!(index.dead < index.documents.len());
        let last_round = value(StringMatch::Exact("round-2".to_owned()));
        assert_eq!(index.list(&last_round, span(1, false, false)).total, 1000);
        assert_eq!(
            index
                .list(
                    &value(StringMatch::Prefix("round-".to_owned())),
                    span(1, false, false)
                )
                .total,
            1000
        );
        let companies = index.list(&kind("COMPANY"), span(3, false, false));
        assert_eq!(companies.total, 1002);
        assert_eq!(ids(companies), ["b", "g", "n-0000"]);
        assert_eq!(
            ids(index.list(&kind("TRUST"), span(10, false, false))),
            ["d", "a"]
        );
    }
}
