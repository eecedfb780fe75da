//! Automations: multi-step processes kept as data (run a job, request a form and wait,
//! update an entity from a form, branch, raise an alert, tag, log, wait), checked when
//! stored and versioned by revision, so that an execution keeps the definition it
//! started with.

pub mod effects;
pub mod engine;
pub mod execution;
pub mod execution_service;
pub mod fields;
pub mod model;
pub mod ports;
pub mod rules;
pub mod seed;
pub mod service;

pub use model::{Automation, AutomationStep, StepKind};
pub use ports::{AutomationRepository, AutomationRevisions};
pub use seed::DefaultAutomations;
pub use service::AutomationService;

#[cfg(test)]
mod engine_tests;
#[cfg(test)]
mod service_tests;
