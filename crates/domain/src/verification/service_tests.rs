//! The completion of the built-in hosted capture over mocked ports: it takes the path
//! of a provider's callback (the IDENTITY_CHECK log with source RICS,
//! `verificationStatus`, the missing details, the run's end with the event delivered
//! to the job's `webhookUri`), once; a failed completion ends the run with its error.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Map, Value, json};

use super::*;
use crate::activity::model::ActivityLog;
use crate::automation::execution::ExecutionState;
use crate::entity::repository::MockEntityRepository;
use crate::id::MockIdGenerator;
use crate::job::records::MockRunRecords;
use crate::list::Paging;
use crate::operation::OperationError;
use crate::time::MockClock;
use crate::verification::capture::CAPTURE_AUTOMATION;
use crate::verification::provider::{Assurance, MockIdentityVerificationProvider};
use crate::verification::session::MockVerificationSessionRepository;
use crate::webhook::tenant_secret::MockTenantSecretRepository;

const TD3: [&str; 2] = [
    "P<SWEERIKSSON<<ANNA<<<<<<<<<<<<<<<<<<<<<<<<<",
    "L898902C36SWE7408122F3001019<<<<<<<<<<<<<<04",
];

fn now() -> Timestamp {
    Timestamp::parse_rfc3339("2026-03-04T05:06:07Z").unwrap()
}

fn tenant() -> TenantId {
    TenantId::new("t1")
}

/// A run's end as told: its operation, its result or error reason, its events.
type Ended = (String, std::result::Result<Value, String>, Vec<NewEvent>);

/// The runs ended, as told.
#[derive(Default)]
struct Runs {
    ended: Mutex<Vec<Ended>>,
}

#[async_trait]
impl RunEnding for Runs {
    async fn end(
        &self,
        _tenant: &TenantId,
        operation: &str,
        outcome: Result<Value>,
        events: Vec<NewEvent>,
    ) -> Result<()> {
        let outcome = outcome.map_err(|e| e.reason.to_string());
        self.ended
            .lock()
            .unwrap()
            .push((operation.to_owned(), outcome, events));
        Ok(())
    }
}

fn session(state: SessionState) -> VerificationSession {
    VerificationSession {
        tenant: tenant(),
        id: "s1".into(),
        provider: Provider::HostedCapture,
        provider_session_id: None,
        entity_id: Some("anna".into()),
        operation: Some("individualEntityVerificationJobs/j1/operations/s1".into()),
        identity_owner: IdentityOwner {
            email: "anna@example.com".into(),
            ..IdentityOwner::default()
        },
        enrich_entity: true,
        webhook_uri: Some("https://hooks.example/x".into()),
        state,
        outcome: None,
        activity_log: None,
        create_time: now(),
        expire_time: now().plus(SESSION_LIFETIME),
        complete_time: None,
    }
}

fn anna() -> Entity {
    serde_json::from_value(json!({
        "name": "entities/anna",
        "displayName": "Anna Eriksson",
        "entityType": "INDIVIDUAL",
        "individual": {"legalName": {"familyName": "Eriksson"}}
    }))
    .unwrap()
}

fn service(
    sessions: MockVerificationSessionRepository,
    entities: MockEntityRepository,
    records: MockRunRecords,
) -> (VerificationService, Arc<dyn RunEnding>, Arc<Runs>) {
    let mut clock = MockClock::new();
    clock.expect_now().returning(now);
    let clock = Arc::new(clock);
    let mut ids = MockIdGenerator::new();
    ids.expect_resource_id().returning(|| "ev-1".into());
    let context = ServiceContext {
        paging: Arc::new(Paging::new(&[7; 32], clock.clone()).unwrap()),
        clock,
        ids: Arc::new(ids),
        retention: Duration::from_secs(86_400),
    };
    let service = VerificationService::new(VerificationPorts {
        sessions: Arc::new(sessions),
        truuth: Arc::new(MockIdentityVerificationProvider::new()),
        hosted: Arc::new(MockIdentityVerificationProvider::new()),
        callback_secrets: Arc::new(TenantSecretService::new(
            Arc::new(MockTenantSecretRepository::new()),
            None,
            context.clone(),
        )),
        entities: Arc::new(entities),
        records: Arc::new(records),
        context,
    });
    let runs = Arc::new(Runs::default());
    let ending: Arc<dyn RunEnding> = runs.clone();
    service.attach_runs(&ending);
    (service, ending, runs)
}

fn capture(outcome: &str) -> Capture {
    let response: Map<String, Value> = json!({
        "identity_document": {"documentType": "PASSPORT", "mrz": TD3},
        "selfie": "forms/capture-s1/files/f1"
    })
    .as_object()
    .cloned()
    .unwrap();
    Capture::of_response("s1", "forms/capture-s1", "documents/d1", outcome, &response)
}

#[tokio::test]
async fn a_capture_completes_its_session_on_the_callbacks_path() {
    let mut sessions = MockVerificationSessionRepository::new();
    sessions
        .expect_get()
        .returning(|_, _| Ok(Some(session(SessionState::Active))));
    sessions
        .expect_update()
        .times(1)
        .withf(|session, callback, events| {
            session.state == SessionState::Completed
                && session.activity_log.as_deref() == Some("activityLogs/identity-check-s1")
                && callback.is_some_and(|c| {
                    c.verification_id == "capture-s1"
                        && c.body["selfie"] == "forms/capture-s1/files/f1"
                })
                && events.is_empty()
        })
        .returning(|_, _, _| Ok(()));
    let mut entities = MockEntityRepository::new();
    entities.expect_get().returning(|_, _| Ok(Some(anna())));
    let mut records = MockRunRecords::new();
    records
        .expect_log()
        .times(1)
        .withf(|_, id, log: &ActivityLog| {
            id == "identity-check-s1"
                && log.source == "RICS"
                && log.activity_type == ActivityType::IdentityCheck
                && log.payload.as_ref().is_some_and(|p| {
                    p["assurance"] == "DOCUMENT_ONLY" && p["provider"] == "HOSTED_CAPTURE"
                })
        })
        .returning(|_, _, log| {
            Ok(ActivityLog {
                name: "activityLogs/identity-check-s1".into(),
                ..log
            })
        });
    let outputs = Arc::new(Mutex::new(Vec::new()));
    let told = outputs.clone();
    records
        .expect_entity_output()
        .times(2)
        .returning(move |_, _, output, _| {
            told.lock().unwrap().push(output);
            Ok(())
        });
    let (service, _keep, runs) = service(sessions, entities, records);

    let view = service
        .complete_capture(&tenant(), &capture("PASSED"))
        .await
        .unwrap();
    assert_eq!(view["state"], "COMPLETED");
    let outputs = outputs.lock().unwrap();
    assert_eq!(
        outputs[0],
        EntityOutput::VerificationStatus(VerificationStatus::Verified)
    );
    let EntityOutput::MissingDetails(details) = &outputs[1] else {
        panic!("{:?}", outputs[1]);
    };
    assert_eq!(details.given_name.as_deref(), Some("Anna"));
    assert_eq!(
        details.date_of_birth,
        Some(PartialDate::parse("1974-08-12").unwrap())
    );
    let ended = runs.ended.lock().unwrap();
    assert_eq!(ended.len(), 1);
    let (operation, outcome, events) = &ended[0];
    assert_eq!(
        operation,
        "individualEntityVerificationJobs/j1/operations/s1"
    );
    let result = outcome.as_ref().unwrap();
    assert_eq!(result["verificationStatus"], "VERIFIED");
    assert_eq!(result["assurance"], Assurance::DocumentOnly.as_str());
    assert_eq!(result["activityLog"], "activityLogs/identity-check-s1");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].event_type, SESSION_COMPLETED);
    assert!(
        events[0].deliver_to.is_some(),
        "delivered to the webhookUri"
    );
}

#[tokio::test]
async fn a_completed_session_is_completed_once() {
    let mut sessions = MockVerificationSessionRepository::new();
    sessions
        .expect_get()
        .returning(|_, _| Ok(Some(session(SessionState::Completed))));
    sessions.expect_update().never();
    let (service, _keep, runs) =
        service(sessions, MockEntityRepository::new(), MockRunRecords::new());
    let view = service
        .complete_capture(&tenant(), &capture("PASSED"))
        .await
        .unwrap();
    assert_eq!(view["state"], "COMPLETED");
    assert!(runs.ended.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_failed_capture_ends_its_run_with_the_error() {
    let mut sessions = MockVerificationSessionRepository::new();
    sessions
        .expect_get()
        .returning(|_, _| Ok(Some(session(SessionState::Active))));
    let (service, _keep, runs) =
        service(sessions, MockEntityRepository::new(), MockRunRecords::new());
    let mut execution = Execution {
        id: "x1".into(),
        automation_id: CAPTURE_AUTOMATION.into(),
        automation_revision: "builtin1".into(),
        uid: "u1".into(),
        revision: 3,
        state: ExecutionState::Failed,
        input_parameters: Map::from_iter([(
            "session".to_owned(),
            json!("verificationSessions/s1"),
        )]),
        entity_id: Some("anna".into()),
        forms: Vec::new(),
        error: Some(OperationError {
            code: 4,
            message: "the form expired".into(),
            details: Vec::new(),
        }),
        steps: Vec::new(),
        current: 0,
        operation: "automations/capture-identity/executions/x1/operations/o1".into(),
        start_time: None,
        end_time: None,
        create_time: now(),
        update_time: now(),
    };
    service.capture_ended(&tenant(), &execution).await.unwrap();
    {
        let ended = runs.ended.lock().unwrap();
        assert_eq!(ended.len(), 1);
        assert_eq!(ended[0].1, Err("CAPTURE_FAILED".to_owned()));
    }

    // Another automation's execution, or one that succeeded, ends nothing.
    execution.state = ExecutionState::Succeeded;
    service.capture_ended(&tenant(), &execution).await.unwrap();
    execution.state = ExecutionState::Failed;
    execution.automation_id = "kyc-individual".into();
    service.capture_ended(&tenant(), &execution).await.unwrap();
    assert_eq!(runs.ended.lock().unwrap().len(), 1);
}
