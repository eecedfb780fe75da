//! What the handlers share.

use std::sync::Arc;

use async_trait::async_trait;
use rics_domain::entity::EntityService;
use rics_domain::principal::Authenticator;

/// Tells whether the service can serve requests (its database answers).
#[cfg_attr(test, mockall::automock)]
#[async_trait]
pub trait Readiness: Send + Sync {
    /// `Ok` when ready.
    ///
    /// # Errors
    /// A short reason when not ready.
    async fn check(&self) -> Result<(), String>;
}

/// The services and settings the handlers use.
pub struct ApiState {
    /// Entity use cases.
    pub entities: Arc<EntityService>,
    /// Identifies callers.
    pub authenticator: Arc<dyn Authenticator>,
    /// Readiness probe for `/readyz`.
    pub readiness: Arc<dyn Readiness>,
    /// Largest JSON request body, in bytes.
    pub body_limit: usize,
}
