//! Entities: the people and organisations under assessment.

pub mod erasure;
pub mod fields;
pub mod model;
pub mod output;
pub mod references;
pub mod relationship;
pub mod repository;
pub mod service;
pub mod validate;

pub use model::Entity;
pub use service::{EntityService, ErasureReceipt};

#[cfg(test)]
mod service_tests;
