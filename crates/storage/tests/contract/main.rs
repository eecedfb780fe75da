//! The storage tests, in one test binary (one link instead of one per suite): the
//! repository contract suites, each test once on SQLite (a temporary file) and once on
//! PostgreSQL (a fresh schema from `RICS_TEST_DATABASE_URL`), the migrations, and the
//! test harness itself. `cargo test -p rics-storage --test contract MODULE::` runs one
//! suite.

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

mod activity_logs;
mod entity_repository;
mod file_content;
mod identity;
mod migrations;
mod smoke;
mod support;
