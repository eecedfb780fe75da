//! Form definitions and forms: revisions kept beside a definition and gone with its
//! purge, the seeded `kyc-individual` (by provisioning and by the migration, alike),
//! forms with their workspaces in order, a submit that stores its activity log in the
//! same transaction, the forms past their deadline across tenants, the forms a new
//! workspace opens, the workspace column of documents, and an entity's erasure.

use std::sync::Arc;

use diesel::RunQueryDsl;
use rics_aip::filter::{Condition, StringMatch};
use rics_domain::activity::model::{ActivityLog, ActivityType};
use rics_domain::entity::repository::EraseGuard;
use rics_domain::form::fields::LIST;
use rics_domain::form::model::{Form, FormState, NewForm};
use rics_domain::form::ports::{FormRecords, FormRepository};
use rics_domain::form_definition::fields::LIST as DEFINITION_LIST;
use rics_domain::form_definition::model::{FormDefinition, FormSchema};
use rics_domain::form_definition::ports::FormRevisions;
use rics_domain::form_definition::response_schema::response_schema;
use rics_domain::form_definition::seed::{
    IDENTITY_CAPTURE, IDENTITY_CAPTURE_REVISION, KYC_INDIVIDUAL, KYC_INDIVIDUAL_REVISION,
};
use rics_domain::lifecycle::SoftDeletable;
use rics_domain::list::ListRequest;
use rics_domain::principal::TenantId;
use rics_domain::repository::{RepositoryError, ResourceStore, Staged};
use rics_domain::tenant::ports::{TenantPlan, TenantRepository};
use rics_domain::tenant::{Tenant, TenantState, TenantType};
use rics_domain::workspace::model::{Workspace, WorkspaceState};
use rics_storage::connection::{DatabaseUrl, connect};
use rics_storage::migrations::{pending, run_next, run_pending};
use rics_storage::testing::TestDatabase;
use rics_storage::{
    Backend, DieselActivityLogRepository, DieselFormDefinitionRepository, DieselFormRepository,
    DieselTenantRepository,
};
use serde_json::json;

use super::documents::document;
use super::support::{Fixture, entity, event};
use crate::support::{BASE_MICROS, at, paging, request, t1, t2};

/// A schema of one TEXT field `key`.
fn schema(key: &str) -> FormSchema {
    serde_json::from_value(json!({"steps": [{"key": "s", "label": "S", "fields": [
        {"key": key, "label": "Field", "type": "TEXT"}
    ]}]}))
    .unwrap()
}

/// The definition `id` at the revision `revision` of a one-field schema, created at
/// `at(seconds)`.
fn definition(id: &str, revision: &str, key: &str, seconds: i64) -> FormDefinition {
    let schema = schema(key);
    let mut definition = FormDefinition {
        display_name: format!("Definition {id}"),
        description: "two\nlines".into(),
        response_schema: Some(response_schema(&schema)),
        schema: Some(schema),
        revision_id: revision.into(),
        revision_create_time: Some(at(seconds)),
        ..FormDefinition::default()
    };
    definition.begin(
        FormDefinition::name_of(id),
        format!("uid-{id}"),
        at(seconds),
    );
    definition
}

/// A DRAFT form `id` of `kyc-individual`, in `workspaces`, about `entity` when given.
fn form(id: &str, entity: Option<&str>, workspaces: &[&str], seconds: i64) -> Form {
    let mut form = Form {
        display_name: format!("Form {id}"),
        form_definition: format!("formDefinitions/{KYC_INDIVIDUAL}@{KYC_INDIVIDUAL_REVISION}"),
        entity: entity.map(|e| format!("entities/{e}")).unwrap_or_default(),
        workspaces: workspaces
            .iter()
            .map(|w| format!("workspaces/{w}"))
            .collect(),
        state: FormState::Draft,
        response: json!({"given_name": "Anna"}).as_object().cloned(),
        ..Form::default()
    };
    form.begin(Form::name_of(id), format!("uid-{id}"), at(seconds));
    form
}

pub(super) fn next<R: SoftDeletable>(resource: &R, seconds: i64, change: impl FnOnce(&mut R)) -> R {
    let mut changed = resource.clone();
    change(&mut changed);
    changed.follow(resource, at(seconds));
    changed
}

/// The ids of the forms a list of `request` returns, narrowed by `condition`.
async fn form_ids(
    repo: &dyn FormRepository,
    request: &ListRequest,
    condition: Option<Condition>,
) -> Vec<String> {
    let (mut query, _) = paging().prepare(&LIST, &t1(), None, request).unwrap();
    if let Some(condition) = condition {
        query.narrow(condition);
    }
    let page = repo.list(&t1(), None, &query).await.unwrap();
    page.items.iter().map(|f| f.id().to_owned()).collect()
}

async fn a_definition_keeps_every_revision_until_it_is_purged(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = Arc::new(DieselFormDefinitionRepository::new(f.db.clone()));
    let first = definition("contact", "aaaa1111", "email", 1);
    repo.create(
        &t1(),
        &first,
        None,
        &[event("ev-1", None, "form_definition.created", 1)],
    )
    .await
    .unwrap();
    assert_eq!(
        repo.get(&t1(), "contact").await.unwrap(),
        Some(first.clone())
    );
    let renamed = next(&first, 2, |d| d.display_name = "Renamed".into());
    repo.update(&t1(), &renamed, 1, &[]).await.unwrap();
    let revised = next(&renamed, 3, |d| {
        d.schema = Some(schema("phone"));
        d.response_schema = d.schema.as_ref().map(response_schema);
        d.revision_id = "bbbb2222".into();
        d.revision_create_time = Some(at(3));
    });
    repo.update(&t1(), &revised, 2, &[]).await.unwrap();
    assert_eq!(
        repo.get(&t1(), "contact").await.unwrap(),
        Some(revised.clone())
    );
    let old = repo
        .get_revision(&t1(), "contact", "aaaa1111")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(old.schema, Some(schema("email")));
    assert_eq!(old.response_schema, Some(response_schema(&schema("email"))));
    assert_eq!(old.revision_create_time, Some(at(1)));
    assert_eq!(
        old.display_name, "Renamed",
        "the rest is the definition's now"
    );
    assert_eq!(
        repo.get_revision(&t1(), "contact", "bbbb2222")
            .await
            .unwrap()
            .map(|d| d.schema),
        Some(Some(schema("phone")))
    );
    assert_eq!(
        repo.get_revision(&t1(), "contact", "cccc3333").await,
        Ok(None)
    );
    assert_eq!(
        repo.get_revision(&t2(), "contact", "aaaa1111").await,
        Ok(None)
    );
    let listed = |filter: &str| {
        let repo = repo.clone();
        let filter = filter.to_owned();
        async move {
            let (query, _) = paging()
                .prepare(&DEFINITION_LIST, &t1(), None, &request(&filter, "", 10))
                .unwrap();
            repo.list(&t1(), None, &query).await.unwrap().total_size
        }
    };
    assert_eq!(listed("revisionId = \"bbbb2222\"").await, 1);
    assert_eq!(listed("revisionId = \"aaaa1111\"").await, 0);

    let mut deleted = next(&revised, 4, |_| {});
    deleted.set_deletion(Some((at(4), at(5))));
    repo.update(&t1(), &deleted, 3, &[]).await.unwrap();
    repo.purge(&t1(), "contact", at(6), &[]).await.unwrap();
    assert_eq!(repo.get(&t1(), "contact").await, Ok(None));
    assert_eq!(
        repo.get_revision(&t1(), "contact", "aaaa1111").await,
        Ok(None),
        "the revisions went with it"
    );
    // The id is free again, with no revision of the purged definition.
    repo.create(&t1(), &definition("contact", "dddd4444", "x", 7), None, &[])
        .await
        .unwrap();
    assert_eq!(
        repo.get_revision(&t1(), "contact", "bbbb2222").await,
        Ok(None)
    );
}

contract!(a_definition_keeps_every_revision_until_it_is_purged);

/// A tenant created at `at(seconds)`.
pub(super) fn tenant(id: &str, seconds: i64) -> Tenant {
    Tenant {
        name: Tenant::name_of(id),
        display_name: format!("Tenant {id}"),
        tenant_type: TenantType::Standard,
        parent: String::new(),
        state: TenantState::Active,
        create_time: Some(at(seconds)),
        update_time: Some(at(seconds)),
    }
}

async fn the_migration_and_provisioning_seed_the_kyc_definition_alike(backend: Backend) {
    let test_db = TestDatabase::empty(backend);
    let mut conn = connect(&DatabaseUrl::parse(test_db.url()).unwrap()).unwrap();
    // Migrate up to the form definitions, then add tenants as an older version would.
    while pending(&mut conn).unwrap().first().map(String::as_str) != Some("20261125000013") {
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
    // A tenant provisioned later gets the definition from its plan.
    let fresh = Fixture::new(backend);
    let plan = TenantPlan {
        tenant: tenant("n1", 9),
        clients: Vec::new(),
        users: Vec::new(),
        alert_types: Vec::new(),
        form_definitions: vec![
            FormDefinition::kyc_individual("n1", at(9)),
            FormDefinition::identity_capture("n1", at(9)),
        ],
        automations: Vec::new(),
    };
    assert!(
        DieselTenantRepository::new(fresh.db.clone())
            .bootstrap(&plan)
            .await
            .unwrap()
    );
    let migrated = DieselFormDefinitionRepository::new(test_db.open().unwrap());
    let provisioned = DieselFormDefinitionRepository::new(fresh.db.clone());
    for (repo, id, seconds) in [
        (&migrated, "p1", 1),
        (&migrated, "s1", 7),
        (&provisioned, "n1", 9),
    ] {
        let owner = TenantId::new(id);
        for (definition, revision_id, seeded) in [
            (
                KYC_INDIVIDUAL,
                KYC_INDIVIDUAL_REVISION,
                FormDefinition::kyc_individual(id, at(seconds)),
            ),
            (
                IDENTITY_CAPTURE,
                IDENTITY_CAPTURE_REVISION,
                FormDefinition::identity_capture(id, at(seconds)),
            ),
        ] {
            let stored = repo.get(&owner, definition).await.unwrap();
            assert!(
                stored == Some(seeded.clone()),
                "{id}: the migration seeds what provisioning would: {stored:?}"
            );
            let revision = repo
                .get_revision(&owner, definition, revision_id)
                .await
                .unwrap();
            assert!(revision == Some(seeded), "{id}: {revision:?}");
        }
    }
}

contract!(the_migration_and_provisioning_seed_the_kyc_definition_alike);

async fn forms_keep_their_workspaces_in_order_and_list_by_them(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = DieselFormRepository::new(f.db.clone());
    f.create(&t1(), &entity("amy", "Amy", 0)).await;
    let a = form("form-a", Some("amy"), &["case-2", "case-1"], 1);
    let b = form("form-b", None, &["case-1"], 2);
    let c = form("form-c", None, &[], 3);
    for form in [&a, &b, &c] {
        repo.create(&t1(), form, None, &[]).await.unwrap();
    }
    repo.create(&t2(), &form("form-a", None, &["case-1"], 1), None, &[])
        .await
        .unwrap();
    assert_eq!(repo.get(&t1(), "form-a").await.unwrap(), Some(a.clone()));
    let in_case = |w: &str| {
        Some(Condition::Contains {
            field: "workspaces",
            value: StringMatch::Exact(format!("workspaces/{w}")),
        })
    };
    let all = ListRequest::default();
    assert_eq!(
        form_ids(&repo, &all, in_case("case-1")).await,
        ["form-a", "form-b"]
    );
    assert_eq!(form_ids(&repo, &all, in_case("case-2")).await, ["form-a"]);
    let about_amy = request("entity = \"entities/amy\"", "", 10);
    assert_eq!(form_ids(&repo, &about_amy, None).await, ["form-a"]);
    let moved = next(&a, 4, |form| {
        form.workspaces = vec!["workspaces/case-3".into()];
        form.state = FormState::Expired;
    });
    repo.update(&t1(), &moved, 1, &[]).await.unwrap();
    assert_eq!(
        form_ids(&repo, &all, in_case("case-2")).await,
        Vec::<String>::new()
    );
    let expired = request("state = EXPIRED", "displayName desc", 10);
    assert_eq!(form_ids(&repo, &expired, None).await, ["form-a"]);
    assert_eq!(
        repo.update(&t1(), &moved, 1, &[]).await,
        Err(RepositoryError::Conflict)
    );
    // A form about an entity that is not stored is NOT_FOUND, and nothing is written.
    assert_eq!(
        repo.create(
            &t1(),
            &form("form-d", Some("nobody"), &["case-1"], 5),
            None,
            &[]
        )
        .await,
        Err(RepositoryError::NotFound)
    );
    assert_eq!(
        form_ids(&repo, &all, None).await,
        ["form-a", "form-b", "form-c"]
    );
}

contract!(forms_keep_their_workspaces_in_order_and_list_by_them);

async fn a_submit_stores_the_form_and_its_log_at_once(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = DieselFormRepository::new(f.db.clone());
    let logs = DieselActivityLogRepository::new(f.db.clone());
    f.create(&t1(), &entity("amy", "Amy", 0)).await;
    let draft = form("form-a", Some("amy"), &[], 1);
    repo.create(&t1(), &draft, None, &[]).await.unwrap();
    let submitted = next(&draft, 2, |form| {
        form.state = FormState::Submitted;
        form.submit_time = Some(at(2));
    });
    let mut log = ActivityLog {
        activity_type: ActivityType::FormCreated,
        source: "RICS".into(),
        entity_names: vec!["entities/amy".into()],
        occur_time: Some(at(2)),
        ..ActivityLog::default()
    };
    log.begin(ActivityLog::name_of("log-1"), "uid-log-1".into(), at(2));
    let new_log = Staged {
        resource: log.clone(),
        events: vec![event("ev-log", Some("amy"), "activity_log.created", 2)],
    };
    let events = [event("ev-submit", Some("amy"), "form.submitted", 2)];
    // A stale revision writes neither the form nor the log.
    assert_eq!(
        repo.submit(&t1(), &submitted, 7, &events, Some(&new_log))
            .await,
        Err(RepositoryError::Conflict)
    );
    assert_eq!(ResourceStore::get(&logs, &t1(), "log-1").await, Ok(None));
    repo.submit(&t1(), &submitted, 1, &events, Some(&new_log))
        .await
        .unwrap();
    assert_eq!(repo.get(&t1(), "form-a").await.unwrap(), Some(submitted));
    assert_eq!(
        ResourceStore::get(&logs, &t1(), "log-1").await.unwrap(),
        Some(log)
    );
    let types: Vec<String> = f
        .events(&t1())
        .await
        .into_iter()
        .map(|e| e.event_type)
        .collect();
    assert_eq!(types, ["activity_log.created", "form.submitted"]);
}

contract!(a_submit_stores_the_form_and_its_log_at_once);

async fn drafts_past_their_deadline_are_found_across_tenants(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = DieselFormRepository::new(f.db.clone());
    let with_deadline = |id: &str, seconds: i64, state: FormState| {
        let mut form = form(id, None, &[], 1);
        form.expire_time = Some(at(seconds));
        form.state = state;
        form
    };
    repo.create(
        &t1(),
        &with_deadline("late", 20, FormState::Draft),
        None,
        &[],
    )
    .await
    .unwrap();
    repo.create(
        &t2(),
        &with_deadline("early", 10, FormState::Draft),
        None,
        &[],
    )
    .await
    .unwrap();
    repo.create(
        &t1(),
        &with_deadline("future", 99, FormState::Draft),
        None,
        &[],
    )
    .await
    .unwrap();
    repo.create(
        &t1(),
        &with_deadline("done", 5, FormState::Submitted),
        None,
        &[],
    )
    .await
    .unwrap();
    repo.create(&t1(), &form("open", None, &[], 1), None, &[])
        .await
        .unwrap();
    let found = repo.find_expired(at(20), 10).await.unwrap();
    assert_eq!(
        found,
        [(t2(), "early".to_owned()), (t1(), "late".to_owned())]
    );
    assert_eq!(repo.find_expired(at(20), 1).await.unwrap().len(), 1);
    assert!(repo.find_expired(at(9), 10).await.unwrap().is_empty());
}

contract!(drafts_past_their_deadline_are_found_across_tenants);

async fn a_new_workspace_stores_its_forms_in_its_transaction(backend: Backend) {
    let f = Fixture::new(backend);
    let forms = DieselFormRepository::new(f.db.clone());
    let opened = |id: &str| NewForm {
        form: form(id, None, &["case-1"], 1),
        events: vec![event(&format!("ev-{id}"), None, "form.created", 1)],
    };
    let mut case = Workspace {
        display_name: "Case".into(),
        state: WorkspaceState::Open,
        form_definitions: vec!["formDefinitions/kyc-individual@kyc00001".into()],
        new_forms: vec![opened("form-a")],
        ..Workspace::default()
    };
    case.begin(Workspace::name_of("case-1"), "uid-case-1".into(), at(1));
    f.workspaces.create(&t1(), &case, None, &[]).await.unwrap();
    let stored = f.workspaces.get(&t1(), "case-1").await.unwrap().unwrap();
    assert!(stored.new_forms.is_empty(), "never read back");
    assert_eq!(stored.form_definitions, case.form_definitions);
    assert_eq!(
        forms.get(&t1(), "form-a").await.unwrap(),
        Some(opened("form-a").form)
    );
    // A form that cannot be stored (its id is taken) leaves no workspace behind.
    let mut again = case.clone();
    again.begin(Workspace::name_of("case-2"), "uid-case-2".into(), at(2));
    again.new_forms = vec![opened("form-b"), opened("form-a")];
    assert_eq!(
        f.workspaces.create(&t1(), &again, None, &[]).await,
        Err(RepositoryError::AlreadyExists)
    );
    assert_eq!(f.workspaces.get(&t1(), "case-2").await, Ok(None));
    assert_eq!(forms.get(&t1(), "form-b").await, Ok(None));
}

contract!(a_new_workspace_stores_its_forms_in_its_transaction);

async fn documents_are_listed_by_their_workspace(backend: Backend) {
    let f = Fixture::new(backend);
    f.create(&t1(), &entity("amy", "Amy", 0)).await;
    for (id, workspace) in [
        ("d1", "workspaces/case-1"),
        ("d2", ""),
        ("d3", "workspaces/case-1"),
    ] {
        let mut doc = document(id, "amy", "D", "2030-01-01", 1);
        doc.workspace = workspace.into();
        f.documents.create(&t1(), &doc, None, &[]).await.unwrap();
    }
    let (query, _) = paging()
        .prepare(
            &rics_domain::document::fields::LIST,
            &t1(),
            None,
            &request("workspace = \"workspaces/case-1\"", "", 10),
        )
        .unwrap();
    let page = f.documents.list(&t1(), None, &query).await.unwrap();
    let ids: Vec<&str> = page.items.iter().map(|d| d.id()).collect();
    assert_eq!(ids, ["d1", "d3"]);
    assert_eq!(page.items[0].workspace, "workspaces/case-1");
}

contract!(documents_are_listed_by_their_workspace);

async fn an_erasure_unlinks_the_entity_s_forms_and_clears_their_response(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = DieselFormRepository::new(f.db.clone());
    f.create(&t1(), &entity("amy", "Amy", 0)).await;
    f.create(&t1(), &entity("bob", "Bob", 0)).await;
    let about_amy = form("form-a", Some("amy"), &["case-1"], 1);
    let about_bob = form("form-b", Some("bob"), &[], 1);
    repo.create(&t1(), &about_amy, None, &[]).await.unwrap();
    repo.create(&t1(), &about_bob, None, &[]).await.unwrap();
    let counts = f
        .repo
        .hard_delete(&t1(), "amy", EraseGuard::Always, &[])
        .await
        .unwrap();
    assert_eq!(counts.get("forms"), Some(&1));
    let kept = repo.get(&t1(), "form-a").await.unwrap().unwrap();
    assert_eq!(
        kept,
        Form {
            entity: String::new(),
            response: None,
            revision: 2,
            etag: rics_domain::resource::etag("uid-form-a", 2),
            ..about_amy
        }
    );
    assert_eq!(repo.get(&t1(), "form-b").await.unwrap(), Some(about_bob));
}

contract!(an_erasure_unlinks_the_entity_s_forms_and_clears_their_response);

async fn documents_stored_before_get_their_workspace_column(backend: Backend) {
    let test_db = TestDatabase::empty(backend);
    let mut conn = connect(&DatabaseUrl::parse(test_db.url()).unwrap()).unwrap();
    while pending(&mut conn).unwrap().first().map(String::as_str) != Some("20261125000014") {
        run_next(&mut conn).unwrap();
    }
    diesel::sql_query(
        "INSERT INTO documents (tenant_id, id, uid, revision, entity, document_type, \
         issuing_country, body, create_time, update_time, display_name, display_name_trigrams) \
         VALUES ('t1', 'd1', 'u1', 1, 'entities/amy', 'PASSPORT', '', \
         '{\"documentNumber\": \"X1\", \"workspace\": \"workspaces/case-1\"}', 1, 1, 'P', 0), \
         ('t1', 'd2', 'u2', 1, 'entities/amy', 'PASSPORT', '', \
         '{\"documentNumber\": \"X2\"}', 1, 1, 'P', 0)",
    )
    .execute(&mut conn)
    .unwrap();
    run_pending(&mut conn).unwrap();
    let found: Vec<String> = {
        use diesel::prelude::*;
        use rics_storage::schema::documents;
        documents::table
            .order(documents::id)
            .select(documents::workspace)
            .load(&mut conn)
            .unwrap()
    };
    assert_eq!(found, ["workspaces/case-1", ""]);
}

contract!(documents_stored_before_get_their_workspace_column);
