//! Form definitions: the steps of typed fields a form asks for, the JSON Schema of a
//! valid response derived from them, and their revisions.

pub mod fields;
pub mod model;
pub mod ports;
pub mod response_schema;
pub mod rules;
pub mod seed;
pub mod service;

pub use model::{FieldType, FormDefinition, FormField, FormSchema, FormStep};
pub use ports::{FormDefinitionRepository, FormRevisions};
pub use seed::DefaultFormDefinitions;
pub use service::FormDefinitionService;

#[cfg(test)]
pub(crate) mod service_tests;
