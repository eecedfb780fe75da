//! Identity: OAuth 2.0 clients and users, and the embedded authorization server.

pub mod admin;
pub mod authorization;
pub mod model;
pub mod ports;

#[cfg(test)]
mod authorization_tests;
