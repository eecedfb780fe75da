//! Fixtures shared by the contract tests: a migrated database per test with the three
//! repositories over it, builders of types, logs, entities and events, direct reads of
//! the tables, and list helpers that go from request parameters to rows through the
//! domain's paging.

use std::sync::Arc;

use diesel::prelude::*;
use rics_domain::activity::fields;
use rics_domain::activity::model::{ActivityLog, ActivityLogType, ActivityType};
use rics_domain::activity::ports::{ActivityLogRepository, ActivityLogTypeRepository};
use rics_domain::entity::model::{Entity, EntityType};
use rics_domain::entity::repository::EntityRepository;
use rics_domain::event::NewEvent;
use rics_domain::list::{ListRequest, ListResponse, Paging};
use rics_domain::principal::TenantId;
use rics_domain::resource;
use rics_storage::schema::{
    activity_log_entities, activity_log_type_name_trigrams, activity_logs, events,
};
use rics_storage::testing::TestDatabase;
use rics_storage::{
    Backend, Database, DieselActivityLogRepository, DieselActivityLogTypeRepository,
    DieselEntityRepository,
};
use serde_json::json;

use crate::support::{at, internal, paging, t1};

/// A migrated database of one backend with the repositories over it.
pub struct Fixture {
    /// The pooled database (for direct reads of the tables).
    pub db: Database,
    /// Activity log types.
    pub types: Arc<dyn ActivityLogTypeRepository>,
    /// Activity logs.
    pub logs: Arc<dyn ActivityLogRepository>,
    /// Entities (logs name them; erasing one erases its logs).
    pub entities: Arc<dyn EntityRepository>,
    /// Paging with a fixed secret.
    pub paging: Paging,
    _test_db: TestDatabase,
}

impl Fixture {
    /// A fresh, migrated database.
    pub fn new(backend: Backend) -> Fixture {
        let test_db = TestDatabase::new(backend);
        let db = test_db.open().unwrap();
        Fixture {
            types: Arc::new(DieselActivityLogTypeRepository::new(db.clone())),
            logs: Arc::new(DieselActivityLogRepository::new(db.clone())),
            entities: Arc::new(DieselEntityRepository::new(db.clone())),
            paging: paging(),
            db,
            _test_db: test_db,
        }
    }

    /// Stores the individuals `ids` in `tenant`.
    pub async fn entities(&self, tenant: &TenantId, ids: &[&str]) {
        for id in ids {
            let entity = Entity {
                name: Entity::name_of(id),
                uid: format!("uid-{id}"),
                entity_type: EntityType::Individual,
                display_name: id.to_string(),
                create_time: Some(at(0)),
                update_time: Some(at(0)),
                revision: 1,
                ..Entity::default()
            };
            self.entities
                .create(tenant, &entity, None, &[])
                .await
                .unwrap_or_else(|e| panic!("create entity {id}: {e}"));
        }
    }

    /// Stores `log_type` in `tenant`, panicking on failure.
    pub async fn create_type(&self, tenant: &TenantId, log_type: &ActivityLogType) {
        self.types
            .create(tenant, log_type, None, &[])
            .await
            .unwrap_or_else(|e| panic!("create {}: {e}", log_type.name));
    }

    /// Stores `log` in `tenant`, panicking on failure.
    pub async fn create_log(&self, tenant: &TenantId, log: &ActivityLog) {
        self.logs
            .create(tenant, log, None, &[])
            .await
            .unwrap_or_else(|e| panic!("create {}: {e}", log.name));
    }

    /// The events of `tenant` as (id, entity, type, resource), by id.
    pub async fn events(&self, tenant: &TenantId) -> Vec<(String, Option<String>, String, String)> {
        let tenant = tenant.as_str().to_owned();
        self.db
            .read(move |conn| {
                events::table
                    .filter(events::tenant_id.eq(&tenant))
                    .order(events::id)
                    .select((
                        events::id,
                        events::entity_id,
                        events::event_type,
                        events::payload,
                    ))
                    .load::<(String, Option<String>, String, String)>(conn)
                    .map_err(internal)
            })
            .await
            .unwrap()
            .into_iter()
            .map(|(id, entity, kind, payload)| {
                let payload: serde_json::Value = serde_json::from_str(&payload).unwrap();
                let resource = payload["resource"].as_str().unwrap_or("").to_owned();
                (id, entity, kind, resource)
            })
            .collect()
    }

    /// The ids of the events of `tenant`, sorted.
    pub async fn event_ids(&self, tenant: &TenantId) -> Vec<String> {
        self.events(tenant).await.into_iter().map(|e| e.0).collect()
    }

    /// (logs, rows of named entities) stored for the log `id` of `tenant`.
    pub async fn log_rows(&self, tenant: &TenantId, id: &str) -> (i64, i64) {
        let (tenant, id) = (tenant.as_str().to_owned(), id.to_owned());
        self.db
            .read(move |conn| {
                let logs = activity_logs::table
                    .filter(activity_logs::tenant_id.eq(&tenant))
                    .filter(activity_logs::id.eq(&id))
                    .count()
                    .get_result(conn)
                    .map_err(internal)?;
                let named = activity_log_entities::table
                    .filter(activity_log_entities::tenant_id.eq(&tenant))
                    .filter(activity_log_entities::activity_log_id.eq(&id))
                    .count()
                    .get_result(conn)
                    .map_err(internal)?;
                Ok((logs, named))
            })
            .await
            .unwrap()
    }

    /// How many name trigrams the type `id` of `tenant` has.
    pub async fn trigram_rows(&self, tenant: &TenantId, id: &str) -> i64 {
        let (tenant, id) = (tenant.as_str().to_owned(), id.to_owned());
        self.db
            .read(move |conn| {
                activity_log_type_name_trigrams::table
                    .filter(activity_log_type_name_trigrams::tenant_id.eq(&tenant))
                    .filter(activity_log_type_name_trigrams::activity_log_type_id.eq(&id))
                    .count()
                    .get_result(conn)
                    .map_err(internal)
            })
            .await
            .unwrap()
    }

    /// One page of `tenant`'s types.
    pub async fn type_page(
        &self,
        tenant: &TenantId,
        request: &ListRequest,
    ) -> Result<ListResponse<ActivityLogType>, rics_domain::Error> {
        let (query, context) = self
            .paging
            .prepare(&fields::TYPE_LIST, tenant, None, request)?;
        let page = self
            .types
            .list(tenant, None, &query)
            .await
            .unwrap_or_else(|e| panic!("list {request:?}: {e}"));
        Ok(self.paging.finish(context, page))
    }

    /// The names of every type of the first tenant for `request`, following the
    /// tokens, with each page's totalSize.
    pub async fn walk_types(&self, request: &ListRequest) -> (Vec<String>, Vec<i64>) {
        let mut request = request.clone();
        let (mut names, mut totals) = (Vec::new(), Vec::new());
        loop {
            let page = self.type_page(&t1(), &request).await.unwrap();
            names.extend(page.items.iter().map(|t| t.name.clone()));
            totals.push(page.total_size);
            match page.next_page_token {
                Some(token) => request.page_token = Some(token),
                None => return (names, totals),
            }
            assert!(totals.len() < 1000, "the walk does not end");
        }
    }

    /// One page of the logs of `entity_id` in `tenant`.
    pub async fn log_page(
        &self,
        tenant: &TenantId,
        entity_id: &str,
        request: &ListRequest,
    ) -> Result<ListResponse<ActivityLog>, rics_domain::Error> {
        let parent = Entity::name_of(entity_id);
        let (query, context) =
            self.paging
                .prepare(&fields::LOG_LIST, tenant, Some(&parent), request)?;
        let page = self
            .logs
            .list_for_entity(tenant, entity_id, &query)
            .await
            .unwrap_or_else(|e| panic!("list {request:?}: {e}"));
        Ok(self.paging.finish(context, page))
    }

    /// The names of every log of `entity_id` in the first tenant for `request`,
    /// following the tokens, with each page's totalSize.
    pub async fn walk_logs(
        &self,
        entity_id: &str,
        request: &ListRequest,
    ) -> (Vec<String>, Vec<i64>) {
        let mut request = request.clone();
        let (mut names, mut totals) = (Vec::new(), Vec::new());
        loop {
            let page = self.log_page(&t1(), entity_id, &request).await.unwrap();
            names.extend(page.items.iter().map(|l| l.name.clone()));
            totals.push(page.total_size);
            match page.next_page_token {
                Some(token) => request.page_token = Some(token),
                None => return (names, totals),
            }
            assert!(totals.len() < 1000, "the walk does not end");
        }
    }
}

/// A type named `display_name` created at `at(seconds)`, revision 1.
pub fn log_type(id: &str, display_name: &str, seconds: i64) -> ActivityLogType {
    ActivityLogType {
        name: ActivityLogType::name_of(id),
        uid: format!("uid-{id}"),
        display_name: display_name.to_owned(),
        create_time: Some(at(seconds)),
        update_time: Some(at(seconds)),
        revision: 1,
        ..ActivityLogType::default()
    }
}

/// A CUSTOM log about `entities`, created and occurring at `at(seconds)`, revision 1.
pub fn log(id: &str, entities: &[&str], seconds: i64) -> ActivityLog {
    ActivityLog {
        name: ActivityLog::name_of(id),
        uid: format!("uid-{id}"),
        activity_type: ActivityType::Custom,
        source: "CUSTOMER".to_owned(),
        entity_names: entities.iter().map(|e| Entity::name_of(e)).collect(),
        occur_time: Some(at(seconds)),
        create_time: Some(at(seconds)),
        revision: 1,
        ..ActivityLog::default()
    }
}

/// `log_type` as `get` returns it: with its etag.
pub fn stored_type(log_type: &ActivityLogType) -> ActivityLogType {
    let mut stored = log_type.clone();
    stored.etag = resource::etag(&stored.uid, stored.revision);
    stored
}

/// `log` as `get` returns it: with its etag.
pub fn stored_log(log: &ActivityLog) -> ActivityLog {
    let mut stored = log.clone();
    stored.etag = resource::etag(&stored.uid, stored.revision);
    stored
}

/// An event of `kind` about `resource`, scoped to `entity_id` when given.
pub fn event(id: &str, entity_id: Option<&str>, kind: &str, resource: &str) -> NewEvent {
    NewEvent {
        id: id.to_owned(),
        entity_id: entity_id.map(str::to_owned),
        event_type: kind.to_owned(),
        payload: json!({"resource": resource, "principal": "tester", "changes": {}}),
        creator: "tester".to_owned(),
        create_time: at(0),
        deliver_to: None,
    }
}
