//! Jobs: work about an entity that is created, then run with `:run`, which returns a
//! long-running operation clients poll. One machinery serves every job family: the
//! [`JobService`] stores jobs and queues their runs, the [`JobRunner`] claims queued
//! runs with a lease, executes them outside any transaction with the family's
//! [`JobKind`], retries failures with exponential backoff, and completes each run once.
//! A family is declared once as a [`JobFamily`]: typed inputs and results, and the work
//! a run does, which records its results through the [`RunRecords`] port. The runner
//! hands each run records that are written with the run's end, in the transaction that
//! ends it, so an attempt leaves all it recorded or nothing.

pub mod dismissals;
pub mod id_verification;
pub mod kind;
pub mod match_review;
pub mod model;
pub mod onboarding;
pub mod pep_sanction;
pub mod ports;
pub mod records;
pub mod risk_rating;
pub mod runner;
pub mod service;

pub use kind::{JobFamily, JobKind};
pub use model::{ClaimedTask, JobRecord, JobState};
pub use ports::JobRepository;
pub use records::{RecordPreparer, RunRecords};
pub use runner::{AttemptOutcome, FinishedAttempt, JobRunner, RunReport, RunnerSettings};
pub use service::{JobPorts, JobService};

#[cfg(test)]
mod family_tests;
#[cfg(test)]
mod runner_tests;
#[cfg(test)]
mod service_tests;
