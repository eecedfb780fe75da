//! The black-box tests of rics over real HTTP, one module per area, in one test binary:
//! each test binary links the whole application, so one binary instead of one per
//! area builds and links the suite once. `cargo test -p rics-e2e --test api MODULE`
//! runs one area (for example `generated_client`).

// Compiled as tests only, so that clippy's allow-unwrap-in-tests covers the helpers too.
#![cfg(test)]

mod activity_logs;
mod alerts;
mod automations;
mod bad_input;
mod concurrency;
mod documents;
mod entities;
mod events;
mod files;
mod form_definitions;
mod forms;
mod generated_client;
mod hosted;
mod hosted_browser;
mod hosted_capture;
mod id_verification;
mod lists;
mod monitoring;
mod notes;
mod oauth;
mod onboarding;
mod risk_rating;
mod screening_jobs;
mod service;
mod tenancy;
mod verification;
mod webhook_deliveries;
mod webhook_endpoints;
mod workspaces;
