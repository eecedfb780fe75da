//! Forms: responses to form definitions, filled in as drafts, submitted whole and
//! checked against the definition's response schema, or expired.

pub mod fields;
pub mod model;
pub mod ports;
pub mod service;

pub use model::{Form, FormState, NewForm};
pub use ports::{FormRecords, FormRepository};
pub use service::FormService;

#[cfg(test)]
mod service_tests;
