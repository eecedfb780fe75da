//! The contract suite of the entity repository and the records that hang off
//! entities (notes, workspaces, alerts, documents): every test runs once on SQLite (a
//! temporary file) and once on PostgreSQL (a fresh schema), as `<test>::sqlite` and
//! `<test>::postgres`, in parallel. PostgreSQL comes from `RICS_TEST_DATABASE_URL`.

mod alerts;
mod automations;
mod bridge;
mod crud;
mod dismissals;
mod documents;
mod erase;
mod events;
mod files;
mod filters;
mod forms;
mod idempotency;
mod jobs;
mod list_versions;
mod notes;
mod pagination;
mod relationships;
mod risk_models;
mod support;
mod webhook_deliveries;
mod webhook_endpoints;
mod workspaces;
