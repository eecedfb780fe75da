//! Fuzzy text search by trigrams, identical on every storage backend.
//!
//! Text is folded (transliterated to ASCII, lower case, anything but letters and digits
//! becomes a word break), then each word `w` contributes the trigrams of `"  w "`, as
//! PostgreSQL's pg_trgm does. A stored text matches a query when it contains at least
//! [`MATCH_RATIO`] of the query's trigrams; matches rank by the Jaccard similarity of the
//! two trigram sets. So `jon smith` finds `John Smith` (8 of 10 trigrams) and
//! `custmer interaction` finds `Customer Interaction` (18 of 20).

use std::collections::BTreeSet;

/// The share of the query's trigrams a text must contain to match.
pub const MATCH_RATIO: f64 = 0.5;

/// Scale of [`similarity_per_million`]: similarities are integers so that every
/// backend computes and compares them exactly.
pub const SIMILARITY_SCALE: i64 = 1_000_000;

/// The distinct trigrams of `text`.
pub fn trigrams(text: &str) -> BTreeSet<String> {
    let folded = deunicode::deunicode(text).to_ascii_lowercase();
    let mut set = BTreeSet::new();
    for word in folded
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let padded: Vec<char> = format!("  {word} ").chars().collect();
        for window in padded.windows(3) {
            set.insert(window.iter().collect());
        }
    }
    set
}

/// How many of a query's `query_count` trigrams a text must contain to match.
pub fn required_hits(query_count: usize) -> i64 {
    let needed = (query_count as f64 * MATCH_RATIO).ceil();
    // A query has at most a few hundred trigrams (filters are length-limited).
    (needed as i64).max(1)
}

/// Jaccard similarity of two trigram sets sharing `hits` trigrams, in millionths.
pub fn similarity_per_million(hits: i64, query_count: i64, text_count: i64) -> i64 {
    let union = query_count + text_count - hits;
    if union <= 0 {
        0
    } else {
        hits * SIMILARITY_SCALE / union
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(query: &str, text: &str) -> (usize, usize) {
        let q = trigrams(query);
        let t = trigrams(text);
        (q.intersection(&t).count(), q.len())
    }

    fn matches(query: &str, text: &str) -> bool {
        let (h, q) = hits(query, text);
        h as i64 >= required_hits(q)
    }

    #[test]
    fn trigrams_follow_pg_trgm() {
        let expected: BTreeSet<String> = ["  j", " jo", "jon", "on "]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(trigrams("Jon"), expected);
    }

    #[test]
    fn accents_case_and_punctuation_are_folded() {
        assert_eq!(trigrams("José-María"), trigrams("jose maria"));
    }

    #[test]
    fn typos_still_match() {
        assert!(matches("jon smith", "John Smith"));
        assert!(matches("custmer interaction", "Customer Interaction"));
        assert!(matches("kyc reveiw", "KYC Review"));
        assert!(!matches("jane doe", "John Smith"));
    }

    #[test]
    fn similarity_ranks_closer_texts_higher() {
        let q = trigrams("john smith");
        let score = |text: &str| {
            let t = trigrams(text);
            similarity_per_million(
                q.intersection(&t).count() as i64,
                q.len() as i64,
                t.len() as i64,
            )
        };
        assert_eq!(score("John Smith"), SIMILARITY_SCALE);
        assert!(score("John Smith") > score("John Smithers"));
        assert!(score("John Smithers") > score("Jane Smith-Jones"));
    }
}
