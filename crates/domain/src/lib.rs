//! The domain of rics, the Risk and Identity Compliance Service: resources and their
//! rules, use-case services, and the ports (traits) that adapters implement.
//!
//! This crate knows nothing of HTTP or SQL: the HTTP adapter calls the services, the
//! storage adapter implements the repository ports, and the binary wires them.

pub mod activity;
pub mod alert;
pub mod automation;
pub mod batch;
pub mod document;
pub mod entity;
pub mod enums;
pub mod error;
pub mod event;
pub mod fields;
pub mod file;
pub mod form;
pub mod form_definition;
pub mod hosted;
pub mod hosted_form;
pub mod housekeeping;
pub mod icao;
pub mod id;
pub mod identity;
pub mod job;
pub mod lifecycle;
pub mod list;
pub mod methods;
pub mod monitoring;
pub mod mrz;
pub mod note;
pub mod onboarding;
pub mod operation;
pub mod principal;
pub mod repository;
pub mod resource;
pub mod risk;
pub mod screen;
pub mod serde_util;
pub mod tenant;
pub mod text_search;
pub mod time;
pub mod webhook;

pub mod validate;
pub mod values;
pub mod verification;
pub mod workspace;

pub use error::{Code, Error, Result};
