//! Sanctions and PEP screening for rics: list loaders, name normalisation, an explainable
//! matcher and an in-memory index that can be swapped atomically while screens run.
//!
//! This crate is pure: no database, no network, no async. The screening job and the
//! `rics screen` command call it. See `docs/screening.md` for the scoring model.

pub mod batch;
pub mod bundled;
pub mod compare;
pub mod country;
pub mod date;
pub mod error;
pub mod frequency;
pub mod fuzzing;
pub mod index;
pub mod load;
pub mod matcher;
pub mod model;
pub mod normalize;
pub mod similarity;

pub use batch::{BatchSummary, InputFormat, PersonResult, screen_batch};
pub use compare::person_name_similarity;
pub use date::{BirthDate, DateError, DobAgreement};
pub use error::{BatchError, LoadError};
pub use index::{Index, Match, Query, ScreenOptions, ScreenResult, SharedIndex};
pub use load::{
    ListFormat, ListVersion, LoadReport, LoadedList, list_files, load_path, load_path_as,
    load_paths,
};
pub use matcher::{DEFAULT_THRESHOLD, Evidence, Explanation, Factor, FactorKind, published};
pub use model::{EntityKind, Gender, Name, NameRole, Record, Topic};
