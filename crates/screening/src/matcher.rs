//! The explainable matcher: token alignment between two normalised names, then dates of birth,
//! nationality and gender as evidence, combined into one score in [0, 1].
//!
//! # Name similarity
//! Tokens are aligned without regard to order (swapped given and family names match; OFAC and
//! UN write `SURNAME, Given`, many cultures write the family name first). Each query token is
//! paired with at most one list token, and a run of up to three tokens on one side may pair
//! with one token on the other (`Abd al Rahman` ~ `Abdulrahman`, `Xi Jin Ping` ~ `Xi Jinping`).
//! Token similarity is the best of: equality (1.0); the mean of Jaro-Winkler and the
//! Damerau-Levenshtein similarity (so that a shared prefix alone does not make two different
//! names similar); equal romanisation keys (0.90, [`romanisation_key`]); Double Metaphone
//! agreement (0.88, when the spellings are at least half alike; through an alternate code only
//! with the same first letter); consonant skeleton equality for scripts without written vowels
//! (0.93); a token written backwards (0.85); an initial standing for a word (0.80); a short
//! token standing for the initials of a run (0.85). Pairs below 0.80 are not aligned; two
//! leftover words with the same first letter and at least 0.60 similar are then aligned as a
//! soft pair (a big typo) at their similarity minus 0.10.
//!
//! Each token weighs by its rarity in the loaded lists (a token in thousands of names, such as
//! MOHAMMED, weighs about 0.4; a token seen once weighs 1.0); particles weigh 0.15, initials
//! 0.3, legal forms 0.1. The name similarity is the weighted share of aligned tokens:
//! `Σ sim·w(pair) / (Σ w(pair) + charges)`, where an unaligned token facing an unaligned token
//! on the other side is a conflict charged its full weight (`Hans O Friedrich` vs `Hans Joachim
//! Friedrich`), and an unaligned token with nothing to face is a missing name part, charged
//! lightly (0.12 of its weight for a listed middle part, 0.25 for a listed first or last part
//! or a screened part; 0.5 for organisations); a repeated token is nearly free; two different
//! legal forms cost 0.5. Names swapped around `bin`/`ibn` (`A bin B` vs `B bin A`) lose a
//! quarter of their similarity: they name a son and his father.
//!
//! # Score
//! The score is a logistic combination: `logit(score) = 17·(name − 0.88) + 0.847 + Σ evidence`,
//! so a name similarity of 0.88 alone scores 0.70 (the default threshold), an exact name alone
//! 0.947, and the evidence moves it: date of birth from +2.0 (same day) to −3.0 (two or more
//! years apart), nationality +0.6 / −1.0, gender +0.1 / −1.5, weak alias −0.8, and −1.2 for an
//! entry that records neither a date of birth nor a nationality (only the name can ever
//! confirm such a match, so it needs a stronger name), and against such an entry up to −1.5
//! more for a common name (0.6 per factor of ten of people in a million carrying it, by the
//! census frequencies of [`crate::frequency`]: `Robert Anderson`). A missing value adds nothing: it is
//! never a mismatch. The score reads as "how strongly the evidence says this is the listed entry";
//! it only reaches 1.0 in the limit, so strong matches are ranked by their evidence instead of
//! piling up at 100 %. Each factor's contribution in the explanation is the change of score it
//! caused, in order, so the contributions add up to the score.

use std::collections::HashMap;

use rphonetic::DoubleMetaphone;
use serde::Serialize;

use crate::date::{BirthDate, DobAgreement, best_agreement};
use crate::frequency::NameFrequencies;
use crate::model::{EntityKind, Gender, NameRole, Record};
use crate::normalize::{MAX_TOKENS, NormName, Token, TokenKind, skeleton, skeleton_keep_w};
use crate::similarity::{edit_similarity, jaro_winkler};

/// Pairs of tokens less similar than this are not aligned.
pub const MIN_TOKEN_SIMILARITY: f32 = 0.80;
/// Name similarity that alone gives the default threshold score.
pub const NAME_PIVOT: f32 = 0.88;
/// Slope of the name similarity in log-odds.
pub const NAME_SLOPE: f32 = 17.0;
/// Log-odds of a match against an entry that records neither a date of birth nor a
/// nationality: such a match can never be corroborated, so it needs a name about 0.07 more
/// similar than one that could be.
pub const NAME_ONLY_ENTRY_LOG_ODDS: f32 = -1.2;
/// The default alert threshold.
pub const DEFAULT_THRESHOLD: f32 = 0.70;

const PIVOT_LOGIT: f32 = 0.847;
const PHONETIC_SIMILARITY: f32 = 0.88;
const PARTICLE_WEIGHT: f32 = 0.15;
const INITIAL_WEIGHT: f32 = 0.30;
const LEGAL_FORM_WEIGHT: f32 = 0.10;
const MIN_WORD_WEIGHT: f32 = 0.25;
/// Charge of a listed middle name part the query lacks (lists have 4 to 6 parts).
const EXTRA_LIST_INNER_CHARGE: f32 = 0.12;
/// Charge of a listed first or last name part the query lacks.
const EXTRA_LIST_EDGE_CHARGE: f32 = 0.25;
/// Charge of a screened name part the listed name lacks.
const EXTRA_QUERY_CHARGE: f32 = 0.25;
/// Charge of an extra name part of an organisation, on either side (`Banco Santander Chile`
/// is not `Banco Santander`).
const EXTRA_ORGANISATION_CHARGE: f32 = 0.5;
/// Charge of a region that only one organisation's name carries (`Faberlic Europe`): a
/// division of the same organisation. Two different regions are a conflict.
const REGION_EXTRA_CHARGE: f32 = 0.05;
/// Charge of a screened name part after a listed name that is the screened name's start, word
/// for word (`DOST MOHAMMAD` for `DOST MOHAMMAD KHAN HAQQANI`): lists carry a person's first
/// names alone as an alias.
const LEADING_PART_EXTRA_CHARGE: f32 = 0.12;
/// Similarity of two different numbers of a series ending otherwise alike organisation names
/// (`Partners IV` / `Partners V`, `Trust 2004-1` / `2004-2`, `Snow Storm 1` / `2`): members of
/// one family (fund vintages, trust tranches, sister ships), which a reviewer should see.
const SERIES_SIMILARITY: f32 = 0.75;
/// Legal-form tokens that are generic words rather than a legal form of one jurisdiction.
const GENERIC_LEGAL_WORDS: &[&str] = &[
    "co", "corp", "inc", "ltd", "group", "holding", "trading", "intl", "est",
];
/// Charge of two different legal forms left unaligned (`ANO` / `LLC`).
const LEGAL_FORM_CONFLICT_CHARGE: f32 = 0.5;
/// Token pairs at least this similar, left over once the close pairs are aligned, are aligned
/// as a soft pair (a typo too big for the close pairs: `Merkur` / `Merkel`) rather than
/// charged as a conflict.
const SOFT_MIN_SIMILARITY: f32 = 0.60;
/// A soft pair's similarity is lowered by this much.
const SOFT_DISCOUNT: f32 = 0.10;
/// Similarity of two tokens whose romanisation keys agree (`Kyu` / `Kiu`, `Shah` / `Chah`).
const TRANSLIT_SIMILARITY: f32 = 0.90;
/// Similarity of a token written backwards (a right-to-left name mangled by a system).
const REVERSED_SIMILARITY: f32 = 0.85;
/// Similarity of two tokens that differ by one swap of adjacent letters (`Jin` / `Jni`): a
/// typo that the mean of Jaro-Winkler and edit similarity rates too low in short tokens.
const TRANSPOSED_SIMILARITY: f32 = 0.85;
/// Similarity of a short token that is the initials of a run of tokens (`JC` / `Jean Claude`,
/// `US` / `United States`).
const ACRONYM_SIMILARITY: f32 = 0.85;
const DUPLICATE_CHARGE: f32 = 0.05;
/// Weight of a title both names carry, counted as an exact shared name part.
const TITLE_WEIGHT: f32 = 0.3;
const PATRONYMIC_SWAP_FACTOR: f32 = 0.75;
const MAX_SPAN: usize = 3;

/// How often each token occurs in the loaded lists, for rarity weights.
#[derive(Debug, Clone, Default)]
pub struct TokenStats {
    df: HashMap<String, u32>,
    names: u32,
}

impl TokenStats {
    /// Counts the word tokens of the given names (each token once per name).
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a NormName>) -> Self {
        let mut stats = Self::default();
        for name in names {
            stats.names += 1;
            let mut seen: Vec<&str> = Vec::new();
            for t in &name.tokens {
                if matches!(t.kind, TokenKind::Word | TokenKind::Region)
                    && !seen.contains(&t.text.as_str())
                {
                    seen.push(&t.text);
                    *stats.df.entry(t.text.clone()).or_insert(0) += 1;
                }
            }
        }
        stats
    }

    /// The number of names counted.
    pub fn names(&self) -> u32 {
        self.names
    }

    /// The number of names containing `token`.
    pub fn frequency(&self, token: &str) -> u32 {
        self.df.get(token).copied().unwrap_or(0)
    }

    /// The weight of a token: by rarity for words and regions, fixed for particles, initials,
    /// legal forms.
    pub fn weight(&self, token: &Token) -> f32 {
        match token.kind {
            TokenKind::Particle => PARTICLE_WEIGHT,
            TokenKind::Initial => INITIAL_WEIGHT,
            TokenKind::LegalForm => LEGAL_FORM_WEIGHT,
            TokenKind::Word | TokenKind::Region => {
                if self.names < 100 {
                    return 1.0;
                }
                let n = f64::from(self.names) + 1.0;
                let df = f64::from(self.frequency(&token.text)) + 1.0;
                let w = 1.6 * (n / df).ln() / n.ln();
                (w as f32).clamp(MIN_WORD_WEIGHT, 1.0)
            }
        }
    }
}

/// A token with everything the comparison needs precomputed.
#[derive(Debug, Clone)]
pub struct PreparedToken {
    /// Normalised text.
    pub text: String,
    /// Word, initial, particle or legal form.
    pub kind: TokenKind,
    /// Compare by consonant skeleton (script without written vowels).
    pub skeleton_script: bool,
    /// Consonant skeleton of the text.
    pub skeleton: String,
    /// Consonant skeleton keeping `w`/`v` (Hebrew vav, Arabic waw as consonants).
    pub skeleton_w: String,
    /// Double Metaphone primary and alternate codes.
    pub phonetic: (String, String),
    /// Romanisation key: spellings that differ only by romanisation system agree
    /// (see [`romanisation_key`]).
    pub translit: String,
    /// Rarity weight.
    pub weight: f32,
}

/// A normalised name ready for comparison.
#[derive(Debug, Clone)]
pub struct PreparedName {
    /// The tokens.
    pub tokens: Vec<PreparedToken>,
    /// Honorifics removed by normalisation.
    pub dropped: Vec<String>,
    /// An organisation's name (extra parts are charged more).
    pub organisation: bool,
}

/// Longest Double Metaphone code kept: long enough that names sharing only their first
/// syllables (`Subandrio`, `Subianto`) get different codes.
const PHONETIC_CODE_LENGTH: usize = 8;

/// The Double Metaphone encoder every comparison and index uses.
pub fn phonetic_encoder() -> DoubleMetaphone {
    DoubleMetaphone::new(Some(PHONETIC_CODE_LENGTH))
}

/// Double Metaphone codes of a token (empty for digits-only tokens).
pub fn phonetic_codes(encoder: &DoubleMetaphone, text: &str) -> (String, String) {
    if !text.bytes().any(|b| b.is_ascii_alphabetic()) {
        return (String::new(), String::new());
    }
    let r = encoder.double_metaphone(text);
    (r.primary(), r.alternate())
}

/// A key under which spellings of one name in different romanisation systems agree: the
/// `sh` sound (`sh`, `ch`, `sch`, `tch`) is one letter, as are `j` (`j`, `dj`, `dzh`, `zh`),
/// `k` (`k`, `q`, `c`, `ck`) and `u` (`u`, `oo`, `ou`); `y` is `i` (`ee` too), `w` is `v`;
/// `kh` is `h`; `gh`, `dh`, `th` lose their `h`; `ph` is `f`; doubled letters are written
/// once. These are the variations between the English, French, German and
/// scholarly romanisations of Arabic, Persian, Russian and Korean names.
pub fn romanisation_key(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    let at = |i: usize| b.get(i).copied().unwrap_or(0);
    while i < b.len() {
        let (c, skip) = match (at(i), at(i + 1), at(i + 2), at(i + 3)) {
            (b't', b's', b'c', b'h') => ('x', 4),
            (b's', b'c', b'h', _) | (b't', b'c', b'h', _) => ('x', 3),
            (b'd', b'z', b'h', _) => ('j', 3),
            (b's' | b'c', b'h', _, _) => ('x', 2),
            (b'd', b'j', _, _) | (b'z', b'h', _, _) => ('j', 2),
            (b'k', b'h', _, _) => ('h', 2),
            (b'g' | b'd' | b't', b'h', _, _) => (char::from(at(i)), 2),
            (b'p', b'h', _, _) => ('f', 2),
            (b'c', b'k', _, _) => ('k', 2),
            (b'o', b'o' | b'u', _, _) => ('u', 2),
            (b'e', b'e', _, _) => ('i', 2),
            (b'q' | b'c', _, _, _) => ('k', 1),
            (b'y', _, _, _) => ('i', 1),
            (b'w', _, _, _) => ('v', 1),
            (other, _, _, _) => (char::from(other), 1),
        };
        if !out.ends_with(c) {
            out.push(c);
        }
        i += skip;
    }
    out
}

impl PreparedName {
    /// Prepares a normalised name with weights from `stats`.
    pub fn new(name: &NormName, stats: &TokenStats, encoder: &DoubleMetaphone) -> Self {
        let tokens = name
            .tokens
            .iter()
            .map(|t| PreparedToken {
                text: t.text.clone(),
                kind: t.kind,
                skeleton_script: t.skeleton,
                skeleton: skeleton(&t.text),
                skeleton_w: skeleton_keep_w(&t.text),
                phonetic: phonetic_codes(encoder, &t.text),
                translit: romanisation_key(&t.text),
                weight: stats.weight(t),
            })
            .collect();
        Self {
            tokens,
            dropped: name.dropped.clone(),
            organisation: name.organisation,
        }
    }

    /// The tokens joined by spaces.
    pub fn text(&self) -> String {
        self.tokens
            .iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// How two aligned tokens were found similar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PairMethod {
    /// Same text after normalisation.
    Exact,
    /// Jaro-Winkler similarity (spelling variants, typos).
    Fuzzy,
    /// Same Double Metaphone code (sounds alike).
    Phonetic,
    /// Same consonant skeleton (transliterated from a script without written vowels).
    Skeleton,
    /// An initial standing for the word.
    Initial,
    /// Several tokens on one side written as one on the other.
    Joined,
    /// The same name in another romanisation system (`Kyu` / `Kiu`, `Djabbar` / `Jabbar`).
    Transliteration,
    /// A token written backwards.
    Reversed,
    /// A short token standing for the initials of several (`JC` / `Jean Claude`).
    Acronym,
    /// Two different tokens aligned with a low similarity, a big typo (`Merkur` / `Merkel`);
    /// charged almost like a conflict.
    Soft,
    /// Two different numbers of a series in organisation names (`IV` / `V`, `1` / `2`).
    Series,
}

/// Two aligned name parts, for the explanation.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlignedPair {
    /// The screened name part(s).
    pub query: String,
    /// The listed name part(s).
    pub list: String,
    /// Similarity in [0, 1].
    #[serde(serialize_with = "serialize_published")]
    pub similarity: f32,
    /// How the similarity was found.
    pub method: PairMethod,
    /// The pair's weight in the name similarity (rarity of its tokens).
    #[serde(serialize_with = "serialize_published")]
    pub weight: f32,
}

/// The result of comparing two names.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NameComparison {
    /// Name similarity in [0, 1].
    #[serde(serialize_with = "serialize_published")]
    pub similarity: f32,
    /// Aligned pairs, best first.
    pub pairs: Vec<AlignedPair>,
    /// Screened tokens left unaligned.
    pub unmatched_query: Vec<String>,
    /// Listed tokens left unaligned.
    pub unmatched_list: Vec<String>,
    /// Unaligned tokens that faced an unaligned token on the other side.
    pub conflicts: usize,
    /// True when names on either side of `bin`/`ibn`/`bint` swapped places (`A bin B` vs
    /// `B bin A` names a son and his father, two people).
    pub patronymic_swap: bool,
    /// Titles both names carry (`Amir`, `Sayed`, `Qari`: also given names), each counted
    /// as a shared name part of weight 0.3.
    pub shared_titles: Vec<String>,
}

fn phonetic_agree(a: &PreparedToken, b: &PreparedToken) -> bool {
    let (ap, aa) = (&a.phonetic.0, &a.phonetic.1);
    let (bp, ba) = (&b.phonetic.0, &b.phonetic.1);
    if ap.len() < 2 || bp.len() < 2 {
        return false;
    }
    if ap == bp {
        return true;
    }
    // Agreement through an alternate code (the Spanish `j`, the Germanic `w`) only counts
    // when the words start alike: `Jong` / `Yong`, `Young` / `Wong` are different names.
    let cross = ap == ba || aa == bp || (aa == ba && aa.len() >= 2);
    cross && a.text.as_bytes().first() == b.text.as_bytes().first()
}

trait MaxBySim {
    fn max_by_sim(self, other: Self) -> Self;
}

impl MaxBySim for (f32, PairMethod) {
    fn max_by_sim(self, other: Self) -> Self {
        if other.0 > self.0 { other } else { self }
    }
}

/// Similarity of two single tokens.
fn token_similarity(a: &PreparedToken, b: &PreparedToken) -> (f32, PairMethod) {
    if a.text == b.text {
        return (1.0, PairMethod::Exact);
    }
    let a_initial = a.kind == TokenKind::Initial;
    let b_initial = b.kind == TokenKind::Initial;
    if a_initial || b_initial {
        if a_initial && b_initial {
            return (0.0, PairMethod::Initial);
        }
        let (initial, word) = if a_initial { (a, b) } else { (b, a) };
        return if word.text.starts_with(&initial.text) {
            (0.80, PairMethod::Initial)
        } else {
            (0.0, PairMethod::Initial)
        };
    }
    let translit = a.translit == b.translit && a.translit.len() >= 2;
    let transposed = one_transposition(&a.text, &b.text);
    let jw = jaro_winkler(&a.text, &b.text);
    let skeletal = a.skeleton_script || b.skeleton_script;
    if jw < 0.6 && !skeletal && !translit && !transposed {
        if a.text.len() >= 4
            && a.text.len() == b.text.len()
            && a.text.bytes().eq(b.text.bytes().rev())
        {
            return (REVERSED_SIMILARITY, PairMethod::Reversed);
        }
        return (0.0, PairMethod::Fuzzy);
    }
    let edit = edit_similarity(&a.text, &b.text);
    let mut best = ((jw + edit) / 2.0, PairMethod::Fuzzy);
    if transposed {
        best = best.max_by_sim((TRANSPOSED_SIMILARITY, PairMethod::Fuzzy));
    }
    if translit {
        best = best.max_by_sim((TRANSLIT_SIMILARITY, PairMethod::Transliteration));
    }
    if skeletal
        && (a.skeleton == b.skeleton || a.skeleton_w == b.skeleton_w)
        && (a.skeleton.len() >= 2 || a.text.len().min(b.text.len()) <= 3)
        && !a.skeleton.is_empty()
    {
        best = best.max_by_sim((0.93, PairMethod::Skeleton));
    }
    if edit > 0.5 && a.text.len().min(b.text.len()) >= 4 && phonetic_agree(a, b) {
        best = best.max_by_sim((PHONETIC_SIMILARITY, PairMethod::Phonetic));
    }
    best
}

/// True when `a` and `b` differ by exactly one swap of two adjacent, different letters.
fn one_transposition(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() || a.len() < 3 {
        return false;
    }
    let Some(i) = a.iter().zip(b).position(|(x, y)| x != y) else {
        return false;
    };
    i + 1 < a.len() && a[i] == b[i + 1] && a[i + 1] == b[i] && a[i + 2..] == b[i + 2..]
}

/// True when two words of at least four letters differ only in their first letter (`Dari` /
/// `Lari`), or one is the other without its first letter (`Sama` / `Usama`): a typo there may
/// still be a soft pair.
fn first_letter_typo(a: &str, b: &str) -> bool {
    let rest = |s: &str| {
        let mut chars = s.chars();
        chars.next();
        chars.as_str().to_string()
    };
    let (ra, rb) = (rest(a), rest(b));
    (ra.len() >= 3 && ra == rb) || (a.len() >= 4 && rb == a) || (b.len() >= 4 && ra == b)
}

/// Similarity of a run of tokens written as one token on the other side.
fn joined_similarity(run: &[PreparedToken], single: &PreparedToken) -> (f32, PairMethod) {
    if run.iter().any(|t| t.kind == TokenKind::Initial) || single.kind == TokenKind::Initial {
        return (0.0, PairMethod::Joined);
    }
    if single.text.len() == run.len()
        && run.iter().all(|t| t.kind != TokenKind::Particle)
        && run
            .iter()
            .zip(single.text.bytes())
            .all(|(t, b)| t.text.as_bytes().first() == Some(&b) && t.text.len() >= 2)
    {
        return (ACRONYM_SIMILARITY, PairMethod::Acronym);
    }
    let skeletal = run.iter().any(|t| t.skeleton_script) || single.skeleton_script;
    let first = run.first().and_then(|t| t.text.bytes().next());
    let run_len: usize = run.iter().map(|t| t.text.len()).sum();
    let alike = first == single.text.bytes().next()
        && run_len.abs_diff(single.text.len()) * 3 <= single.text.len();
    if !alike {
        return if skeletal && joined_skeleton_is(run, &single.skeleton) {
            (0.93 * 0.98, PairMethod::Joined)
        } else {
            (0.0, PairMethod::Joined)
        };
    }
    let joined: String = run.iter().map(|t| t.text.as_str()).collect();
    if joined == single.text {
        return (0.98, PairMethod::Joined);
    }
    let mut sim =
        (jaro_winkler(&joined, &single.text) + edit_similarity(&joined, &single.text)) / 2.0;
    if skeletal && joined_skeleton_is(run, &single.skeleton) {
        sim = sim.max(0.93);
    }
    (sim * 0.98, PairMethod::Joined)
}

#[derive(Clone, Copy)]
struct Candidate {
    sim: f32,
    method: PairMethod,
    q: (usize, usize),
    c: (usize, usize),
}

/// Token positions tracked in fixed arrays: names have at most [`MAX_TOKENS`] tokens.
type Used = [bool; MAX_TOKENS];

/// The result of aligning two names, as positions (no strings built).
struct Alignment {
    similarity: f32,
    pairs: Vec<(Candidate, f32)>,
    q_used: Used,
    c_used: Used,
    conflicts: usize,
    patronymic_swap: bool,
    shared_titles: Vec<String>,
}

/// The titles dropped from both names, each once.
fn shared_titles(query: &PreparedName, list: &PreparedName) -> Vec<String> {
    let mut left: Vec<&String> = list.dropped.iter().collect();
    let mut out = Vec::new();
    for title in &query.dropped {
        if let Some(k) = left.iter().position(|t| *t == title) {
            left.swap_remove(k);
            out.push(title.clone());
        }
    }
    out
}

/// True when the consonant skeleton of the run's tokens written as one equals `target`,
/// computed without building the joined string.
fn joined_skeleton_is(run: &[PreparedToken], target: &str) -> bool {
    let target = target.as_bytes();
    let mut k = 0usize;
    let mut last = 0u8;
    for t in run {
        for b in t.text.bytes() {
            let b = match b {
                b'q' => b'k',
                b'v' => b'w',
                b'p' => b'b',
                other => other,
            };
            if matches!(b, b'a' | b'e' | b'i' | b'o' | b'u' | b'y' | b'w') || b == last {
                continue;
            }
            if target.get(k) != Some(&b) {
                return false;
            }
            k += 1;
            last = b;
        }
    }
    k == target.len() && k >= 2
}

fn align(query: &PreparedName, list: &PreparedName) -> Alignment {
    let q = &query.tokens[..query.tokens.len().min(MAX_TOKENS)];
    let c = &list.tokens[..list.tokens.len().min(MAX_TOKENS)];
    let mut candidates: Vec<Candidate> = Vec::with_capacity(q.len() * c.len() + 4);
    let mut soft: Vec<Candidate> = Vec::new();
    let organisation = query.organisation || list.organisation;
    for (i, qt) in q.iter().enumerate() {
        for (j, ct) in c.iter().enumerate() {
            let (sim, method) = token_similarity(qt, ct);
            let cand = Candidate {
                sim,
                method,
                q: (i, 1),
                c: (j, 1),
            };
            if sim >= MIN_TOKEN_SIMILARITY {
                candidates.push(cand);
            } else if sim >= SOFT_MIN_SIMILARITY
                && qt.kind == TokenKind::Word
                && ct.kind == TokenKind::Word
                && (qt.text.as_bytes().first() == ct.text.as_bytes().first()
                    || first_letter_typo(&qt.text, &ct.text))
            {
                soft.push(Candidate {
                    sim: if organisation {
                        sim
                    } else {
                        sim - SOFT_DISCOUNT
                    },
                    method: PairMethod::Soft,
                    ..cand
                });
            }
        }
    }
    for len in 2..=MAX_SPAN {
        for i in 0..q.len().saturating_sub(len - 1) {
            for (j, ct) in c.iter().enumerate() {
                let (sim, method) = joined_similarity(&q[i..i + len], ct);
                if sim >= MIN_TOKEN_SIMILARITY {
                    candidates.push(Candidate {
                        sim,
                        method,
                        q: (i, len),
                        c: (j, 1),
                    });
                }
            }
        }
        for j in 0..c.len().saturating_sub(len - 1) {
            for (i, qt) in q.iter().enumerate() {
                let (sim, method) = joined_similarity(&c[j..j + len], qt);
                if sim >= MIN_TOKEN_SIMILARITY {
                    candidates.push(Candidate {
                        sim,
                        method,
                        q: (i, 1),
                        c: (j, len),
                    });
                }
            }
        }
    }
    let by_similarity = |a: &Candidate, b: &Candidate| {
        b.sim
            .total_cmp(&a.sim)
            .then((a.q.1 + a.c.1).cmp(&(b.q.1 + b.c.1)))
    };
    candidates.sort_by(by_similarity);
    soft.sort_by(by_similarity);
    let mut q_used: Used = [false; MAX_TOKENS];
    let mut c_used: Used = [false; MAX_TOKENS];
    let mut pairs: Vec<(Candidate, f32)> = Vec::with_capacity(q.len().max(c.len()));
    let mut numerator = 0.0f32;
    let mut denominator = 0.0f32;
    let mut substantive = false;
    let mut patronymic_swap = false;
    for cand in candidates.into_iter().chain(soft) {
        let (qi, ql) = cand.q;
        let (cj, cl) = cand.c;
        if q_used[qi..qi + ql].iter().any(|u| *u) || c_used[cj..cj + cl].iter().any(|u| *u) {
            continue;
        }
        // A soft pair only stands for a big typo when both tokens are not repeated elsewhere.
        if cand.method == PairMethod::Soft
            && (q
                .iter()
                .enumerate()
                .any(|(k, t)| k != qi && t.text == q[qi].text)
                || c.iter()
                    .enumerate()
                    .any(|(k, t)| k != cj && t.text == c[cj].text))
        {
            continue;
        }
        if ql == 1 && cl == 1 {
            patronymic_swap |= is_patronymic_swap(q, c, qi, cj);
        }
        q_used[qi..qi + ql].iter_mut().for_each(|u| *u = true);
        c_used[cj..cj + cl].iter_mut().for_each(|u| *u = true);
        let qw: f32 = q[qi..qi + ql].iter().map(|t| t.weight).sum();
        let cw: f32 = c[cj..cj + cl].iter().map(|t| t.weight).sum();
        let weight = (qw + cw) / 2.0;
        numerator += cand.sim * weight;
        denominator += weight;
        substantive |= cand.method != PairMethod::Soft
            && q[qi..qi + ql]
                .iter()
                .chain(&c[cj..cj + cl])
                .any(|t| t.kind == TokenKind::Word);
        pairs.push((cand, weight));
    }
    if organisation {
        let series = leftover_series(q, &q_used)
            .into_iter()
            .zip(leftover_series(c, &c_used));
        for (qi, cj) in series {
            q_used[qi] = true;
            c_used[cj] = true;
            let weight = (q[qi].weight + c[cj].weight) / 2.0;
            numerator += SERIES_SIMILARITY * weight;
            denominator += weight;
            pairs.push((
                Candidate {
                    sim: SERIES_SIMILARITY,
                    method: PairMethod::Series,
                    q: (qi, 1),
                    c: (cj, 1),
                },
                weight,
            ));
        }
    }
    let uq = unmatched(q, &q_used);
    let uc = unmatched(c, &c_used);
    let counting = |u: &[Unmatched]| u.iter().filter(|t| t.counts).count();
    let conflicts = counting(&uq).min(counting(&uc));
    let leading = !organisation && uc.is_empty() && is_leading_part(&pairs, c.len());
    // Two different legal forms left over (`ANO` / `LLC`, `SAS` / `SARL`): two legal entities.
    // Generic words (`Company`, `Corporation`, `Group`) do not name a legal form.
    let legal_forms = |tokens: &[PreparedToken], used: &Used| {
        tokens
            .iter()
            .zip(used)
            .filter(|(t, u)| {
                !**u && t.kind == TokenKind::LegalForm
                    && !GENERIC_LEGAL_WORDS.contains(&t.text.as_str())
            })
            .count()
    };
    let legal_conflicts = legal_forms(q, &q_used).min(legal_forms(c, &c_used));
    denominator += LEGAL_FORM_CONFLICT_CHARGE * legal_conflicts as f32;
    for (k, u) in uq.iter().enumerate() {
        let factor = if u.counts && k < conflicts {
            1.0
        } else if u.region {
            REGION_EXTRA_CHARGE
        } else if organisation {
            EXTRA_ORGANISATION_CHARGE
        } else if leading {
            LEADING_PART_EXTRA_CHARGE
        } else {
            EXTRA_QUERY_CHARGE
        };
        denominator += u.weight * u.charge * factor;
    }
    for (k, u) in uc.iter().enumerate() {
        let factor = if u.counts && k < conflicts {
            1.0
        } else if u.region {
            REGION_EXTRA_CHARGE
        } else if organisation {
            EXTRA_ORGANISATION_CHARGE
        } else if u.edge {
            EXTRA_LIST_EDGE_CHARGE
        } else {
            EXTRA_LIST_INNER_CHARGE
        };
        denominator += u.weight * u.charge * factor;
    }
    // A title both names carry (`Amir`, `Qari`, `Sayed` are also given names) is a shared name
    // part of small weight; never a match on its own.
    let shared_titles = shared_titles(query, list);
    let titles_weight = TITLE_WEIGHT * shared_titles.len() as f32;
    numerator += titles_weight;
    denominator += titles_weight;
    let mut similarity = if substantive && denominator > 0.0 {
        (numerator / denominator).clamp(0.0, 1.0)
    } else {
        0.0
    };
    if patronymic_swap {
        similarity *= PATRONYMIC_SWAP_FACTOR;
    }
    Alignment {
        similarity: round3(similarity),
        pairs,
        q_used,
        c_used,
        conflicts,
        patronymic_swap,
        shared_titles,
    }
}

/// An unaligned token and how it is charged.
struct Unmatched {
    index: usize,
    weight: f32,
    /// 1.0, or [`DUPLICATE_CHARGE`] for a token repeated elsewhere in its name.
    charge: f32,
    /// A word or initial (not a repeat, particle or legal form): may be a conflict.
    counts: bool,
    /// First or last token of its name.
    edge: bool,
    /// A region qualifying an organisation's name.
    region: bool,
}

/// The unaligned tokens, those that may be conflicts first, heaviest first.
fn unmatched(tokens: &[PreparedToken], used: &Used) -> Vec<Unmatched> {
    let last = tokens.len().saturating_sub(1);
    let mut out: Vec<Unmatched> = tokens
        .iter()
        .enumerate()
        .filter(|(k, _)| !used[*k])
        .map(|(k, t)| {
            let duplicate = tokens
                .iter()
                .enumerate()
                .any(|(o, other)| used[o] && other.text == t.text);
            Unmatched {
                index: k,
                weight: t.weight,
                charge: if duplicate { DUPLICATE_CHARGE } else { 1.0 },
                counts: !duplicate
                    && matches!(
                        t.kind,
                        TokenKind::Word | TokenKind::Initial | TokenKind::Region
                    ),
                edge: k == 0 || k == last,
                region: t.kind == TokenKind::Region,
            }
        })
        .collect();
    out.sort_by(|a, b| b.counts.cmp(&a.counts).then(b.weight.total_cmp(&a.weight)));
    out
}

/// True when the listed name, at least two words, is the screened name's start word for word:
/// its tokens aligned in order, each exactly with the screened token at its own position.
fn is_leading_part(pairs: &[(Candidate, f32)], list_len: usize) -> bool {
    list_len >= 2
        && pairs.len() == list_len
        && pairs.iter().all(|(cand, _)| {
            cand.method == PairMethod::Exact
                && cand.q.1 == 1
                && cand.c.1 == 1
                && cand.q.0 == cand.c.0
        })
}

/// The positions of the unaligned numbers of a series (`4`, `2004`, `IV`) after a name's first
/// word, in written order (`V Ships` is not a fifth `Ships`).
fn leftover_series(tokens: &[PreparedToken], used: &Used) -> Vec<usize> {
    tokens
        .iter()
        .zip(used)
        .enumerate()
        .filter(|(k, (t, used))| *k > 0 && !**used && is_series_number(&t.text))
        .map(|(k, _)| k)
        .collect()
}

/// Digits, or a Roman numeral up to 39 (`iv`, `viii`, `xii`).
fn is_series_number(text: &str) -> bool {
    if text.is_empty() {
        return false;
    }
    if text.bytes().all(|b| b.is_ascii_digit()) {
        return true;
    }
    let units = text.trim_start_matches('x');
    text.len() - units.len() <= 3
        && matches!(
            units,
            "" | "i" | "ii" | "iii" | "iv" | "v" | "vi" | "vii" | "viii" | "ix"
        )
}

/// The name similarity of two names, without building an explanation (the fast path used to
/// rank candidates; [`compare_names`] gives the same similarity with the details).
pub fn name_similarity(query: &PreparedName, list: &PreparedName) -> f32 {
    align(query, list).similarity
}

/// Compares a screened name with a listed name; see the module documentation for the model.
pub fn compare_names(query: &PreparedName, list: &PreparedName) -> NameComparison {
    let q = &query.tokens[..query.tokens.len().min(MAX_TOKENS)];
    let c = &list.tokens[..list.tokens.len().min(MAX_TOKENS)];
    let alignment = align(query, list);
    let pairs = alignment
        .pairs
        .iter()
        .map(|(cand, weight)| AlignedPair {
            query: join(&q[cand.q.0..cand.q.0 + cand.q.1]),
            list: join(&c[cand.c.0..cand.c.0 + cand.c.1]),
            similarity: round3(cand.sim),
            method: cand.method,
            weight: round3(*weight),
        })
        .collect();
    let texts = |tokens: &[PreparedToken], used: &Used| -> Vec<String> {
        unmatched(tokens, used)
            .into_iter()
            .filter_map(|u| tokens.get(u.index).map(|t| t.text.clone()))
            .collect()
    };
    NameComparison {
        similarity: alignment.similarity,
        pairs,
        unmatched_query: texts(q, &alignment.q_used),
        unmatched_list: texts(c, &alignment.c_used),
        conflicts: alignment.conflicts,
        patronymic_swap: alignment.patronymic_swap,
        shared_titles: alignment.shared_titles,
    }
}

fn is_patronymic_particle(token: Option<&PreparedToken>) -> bool {
    token.is_some_and(|t| matches!(t.text.as_str(), "bin" | "ibn" | "bint" | "binti" | "ben"))
}

/// True when the aligned tokens `q[i]` and `c[j]` stand only before `bin` on one side and only
/// after it on the other. A name between two `bin` on either side (`Noureddine ben Ali ben
/// Belkassem`) is a link of the same chain of fathers on both, not a swap.
fn is_patronymic_swap(q: &[PreparedToken], c: &[PreparedToken], i: usize, j: usize) -> bool {
    let q_before = is_patronymic_particle(q.get(i + 1));
    let q_after = i > 0 && is_patronymic_particle(q.get(i - 1));
    let c_before = is_patronymic_particle(c.get(j + 1));
    let c_after = j > 0 && is_patronymic_particle(c.get(j - 1));
    (q_before && !q_after && c_after && !c_before) || (q_after && !q_before && c_before && !c_after)
}

fn join(tokens: &[PreparedToken]) -> String {
    tokens
        .iter()
        .map(|t| t.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

fn round3(x: f32) -> f32 {
    (x * 1000.0).round() / 1000.0
}

fn round4(x: f32) -> f32 {
    (x * 10_000.0).round() / 10_000.0
}

/// A score, similarity or log-odds as published: widened to `f64` and rounded to 4
/// decimals, so that JSON shows `0.9907` and never the `f32` widening noise
/// `0.9907000064849854`.
pub fn published(x: f32) -> f64 {
    (f64::from(x) * 10_000.0).round() / 10_000.0
}

/// Serialises an `f32` as [`published`] does.
pub(crate) fn serialize_published<S: serde::Serializer>(
    x: &f32,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(published(*x))
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The log-odds a name similarity gives on its own.
pub fn name_log_odds(similarity: f32) -> f32 {
    NAME_SLOPE * (similarity - NAME_PIVOT) + PIVOT_LOGIT
}

/// The person (or entity) being screened, beyond the name.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    /// Date of birth, when known.
    pub birth_date: Option<BirthDate>,
    /// Nationalities as ISO alpha-2 codes.
    pub nationalities: Vec<String>,
    /// Gender, when known.
    pub gender: Option<Gender>,
}

/// What a factor is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FactorKind {
    /// The name similarity.
    Name,
    /// The role of the matched name (weak aliases count less).
    NameRole,
    /// Date of birth.
    DateOfBirth,
    /// Nationality.
    Nationality,
    /// Gender.
    Gender,
    /// The listed entry records neither a date of birth nor a nationality, so nothing but the
    /// name can ever confirm or refute the match: the name must be stronger.
    NameOnlyEntry,
    /// The screened name is common (many people carry it, by the census frequencies in
    /// [`crate::frequency`]) and the listed entry records nothing else to tell them apart.
    CommonName,
}

/// One factor of a score, for the reviewer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Factor {
    /// What the factor is about.
    pub factor: FactorKind,
    /// What was compared and found, in words.
    pub detail: String,
    /// Its log-odds.
    #[serde(serialize_with = "serialize_published")]
    pub log_odds: f32,
    /// The change of score it caused (the name factor's is the score of the name alone), so
    /// that the contributions add up to the score.
    #[serde(serialize_with = "serialize_published")]
    pub contribution: f32,
}

/// Why a record matched: the aligned tokens and each factor's contribution.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Explanation {
    /// The listed name that matched best.
    pub matched_name: String,
    /// Its role in the record.
    pub name_role: NameRole,
    /// The screened name as normalised.
    pub query_normalized: String,
    /// The listed name as normalised.
    pub list_normalized: String,
    /// The name comparison (pairs, unmatched tokens).
    pub name: NameComparison,
    /// Honorifics and titles ignored on either side.
    pub ignored_titles: Vec<String>,
    /// The factors, name first.
    pub factors: Vec<Factor>,
}

fn dob_log_odds(agreement: DobAgreement) -> f32 {
    match agreement {
        DobAgreement::SameDay => 2.0,
        DobAgreement::DayMonthSwapped => 1.2,
        DobAgreement::SameMonth => 1.4,
        DobAgreement::SameYear => 1.0,
        DobAgreement::WithinRange => 0.6,
        DobAgreement::SameYearOtherDay => -0.3,
        DobAgreement::OneYearApart => -0.8,
        DobAgreement::Different => -3.0,
    }
}

/// Scores one record's best name against the query evidence, building the explanation.
pub fn score_record(
    name: NameComparison,
    query_name: &PreparedName,
    list_name: &PreparedName,
    matched_name: &str,
    role: NameRole,
    evidence: &Evidence,
    record: &Record,
) -> (f32, Explanation) {
    let mut steps: Vec<(FactorKind, String, f32)> = vec![(
        FactorKind::Name,
        format!("name similarity {:.3}", name.similarity),
        name_log_odds(name.similarity),
    )];
    if role == NameRole::WeakAlias {
        steps.push((
            FactorKind::NameRole,
            "matched a weak alias".to_string(),
            -0.8,
        ));
    }
    if record.birth_dates.is_empty() && record.nationalities.is_empty() {
        steps.push((
            FactorKind::NameOnlyEntry,
            "listed entry has no date of birth or nationality: the name alone must carry the match"
                .to_string(),
            NAME_ONLY_ENTRY_LOG_ODDS,
        ));
        if record.kind == EntityKind::Person
            && let Some(common) = NameFrequencies::census().common_name(&query_name.tokens)
            && common.log_odds() < 0.0
        {
            steps.push((FactorKind::CommonName, common.detail(), common.log_odds()));
        }
    }
    if let Some(query_dob) = &evidence.birth_date
        && let Some((agreement, listed)) = best_agreement(query_dob, &record.birth_dates)
    {
        steps.push((
            FactorKind::DateOfBirth,
            format!("{query_dob} vs listed {listed}: {agreement:?}"),
            dob_log_odds(agreement),
        ));
    }
    if !evidence.nationalities.is_empty() && !record.nationalities.is_empty() {
        let shared: Vec<&String> = evidence
            .nationalities
            .iter()
            .filter(|n| record.nationalities.contains(n))
            .collect();
        let (detail, lo) = if shared.is_empty() {
            (
                format!(
                    "{} vs listed {}: different",
                    evidence.nationalities.join(","),
                    record.nationalities.join(",")
                ),
                -1.0,
            )
        } else {
            (format!("shared nationality {}", shared[0]), 0.6)
        };
        steps.push((FactorKind::Nationality, detail, lo));
    }
    if let (Some(q), Some(l)) = (evidence.gender, record.gender) {
        let (detail, lo) = if q == l {
            (format!("{q:?}: same"), 0.1)
        } else {
            (format!("{q:?} vs listed {l:?}: different"), -1.5)
        };
        steps.push((FactorKind::Gender, detail, lo));
    }
    let mut logit = 0.0f32;
    let mut previous = 0.0f32;
    let mut factors = Vec::with_capacity(steps.len());
    for (factor, detail, lo) in steps {
        logit += lo;
        let now = round4(sigmoid(logit));
        factors.push(Factor {
            factor,
            detail,
            log_odds: round3(lo),
            contribution: round4(now - previous),
        });
        previous = now;
    }
    let mut ignored_titles = query_name.dropped.clone();
    ignored_titles.extend(list_name.dropped.iter().cloned());
    let explanation = Explanation {
        matched_name: matched_name.to_string(),
        name_role: role,
        query_normalized: query_name.text(),
        list_normalized: list_name.text(),
        name,
        ignored_titles,
        factors,
    };
    (previous, explanation)
}

/// Name-only score of two names (no other evidence): the score a pair of names gets when
/// nothing else is known. Used for pairwise evaluation.
pub fn name_only_score(similarity: f32) -> f32 {
    round4(sigmoid(name_log_odds(similarity)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::normalize;

    fn prep(name: &str) -> PreparedName {
        prepare_as(name, EntityKind::Person)
    }

    fn prepare_as(name: &str, kind: EntityKind) -> PreparedName {
        let encoder = phonetic_encoder();
        PreparedName::new(&normalize(name, kind)[0], &TokenStats::default(), &encoder)
    }

    fn sim(a: &str, b: &str) -> f32 {
        compare_names(&prep(a), &prep(b)).similarity
    }

    fn compare_organisations(a: &str, b: &str) -> NameComparison {
        let organisation = EntityKind::Organisation;
        compare_names(&prepare_as(a, organisation), &prepare_as(b, organisation))
    }

    #[test]
    fn numbers_of_a_series_pair_but_a_number_on_one_side_is_an_extra_part() {
        let fund = compare_organisations(
            "Blackstone Real Estate Partners IV L.P.",
            "Blackstone Real Estate Partners V L.P.",
        );
        assert!(
            fund.pairs
                .iter()
                .any(|p| p.method == PairMethod::Series && p.query == "iv" && p.list == "v")
        );
        assert_eq!(fund.conflicts, 0);
        assert!(fund.similarity > NAME_PIVOT, "{}", fund.similarity);
        let trust = compare_organisations("Mortgage Trust 2007-1", "Mortgage Trust 2007-2");
        assert!(trust.similarity > NAME_PIVOT, "{}", trust.similarity);
        let not_series = |a: &str, b: &str| {
            let comparison = compare_organisations(a, b);
            comparison
                .pairs
                .iter()
                .all(|p| p.method != PairMethod::Series)
        };
        assert!(not_series(
            "Bowne Global Solutions Denmark",
            "Bowne Global Solutions II Denmark"
        ));
        assert!(not_series("V Ships", "X Ships"));
        let persons = compare_names(&prep("John Smith II"), &prep("John Smith III"));
        assert!(persons.pairs.iter().all(|p| p.method != PairMethod::Series));
        for number in ["2004", "1", "iv", "viii", "xiv", "x"] {
            assert!(is_series_number(number), "{number}");
        }
        for other in ["", "vv", "xxxx", "iiii", "ix1", "ivy"] {
            assert!(!is_series_number(other), "{other}");
        }
    }

    #[test]
    fn a_region_on_one_side_is_a_division_and_two_regions_conflict() {
        let division = compare_organisations("faberlic", "FABERLIC EUROPE Sp. z o.o.");
        assert!(division.similarity > NAME_PIVOT, "{}", division.similarity);
        let two = compare_organisations("Faberlic Europe", "Faberlic Asia");
        assert_eq!(two.conflicts, 1);
        assert!(two.similarity < NAME_PIVOT, "{}", two.similarity);
        // A country's subsidiary is another legal entity; a place after `of` names the bank.
        for (a, b) in [
            ("Banco Santander", "Banco Santander Chile"),
            ("Bank", "Bank of Asia"),
        ] {
            let other = compare_organisations(a, b).similarity;
            assert!(other < NAME_PIVOT, "{a} / {b}: {other}");
        }
    }

    #[test]
    fn a_listed_name_that_starts_the_screened_name_is_an_alias() {
        let alias = sim("UMAR PATEK ABDULLAH ANSHORI", "UMAR PATEK");
        assert!(alias > NAME_PIVOT, "{alias}");
        // The same words elsewhere in the screened name are extra parts, charged as before.
        for fuller in ["UMAR ABDULLAH PATEK ANSHORI", "ABDULLAH ANSHORI UMAR PATEK"] {
            let other = sim(fuller, "UMAR PATEK");
            assert!(other < alias - 0.02, "{fuller}: {other} / {alias}");
        }
        // The other way round is a listed name with extra parts, charged as before.
        assert!(sim("UMAR PATEK", "UMAR PATEK ABDULLAH ANSHORI") < alias);
    }

    #[test]
    fn identical_and_reordered_names_are_equal() {
        assert!((sim("Vladimir Putin", "PUTIN, Vladimir") - 1.0).abs() < 1e-6);
        assert!(sim("Vladimir Putin", "Vladimir Biliy") < 0.6);
    }

    #[test]
    fn initials_and_middle_names() {
        let j = sim("Hans J Friedrich", "Hans Joachim Friedrich");
        let o = sim("Hans O Friedrich", "Hans Joachim Friedrich");
        assert!(j > NAME_PIVOT, "{j}");
        assert!(o < 0.7, "{o}");
        let missing = sim("Vladimir Putin", "Vladimir Vladimirovich Putin");
        assert!(missing > NAME_PIVOT, "{missing}");
    }

    #[test]
    fn joined_particles() {
        assert!(sim("Abdulrahman Ali", "Abd al-Rahman Ali") > NAME_PIVOT);
        assert!(sim("Abdel Rahman Ali", "Abdulrahman Ali") > NAME_PIVOT);
        assert!(sim("Xi Jinping", "习近平") > NAME_PIVOT);
    }

    #[test]
    fn score_is_bounded_and_explained() {
        let q = prep("Ivan Petrov");
        let l = prep("PETROV, Ivan");
        let comparison = compare_names(&q, &l);
        let mut record = Record::new("1", "t", EntityKind::Person);
        record.birth_dates = vec![BirthDate::Year { year: 1970 }];
        record.nationalities = vec!["RU".to_string()];
        let evidence = Evidence {
            birth_date: Some(BirthDate::Year { year: 1970 }),
            nationalities: vec!["RU".to_string()],
            gender: None,
        };
        let (score, explanation) = score_record(
            comparison,
            &q,
            &l,
            "PETROV, Ivan",
            NameRole::Primary,
            &evidence,
            &record,
        );
        assert!(score > 0.95 && score < 1.0, "{score}");
        let total: f32 = explanation.factors.iter().map(|f| f.contribution).sum();
        assert!((total - score).abs() < 1e-3);
        assert_eq!(explanation.factors.len(), 3);
        assert_eq!(explanation.name.pairs.len(), 2);
    }

    /// Every key of a serialised explanation is lowerCamelCase and every number has at
    /// most 4 decimals, also once widened to `f64` (as `serde_json::to_value` does).
    #[test]
    fn explanations_serialise_camel_case_with_four_decimals() {
        fn check(value: &serde_json::Value, path: &str) {
            match value {
                serde_json::Value::Object(map) => {
                    for (key, inner) in map {
                        assert!(
                            key.chars().all(|c| c.is_ascii_alphanumeric())
                                && key.starts_with(|c: char| c.is_ascii_lowercase()),
                            "{path}.{key} is not lowerCamelCase"
                        );
                        check(inner, &format!("{path}.{key}"));
                    }
                }
                serde_json::Value::Array(items) => {
                    for (i, inner) in items.iter().enumerate() {
                        check(inner, &format!("{path}[{i}]"));
                    }
                }
                serde_json::Value::Number(n) => {
                    let text = n.to_string();
                    let decimals = text.split_once('.').map_or(0, |(_, d)| d.len());
                    assert!(decimals <= 4, "{path} = {text}");
                }
                _ => {}
            }
        }
        let q = prep("Dr. Ivan Sergeyevich Petrov");
        let l = prep("PETROV, Ivan Sergeevich");
        let comparison = compare_names(&q, &l);
        let mut record = Record::new("1", "t", EntityKind::Person);
        record.birth_dates = vec![BirthDate::Year { year: 1970 }];
        let evidence = Evidence {
            birth_date: Some(BirthDate::Year { year: 1970 }),
            ..Evidence::default()
        };
        let (_, explanation) = score_record(
            comparison,
            &q,
            &l,
            "PETROV, Ivan Sergeevich",
            NameRole::Primary,
            &evidence,
            &record,
        );
        let value = serde_json::to_value(&explanation).unwrap();
        for key in ["matchedName", "nameRole", "listNormalized", "ignoredTitles"] {
            assert!(value.get(key).is_some(), "{key} missing from {value}");
        }
        assert!(value["factors"][0].get("logOdds").is_some(), "{value}");
        check(&value, "explanation");
        let text = serde_json::to_string(&explanation).unwrap();
        check(&serde_json::from_str(&text).unwrap(), "explanation");
    }

    #[test]
    fn romanisation_keys_agree_across_systems() {
        for (a, b) in [
            ("djabbar", "jabbar"),
            ("lakhal", "lahal"),
            ("shah", "chah"),
            ("noor", "nur"),
            ("kyu", "kiu"),
            ("walijan", "walidjan"),
            ("sheikh", "cheikh"),
        ] {
            assert_eq!(romanisation_key(a), romanisation_key(b), "{a} {b}");
        }
        assert_ne!(romanisation_key("omar"), romanisation_key("amir"));
    }

    #[test]
    fn a_chain_of_fathers_is_not_a_patronymic_swap() {
        // `Ali` stands between two `ben` on both sides: the same link of the same chain.
        let chain = compare_names(
            &prep("Noureddine Ben Ali Ben Belkassem"),
            &prep("Noureddine Ben Ali Ben Belkassem Drissi"),
        );
        assert!(!chain.patronymic_swap);
        assert!(chain.similarity > NAME_PIVOT, "{}", chain.similarity);
        // Son and father swapped around one `bin` still is.
        let swap = compare_names(&prep("Salman bin Muhammad"), &prep("Muhammad bin Salman"));
        assert!(swap.patronymic_swap);
    }

    #[test]
    fn a_common_name_against_an_entry_with_nothing_else_is_penalised() {
        let score = |query: &str, with_birth_date: bool| {
            let q = prep(query);
            let l = prep(query);
            let mut record = Record::new("1", "t", EntityKind::Person);
            if with_birth_date {
                record.birth_dates = vec![BirthDate::Year { year: 1970 }];
            }
            score_record(
                compare_names(&q, &l),
                &q,
                &l,
                query,
                NameRole::Primary,
                &Evidence::default(),
                &record,
            )
        };
        let (common, explanation) = score("Robert Anderson", false);
        let factor = explanation
            .factors
            .iter()
            .find(|f| f.factor == FactorKind::CommonName)
            .expect("a common-name factor");
        assert!(factor.detail.contains("robert"), "{}", factor.detail);
        assert!(factor.log_odds < -0.9, "{}", factor.log_odds);
        let (rare, explanation) = score("Ayman Zawahiri", false);
        assert!(
            !explanation
                .factors
                .iter()
                .any(|f| f.factor == FactorKind::CommonName)
        );
        assert!(common < rare, "{common} {rare}");
        assert!(common < DEFAULT_THRESHOLD, "{common}");
        // An entry with a date of birth can be told apart: no common-name factor.
        let (_, explanation) = score("Robert Anderson", true);
        assert!(
            !explanation
                .factors
                .iter()
                .any(|f| f.factor == FactorKind::CommonName)
        );
    }

    #[test]
    fn a_title_both_names_carry_counts_a_little() {
        let shared = compare_names(&prep("Amir Motaqi"), &prep("Amir Khan Motaqi"));
        assert_eq!(shared.shared_titles, vec!["amir".to_string()]);
        let alone = compare_names(&prep("Zabi Motaqi"), &prep("Amir Khan Motaqi"));
        assert!(alone.shared_titles.is_empty());
        let without = compare_names(&prep("Motaqi"), &prep("Khan Motaqi"));
        assert!(
            shared.similarity > without.similarity + 0.03,
            "{shared:?} {without:?}"
        );
        // A title alone is no match.
        assert_eq!(sim("Amir Khan", "Amir Rahimi"), 0.0);
    }

    #[test]
    fn soft_pairs_and_conflicts() {
        // A big typo with the same first letter is a soft pair, not a conflict ...
        let typo = compare_names(&prep("Angela Merkur"), &prep("Angela Merkel"));
        assert!(typo.pairs.iter().any(|p| p.method == PairMethod::Soft));
        assert_eq!(typo.conflicts, 0);
        // ... another first letter is a conflict.
        let other = compare_names(&prep("Angela Derkur"), &prep("Angela Merkel"));
        assert_eq!(other.conflicts, 1);
        // ... unless the rest of the word is the same: a typo in the first letter.
        let first = compare_names(&prep("Harith Salman Lari"), &prep("Harith Salman Dari"));
        assert!(first.pairs.iter().any(|p| p.method == PairMethod::Soft));
        assert_eq!(first.conflicts, 0);
        assert!(first_letter_typo("sama", "usama") && first_letter_typo("usama", "sama"));
        assert!(!first_letter_typo("ali", "bali") && !first_letter_typo("omar", "amir"));
    }

    #[test]
    fn one_swap_of_adjacent_letters_pairs_short_tokens() {
        assert!(one_transposition("jin", "jni"));
        assert!(!one_transposition("jin", "jin") && !one_transposition("jin", "nij"));
        assert!(!one_transposition("abcd", "badc"));
        let typo = compare_names(&prep("Yun Ho Jni"), &prep("Yun Ho Jin"));
        assert_eq!(typo.conflicts, 0);
        assert!(typo.similarity > NAME_PIVOT, "{}", typo.similarity);
    }
}
