//! Webhook endpoints (`webhookEndpoints/{endpoint}`): where a tenant wants its events
//! pushed, which event types it subscribes to, and the secret its deliveries are signed
//! with. The secret is stored sealed (the [`SecretCipher`] port, with a key kept outside
//! the database) and shown only by create and `:rotateSecret`. Endpoint URLs must keep
//! [`target::TargetPolicy`]: https, no credentials, and no loopback, private,
//! link-local or metadata address after DNS resolution unless the operator allows it.
//! Every event an endpoint subscribes to is queued as a [`delivery`] in the event's
//! own transaction and sent, signed and retried, by the [`DeliveryWorker`]. An event
//! may also ask for a delivery to a URL (`NewEvent::deliver_to`: the jobs'
//! `webhookUri`), sent by the same worker, signed with the tenant's secret
//! ([`tenant_secret`]) and kept under `webhookEndpoints/-/deliveries`.

pub mod delivery;
pub mod delivery_service;
pub mod dispatch;
pub mod fields;
pub mod model;
pub mod ports;
pub mod service;
#[cfg(test)]
mod service_tests;
pub mod target;
pub mod tenant_secret;

pub use delivery_service::DeliveryService;
pub use dispatch::{DeliveryWorker, RetrySchedule, WebhookSender};
pub use model::{WebhookEndpoint, WebhookEndpointState};
pub use ports::{HostResolver, SecretCipher, WebhookEndpointRepository};
pub use service::WebhookEndpointService;
pub use target::{TargetPolicy, check_webhook_uri};
pub use tenant_secret::TenantSecretService;
