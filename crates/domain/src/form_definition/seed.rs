//! The form definition every tenant starts with: `formDefinitions/kyc-individual`, the
//! know-your-customer details of an individual, which onboarding and automations use.
//! Tenants that existed before forms got it from the migration
//! `2026-11-25-000013_form_definitions`, with the same values (the storage contract
//! tests compare the two).

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

impl FormDefinition {
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

/// The provisioning step that gives a new tenant `formDefinitions/kyc-individual`,
/// created with the tenant. It also runs on the first start's bootstrap.
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
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::form_definition::rules;
    use crate::validate::Violations;

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
