//! The in-memory index: every name of every loaded record, normalised and prepared once, with
//! blocking keys so that a screen scores a few dozen candidate names instead of all of them,
//! and a [`SharedIndex`] that swaps a rebuilt index in atomically while screens go on.
//!
//! Blocking keys, per word token and per run of two or three adjacent tokens written as one:
//! the token itself, its Double Metaphone codes and its consonant skeleton. A word token also
//! has first-letter keys, so that a typo in the first letter, which changes all three, does
//! not lose the name: the token without its first letter (a dropped or substituted first
//! letter) and the token with its first two letters in order (a transposed first letter); see
//! [`first_letter_keys`]. It also has its romanisation key and its letters in sorted order
//! ([`typo_keys`]). Candidate names collect the rarity weights of the query tokens whose
//! keys they share; the best [`CANDIDATES`] are compared in full.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use arc_swap::ArcSwap;
use rphonetic::DoubleMetaphone;
use serde::Serialize;

use crate::load::{ListVersion, LoadedList};
use crate::matcher::{
    DEFAULT_THRESHOLD, Evidence, Explanation, NAME_PIVOT, NAME_SLOPE, NameComparison, PreparedName,
    PreparedToken, TokenStats, compare_names, name_log_odds, name_similarity, phonetic_codes,
    phonetic_encoder, score_record,
};
use crate::model::{EntityKind, NameRole, Record};
use crate::normalize::{TokenKind, normalize, skeleton};

/// How many candidate names a screen compares in full.
pub const CANDIDATES: usize = 48;
/// Postings longer than this (keys shared by a large share of all names) are not followed
/// unless nothing else is.
const MAX_POSTINGS: usize = 12_000;
/// The most the non-name evidence can add, in log-odds (date of birth, nationality, gender).
const MAX_EVIDENCE: f32 = 2.7;

/// Charge of the listed name's weight that the query does not share, in candidate ranking.
const RANK_MISSING_CHARGE: f32 = 0.25;

/// Per-thread buffers of candidate accumulation, reused across screens.
#[derive(Default)]
struct Scratch {
    acc: Vec<f32>,
    stamp: Vec<u32>,
    touched: Vec<u32>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// How much a shared key says: the same token, the same consonant skeleton, the same sound.
fn key_factor(key: &str) -> f32 {
    match key.as_bytes().first() {
        Some(b't') => 1.0,
        Some(b'k') => 0.9,
        _ => 0.8,
    }
}

/// How much a shared first-letter key says (the same token but for a typo in its first
/// letter): less than a shared sound.
const FIRST_LETTER_FACTOR: f32 = 0.7;
/// Shortest token (in characters) given first-letter keys: shorter ones would share them with
/// too many other names.
const FIRST_LETTER_MIN_CHARS: usize = 4;

/// Which side of a screen a name is on: listed names are indexed under keys, screened names
/// look keys up in the postings. First-letter keys are not symmetric (see
/// [`first_letter_keys`]), and a screened token that some listed name carries as written is
/// taken as written: it gets no typo keys.
#[derive(Debug, Clone, Copy)]
enum Side<'a> {
    Listed,
    Screened(&'a HashMap<String, Vec<u32>>),
}

/// How much a shared romanisation key says (see [`crate::matcher::romanisation_key`]).
const ROMANISATION_FACTOR: f32 = 0.85;
/// How much sharing the same letters in another order says (a transposition typo).
const LETTERS_FACTOR: f32 = 0.7;
/// Shortest token (in characters) keyed by its sorted letters.
const LETTERS_MIN_CHARS: usize = 5;

/// The romanisation key of a word token (`walidjan` / `walijan`) and, from
/// [`LETTERS_MIN_CHARS`] letters, its letters in sorted order, under which a swap of two
/// letters anywhere (`wlaijan` / `walijan`) keeps the name.
fn typo_keys(token: &PreparedToken, out: &mut Vec<(String, f32)>) {
    if token.translit.len() >= 3 {
        out.push((format!("r{}", token.translit), ROMANISATION_FACTOR));
    }
    if token.text.chars().count() >= LETTERS_MIN_CHARS {
        let mut letters: Vec<char> = token.text.chars().collect();
        letters.sort_unstable();
        let mut key = String::with_capacity(token.text.len() + 1);
        key.push('s');
        key.extend(letters);
        out.push((key, LETTERS_FACTOR));
    }
}

/// The first-letter keys of a word token of at least [`FIRST_LETTER_MIN_CHARS`] characters
/// (a shorter screened token still looks up its listed forms with one more letter).
///
/// A listed token `L` is indexed under `d` + `L` without its first letter and under `x` + `L`
/// with its first two letters in order. A screened token `Q` looks up:
/// - `d` + `Q`: `Q` is a listed token that lost its first letter (`sama` for `usama`);
/// - `d` + `Q` without its first letter: the first letter differs (`wasan` for `hasan`);
/// - `t` + `Q` without its first letter: the listed token lost its first letter;
/// - `x` + `Q` with its first two letters in order: the first two letters are swapped
///   (`suama` for `usama`).
fn first_letter_keys(text: &str, side: Side<'_>, out: &mut Vec<(String, f32)>) {
    let screened = matches!(side, Side::Screened(_));
    let chars = text.chars().count();
    let mut rest = text.chars();
    let first = rest.next();
    let rest = rest.as_str();
    if screened && chars + 1 >= FIRST_LETTER_MIN_CHARS {
        out.push((format!("d{text}"), FIRST_LETTER_FACTOR));
    }
    if chars < FIRST_LETTER_MIN_CHARS {
        return;
    }
    out.push((format!("d{rest}"), FIRST_LETTER_FACTOR));
    if screened {
        out.push((format!("t{rest}"), FIRST_LETTER_FACTOR));
    }
    let mut tail = rest.chars();
    if let (Some(a), Some(b)) = (first, tail.next())
        && a != b
    {
        let (low, high) = if a < b { (a, b) } else { (b, a) };
        out.push((
            format!("x{low}{high}{}", tail.as_str()),
            FIRST_LETTER_FACTOR,
        ));
    }
}

/// One indexed name.
#[derive(Debug, Clone)]
struct IndexedName {
    record: u32,
    role: NameRole,
    kind: EntityKind,
    text: String,
    prepared: PreparedName,
    total_weight: f32,
}

/// What to screen: a name and whatever else is known.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Query {
    /// The full name, in any order and script.
    pub name: String,
    /// What is screened: a person (default) is compared with person and unknown-kind entries
    /// only; an organisation with organisation and unknown-kind entries.
    pub kind: EntityKind,
    /// Date of birth, nationality, gender.
    pub evidence: Evidence,
}

impl Query {
    /// A person query with only a name.
    pub fn person(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            kind: EntityKind::Person,
            evidence: Evidence::default(),
        }
    }
}

/// Options of a screen.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScreenOptions {
    /// Matches scoring below this are not returned (default 0.70).
    pub threshold: f32,
    /// At most this many matches are returned, best first (default 10).
    pub limit: usize,
    /// Only these datasets (default: all loaded).
    pub datasets: Option<Vec<String>>,
}

impl Default for ScreenOptions {
    fn default() -> Self {
        Self {
            threshold: DEFAULT_THRESHOLD,
            limit: 10,
            datasets: None,
        }
    }
}

/// One listed entry that matched.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Match {
    /// The entry's id in its list.
    pub list_entry: String,
    /// Its dataset.
    pub dataset: String,
    /// Its display name.
    pub display_name: String,
    /// Score in [0, 1]; see [`crate::matcher`] for its meaning.
    #[serde(serialize_with = "crate::matcher::serialize_published")]
    pub score: f32,
    /// The entry as listed, for the reviewer: names, dates, programs, topics, positions.
    pub record: Record,
    /// Why it matched.
    pub explanation: Explanation,
}

/// The result of one screen.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScreenResult {
    /// Matches at or above the threshold, best first.
    pub matches: Vec<Match>,
    /// The versions of the lists the screen ran against (all from one index snapshot).
    pub list_versions: Vec<ListVersion>,
    /// How many candidate names were compared in full.
    pub candidates_compared: usize,
}

/// Postings: the names (ids into [`Index::names`], ascending) under each blocking key.
type Postings = HashMap<String, Vec<u32>>;

/// An immutable index over loaded lists.
#[derive(Debug)]
pub struct Index {
    records: Vec<Record>,
    names: Vec<IndexedName>,
    postings: Arc<Postings>,
    /// For a part of an index ([`Index::part`]), the postings of the whole: they decide,
    /// as in the whole, which keys of a query are looked up (typo keys, over-long
    /// postings). `None` for a whole index.
    whole: Option<Arc<Postings>>,
    stats: TokenStats,
    versions: Vec<ListVersion>,
    encoder: DoubleMetaphone,
}

/// The blocking keys of one token or joined run, each with [`key_factor`].
fn unit_keys(
    text: &str,
    skel_source: bool,
    encoder: &DoubleMetaphone,
    out: &mut Vec<(String, f32)>,
) {
    let mut push = |key: String| {
        let factor = key_factor(&key);
        out.push((key, factor));
    };
    push(format!("t{text}"));
    let s = skeleton(text);
    if s.len() >= 3 && (skel_source || s.len() >= 4) {
        push(format!("k{s}"));
    }
    let (p, a) = phonetic_codes(encoder, text);
    if p.len() >= 2 {
        push(format!("m{p}"));
        if a != p && a.len() >= 2 {
            push(format!("m{a}"));
        }
    }
}

/// A query unit: a token or run of tokens, its keys (best first, with how much sharing each
/// says) and its weight in candidate ranking.
struct Unit {
    keys: Vec<(String, f32)>,
    weight: f32,
}

fn units(name: &PreparedName, encoder: &DoubleMetaphone, side: Side<'_>) -> Vec<Unit> {
    let tokens = &name.tokens;
    let mut out = Vec::new();
    for t in tokens {
        if t.kind == TokenKind::Word && t.text.len() >= 2 {
            let mut keys = Vec::new();
            unit_keys(&t.text, t.skeleton_script, encoder, &mut keys);
            let typos = !t.skeleton_script
                && match side {
                    Side::Listed => true,
                    Side::Screened(postings) => keys
                        .first()
                        .is_none_or(|(exact, _)| !postings.contains_key(exact)),
                };
            if typos {
                typo_keys(t, &mut keys);
                first_letter_keys(&t.text, side, &mut keys);
            }
            out.push(Unit {
                keys,
                weight: t.weight,
            });
        }
    }
    for len in 2..=3 {
        for run in tokens.windows(len) {
            if run.iter().any(|t| t.kind == TokenKind::Initial) {
                continue;
            }
            let joined: String = run.iter().map(|t| t.text.as_str()).collect();
            let mut keys = Vec::new();
            unit_keys(
                &joined,
                run.iter().any(|t| t.skeleton_script),
                encoder,
                &mut keys,
            );
            let weight: f32 = run.iter().map(|t: &PreparedToken| t.weight).sum::<f32>() / 2.0;
            out.push(Unit { keys, weight });
        }
    }
    out
}

/// Files a listed name, `name_id`, under each of its blocking keys once; `keys` is a
/// buffer.
fn post_listed(
    prepared: &PreparedName,
    name_id: u32,
    encoder: &DoubleMetaphone,
    keys: &mut Vec<String>,
    postings: &mut Postings,
) {
    keys.clear();
    for unit in units(prepared, encoder, Side::Listed) {
        keys.extend(unit.keys.into_iter().map(|(key, _)| key));
    }
    keys.sort_unstable();
    keys.dedup();
    for key in keys.drain(..) {
        postings.entry(key).or_default().push(name_id);
    }
}

fn kinds_compatible(query: EntityKind, listed: EntityKind) -> bool {
    match query {
        EntityKind::Person => matches!(listed, EntityKind::Person | EntityKind::Unknown),
        EntityKind::Unknown => true,
        other => listed == other || listed == EntityKind::Unknown,
    }
}

fn logit(p: f32) -> f32 {
    let p = p.clamp(1e-6, 1.0 - 1e-6);
    (p / (1.0 - p)).ln()
}

impl Index {
    /// Builds an index over the given lists.
    pub fn build(lists: Vec<LoadedList>) -> Self {
        let encoder = phonetic_encoder();
        let mut records = Vec::new();
        let mut versions = Vec::new();
        let mut raw = Vec::new();
        for list in lists {
            versions.push(list.version);
            for record in list.records {
                let record_id = u32::try_from(records.len()).unwrap_or(u32::MAX);
                for name in &record.names {
                    for variant in normalize(&name.full, record.kind) {
                        if !variant.is_empty() {
                            raw.push((
                                record_id,
                                name.role,
                                record.kind,
                                name.full.clone(),
                                variant,
                            ));
                        }
                    }
                }
                records.push(record);
            }
        }
        let stats = TokenStats::from_names(raw.iter().map(|r| &r.4));
        let mut names = Vec::with_capacity(raw.len());
        let mut postings = Postings::new();
        let mut keys = Vec::new();
        for (record, role, kind, text, variant) in raw {
            let prepared = PreparedName::new(&variant, &stats, &encoder);
            let name_id = u32::try_from(names.len()).unwrap_or(u32::MAX);
            post_listed(&prepared, name_id, &encoder, &mut keys, &mut postings);
            let total_weight = prepared.tokens.iter().map(|t| t.weight).sum();
            names.push(IndexedName {
                record,
                role,
                kind,
                text,
                prepared,
                total_weight,
            });
        }
        for list in postings.values_mut() {
            list.shrink_to_fit();
        }
        Self {
            records,
            names,
            postings: Arc::new(postings),
            whole: None,
            stats,
            versions,
            encoder,
        }
    }

    /// The part of this index that holds the records `keep` keeps, scoring as this
    /// index does: its names keep their prepared tokens and rarity weights (the token
    /// statistics are this index's, not the part's), their order, and the lists'
    /// versions; and a query looks keys up as in this index (a query token that this
    /// index holds as written gets no typo keys; postings too long to follow here are
    /// not followed in the part either). So a query screened against the part scores
    /// each kept record as against this index, and finds every kept record this index
    /// would find; it may find more only where this index's limits bind (the
    /// [`CANDIDATES`] best names of all, the screen's `limit` matches), as fewer names
    /// compete in the part. Ongoing monitoring screens every monitored entity against
    /// the part holding the records a list change added or changed.
    pub fn part(&self, keep: impl Fn(&Record) -> bool) -> Index {
        let mut record_ids: HashMap<u32, u32> = HashMap::new();
        let mut records = Vec::new();
        for (i, record) in self.records.iter().enumerate() {
            if keep(record) {
                let old = u32::try_from(i).unwrap_or(u32::MAX);
                let new = u32::try_from(records.len()).unwrap_or(u32::MAX);
                record_ids.insert(old, new);
                records.push(record.clone());
            }
        }
        let mut names = Vec::new();
        let mut postings = Postings::new();
        let mut keys = Vec::new();
        for name in &self.names {
            let Some(&record) = record_ids.get(&name.record) else {
                continue;
            };
            let name_id = u32::try_from(names.len()).unwrap_or(u32::MAX);
            post_listed(
                &name.prepared,
                name_id,
                &self.encoder,
                &mut keys,
                &mut postings,
            );
            names.push(IndexedName {
                record,
                ..name.clone()
            });
        }
        Index {
            records,
            names,
            postings: Arc::new(postings),
            whole: Some(
                self.whole
                    .clone()
                    .unwrap_or_else(|| Arc::clone(&self.postings)),
            ),
            stats: self.stats.clone(),
            versions: self.versions.clone(),
            encoder: phonetic_encoder(),
        }
    }

    /// The postings that decide which keys of a query are looked up: the whole
    /// index's (see [`Index::part`]).
    fn deciding_postings(&self) -> &Postings {
        self.whole.as_deref().unwrap_or(&self.postings)
    }

    /// The versions of the lists in this index.
    pub fn versions(&self) -> &[ListVersion] {
        &self.versions
    }

    /// The records in this index.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// The number of indexed names (all variants of all names).
    pub fn name_count(&self) -> usize {
        self.names.len()
    }

    /// Token statistics of the indexed names (rarity weights).
    pub fn stats(&self) -> &TokenStats {
        &self.stats
    }

    /// Normalises and prepares a name with this index's rarity weights.
    pub fn prepare(&self, name: &str, kind: EntityKind) -> Vec<PreparedName> {
        normalize(name, kind)
            .iter()
            .map(|n| PreparedName::new(n, &self.stats, &self.encoder))
            .collect()
    }

    /// Compares two names with this index's rarity weights (all variants, best kept).
    pub fn compare(&self, a: &str, b: &str, kind: EntityKind) -> Option<NameComparison> {
        let left = self.prepare(a, kind);
        let right = self.prepare(b, kind);
        left.iter()
            .flat_map(|l| right.iter().map(move |r| compare_names(l, r)))
            .max_by(|x, y| x.similarity.total_cmp(&y.similarity))
    }

    fn candidates(
        &self,
        query: &[PreparedName],
        kind: EntityKind,
        datasets: Option<&HashSet<&str>>,
    ) -> Vec<u32> {
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            self.candidates_with(&mut scratch, query, kind, datasets)
        })
    }

    fn candidates_with(
        &self,
        scratch: &mut Scratch,
        query: &[PreparedName],
        kind: EntityKind,
        datasets: Option<&HashSet<&str>>,
    ) -> Vec<u32> {
        let n = self.names.len();
        if scratch.acc.len() < n {
            scratch.acc.resize(n, 0.0);
            scratch.stamp.resize(n, 0);
        }
        let Scratch {
            acc,
            stamp,
            touched,
        } = scratch;
        touched.clear();
        let deciding = self.deciding_postings();
        let all_units: Vec<Unit> = query
            .iter()
            .flat_map(|q| units(q, &self.encoder, Side::Screened(deciding)))
            .collect();
        let selective = all_units.iter().any(|u| {
            u.keys
                .iter()
                .any(|(k, _)| deciding.get(k).is_some_and(|p| p.len() <= MAX_POSTINGS))
        });
        for (unit_no, unit) in all_units.iter().enumerate() {
            let unit_id = u32::try_from(unit_no + 1).unwrap_or(u32::MAX);
            // Keys come exact first, then skeleton, then phonetic, then romanisation, sorted
            // letters and first-letter keys: a name gets the factor of the first key it
            // shares with this unit, once.
            for (key, factor) in &unit.keys {
                let Some(list) = self.postings.get(key) else {
                    continue;
                };
                let followed = match &self.whole {
                    None => list.len(),
                    Some(whole) => whole.get(key).map_or(0, Vec::len),
                };
                if selective && followed > MAX_POSTINGS {
                    continue;
                }
                let gain = unit.weight * factor;
                for &id in list {
                    let i = id as usize;
                    if i >= n || stamp[i] == unit_id {
                        continue;
                    }
                    if stamp[i] == 0 {
                        touched.push(id);
                    }
                    stamp[i] = unit_id;
                    acc[i] += gain;
                }
            }
        }
        let query_weight: f32 = query
            .first()
            .map_or(0.0, |q| q.tokens.iter().map(|t| t.weight).sum());
        let mut ranked: Vec<(u32, f32)> = Vec::with_capacity(touched.len());
        for &id in touched.iter() {
            let i = id as usize;
            let shared = acc[i];
            acc[i] = 0.0;
            stamp[i] = 0;
            let Some(name) = self.names.get(i) else {
                continue;
            };
            let wanted = kinds_compatible(kind, name.kind)
                && datasets.is_none_or(|d| {
                    self.records
                        .get(name.record as usize)
                        .is_some_and(|r| d.contains(r.dataset.as_str()))
                });
            if wanted {
                // Like the name similarity: listed parts the query lacks are charged lightly.
                let missing = (name.total_weight - shared).max(0.0);
                let rank = shared / (query_weight + RANK_MISSING_CHARGE * missing).max(1e-3);
                ranked.push((id, rank));
            }
        }
        if ranked.len() > CANDIDATES {
            ranked.select_nth_unstable_by(CANDIDATES - 1, |a, b| {
                b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
            });
            ranked.truncate(CANDIDATES);
        }
        ranked.into_iter().map(|(id, _)| id).collect()
    }

    /// Screens one query against the index.
    pub fn screen(&self, query: &Query, options: &ScreenOptions) -> ScreenResult {
        let prepared: Vec<PreparedName> = self
            .prepare(&query.name, query.kind)
            .into_iter()
            .filter(|p| !p.tokens.is_empty())
            .collect();
        let datasets: Option<HashSet<&str>> = options
            .datasets
            .as_ref()
            .map(|d| d.iter().map(String::as_str).collect());
        let candidates = if prepared.is_empty() {
            Vec::new()
        } else {
            self.candidates(&prepared, query.kind, datasets.as_ref())
        };
        let floor = NAME_PIVOT
            + (logit(options.threshold) - name_log_odds(NAME_PIVOT) - MAX_EVIDENCE) / NAME_SLOPE;
        let mut best: HashMap<u32, (f32, Match)> = HashMap::new();
        for &id in &candidates {
            let Some(indexed) = self.names.get(id as usize) else {
                continue;
            };
            let Some((similarity, query_name)) = prepared
                .iter()
                .map(|q| (name_similarity(q, &indexed.prepared), q))
                .max_by(|a, b| a.0.total_cmp(&b.0))
            else {
                continue;
            };
            if similarity < floor {
                continue;
            }
            let comparison = compare_names(query_name, &indexed.prepared);
            let Some(record) = self.records.get(indexed.record as usize) else {
                continue;
            };
            let (score, explanation) = score_record(
                comparison,
                query_name,
                &indexed.prepared,
                &indexed.text,
                indexed.role,
                &query.evidence,
                record,
            );
            if score < options.threshold {
                continue;
            }
            if best.get(&indexed.record).is_some_and(|(s, _)| *s >= score) {
                continue;
            }
            best.insert(
                indexed.record,
                (
                    score,
                    Match {
                        list_entry: record.id.clone(),
                        dataset: record.dataset.clone(),
                        display_name: record.display_name().to_string(),
                        score,
                        record: record.clone(),
                        explanation,
                    },
                ),
            );
        }
        let mut matches: Vec<Match> = best.into_values().map(|(_, m)| m).collect();
        matches.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.dataset.cmp(&b.dataset))
                .then_with(|| a.list_entry.cmp(&b.list_entry))
        });
        matches.truncate(options.limit);
        ScreenResult {
            matches,
            list_versions: self.versions.clone(),
            candidates_compared: candidates.len(),
        }
    }
}

/// An index that can be replaced while screens run: each screen works on one snapshot, so it
/// sees the lists before a reload or after it, never a mix.
#[derive(Debug)]
pub struct SharedIndex {
    current: ArcSwap<Index>,
}

impl SharedIndex {
    /// Wraps a first index.
    pub fn new(index: Index) -> Self {
        Self {
            current: ArcSwap::from_pointee(index),
        }
    }

    /// The current snapshot; keep it for as long as one consistent view is needed.
    pub fn snapshot(&self) -> Arc<Index> {
        self.current.load_full()
    }

    /// Replaces the index; screens already running finish on the snapshot they hold.
    pub fn replace(&self, index: Index) {
        self.current.store(Arc::new(index));
    }

    /// Screens against the current snapshot.
    pub fn screen(&self, query: &Query, options: &ScreenOptions) -> ScreenResult {
        self.current.load().screen(query, options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BirthDate;
    use crate::load::LoadReport;
    use crate::model::Name;

    /// An index of `records`, as one list named `test`.
    fn index_of(records: Vec<Record>) -> Index {
        Index::build(vec![LoadedList::new(
            "test",
            &[],
            None,
            records,
            LoadReport::default(),
        )])
    }

    fn index(names: &[&str]) -> Index {
        let records = names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let mut record = Record::new(i.to_string(), "test", EntityKind::Person);
                record.names = vec![Name::new(*name, NameRole::Primary)];
                record
            })
            .collect();
        index_of(records)
    }

    /// The listed names the candidate retrieval finds for `query`.
    fn retrieved(index: &Index, query: &str) -> Vec<String> {
        let prepared = index.prepare(query, EntityKind::Person);
        index
            .candidates(&prepared, EntityKind::Person, None)
            .into_iter()
            .filter_map(|id| index.names.get(id as usize).map(|n| n.text.clone()))
            .collect()
    }

    const LISTED: &[&str] = &["Kurbanov", "Usama Hamdan", "Nasrullo Zamov", "Ivan Petrov"];

    #[test]
    fn a_typo_in_the_first_letter_does_not_lose_the_name() {
        let index = index(LISTED);
        for (query, listed) in [
            // Transposed first letter: the token, its skeleton and its sound all change.
            ("Ukrbanov", "Kurbanov"),
            ("Suama", "Usama Hamdan"),
            // Dropped first letter.
            ("Urbanov", "Kurbanov"),
            ("Sama", "Usama Hamdan"),
            // Substituted first letter.
            ("Burbanov", "Kurbanov"),
            // The listed name lost its first letter.
            ("Azamov", "Nasrullo Zamov"),
        ] {
            let found = retrieved(&index, query);
            assert!(
                found.iter().any(|n| n == listed),
                "{query} did not retrieve {listed}: {found:?}"
            );
        }
    }

    #[test]
    fn a_swap_of_letters_or_another_romanisation_does_not_lose_the_name() {
        let index = index(&["Walijan", "Ivan Petrov"]);
        for query in ["Wlaijan", "Walidjan", "Walijna"] {
            let found = retrieved(&index, query);
            assert!(
                found.iter().any(|n| n == "Walijan"),
                "{query} did not retrieve Walijan: {found:?}"
            );
        }
    }

    #[test]
    fn first_letter_keys_do_not_retrieve_other_names() {
        let index = index(LISTED);
        for query in ["Ivan Kuznetsov", "Petrova", "Zamir"] {
            let found = retrieved(&index, query);
            assert!(
                !found
                    .iter()
                    .any(|n| n == "Kurbanov" || n == "Nasrullo Zamov" || n == "Usama Hamdan"),
                "{query} retrieved {found:?}"
            );
        }
        // Tokens shorter than four letters have no first-letter keys of their own.
        let mut keys = Vec::new();
        first_letter_keys("ali", Side::Listed, &mut keys);
        assert!(keys.is_empty(), "{keys:?}");
    }

    const GIVEN: &[&str] = &[
        "Ivan", "Maria", "Usama", "Jane", "Ahmed", "Olga", "Nasrullo", "Walijan", "Elena",
        "Mohammed", "John", "Li",
    ];
    const FAMILY: &[&str] = &[
        "Petrov",
        "Gonzalez",
        "Hamdan",
        "Doe",
        "Kurbanov",
        "Urbanov",
        "Zamov",
        "Smith",
        "Ivanova",
        "Al Rashid",
        "Wei",
        "Sidorov",
    ];

    /// Every given name with every family name (144 people, enough for rarity
    /// weights), some with a date of birth and a nationality, and two organisations.
    fn people() -> Index {
        let mut records = Vec::new();
        for (i, given) in GIVEN.iter().enumerate() {
            for (j, family) in FAMILY.iter().enumerate() {
                let id = format!("p{i}-{j}");
                let mut record = Record::new(id, "test", EntityKind::Person);
                record.names = vec![Name::new(format!("{given} {family}"), NameRole::Primary)];
                if (i + j) % 3 == 0 {
                    record.names.push(Name::new(
                        format!("{family}, {given} {}", GIVEN[(i + 1) % GIVEN.len()]),
                        NameRole::Alias,
                    ));
                }
                if (i * j) % 4 == 1 {
                    record
                        .birth_dates
                        .extend(BirthDate::parse(&format!("19{}-04-01", 50 + i + j)).ok());
                    record
                        .nationalities
                        .push(["RU", "GB", "AF"][j % 3].to_owned());
                }
                records.push(record);
            }
        }
        for (id, name) in [("o1", "Petrov Trading LLC"), ("o2", "Hamdan Holdings Ltd")] {
            let mut record = Record::new(id, "test", EntityKind::Organisation);
            record.names = vec![Name::new(name, NameRole::Primary)];
            records.push(record);
        }
        index_of(records)
    }

    /// Whether the part keeps a record: about a third of them, and `Kurbanov`s but no
    /// `Urbanov`s.
    fn kept(record: &Record) -> bool {
        let name = record.display_name();
        (record.id.len() + name.len()).is_multiple_of(3) && !name.contains("Urbanov")
            || name.contains("Kurbanov")
            || record.id == "o1"
    }

    fn queries() -> Vec<Query> {
        let born = |name: &str, date: &str, nationality: &str| Query {
            name: name.to_owned(),
            kind: EntityKind::Person,
            evidence: Evidence {
                birth_date: BirthDate::parse(date).ok(),
                nationalities: vec![nationality.to_owned()],
                gender: None,
            },
        };
        let mut queries: Vec<Query> = [
            "Ivan Petrov",
            "Petrov Ivan",
            "Maria Gonzales",
            "Usama Hamdan",
            "Suama Hamdan",
            "Jane Doe",
            "Urbanov",
            "Ahmed Urbanov",
            "Ukrbanov",
            "Nasrullo Azamov",
            "Walidjan Smith",
            "Elena Ivanova",
            "Mohamed Al-Rashid",
            "Li Wei",
            "John",
            "Olga Sidorova",
            "Nobody Known",
        ]
        .into_iter()
        .map(Query::person)
        .collect();
        // Every listed person once, in a family-name-first order.
        for (i, given) in GIVEN.iter().enumerate() {
            for family in FAMILY.iter().skip(i % 3).step_by(3) {
                queries.push(Query::person(format!("{family} {given}")));
            }
        }
        queries.push(born("Ivan Gonzalez", "1951-04-01", "GB"));
        queries.push(born("Maria Hamdan", "1954", "AF"));
        queries.push(born("Jane Doe", "1999-01-01", "RU"));
        queries.push(Query {
            name: "Petrov Trading".into(),
            kind: EntityKind::Organisation,
            evidence: Evidence::default(),
        });
        queries
    }

    #[test]
    fn a_part_scores_its_records_as_the_whole_index_does() {
        let whole = people();
        let part = whole.part(kept);
        assert_eq!(
            part.records().len(),
            whole.records().iter().filter(|r| kept(r)).count()
        );
        assert_eq!(part.stats().names(), whole.stats().names());
        assert_eq!(part.versions(), whole.versions());
        // Limits that do not bind: the part finds exactly what the whole finds of it.
        let options = ScreenOptions {
            threshold: 0.5,
            limit: 1000,
            datasets: None,
        };
        let mut found = 0;
        for query in queries() {
            let expected: Vec<Match> = whole
                .screen(&query, &options)
                .matches
                .into_iter()
                .filter(|m| kept(&m.record))
                .collect();
            let screened = part.screen(&query, &options);
            assert_eq!(screened.matches, expected, "{}", query.name);
            assert_eq!(screened.list_versions, whole.versions());
            found += expected.len();
        }
        assert!(found > 30, "the queries match kept records: {found}");
    }

    #[test]
    fn a_part_looks_query_keys_up_as_the_whole_index_does() {
        let whole = people();
        let part = whole.part(kept);
        // The whole holds `urbanov` as written, so the query gets no typo keys and
        // does not retrieve `Kurbanov`; nor does the part, which holds no `Urbanov`.
        let query = "Urbanov";
        assert!(
            !retrieved(&whole, query)
                .iter()
                .any(|n| n.contains("Kurbanov"))
        );
        assert!(
            !retrieved(&part, query)
                .iter()
                .any(|n| n.contains("Kurbanov"))
        );
        // An index built of the kept records alone would (and weigh tokens otherwise).
        let alone = index_of(part.records().to_vec());
        assert!(
            retrieved(&alone, query)
                .iter()
                .any(|n| n.contains("Kurbanov"))
        );
        // A part of a part still decides with the whole.
        let smaller = part.part(|r| r.display_name().contains("Kurbanov"));
        let options = ScreenOptions {
            threshold: 0.5,
            limit: 1000,
            datasets: None,
        };
        for query in queries() {
            let expected: Vec<Match> = whole
                .screen(&query, &options)
                .matches
                .into_iter()
                .filter(|m| m.record.display_name().contains("Kurbanov"))
                .collect();
            assert_eq!(
                smaller.screen(&query, &options).matches,
                expected,
                "{}",
                query.name
            );
        }
    }
}
