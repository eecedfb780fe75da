//! What the matching tests share: the threshold, the index of the bundled UN list
//! (built once per process) and name-only scores against it.

use std::sync::OnceLock;

use rics_screening::bundled::{BUNDLED_UN, data_dir};
use rics_screening::matcher::name_only_score;
use rics_screening::{EntityKind, Index, load_path};

/// The score from which a candidate is a match.
pub const T: f32 = rics_screening::DEFAULT_THRESHOLD;

/// The index of the bundled UN list.
pub fn un_index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let un = load_path(&data_dir().join("lists").join(BUNDLED_UN), None).expect("UN loads");
        Index::build(vec![un])
    })
}

/// The name-only score of `a` against `b` as names of `kind`.
pub fn score_as(a: &str, b: &str, kind: EntityKind) -> f32 {
    name_only_score(un_index().compare(a, b, kind).map_or(0.0, |c| c.similarity))
}

/// The name-only score of `a` against `b` as names of people.
pub fn score(a: &str, b: &str) -> f32 {
    score_as(a, b, EntityKind::Person)
}
