//! Tenants: isolated sets of data. A partner tenant creates child tenants.

pub mod admission;
pub mod model;
pub mod ports;
pub mod service;

pub use admission::TenantAdmission;
pub use model::{Tenant, TenantState, TenantType};
pub use service::TenantService;

#[cfg(test)]
mod service_tests;
