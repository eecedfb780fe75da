//! The `rics` binary's library: configuration, telemetry and wiring, so that the
//! black-box tests start exactly the server operators run.

pub mod admin;
pub mod config;
pub mod dns;
pub mod import;
pub mod metrics;
pub mod screener;
pub mod server;
pub mod telemetry;
pub mod truuth;
pub mod webhook_sender;

pub use config::{Config, Settings};
