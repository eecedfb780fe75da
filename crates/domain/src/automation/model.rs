//! The automation resource (`automations/{automation}`) in its JSON form: the
//! parameters it takes and the steps it runs, versioned by revision (AIP-162).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::proto_enum;
use crate::time::Timestamp;

proto_enum! {
    /// What a step does.
    pub enum StepKind("STEP_KIND_UNSPECIFIED") {
        /// Runs a job of a family (`family`) about `entity` and waits for it; its
        /// output is the job's result.
        RunJob = "RUN_JOB",
        /// Creates or updates `entity` from the response of `form`, by the fixed
        /// key-to-field table of `formDefinitions/kyc-individual`.
        UpsertEntityFromForm = "UPSERT_ENTITY_FROM_FORM",
        /// Creates a form of `formDefinition` (about `entity`) and waits for its
        /// submission, at most `deadline` (the form's `expireTime`).
        RequestForm = "REQUEST_FORM",
        /// Evaluates the AIP-160 `condition` over the parameters and earlier outputs,
        /// then goes on at the step `then` or `else` names (`END` ends the run); the
        /// steps it passes over are SKIPPED.
        Branch = "BRANCH",
        /// Raises an alert of `alertType` about `entity`.
        RaiseAlert = "RAISE_ALERT",
        /// Adds `tag` to `entity`'s tags.
        AddTag = "ADD_TAG",
        /// Writes an activity log about `entity` with `description`.
        WriteActivityLog = "WRITE_ACTIVITY_LOG",
        /// Waits until `time` (RFC 3339).
        WaitUntil = "WAIT_UNTIL",
        /// Sends a webhook message of `eventType` carrying `data` to `url` (signed with
        /// the tenant's webhook signing secret) or to `endpoint`
        /// (`webhookEndpoints/{e}`), through the webhook outbox: an
        /// `automation_execution.notified` event, delivered as every event is.
        NotifyWebhook = "NOTIFY_WEBHOOK",
        /// Waits for the submission of the existing `form` (`forms/{form}`), until the
        /// form expires.
        AwaitForm = "AWAIT_FORM",
        /// Maps the submitted `form` with the JSONata expression of the onboarding
        /// `job` into an entity, creates it (or updates the job's entity) and stores
        /// the form's identity document; its output is `{entity, document,
        /// hasDocument}`.
        MapOnboarding = "MAP_ONBOARDING",
        /// Decides the onboarding `job` on what the journey found (`documentOutcome`,
        /// `screeningStatus`, `riskLevel`), and ends its run `operation` with the
        /// decision, telling the job's `webhookUri`.
        DecideOnboarding = "DECIDE_ONBOARDING",
        /// Completes the built-in identity verification's `session` with its submitted
        /// capture `form`, its stored `document` and the document verification's
        /// `documentOutcome`, as a provider's callback completes a session; its output
        /// is the session.
        CompleteCapture = "COMPLETE_CAPTURE",
    }
}

/// One step of an automation.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AutomationStep {
    /// The step's key, `^[a-z][a-z0-9_]*$`, at most 63 characters, unique among the
    /// steps: later steps read its output as `${steps.{key}.output...}`. Required.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub key: String,
    /// What the step does. Required.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "StepKind::is_unspecified"
    )]
    pub kind: StepKind,
    /// The step's arguments, each a string, which may refer to the parameters
    /// (`${parameters.entity}`) and to earlier steps' outputs
    /// (`${steps.screen.output.status}`). Which ones a kind takes: see `kind`.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "Map::is_empty"
    )]
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub args: Map<String, Value>,
}

crate::resource_struct! {
    /// A durable multi-step process: the parameters it takes and the steps it runs.
    /// Each change of `inputSchema` or `steps` is a new revision; an execution keeps
    /// the revision it started with.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Automation named "`automations/{automation}`. Output only." {
        /// Human-readable name, at most 200 characters. Required.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub display_name: String,
        /// What the automation does, at most 2000 characters.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub description: String,
        /// The parameters a run takes, at most 50: each name (`^[a-z][a-zA-Z0-9_]{0,62}$`) with its JSON
        /// Schema. A parameter is required unless its schema has a `default`.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "Map::is_empty"
        )]
        #[cfg_attr(feature = "openapi", schema(value_type = Object))]
        pub input_schema: Map<String, Value>,
        /// The steps, 1 to 100, run in order. Required.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "Vec::is_empty"
        )]
        pub steps: Vec<AutomationStep>,
        /// Whether the automation is one every tenant is given, which cannot be
        /// changed or deleted. Output only.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "std::ops::Not::not"
        )]
        pub built_in: bool,
        /// The revision of `inputSchema` and `steps` (AIP-162): eight lower-case
        /// letters and digits, new with each change of them. Output only.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub revision_id: String,
        /// When this revision was made. Output only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub revision_create_time: Option<Timestamp>,
    }
    times: update_time delete_time purge_time;
}

crate::named_resource!(Automation, "automations", "automation");

crate::soft_deletable!(Automation);

/// What a revision of an automation holds: what a run follows.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AutomationDefinition {
    /// The parameters.
    #[serde(default)]
    pub input_schema: Map<String, Value>,
    /// The steps.
    #[serde(default)]
    pub steps: Vec<AutomationStep>,
}

impl Automation {
    /// What this revision runs: its parameters and steps.
    pub fn definition(&self) -> AutomationDefinition {
        AutomationDefinition {
            input_schema: self.input_schema.clone(),
            steps: self.steps.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn steps_read_their_kind_and_keep_their_args() {
        let step: AutomationStep =
            serde_json::from_value(json!({"key": "tag", "kind": "ADD_TAG", "args": {"tag": "x"}}))
                .unwrap();
        assert_eq!(step.kind, StepKind::AddTag);
        assert_eq!(
            serde_json::to_value(&step).unwrap(),
            json!({"key": "tag", "kind": "ADD_TAG", "args": {"tag": "x"}})
        );
        assert!(serde_json::from_value::<AutomationStep>(json!({"kind": "FLY"})).is_err());
    }
}
