//! Risk rating: per-tenant, versioned risk models held as data, the pure rating of an
//! evaluation input by a model, and the recording of an entity's rating.

pub mod default_model;
pub mod evaluation;
pub mod model;
pub mod ports;
pub mod rating;
pub mod service;

pub use evaluation::{Evaluated, RatingRun, RiskEvaluator, RiskEvaluatorPorts};
pub use model::RiskModel;
pub use service::RiskModelService;

#[cfg(test)]
mod tests;
