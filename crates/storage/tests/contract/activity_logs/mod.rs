//! The activity log type and activity log repository contract suite: every test runs
//! once on SQLite (a temporary file) and once on PostgreSQL (a fresh schema), as
//! `<test>::sqlite` and `<test>::postgres`, in parallel. PostgreSQL comes from
//! `RICS_TEST_DATABASE_URL`.

mod erase;
mod logs;
mod support;
mod types;
