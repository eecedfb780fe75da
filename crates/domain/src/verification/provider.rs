//! The [`IdentityVerificationProvider`] port: who captures a person's identity
//! evidence and judges it. rics starts a session with a provider for an identity owner
//! and a reference of its own, gives the caller what a front end needs to start
//! capture, and later reads the provider's completion into a [`VerificationOutcome`].

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::principal::TenantId;
use crate::proto_enum;
use crate::time::Timestamp;

proto_enum! {
    /// The providers rics knows.
    pub enum Provider("PROVIDER_UNSPECIFIED") {
        /// The built-in hosted capture: the hosted form captures the document and a
        /// selfie; the ID document verification judges the document.
        HostedCapture = "HOSTED_CAPTURE",
        /// Truuth, an external identity verification service.
        Truuth = "TRUUTH",
    }
}

impl Provider {
    /// The `source` of the IDENTITY_CHECK activity logs a completion writes.
    pub fn source(self) -> &'static str {
        match self {
            Provider::Truuth => "TRUUTH",
            _ => "RICS",
        }
    }

    /// Whether `source` names an external provider, whose outcomes an activity log
    /// records with that source rather than `RICS`.
    pub fn is_external_source(source: &str) -> bool {
        source == Provider::Truuth.source()
    }
}

/// The person whose identity is verified, as a session names them.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IdentityOwner {
    /// Email address. Required.
    #[serde(default)]
    pub email: String,
    /// Given name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given_name: Option<String>,
    /// Family name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family_name: Option<String>,
    /// Middle name(s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub middle_name: Option<String>,
}

/// The longest name part an identity owner may have.
pub const MAX_NAME: usize = 200;

impl IdentityOwner {
    /// Checks the owner given at `path` (`session.identityOwner`).
    ///
    /// # Errors
    /// INVALID_ARGUMENT on `{path}.email` (`REQUIRED`, `INVALID_EMAIL`) or on a name
    /// part longer than 200 characters (`TOO_LONG`).
    pub fn check(&self, path: &str) -> Result<()> {
        if self.email.trim().is_empty() {
            return Err(Error::invalid_field(
                format!("{path}.email"),
                "REQUIRED",
                "give the identity owner's email address",
            ));
        }
        if !email_address::EmailAddress::is_valid(&self.email) {
            return Err(Error::invalid_field(
                format!("{path}.email"),
                "INVALID_EMAIL",
                format!("'{}' is not an email address", self.email),
            ));
        }
        for (field, value) in [
            ("givenName", &self.given_name),
            ("familyName", &self.family_name),
            ("middleName", &self.middle_name),
        ] {
            if value.as_ref().is_some_and(|v| v.chars().count() > MAX_NAME) {
                return Err(Error::invalid_field(
                    format!("{path}.{field}"),
                    "TOO_LONG",
                    format!("must be at most {MAX_NAME} characters"),
                ));
            }
        }
        Ok(())
    }
}

/// What rics asks a provider for: a session for `owner`, known to rics as
/// `reference` (the provider echoes it in its callback as `externalRefId`), usable
/// until `expire_time`.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRequest {
    /// The tenant the session is for.
    pub tenant: TenantId,
    /// rics's reference of the session (`{tenant}.{id}`).
    pub reference: String,
    /// rics's id of the session.
    pub session_id: String,
    /// The entity verified, when the session names one.
    pub entity_id: Option<String>,
    /// The person.
    pub owner: IdentityOwner,
    /// When the session stops taking evidence.
    pub expire_time: Timestamp,
}

/// A session a provider started: what a front end needs to start capture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderSession {
    /// Where the person goes to give their evidence.
    pub verification_uri: String,
    /// The token the provider's SDK takes (the hosted link's token for the built-in
    /// capture).
    pub token: String,
    /// The provider-side tenant alias (`^[a-z0-9-]+$`; the rics tenant for the
    /// built-in capture).
    pub provider_tenant: String,
    /// The provider's API base URL the front end talks to.
    pub api_url: String,
    /// When the session stops taking evidence.
    pub expire_time: Timestamp,
    /// The provider's own id of the session, when it gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_session_id: Option<String>,
}

proto_enum! {
    /// Where a provider's verification stands, as its callback says.
    pub enum ProviderStatus("VERIFICATION_STATUS_UNSPECIFIED") {
        /// Finished: the outcomes are final.
        Done = "VERIFICATION_STATUS_DONE",
        /// The person is still giving evidence.
        InProgress = "VERIFICATION_STATUS_IN_PROGRESS",
        /// The provider is judging the evidence.
        Processing = "VERIFICATION_STATUS_PROCESSING",
        /// The verification could not be done.
        Error = "VERIFICATION_STATUS_ERROR",
    }
}

impl ProviderStatus {
    /// Whether the verification is over (DONE or ERROR): its session completes.
    pub fn is_final(self) -> bool {
        matches!(self, ProviderStatus::Done | ProviderStatus::Error)
    }
}

proto_enum! {
    /// How strongly a completed verification ties the person to the evidence.
    pub enum Assurance("ASSURANCE_UNSPECIFIED") {
        /// The document was judged; no selfie was compared with its photo.
        DocumentOnly = "DOCUMENT_ONLY",
        /// The provider judged the document and matched the person's face to it.
        DocumentAndBiometric = "DOCUMENT_AND_BIOMETRIC",
    }
}

/// What the provider found about the person, for enrichment: every part optional.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifiedOwner {
    /// Given name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given_name: Option<String>,
    /// Family name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family_name: Option<String>,
    /// Middle name(s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub middle_name: Option<String>,
    /// Date of birth, `YYYY-MM-DD`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date_of_birth: Option<String>,
    /// Email address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// Gender as the provider gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gender: Option<String>,
    /// Mobile number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mobile_number: Option<String>,
}

/// A provider's completion of a session, read from its callback.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VerificationOutcome {
    /// The provider's id of this verification.
    pub verification_id: String,
    /// rics's id of the session (the [`SessionRequest::reference`]).
    pub reference: String,
    /// Where the verification stands.
    pub status: ProviderStatus,
    /// For a final status: whether the person passed (every proofing outcome passed).
    pub passed: bool,
    /// The proofing outcomes' statuses, as the provider gave them.
    pub proofing_outcomes: Vec<String>,
    /// What the provider read of the person.
    pub identity_owner: VerifiedOwner,
    /// How strongly the outcome ties the person to the evidence.
    pub assurance: Assurance,
}

/// An identity verification provider, behind which the built-in capture and external
/// services sit alike.
///
/// Error contract of every method: INVALID_ARGUMENT naming the field of what the
/// provider refused (`identityOwner.email`); FAILED_PRECONDITION
/// `PROVIDER_NOT_CONFIGURED` when the operator configured no access to the provider;
/// UNAVAILABLE `PROVIDER_UNAVAILABLE` when the provider cannot be reached or failed
/// (worth retrying later); INTERNAL when its answer does not read.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait IdentityVerificationProvider: Send + Sync {
    /// Which provider this is.
    fn provider(&self) -> Provider;

    /// Starts a session for `request`'s owner.
    ///
    /// # Errors
    /// As the trait's error contract.
    async fn start(&self, request: &SessionRequest) -> Result<ProviderSession>;

    /// Hears that the active session `session_id` of `tenant`, started without an
    /// entity, now names `entity_id` (`:linkEntity`; told again when the link is
    /// repeated). Nothing for a provider that needs no entity.
    ///
    /// # Errors
    /// As the trait's error contract.
    async fn entity_linked(
        &self,
        _tenant: &TenantId,
        _session_id: &str,
        _entity_id: &str,
    ) -> Result<()> {
        Ok(())
    }
}
