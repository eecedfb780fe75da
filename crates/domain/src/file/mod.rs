//! Files: what people submit (scans, selfies, statements), held under an entity.
//! Metadata are rows; the bytes sit behind the [`content::FileStore`] port, checked as
//! they stream in ([`inspect`]).

pub mod content;
pub mod fields;
pub mod inspect;
pub mod model;
pub mod ports;
pub mod service;
pub mod sniff;
pub mod sweep;

pub use model::{File, FileParent};
pub use ports::{ContentRemovals, FileRepository};
pub use service::{FilePorts, FileService};

#[cfg(test)]
mod inspect_tests;
#[cfg(test)]
mod service_tests;
