//! Unit tests of the automation service with mocked ports.

use std::sync::Arc;

use serde_json::json;

use super::model::Automation;
use super::ports::MockAutomationRepository;
use super::service::{AutomationService, Loaded, check_file};
use crate::error::Code;
use crate::form_definition::service_tests::{context, now, principal};
use crate::lifecycle::{SoftDeletable, SoftDeleteMethods};
use crate::methods::{CreateMethod, UpdateMethod};
use crate::repository::CreateOutcome;

fn service(repository: MockAutomationRepository) -> AutomationService {
    AutomationService::new(Arc::new(repository), context())
}

fn body() -> serde_json::Value {
    json!({
        "displayName": "Tag",
        "inputSchema": {"entity": {"type": "string"}},
        "steps": [{"key": "tag", "kind": "ADD_TAG", "args": {"entity": "${parameters.entity}", "tag": "x"}}]
    })
}

fn stored(built_in: bool) -> Automation {
    let mut automation: Automation = serde_json::from_value(body()).unwrap();
    automation.begin(Automation::name_of("tag"), "uid-0".into(), now());
    automation.revision_id = "aaaa1111".into();
    automation.revision_create_time = Some(now());
    automation.built_in = built_in;
    automation
}

#[tokio::test]
async fn a_new_automation_is_its_first_revision_and_never_built_in() {
    let mut repository = MockAutomationRepository::new();
    repository
        .expect_create()
        .withf(|_, automation, _, events| {
            automation.revision_id == "9f1c2b3a"
                && !automation.built_in
                && events[0].event_type == "automation.created"
        })
        .times(1)
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    let mut claimed = body();
    claimed["builtIn"] = json!(true);
    let created = service(repository)
        .create(&principal(), claimed, Some("tagger"), None)
        .await
        .unwrap();
    assert_eq!(created.name, "automations/tagger");
}

#[tokio::test]
async fn every_fault_of_a_definition_is_reported_at_once() {
    let error = service(MockAutomationRepository::new())
        .create(
            &principal(),
            json!({"displayName": "Bad", "steps": [
                {"key": "a", "kind": "ADD_TAG", "args": {"entity": "${steps.b.output.x}", "tag": "t"}},
                {"key": "b", "kind": "BRANCH", "args": {"condition": "((("}}
            ]}),
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
            ("automation.steps[0].args.entity", "LATER_STEP"),
            ("automation.steps[1].args.condition", "INVALID_CONDITION"),
        ]
    );
}

#[tokio::test]
async fn only_a_change_of_definition_makes_a_new_revision() {
    let mut repository = MockAutomationRepository::new();
    repository
        .expect_get()
        .returning(|_, _| Ok(Some(stored(false))));
    repository
        .expect_update()
        .times(2)
        .returning(|_, _, _, _| Ok(()));
    let service = service(repository);
    let renamed = service
        .update(&principal(), "tag", json!({"displayName": "Tags"}), None)
        .await
        .unwrap();
    assert_eq!(renamed.revision_id, "aaaa1111");
    let mut steps = body()["steps"].clone();
    steps[0]["args"]["tag"] = json!("y");
    let revised = service
        .update(&principal(), "tag", json!({"steps": steps}), None)
        .await
        .unwrap();
    assert_eq!(revised.revision_id, "9f1c2b3a");
}

#[tokio::test]
async fn a_built_in_automation_is_neither_changed_nor_deleted() {
    let mut repository = MockAutomationRepository::new();
    repository
        .expect_get()
        .returning(|_, _| Ok(Some(stored(true))));
    let service = service(repository);
    let changed = service
        .update(&principal(), "tag", json!({"displayName": "Mine"}), None)
        .await
        .unwrap_err();
    assert_eq!(
        (changed.code, changed.reason),
        (Code::FailedPrecondition, "BUILT_IN_AUTOMATION")
    );
    let deleted = service
        .delete(&principal(), "tag", None, false)
        .await
        .unwrap_err();
    assert_eq!(
        (deleted.code, deleted.reason),
        (Code::FailedPrecondition, "BUILT_IN_AUTOMATION")
    );
}

#[test]
fn a_file_is_checked_whole_before_anything_is_stored() {
    let mut named = body();
    named["name"] = json!("automations/tagger");
    let checked = check_file(&json!({"automations": [named.clone()]})).unwrap();
    assert_eq!(checked, [("tagger".to_owned(), named.clone())]);
    assert_eq!(check_file(&json!([named.clone()])).unwrap().len(), 1);
    let mut later = named.clone();
    later["name"] = json!("automations/later");
    later["steps"][0]["args"]["tag"] = json!("${steps.nope.output.x}");
    let error = check_file(&json!([named, later, {"displayName": "Nameless"}])).unwrap_err();
    let fields: Vec<(&str, &str)> = error
        .field_violations
        .iter()
        .map(|v| (v.field.as_str(), v.reason))
        .collect();
    assert_eq!(
        fields,
        [
            ("automations[1].steps[0].args.tag", "UNKNOWN_STEP"),
            ("automations[2].name", "INVALID_NAME"),
        ]
    );
    assert!(check_file(&json!({"other": []})).is_err());
}

#[tokio::test]
async fn loading_creates_new_automations_and_replaces_stored_ones() {
    let mut repository = MockAutomationRepository::new();
    repository
        .expect_get()
        .returning(|_, id| Ok((id == "tag").then(|| stored(false))));
    repository
        .expect_create()
        .times(1)
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    repository
        .expect_update()
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let mut renamed = body();
    renamed["displayName"] = json!("Tags");
    let loaded = service(repository)
        .load(
            &principal(),
            &[("tag".into(), renamed), ("tagger".into(), body())],
        )
        .await
        .unwrap();
    assert_eq!(
        loaded,
        [
            ("automations/tag".to_owned(), Loaded::Updated),
            ("automations/tagger".to_owned(), Loaded::Created)
        ]
    );
}
