//! The webhook endpoint use cases: the standard methods, the URL and subscription
//! rules, and the signing secret (made at create, rotated by `:rotateSecret`).

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use super::fields;
use super::model::{SealedSecrets, WebhookEndpoint, WebhookEndpointState};
use super::ports::{HostResolver, SecretCipher, WebhookEndpointRepository};
use super::target::TargetPolicy;
use crate::error::{Error, Result};
use crate::event::catalogue;
use crate::job::model::worker_principal;
use crate::lifecycle::soft_delete_methods;
use crate::lifecycle::{self, ServiceContext, StoreVersions, check_etag, deleted};
use crate::list::{ListRequest, ListResponse};
use crate::methods::{CreateMethod, UpdateMethod};
use crate::principal::{Principal, TenantId};
use crate::time::Timestamp;
use crate::validate::Violations;

/// Longest URL.
pub const MAX_URL: usize = 2048;
/// Longest description.
pub const MAX_DESCRIPTION: usize = 2000;
/// Most event types one endpoint subscribes to.
pub const MAX_EVENT_TYPES: usize = 100;
/// How long a replaced secret goes on signing, beside the new one.
pub const SECRET_OVERLAP: Duration = Duration::from_secs(24 * 3600);
/// What every signing secret starts with (Standard Webhooks).
pub const SECRET_PREFIX: &str = "whsec_";

/// Everything the webhook endpoint service needs.
#[derive(derive_new::new)]
pub struct WebhookEndpointService {
    repository: Arc<dyn WebhookEndpointRepository>,
    /// Seals the signing secrets; `None` when the operator configured no key, and then
    /// no endpoint can be made.
    cipher: Option<Arc<dyn SecretCipher>>,
    /// Resolves endpoint hosts, whose addresses must be allowed.
    resolver: Arc<dyn HostResolver>,
    /// The addresses the operator allows beyond public https URLs.
    policy: TargetPolicy,
    /// The clock, ids, paging and retention.
    context: ServiceContext,
}

impl WebhookEndpointService {
    /// The endpoint with `id`, deleted or not, without its secret.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed id; NOT_FOUND.
    pub async fn get(&self, principal: &Principal, id: &str) -> Result<WebhookEndpoint> {
        lifecycle::read(id, self.repository.get(&principal.tenant, id)).await
    }

    /// One page of endpoints (AIP-132, AIP-158, AIP-160).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for bad list parameters.
    pub async fn list(
        &self,
        principal: &Principal,
        request: &ListRequest,
    ) -> Result<ListResponse<WebhookEndpoint>> {
        let store = self.repository.as_ref();
        self.context
            .paging
            .list(&fields::LIST, store, &principal.tenant, None, request)
            .await
    }

    /// Gives the endpoint a new signing secret, answered with it; the old one goes on
    /// signing for [`SECRET_OVERLAP`], so receivers can switch without losing a
    /// message.
    ///
    /// # Errors
    /// NOT_FOUND; FAILED_PRECONDITION when it is deleted or no key is configured;
    /// ABORTED for a stale etag.
    pub async fn rotate_secret(
        &self,
        principal: &Principal,
        id: &str,
        etag: Option<&str>,
    ) -> Result<WebhookEndpoint> {
        let current = self.get(principal, id).await?;
        if current.is_deleted() {
            return Err(deleted(&current.name));
        }
        check_etag(&current.name, &current.etag, etag)?;
        let now = self.context.clock.now();
        let (secret, sealed) = new_secret(self.cipher.as_ref())?;
        let mut changed = current.clone();
        changed.sealed = SealedSecrets {
            current: sealed,
            previous: Some(current.sealed.current.clone()),
            previous_expire_time: Some(now.plus(SECRET_OVERLAP)),
        };
        let mut rotated = self
            .save(
                principal,
                &current,
                changed,
                "webhook_endpoint.secret_rotated",
                now,
            )
            .await?;
        rotated.secret = secret;
        Ok(rotated)
    }

    /// Disables the endpoint `id` of `tenant` for the delivery worker (it kept failing,
    /// or answered 410 Gone), with a `webhook_endpoint.disabled` event. Returns the
    /// disabled endpoint, or `None` when it was not enabled or is deleted (nothing to
    /// do).
    ///
    /// # Errors
    /// NOT_FOUND when it is gone; ABORTED when it changed meanwhile; UNAVAILABLE.
    pub async fn disable(&self, tenant: &TenantId, id: &str) -> Result<Option<WebhookEndpoint>> {
        let worker = worker_principal(tenant);
        let current = self.get(&worker, id).await?;
        if current.state != WebhookEndpointState::Enabled || current.is_deleted() {
            return Ok(None);
        }
        let mut changed = current.clone();
        changed.state = WebhookEndpointState::Disabled;
        let now = self.context.clock.now();
        self.save(&worker, &current, changed, "webhook_endpoint.disabled", now)
            .await
            .map(Some)
    }

    /// Checks the endpoint's fields and where its URL leads.
    async fn validate(&self, endpoint: &WebhookEndpoint) -> Result<()> {
        let mut v = Violations::new();
        v.required_text("webhookEndpoint.url", &endpoint.url, MAX_URL);
        v.optional_text(
            "webhookEndpoint.description",
            &endpoint.description,
            MAX_DESCRIPTION,
        );
        check_event_types(&mut v, &endpoint.event_types);
        v.finish()?;
        self.policy
            .admit("webhookEndpoint.url", &endpoint.url, self.resolver.as_ref())
            .await
    }
}

/// A new signing secret, `whsec_` and the base64 of 32 random bytes, and its form
/// sealed by `cipher`.
///
/// # Errors
/// FAILED_PRECONDITION `SECRET_KEY_NOT_CONFIGURED` when there is no cipher; INTERNAL
/// when the system has no randomness to give.
pub(crate) fn new_secret(cipher: Option<&Arc<dyn SecretCipher>>) -> Result<(String, String)> {
    new_prefixed_secret(SECRET_PREFIX, cipher)
}

/// As [`new_secret`], the secret starting with `prefix` rather than `whsec_`.
///
/// # Errors
/// As [`new_secret`].
pub(crate) fn new_prefixed_secret(
    prefix: &str,
    cipher: Option<&Arc<dyn SecretCipher>>,
) -> Result<(String, String)> {
    let cipher = cipher.ok_or_else(|| {
        Error::failed_precondition(
            "SECRET_KEY_NOT_CONFIGURED",
            "Webhook secrets are stored sealed with the operator's key \
             (RICS_SECRET_KEY or RICS_SECRET_KEY_FILE), and none is configured.",
        )
    })?;
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| Error::internal(e.to_string()))?;
    let secret = format!("{prefix}{}", STANDARD.encode(bytes));
    let sealed = cipher.seal(&secret).map_err(Error::internal)?;
    Ok((secret, sealed))
}

/// Records what is wrong with `event_types`: none, too many, one twice, or one that is
/// not a catalogued type, `prefix.*` of a catalogued prefix, or `*`.
fn check_event_types(v: &mut Violations, event_types: &[String]) {
    let field = "webhookEndpoint.eventTypes";
    if event_types.is_empty() {
        v.add(
            field,
            "REQUIRED",
            "must name at least one event type, or '*'",
        );
    }
    v.max_items(field, event_types, MAX_EVENT_TYPES);
    let mut seen = BTreeSet::new();
    for (i, pattern) in event_types.iter().enumerate() {
        let known = pattern == "*"
            || pattern
                .strip_suffix(".*")
                .map_or_else(|| catalogue::is_known(pattern), catalogue::is_known_prefix);
        if !known {
            v.add(
                format!("{field}[{i}]"),
                "UNKNOWN_EVENT_TYPE",
                format!("'{pattern}' is not an event type of the catalogue, 'prefix.*' or '*'"),
            );
        } else if !seen.insert(pattern) {
            v.add(
                format!("{field}[{i}]"),
                "DUPLICATE_EVENT_TYPE",
                format!("'{pattern}' is given twice"),
            );
        }
    }
}

#[async_trait]
impl CreateMethod for WebhookEndpointService {
    const ID_PARAMETER: &'static str = "webhookEndpointId";

    /// Its URL must lead to an allowed address and its event types must be known; it
    /// gets its signing secret, sealed.
    async fn admit_new(
        &self,
        _principal: &Principal,
        endpoint: &mut WebhookEndpoint,
        _now: Timestamp,
    ) -> Result<()> {
        self.validate(endpoint).await?;
        let (secret, sealed) = new_secret(self.cipher.as_ref())?;
        endpoint.sealed = SealedSecrets {
            current: sealed,
            ..SealedSecrets::default()
        };
        endpoint.revealed_secret = secret;
        Ok(())
    }

    /// A new endpoint is ENABLED unless the request says otherwise.
    fn fill_new(&self, _principal: &Principal, endpoint: &mut WebhookEndpoint, _now: Timestamp) {
        if endpoint.state.is_unspecified() {
            endpoint.state = WebhookEndpointState::Enabled;
        }
    }

    /// The answer shows the secret, once: it was kept out of the stored resource and
    /// its events.
    fn answer_new(&self, mut endpoint: WebhookEndpoint) -> Result<WebhookEndpoint> {
        endpoint.secret = std::mem::take(&mut endpoint.revealed_secret);
        Ok(endpoint)
    }
}

#[async_trait]
impl UpdateMethod for WebhookEndpointService {
    /// The URL and the event types keep their rules; a PATCH of `state` to ENABLED
    /// re-enables a disabled endpoint.
    async fn admit_update(
        &self,
        _principal: &Principal,
        current: &WebhookEndpoint,
        updated: &mut WebhookEndpoint,
    ) -> Result<()> {
        if updated.state.is_unspecified() {
            updated.state = current.state;
        }
        self.validate(updated).await
    }

    /// The secrets stay as they are: only `:rotateSecret` changes them.
    fn on_change(&self, current: &WebhookEndpoint, updated: &mut WebhookEndpoint) {
        updated.sealed = current.sealed.clone();
    }
}

// Delete, undelete and the purge as every soft-deletable resource has them: nothing
// is delivered to a deleted endpoint.
soft_delete_methods!(
    WebhookEndpointService,
    WebhookEndpoint,
    "webhook_endpoint",
    fields = fields::TABLE as "webhookEndpoint",
    store = repository.update,
    purge = "webhookEndpoints"
);
