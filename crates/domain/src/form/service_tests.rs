//! Unit tests of the form service with mocked ports.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rics_aip::filter::{Comparator, Condition, Literal};
use serde_json::{Value, json};

use super::model::{Form, FormState};
use super::ports::{MockFormRecords, MockFormRepository};
use super::service::{FormPorts, FormService, accepts, state_as_of};
use crate::activity::model::ActivityType;
use crate::entity::model::Entity;
use crate::entity::repository::MockEntityRepository;
use crate::error::Code;
use crate::file::model::File;
use crate::file::ports::MockFileRepository;
use crate::form_definition::model::FormDefinition;
use crate::form_definition::ports::{MockFormDefinitionRepository, MockFormRevisions};
use crate::form_definition::service::FormDefinitionService;
use crate::housekeeping::Sweep;
use crate::id::MockIdGenerator;
use crate::lifecycle::{ServiceContext, SoftDeletable};
use crate::list::Paging;
use crate::methods::{CreateMethod, UpdateMethod};
use crate::principal::{Principal, TenantId};
use crate::repository::CreateOutcome;
use crate::time::{MockClock, Timestamp};
use crate::workspace::ports::MockWorkspaceRepository;

fn at(seconds: i64) -> Timestamp {
    Timestamp::from_unix_micros((1_800_000_000 + seconds) * 1_000_000).unwrap()
}

fn now() -> Timestamp {
    at(0)
}

fn principal() -> Principal {
    Principal {
        tenant: TenantId::new("t1"),
        subject: "alice".into(),
        display_name: "Alice".into(),
        scopes: Default::default(),
    }
}

/// The definition `contact` at revision `aaaa1111`: a required email and a FILE.
fn definition() -> FormDefinition {
    let mut definition: FormDefinition = serde_json::from_value(json!({
        "displayName": "Contact",
        "schema": {"steps": [{"key": "s", "label": "S", "fields": [
            {"key": "email", "label": "Email", "type": "EMAIL", "required": true},
            {"key": "photo", "label": "Photo", "type": "FILE", "accept": ["image/*"]}
        ]}]}
    }))
    .unwrap();
    definition.begin(FormDefinition::name_of("contact"), "uid-d".into(), now());
    definition.revision_id = "aaaa1111".into();
    definition
}

/// A stored form `f1` about `entities/jane`, in `state`, with `response`.
fn stored(state: FormState, response: Value) -> Form {
    let mut form = Form {
        display_name: "Contact".into(),
        form_definition: "formDefinitions/contact@aaaa1111".into(),
        entity: "entities/jane".into(),
        state,
        response: response.as_object().cloned(),
        ..Form::default()
    };
    form.begin(Form::name_of("f1"), "uid-f".into(), now());
    form
}

struct Mocks {
    forms: MockFormRepository,
    records: MockFormRecords,
    files: MockFileRepository,
}

/// The files of the tenant: `p` of the form `f1` and `id` of `entities/jane`, JPEG
/// images; `scan` of `f1`, a PDF; `gone` of `f1`, deleted.
fn files() -> MockFileRepository {
    let mut files = MockFileRepository::new();
    files.expect_get().returning(|_, name| {
        let content_type = match name {
            "forms/f1/files/p" | "entities/jane/files/id" | "forms/f1/files/gone" => "image/jpeg",
            "forms/f1/files/scan" => "application/pdf",
            _ => return Ok(None),
        };
        Ok(Some(File {
            name: name.to_owned(),
            content_type: content_type.into(),
            delete_time: (name == "forms/f1/files/gone").then(now),
            ..File::default()
        }))
    });
    files
}

impl Mocks {
    fn new() -> Mocks {
        Mocks {
            forms: MockFormRepository::new(),
            records: MockFormRecords::new(),
            files: files(),
        }
    }

    fn service(self) -> FormService {
        let mut clock = MockClock::new();
        clock.expect_now().returning(now);
        let clock = Arc::new(clock);
        let mut ids = MockIdGenerator::new();
        ids.expect_resource_id().returning(|| "gen-id".into());
        ids.expect_uid().returning(|| "uid-new".into());
        let paging = Arc::new(Paging::new(&[7; 32], clock.clone()).unwrap());
        let context = ServiceContext {
            clock,
            ids: Arc::new(ids),
            paging,
            retention: Duration::from_secs(86_400),
        };
        let mut definitions = MockFormDefinitionRepository::new();
        definitions
            .expect_get()
            .returning(|_, id| Ok((id == "contact").then(definition)));
        let mut revisions = MockFormRevisions::new();
        revisions
            .expect_get_revision()
            .returning(|_, id, revision| {
                Ok((id == "contact" && revision == "aaaa1111").then(definition))
            });
        let mut entities = MockEntityRepository::new();
        entities.expect_get().returning(|_, id| {
            Ok((id == "jane").then(|| Entity {
                name: Entity::name_of(id),
                ..Entity::default()
            }))
        });
        FormService::new(
            FormPorts {
                forms: Arc::new(self.forms),
                records: Arc::new(self.records),
                definitions: Arc::new(FormDefinitionService::new(
                    Arc::new(definitions),
                    Arc::new(revisions),
                    context.clone(),
                )),
                entities: Arc::new(entities),
                workspaces: Arc::new(MockWorkspaceRepository::new()),
                files: Arc::new(self.files),
            },
            context,
        )
    }
}

#[tokio::test]
async fn a_new_form_pins_the_latest_revision_and_is_a_draft() {
    let mut mocks = Mocks::new();
    mocks
        .forms
        .expect_create()
        .withf(|_, form, _, events| {
            form.state == FormState::Draft
                && form.form_definition == "formDefinitions/contact@aaaa1111"
                && form.display_name == "Contact"
                && events[0].event_type == "form.created"
                && events[0].entity_id.as_deref() == Some("jane")
        })
        .times(1)
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    let service = mocks.service();
    let p = principal();
    let body = json!({"formDefinition": "formDefinitions/contact", "entity": "entities/jane",
        "response": {"email": "half@"}});
    let created = service.create(&p, body, None, None).await.unwrap();
    assert_eq!(
        created.response,
        Some(json!({"email": "half@"}).as_object().cloned().unwrap())
    );

    let refusals = [
        (
            json!({"formDefinition": "formDefinitions/contact", "response": {"email": 5, "extra": 1}}),
            vec![
                ("form.response.email", "INVALID_ANSWER"),
                ("form.response.extra", "UNKNOWN_ANSWER"),
            ],
        ),
        (
            json!({"formDefinition": "formDefinitions/contact", "response": {"photo": "forms/other/files/x"}}),
            vec![("form.response.photo", "FILE_OF_ANOTHER_FORM")],
        ),
        (
            json!({"formDefinition": "formDefinitions/contact", "expireTime": "2020-01-01T00:00:00Z"}),
            vec![("form.expireTime", "EXPIRE_TIME_NOT_IN_FUTURE")],
        ),
        (json!({}), vec![("form.formDefinition", "REQUIRED")]),
    ];
    for (body, expected) in refusals {
        let error = service
            .create(&p, body.clone(), None, None)
            .await
            .unwrap_err();
        let found: Vec<(&str, &str)> = error
            .field_violations
            .iter()
            .map(|v| (v.field.as_str(), v.reason))
            .collect();
        assert_eq!(found, expected, "{body}");
    }
    let missing = service
        .create(
            &p,
            json!({"formDefinition": "formDefinitions/nobody"}),
            None,
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(
        (missing.code, missing.reason),
        (Code::NotFound, "FORM_DEFINITION_NOT_FOUND")
    );
}

#[tokio::test]
async fn only_a_draft_changes() {
    let mut mocks = Mocks::new();
    mocks.forms.expect_get().returning(|_, id| {
        Ok(Some(stored(
            if id == "f1" {
                FormState::Submitted
            } else {
                FormState::Draft
            },
            json!({}),
        )))
    });
    let service = mocks.service();
    let p = principal();
    let error = service
        .update(&p, "f1", json!({"response": {"email": "a@b.co"}}), None)
        .await
        .unwrap_err();
    assert_eq!(
        (error.code, error.reason),
        (Code::FailedPrecondition, "FORM_NOT_DRAFT")
    );
    assert_eq!(
        error.metadata.get("state").map(String::as_str),
        Some("SUBMITTED")
    );
    for error in [
        service.submit(&p, "f1", None).await.unwrap_err(),
        service.expire(&p, "f1", None).await.unwrap_err(),
    ] {
        assert_eq!(error.reason, "FORM_NOT_DRAFT");
    }
}

#[tokio::test]
async fn a_patch_refuses_a_file_of_another_form() {
    let mut mocks = Mocks::new();
    mocks
        .forms
        .expect_get()
        .returning(|_, _| Ok(Some(stored(FormState::Draft, json!({})))));
    mocks
        .forms
        .expect_update()
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let service = mocks.service();
    let p = principal();
    let own = service
        .update(
            &p,
            "f1",
            json!({"response": {"photo": "forms/f1/files/p"}}),
            None,
        )
        .await
        .unwrap();
    assert_eq!(own.response.unwrap()["photo"], "forms/f1/files/p");
    let error = service
        .update(
            &p,
            "f1",
            json!({"response": {"photo": "forms/f2/files/p"}}),
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(error.field_violations[0].field, "form.response.photo");
    assert_eq!(error.field_violations[0].reason, "FILE_OF_ANOTHER_FORM");
}

#[tokio::test]
async fn file_answers_name_live_files_of_the_form_or_its_entity_of_an_accepted_type() {
    let mut mocks = Mocks::new();
    mocks
        .forms
        .expect_get()
        .returning(|_, _| Ok(Some(stored(FormState::Draft, json!({})))));
    mocks.forms.expect_update().returning(|_, _, _, _| Ok(()));
    let service = mocks.service();
    let p = principal();
    for accepted in ["forms/f1/files/p", "entities/jane/files/id"] {
        let body = json!({"response": {"photo": accepted}});
        service.update(&p, "f1", body, None).await.unwrap();
    }
    let refusals = [
        ("forms/f1/files/missing", "FILE_NOT_FOUND"),
        ("forms/f1/files/gone", "FILE_DELETED"),
        ("forms/f1/files/scan", "FILE_TYPE_NOT_ACCEPTED"),
        ("entities/john/files/id", "FILE_OF_ANOTHER_ENTITY"),
        ("forms/f2/files/p", "FILE_OF_ANOTHER_FORM"),
    ];
    for (name, reason) in refusals {
        let body = json!({"response": {"photo": name}});
        let error = service.update(&p, "f1", body, None).await.unwrap_err();
        let found: Vec<(&str, &str)> = error
            .field_violations
            .iter()
            .map(|v| (v.field.as_str(), v.reason))
            .collect();
        assert_eq!(found, [("form.response.photo", reason)], "{name}");
    }
}

#[test]
fn accept_admits_exact_types_and_wildcard_subtypes() {
    let accept = ["image/*".to_owned(), "application/pdf".to_owned()];
    assert!(accepts(&accept, "image/png"));
    assert!(accepts(&accept, "application/pdf"));
    assert!(!accepts(&accept, "application/json"));
    assert!(!accepts(&accept, "imagex/png"));
}

#[tokio::test]
async fn a_submit_checks_the_whole_response_and_logs_the_form_on_its_entity() {
    let mut mocks = Mocks::new();
    let response = Arc::new(Mutex::new(
        json!({"photo": "forms/f2/files/p", "extra": true}),
    ));
    let shared = response.clone();
    mocks.forms.expect_get().returning(move |_, _| {
        Ok(Some(stored(
            FormState::Draft,
            shared.lock().unwrap().clone(),
        )))
    });
    mocks
        .records
        .expect_submit()
        .withf(|tenant, form, revision, events, log| {
            let log = log.expect("a form about an entity is logged");
            tenant.as_str() == "t1"
                && form.state == FormState::Submitted
                && form.submit_time == Some(now())
                && *revision == 1
                && events[0].event_type == "form.submitted"
                && events[0].entity_id.as_deref() == Some("jane")
                && log.resource.activity_type == ActivityType::FormCreated
                && log.resource.entity_names == ["entities/jane"]
                && log.events[0].event_type == "activity_log.created"
        })
        .times(1)
        .returning(|_, _, _, _, _| Ok(()));
    let service = mocks.service();
    let p = principal();
    let error = service.submit(&p, "f1", None).await.unwrap_err();
    let mut found: Vec<(&str, &str)> = error
        .field_violations
        .iter()
        .map(|v| (v.field.as_str(), v.reason))
        .collect();
    found.sort_unstable();
    assert_eq!(
        found,
        [
            ("form.response.email", "ANSWER_REQUIRED"),
            ("form.response.extra", "UNKNOWN_ANSWER"),
            ("form.response.photo", "FILE_OF_ANOTHER_FORM"),
        ]
    );
    *response.lock().unwrap() = json!({"email": "jane@example.com", "photo": "forms/f1/files/p"});
    let submitted = service.submit(&p, "f1", None).await.unwrap();
    assert_eq!(submitted.state, FormState::Submitted);
    let stale = service
        .submit(&p, "f1", Some("\"stale\""))
        .await
        .unwrap_err();
    assert_eq!(stale.code, Code::Aborted);
}

#[tokio::test]
async fn a_draft_past_its_deadline_reads_expired_until_the_sweep_records_it() {
    let mut mocks = Mocks::new();
    let past = || {
        let mut form = stored(FormState::Draft, json!({}));
        form.expire_time = Some(at(-1));
        form
    };
    mocks
        .forms
        .expect_get()
        .returning(move |_, _| Ok(Some(past())));
    mocks
        .records
        .expect_find_expired()
        .withf(|at, limit| *at == now() && *limit == 10)
        .returning(|_, _| Ok(vec![(TenantId::new("t9"), "f1".into())]));
    mocks
        .forms
        .expect_update()
        .withf(|tenant, form, _, events| {
            tenant.as_str() == "t9"
                && form.state == FormState::Expired
                && events[0].event_type == "form.expired"
                && events[0].creator == "system"
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let service = mocks.service();
    let p = principal();
    assert_eq!(
        service.get(&p, "f1").await.unwrap().state,
        FormState::Expired
    );
    let error = service.submit(&p, "f1", None).await.unwrap_err();
    assert_eq!(
        error.metadata.get("state").map(String::as_str),
        Some("EXPIRED")
    );
    let system = Principal {
        tenant: TenantId::new("system"),
        subject: "system".into(),
        display_name: "rics".into(),
        scopes: Default::default(),
    };
    assert_eq!(service.sweep(&system, now(), 10).await, Ok(1));
}

#[test]
fn a_state_filter_reads_the_state_as_of_now() {
    let state = |op, value| Condition::Compare {
        field: "state",
        op,
        value: Literal::Enum(value),
    };
    let past_deadline = Condition::Compare {
        field: "expireTime",
        op: Comparator::Le,
        value: Literal::Timestamp(now().datetime()),
    };
    assert_eq!(
        state_as_of(state(Comparator::Eq, "EXPIRED"), now()),
        Condition::Or(vec![
            state(Comparator::Eq, "EXPIRED"),
            Condition::And(vec![state(Comparator::Eq, "DRAFT"), past_deadline.clone()]),
        ])
    );
    assert_eq!(
        state_as_of(state(Comparator::Ne, "DRAFT"), now()),
        Condition::Not(Box::new(Condition::And(vec![
            state(Comparator::Eq, "DRAFT"),
            Condition::Not(Box::new(past_deadline)),
        ])))
    );
    assert_eq!(
        state_as_of(state(Comparator::Eq, "SUBMITTED"), now()),
        state(Comparator::Eq, "SUBMITTED")
    );
}
