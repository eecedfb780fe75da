//! A tenant's own secrets, one per [`SecretPurpose`], each made on first use, stored
//! sealed as endpoint secrets are, shown only by its rotation, whose replaced secret
//! stays good for [`SECRET_OVERLAP`]:
//! - the webhook signing secret: what deliveries to URLs (the jobs' `webhookUri`, the
//!   NOTIFY_WEBHOOK steps' `url`) are signed with, since they have no endpoint of their
//!   own; made by the first delivery to a URL or the first
//!   `tenants/{tenant}:rotateWebhookSecret`;
//! - the Truuth callback secret: the Bearer secret Truuth's callbacks to
//!   `POST /v1alpha/truuth/webhooks/callback` must carry for a session of the tenant;
//!   made and shown by `tenants/{tenant}:rotateTruuthCallbackSecret`.

use std::sync::Arc;

use async_trait::async_trait;
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::model::SealedSecrets;
use super::ports::SecretCipher;
use super::service::{SECRET_OVERLAP, SECRET_PREFIX, new_prefixed_secret};
use crate::error::Result;
use crate::event::NewEvent;
use crate::lifecycle::ServiceContext;
use crate::principal::{Principal, TenantId};
use crate::repository::RepositoryError;
use crate::tenant::model::Tenant;
use crate::tenant::service::own_tenant;
use crate::time::Timestamp;

/// The event type of a rotation of the webhook signing secret.
pub const SECRET_ROTATED: &str = "tenant.webhook_secret_rotated";

/// The event type of a rotation of the Truuth callback secret.
pub const TRUUTH_CALLBACK_SECRET_ROTATED: &str = "tenant.truuth_callback_secret_rotated";

/// What a tenant secret is for: each purpose has its own secret, stored and rotated
/// apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretPurpose {
    /// Signing the deliveries to URLs.
    WebhookSigning,
    /// Authenticating Truuth's callbacks (a shared Bearer secret).
    TruuthCallback,
}

impl SecretPurpose {
    /// The event type of a rotation.
    pub fn rotated_event(self) -> &'static str {
        match self {
            SecretPurpose::WebhookSigning => SECRET_ROTATED,
            SecretPurpose::TruuthCallback => TRUUTH_CALLBACK_SECRET_ROTATED,
        }
    }

    /// What the plaintext secret starts with.
    fn prefix(self) -> &'static str {
        match self {
            SecretPurpose::WebhookSigning => SECRET_PREFIX,
            SecretPurpose::TruuthCallback => "tcbsec_",
        }
    }
}

/// The answer of `:rotateWebhookSecret` and `:rotateTruuthCallbackSecret`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TenantWebhookSecret {
    /// The tenant: `tenants/{tenant}`.
    pub tenant: String,
    /// The new secret, `whsec_` (signing) or `tcbsec_` (Truuth callbacks) and the
    /// base64 of 32 random bytes; shown only here.
    pub secret: String,
    /// Until when the replaced secret goes on signing beside the new one (24 hours);
    /// absent when there was none to replace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub previous_secret_expire_time: Option<Timestamp>,
}

/// Stores each tenant's sealed secrets of one purpose. Any method may fail with
/// [`RepositoryError::Unavailable`] or [`RepositoryError::Internal`].
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait TenantSecretRepository: Send + Sync {
    /// The tenant's secrets; `None` before the first is made.
    async fn get(&self, tenant: &TenantId) -> Result<Option<SealedSecrets>, RepositoryError>;

    /// Stores `secrets` as the tenant's first, unless it has some already (another
    /// worker made them first); returns the secrets stored.
    async fn create(
        &self,
        tenant: &TenantId,
        secrets: &SealedSecrets,
        now: Timestamp,
    ) -> Result<SealedSecrets, RepositoryError>;

    /// Replaces the tenant's secrets with `secrets` if its current one is still
    /// `replaced` (`None`: it has none), appending `event` in the same transaction.
    ///
    /// # Errors
    /// [`RepositoryError::Conflict`] when the current secret is no longer `replaced`
    /// (a concurrent rotation or first use).
    async fn rotate(
        &self,
        tenant: &TenantId,
        replaced: Option<String>,
        secrets: &SealedSecrets,
        event: &NewEvent,
        now: Timestamp,
    ) -> Result<(), RepositoryError>;
}

/// The use cases of a tenant secret of one purpose (the webhook signing secret unless
/// [`TenantSecretService::with_purpose`] says otherwise).
#[derive(derive_new::new)]
pub struct TenantSecretService {
    repository: Arc<dyn TenantSecretRepository>,
    /// Seals the secrets; `None` when the operator configured no key, and then no
    /// secret can be made.
    cipher: Option<Arc<dyn SecretCipher>>,
    /// The clock and ids.
    context: ServiceContext,
    /// What the secrets are for.
    #[new(value = "SecretPurpose::WebhookSigning")]
    purpose: SecretPurpose,
}

impl TenantSecretService {
    /// The same service for secrets of `purpose` (its repository storing those).
    #[must_use]
    pub fn with_purpose(mut self, purpose: SecretPurpose) -> TenantSecretService {
        self.purpose = purpose;
        self
    }

    /// Gives the caller's tenant (`id`: its own id or `current`) a new secret,
    /// answered with it; the replaced one, if any, stays good for
    /// [`SECRET_OVERLAP`]. Writes the purpose's rotation event
    /// (`tenant.webhook_secret_rotated`, `tenant.truuth_callback_secret_rotated`).
    ///
    /// # Errors
    /// NOT_FOUND for another tenant; FAILED_PRECONDITION `SECRET_KEY_NOT_CONFIGURED`;
    /// ABORTED when a concurrent rotation won.
    pub async fn rotate(&self, principal: &Principal, id: &str) -> Result<TenantWebhookSecret> {
        own_tenant(principal, id)?;
        let tenant = &principal.tenant;
        let name = Tenant::name_of(tenant.as_str());
        let current = self
            .repository
            .get(tenant)
            .await
            .map_err(|e| e.for_resource(&name))?;
        let (secret, sealed) = new_prefixed_secret(self.purpose.prefix(), self.cipher.as_ref())?;
        let now = self.context.clock.now();
        let previous_expire_time = current.as_ref().map(|_| now.plus(SECRET_OVERLAP));
        let replaced = current.map(|c| c.current);
        let secrets = SealedSecrets {
            current: sealed,
            previous: replaced.clone(),
            previous_expire_time,
        };
        let event = NewEvent::new(
            self.context.ids.resource_id(),
            self.purpose.rotated_event(),
            &name,
            principal,
            now,
        );
        self.repository
            .rotate(tenant, replaced, &secrets, &event, now)
            .await
            .map_err(|e| e.for_resource(&name))?;
        Ok(TenantWebhookSecret {
            tenant: name,
            secret,
            previous_secret_expire_time: previous_expire_time,
        })
    }

    /// The tenant's sealed secrets for signing, made now if it has none (first use).
    ///
    /// # Errors
    /// FAILED_PRECONDITION `SECRET_KEY_NOT_CONFIGURED` when one must be made and no key
    /// is configured; UNAVAILABLE.
    pub async fn signing(&self, tenant: &TenantId) -> Result<SealedSecrets> {
        if let Some(secrets) = self.repository.get(tenant).await? {
            return Ok(secrets);
        }
        let (_, sealed) = new_prefixed_secret(self.purpose.prefix(), self.cipher.as_ref())?;
        let first = SealedSecrets {
            current: sealed,
            ..SealedSecrets::default()
        };
        Ok(self
            .repository
            .create(tenant, &first, self.context.clock.now())
            .await?)
    }
}

impl TenantSecretService {
    /// Whether `presented` is the tenant's current secret, or its previous one before
    /// that stops being good. Nothing is made: a tenant without a secret matches
    /// nothing. The comparison is of SHA-256 digests, so its time says nothing of
    /// the secret.
    ///
    /// # Errors
    /// UNAVAILABLE; INTERNAL when a stored secret does not open with the operator's
    /// key (or no key is configured).
    pub async fn matches(&self, tenant: &TenantId, presented: &str) -> Result<bool> {
        let Some(secrets) = self.repository.get(tenant).await? else {
            return Ok(false);
        };
        let cipher = self.cipher.as_ref().ok_or_else(|| {
            crate::error::Error::internal("a tenant secret is stored but no key is configured")
        })?;
        let now = self.context.clock.now();
        let mut good = vec![secrets.current];
        if let (Some(previous), Some(until)) = (secrets.previous, secrets.previous_expire_time)
            && until > now
        {
            good.push(previous);
        }
        let presented = Sha256::digest(presented.as_bytes());
        for sealed in good {
            let secret = cipher
                .open(&sealed)
                .map_err(|e| crate::error::Error::internal(format!("tenant secret: {e}")))?;
            if Sha256::digest(secret.as_bytes()) == presented {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::error::Code;
    use crate::id::MockIdGenerator;
    use crate::list::Paging;
    use crate::time::MockClock;
    use crate::webhook::ports::MockSecretCipher;

    fn now() -> Timestamp {
        Timestamp::parse_rfc3339("2026-11-25T10:00:00Z").unwrap()
    }

    fn admin() -> Principal {
        Principal {
            tenant: TenantId::new("t1"),
            subject: "admin".into(),
            display_name: "Admin".into(),
            scopes: Default::default(),
        }
    }

    fn service(repository: MockTenantSecretRepository, with_key: bool) -> TenantSecretService {
        let mut clock = MockClock::new();
        clock.expect_now().returning(now);
        let clock = Arc::new(clock);
        let mut ids = MockIdGenerator::new();
        ids.expect_resource_id().returning(|| "ev-1".into());
        let context = ServiceContext {
            paging: Arc::new(Paging::new(&[7; 32], clock.clone()).unwrap()),
            clock,
            ids: Arc::new(ids),
            retention: Duration::from_secs(86_400),
        };
        let mut cipher = MockSecretCipher::new();
        cipher
            .expect_seal()
            .returning(|plaintext| Ok(format!("sealed:{plaintext}")));
        cipher
            .expect_open()
            .returning(|sealed| Ok(sealed.trim_start_matches("sealed:").to_owned()));
        let cipher: Arc<dyn SecretCipher> = Arc::new(cipher);
        TenantSecretService::new(Arc::new(repository), with_key.then_some(cipher), context)
    }

    #[tokio::test]
    async fn the_first_rotation_makes_the_secret_with_its_event() {
        let mut repository = MockTenantSecretRepository::new();
        repository.expect_get().times(1).returning(|_| Ok(None));
        repository
            .expect_rotate()
            .withf(|tenant, replaced, secrets, event, _| {
                tenant.as_str() == "t1"
                    && replaced.is_none()
                    && secrets.previous.is_none()
                    && secrets.current.starts_with("sealed:whsec_")
                    && event.event_type == SECRET_ROTATED
                    && event.payload["resource"] == "tenants/t1"
            })
            .times(1)
            .returning(|_, _, _, _, _| Ok(()));
        let first = service(repository, true)
            .rotate(&admin(), "current")
            .await
            .unwrap();
        assert_eq!(first.tenant, "tenants/t1");
        assert!(first.secret.starts_with("whsec_"));
        assert_eq!(
            first.secret.len(),
            "whsec_".len() + 44,
            "32 bytes in base64"
        );
        assert_eq!(first.previous_secret_expire_time, None);
    }

    #[tokio::test]
    async fn a_rotation_keeps_the_old_secret_a_day_unless_another_won() {
        let old = || SealedSecrets {
            current: "sealed:old".into(),
            ..SealedSecrets::default()
        };
        let mut repository = MockTenantSecretRepository::new();
        repository.expect_get().returning(move |_| Ok(Some(old())));
        repository
            .expect_rotate()
            .withf(|_, replaced, secrets, _, _| {
                replaced.as_deref() == Some("sealed:old")
                    && secrets.previous.as_deref() == Some("sealed:old")
                    && secrets.previous_expire_time == Some(now().plus(SECRET_OVERLAP))
            })
            .times(1)
            .returning(|_, _, _, _, _| Ok(()));
        let rotated = service(repository, true)
            .rotate(&admin(), "t1")
            .await
            .unwrap();
        assert_eq!(
            rotated.previous_secret_expire_time,
            Some(now().plus(SECRET_OVERLAP))
        );

        let mut repository = MockTenantSecretRepository::new();
        repository.expect_get().returning(move |_| Ok(Some(old())));
        repository
            .expect_rotate()
            .returning(|_, _, _, _, _| Err(RepositoryError::Conflict));
        let lost = service(repository, true)
            .rotate(&admin(), "t1")
            .await
            .unwrap_err();
        assert_eq!(lost.code, Code::Aborted);
    }

    #[tokio::test]
    async fn another_tenant_is_not_found_and_no_key_makes_no_secret() {
        let other = service(MockTenantSecretRepository::new(), true)
            .rotate(&admin(), "t2")
            .await
            .unwrap_err();
        assert_eq!(other.code, Code::NotFound);

        let mut repository = MockTenantSecretRepository::new();
        repository.expect_get().returning(|_| Ok(None));
        let no_key = service(repository, false)
            .signing(&TenantId::new("t1"))
            .await
            .unwrap_err();
        assert_eq!(no_key.reason, "SECRET_KEY_NOT_CONFIGURED");
    }

    #[tokio::test]
    async fn signing_keeps_the_secret_stored_or_makes_the_first_once() {
        let mut repository = MockTenantSecretRepository::new();
        repository.expect_get().returning(|_| Ok(None));
        repository
            .expect_create()
            .withf(|tenant, secrets, _| {
                tenant.as_str() == "t1" && secrets.current.starts_with("sealed:whsec_")
            })
            .times(1)
            .returning(|_, _, _| {
                Ok(SealedSecrets {
                    current: "sealed:theirs".into(),
                    ..SealedSecrets::default()
                })
            });
        let stored = service(repository, true)
            .signing(&TenantId::new("t1"))
            .await
            .unwrap();
        assert_eq!(
            stored.current, "sealed:theirs",
            "another worker's first secret wins"
        );
    }

    #[tokio::test]
    async fn a_presented_secret_matches_the_current_or_the_previous_until_it_expires() {
        let stored = |until: Timestamp| SealedSecrets {
            current: "sealed:tcbsec_new".into(),
            previous: Some("sealed:tcbsec_old".into()),
            previous_expire_time: Some(until),
        };
        let mut repository = MockTenantSecretRepository::new();
        let until = now().plus(Duration::from_secs(60));
        repository
            .expect_get()
            .returning(move |_| Ok(Some(stored(until))));
        let secrets = service(repository, true).with_purpose(SecretPurpose::TruuthCallback);
        let tenant = TenantId::new("t1");
        assert!(secrets.matches(&tenant, "tcbsec_new").await.unwrap());
        assert!(secrets.matches(&tenant, "tcbsec_old").await.unwrap());
        assert!(!secrets.matches(&tenant, "tcbsec_other").await.unwrap());

        let mut repository = MockTenantSecretRepository::new();
        let past = now().minus(Duration::from_secs(1));
        repository
            .expect_get()
            .returning(move |_| Ok(Some(stored(past))));
        let secrets = service(repository, true);
        assert!(!secrets.matches(&tenant, "tcbsec_old").await.unwrap());

        let mut repository = MockTenantSecretRepository::new();
        repository.expect_get().returning(|_| Ok(None));
        assert!(
            !service(repository, true)
                .matches(&tenant, "anything")
                .await
                .unwrap()
        );
    }
}
