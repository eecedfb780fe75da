//! Identity documents: passports, licences, cards and certificates of an entity, with
//! what is printed on them, kept for verification.

pub mod fields;
pub mod model;
pub mod number;
pub mod ports;
pub mod service;
pub mod verification;

pub use model::{Document, DocumentType};
pub use ports::DocumentRepository;
pub use service::{DocumentHolder, DocumentService};

#[cfg(test)]
mod service_tests;
