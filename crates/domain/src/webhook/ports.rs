//! What the webhook endpoint service needs from outside: its store, the cipher its
//! secrets are sealed with, and DNS.

use std::net::IpAddr;

use async_trait::async_trait;

use super::model::WebhookEndpoint;
use crate::repository::ResourceStore;

/// Stores webhook endpoints, with their events: the standard store, which keeps the
/// sealed secrets beside the resource.
pub trait WebhookEndpointRepository: ResourceStore<WebhookEndpoint> {}

impl<T: ResourceStore<WebhookEndpoint> + ?Sized> WebhookEndpointRepository for T {}

/// A mocked webhook endpoint store.
#[cfg(any(test, feature = "mocks"))]
pub type MockWebhookEndpointRepository = crate::repository::MockResourceStore<WebhookEndpoint>;

/// Seals secrets the server must read back (signing needs the plaintext) with a key
/// kept outside the database, so a copy of the database alone does not give them.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
pub trait SecretCipher: Send + Sync {
    /// `plaintext` sealed: authenticated encryption under a fresh nonce, as text.
    ///
    /// # Errors
    /// A description when the system has no randomness to give.
    fn seal(&self, plaintext: &str) -> Result<String, String>;

    /// The plaintext of `sealed`.
    ///
    /// # Errors
    /// A description when `sealed` was not sealed with this key or was altered.
    fn open(&self, sealed: &str) -> Result<String, String>;
}

/// Resolves host names to addresses, so that a URL is judged by where it leads.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait HostResolver: Send + Sync {
    /// The addresses of `host`.
    ///
    /// # Errors
    /// A description when the name does not resolve.
    async fn resolve(&self, host: &str, port: u16) -> Result<Vec<IpAddr>, String>;
}
