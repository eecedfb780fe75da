//! The contract suite of the entity repository and the records that hang off
//! entities (notes, workspaces, alerts, documents): every test runs once on SQLite (a
//! temporary file) and once on PostgreSQL (a fresh schema), as `<test>::sqlite` and
//! `<test>::postgres`, in parallel. PostgreSQL comes from `RICS_TEST_DATABASE_URL`.

#![cfg(test)]

/// Generates the tests `$name::sqlite` and `$name::postgres`, each running the async
/// function `$name(backend)` of the enclosing module on its backend.
macro_rules! contract {
    ($($name:ident),+ $(,)?) => {$(
        mod $name {
            #[tokio::test]
            async fn sqlite() {
                super::$name(rics_storage::Backend::Sqlite).await;
            }

            #[tokio::test]
            async fn postgres() {
                super::$name(rics_storage::Backend::Postgres).await;
            }
        }
    )+};
}

mod alerts;
mod bridge;
mod crud;
mod documents;
mod erase;
mod events;
mod filters;
mod idempotency;
mod jobs;
mod notes;
mod pagination;
mod relationships;
mod risk_models;
mod support;
mod workspaces;
