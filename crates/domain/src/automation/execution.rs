//! An execution of an automation (`automations/{automation}/executions/{execution}`):
//! the parameters it started with, where it is, and each step's state, output and
//! the resources it made. It keeps the automation's revision it started with.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::operation::OperationError;
use crate::proto_enum;
use crate::time::Timestamp;

/// The queue name (`job_tasks.family`) of execution work: an execution's one task,
/// claimed once per step, waits in the job queue under it.
pub const EXECUTION_QUEUE: &str = "automationExecutions";

/// `metadata.type` of a run's operation.
pub const RUN_OPERATION_TYPE: &str = "rics.v1alpha.RunAutomation";

proto_enum! {
    /// Where an execution is in its life.
    pub enum ExecutionState("STATE_UNSPECIFIED") {
        /// Started, no step run yet.
        Pending = "PENDING",
        /// A step is running or queued.
        Running = "RUNNING",
        /// A step waits for a form's submission.
        WaitingForInput = "WAITING_FOR_INPUT",
        /// Every step ran.
        Succeeded = "SUCCEEDED",
        /// A step failed for good.
        Failed = "FAILED",
        /// Cancelled with `:cancel`.
        Cancelled = "CANCELLED",
    }
}

proto_enum! {
    /// Where one step of an execution is.
    pub enum StepState("STATE_UNSPECIFIED") {
        /// Not reached yet.
        Pending = "PENDING",
        /// Started: its work (a job run, a wait) is under way.
        Running = "RUNNING",
        /// Waits for a form's submission.
        WaitingForInput = "WAITING_FOR_INPUT",
        /// Done; its output is set.
        Succeeded = "SUCCEEDED",
        /// Failed; the execution failed with it.
        Failed = "FAILED",
        /// Passed over by a branch, or not reached when the run ended.
        Skipped = "SKIPPED",
        /// The execution was cancelled while it ran.
        Cancelled = "CANCELLED",
    }
}

impl ExecutionState {
    /// Whether nothing can change the execution any more.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            ExecutionState::Succeeded | ExecutionState::Failed | ExecutionState::Cancelled
        )
    }
}

/// One step of an execution.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExecutionStep {
    /// The step's key in the automation.
    pub key: String,
    /// Where it is.
    pub state: StepState,
    /// When it started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_time: Option<Timestamp>,
    /// When it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_time: Option<Timestamp>,
    /// What it produced, which later steps read as `${steps.{key}.output...}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    /// The names of what it made: job, operation, form, alert, activity log.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<String>,
}

/// An execution, as stored: its JSON form plus what the engine needs (the revision it
/// follows, the step it is at, its operation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Execution {
    /// The execution's id.
    pub id: String,
    /// The automation's id.
    pub automation_id: String,
    /// The automation's revision it follows.
    pub automation_revision: String,
    /// `uid` (AIP-148).
    pub uid: String,
    /// Version counter behind the etag.
    pub revision: i64,
    /// The state.
    pub state: ExecutionState,
    /// The checked parameters, with defaults filled in.
    pub input_parameters: Map<String, Value>,
    /// The id of the entity the parameter `entity` names, when it names one: its
    /// events are also the entity's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity_id: Option<String>,
    /// The forms awaited.
    #[serde(default)]
    pub forms: Vec<String>,
    /// Why it failed or was cancelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<OperationError>,
    /// The steps, one per step of the automation, in order.
    pub steps: Vec<ExecutionStep>,
    /// The index of the step the next claim works on.
    pub current: usize,
    /// The name of the `:run` operation.
    pub operation: String,
    /// When the first step started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_time: Option<Timestamp>,
    /// When it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_time: Option<Timestamp>,
    /// Creation time.
    pub create_time: Timestamp,
    /// Last change time.
    pub update_time: Timestamp,
}

impl Execution {
    /// `automations/{automation}/executions/{execution}`.
    pub fn name(&self) -> String {
        format!("automations/{}/executions/{}", self.automation_id, self.id)
    }

    /// The execution's API JSON (`name`, `automation`, `inputParameters`, `state`,
    /// `forms`, `error`, `startTime`, `endTime`, `steps`, times, etag).
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("name".into(), json!(self.name()));
        map.insert("uid".into(), json!(self.uid));
        map.insert(
            "automation".into(),
            json!(format!("automations/{}", self.automation_id)),
        );
        map.insert("automationRevision".into(), json!(self.automation_revision));
        map.insert("inputParameters".into(), json!(self.input_parameters));
        map.insert("state".into(), json!(self.state.as_str()));
        map.insert("forms".into(), json!(self.forms));
        if let Some(error) = &self.error {
            map.insert("error".into(), json!(error));
        }
        if let Some(start) = self.start_time {
            map.insert("startTime".into(), json!(start));
        }
        if let Some(end) = self.end_time {
            map.insert("endTime".into(), json!(end));
        }
        map.insert("steps".into(), json!(self.steps));
        map.insert("createTime".into(), json!(self.create_time));
        map.insert("updateTime".into(), json!(self.update_time));
        map.insert(
            "etag".into(),
            json!(crate::resource::etag(&self.uid, self.revision)),
        );
        Value::Object(map)
    }

    /// The form the current step awaits, if it awaits one.
    pub fn awaited_form(&self) -> Option<&str> {
        self.forms.first().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_names_the_execution_and_hides_the_engine_fields() {
        let now = Timestamp::from_unix_micros(1).unwrap();
        let execution = Execution {
            id: "x1".into(),
            automation_id: "screen-entity".into(),
            automation_revision: "builtin1".into(),
            uid: "u".into(),
            revision: 1,
            state: ExecutionState::Running,
            input_parameters: Map::new(),
            entity_id: None,
            forms: vec![],
            error: None,
            steps: vec![ExecutionStep {
                key: "screen".into(),
                state: StepState::Pending,
                ..ExecutionStep::default()
            }],
            current: 0,
            operation: "automations/screen-entity/operations/o".into(),
            start_time: None,
            end_time: None,
            create_time: now,
            update_time: now,
        };
        let json = execution.to_json();
        assert_eq!(json["name"], "automations/screen-entity/executions/x1");
        assert_eq!(json["state"], "RUNNING");
        assert_eq!(json["steps"][0]["state"], "PENDING");
        assert!(json.get("current").is_none() && json.get("error").is_none());
        assert!(ExecutionState::Cancelled.is_terminal() && !ExecutionState::Pending.is_terminal());
    }
}
