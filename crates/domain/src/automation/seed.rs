//! The automations every tenant starts with, which cannot be changed: three tasks
//! (`screen-entity`, `rate-entity`, `verify-document`) and two processes
//! (`kyc-individual`, `periodic-review`), each taking the parameter `entity`; the
//! journey of onboarding jobs (`onboard-individual`, taking the parameters `job`,
//! `operation` and `form`); and the completion of the built-in identity verification
//! (`capture-identity`, taking `entity`, `session` and `form`). Tenants that existed
//! before automations got them from the migrations `2026-11-25-000019_automations`,
//! `2026-11-27-000028_onboard_individual_automation` and
//! `2026-11-29-000032_hosted_capture`, with the same values (the storage contract tests
//! compare the two).

use async_trait::async_trait;
use serde_json::{Value, json};

use super::model::{Automation, AutomationStep};
use crate::error::{Error, Result};
use crate::job::onboarding::ONBOARD_AUTOMATION;
use crate::resource::etag;
use crate::tenant::ports::TenantPlan;
use crate::tenant::service::{Credentials, ProvisioningStep};
use crate::time::Timestamp;
use crate::verification::capture::CAPTURE_AUTOMATION;

/// The revision of every built-in automation.
pub const BUILT_IN_REVISION: &str = "builtin1";

/// The ids of the built-in automations, in the order they are created.
pub const BUILT_IN: [&str; 7] = [
    "screen-entity",
    "rate-entity",
    "verify-document",
    "kyc-individual",
    "periodic-review",
    ONBOARD_AUTOMATION,
    CAPTURE_AUTOMATION,
];

/// The schema of the parameter `entity` every built-in automation takes.
fn entity_parameter() -> Value {
    json!({"type": "string", "pattern": "^entities/[a-z0-9-]{1,63}$",
        "description": "The entity's resource name, entities/{entity}."})
}

/// A RUN_JOB step `key` of `family` about the parameter `entity`.
fn run_job(key: &str, family: &str) -> Value {
    json!({"key": key, "kind": "RUN_JOB",
        "args": {"family": family, "entity": "${parameters.entity}"}})
}

/// The schema of a string parameter holding a resource name matching `pattern`.
fn name_parameter(pattern: &str, description: &str) -> Value {
    json!({"type": "string", "pattern": pattern, "description": description})
}

/// The display name, description, parameters besides `entity` and steps of the
/// built-in `id`; the parameters replace `entity` when the id is the onboarding
/// journey's.
fn built_in(id: &str) -> Option<(&'static str, &'static str, Value, Value)> {
    let screen = run_job("screen", "pepSanctionIndividualEntityJobs");
    let rate = run_job("rate", "individualEntityRiskRatingJobs");
    Some(match id {
        "screen-entity" => (
            "Screen an entity",
            "Screens the entity against the PEP and sanctions lists.",
            json!({}),
            json!([screen]),
        ),
        "rate-entity" => (
            "Rate an entity's risk",
            "Rates the entity's risk with the tenant's risk model.",
            json!({}),
            json!([rate]),
        ),
        "verify-document" => (
            "Verify an identity document",
            "Verifies an identity document of the entity: the one `document` names, else its latest.",
            json!({"document": {"type": "string", "default": "",
                "description": "The document's resource name, entities/{entity}/documents/{document}; the entity's latest when empty."}}),
            json!([{"key": "verify", "kind": "RUN_JOB", "args": {
                "family": "individualEntityIDVerificationJobs",
                "entity": "${parameters.entity}", "document": "${parameters.document}"}}]),
        ),
        "kyc-individual" => (
            "Individual KYC",
            "Requests the KYC form and waits for it (14 days at most), updates the entity from the response, verifies its identity document, screens it, rates its risk, and tags the outcome kyc-passed or kyc-referred.",
            json!({}),
            json!([
                {"key": "request", "kind": "REQUEST_FORM", "args": {
                    "formDefinition": "formDefinitions/kyc-individual",
                    "entity": "${parameters.entity}", "deadline": "1209600s"}},
                {"key": "update", "kind": "UPSERT_ENTITY_FROM_FORM", "args": {
                    "form": "${steps.request.output.form}", "entity": "${parameters.entity}"}},
                {"key": "verify", "kind": "RUN_JOB", "args": {
                    "family": "individualEntityIDVerificationJobs",
                    "entity": "${parameters.entity}", "document": "${steps.update.output.document}"}},
                screen,
                rate,
                {"key": "decide", "kind": "BRANCH", "args": {
                    "condition": "steps.verify.output.outcome = \"PASSED\" AND steps.screen.output.status = \"CLEAR\" AND steps.rate.output.riskLevel != \"HIGH\"",
                    "else": "referred"}},
                {"key": "passed", "kind": "ADD_TAG", "args": {
                    "entity": "${parameters.entity}", "tag": "kyc-passed"}},
                {"key": "done", "kind": "BRANCH", "args": {
                    "condition": "steps.decide.output.matched = true", "then": "END"}},
                {"key": "referred", "kind": "ADD_TAG", "args": {
                    "entity": "${parameters.entity}", "tag": "kyc-referred"}}
            ]),
        ),
        "periodic-review" => (
            "Periodic review",
            "Re-screens the entity and re-rates its risk, and raises an Ongoing Customer Due Diligence Required alert when its risk level rose.",
            json!({}),
            json!([
                screen,
                rate,
                {"key": "rose", "kind": "BRANCH", "args": {
                    "condition": "steps.rate.output.riskLevelRose = true", "else": "END"}},
                {"key": "alert", "kind": "RAISE_ALERT", "args": {
                    "alertType": "alertTypes/ongoing-customer-due-diligence-required",
                    "entity": "${parameters.entity}",
                    "description": "The entity's risk level rose at its periodic review."}}
            ]),
        ),
        ONBOARD_AUTOMATION => (
            "Onboard an individual",
            "The journey of an onboarding job's run: waits for the person to submit the run's hosted form, maps the response with the job's JSONata expression into an entity (created, or the job's entity updated) and stores the identity document, verifies the document, screens and rates the person, then decides APPROVED, REFER or REJECTED and ends the job's run, telling its webhookUri.",
            json!({
                "job": name_parameter("^entities/[a-z0-9-]{1,63}/onboardIndividualEntityJobs/[a-z0-9-]{1,63}$",
                    "The onboarding job, entities/{entity}/onboardIndividualEntityJobs/{job}."),
                "operation": name_parameter("^entities/[a-z0-9-]{1,63}/onboardIndividualEntityJobs/[a-z0-9-]{1,63}/operations/[a-z0-9-]{1,63}$",
                    "The job's run, its operation's name."),
                "form": name_parameter("^forms/[a-z0-9-]{1,63}$",
                    "The run's form, which its link opens, forms/{form}.")
            }),
            json!([
                {"key": "submitted", "kind": "AWAIT_FORM", "args": {"form": "${parameters.form}"}},
                {"key": "map", "kind": "MAP_ONBOARDING", "args": {
                    "job": "${parameters.job}", "form": "${parameters.form}"}},
                {"key": "has_document", "kind": "BRANCH", "args": {
                    "condition": "steps.map.output.hasDocument = true", "else": "screen"}},
                {"key": "verify", "kind": "RUN_JOB", "args": {
                    "family": "individualEntityIDVerificationJobs",
                    "entity": "${steps.map.output.entity}", "document": "${steps.map.output.document}"}},
                {"key": "screen", "kind": "RUN_JOB", "args": {
                    "family": "pepSanctionIndividualEntityJobs", "entity": "${steps.map.output.entity}"}},
                {"key": "rate", "kind": "RUN_JOB", "args": {
                    "family": "individualEntityRiskRatingJobs", "entity": "${steps.map.output.entity}"}},
                {"key": "decide", "kind": "DECIDE_ONBOARDING", "args": {
                    "job": "${parameters.job}", "operation": "${parameters.operation}",
                    "entity": "${steps.map.output.entity}", "document": "${steps.map.output.document}",
                    "documentOutcome": "${steps.verify.output.outcome}",
                    "screeningStatus": "${steps.screen.output.status}",
                    "riskLevel": "${steps.rate.output.riskLevel}",
                    "screeningJob": "${steps.screen.output.job}",
                    "ratingJob": "${steps.rate.output.job}"}}
            ]),
        ),
        CAPTURE_AUTOMATION => (
            "Capture an identity",
            "The completion of the built-in identity verification's session: waits for the person to submit the session's hosted capture form, stores the identity document and verifies it, then completes the session with the assurance DOCUMENT_ONLY (the selfie is stored, not compared).",
            json!({
                "session": name_parameter("^verificationSessions/[a-z0-9-]{1,63}$",
                    "The verification session, verificationSessions/{session}."),
                "form": name_parameter("^forms/[a-z0-9-]{1,63}$",
                    "The session's capture form, which its link opens, forms/{form}.")
            }),
            json!([
                {"key": "submitted", "kind": "AWAIT_FORM", "args": {"form": "${parameters.form}"}},
                {"key": "store", "kind": "UPSERT_ENTITY_FROM_FORM", "args": {
                    "form": "${parameters.form}", "entity": "${parameters.entity}"}},
                {"key": "verify", "kind": "RUN_JOB", "args": {
                    "family": "individualEntityIDVerificationJobs",
                    "entity": "${parameters.entity}", "document": "${steps.store.output.document}"}},
                {"key": "complete", "kind": "COMPLETE_CAPTURE", "args": {
                    "session": "${parameters.session}", "form": "${parameters.form}",
                    "document": "${steps.store.output.document}",
                    "documentOutcome": "${steps.verify.output.outcome}"}}
            ]),
        ),
        _ => return None,
    })
}

impl Automation {
    /// The built-in automation `id` of the tenant `tenant`, created at `created` (its
    /// tenant's creation); `None` for an id that is not built in. Its uid is derived,
    /// `{tenant}:{id}`, as the seeded form definition's is: SQL has no portable random
    /// UUID, and the migration gives the same value.
    pub fn built_in(tenant: &str, id: &str, created: Timestamp) -> Option<Automation> {
        let (display_name, description, extra, steps) = built_in(id)?;
        let mut input_schema = serde_json::Map::new();
        if id != ONBOARD_AUTOMATION {
            input_schema.insert("entity".to_owned(), entity_parameter());
        }
        if let Value::Object(extra) = extra {
            input_schema.extend(extra);
        }
        let steps: Vec<AutomationStep> = serde_json::from_value(steps).ok()?;
        let uid = format!("{tenant}:{id}");
        Some(Automation {
            name: Automation::name_of(id),
            etag: etag(&uid, 1),
            uid,
            display_name: display_name.to_owned(),
            description: description.to_owned(),
            input_schema,
            steps,
            built_in: true,
            revision_id: BUILT_IN_REVISION.to_owned(),
            revision_create_time: Some(created),
            create_time: Some(created),
            update_time: Some(created),
            delete_time: None,
            purge_time: None,
            revision: 1,
        })
    }
}

/// The provisioning step that gives a new tenant the built-in automations, created
/// with the tenant. It also runs on the first start's bootstrap.
#[derive(Debug, Default, Clone, Copy)]
pub struct DefaultAutomations;

#[async_trait]
impl ProvisioningStep for DefaultAutomations {
    fn name(&self) -> &'static str {
        "default-automations"
    }

    async fn apply(&self, plan: &mut TenantPlan, _credentials: &mut Credentials) -> Result<()> {
        let created = plan.creation_time()?;
        let tenant = plan.tenant.id().to_owned();
        for id in BUILT_IN {
            let automation = Automation::built_in(&tenant, id, created)
                .ok_or_else(|| Error::internal("a built-in automation that does not read"))?;
            plan.automations.push(automation);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automation::rules;
    use crate::validate::Violations;

    #[test]
    fn every_built_in_automation_keeps_the_rules_and_takes_its_subject() {
        for id in BUILT_IN {
            let automation = Automation::built_in("t", id, Timestamp::from_unix_micros(1).unwrap())
                .unwrap_or_else(|| panic!("{id} does not read"));
            let mut v = Violations::new();
            rules::check(&automation, &mut v);
            assert!(v.is_empty(), "{id}: {:?}", v.into_vec());
            let subject = if id == ONBOARD_AUTOMATION {
                "job"
            } else {
                "entity"
            };
            assert!(automation.input_schema.contains_key(subject), "{id}");
        }
        assert!(
            Automation::built_in("t", "other", Timestamp::from_unix_micros(1).unwrap()).is_none()
        );
    }
}
