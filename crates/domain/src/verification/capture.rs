//! The built-in identity verification provider, the hosted capture
//! (`hostedCaptureConfig {}`), needing no account anywhere.
//!
//! Its session is a DRAFT form of the seeded `formDefinitions/identity-capture` (the
//! identity document, its machine readable zone typed in, its photo, and a selfie),
//! about the session's entity, opened by a hosted link
//! ([`crate::hosted`]): the hosted form's pages, cookie, CSRF protection and link rules
//! are the onboarding's. What follows the person's submit runs as an execution of the
//! built-in automation `automations/capture-identity`, so it is durable and visible:
//! the form submitted, the document stored and judged by the ID document verification
//! (a job of `individualEntityIDVerificationJobs`), then the session completed on
//! the path a provider's callback takes ([`super::VerificationService`]), with the
//! assurance `DOCUMENT_ONLY`: the selfie is stored, as a file of the form about the
//! entity, but not compared with the document's photo.

use std::sync::{Arc, OnceLock, Weak};

use async_trait::async_trait;
use serde_json::{Map, Value, json};

use super::provider::{
    Assurance, IdentityVerificationProvider, Provider, ProviderSession, ProviderStatus,
    SessionRequest, VerificationOutcome, VerifiedOwner,
};
use crate::automation::execution::Execution;
use crate::automation::execution_service::{ExecutionService, RunAutomationRequest};
use crate::error::{Code, Error, Result};
use crate::form::FormService;
use crate::form_definition::seed::{IDENTITY_CAPTURE, IDENTITY_CAPTURE_REVISION};
use crate::hosted::{HOSTED_PATH, HostedLinkGrant, HostedLinks};
use crate::id::derived_request_id;
use crate::job::model::worker_principal;
use crate::methods::CreateMethod;
use crate::mrz;
use crate::principal::TenantId;
use crate::time::Timestamp;

/// The id of the built-in automation a hosted capture's completion is an execution of.
pub const CAPTURE_AUTOMATION: &str = "capture-identity";

/// The key of the capture form's identity document answer.
pub const DOCUMENT_KEY: &str = "identity_document";

/// The key of the capture form's selfie answer.
pub const SELFIE_KEY: &str = "selfie";

/// The id of the form a hosted capture session's link opens: derived from the
/// session's id, so a session's form is made once.
pub fn capture_form_id(session_id: &str) -> String {
    format!("capture-{session_id}")
}

/// The built-in adapter of [`IdentityVerificationProvider`].
pub struct HostedCapture {
    forms: Arc<FormService>,
    links: Arc<HostedLinks>,
    /// The server's public base URL, the front end's "API".
    public_url: String,
    /// Starts the completions: set once wiring is done (the executions' effects
    /// complete the sessions this provider starts). Weak, so no cycle keeps the
    /// database pool alive after a server stops.
    executions: OnceLock<Weak<ExecutionService>>,
}

impl HostedCapture {
    /// The provider over the forms, the links and the server's public URL;
    /// [`HostedCapture::complete_with`] completes it.
    pub fn new(forms: Arc<FormService>, links: Arc<HostedLinks>, public_url: &str) -> Self {
        HostedCapture {
            forms,
            links,
            public_url: public_url.trim_end_matches('/').to_owned(),
            executions: OnceLock::new(),
        }
    }

    /// Gives the provider the executions that complete its sessions. A second call
    /// changes nothing.
    pub fn complete_with(&self, executions: &Arc<ExecutionService>) {
        let _ = self.executions.set(Arc::downgrade(executions));
    }

    /// Starts the execution that completes the session `session_id` about `entity_id`
    /// once its form is submitted; once per session (its request id derives from the
    /// session).
    async fn start_completion(
        &self,
        tenant: &TenantId,
        session_id: &str,
        entity_id: &str,
    ) -> Result<()> {
        let mut parameters = Map::new();
        parameters.insert("entity".into(), json!(format!("entities/{entity_id}")));
        parameters.insert(
            "session".into(),
            json!(super::service::session_name(session_id)),
        );
        parameters.insert(
            "form".into(),
            json!(format!("forms/{}", capture_form_id(session_id))),
        );
        self.executions()?
            .run(
                &worker_principal(tenant),
                CAPTURE_AUTOMATION,
                None,
                RunAutomationRequest {
                    parameters,
                    request_id: Some(derived_request_id(session_id, "capture")),
                },
            )
            .await?;
        Ok(())
    }

    fn executions(&self) -> Result<Arc<ExecutionService>> {
        self.executions
            .get()
            .and_then(Weak::upgrade)
            .ok_or_else(|| {
                Error::unavailable(
                    "SHUTTING_DOWN",
                    "the hosted capture has no executions to complete its sessions",
                )
            })
    }
}

#[async_trait]
impl IdentityVerificationProvider for HostedCapture {
    fn provider(&self) -> Provider {
        Provider::HostedCapture
    }

    /// Makes the session's DRAFT capture form (about its entity, expiring with the
    /// session), starts the execution that waits for its submission and completes the
    /// session (for a session without an entity: once `:linkEntity` names it, since
    /// the document is stored and verified as one of its), and issues the link. Each
    /// is made once for a session id, so a retried start finds them.
    ///
    /// # Errors
    /// FAILED_PRECONDITION `SECRET_KEY_NOT_CONFIGURED` when no link can be sealed;
    /// what the forms and executions fail with.
    async fn start(&self, request: &SessionRequest) -> Result<ProviderSession> {
        let worker = worker_principal(&request.tenant);
        let form_id = capture_form_id(&request.session_id);
        let mut body = json!({
            "formDefinition": format!("formDefinitions/{IDENTITY_CAPTURE}@{IDENTITY_CAPTURE_REVISION}"),
            "expireTime": request.expire_time,
        });
        if let Some(entity) = &request.entity_id {
            body["entity"] = json!(format!("entities/{entity}"));
        }
        match self
            .forms
            .create(
                &worker,
                body,
                Some(&form_id),
                Some(&derived_request_id(&request.session_id, "capture-form")),
            )
            .await
        {
            Ok(_) => {}
            Err(error) if error.code == Code::AlreadyExists => {}
            Err(error) => return Err(error),
        }
        if let Some(entity) = &request.entity_id {
            self.start_completion(&request.tenant, &request.session_id, entity)
                .await?;
        }
        let link = self.links.issue(&HostedLinkGrant {
            tenant: request.tenant.as_str().to_owned(),
            form: form_id,
            expire_time: request.expire_time,
            redirect_uri: None,
        })?;
        let token = link
            .uri
            .rsplit_once(&format!("{HOSTED_PATH}/"))
            .map(|(_, token)| token.to_owned())
            .unwrap_or_default();
        Ok(ProviderSession {
            verification_uri: link.uri,
            token,
            provider_tenant: request.tenant.as_str().to_owned(),
            api_url: self.public_url.clone(),
            expire_time: link.expire_time,
            provider_session_id: None,
        })
    }

    /// Names the entity as the capture form's (so the person's answers go with its
    /// erasure) and starts the completion, which waits for the form if the person has
    /// not submitted it yet.
    async fn entity_linked(
        &self,
        tenant: &TenantId,
        session_id: &str,
        entity_id: &str,
    ) -> Result<()> {
        self.forms
            .attach_entity(
                &worker_principal(tenant),
                &capture_form_id(session_id),
                &format!("entities/{entity_id}"),
            )
            .await?;
        self.start_completion(tenant, session_id, entity_id).await
    }
}

/// What a submitted capture gives its completion.
#[derive(Debug, Clone, PartialEq)]
pub struct Capture {
    /// The session, its id.
    pub session_id: String,
    /// The capture form, `forms/{form}`.
    pub form: String,
    /// The identity document stored from it, `documents/{document}`.
    pub document: String,
    /// The ID document verification's outcome (`PASSED`, `FAILED`).
    pub document_outcome: String,
    /// The machine readable zone as typed in, a line each.
    pub mrz: Vec<String>,
    /// The selfie, as a file of the form.
    pub selfie: Option<String>,
}

impl Capture {
    /// The capture of `form`'s submitted response for the session `session_id`, its
    /// document `document` judged `document_outcome`.
    pub fn of_response(
        session_id: &str,
        form: &str,
        document: &str,
        document_outcome: &str,
        response: &Map<String, Value>,
    ) -> Capture {
        let strings = |value: Option<&Value>| -> Vec<String> {
            value
                .and_then(Value::as_array)
                .map(|items| {
                    items
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        Capture {
            session_id: session_id.to_owned(),
            form: form.to_owned(),
            document: document.to_owned(),
            document_outcome: document_outcome.to_owned(),
            mrz: strings(response.get(DOCUMENT_KEY).and_then(|d| d.get("mrz"))),
            selfie: response
                .get(SELFIE_KEY)
                .and_then(Value::as_str)
                .map(str::to_owned),
        }
    }

    /// The provider's outcome of the capture, as a callback would give it: DONE,
    /// passed when the document verification PASSED, the person's names and date of
    /// birth as the machine readable zone gives them, assurance `DOCUMENT_ONLY`.
    /// Its `verificationId` is the session's reference, so a capture completes once.
    pub fn outcome(&self, reference: &str, now: Timestamp) -> VerificationOutcome {
        let read = mrz::parse(&self.mrz, now.datetime().date()).ok();
        let part = |text: &str| {
            let text = text.trim();
            (!text.is_empty()).then(|| title_case(text))
        };
        let owner = read
            .map(|mrz| {
                let mut given = mrz.secondary_identifier.split_whitespace();
                let given_name = given.next().and_then(part);
                let middle = given.collect::<Vec<_>>().join(" ");
                VerifiedOwner {
                    given_name,
                    middle_name: part(&middle),
                    family_name: part(&mrz.primary_identifier),
                    date_of_birth: mrz.birth_date.date().map(|d| {
                        format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())
                    }),
                    ..VerifiedOwner::default()
                }
            })
            .unwrap_or_default();
        VerificationOutcome {
            verification_id: format!("capture-{}", self.session_id),
            reference: reference.to_owned(),
            status: ProviderStatus::Done,
            passed: self.document_outcome == "PASSED",
            proofing_outcomes: vec![if self.document_outcome.is_empty() {
                "NOT_VERIFIED".to_owned()
            } else {
                self.document_outcome.clone()
            }],
            identity_owner: owner,
            assurance: Assurance::DocumentOnly,
        }
    }

    /// What the completion records of the capture, with the provider's callback body's
    /// place: the form, the document and the selfie.
    pub fn record(&self) -> Value {
        json!({"form": self.form, "document": self.document, "selfie": self.selfie,
            "documentOutcome": self.document_outcome})
    }
}

/// A name as the MRZ prints it (upper case), in title case: `ANNA MARIA` → `Anna Maria`.
fn title_case(text: &str) -> String {
    text.split(' ')
        .map(|word| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) => first
                    .to_uppercase()
                    .chain(chars.flat_map(char::to_lowercase))
                    .collect(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `execution` is a hosted capture's completion that ended without completing
/// its session (FAILED or CANCELLED); its session's parameter then.
pub fn failed_capture(execution: &Execution) -> Option<&str> {
    use crate::automation::execution::ExecutionState;
    (execution.automation_id == CAPTURE_AUTOMATION
        && matches!(
            execution.state,
            ExecutionState::Failed | ExecutionState::Cancelled
        ))
    .then(|| {
        execution
            .input_parameters
            .get("session")
            .and_then(Value::as_str)
    })
    .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TD3: [&str; 2] = [
        "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        "L898902C36UTO7408122F1204159ZE184226B<<<<<10",
    ];

    fn response(mrz: &[&str]) -> Map<String, Value> {
        json!({DOCUMENT_KEY: {"documentType": "PASSPORT", "mrz": mrz},
            SELFIE_KEY: "forms/capture-s1/files/f1"})
        .as_object()
        .cloned()
        .unwrap()
    }

    #[test]
    fn a_capture_reads_the_person_from_the_mrz_with_document_only_assurance() {
        let capture = Capture::of_response(
            "s1",
            "forms/capture-s1",
            "documents/d1",
            "PASSED",
            &response(&TD3),
        );
        assert_eq!(capture.selfie.as_deref(), Some("forms/capture-s1/files/f1"));
        let now = Timestamp::parse_rfc3339("2026-01-02T03:04:05Z").unwrap();
        let outcome = capture.outcome("t1.s1", now);
        assert!(outcome.passed);
        assert_eq!(outcome.status, ProviderStatus::Done);
        assert_eq!(outcome.assurance, Assurance::DocumentOnly);
        assert_eq!(outcome.reference, "t1.s1");
        assert_eq!(outcome.verification_id, "capture-s1");
        assert_eq!(outcome.proofing_outcomes, ["PASSED"]);
        let owner = outcome.identity_owner;
        assert_eq!(owner.given_name.as_deref(), Some("Anna"));
        assert_eq!(owner.middle_name.as_deref(), Some("Maria"));
        assert_eq!(owner.family_name.as_deref(), Some("Eriksson"));
        assert_eq!(owner.date_of_birth.as_deref(), Some("1974-08-12"));
    }

    #[test]
    fn a_failed_or_unread_document_does_not_pass_and_reads_nobody() {
        let capture = Capture::of_response("s1", "forms/f", "", "", &response(&["NOT AN MRZ"]));
        let outcome = capture.outcome("t1.s1", Timestamp::from_unix_micros(0).unwrap());
        assert!(!outcome.passed);
        assert_eq!(outcome.proofing_outcomes, ["NOT_VERIFIED"]);
        assert_eq!(outcome.identity_owner, VerifiedOwner::default());
        let failed = Capture::of_response("s1", "forms/f", "d", "FAILED", &response(&TD3));
        assert!(
            !failed
                .outcome("t1.s1", Timestamp::from_unix_micros(0).unwrap())
                .passed
        );
    }

    #[test]
    fn names_read_in_title_case() {
        assert_eq!(title_case("VAN DER BERG"), "Van Der Berg");
        assert_eq!(title_case("O"), "O");
    }
}
