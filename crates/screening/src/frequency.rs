//! How common a person's name is in a population, for the common-name factor: an exact match
//! of a very common name (`Robert Anderson`) against a listed entry that records no date of
//! birth or nationality says little, because many people carry that name.
//!
//! The frequencies are the 1990 US Census surname and given-name tables (public domain),
//! copied into `data/names/` with their provenance (`data/README.md`) and compiled in. They
//! are never taken from the screened people. A name's share of the population is estimated as
//! the share of its most common surname reading times the given-name shares of its other
//! words (independence of given name and surname); a word in neither table makes the name
//! rare (no estimate), so the factor only ever lowers a score for names the tables know.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::matcher::PreparedToken;
use crate::normalize::TokenKind;

const SURNAMES: &str = include_str!("../../../data/names/census_1990_surnames.csv");
const GIVEN_NAMES: &str = include_str!("../../../data/names/census_1990_given_names.csv");

/// Namesakes per million people from which a name counts as common.
const COMMON_PER_MILLION: f64 = 1.0;
/// Log-odds per factor of ten of namesakes above [`COMMON_PER_MILLION`].
const LOG_ODDS_PER_DECADE: f64 = 0.6;
/// The most the common-name factor takes away, in log-odds.
const MAX_PENALTY: f64 = 1.5;

/// Population shares of surnames and given names.
#[derive(Debug, Default)]
pub struct NameFrequencies {
    surnames: HashMap<String, f64>,
    given: HashMap<String, f64>,
}

/// How common a name is, for the explanation.
#[derive(Debug, Clone, PartialEq)]
pub struct CommonName {
    /// The word read as the surname and its share of people, in percent.
    pub surname: (String, f64),
    /// The other words read as given names and their shares, in percent.
    pub given: Vec<(String, f64)>,
    /// Estimated people per million carrying the whole name.
    pub per_million: f64,
}

impl CommonName {
    /// The log-odds of the common-name factor (zero or negative).
    pub fn log_odds(&self) -> f32 {
        if self.per_million <= COMMON_PER_MILLION {
            return 0.0;
        }
        let penalty = (LOG_ODDS_PER_DECADE * (self.per_million / COMMON_PER_MILLION).log10())
            .min(MAX_PENALTY);
        -(penalty as f32)
    }

    /// The factor's detail for the reviewer.
    pub fn detail(&self) -> String {
        let given: Vec<String> = self
            .given
            .iter()
            .map(|(name, share)| format!("given name {name} {share:.3} %"))
            .collect();
        format!(
            "common name (1990 US Census): {}, surname {} {:.3} %: about {:.0} people in a million carry it",
            given.join(", "),
            self.surname.0,
            self.surname.1,
            self.per_million
        )
    }
}

fn parse(table: &str) -> HashMap<String, f64> {
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let (name, percent) = line.split_once(',')?;
            Some((name.to_string(), percent.trim().parse().ok()?))
        })
        .collect()
}

impl NameFrequencies {
    /// The compiled-in census tables, parsed once.
    pub fn census() -> &'static Self {
        static TABLES: OnceLock<NameFrequencies> = OnceLock::new();
        TABLES.get_or_init(|| Self {
            surnames: parse(SURNAMES),
            given: parse(GIVEN_NAMES),
        })
    }

    /// How common the name made of these tokens is, or `None` when it has fewer than two
    /// words or a word the tables do not know (a rare name).
    pub fn common_name(&self, tokens: &[PreparedToken]) -> Option<CommonName> {
        let words: Vec<&str> = tokens
            .iter()
            .filter(|t| t.kind == TokenKind::Word)
            .map(|t| t.text.as_str())
            .collect();
        if words.len() < 2 {
            return None;
        }
        let mut best: Option<CommonName> = None;
        for (i, surname) in words.iter().enumerate() {
            let Some(&surname_share) = self.surnames.get(*surname) else {
                continue;
            };
            let given: Option<Vec<(String, f64)>> = words
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, w)| self.given.get(*w).map(|share| ((*w).to_string(), *share)))
                .collect();
            let Some(given) = given else {
                continue;
            };
            let share = given
                .iter()
                .fold(surname_share / 100.0, |acc, (_, s)| acc * s / 100.0);
            let candidate = CommonName {
                surname: ((*surname).to_string(), surname_share),
                given,
                per_million: share * 1e6,
            };
            if best
                .as_ref()
                .is_none_or(|b| candidate.per_million > b.per_million)
            {
                best = Some(candidate);
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matcher::{PreparedName, TokenStats, phonetic_encoder};
    use crate::model::EntityKind;
    use crate::normalize::normalize;

    fn common(name: &str) -> Option<CommonName> {
        let prepared = PreparedName::new(
            &normalize(name, EntityKind::Person)[0],
            &TokenStats::default(),
            &phonetic_encoder(),
        );
        NameFrequencies::census().common_name(&prepared.tokens)
    }

    #[test]
    fn common_names_are_penalised_by_their_frequency() {
        let robert = common("Robert Anderson").unwrap();
        assert_eq!(robert.surname.0, "anderson");
        // 1.58 % of people are called Robert, 0.311 % Anderson: about 49 in a million.
        assert!((robert.per_million - 49.0).abs() < 1.0, "{robert:?}");
        assert!(robert.log_odds() < -0.9, "{}", robert.log_odds());
        assert!(
            robert.detail().contains("anderson 0.311 %"),
            "{}",
            robert.detail()
        );
        // Order does not matter: `ANDERSON, Robert` is the same name.
        assert_eq!(common("ANDERSON, Robert"), Some(robert));
        // Commoner names are penalised more, up to the cap.
        let john = common("John Smith").unwrap();
        assert!(john.log_odds() <= common("Robert Anderson").unwrap().log_odds());
        assert!(john.log_odds() >= -1.5);
    }

    #[test]
    fn rare_or_unknown_names_are_not_penalised() {
        assert_eq!(common("Ayman al-Zawahiri"), None);
        assert_eq!(common("Anderson"), None);
        let middle = common("Robert Xavier Quincy Anderson");
        assert!(
            middle.as_ref().is_none_or(|m| m.log_odds() == 0.0),
            "{middle:?}"
        );
    }
}
