//! The webhook endpoint resource (`webhookEndpoints/{endpoint}`) in its JSON form.

use serde::{Deserialize, Serialize};

use crate::proto_enum;
use crate::time::Timestamp;

proto_enum! {
    /// Whether events are delivered to an endpoint.
    pub enum WebhookEndpointState("STATE_UNSPECIFIED") {
        /// Events are delivered.
        Enabled = "ENABLED",
        /// Nothing is delivered until it is enabled again.
        Disabled = "DISABLED",
    }
}

crate::resource_struct! {
    /// A URL the tenant's events are pushed to, signed as Standard Webhooks says.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct WebhookEndpoint named "`webhookEndpoints/{webhookEndpoint}`. Output only." {
        /// Where events are posted: https, or http to a host the operator allows. No
        /// credentials; no loopback, private, link-local or metadata address unless
        /// allowed. Required.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub url: String,
        /// The event types delivered: types of the catalogue (`alert.created`),
        /// `prefix.*` (`entity.*`) or `*` for all. At least one; at most 100.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "Vec::is_empty"
        )]
        pub event_types: Vec<String>,
        /// What the endpoint is for.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub description: String,
        /// ENABLED (the default) or DISABLED. PATCH it to ENABLED to re-enable an
        /// endpoint that was disabled.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "WebhookEndpointState::is_unspecified"
        )]
        pub state: WebhookEndpointState,
        /// The signing secret, `whsec_` and the base64 of 32 random bytes. Shown only
        /// in the answers of create and `:rotateSecret`. Output only.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub secret: String,
        /// The secrets as stored: sealed, never serialised.
        #[serde(skip)]
        #[cfg_attr(feature = "openapi", schema(ignore))]
        pub sealed: SealedSecrets,
        /// The plaintext of a secret just made, kept out of the stored resource and
        /// its events and shown by the answer of the create that made it.
        #[serde(skip)]
        #[cfg_attr(feature = "openapi", schema(ignore))]
        pub revealed_secret: String,
    }
    times: update_time delete_time purge_time;
}

/// An endpoint's signing secrets as stored, each sealed by the
/// [`SecretCipher`](super::ports::SecretCipher).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SealedSecrets {
    /// The current secret.
    pub current: String,
    /// The secret it replaced, still signing until `previous_expire_time`.
    pub previous: Option<String>,
    /// When the previous secret stops signing.
    pub previous_expire_time: Option<Timestamp>,
}

crate::named_resource!(WebhookEndpoint, "webhookEndpoints", "webhook endpoint");

crate::soft_deletable!(WebhookEndpoint);
