//! Identity verification with a provider (issue 18): the
//! [`IdentityVerificationProvider`] port, Truuth's callback, the sessions rics starts
//! and the use cases that start them and take their providers' completions.

pub mod capture;
pub mod jobs;
pub mod provider;
pub mod service;
pub mod session;
pub mod truuth;

pub use provider::{IdentityOwner, IdentityVerificationProvider, Provider, ProviderSession};
pub use service::{RunEnding, VerificationPorts, VerificationService};
pub use session::{VerificationSession, VerificationSessionRepository};
