//! The form definitions every tenant starts with: `formDefinitions/kyc-individual`, the
//! know-your-customer details of an individual, which onboarding and automations use;
//! and `formDefinitions/identity-capture`, the identity document and selfie the
//! built-in identity verification provider captures on its hosted page. Tenants that
//! existed before got them from the migrations `2026-11-25-000013_form_definitions` and
//! `2026-11-29-000032_hosted_capture`, with the same values (the storage contract tests
//! compare them).

use async_trait::async_trait;
use serde_json::json;

use super::model::{FormDefinition, FormSchema};
use super::response_schema::response_schema;
use crate::error::Result;
use crate::resource::etag;
use crate::tenant::ports::TenantPlan;
use crate::tenant::service::{Credentials, ProvisioningStep};
use crate::time::Timestamp;

/// The seeded definition's id.
pub const KYC_INDIVIDUAL: &str = "kyc-individual";

/// The seeded definition's first revision.
pub const KYC_INDIVIDUAL_REVISION: &str = "kyc00001";

/// The seeded definition's display name.
pub const KYC_INDIVIDUAL_DISPLAY_NAME: &str = "Individual KYC";

/// The seeded definition's description.
pub const KYC_INDIVIDUAL_DESCRIPTION: &str = "Know-your-customer details of an individual: name, birth, nationality, address, contact, identity document and selfie.";

/// The schema of `formDefinitions/kyc-individual`.
pub fn kyc_individual_schema() -> FormSchema {
    let schema = json!({"steps": [
        {"key": "personal", "label": "Personal details", "fields": [
            {"key": "given_name", "label": "Given name", "type": "TEXT", "required": true},
            {"key": "middle_names", "label": "Middle names", "type": "TEXT"},
            {"key": "family_name", "label": "Family name", "type": "TEXT", "required": true},
            {"key": "date_of_birth", "label": "Date of birth", "type": "DATE", "required": true},
            {"key": "nationality", "label": "Nationality", "type": "COUNTRY", "required": true},
            {"key": "occupation", "label": "Occupation", "type": "TEXT"}
        ]},
        {"key": "contact", "label": "Contact details", "fields": [
            {"key": "email", "label": "Email address", "type": "EMAIL", "required": true},
            {"key": "phone", "label": "Phone number", "type": "PHONE"},
            {"key": "residential_address", "label": "Residential address", "type": "ADDRESS"}
        ]},
        {"key": "identity", "label": "Identity", "fields": [
            {"key": "identity_document", "label": "Identity document", "type": "DOCUMENT", "required": true},
            {"key": "selfie", "label": "Selfie", "type": "FILE", "accept": ["image/jpeg", "image/png"]}
        ]}
    ]});
    serde_json::from_value(schema).unwrap_or_default()
}

/// The hosted capture's definition's id.
pub const IDENTITY_CAPTURE: &str = "identity-capture";

/// The hosted capture's definition's revision, which its forms pin.
pub const IDENTITY_CAPTURE_REVISION: &str = "cap00001";

/// The hosted capture's definition's display name.
pub const IDENTITY_CAPTURE_DISPLAY_NAME: &str = "Identity capture";

/// The hosted capture's definition's description.
pub const IDENTITY_CAPTURE_DESCRIPTION: &str = "The identity document (its machine readable zone typed in and a photo) and a selfie that the built-in identity verification captures.";

/// The schema of `formDefinitions/identity-capture`: the keys are kyc-individual's,
/// so the document is stored as that form's is.
pub fn identity_capture_schema() -> FormSchema {
    let schema = json!({"steps": [
        {"key": "document", "label": "Identity document", "fields": [
            {"key": "identity_document", "label": "Identity document", "type": "DOCUMENT", "required": true}
        ]},
        {"key": "selfie", "label": "Selfie", "fields": [
            {"key": "selfie", "label": "Selfie", "type": "FILE", "required": true, "accept": ["image/jpeg", "image/png"]}
        ]}
    ]});
    serde_json::from_value(schema).unwrap_or_default()
}

impl FormDefinition {
    /// `formDefinitions/identity-capture` of the tenant `tenant`, created at `created`,
    /// with the derived uid `{tenant}:identity-capture`, as kyc-individual's.
    pub fn identity_capture(tenant: &str, created: Timestamp) -> FormDefinition {
        let uid = format!("{tenant}:{IDENTITY_CAPTURE}");
        let schema = identity_capture_schema();
        FormDefinition {
            name: FormDefinition::name_of(IDENTITY_CAPTURE),
            etag: etag(&uid, 1),
            uid,
            display_name: IDENTITY_CAPTURE_DISPLAY_NAME.to_owned(),
            description: IDENTITY_CAPTURE_DESCRIPTION.to_owned(),
            response_schema: Some(response_schema(&schema)),
            schema: Some(schema),
            revision_id: IDENTITY_CAPTURE_REVISION.to_owned(),
            revision_create_time: Some(created),
            create_time: Some(created),
            update_time: Some(created),
            delete_time: None,
            purge_time: None,
            revision: 1,
        }
    }

    /// `formDefinitions/kyc-individual` of the tenant `tenant`, created at `created`
    /// (its tenant's creation). Its uid is derived, `{tenant}:kyc-individual`, as the
    /// default alert types' are: SQL has no portable random UUID, and the migration
    /// gives the same value.
    pub fn kyc_individual(tenant: &str, created: Timestamp) -> FormDefinition {
        let uid = format!("{tenant}:{KYC_INDIVIDUAL}");
        let schema = kyc_individual_schema();
        FormDefinition {
            name: FormDefinition::name_of(KYC_INDIVIDUAL),
            etag: etag(&uid, 1),
            uid,
            display_name: KYC_INDIVIDUAL_DISPLAY_NAME.to_owned(),
            description: KYC_INDIVIDUAL_DESCRIPTION.to_owned(),
            response_schema: Some(response_schema(&schema)),
            schema: Some(schema),
            revision_id: KYC_INDIVIDUAL_REVISION.to_owned(),
            revision_create_time: Some(created),
            create_time: Some(created),
            update_time: Some(created),
            delete_time: None,
            purge_time: None,
            revision: 1,
        }
    }
}

/// The provisioning step that gives a new tenant `formDefinitions/kyc-individual` and
/// `formDefinitions/identity-capture`, created with the tenant. It also runs on the first start's bootstrap.
#[derive(Debug, Default, Clone, Copy)]
pub struct DefaultFormDefinitions;

#[async_trait]
impl ProvisioningStep for DefaultFormDefinitions {
    fn name(&self) -> &'static str {
        "default-form-definitions"
    }

    async fn apply(&self, plan: &mut TenantPlan, _credentials: &mut Credentials) -> Result<()> {
        let created = plan.creation_time()?;
        let tenant = plan.tenant.id().to_owned();
        plan.form_definitions
            .push(FormDefinition::kyc_individual(&tenant, created));
        plan.form_definitions
            .push(FormDefinition::identity_capture(&tenant, created));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::form_definition::rules;
    use crate::validate::Violations;

    #[test]
    fn the_capture_definition_keeps_the_rules() {
        let schema = identity_capture_schema();
        let mut v = Violations::new();
        rules::check(&schema, "formDefinition.schema", &mut v);
        assert!(v.is_empty(), "{:?}", v.into_vec());
        let keys: Vec<&str> = schema.fields().map(|f| f.key.as_str()).collect();
        assert_eq!(keys, ["identity_document", "selfie"]);
    }

    #[test]
    fn the_kyc_definition_keeps_the_rules_and_has_the_issue_s_keys() {
        let schema = kyc_individual_schema();
        let mut v = Violations::new();
        rules::check(&schema, "formDefinition.schema", &mut v);
        assert!(v.is_empty(), "{:?}", v.into_vec());
        let keys: Vec<&str> = schema.fields().map(|f| f.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "given_name",
                "middle_names",
                "family_name",
                "date_of_birth",
                "nationality",
                "occupation",
                "email",
                "phone",
                "residential_address",
                "identity_document",
                "selfie"
            ]
        );
    }
}
