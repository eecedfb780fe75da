//! Comparing two person names outside any list, as identity checks do (the name on a
//! document against the name of the person it is about): the same normalisation,
//! transliteration and order-tolerant token alignment as screening, with every word
//! weighted alike (there is no list to say which words are rare).

use crate::matcher::{PreparedName, TokenStats, name_similarity, phonetic_encoder};
use crate::model::EntityKind;
use crate::normalize::normalize;

/// The similarity (0 to 1) of two person names: the best over the variants of each
/// (Hangul romanisations, Greek stems). Empty names are 0.
pub fn person_name_similarity(a: &str, b: &str) -> f32 {
    let stats = TokenStats::default();
    let encoder = phonetic_encoder();
    let prepare = |text: &str| -> Vec<PreparedName> {
        normalize(text, EntityKind::Person)
            .iter()
            .filter(|name| !name.is_empty())
            .map(|name| PreparedName::new(name, &stats, &encoder))
            .collect()
    };
    let (left, right) = (prepare(a), prepare(b));
    left.iter()
        .flat_map(|l| right.iter().map(move |r| name_similarity(l, r)))
        .fold(0.0, f32::max)
}

#[cfg(test)]
mod tests {
    use super::person_name_similarity;

    #[test]
    fn order_case_and_script_do_not_matter() {
        assert!(person_name_similarity("Anna Maria Eriksson", "ERIKSSON ANNA MARIA") > 0.95);
        assert!(person_name_similarity("Eriksson, Anna", "anna eriksson") > 0.95);
        assert!(person_name_similarity("Владимир Путин", "Vladimir Putin") > 0.85);
        assert!(person_name_similarity("Jose Muñoz", "JOSE MUNOZ") > 0.95);
    }

    #[test]
    fn different_people_score_low() {
        assert!(person_name_similarity("Anna Eriksson", "John Smith") < 0.5);
        assert_eq!(person_name_similarity("", "John Smith"), 0.0);
    }
}
