//! Diesel adapter of rics over PostgreSQL and SQLite: one code path through a
//! `MultiConnection`, embedded migrations, repositories, and AIP-160 filters compiled
//! to bound SQL.

pub mod activity_log_types;
pub mod activity_logs;
pub mod alerts;
pub mod connection;
pub mod database;
pub mod documents;
pub mod entities;
mod erasure;
pub mod error;
pub mod events;
pub mod file_contents;
pub mod files;
pub mod filter;
pub mod form_definitions;
pub mod forms;
pub mod idempotency;
pub mod identity;
pub mod jobs;
pub mod keys;
mod locks;
pub mod migrations;
pub mod notes;
pub mod object_files;
pub mod operations;
pub mod paging;
mod purge;
pub mod risk_models;
mod rows;
pub mod schema;
pub mod secrets;
mod side_rows;
pub mod sql;
pub mod store;
pub mod tenants;
#[cfg(feature = "testing")]
pub mod testing;
pub mod workspaces;

pub use activity_log_types::DieselActivityLogTypeRepository;
pub use activity_logs::DieselActivityLogRepository;
pub use alerts::DieselAlertRepository;
pub use connection::{Backend, DatabaseUrl, DbConnection, PoolOptions};
pub use database::Database;
pub use documents::DieselDocumentRepository;
pub use entities::DieselEntityRepository;
pub use error::StorageError;
pub use events::DieselEventRepository;
pub use file_contents::DatabaseFileStore;
pub use files::DieselFileRepository;
pub use form_definitions::DieselFormDefinitionRepository;
pub use forms::DieselFormRepository;
pub use idempotency::DieselIdempotencyKeys;
pub use identity::DieselIdentityRepository;
pub use jobs::DieselJobRepository;
pub use keys::DieselKeyRepository;
pub use notes::DieselNoteRepository;
pub use object_files::ObjectFileStore;
pub use operations::DieselOperationRepository;
pub use risk_models::DieselRiskModelRepository;
pub use tenants::DieselTenantRepository;
pub use workspaces::DieselWorkspaceRepository;
