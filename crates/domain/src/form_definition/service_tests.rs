//! Unit tests of the form definition service with mocked ports.
//! Its clock, principal and context serve the automation service tests too.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use super::model::FormDefinition;
use super::ports::{MockFormDefinitionRepository, MockFormRevisions};
use super::service::FormDefinitionService;
use crate::error::Code;
use crate::id::MockIdGenerator;
use crate::lifecycle::{ServiceContext, SoftDeletable};
use crate::list::Paging;
use crate::methods::{CreateMethod, UpdateMethod};
use crate::principal::{Principal, TenantId};
use crate::repository::CreateOutcome;
use crate::time::{MockClock, Timestamp};

pub(crate) fn now() -> Timestamp {
    Timestamp::parse_rfc3339("2026-11-25T10:00:00Z").unwrap()
}

pub(crate) fn principal() -> Principal {
    Principal {
        tenant: TenantId::new("t1"),
        subject: "admin".into(),
        display_name: "Admin".into(),
        scopes: Default::default(),
    }
}

pub(crate) fn context() -> ServiceContext {
    let mut clock = MockClock::new();
    clock.expect_now().returning(now);
    let clock = Arc::new(clock);
    let mut ids = MockIdGenerator::new();
    ids.expect_resource_id().returning(|| "gen-id".into());
    ids.expect_uid()
        .returning(|| "9f1c2b3a-4d5e-4f60-8a7b-1c2d3e4f5a6b".into());
    let paging = Arc::new(Paging::new(&[7; 32], clock.clone()).unwrap());
    ServiceContext {
        clock,
        ids: Arc::new(ids),
        paging,
        retention: Duration::from_secs(86_400),
    }
}

fn service(
    repository: MockFormDefinitionRepository,
    revisions: MockFormRevisions,
) -> FormDefinitionService {
    FormDefinitionService::new(Arc::new(repository), Arc::new(revisions), context())
}

fn body() -> serde_json::Value {
    json!({
        "displayName": "Contact",
        "schema": {"steps": [{"key": "contact", "label": "Contact", "fields": [
            {"key": "email", "label": "Email", "type": "email", "required": true}
        ]}]}
    })
}

pub(crate) fn stored() -> FormDefinition {
    let mut definition: FormDefinition = serde_json::from_value(body()).unwrap();
    definition.begin(FormDefinition::name_of("contact"), "uid-0".into(), now());
    definition.revision_id = "aaaa1111".into();
    definition.revision_create_time = Some(now());
    definition
}

#[tokio::test]
async fn a_new_definition_is_its_first_revision_with_its_response_schema() {
    let mut repository = MockFormDefinitionRepository::new();
    repository
        .expect_create()
        .withf(|_, definition, _, events| {
            definition.revision_id == "9f1c2b3a"
                && definition.revision_create_time == Some(now())
                && events[0].event_type == "form_definition.created"
                && events[0].entity_id.is_none()
        })
        .times(1)
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    let created = service(repository, MockFormRevisions::new())
        .create(&principal(), body(), Some("contact"), None)
        .await
        .unwrap();
    assert_eq!(created.name, "formDefinitions/contact");
    let schema = created.response_schema.unwrap();
    assert_eq!(schema["required"], json!(["email"]));
    assert_eq!(
        serde_json::to_value(created.schema.unwrap()).unwrap()["steps"][0]["fields"][0]["type"],
        "EMAIL",
        "lower case types are stored in upper case"
    );
}

#[tokio::test]
async fn every_fault_of_a_definition_is_reported_at_once() {
    let error = service(
        MockFormDefinitionRepository::new(),
        MockFormRevisions::new(),
    )
    .create(
        &principal(),
        json!({"schema": {"steps": [{"key": "s", "label": "S", "fields": [
            {"key": "a", "label": "A", "type": "TEXT"},
            {"key": "a", "label": "A again", "type": "SELECT"}
        ]}]}}),
        None,
        None,
    )
    .await
    .unwrap_err();
    let fields: Vec<(&str, &str)> = error
        .field_violations
        .iter()
        .map(|v| (v.field.as_str(), v.reason))
        .collect();
    assert_eq!(
        fields,
        [
            ("formDefinition.displayName", "REQUIRED"),
            (
                "formDefinition.schema.steps[0].fields[1].key",
                "DUPLICATE_FIELD_KEY"
            ),
            (
                "formDefinition.schema.steps[0].fields[1].options",
                "OPTIONS_REQUIRED"
            ),
        ]
    );
}

#[tokio::test]
async fn only_a_change_of_schema_makes_a_new_revision() {
    let mut repository = MockFormDefinitionRepository::new();
    repository.expect_get().returning(|_, _| Ok(Some(stored())));
    repository
        .expect_update()
        .times(2)
        .returning(|_, _, _, _| Ok(()));
    let service = service(repository, MockFormRevisions::new());
    let renamed = service
        .update(
            &principal(),
            "contact",
            json!({"displayName": "Contacts"}),
            None,
        )
        .await
        .unwrap();
    assert_eq!(renamed.revision_id, "aaaa1111");
    let mut schema = body()["schema"].clone();
    schema["steps"][0]["fields"][0]["required"] = json!(false);
    let revised = service
        .update(&principal(), "contact", json!({"schema": schema}), None)
        .await
        .unwrap();
    assert_eq!(revised.revision_id, "9f1c2b3a");
    assert!(
        revised
            .response_schema
            .is_some_and(|schema| !schema.contains_key("required")),
        "the response schema follows the new revision"
    );
}

#[tokio::test]
async fn a_revision_is_read_by_its_name() {
    let mut revisions = MockFormRevisions::new();
    revisions
        .expect_get_revision()
        .returning(|_, _, revision| Ok((revision == "aaaa1111").then(stored)));
    let mut repository = MockFormDefinitionRepository::new();
    repository.expect_get().returning(|_, _| Ok(Some(stored())));
    let service = service(repository, revisions);
    let p = principal();
    let old = service.get_revision(&p, "contact@aaaa1111").await.unwrap();
    assert_eq!(old.name, "formDefinitions/contact@aaaa1111");
    assert_eq!(old.revision_name(), "formDefinitions/contact@aaaa1111");
    let latest = service.get_revision(&p, "contact").await.unwrap();
    assert_eq!(latest.name, "formDefinitions/contact");
    let missing = service
        .get_revision(&p, "contact@bbbb2222")
        .await
        .unwrap_err();
    assert_eq!(missing.code, Code::NotFound);
    let malformed = service.get_revision(&p, "contact@B").await.unwrap_err();
    assert_eq!(malformed.reason, "INVALID_NAME");
}

#[tokio::test]
async fn a_form_names_a_live_definition() {
    let mut repository = MockFormDefinitionRepository::new();
    repository.expect_get().returning(|_, id| {
        Ok(match id {
            "contact" => Some(stored()),
            "gone" => {
                let mut gone = stored();
                gone.name = FormDefinition::name_of("gone");
                gone.delete_time = Some(now());
                Some(gone)
            }
            _ => None,
        })
    });
    let service = service(repository, MockFormRevisions::new());
    let tenant = TenantId::new("t1");
    let found = service
        .resolve(&tenant, "form.formDefinition", "formDefinitions/contact")
        .await
        .unwrap();
    assert_eq!(found.revision_name(), "formDefinitions/contact@aaaa1111");
    let cases = [
        (
            "formDefinitions/gone",
            Code::FailedPrecondition,
            "FORM_DEFINITION_DELETED",
        ),
        (
            "formDefinitions/nobody",
            Code::NotFound,
            "FORM_DEFINITION_NOT_FOUND",
        ),
        ("forms/contact", Code::InvalidArgument, "INVALID_NAME"),
    ];
    for (name, code, reason) in cases {
        let error = service
            .resolve(&tenant, "form.formDefinition", name)
            .await
            .unwrap_err();
        assert_eq!((error.code, error.reason), (code, reason), "{name}");
    }
}
