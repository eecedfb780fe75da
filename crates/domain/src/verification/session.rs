//! Verification sessions as stored: one per start with a provider (a
//! `POST /v1alpha/verificationSessions`, or a verification job's `:run`, whose session
//! takes the run's operation id), found again by the provider's callback through its
//! reference ([`session_reference`]), and the callbacks received, kept so a replay is
//! refused.

use async_trait::async_trait;
use serde_json::Value;

use super::provider::{IdentityOwner, Provider, ProviderStatus, VerificationOutcome};
use crate::event::NewEvent;
use crate::principal::TenantId;
use crate::proto_enum;
use crate::repository::RepositoryError;
use crate::time::Timestamp;

proto_enum! {
    /// Where a session is in its life.
    pub enum SessionState("STATE_UNSPECIFIED") {
        /// Started; the provider has not finished.
        Active = "ACTIVE",
        /// The provider's final callback arrived.
        Completed = "COMPLETED",
    }
}

/// A verification session, as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct VerificationSession {
    /// The tenant.
    pub tenant: TenantId,
    /// rics's id of the session: the reference the provider echoes.
    pub id: String,
    /// The provider it runs with.
    pub provider: Provider,
    /// The provider's own id of the session, when it gave one.
    pub provider_session_id: Option<String>,
    /// The entity verified; `None` until one is named (a session started without one).
    pub entity_id: Option<String>,
    /// The operation of the job run that started the session, ended by the callback.
    pub operation: Option<String>,
    /// The person, as the session was started for.
    pub identity_owner: IdentityOwner,
    /// Whether a completion fills the entity's missing names and date of birth.
    pub enrich_entity: bool,
    /// Where the completion's event is also delivered.
    pub webhook_uri: Option<String>,
    /// Where the session is.
    pub state: SessionState,
    /// The provider's final outcome, once it arrived.
    pub outcome: Option<VerificationOutcome>,
    /// The IDENTITY_CHECK activity log of the outcome, once written (it waits for an
    /// entity).
    pub activity_log: Option<String>,
    /// When it started.
    pub create_time: Timestamp,
    /// When it stops taking evidence.
    pub expire_time: Timestamp,
    /// When the final callback arrived.
    pub complete_time: Option<Timestamp>,
}

/// A provider callback as recorded: refused when the same verification's same status
/// arrives again.
#[derive(Debug, Clone, PartialEq)]
pub struct ReceivedCallback {
    /// The provider's id of the verification.
    pub verification_id: String,
    /// The status it reported.
    pub status: ProviderStatus,
    /// The session it was for.
    pub session_id: String,
    /// When it arrived.
    pub receive_time: Timestamp,
    /// The body, as received.
    pub body: Value,
}

/// Stores sessions and callbacks. Any method may fail with
/// [`RepositoryError::Unavailable`] or [`RepositoryError::Internal`].
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait VerificationSessionRepository: Send + Sync {
    /// Stores a new session with `events`.
    ///
    /// # Errors
    /// [`RepositoryError::AlreadyExists`] when its id is taken.
    async fn create(
        &self,
        session: &VerificationSession,
        events: &[NewEvent],
    ) -> Result<(), RepositoryError>;

    /// The session `id` of `tenant`.
    async fn get(
        &self,
        tenant: &TenantId,
        id: &str,
    ) -> Result<Option<VerificationSession>, RepositoryError>;

    /// Whether the same verification's same status was recorded for the tenant.
    async fn has_callback(
        &self,
        tenant: &TenantId,
        verification_id: &str,
        status: ProviderStatus,
    ) -> Result<bool, RepositoryError>;

    /// Replaces the stored session with `session` (its state, outcome, entity and
    /// activity log), records `callback` unless it was recorded already, and appends
    /// `events`, in one transaction.
    async fn update<'a>(
        &self,
        session: &VerificationSession,
        callback: Option<&'a ReceivedCallback>,
        events: &[NewEvent],
    ) -> Result<(), RepositoryError>;
}

/// The reference a provider is given for session `id` of `tenant`, and echoes in its
/// callback (`externalRefId`): `{tenant}.{id}`, so the callback finds its tenant.
pub fn session_reference(tenant: &TenantId, id: &str) -> String {
    format!("{}.{id}", tenant.as_str())
}

/// The tenant and session id of a reference [`session_reference`] made; `None` for
/// any other text.
pub fn read_reference(reference: &str) -> Option<(TenantId, String)> {
    let (tenant, id) = reference.split_once('.')?;
    (crate::id::is_well_formed_id(tenant) && crate::id::is_well_formed_id(id))
        .then(|| (TenantId::new(tenant), id.to_owned()))
}
