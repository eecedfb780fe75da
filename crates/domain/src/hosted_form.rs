//! The hosted form: a person who is no API client fills a DRAFT form through a link
//! ([`crate::hosted`]), one step of its definition at a time, and submits it.
//!
//! What a link opens follows from its grant and its form alone: a token that does not
//! open, or names a form its tenant does not have, is unknown; a grant past its
//! `expire_time`, or a form no longer DRAFT, is gone. Every read and write acts in the
//! grant's tenant only, through [`FormService`] and [`FileService`], the paths the API
//! takes, as a principal that names the link's form.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::error::{Code, Error, FieldViolation, Result};
use crate::file::content::ContentStream;
use crate::file::model::{File, FileParent};
use crate::file::service::FileService;
use crate::form::service::accepts;
use crate::form::{Form, FormService, FormState};
use crate::form_definition::model::{FormSchema, FormStep};
use crate::form_definition::response_schema::{Completeness, ResponseSchema};
use crate::hosted::{HostedLinkGrant, HostedLinks};
use crate::lifecycle::SoftDeleteMethods;
use crate::methods::UpdateMethod;
use crate::principal::Principal;
use crate::time::Clock;

/// The request path that violations of a response name (`form.response.email`).
pub const RESPONSE_PATH: &str = "form.response";

/// What a link opens to.
#[derive(Debug, Clone, PartialEq)]
pub enum Opened {
    /// The token was not issued with this key, was altered, or names a form that does
    /// not exist: nothing is shown.
    Unknown,
    /// The grant expired, or the form is SUBMITTED or EXPIRED: the link is used up.
    Gone,
    /// A DRAFT form that may be filled in.
    Open(Box<HostedForm>),
}

/// A DRAFT form opened by a link, with what its pages need.
#[derive(Debug, Clone, PartialEq)]
pub struct HostedForm {
    /// The link's grant.
    pub grant: HostedLinkGrant,
    /// Who acts through the link: the grant's tenant, a subject naming the form.
    pub principal: Principal,
    /// The form as it is now.
    pub form: Form,
    /// The steps of the revision it pinned.
    pub schema: FormSchema,
}

impl HostedForm {
    /// The form's id (`forms/{id}`).
    pub fn form_id(&self) -> &str {
        &self.grant.form
    }

    /// The answers saved so far.
    pub fn response(&self) -> Map<String, Value> {
        self.form.response.clone().unwrap_or_default()
    }
}

/// The hosted form's use cases.
pub struct HostedForms {
    links: Arc<HostedLinks>,
    forms: Arc<FormService>,
    files: Arc<FileService>,
    clock: Arc<dyn Clock>,
}

impl HostedForms {
    /// The hosted forms of the links `links` issues, kept through `forms` and `files`.
    pub fn new(
        links: Arc<HostedLinks>,
        forms: Arc<FormService>,
        files: Arc<FileService>,
        clock: Arc<dyn Clock>,
    ) -> HostedForms {
        HostedForms {
            links,
            forms,
            files,
            clock,
        }
    }

    /// What `token` opens to now.
    ///
    /// # Errors
    /// What the stores fail with (UNAVAILABLE, INTERNAL); FAILED_PRECONDITION
    /// (`FORM_DEFINITION_MISSING`) when the form's revision was purged.
    pub async fn open(&self, token: &str) -> Result<Opened> {
        let Some(grant) = self.links.open(token) else {
            return Ok(Opened::Unknown);
        };
        let principal = link_principal(&grant);
        let form = match self.forms.get(&principal, &grant.form).await {
            Ok(form) => form,
            Err(e) if matches!(e.code, Code::NotFound | Code::InvalidArgument) => {
                return Ok(Opened::Unknown);
            }
            Err(e) => return Err(e),
        };
        if grant.is_expired(self.clock.now()) || form.state != FormState::Draft {
            return Ok(Opened::Gone);
        }
        let schema = self.forms.schema_of(&principal, &form).await?;
        Ok(Opened::Open(Box::new(HostedForm {
            grant,
            principal,
            form,
            schema,
        })))
    }

    /// Stores `content` as a file of the form, named `display_name`, for the answer at
    /// `field` (`form.response.selfie`) whose field accepts the content types `accept`
    /// (any when empty). Its type is read from its bytes as every upload's is; a file of
    /// a type the field does not accept is removed again and refused.
    ///
    /// # Errors
    /// As the upload of a file: INVALID_ARGUMENT for content that is empty, too large
    /// or of a type not allowed; FAILED_PRECONDITION when the form stopped being DRAFT;
    /// INVALID_ARGUMENT `FILE_TYPE_NOT_ACCEPTED` naming `field` for a type `accept`
    /// does not admit.
    pub async fn upload(
        &self,
        open: &HostedForm,
        field: &str,
        accept: &[String],
        display_name: &str,
        content: ContentStream,
    ) -> Result<File> {
        let name: String = display_name.chars().take(MAX_FILE_NAME).collect();
        let name = if name.trim().is_empty() {
            "upload".to_owned()
        } else {
            name
        };
        let files = self
            .files
            .within(FileParent::Form(open.form_id().to_owned()));
        let file = files
            .upload(
                &open.principal,
                json!({"displayName": name}),
                content,
                None,
                None,
            )
            .await?;
        if accept.is_empty() || accepts(accept, &file.content_type) {
            return Ok(file);
        }
        let id = file.name.rsplit('/').next().unwrap_or_default();
        files.delete(&open.principal, id, None, false).await?;
        Err(Error::invalid_field(
            field,
            "FILE_TYPE_NOT_ACCEPTED",
            format!(
                "is a file of type {}; this answer takes {}",
                file.content_type,
                accept.join(", ")
            ),
        ))
    }

    /// Saves `response` as the form's DRAFT response, checked as a draft's is (the
    /// types of its answers, the files they name).
    ///
    /// # Errors
    /// As an update of the form: INVALID_ARGUMENT with a violation per fault of the
    /// response; FAILED_PRECONDITION when the form stopped being DRAFT; ABORTED for a
    /// concurrent change.
    pub async fn save(&self, open: &HostedForm, response: Map<String, Value>) -> Result<Form> {
        self.forms
            .update(
                &open.principal,
                open.form_id(),
                json!({"response": response}),
                Some("response"),
            )
            .await
    }

    /// Submits the form, as `:submit` does.
    ///
    /// # Errors
    /// As [`FormService::submit`]: INVALID_ARGUMENT with a violation per fault of the
    /// whole response.
    pub async fn submit(&self, open: &HostedForm) -> Result<Form> {
        self.forms
            .submit(&open.principal, open.form_id(), None)
            .await
    }
}

/// The longest display name a file may have.
const MAX_FILE_NAME: usize = 255;

/// Who acts through the link of `grant`: its tenant, and a subject that names the form,
/// so the form's events say the link wrote them.
pub fn link_principal(grant: &HostedLinkGrant) -> Principal {
    Principal {
        tenant: grant.tenant_id(),
        subject: format!("hosted-form:{}", grant.form),
        display_name: "Hosted form".to_owned(),
        scopes: Default::default(),
    }
}

/// The ways the answers in `response` to the fields of `step` break the rules a
/// submitted response keeps, each naming its answer under [`RESPONSE_PATH`]: what a
/// step checks before the person moves on.
pub fn step_violations(
    step: &FormStep,
    response: &Map<String, Value>,
) -> Result<Vec<FieldViolation>> {
    let schema = FormSchema {
        steps: vec![step.clone()],
    };
    let answers: Map<String, Value> = step
        .fields
        .iter()
        .filter_map(|field| {
            response
                .get(&field.key)
                .map(|answer| (field.key.clone(), answer.clone()))
        })
        .collect();
    Ok(ResponseSchema::compile(&schema)?.violations(
        &answers,
        Completeness::Complete,
        RESPONSE_PATH,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::form_definition::model::{FieldType, FormField};

    fn step() -> FormStep {
        FormStep {
            key: "contact".into(),
            label: "Contact".into(),
            fields: vec![
                FormField {
                    key: "email".into(),
                    label: "Email".into(),
                    field_type: FieldType::Email,
                    required: true,
                    ..FormField::default()
                },
                FormField {
                    key: "nickname".into(),
                    label: "Nickname".into(),
                    field_type: FieldType::Text,
                    ..FormField::default()
                },
            ],
        }
    }

    #[test]
    fn a_step_checks_its_own_answers_as_a_submit_would() {
        let mut response = Map::new();
        response.insert("given_name".into(), json!("Jane"));
        let violations = step_violations(&step(), &response).unwrap();
        let fields: Vec<_> = violations.iter().map(|v| v.field.as_str()).collect();
        assert_eq!(fields, ["form.response.email"]);
        response.insert("email".into(), json!("not an email"));
        let violations = step_violations(&step(), &response).unwrap();
        assert_eq!(violations[0].reason, "INVALID_ANSWER");
        response.insert("email".into(), json!("jane@example.com"));
        assert_eq!(step_violations(&step(), &response).unwrap(), vec![]);
    }

    #[test]
    fn the_link_acts_in_its_grants_tenant() {
        let grant = HostedLinkGrant {
            tenant: "acme".into(),
            form: "kyc-1".into(),
            expire_time: crate::time::Timestamp::from_unix_micros(0).unwrap(),
            redirect_uri: None,
        };
        let principal = link_principal(&grant);
        assert_eq!(principal.tenant.as_str(), "acme");
        assert_eq!(principal.subject, "hosted-form:kyc-1");
        assert!(principal.scopes.is_empty());
    }
}
