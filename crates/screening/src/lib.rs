//! Sanctions and PEP screening for rics: list loaders, name normalisation, an explainable
//! matcher and an in-memory index that can be swapped atomically while screens run.
//!
//! This crate is pure: no database, no network, no async. The screening job and the
//! `rics screen` command call it. See `docs/screening.md` for the scoring model.

pub mod country;
pub mod date;
pub mod error;
pub mod load;
pub mod model;

pub use date::{BirthDate, DateError, DobAgreement};
pub use error::{BatchError, LoadError};
pub use load::{ListFormat, ListVersion, LoadReport, LoadedList, load_path, load_path_as};
pub use model::{EntityKind, Gender, Name, NameRole, Record, Topic};
