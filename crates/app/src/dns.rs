//! [`SystemResolver`]: the domain's [`HostResolver`] over the system's resolver, as
//! the webhook URL checks use it.

use std::net::IpAddr;

use async_trait::async_trait;
use rics_domain::webhook::HostResolver;

/// Resolves names with the operating system's resolver (`getaddrinfo`).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

/// The longest a lookup may take: a request waits for it.
const LOOKUP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

#[async_trait]
impl HostResolver for SystemResolver {
    async fn resolve(&self, host: &str, port: u16) -> Result<Vec<IpAddr>, String> {
        let addresses = tokio::time::timeout(LOOKUP_TIMEOUT, tokio::net::lookup_host((host, port)))
            .await
            .map_err(|_| format!("'{host}' did not resolve within {LOOKUP_TIMEOUT:?}"))?
            .map_err(|e| format!("'{host}' does not resolve: {e}"))?;
        Ok(addresses.map(|a| a.ip()).collect())
    }
}
