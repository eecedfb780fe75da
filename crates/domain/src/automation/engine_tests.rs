//! Unit tests of the step machine with mocked ports: each kind of step, each
//! transition of a step and of its execution, retries and the end of a cancelled
//! execution's task.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::engine::{ExecutionEngine, step_id};
use super::execution::{Execution, ExecutionState, ExecutionStep, StepState};
use super::execution_service::check_parameters;
use super::model::{Automation, AutomationDefinition, AutomationStep};
use super::ports::{
    FormStatus, MockAutomationRevisions, MockExecutionRepository, MockStepEffects, StartedJob,
    StepFinish,
};
use crate::error::{Code, Error};
use crate::event::DirectDelivery;
use crate::id::MockIdGenerator;
use crate::job::model::TaskFinish;
use crate::job::ports::{MockJobRepository, QueuedWork};
use crate::job::{AttemptOutcome, ClaimedTask, RunnerSettings};
use crate::principal::TenantId;
use crate::time::{MockClock, Timestamp};

fn now() -> Timestamp {
    Timestamp::parse_rfc3339("2026-11-26T10:00:00Z").unwrap()
}

fn steps(steps: Value) -> AutomationDefinition {
    AutomationDefinition {
        input_schema: Map::new(),
        steps: serde_json::from_value::<Vec<AutomationStep>>(steps).unwrap(),
    }
}

fn execution(definition: &AutomationDefinition) -> Execution {
    Execution {
        id: "x1".into(),
        automation_id: "a".into(),
        automation_revision: "r1".into(),
        uid: "uid-1".into(),
        revision: 1,
        state: ExecutionState::Pending,
        input_parameters: json!({"entity": "entities/e1"})
            .as_object()
            .cloned()
            .unwrap(),
        entity_id: Some("e1".into()),
        forms: vec![],
        error: None,
        steps: definition
            .steps
            .iter()
            .map(|s| ExecutionStep {
                key: s.key.clone(),
                state: StepState::Pending,
                ..ExecutionStep::default()
            })
            .collect(),
        current: 0,
        operation: "automations/a/operations/op1".into(),
        start_time: None,
        end_time: None,
        create_time: now(),
        update_time: now(),
    }
}

fn task(attempt: u32) -> ClaimedTask {
    ClaimedTask {
        tenant: TenantId::new("t1"),
        id: "op1".into(),
        job_id: "x1".into(),
        family: "automationExecutions".into(),
        operation_name: "automations/a/operations/op1".into(),
        attempt,
        claim: "c".into(),
        queue_time: now(),
        claim_time: now(),
        run_input: Value::Null,
        job: None,
    }
}

/// What one claim did: the finish it stored (none when it only released the claim
/// for a retry), how the attempt ended, the retry it asked for, and the forms whose
/// waiting executions it woke.
struct Claim {
    finish: Option<StepFinish>,
    outcome: AttemptOutcome,
    retry: Option<TaskFinish>,
    woken: Vec<String>,
    /// The states of the executions whose end the claim told the effects of.
    ended: Vec<ExecutionState>,
}

/// Runs one claim of `current` of `definition` at `at` with `effects`, attempt
/// `attempt`.
async fn claim(
    definition: &AutomationDefinition,
    current: &Execution,
    effects: MockStepEffects,
    at: Timestamp,
    attempt: u32,
) -> Claim {
    let mut executions = MockExecutionRepository::new();
    let stored = current.clone();
    executions
        .expect_get()
        .returning(move |_, _, _| Ok(Some(stored.clone())));
    let finished = Arc::new(Mutex::new(None));
    let sink = finished.clone();
    executions.expect_advance().returning(move |_, finish, _| {
        *sink.lock().unwrap() = Some(finish.clone());
        Ok(true)
    });
    let woken = Arc::new(Mutex::new(Vec::new()));
    let wake_sink = woken.clone();
    executions.expect_wake().returning(move |_, form, _| {
        wake_sink.lock().unwrap().push(form.to_owned());
        Ok(1)
    });
    let mut effects = effects;
    let ended = Arc::new(Mutex::new(Vec::new()));
    let ended_sink = ended.clone();
    effects
        .expect_execution_ended()
        .returning(move |_, execution| {
            ended_sink.lock().unwrap().push(execution.state);
            Ok(())
        });
    let mut revisions = MockAutomationRevisions::new();
    let definition = definition.clone();
    revisions
        .expect_get_definition()
        .returning(move |_, _, _| Ok(Some(definition.clone())));
    let retried = Arc::new(Mutex::new(None));
    let retry_sink = retried.clone();
    let mut jobs = MockJobRepository::new();
    jobs.expect_finish().returning(move |_, finish, _| {
        *retry_sink.lock().unwrap() = Some((*finish).clone());
        Ok(true)
    });
    let mut clock = MockClock::new();
    clock.expect_now().return_const(at);
    let mut ids = MockIdGenerator::new();
    ids.expect_resource_id().returning(|| "ev".into());
    let engine = ExecutionEngine::new(
        Arc::new(executions),
        Arc::new(revisions),
        Arc::new(effects),
        Arc::new(jobs),
        Arc::new(clock),
        Arc::new(ids),
        RunnerSettings::default(),
        Duration::from_millis(200),
    );
    let outcome = engine.work(&task(attempt)).await.unwrap();
    let finish = finished.lock().unwrap().take();
    let retry = retried.lock().unwrap().take();
    let woken = woken.lock().unwrap().clone();
    let ended = ended.lock().unwrap().clone();
    Claim {
        finish,
        outcome,
        retry,
        woken,
        ended,
    }
}

fn event_types(finish: &StepFinish) -> Vec<String> {
    finish.events.iter().map(|e| e.event_type.clone()).collect()
}

#[tokio::test]
async fn a_run_job_step_starts_the_job_waits_for_it_and_keeps_its_result() {
    let definition = steps(json!([{"key": "rate", "kind": "RUN_JOB",
        "args": {"family": "individualEntityRiskRatingJobs", "entity": "${parameters.entity}"}}]));
    let first = execution(&definition);
    let mut effects = MockStepEffects::new();
    effects
        .expect_start_job()
        .withf(|_, family, entity, id, _| {
            family == "individualEntityRiskRatingJobs"
                && entity == "e1"
                && id == step_id("uid-1", "rate")
        })
        .times(1)
        .returning(|_, _, _, _, _| {
            Ok(StartedJob {
                job: "entities/e1/individualEntityRiskRatingJobs/j1".into(),
                operation: "entities/e1/individualEntityRiskRatingJobs/j1/operations/o1".into(),
                before: json!({"previousRiskLevel": "LOW"})
                    .as_object()
                    .cloned()
                    .unwrap(),
            })
        });
    let started = claim(&definition, &first, effects, now(), 1).await;
    let finish = started.finish.unwrap();
    assert_eq!(started.outcome, AttemptOutcome::Succeeded);
    assert_eq!(finish.execution.state, ExecutionState::Running);
    assert_eq!(finish.execution.steps[0].state, StepState::Running);
    assert_eq!(finish.execution.steps[0].resources.len(), 2);
    assert_eq!(finish.next, Some(now().plus(Duration::from_millis(200))));
    assert_eq!(event_types(&finish), ["automation_execution.started"]);
    assert_eq!(
        finish.metadata.debug["execution"],
        "automations/a/executions/x1"
    );
    assert!(finish.end.is_none());

    // Still running: it waits again.
    let mut effects = MockStepEffects::new();
    effects
        .expect_job_outcome()
        .times(1)
        .returning(|_, _| Ok(None));
    let polled = claim(&definition, &finish.execution, effects, now(), 1)
        .await
        .finish
        .unwrap();
    assert_eq!(polled.execution.steps[0].state, StepState::Running);
    assert!(polled.events.is_empty() && polled.next.is_some());

    let mut effects = MockStepEffects::new();
    effects
        .expect_job_outcome()
        .withf(|_, operation| operation.ends_with("/operations/o1"))
        .returning(|_, _| Ok(Some(Ok(json!({"riskLevel": "HIGH"})))));
    let ended = claim(&definition, &polled.execution, effects, now(), 1)
        .await
        .finish
        .unwrap();
    assert_eq!(ended.execution.state, ExecutionState::Succeeded);
    assert_eq!(
        ended.execution.steps[0].output,
        Some(json!({"riskLevel": "HIGH", "previousRiskLevel": "LOW", "riskLevelRose": true}))
    );
    assert!(ended.execution.end_time.is_some() && ended.next.is_none());
    assert_eq!(event_types(&ended), ["automation_execution.succeeded"]);
    assert!(matches!(ended.end, Some(Ok(_))));
}

#[tokio::test]
async fn a_failed_job_run_fails_the_execution_and_skips_the_rest() {
    let definition = steps(json!([
        {"key": "screen", "kind": "RUN_JOB", "args": {"family": "pepSanctionIndividualEntityJobs", "entity": "${parameters.entity}"}},
        {"key": "tag", "kind": "ADD_TAG", "args": {"entity": "${parameters.entity}", "tag": "x"}}]));
    let mut running = execution(&definition);
    running.state = ExecutionState::Running;
    running.steps[0].state = StepState::Running;
    running.steps[0].resources = vec!["j".into(), "j/operations/o".into()];
    let mut effects = MockStepEffects::new();
    effects.expect_job_outcome().returning(|_, _| {
        Ok(Some(Err(crate::operation::OperationError {
            code: 13,
            message: "boom".into(),
            details: vec![],
        })))
    });
    let failed = claim(&definition, &running, effects, now(), 1).await;
    assert_eq!(failed.outcome, AttemptOutcome::Failed);
    let finish = failed.finish.unwrap();
    assert_eq!(finish.execution.state, ExecutionState::Failed);
    assert_eq!(finish.execution.error.as_ref().unwrap().code, 9);
    let states: Vec<StepState> = finish.execution.steps.iter().map(|s| s.state).collect();
    assert_eq!(states, [StepState::Failed, StepState::Skipped]);
    assert_eq!(event_types(&finish), ["automation_execution.failed"]);
    assert!(matches!(finish.end, Some(Err(_))));
    assert_eq!(failed.ended, [ExecutionState::Failed]);
    // The task is claimed once more: should the process die before the end was told,
    // that claim tells it, and only ends the task.
    assert_eq!(finish.next, Some(now()));
    let last = claim(
        &definition,
        &finish.execution,
        MockStepEffects::new(),
        now(),
        1,
    )
    .await;
    assert_eq!(last.ended, [ExecutionState::Failed]);
    assert_eq!(
        last.outcome,
        AttemptOutcome::Succeeded,
        "counted failed once"
    );
    let last = last.finish.unwrap();
    assert!(last.next.is_none() && last.end.is_none() && last.events.is_empty());
}

#[tokio::test]
async fn a_form_request_waits_for_input_and_resumes_on_submission() {
    let definition = steps(json!([
        {"key": "request", "kind": "REQUEST_FORM", "args": {"formDefinition": "formDefinitions/kyc-individual",
            "entity": "${parameters.entity}", "deadline": "3600s"}},
        {"key": "log", "kind": "WRITE_ACTIVITY_LOG", "args": {"entity": "${parameters.entity}",
            "description": "Form ${steps.request.output.form}"}}]));
    let first = execution(&definition);
    let mut effects = MockStepEffects::new();
    effects
        .expect_create_form()
        .withf(|_, id, definition, entity, _, expire| {
            id == step_id("uid-1", "request")
                && definition == "formDefinitions/kyc-individual"
                && entity.as_deref() == Some("e1")
                && *expire == now().plus(Duration::from_secs(3600))
        })
        .returning(|_, id, _, _, _, _| Ok(format!("forms/{id}")));
    effects
        .expect_form_status()
        .returning(|_, _| Ok(FormStatus::Draft));
    let waiting = claim(&definition, &first, effects, now(), 1)
        .await
        .finish
        .unwrap();
    let form = format!("forms/{}", step_id("uid-1", "request"));
    assert_eq!(waiting.execution.state, ExecutionState::WaitingForInput);
    assert_eq!(waiting.execution.forms, std::slice::from_ref(&form));
    assert_eq!(waiting.execution.steps[0].state, StepState::WaitingForInput);
    assert_eq!(
        event_types(&waiting),
        [
            "automation_execution.started",
            "automation_execution.waiting_for_input"
        ]
    );
    assert_eq!(waiting.next, Some(now().plus(Duration::from_secs(60))));

    // Still a draft: it keeps waiting, without a second event.
    let mut effects = MockStepEffects::new();
    effects
        .expect_form_status()
        .returning(|_, _| Ok(FormStatus::Draft));
    let still = claim(&definition, &waiting.execution, effects, now(), 1)
        .await
        .finish
        .unwrap();
    assert_eq!(still.execution.state, ExecutionState::WaitingForInput);
    assert!(still.events.is_empty());

    let mut effects = MockStepEffects::new();
    effects
        .expect_form_status()
        .returning(|_, _| Ok(FormStatus::Submitted));
    let resumed = claim(&definition, &still.execution, effects, now(), 1)
        .await
        .finish
        .unwrap();
    assert_eq!(resumed.execution.state, ExecutionState::Running);
    assert!(resumed.execution.forms.is_empty());
    assert_eq!(
        resumed.execution.steps[0].output,
        Some(json!({"form": form}))
    );
    assert_eq!(event_types(&resumed), ["automation_execution.resumed"]);
    assert_eq!(resumed.next, Some(now()));

    let mut effects = MockStepEffects::new();
    let description = format!("Form {form}");
    effects
        .expect_write_activity_log()
        .withf(move |_, id, entity, text| {
            id == step_id("uid-1", "log") && entity == "e1" && text == description
        })
        .returning(|_, id, _, _| Ok(format!("activityLogs/{id}")));
    let logged = claim(&definition, &resumed.execution, effects, now(), 1)
        .await
        .finish
        .unwrap();
    assert_eq!(logged.execution.state, ExecutionState::Succeeded);
    assert_eq!(logged.execution.steps[1].resources.len(), 1);
}

#[tokio::test]
async fn a_form_past_its_deadline_fails_the_execution_with_deadline_exceeded() {
    let definition = steps(json!([{"key": "request", "kind": "REQUEST_FORM",
        "args": {"formDefinition": "formDefinitions/kyc-individual", "deadline": "60s"}}]));
    let mut waiting = execution(&definition);
    waiting.state = ExecutionState::WaitingForInput;
    waiting.forms = vec!["forms/f".into()];
    waiting.steps[0].state = StepState::WaitingForInput;
    waiting.steps[0].resources = vec!["forms/f".into()];
    for status in [FormStatus::Draft, FormStatus::Expired] {
        let mut effects = MockStepEffects::new();
        effects
            .expect_form_status()
            .returning(move |_, _| Ok(status.clone()));
        let failed = claim(
            &definition,
            &waiting,
            effects,
            now().plus(Duration::from_secs(61)),
            1,
        )
        .await
        .finish
        .unwrap();
        assert_eq!(failed.execution.state, ExecutionState::Failed);
        assert_eq!(
            failed.execution.error.as_ref().unwrap().code,
            Code::DeadlineExceeded.number()
        );
        assert!(failed.execution.forms.is_empty());
    }
}

#[tokio::test]
async fn a_branch_goes_where_its_condition_says_and_skips_what_it_passes() {
    let definition = steps(json!([
        {"key": "decide", "kind": "BRANCH", "args": {"condition": "parameters.score > 50 AND parameters.level = \"HIGH\"", "else": "low"}},
        {"key": "high", "kind": "ADD_TAG", "args": {"entity": "${parameters.entity}", "tag": "high"}},
        {"key": "stop", "kind": "BRANCH", "args": {"condition": "steps.decide.output.matched = true", "then": "END"}},
        {"key": "low", "kind": "ADD_TAG", "args": {"entity": "${parameters.entity}", "tag": "low"}}]));
    let mut low = execution(&definition);
    low.input_parameters.insert("score".into(), json!(20));
    low.input_parameters.insert("level".into(), json!("HIGH"));
    let decided = claim(&definition, &low, MockStepEffects::new(), now(), 1)
        .await
        .finish
        .unwrap();
    assert_eq!(
        decided.execution.steps[0].output,
        Some(json!({"matched": false}))
    );
    let states: Vec<StepState> = decided.execution.steps.iter().map(|s| s.state).collect();
    assert_eq!(
        states,
        [
            StepState::Succeeded,
            StepState::Skipped,
            StepState::Skipped,
            StepState::Pending
        ]
    );
    assert_eq!(decided.execution.current, 3);

    let mut high = execution(&definition);
    high.input_parameters.insert("score".into(), json!(80));
    high.input_parameters.insert("level".into(), json!("HIGH"));
    let decided = claim(&definition, &high, MockStepEffects::new(), now(), 1)
        .await
        .finish
        .unwrap();
    assert_eq!(decided.execution.current, 1);
    let mut effects = MockStepEffects::new();
    effects
        .expect_add_tag()
        .withf(|_, entity, tag| entity == "e1" && tag == "high")
        .times(1)
        .returning(|_, _, _| Ok(()));
    let tagged = claim(&definition, &decided.execution, effects, now(), 1)
        .await
        .finish
        .unwrap();
    let ended = claim(
        &definition,
        &tagged.execution,
        MockStepEffects::new(),
        now(),
        1,
    )
    .await
    .finish
    .unwrap();
    assert_eq!(ended.execution.state, ExecutionState::Succeeded);
    assert_eq!(ended.execution.steps[3].state, StepState::Skipped);
}

#[tokio::test]
async fn alerts_documents_and_waits_take_their_step_ids() {
    let definition = steps(json!([
        {"key": "update", "kind": "UPSERT_ENTITY_FROM_FORM", "args": {"form": "forms/f", "entity": "${parameters.entity}"}},
        {"key": "alert", "kind": "RAISE_ALERT", "args": {"alertType": "alertTypes/x", "entity": "${parameters.entity}", "description": "Rose"}},
        {"key": "wait", "kind": "WAIT_UNTIL", "args": {"time": "2026-11-26T11:00:00Z"}}]));
    let mut effects = MockStepEffects::new();
    effects
        .expect_upsert_entity_from_form()
        .withf(|_, form, entity, id| {
            form == "forms/f" && entity.as_deref() == Some("e1") && id == step_id("uid-1", "update")
        })
        .returning(|_, _, _, _| {
            Ok(json!({"entity": "entities/e1", "document": "entities/e1/documents/d"}))
        });
    let updated = claim(&definition, &execution(&definition), effects, now(), 1)
        .await
        .finish
        .unwrap();
    assert_eq!(
        updated.execution.steps[0].resources,
        ["entities/e1", "entities/e1/documents/d"]
    );
    let mut effects = MockStepEffects::new();
    effects
        .expect_raise_alert()
        .withf(|_, id, kind, entity, description| {
            id == step_id("uid-1", "alert")
                && kind == "alertTypes/x"
                && entity == "e1"
                && description == "Rose"
        })
        .returning(|_, id, _, _, _| Ok(format!("alerts/{id}")));
    let alerted = claim(&definition, &updated.execution, effects, now(), 1)
        .await
        .finish
        .unwrap();
    assert_eq!(alerted.execution.steps[1].resources.len(), 1);
    let waiting = claim(
        &definition,
        &alerted.execution,
        MockStepEffects::new(),
        now(),
        1,
    )
    .await
    .finish
    .unwrap();
    let until = Timestamp::parse_rfc3339("2026-11-26T11:00:00Z").unwrap();
    assert_eq!(waiting.next, Some(until));
    assert_eq!(waiting.execution.steps[2].state, StepState::Running);
    let done = claim(
        &definition,
        &waiting.execution,
        MockStepEffects::new(),
        until,
        1,
    )
    .await
    .finish
    .unwrap();
    assert_eq!(done.execution.state, ExecutionState::Succeeded);
    assert_ne!(step_id("uid-1", "alert"), step_id("uid-2", "alert"));
}

#[tokio::test]
async fn a_transient_failure_is_retried_and_a_final_one_fails() {
    let definition = steps(json!([{"key": "tag", "kind": "ADD_TAG",
        "args": {"entity": "${parameters.entity}", "tag": "x"}}]));
    let mut effects = MockStepEffects::new();
    effects
        .expect_add_tag()
        .returning(|_, _, _| Err(Error::unavailable("DOWN", "down")));
    let retried = claim(&definition, &execution(&definition), effects, now(), 1).await;
    assert_eq!(retried.outcome, AttemptOutcome::Retried);
    assert!(retried.finish.is_none());
    assert!(
        matches!(retried.retry, Some(TaskFinish::Retry { at, .. }) if at == now().plus(Duration::from_secs(1)))
    );

    let mut effects = MockStepEffects::new();
    effects
        .expect_add_tag()
        .returning(|_, _, _| Err(Error::unavailable("DOWN", "down")));
    let last = claim(&definition, &execution(&definition), effects, now(), 5).await;
    assert_eq!(last.outcome, AttemptOutcome::Failed);
    assert_eq!(last.finish.unwrap().execution.error.unwrap().code, 14);

    let mut effects = MockStepEffects::new();
    effects
        .expect_add_tag()
        .returning(|_, _, _| Err(Error::not_found("entities/e1")));
    let missing = claim(&definition, &execution(&definition), effects, now(), 1).await;
    assert_eq!(missing.outcome, AttemptOutcome::Failed);
}

#[tokio::test]
async fn the_task_of_a_cancelled_execution_only_ends() {
    let definition = steps(json!([{"key": "tag", "kind": "ADD_TAG",
        "args": {"entity": "${parameters.entity}", "tag": "x"}}]));
    let mut cancelled = execution(&definition);
    cancelled.state = ExecutionState::Cancelled;
    let ended = claim(&definition, &cancelled, MockStepEffects::new(), now(), 1).await;
    assert_eq!(ended.ended, [ExecutionState::Cancelled], "told again");
    let finish = ended.finish.unwrap();
    assert_eq!(finish.execution, cancelled);
    assert!(finish.next.is_none() && finish.events.is_empty() && finish.end.is_none());
}

#[tokio::test]
async fn a_condition_that_does_not_read_fails_its_branch() {
    let definition = steps(
        json!([{"key": "b", "kind": "BRANCH", "args": {"condition": "a = (", "else": "END"}}]),
    );
    let failed = claim(
        &definition,
        &execution(&definition),
        MockStepEffects::new(),
        now(),
        1,
    )
    .await
    .finish
    .unwrap();
    assert_eq!(failed.execution.state, ExecutionState::Failed);
    assert_eq!(failed.execution.error.unwrap().code, 3);
}

#[test]
fn parameters_are_checked_all_at_once_and_take_their_defaults() {
    let automation: Automation = serde_json::from_value(json!({
        "displayName": "A",
        "inputSchema": {"entity": {"type": "string"}, "count": {"type": "integer", "default": 1}},
        "steps": [{"key": "t", "kind": "ADD_TAG", "args": {"entity": "e", "tag": "t"}}]
    }))
    .unwrap();
    let given = json!({"entity": "entities/e1"})
        .as_object()
        .cloned()
        .unwrap();
    let checked = check_parameters(&automation, given).unwrap();
    assert_eq!(
        Value::Object(checked),
        json!({"entity": "entities/e1", "count": 1})
    );
    let bad = json!({"count": "two", "extra": true})
        .as_object()
        .cloned()
        .unwrap();
    let error = check_parameters(&automation, bad).unwrap_err();
    let mut fields: Vec<String> = error
        .field_violations
        .iter()
        .map(|v| v.field.clone())
        .collect();
    fields.sort();
    assert_eq!(
        fields,
        ["parameters.count", "parameters.entity", "parameters.extra"]
    );
}

#[tokio::test]
async fn tags_and_activity_logs_are_written_with_their_outputs() {
    let definition = steps(json!([
        {"key": "tag", "kind": "ADD_TAG", "args": {"entity": "${parameters.entity}", "tag": "reviewed"}},
        {"key": "log", "kind": "WRITE_ACTIVITY_LOG", "args": {"entity": "entities/e2", "description": "Tagged ${steps.tag.output.tag}"}}]));
    let mut effects = MockStepEffects::new();
    effects
        .expect_add_tag()
        .withf(|_, entity, tag| entity == "e1" && tag == "reviewed")
        .times(1)
        .returning(|_, _, _| Ok(()));
    let tagged = claim(&definition, &execution(&definition), effects, now(), 1)
        .await
        .finish
        .unwrap();
    assert_eq!(tagged.execution.steps[0].state, StepState::Succeeded);
    assert_eq!(
        tagged.execution.steps[0].output,
        Some(json!({"tag": "reviewed"}))
    );
    assert!(tagged.execution.steps[0].resources.is_empty());
    let mut effects = MockStepEffects::new();
    effects
        .expect_write_activity_log()
        .withf(|_, id, entity, description| {
            id == step_id("uid-1", "log") && entity == "e2" && description == "Tagged reviewed"
        })
        .times(1)
        .returning(|_, id, _, _| Ok(format!("activityLogs/{id}")));
    let logged = claim(&definition, &tagged.execution, effects, now(), 1)
        .await
        .finish
        .unwrap();
    let log = format!("activityLogs/{}", step_id("uid-1", "log"));
    assert_eq!(logged.execution.steps[1].resources, [log]);
    assert_eq!(logged.execution.state, ExecutionState::Succeeded);
    assert!(logged.end.is_some(), "the last step ends the execution");
}

#[tokio::test]
async fn a_notify_webhook_step_writes_its_message_as_an_event_delivered_to_its_target() {
    let definition = steps(json!([
        {"key": "hook", "kind": "NOTIFY_WEBHOOK", "args": {
            "url": "https://hooks.example.com/kyc", "eventType": "kyc.screened",
            "data": "${parameters.entity}"}},
        {"key": "ops", "kind": "NOTIFY_WEBHOOK", "args": {
            "endpoint": "webhookEndpoints/ops-hook", "eventType": "kyc.done"}}]));
    let first = claim(
        &definition,
        &execution(&definition),
        MockStepEffects::new(),
        now(),
        1,
    )
    .await
    .finish
    .unwrap();
    assert_eq!(first.execution.steps[0].state, StepState::Succeeded);
    assert_eq!(
        first.execution.steps[0].output,
        Some(json!({"event": "ev"}))
    );
    let notified = first
        .events
        .iter()
        .find(|e| e.event_type == "automation_execution.notified")
        .unwrap();
    assert_eq!(
        notified.deliver_to,
        Some(DirectDelivery::Url("https://hooks.example.com/kyc".into()))
    );
    assert_eq!(notified.entity_id.as_deref(), Some("e1"));
    assert_eq!(notified.payload["resource"], "automations/a/executions/x1");
    assert_eq!(
        notified.payload["object"],
        json!({"eventType": "kyc.screened", "data": "entities/e1"})
    );
    assert_eq!(
        first
            .events
            .iter()
            .filter(|e| e.deliver_to.is_some())
            .count(),
        1,
        "the execution's own events go only where they subscribe"
    );

    let second = claim(
        &definition,
        &first.execution,
        MockStepEffects::new(),
        now(),
        1,
    )
    .await
    .finish
    .unwrap();
    assert_eq!(second.execution.state, ExecutionState::Succeeded);
    let to_endpoint = second
        .events
        .iter()
        .find(|e| e.deliver_to.is_some())
        .unwrap();
    assert_eq!(
        to_endpoint.deliver_to,
        Some(DirectDelivery::Endpoint("ops-hook".into()))
    );

    let bad = steps(json!([{"key": "hook", "kind": "NOTIFY_WEBHOOK", "args": {
        "endpoint": "${parameters.entity}", "eventType": "kyc.done"}}]));
    let failed = claim(&bad, &execution(&bad), MockStepEffects::new(), now(), 1)
        .await
        .finish
        .unwrap();
    assert_eq!(failed.execution.state, ExecutionState::Failed);
    assert!(failed.events.iter().all(|e| e.deliver_to.is_none()));
}

/// The onboarding journey's steps: one that awaits an existing form, one that maps it
/// (its made entity becomes the execution's), one that decides with what the steps
/// found; the journey's end is told to the effects.
#[tokio::test]
async fn an_onboarding_journey_awaits_its_form_maps_it_and_decides() {
    let definition = steps(json!([
        {"key": "submitted", "kind": "AWAIT_FORM", "args": {"form": "${parameters.form}"}},
        {"key": "map", "kind": "MAP_ONBOARDING", "args": {"job": "${parameters.job}", "form": "${parameters.form}"}},
        {"key": "decide", "kind": "DECIDE_ONBOARDING", "args": {"job": "${parameters.job}",
            "operation": "${parameters.operation}", "entity": "${steps.map.output.entity}",
            "riskLevel": "LOW"}}]));
    let mut first = execution(&definition);
    first.entity_id = None;
    first.input_parameters = json!({"job": "entities/-/onboardIndividualEntityJobs/j1",
        "operation": "entities/-/onboardIndividualEntityJobs/j1/operations/o1", "form": "forms/f1"})
    .as_object()
    .cloned()
    .unwrap();
    let mut effects = MockStepEffects::new();
    effects
        .expect_form_status()
        .withf(|_, form| form == "forms/f1")
        .returning(|_, _| Ok(FormStatus::Draft));
    let waiting = claim(&definition, &first, effects, now(), 1)
        .await
        .finish
        .unwrap();
    assert_eq!(waiting.execution.state, ExecutionState::WaitingForInput);
    assert_eq!(waiting.execution.forms, ["forms/f1"]);

    let mut effects = MockStepEffects::new();
    effects
        .expect_form_status()
        .returning(|_, _| Ok(FormStatus::Submitted));
    let submitted = claim(&definition, &waiting.execution, effects, now(), 1)
        .await
        .finish
        .unwrap();
    assert_eq!(submitted.execution.state, ExecutionState::Running);

    let mut effects = MockStepEffects::new();
    effects
        .expect_map_onboarding()
        .withf(|_, id, job, form| {
            id == step_id("uid-1", "map")
                && job == "entities/-/onboardIndividualEntityJobs/j1"
                && form == "forms/f1"
        })
        .returning(|_, _, _, _| Ok(json!({"entity": "entities/made", "hasDocument": false})));
    let mapped = claim(&definition, &submitted.execution, effects, now(), 1)
        .await
        .finish
        .unwrap();
    assert_eq!(mapped.execution.entity_id.as_deref(), Some("made"));
    assert_eq!(mapped.execution.steps[1].resources, ["entities/made"]);

    let mut effects = MockStepEffects::new();
    effects
        .expect_decide_onboarding()
        .withf(|_, _, args| {
            args.entity == "entities/made"
                && args.operation.ends_with("/operations/o1")
                && args.risk_level == "LOW"
                && args.document_outcome.is_empty()
        })
        .returning(|_, _, _| Ok(json!({"decision": "REFER", "activityLog": "activityLogs/l1"})));
    let decided = claim(&definition, &mapped.execution, effects, now(), 1)
        .await
        .finish
        .unwrap();
    assert_eq!(decided.execution.state, ExecutionState::Succeeded);
    assert_eq!(decided.execution.steps[2].resources, ["activityLogs/l1"]);
}

/// A form submitted while the step that begins to await it is claimed: the submit's
/// wake found no waiting execution, so the step's claim wakes it once the wait is
/// stored, rather than leaving it to the next poll.
#[tokio::test]
async fn a_form_submitted_during_the_claim_that_begins_awaiting_it_wakes_the_execution() {
    let definition = steps(json!([
        {"key": "submitted", "kind": "AWAIT_FORM", "args": {"form": "forms/f1"}},
        {"key": "later", "kind": "AWAIT_FORM", "args": {"form": "forms/f2"}}]));
    let looks = Arc::new(Mutex::new(0));
    let mut effects = MockStepEffects::new();
    effects.expect_form_status().returning(move |_, _| {
        let mut looks = looks.lock().unwrap();
        *looks += 1;
        Ok(if *looks == 1 {
            FormStatus::Draft
        } else {
            FormStatus::Submitted
        })
    });
    let claimed = claim(&definition, &execution(&definition), effects, now(), 1).await;
    assert_eq!(
        claimed.finish.unwrap().execution.state,
        ExecutionState::WaitingForInput
    );
    assert_eq!(claimed.woken, ["forms/f1"]);

    let mut effects = MockStepEffects::new();
    effects
        .expect_form_status()
        .returning(|_, _| Ok(FormStatus::Draft));
    let still_draft = claim(&definition, &execution(&definition), effects, now(), 1).await;
    assert!(still_draft.woken.is_empty(), "{:?}", still_draft.woken);
}

#[tokio::test]
async fn an_expired_awaited_form_fails_the_journey() {
    let definition = steps(json!([
        {"key": "submitted", "kind": "AWAIT_FORM", "args": {"form": "forms/f1"}}]));
    let mut effects = MockStepEffects::new();
    effects
        .expect_form_status()
        .returning(|_, _| Ok(FormStatus::Expired));
    let failed = claim(&definition, &execution(&definition), effects, now(), 1).await;
    assert_eq!(failed.outcome, AttemptOutcome::Failed);
    let error = failed.finish.unwrap().execution.error.unwrap();
    assert_eq!(error.code, Code::DeadlineExceeded.number());
    assert!(error.message.contains("forms/f1"), "{}", error.message);
}
