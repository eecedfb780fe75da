//! Fixtures shared by the contract tests: a migrated database per test, entity and
//! event builders, direct reads of the tables, and list helpers that go from request
//! parameters (filter text, orderBy, page tokens) to rows through the domain's paging.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use diesel::prelude::*;
use rics_domain::alert::ports::{AlertRepository, AlertTypeRepository};
use rics_domain::document::ports::DocumentRepository;
use rics_domain::entity::fields;
use rics_domain::entity::model::{
    Entity, EntityType, Monitoring, RiskDetails, RiskLevel, RiskStatus, ScreeningStatus,
    VerificationStatus,
};
use rics_domain::entity::relationship::{RelationshipRecord, RelationshipType};
use rics_domain::entity::repository::EntityRepository;
use rics_domain::event::NewEvent;
use rics_domain::event::ports::EventRepository;
use rics_domain::job::ports::JobRepository;
use rics_domain::list::{ListRequest, ListResponse, Paging};
use rics_domain::note::ports::NoteRepository;
use rics_domain::operation::OperationRepository;
use rics_domain::principal::TenantId;
use rics_domain::resource;
use rics_domain::risk::ports::RiskModelRepository;
use rics_domain::text_search;
use rics_domain::workspace::ports::WorkspaceRepository;
use rics_storage::connection::{DatabaseUrl, DbConnection, connect};
use rics_storage::schema::{
    entities, entity_external_ids, entity_relationships, entity_tags, events, idempotency_keys,
};
use rics_storage::testing::TestDatabase;
use rics_storage::{
    Backend, Database, DieselAlertRepository, DieselDocumentRepository, DieselEntityRepository,
    DieselEventRepository, DieselJobRepository, DieselNoteRepository, DieselOperationRepository,
    DieselRiskModelRepository, DieselWorkspaceRepository,
};
use serde_json::json;

use crate::support::{at, internal, paging, t1, t2};

/// RFC 3339 text of `at(seconds)`, for filters.
pub fn rfc3339(seconds: i64) -> String {
    at(seconds).to_rfc3339()
}

/// A migrated database of one backend with a repository over it.
pub struct Fixture {
    /// The pooled database (for direct reads of the tables).
    pub db: Database,
    /// The repository under test, as the application holds it.
    pub repo: Arc<dyn EntityRepository>,
    /// The stores of the resources on the standard template, as ports: the tests of
    /// workspaces, alerts and documents talk to these only.
    pub workspaces: Arc<dyn WorkspaceRepository>,
    /// See `workspaces`.
    pub alerts: Arc<dyn AlertRepository>,
    /// See `workspaces`.
    pub alert_types: Arc<dyn AlertTypeRepository>,
    /// See `workspaces`.
    pub documents: Arc<dyn DocumentRepository>,
    /// The other stores the suite tests, as ports.
    pub notes: Arc<dyn NoteRepository>,
    /// See `notes`.
    pub risk_models: Arc<dyn RiskModelRepository>,
    /// See `notes`.
    pub jobs: Arc<dyn JobRepository>,
    /// See `notes`.
    pub operations: Arc<dyn OperationRepository>,
    /// See `notes`.
    pub events: Arc<dyn EventRepository>,
    test_db: TestDatabase,
}

impl Fixture {
    /// A fresh, migrated database.
    pub fn new(backend: Backend) -> Fixture {
        let test_db = TestDatabase::new(backend);
        let db = test_db.open().unwrap();
        let alerts = Arc::new(DieselAlertRepository::new(db.clone()));
        Fixture {
            repo: Arc::new(DieselEntityRepository::new(db.clone())),
            workspaces: Arc::new(DieselWorkspaceRepository::new(db.clone())),
            alerts: alerts.clone(),
            alert_types: alerts,
            documents: Arc::new(DieselDocumentRepository::new(db.clone())),
            notes: Arc::new(DieselNoteRepository::new(db.clone())),
            risk_models: Arc::new(DieselRiskModelRepository::new(db.clone())),
            jobs: Arc::new(DieselJobRepository::new(db.clone())),
            operations: Arc::new(DieselOperationRepository::new(db.clone())),
            events: Arc::new(DieselEventRepository::new(db.clone())),
            db,
            test_db,
        }
    }

    /// The URL of the database (for connections outside the pool).
    pub fn url(&self) -> &str {
        self.test_db.url()
    }

    /// Stores `entity` in `tenant`, panicking on failure.
    pub async fn create(&self, tenant: &TenantId, entity: &Entity) {
        self.repo
            .create(tenant, entity, None, &[])
            .await
            .unwrap_or_else(|e| panic!("create {}: {e}", entity.name));
    }

    /// The stored entity, panicking when absent.
    pub async fn get(&self, tenant: &TenantId, id: &str) -> Entity {
        self.repo
            .get(tenant, id)
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("{id} should exist in {tenant:?}"))
    }

    /// The events of `tenant`, by id.
    pub async fn events(&self, tenant: &TenantId) -> Vec<StoredEvent> {
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
                        events::creator,
                        events::create_time,
                    ))
                    .load::<(String, Option<String>, String, String, String, i64)>(conn)
                    .map_err(internal)
            })
            .await
            .unwrap()
            .into_iter()
            .map(
                |(id, entity_id, event_type, payload, creator, create_time)| StoredEvent {
                    id,
                    entity_id,
                    event_type,
                    payload: serde_json::from_str(&payload).unwrap(),
                    creator,
                    create_time,
                },
            )
            .collect()
    }

    /// The ids of the events of `tenant`, sorted.
    pub async fn event_ids(&self, tenant: &TenantId) -> Vec<String> {
        self.events(tenant)
            .await
            .into_iter()
            .map(|e| e.id)
            .collect()
    }

    /// How many rows each table holds for the entity `id` of `tenant`.
    pub async fn rows_of(&self, tenant: &TenantId, id: &str) -> OwnedRows {
        let (tenant, id) = (tenant.as_str().to_owned(), id.to_owned());
        self.db
            .read(move |conn| {
                let name = format!("entities/{id}");
                Ok(OwnedRows {
                    entities: entities::table
                        .filter(entities::tenant_id.eq(&tenant))
                        .filter(entities::id.eq(&id))
                        .count()
                        .get_result(conn)
                        .map_err(internal)?,
                    tags: entity_tags::table
                        .filter(entity_tags::tenant_id.eq(&tenant))
                        .filter(entity_tags::entity_id.eq(&id))
                        .count()
                        .get_result(conn)
                        .map_err(internal)?,
                    external_ids: entity_external_ids::table
                        .filter(entity_external_ids::tenant_id.eq(&tenant))
                        .filter(entity_external_ids::entity_id.eq(&id))
                        .count()
                        .get_result(conn)
                        .map_err(internal)?,
                    relationships: entity_relationships::table
                        .filter(entity_relationships::tenant_id.eq(&tenant))
                        .filter(
                            entity_relationships::entity_id
                                .eq(&id)
                                .or(entity_relationships::related_entity_id.eq(&id)),
                        )
                        .count()
                        .get_result(conn)
                        .map_err(internal)?,
                    events: events::table
                        .filter(events::tenant_id.eq(&tenant))
                        .filter(events::entity_id.eq(&id))
                        .count()
                        .get_result(conn)
                        .map_err(internal)?,
                    idempotency_keys: idempotency_keys::table
                        .filter(idempotency_keys::tenant_id.eq(&tenant))
                        .filter(idempotency_keys::resource_name.eq(&name))
                        .count()
                        .get_result(conn)
                        .map_err(internal)?,
                })
            })
            .await
            .unwrap()
    }

    /// The request ids of the idempotency keys of `tenant`, sorted.
    pub async fn idempotency_keys(&self, tenant: &TenantId) -> Vec<String> {
        let tenant = tenant.as_str().to_owned();
        self.db
            .read(move |conn| {
                idempotency_keys::table
                    .filter(idempotency_keys::tenant_id.eq(&tenant))
                    .order(idempotency_keys::request_id)
                    .select(idempotency_keys::request_id)
                    .load::<String>(conn)
                    .map_err(internal)
            })
            .await
            .unwrap()
    }
}

/// One row of the events table.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEvent {
    /// Event id.
    pub id: String,
    /// The entity, for entity-scoped events.
    pub entity_id: Option<String>,
    /// `{resource}.{verb}`.
    pub event_type: String,
    /// The payload, parsed.
    pub payload: serde_json::Value,
    /// The principal's subject.
    pub creator: String,
    /// Microseconds since the epoch.
    pub create_time: i64,
}

/// Row counts of what an entity owns, table by table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OwnedRows {
    /// Rows of `entities` (0 or 1).
    pub entities: i64,
    /// Rows of `entity_tags`.
    pub tags: i64,
    /// Rows of `entity_external_ids`.
    pub external_ids: i64,
    /// Rows of `entity_relationships` on either side.
    pub relationships: i64,
    /// Entity-scoped rows of `events`.
    pub events: i64,
    /// Rows of `idempotency_keys` naming the entity.
    pub idempotency_keys: i64,
}

/// A minimal individual created at `at(seconds)`, revision 1.
pub fn entity(id: &str, display_name: &str, seconds: i64) -> Entity {
    Entity {
        name: Entity::name_of(id),
        uid: format!("uid-{id}"),
        entity_type: EntityType::Individual,
        display_name: display_name.to_owned(),
        create_time: Some(at(seconds)),
        update_time: Some(at(seconds)),
        revision: 1,
        ..Entity::default()
    }
}

/// `entity` as `get` returns it: with its etag.
pub fn as_stored(entity: &Entity) -> Entity {
    let mut stored = entity.clone();
    stored.etag = resource::etag(&stored.uid, stored.revision);
    stored
}

/// An event of `kind`, scoped to `entity_id` when given.
pub fn event(id: &str, entity_id: Option<&str>, kind: &str, seconds: i64) -> NewEvent {
    NewEvent {
        id: id.to_owned(),
        entity_id: entity_id.map(str::to_owned),
        event_type: kind.to_owned(),
        payload: json!({"resource": entity_id.map(Entity::name_of), "principal": "tester",
                        "changes": {"n": seconds}}),
        creator: "tester".to_owned(),
        create_time: at(seconds),
        deliver_to: None,
    }
}

/// A relationship record created at `at(seconds)`.
pub fn relationship(
    id: &str,
    entity_id: &str,
    related_entity_id: &str,
    relationship_type: RelationshipType,
    seconds: i64,
) -> RelationshipRecord {
    RelationshipRecord {
        id: id.to_owned(),
        entity_id: entity_id.to_owned(),
        related_entity_id: related_entity_id.to_owned(),
        relationship_type,
        ownership_percentage: None,
        note: String::new(),
        create_time: at(seconds),
    }
}

/// The display names of the seed, with repeats so that sorting by name has ties, mixed
/// case and a non-ASCII name (text orders bytewise on both backends).
pub const NAMES: [&str; 12] = [
    "John Smith",
    "Jon Smith",
    "John Smithers",
    "Jane Smith-Jones",
    "Ada Lovelace",
    "adam",
    "web-alpha",
    "web-beta",
    "alpha.prod",
    "Beta.prod",
    "Zoë Zed",
    "Grace Hopper",
];

/// How many entities `seed` stores in the first tenant.
pub const SEED_SIZE: usize = 60;

/// The id of the `i`th seeded entity: a permutation, so that id order differs from
/// creation order.
pub fn seed_id(i: usize) -> String {
    format!("e{:02}", (i * 37) % SEED_SIZE)
}

/// The `i`th seeded entity of the first tenant, with id `id`. Every attribute follows a
/// different cycle so filters select overlapping, distinct subsets; create times come
/// in groups of six equal values and names in groups of five.
pub fn seed_entity(id: &str, i: usize) -> Entity {
    let i64i = i as i64;
    let mut tags = Vec::new();
    if i.is_multiple_of(3) {
        tags.push("vip".to_owned());
    }
    if i.is_multiple_of(4) {
        tags.push("review-2026".to_owned());
    }
    if i % 10 == 1 {
        tags.push("review-2025".to_owned());
    }
    let mut external_ids = BTreeMap::new();
    if i.is_multiple_of(2) {
        external_ids.insert("crm".to_owned(), format!("C{i}"));
    }
    if i.is_multiple_of(5) {
        external_ids.insert("erp".to_owned(), format!("E{i}"));
    }
    let risk_details = match i % 4 {
        0 => None,
        n => Some(RiskDetails {
            risk_level: [RiskLevel::Low, RiskLevel::Medium, RiskLevel::High][n - 1],
            risk_score: 10.0 * n as f64,
            risk_status: if i % 8 == 2 {
                RiskStatus::Outdated
            } else {
                RiskStatus::Active
            },
            ..RiskDetails::default()
        }),
    };
    let deleted = i % 11 == 5;
    Entity {
        name: Entity::name_of(id),
        uid: format!("uid-{id}-{i}"),
        entity_type: [
            EntityType::Individual,
            EntityType::Company,
            EntityType::Trust,
            EntityType::Partnership,
            EntityType::SoleProprietor,
        ][i % 5],
        display_name: NAMES[i % NAMES.len()].to_owned(),
        external_ids,
        tags,
        risk_details,
        screening_status: [
            ScreeningStatus::Unspecified,
            ScreeningStatus::Clear,
            ScreeningStatus::PotentialMatch,
            ScreeningStatus::ConfirmedMatch,
        ][(i / 2) % 4],
        verification_status: [
            VerificationStatus::Unspecified,
            VerificationStatus::Unverified,
            VerificationStatus::Pending,
            VerificationStatus::Verified,
            VerificationStatus::Failed,
        ][(i / 3) % 5],
        legal_hold: i.is_multiple_of(7),
        monitoring: Monitoring(i % 9 != 4),
        create_time: Some(at(60 * (i64i / 6))),
        update_time: Some(at(10_000 + (i64i % 7))),
        delete_time: deleted.then(|| at(20_000 + i64i)),
        purge_time: deleted.then(|| at(30_000 + i64i)),
        revision: 1,
        ..Entity::default()
    }
}

/// A seeded database: `SEED_SIZE` entities in the first tenant (some soft-deleted),
/// and in the second tenant entities with the same ids but other attributes, plus one
/// name the first tenant does not have.
pub struct Seeded {
    /// The database.
    pub fixture: Fixture,
    /// The first tenant's entities as stored (etags set).
    pub entities: Vec<Entity>,
    /// The second tenant's entities as stored.
    pub other: Vec<Entity>,
    /// Paging with a fixed secret.
    pub paging: Paging,
}

/// The second tenant's version of the entity with id `id`: shifted attributes, the
/// tag `t2only`, and a name only it has on every third entity.
fn other_tenant_entity(id: &str, i: usize) -> Entity {
    let mut entity = seed_entity(id, (i + 7) % SEED_SIZE);
    entity.tags.push("t2only".to_owned());
    entity
        .external_ids
        .insert("t2key".to_owned(), "x".to_owned());
    if i.is_multiple_of(3) {
        entity.display_name = "Quentin Blake".to_owned();
    }
    entity.delete_time = None;
    entity.purge_time = None;
    entity
}

impl Seeded {
    /// Seeds a fresh database of `backend`.
    pub async fn new(backend: Backend) -> Seeded {
        let fixture = Fixture::new(backend);
        let entities: Vec<Entity> = (0..SEED_SIZE)
            .map(|i| seed_entity(&seed_id(i), i))
            .collect();
        let other: Vec<Entity> = (0..SEED_SIZE / 2)
            .map(|i| other_tenant_entity(&seed_id(i), i))
            .collect();
        for e in &entities {
            fixture.create(&t1(), e).await;
        }
        for e in &other {
            fixture.create(&t2(), e).await;
        }
        Seeded {
            fixture,
            entities: entities.iter().map(as_stored).collect(),
            other: other.iter().map(as_stored).collect(),
            paging: paging(),
        }
    }

    /// The seeded entity with `id`.
    pub fn seeded(&self, id: &str) -> &Entity {
        self.entities.iter().find(|e| e.id() == id).unwrap()
    }

    /// One page of the first tenant.
    pub async fn page(
        &self,
        request: &ListRequest,
    ) -> Result<ListResponse<Entity>, rics_domain::Error> {
        page_of(&self.fixture, &self.paging, &t1(), request).await
    }

    /// Every page of the first tenant for `request`, following the tokens.
    pub async fn walk(&self, request: &ListRequest) -> Walk {
        walk(&self.fixture, &self.paging, &t1(), request).await
    }

    /// Checks that `filter` (on the first tenant) returns exactly the seeded entities
    /// for which `expected` holds, with a matching `totalSize`, and that the filter
    /// discriminates: it keeps some visible entities and drops others.
    pub async fn check(
        &self,
        filter: &str,
        show_deleted: bool,
        expected: impl Fn(&Entity) -> bool,
    ) {
        let visible: Vec<&Entity> = self
            .entities
            .iter()
            .filter(|e| show_deleted || e.delete_time.is_none())
            .collect();
        let wanted = visible.iter().filter(|e| expected(e)).count();
        assert!(
            wanted > 0 && wanted < visible.len(),
            "the seed does not exercise '{filter}': {wanted} of {} match",
            visible.len()
        );
        self.check_exact(filter, show_deleted, expected).await;
    }

    /// As `check`, without requiring the filter to discriminate.
    pub async fn check_exact(
        &self,
        filter: &str,
        show_deleted: bool,
        expected: impl Fn(&Entity) -> bool,
    ) {
        let mut wanted: Vec<String> = self
            .entities
            .iter()
            .filter(|e| show_deleted || e.delete_time.is_none())
            .filter(|e| expected(e))
            .map(|e| e.id().to_owned())
            .collect();
        wanted.sort();
        let walk = self
            .walk(&ListRequest {
                filter: Some(filter.to_owned()),
                show_deleted,
                page_size: Some(25),
                ..ListRequest::default()
            })
            .await;
        let mut got = walk.ids();
        got.sort();
        assert_eq!(
            got, wanted,
            "filter '{filter}' (showDeleted={show_deleted})"
        );
        assert!(
            walk.totals.iter().all(|t| *t == wanted.len() as i64),
            "filter '{filter}': totalSize {:?}, expected {}",
            walk.totals,
            wanted.len()
        );
    }
}

/// One page of `tenant`'s entities.
pub async fn page_of(
    fixture: &Fixture,
    paging: &Paging,
    tenant: &TenantId,
    request: &ListRequest,
) -> Result<ListResponse<Entity>, rics_domain::Error> {
    page_from(&*fixture.repo, paging, tenant, request).await
}

/// One page of `request` from `repo`.
pub async fn page_from(
    repo: &dyn EntityRepository,
    paging: &Paging,
    tenant: &TenantId,
    request: &ListRequest,
) -> Result<ListResponse<Entity>, rics_domain::Error> {
    let (query, context) = paging.prepare(&fields::LIST, tenant, None, request)?;
    let page = repo
        .list(tenant, &query)
        .await
        .unwrap_or_else(|e| panic!("list {request:?}: {e}"));
    Ok(paging.finish(context, page))
}

/// Every page for `request`, following the tokens.
pub async fn walk(
    fixture: &Fixture,
    paging: &Paging,
    tenant: &TenantId,
    request: &ListRequest,
) -> Walk {
    walk_from(&*fixture.repo, paging, tenant, request).await
}

/// Every page of `request` from `repo`, following the tokens.
pub async fn walk_from(
    repo: &dyn EntityRepository,
    paging: &Paging,
    tenant: &TenantId,
    request: &ListRequest,
) -> Walk {
    let mut request = request.clone();
    let mut walk = Walk::default();
    loop {
        let response = page_from(repo, paging, tenant, &request)
            .await
            .unwrap_or_else(|e| panic!("list {request:?}: {e}"));
        walk.page_sizes.push(response.items.len());
        walk.totals.push(response.total_size);
        walk.items.extend(response.items);
        match response.next_page_token {
            Some(token) => request.page_token = Some(token),
            None => break,
        }
        assert!(walk.page_sizes.len() < 1000, "the walk does not end");
    }
    walk
}

/// What walking every page returned.
#[derive(Debug, Default)]
pub struct Walk {
    /// The items of every page, in order.
    pub items: Vec<Entity>,
    /// The number of items of each page.
    pub page_sizes: Vec<usize>,
    /// The `totalSize` of each page.
    pub totals: Vec<i64>,
}

impl Walk {
    /// The ids, in order.
    pub fn ids(&self) -> Vec<String> {
        self.items.iter().map(|e| e.id().to_owned()).collect()
    }
}

/// Whether a fuzzy search for `query` matches `text`, by the documented rule.
pub fn fuzzy_matches(query: &str, text: &str) -> bool {
    let (q, t) = (text_search::trigrams(query), text_search::trigrams(text));
    q.intersection(&t).count() as i64 >= text_search::required_hits(q.len())
}

/// The documented similarity of `text` to `query`, in millionths.
pub fn similarity(query: &str, text: &str) -> i64 {
    let (q, t) = (text_search::trigrams(query), text_search::trigrams(text));
    text_search::similarity_per_million(
        q.intersection(&t).count() as i64,
        q.len() as i64,
        t.len() as i64,
    )
}

/// Sorted copy.
pub fn sorted<T: Ord + Clone>(items: &[T]) -> Vec<T> {
    let mut items = items.to_vec();
    items.sort();
    items
}

/// Whether `e` is rated with `level`.
pub fn risk_is(e: &Entity, level: RiskLevel) -> bool {
    e.risk_details
        .as_ref()
        .is_some_and(|r| r.risk_level == level)
}

/// A competing writer: on a connection outside the pool, runs `statements` in a
/// transaction and returns once they ran; the transaction stays open until another
/// session waits on one of its locks (PostgreSQL) or for a moment (SQLite, where
/// writers queue on the database lock), then commits. Join the handle to see it end.
pub fn hold_write(url: &str, statements: Vec<String>) -> std::thread::JoinHandle<()> {
    let url = DatabaseUrl::parse(url).unwrap();
    let (ready, started) = std::sync::mpsc::channel();
    let holder = std::thread::spawn(move || {
        let mut conn = connect(&url).unwrap();
        let begin = match conn {
            DbConnection::Sqlite(_) => "BEGIN IMMEDIATE",
            DbConnection::Postgresql(_) => "BEGIN",
        };
        diesel::sql_query(begin).execute(&mut conn).unwrap();
        for statement in &statements {
            diesel::sql_query(statement)
                .execute(&mut conn)
                .unwrap_or_else(|e| panic!("{statement}: {e}"));
        }
        ready.send(()).unwrap();
        match conn {
            DbConnection::Postgresql(_) => wait_for_a_waiter(&url, &mut conn),
            DbConnection::Sqlite(_) => std::thread::sleep(Duration::from_millis(200)),
        }
        diesel::sql_query("COMMIT").execute(&mut conn).unwrap();
    });
    started.recv().unwrap();
    holder
}

/// Returns once a PostgreSQL session waits on a lock `conn` holds.
fn wait_for_a_waiter(url: &DatabaseUrl, conn: &mut DbConnection) {
    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let mut watcher = connect(url).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let pid = diesel::sql_query("SELECT pg_backend_pid()::bigint AS n")
        .get_result::<Count>(conn)
        .unwrap()
        .n;
    loop {
        let waiting = diesel::sql_query(format!(
            "SELECT COUNT(*) AS n FROM pg_stat_activity WHERE {pid} = ANY(pg_blocking_pids(pid))"
        ))
        .get_result::<Count>(&mut watcher)
        .unwrap()
        .n;
        if waiting > 0 {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "nobody waited on the held transaction"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}
