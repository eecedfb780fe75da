//! Activity log types and activity logs: the record of what was done about entities
//! (screenings, document checks, reports, ...), each log about one or more entities of
//! the tenant, its payload checked against its type's JSON Schema.

pub mod fields;
pub mod log_service;
pub mod model;
pub mod payload_schema;
pub mod ports;
pub mod type_service;

pub use log_service::{ActivityLogPorts, ActivityLogService};
pub use model::{ActivityLog, ActivityLogType, ActivityType};
pub use type_service::ActivityLogTypeService;

#[cfg(test)]
mod log_service_tests;
#[cfg(test)]
mod type_service_tests;
