//! The dated list snapshots bundled in the repository's `data/lists` folder, for tests,
//! benchmarks, the evaluation and first runs. They are fixtures, not current lists: operators
//! load current lists with `rics lists load`.

use std::path::{Path, PathBuf};

use crate::error::LoadError;
use crate::load::{LoadedList, load_path, load_paths};

/// The newest bundled snapshot of each list, relative to `data/lists`: five sanctions lists
/// and one PEP list (`us_congress_pep`).
pub const BUNDLED_LISTS: &[&str] = &[
    "ofac_sdn_2024-05/sdn.csv",
    "ofac_consolidated_2025-12/cons_prim.csv",
    "un_2026-02/UN_consolidated.xml",
    "uk_2025-08/uk_sanctions_list_2025-08-11.csv",
    "us_csl_2023-11/csl.csv",
    "us_congress_2026-06/us_congress_pep.jsonl",
];

/// The bundled PEP list, relative to `data/lists`.
pub const BUNDLED_PEP: &str = "us_congress_2026-06/us_congress_pep.jsonl";

/// The bundled UN list, relative to `data/lists`.
pub const BUNDLED_UN: &str = "un_2026-02/UN_consolidated.xml";

/// The repository's `data` folder as seen from this crate's sources.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data")
}

/// Loads every list of [`BUNDLED_LISTS`] from `data_dir/lists`.
pub fn load_bundled(data_dir: &Path) -> Result<Vec<LoadedList>, LoadError> {
    BUNDLED_LISTS
        .iter()
        .map(|rel| load_path(&data_dir.join("lists").join(rel), None))
        .collect()
}

/// Loads the configured list files and folders, or with none the bundled lists of
/// [`data_dir`]: the default of `rics serve`, `rics lists load` and `rics screen` alike.
pub fn load_configured(paths: &[PathBuf]) -> Result<Vec<LoadedList>, LoadError> {
    if paths.is_empty() {
        load_bundled(&data_dir())
    } else {
        load_paths(paths)
    }
}
