//! Alerts and alert types: what an analyst should look at, raised by API callers and
//! by jobs, each of a kind (its alert type) with a default severity.

pub mod fields;
pub mod model;
pub mod ports;
pub mod service;

pub use model::{Alert, AlertState, AlertType, Disposition, NewAlert, ResolveRequest, Severity};
pub use ports::{AlertRepository, AlertTypeRepository};
pub use service::{AlertService, DefaultAlertTypes};

#[cfg(test)]
mod service_tests;
