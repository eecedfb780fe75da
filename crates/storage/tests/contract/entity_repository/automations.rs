//! Automations: revisions of their definition kept beside them and gone with their
//! purge, and the built-in automations seeded alike by provisioning and by the
//! migration.

use std::time::Duration;

use diesel::RunQueryDsl;
use rics_domain::automation::execution::{Execution, ExecutionState, ExecutionStep, StepState};
use rics_domain::automation::model::Automation;
use rics_domain::automation::ports::{AutomationRevisions, ExecutionRepository};
use rics_domain::automation::seed::{BUILT_IN, BUILT_IN_REVISION};
use rics_domain::lifecycle::SoftDeletable;
use rics_domain::operation::{Operation, OperationMetadata};
use rics_domain::principal::TenantId;
use rics_domain::repository::ResourceStore;
use rics_domain::tenant::ports::{TenantPlan, TenantRepository};
use rics_storage::connection::{DatabaseUrl, connect};
use rics_storage::migrations::{pending, run_next, run_pending};
use rics_storage::testing::TestDatabase;
use rics_storage::{
    Backend, DieselAutomationRepository, DieselExecutionRepository, DieselTenantRepository,
};
use serde_json::{Map, json};

use super::forms::{next, tenant};
use super::support::{Fixture, event};
use crate::support::{BASE_MICROS, at, t1, t2};

/// The automation `id` at the revision `revision`, tagging with `tag`, created at
/// `at(seconds)`.
fn automation(id: &str, revision: &str, tag: &str, seconds: i64) -> Automation {
    let mut automation: Automation = serde_json::from_value(json!({
        "displayName": format!("Automation {id}"),
        "description": "two\nlines",
        "inputSchema": {"entity": {"type": "string"}},
        "steps": [{"key": "tag", "kind": "ADD_TAG", "args": {"entity": "${parameters.entity}", "tag": tag}}]
    }))
    .unwrap();
    automation.revision_id = revision.into();
    automation.revision_create_time = Some(at(seconds));
    automation.begin(Automation::name_of(id), format!("uid-{id}"), at(seconds));
    automation
}

async fn an_automation_keeps_every_revision_until_it_is_purged(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = DieselAutomationRepository::new(f.db.clone());
    let first = automation("tagger", "aaaa1111", "one", 1);
    repo.create(
        &t1(),
        &first,
        None,
        &[event("ev-1", None, "automation.created", 1)],
    )
    .await
    .unwrap();
    assert_eq!(
        repo.get(&t1(), "tagger").await.unwrap(),
        Some(first.clone())
    );
    let renamed = next(&first, 2, |a| a.display_name = "Renamed".into());
    repo.update(&t1(), &renamed, 1, &[]).await.unwrap();
    let revised = next(&renamed, 3, |a| {
        a.steps[0].args.insert("tag".into(), json!("two"));
        a.revision_id = "bbbb2222".into();
        a.revision_create_time = Some(at(3));
    });
    repo.update(&t1(), &revised, 2, &[]).await.unwrap();
    assert_eq!(
        repo.get(&t1(), "tagger").await.unwrap(),
        Some(revised.clone())
    );
    for (revision, kept) in [("aaaa1111", &first), ("bbbb2222", &revised)] {
        assert_eq!(
            repo.get_definition(&t1(), "tagger", revision).await,
            Ok(Some(kept.definition())),
            "{revision}"
        );
    }
    assert_eq!(
        repo.get_definition(&t1(), "tagger", "cccc3333").await,
        Ok(None)
    );
    assert_eq!(
        repo.get_definition(&t2(), "tagger", "aaaa1111").await,
        Ok(None)
    );

    let mut deleted = next(&revised, 4, |_| {});
    deleted.set_deletion(Some((at(4), at(5))));
    repo.update(&t1(), &deleted, 3, &[]).await.unwrap();
    repo.purge(&t1(), "tagger", at(6), &[]).await.unwrap();
    assert_eq!(repo.get(&t1(), "tagger").await, Ok(None));
    assert_eq!(
        repo.get_definition(&t1(), "tagger", "aaaa1111").await,
        Ok(None),
        "the revisions went with it"
    );
}

contract!(an_automation_keeps_every_revision_until_it_is_purged);

async fn the_migration_and_provisioning_seed_the_built_in_automations_alike(backend: Backend) {
    let test_db = TestDatabase::empty(backend);
    let mut conn = connect(&DatabaseUrl::parse(test_db.url()).unwrap()).unwrap();
    // Migrate up to the automations, then add tenants as an older version would.
    while pending(&mut conn).unwrap().first().map(String::as_str) != Some("20261125000019") {
        run_next(&mut conn).unwrap();
    }
    for (id, seconds) in [("p1", 1), ("s1", 7)] {
        let micros = BASE_MICROS + seconds * 1_000_000;
        diesel::sql_query(format!(
            "INSERT INTO tenants (id, display_name, tenant_type, parent, state, create_time, \
             update_time) VALUES ('{id}', 'Tenant {id}', 'STANDARD', NULL, 'ACTIVE', {micros}, \
             {micros})"
        ))
        .execute(&mut conn)
        .unwrap();
    }
    run_pending(&mut conn).unwrap();
    // A tenant provisioned later gets them from its plan.
    let fresh = Fixture::new(backend);
    let built_in = |tenant: &str, seconds: i64| -> Vec<Automation> {
        BUILT_IN
            .iter()
            .map(|id| Automation::built_in(tenant, id, at(seconds)).unwrap())
            .collect()
    };
    let plan = TenantPlan {
        tenant: tenant("n1", 9),
        clients: Vec::new(),
        users: Vec::new(),
        alert_types: Vec::new(),
        form_definitions: Vec::new(),
        automations: built_in("n1", 9),
    };
    assert!(
        DieselTenantRepository::new(fresh.db.clone())
            .bootstrap(&plan)
            .await
            .unwrap()
    );
    // What `rics automations load --all-tenants` visits.
    let all = DieselTenantRepository::new(test_db.open().unwrap())
        .all_ids()
        .await
        .unwrap();
    assert_eq!(all, [TenantId::new("p1"), TenantId::new("s1")]);
    let migrated = DieselAutomationRepository::new(test_db.open().unwrap());
    let provisioned = DieselAutomationRepository::new(fresh.db.clone());
    for (repo, tenant, seconds) in [
        (&migrated, "p1", 1),
        (&migrated, "s1", 7),
        (&provisioned, "n1", 9),
    ] {
        let owner = TenantId::new(tenant);
        for seeded in built_in(tenant, seconds) {
            let id = seeded.id().to_owned();
            let stored = repo.get(&owner, &id).await.unwrap();
            assert!(
                stored.as_ref() == Some(&seeded),
                "{tenant} {id}: the migration seeds what provisioning would: {stored:?}"
            );
            let definition = repo
                .get_definition(&owner, &id, BUILT_IN_REVISION)
                .await
                .unwrap();
            assert!(definition == Some(seeded.definition()), "{tenant} {id}");
        }
    }
}

contract!(the_migration_and_provisioning_seed_the_built_in_automations_alike);

/// A cancelled execution's task is released and ready at once, even when a worker held
/// it: one more claim tells the execution's end (an onboarding's run ends with it), so a
/// crash between the cancel's commit and that telling loses nothing.
async fn a_cancelled_execution_is_claimed_once_more(backend: Backend) {
    let f = Fixture::new(backend);
    let executions = DieselExecutionRepository::new(f.db.clone());
    let tenant = t1();
    let execution = Execution {
        id: "x1".into(),
        automation_id: "a1".into(),
        automation_revision: "r1".into(),
        uid: "uid-x1".into(),
        revision: 1,
        state: ExecutionState::WaitingForInput,
        input_parameters: Map::new(),
        entity_id: None,
        forms: vec!["forms/f1".into()],
        error: None,
        steps: vec![ExecutionStep {
            key: "submitted".into(),
            state: StepState::WaitingForInput,
            ..ExecutionStep::default()
        }],
        current: 0,
        operation: "automations/a1/operations/o1".into(),
        start_time: Some(at(0)),
        end_time: None,
        create_time: at(0),
        update_time: at(0),
    };
    let operation = Operation {
        name: execution.operation.clone(),
        metadata: OperationMetadata::default(),
        done: false,
        error: None,
        response: None,
        create_time: Some(at(0)),
        redact_after: None,
    };
    executions
        .start(&tenant, &execution, &operation, None, &[])
        .await
        .unwrap();
    let lease = Duration::from_secs(60);
    let held = f.jobs.claim("c1", at(1), lease, 10).await.unwrap();
    assert_eq!(held.len(), 1, "the execution's task is ready once started");

    let mut cancelled = execution.clone();
    cancelled.revision = 2;
    cancelled.state = ExecutionState::Cancelled;
    cancelled.end_time = Some(at(2));
    cancelled.update_time = at(2);
    cancelled.forms.clear();
    executions
        .cancel(&tenant, &cancelled, execution.revision, &[])
        .await
        .unwrap();
    let again = f.jobs.claim("c2", at(2), lease, 10).await.unwrap();
    let ids: Vec<&str> = again.iter().map(|task| task.job_id.as_str()).collect();
    assert_eq!(
        ids,
        ["x1"],
        "the cancelled execution's task is claimed once more"
    );
    let stored = ExecutionRepository::get(&executions, &tenant, None, "x1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.state, ExecutionState::Cancelled);
}

contract!(a_cancelled_execution_is_claimed_once_more);
