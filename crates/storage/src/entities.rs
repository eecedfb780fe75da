//! The entity repository over Diesel.

use async_trait::async_trait;
use diesel::prelude::*;
use rics_aip::page_token::CursorValue;
use rics_domain::entity::model::{Entity, ScreeningStatus, VerificationStatus};
use rics_domain::entity::relationship::{RelationshipRecord, RelationshipType};
use rics_domain::entity::repository::{EntityRepository, EraseGuard, ErasureCounts, Presence};
use rics_domain::event::NewEvent;
use rics_domain::list::{ListQuery, Page};
use rics_domain::principal::TenantId;
use rics_domain::repository::{CreateOutcome, IdempotencyKey, RepositoryError, ResourceStore};
use rics_domain::resource;
use rics_domain::text_search;
use rics_domain::time::Timestamp;

use crate::connection::DbConnection;
use crate::error::repository_error;
use crate::events::{OutboxEvent, insert_events, outbox};
use crate::filter::{Column, FieldMap, FuzzyIndex, FuzzySource, ScalarKind, Unset, compile_list};
use crate::paging::load_page;
use crate::rows::{FoundId, body_without, internal, micros, timestamp};
use crate::schema::{entities, entity_bodies, entity_relationships};
use crate::search_index::{ChangeLog, Facets, SideTable};
use crate::side_rows::delete_owned;
use crate::sql::{Bind, Sql, insert_rows};
use crate::store::{DieselStore, StoredTable, Write, row_statements};

/// Most ids one statement of [`EntityRepository::presence`] looks up (SQLite binds at
/// most 32,766 parameters).
const PRESENCE_CHUNK: usize = 500;

/// An entity's display name, searched in the in-memory index of its change log.
const NAME_SEARCH: FuzzyIndex = FuzzyIndex {
    field: "displayName",
    count_column: "e.display_name_trigrams",
    source: FuzzySource::Memory(ENTITY_CHANGES),
};

/// The log of entity changes the in-memory index of a tenant's entities follows: it
/// searches their names, and answers lists filtered by type and tags alone.
const ENTITY_CHANGES: ChangeLog = ChangeLog {
    table: "entity_search_changes",
    owner: "entity_id",
    source: "entities",
    text: "display_name",
    facets: Facets {
        kind: ("entityType", "entity_type"),
        values: (
            "tags",
            SideTable {
                table: "entity_tags",
                owner: "entity_id",
                value: "tag",
            },
        ),
        create_time: ("createTime", "create_time"),
    },
};

/// An entity's `monitoring`, kept beside its body (the row of `entities` has as many
/// columns as Diesel's tables may): a lookup by primary key.
const MONITORING: &str = "(SELECT b.monitoring FROM entity_bodies b \
    WHERE b.tenant_id = e.tenant_id AND b.entity_id = e.id)";

/// Where the entity filter fields live.
pub const ENTITY_FIELDS: FieldMap = FieldMap {
    alias: "e",
    tenant_column: "e.tenant_id",
    id_column: "e.id",
    fields: &[
        (
            "displayName",
            Column::Scalar {
                column: "e.display_name",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "entityType",
            Column::Scalar {
                column: "e.entity_type",
                kind: ScalarKind::Enum,
                unset: Unset::NotNull,
            },
        ),
        (
            "createTime",
            Column::Scalar {
                column: "e.create_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
        (
            "updateTime",
            Column::Scalar {
                column: "e.update_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
        (
            "deleteTime",
            Column::Scalar {
                column: "e.delete_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::InMessage,
            },
        ),
        (
            "riskDetails",
            Column::Message {
                present: "e.risk_level IS NOT NULL",
            },
        ),
        (
            "riskDetails.riskLevel",
            Column::Scalar {
                column: "e.risk_level",
                kind: ScalarKind::Enum,
                unset: Unset::InMessage,
            },
        ),
        (
            "riskDetails.riskStatus",
            Column::Scalar {
                column: "e.risk_status",
                kind: ScalarKind::Enum,
                unset: Unset::InMessage,
            },
        ),
        (
            "screeningStatus",
            Column::Scalar {
                column: "e.screening_status",
                kind: ScalarKind::Enum,
                unset: Unset::ZeroValue,
            },
        ),
        (
            "verificationStatus",
            Column::Scalar {
                column: "e.verification_status",
                kind: ScalarKind::Enum,
                unset: Unset::ZeroValue,
            },
        ),
        (
            "legalHold",
            Column::Scalar {
                column: "e.legal_hold",
                kind: ScalarKind::Bool,
                unset: Unset::NotNull,
            },
        ),
        (
            "monitoring",
            Column::Scalar {
                column: MONITORING,
                kind: ScalarKind::Bool,
                unset: Unset::NotNull,
            },
        ),
        (
            "tags",
            Column::Repeated {
                table: "entity_tags",
                owner: "entity_id",
                value: "tag",
            },
        ),
        (
            "externalIds",
            Column::Map {
                table: "entity_external_ids",
                owner: "entity_id",
                key: "id_key",
                value: "id_value",
            },
        ),
    ],
    fuzzy: &[NAME_SEARCH],
};

/// Where the relationship filter fields live.
pub const RELATIONSHIP_FIELDS: FieldMap = FieldMap {
    alias: "r",
    tenant_column: "r.tenant_id",
    id_column: "r.id",
    fields: &[
        (
            "relationshipType",
            Column::Scalar {
                column: "r.relationship_type",
                kind: ScalarKind::Enum,
                unset: Unset::NotNull,
            },
        ),
        (
            "createTime",
            Column::Scalar {
                column: "r.create_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
    ],
    fuzzy: &[],
};

/// One row of `entities`.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = entities, primary_key(tenant_id, id), treat_none_as_null = true)]
pub struct EntityRow {
    tenant_id: String,
    id: String,
    uid: String,
    revision: i64,
    entity_type: String,
    display_name: String,
    display_name_trigrams: i64,
    risk_level: Option<String>,
    screening_status: Option<String>,
    verification_status: Option<String>,
    legal_hold: bool,
    create_time: i64,
    update_time: i64,
    delete_time: Option<i64>,
    purge_time: Option<i64>,
    risk_status: Option<String>,
}

/// One row of `entity_relationships`.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable)]
#[diesel(table_name = entity_relationships)]
struct RelationshipRow {
    tenant_id: String,
    id: String,
    entity_id: String,
    related_entity_id: String,
    relationship_type: String,
    ownership_percentage: Option<f64>,
    note: String,
    create_time: i64,
}

/// Fields kept in columns rather than in the body.
const STANDARD_FIELDS: [&str; 7] = [
    "name",
    "uid",
    "createTime",
    "updateTime",
    "deleteTime",
    "purgeTime",
    "etag",
];

fn enum_text(text: &'static str, unspecified: bool) -> Option<String> {
    (!unspecified).then(|| text.to_owned())
}

/// The JSON kept in `entity_bodies`: the entity without the fields held in columns.
fn body_of(entity: &Entity) -> Result<String, RepositoryError> {
    body_without(
        serde_json::to_value(entity),
        &STANDARD_FIELDS,
        "entity to JSON",
    )
}

impl EntityRow {
    fn from_entity(tenant: &TenantId, entity: &Entity) -> EntityRow {
        let risk_level = entity.risk_details.as_ref().map(|r| r.risk_level);
        let risk_status = entity.risk_details.as_ref().map(|r| r.risk_status);
        EntityRow {
            tenant_id: tenant.as_str().to_owned(),
            id: entity.id().to_owned(),
            uid: entity.uid.clone(),
            revision: entity.revision,
            entity_type: entity.entity_type.as_str().to_owned(),
            display_name: entity.display_name.clone(),
            display_name_trigrams: text_search::trigrams(&entity.display_name).len() as i64,
            risk_level: risk_level
                .filter(|level| !level.is_unspecified())
                .map(|level| level.as_str().to_owned()),
            screening_status: enum_text(
                entity.screening_status.as_str(),
                entity.screening_status == ScreeningStatus::Unspecified,
            ),
            verification_status: enum_text(
                entity.verification_status.as_str(),
                entity.verification_status == VerificationStatus::Unspecified,
            ),
            legal_hold: entity.legal_hold,
            create_time: micros(entity.create_time).unwrap_or_default(),
            update_time: micros(entity.update_time).unwrap_or_default(),
            delete_time: micros(entity.delete_time),
            purge_time: micros(entity.purge_time),
            risk_status: risk_status
                .filter(|status| !status.is_unspecified())
                .map(|status| status.as_str().to_owned()),
        }
    }

    /// The columns of a row, in the order of [`EntityRow::binds`].
    const COLUMNS: [&'static str; 16] = [
        "tenant_id",
        "id",
        "uid",
        "revision",
        "entity_type",
        "display_name",
        "display_name_trigrams",
        "risk_level",
        "screening_status",
        "verification_status",
        "legal_hold",
        "create_time",
        "update_time",
        "delete_time",
        "purge_time",
        "risk_status",
    ];

    /// The row's values, in the order of [`EntityRow::COLUMNS`], for multi-row
    /// inserts (which Diesel's typed insert cannot write over both backends).
    fn binds(&self) -> Vec<Bind> {
        vec![
            self.tenant_id.as_str().into(),
            self.id.as_str().into(),
            self.uid.as_str().into(),
            self.revision.into(),
            self.entity_type.as_str().into(),
            self.display_name.as_str().into(),
            self.display_name_trigrams.into(),
            self.risk_level.clone().into(),
            self.screening_status.clone().into(),
            self.verification_status.clone().into(),
            self.legal_hold.into(),
            self.create_time.into(),
            self.update_time.into(),
            self.delete_time.into(),
            self.purge_time.into(),
            self.risk_status.clone().into(),
        ]
    }

    /// The entity from this row and its body.
    fn into_entity(self, body: &str) -> Result<Entity, RepositoryError> {
        let mut entity: Entity =
            serde_json::from_str(body).map_err(|e| internal("stored entity JSON", e))?;
        entity.name = Entity::name_of(&self.id);
        entity.etag = resource::etag(&self.uid, self.revision);
        entity.uid = self.uid;
        entity.revision = self.revision;
        entity.create_time = Some(timestamp(self.create_time)?);
        entity.update_time = Some(timestamp(self.update_time)?);
        entity.delete_time = self.delete_time.map(timestamp).transpose()?;
        entity.purge_time = self.purge_time.map(timestamp).transpose()?;
        Ok(entity)
    }
}

impl RelationshipRow {
    fn from_record(tenant: &TenantId, record: &RelationshipRecord) -> RelationshipRow {
        RelationshipRow {
            tenant_id: tenant.as_str().to_owned(),
            id: record.id.clone(),
            entity_id: record.entity_id.clone(),
            related_entity_id: record.related_entity_id.clone(),
            relationship_type: record.relationship_type.as_str().to_owned(),
            ownership_percentage: record.ownership_percentage,
            note: record.note.clone(),
            create_time: record.create_time.unix_micros(),
        }
    }

    fn into_record(self) -> Result<RelationshipRecord, RepositoryError> {
        Ok(RelationshipRecord {
            relationship_type: RelationshipType::parse(&self.relationship_type)
                .ok_or_else(|| internal("stored relationship type", &self.relationship_type))?,
            id: self.id,
            entity_id: self.entity_id,
            related_entity_id: self.related_entity_id,
            ownership_percentage: self.ownership_percentage,
            note: self.note,
            create_time: timestamp(self.create_time)?,
        })
    }
}

/// Inserts the side rows of new entities, which have none yet: their bodies, tags,
/// external ids, each kind in multi-row statements.
fn insert_side_rows(
    conn: &mut DbConnection,
    tenant: &str,
    new: &[&Entity],
) -> Result<(), RepositoryError> {
    let bodies = new
        .iter()
        .map(|entity| {
            Ok(vec![
                tenant.into(),
                entity.id().into(),
                body_of(entity)?.into(),
                entity.monitoring.is_on().into(),
            ])
        })
        .collect::<Result<Vec<Vec<Bind>>, RepositoryError>>()?;
    insert_rows(
        conn,
        "entity_bodies",
        &["tenant_id", "entity_id", "body", "monitoring"],
        bodies,
    )
    .map_err(repository_error)?;
    insert_search_rows(conn, tenant, new).map_err(repository_error)
}

/// Inserts the searchable side rows (tags, external ids) of
/// `entities`, which have none.
fn insert_search_rows(
    conn: &mut DbConnection,
    tenant: &str,
    entities: &[&Entity],
) -> QueryResult<()> {
    let tags = entities
        .iter()
        .flat_map(|entity| {
            entity
                .tags
                .iter()
                .map(|tag| vec![tenant.into(), entity.id().into(), tag.as_str().into()])
        })
        .collect();
    insert_rows(
        conn,
        "entity_tags",
        &["tenant_id", "entity_id", "tag"],
        tags,
    )?;
    insert_external_ids(conn, tenant, entities)
}

/// Inserts the external id rows of `entities`, which have none.
fn insert_external_ids(
    conn: &mut DbConnection,
    tenant: &str,
    entities: &[&Entity],
) -> QueryResult<()> {
    let external = entities
        .iter()
        .flat_map(|entity| {
            entity.external_ids.iter().map(|(key, value)| {
                vec![
                    tenant.into(),
                    entity.id().into(),
                    key.as_str().into(),
                    value.as_str().into(),
                ]
            })
        })
        .collect();
    insert_rows(
        conn,
        "entity_external_ids",
        &["tenant_id", "entity_id", "id_key", "id_value"],
        external,
    )
}

/// Makes `tags` the stored tags of the entity `id`, writing only what changed: an
/// update that keeps them (a screening run's status, a risk rating) removes and
/// inserts no row, so the change log of the in-memory entity index, which triggers on
/// tag rows, records nothing for it.
fn replace_tags(
    conn: &mut DbConnection,
    tenant: &str,
    id: &str,
    tags: &[String],
) -> QueryResult<()> {
    let mut delete = Sql::from("DELETE FROM entity_tags WHERE tenant_id = ");
    delete.bind(tenant).push(" AND entity_id = ").bind(id);
    if !tags.is_empty() {
        delete
            .push(" AND tag NOT IN ")
            .bind_list(tags.iter().map(String::as_str));
    }
    delete.execute(conn)?;
    if tags.is_empty() {
        return Ok(());
    }
    let mut insert = Sql::from("INSERT INTO entity_tags (tenant_id, entity_id, tag) VALUES ");
    for (place, tag) in tags.iter().enumerate() {
        if place > 0 {
            insert.push(", ");
        }
        insert.bind_list([tenant, id, tag.as_str()]);
    }
    insert.push(" ON CONFLICT DO NOTHING");
    insert.execute(conn).map(|_| ())
}

/// Writes the body of `entity` (stored as `row`) and its searchable side rows in
/// place of those it had, after an update of its row.
fn update_side_rows(
    conn: &mut DbConnection,
    entity: &Entity,
    row: &EntityRow,
) -> Result<(), RepositoryError> {
    let body = body_of(entity)?;
    diesel::update(
        entity_bodies::table
            .filter(entity_bodies::tenant_id.eq(&row.tenant_id))
            .filter(entity_bodies::entity_id.eq(&row.id)),
    )
    .set((
        entity_bodies::body.eq(&body),
        entity_bodies::monitoring.eq(entity.monitoring.is_on()),
    ))
    .execute(conn)
    .map_err(repository_error)?;
    replace_tags(conn, &row.tenant_id, &row.id, &entity.tags).map_err(repository_error)?;
    delete_owned(
        conn,
        "entity_external_ids",
        "entity_id",
        &row.tenant_id,
        &row.id,
    )
    .map_err(repository_error)?;
    insert_external_ids(conn, &row.tenant_id, &[entity]).map_err(repository_error)
}

/// The entities of `rows`, in order, with their bodies (one query per 500 rows).
fn with_bodies(
    conn: &mut DbConnection,
    tenant: &str,
    rows: Vec<EntityRow>,
) -> Result<Vec<Entity>, RepositoryError> {
    let mut bodies = std::collections::HashMap::with_capacity(rows.len());
    for chunk in rows.chunks(500) {
        let ids: Vec<&str> = chunk.iter().map(|row| row.id.as_str()).collect();
        let found = entity_bodies::table
            .filter(entity_bodies::tenant_id.eq(tenant))
            .filter(entity_bodies::entity_id.eq_any(ids))
            .select((entity_bodies::entity_id, entity_bodies::body))
            .load::<(String, String)>(conn)
            .map_err(repository_error)?;
        bodies.extend(found);
    }
    rows.into_iter()
        .map(|row| {
            let body = bodies
                .remove(&row.id)
                .ok_or_else(|| internal("entity without a body", &row.id))?;
            row.into_entity(&body)
        })
        .collect()
}

/// The entities table, for [`DieselStore`]: an entity's body, tags and external ids
/// are side rows, the body read with the row in one statement, and a
/// purge erases the entity with everything that refers to it.
#[derive(Debug, Clone, Copy)]
pub struct EntityTable;

/// The Diesel entity repository.
pub type DieselEntityRepository = DieselStore<EntityTable>;

impl StoredTable for EntityTable {
    type Resource = Entity;
    type Row = EntityRow;

    const TABLE: &'static str = "entities";
    const FIELDS: &'static FieldMap = &ENTITY_FIELDS;

    row_statements!(entities);

    fn row(tenant: &TenantId, entity: &Entity) -> Result<EntityRow, RepositoryError> {
        Ok(EntityRow::from_entity(tenant, entity))
    }

    fn sort_value(row: &EntityRow, column: &str) -> Option<CursorValue> {
        Some(match column {
            "e.id" => CursorValue::Text(row.id.clone()),
            "e.display_name" => CursorValue::Text(row.display_name.clone()),
            "e.entity_type" => CursorValue::Text(row.entity_type.clone()),
            "e.create_time" => CursorValue::Integer(row.create_time),
            "e.update_time" => CursorValue::Integer(row.update_time),
            _ => return None,
        })
    }

    fn resources(
        conn: &mut DbConnection,
        tenant: &str,
        rows: Vec<EntityRow>,
    ) -> Result<Vec<Entity>, RepositoryError> {
        with_bodies(conn, tenant, rows)
    }

    /// The row joined with its body: one statement, no transaction needed (saves two
    /// round trips).
    fn load_resource(
        conn: &mut DbConnection,
        tenant: &str,
        id: &str,
    ) -> Result<Option<Entity>, RepositoryError> {
        entities::table
            .inner_join(
                entity_bodies::table.on(entity_bodies::tenant_id
                    .eq(entities::tenant_id)
                    .and(entity_bodies::entity_id.eq(entities::id))),
            )
            .filter(entities::tenant_id.eq(tenant))
            .filter(entities::id.eq(id))
            .select((EntityRow::as_select(), entity_bodies::body))
            .first::<(EntityRow, String)>(conn)
            .optional()
            .map_err(repository_error)?
            .map(|(row, body)| row.into_entity(&body))
            .transpose()
    }

    /// Entity rows and each kind of side row in multi-row statements, so that a
    /// batch of a thousand takes a few dozen statements.
    fn insert_new(
        conn: &mut DbConnection,
        tenant: &str,
        new: &[(Entity, EntityRow)],
    ) -> Result<(), RepositoryError> {
        let rows = new.iter().map(|(_, row)| row.binds()).collect();
        insert_rows(conn, "entities", &EntityRow::COLUMNS, rows).map_err(repository_error)?;
        let entities: Vec<&Entity> = new.iter().map(|(entity, _)| entity).collect();
        insert_side_rows(conn, tenant, &entities)
    }

    fn write_side_rows(
        conn: &mut DbConnection,
        entity: &Entity,
        row: &EntityRow,
        write: Write,
    ) -> Result<(), RepositoryError> {
        match write {
            Write::Insert => insert_side_rows(conn, &row.tenant_id, &[entity]),
            Write::Update => update_side_rows(conn, entity, row),
        }
    }

    /// A purged entity is erased with everything that refers to it, as
    /// [`EntityRepository::hard_delete`] erases it.
    fn remove_due(
        conn: &mut DbConnection,
        tenant: &str,
        id: &str,
        now: Timestamp,
        events: Vec<OutboxEvent>,
    ) -> Result<(), RepositoryError> {
        crate::erasure::erase_entity(conn, tenant, id, EraseGuard::PurgeDue(now))?;
        insert_events(conn, tenant, events).map_err(repository_error)
    }
}

fn relationship_sort_value(
    row: &RelationshipRow,
    column: &str,
) -> Result<CursorValue, RepositoryError> {
    Ok(match column {
        "r.id" => CursorValue::Text(row.id.clone()),
        "r.create_time" => CursorValue::Integer(row.create_time),
        "r.relationship_type" => CursorValue::Text(row.relationship_type.clone()),
        other => return Err(internal("no cursor value for sort expression", other)),
    })
}

/// How many of `ids` are stored entities of `tenant`. On PostgreSQL their rows stay
/// locked with `lock` (`FOR UPDATE`, `FOR KEY SHARE`, ...) until the transaction ends,
/// taken in id order so that concurrent callers cannot deadlock.
///
/// # Errors
/// Database failures.
pub(crate) fn lock_stored(
    conn: &mut DbConnection,
    tenant: &str,
    ids: &[&str],
    lock: &str,
) -> Result<usize, RepositoryError> {
    let mut sql = Sql::from(
        "SELECT e.tenant_id AS tenant_id, e.id AS id FROM entities e WHERE e.tenant_id = ",
    );
    sql.bind(tenant)
        .push(" AND e.id IN ")
        .bind_list(ids.iter().copied())
        .push(" ORDER BY e.id");
    if let DbConnection::Postgresql(_) = conn {
        sql.push(" ").push(lock);
    }
    Ok(sql.load::<FoundId>(conn).map_err(repository_error)?.len())
}

#[async_trait]
impl EntityRepository for DieselStore<EntityTable> {
    async fn create<'a>(
        &self,
        tenant: &TenantId,
        entity: &Entity,
        key: Option<&'a IdempotencyKey>,
        new_events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError> {
        ResourceStore::create(self, tenant, entity, key, new_events).await
    }

    async fn create_many<'a>(
        &self,
        tenant: &TenantId,
        entities: &[Entity],
        key: Option<&'a IdempotencyKey>,
        new_events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError> {
        self.create_all(tenant, entities, key, new_events).await
    }

    async fn get(&self, tenant: &TenantId, id: &str) -> Result<Option<Entity>, RepositoryError> {
        ResourceStore::get(self, tenant, id).await
    }

    async fn get_many(
        &self,
        tenant: &TenantId,
        ids: &[String],
    ) -> Result<Vec<Entity>, RepositoryError> {
        self.read_many(tenant, ids).await
    }

    async fn presence(
        &self,
        tenant: &TenantId,
        ids: &[String],
    ) -> Result<Vec<Presence>, RepositoryError> {
        let (tenant, ids) = (tenant.as_str().to_owned(), ids.to_vec());
        // One statement per chunk of ids (one in every check of a reference): no
        // transaction around it.
        self.db()
            .run(move |conn| {
                let mut found = Vec::with_capacity(ids.len());
                for chunk in ids.chunks(PRESENCE_CHUNK) {
                    let rows: Vec<(String, Option<i64>)> = entities::table
                        .filter(entities::tenant_id.eq(&tenant))
                        .filter(entities::id.eq_any(chunk))
                        .select((entities::id, entities::delete_time))
                        .load(conn)
                        .map_err(repository_error)?;
                    found.extend(rows.into_iter().map(|(id, delete_time)| Presence {
                        id,
                        deleted: delete_time.is_some(),
                    }));
                }
                Ok(found)
            })
            .await
    }

    async fn list(
        &self,
        tenant: &TenantId,
        query: &ListQuery,
    ) -> Result<Page<Entity>, RepositoryError> {
        ResourceStore::list(self, tenant, None, query).await
    }

    async fn update(
        &self,
        tenant: &TenantId,
        entity: &Entity,
        expected_revision: i64,
        new_events: &[NewEvent],
    ) -> Result<(), RepositoryError> {
        ResourceStore::update(self, tenant, entity, expected_revision, new_events).await
    }

    async fn hard_delete(
        &self,
        tenant: &TenantId,
        id: &str,
        guard: EraseGuard,
        new_events: &[NewEvent],
    ) -> Result<ErasureCounts, RepositoryError> {
        let (tenant, id, new_events) = (
            tenant.as_str().to_owned(),
            id.to_owned(),
            outbox(new_events),
        );
        self.db()
            .write(move |conn| {
                let row = EntityTable::load(conn, &tenant, &id)
                    .map_err(repository_error)?
                    .ok_or(RepositoryError::NotFound)?;
                match guard {
                    EraseGuard::PurgeDue(now)
                        if row.purge_time.is_none_or(|t| t >= now.unix_micros()) =>
                    {
                        return Err(RepositoryError::NotFound);
                    }
                    EraseGuard::Revision(revision) if row.revision != revision => {
                        return Err(RepositoryError::Conflict);
                    }
                    _ => {}
                }
                let counts = crate::erasure::erase_entity(conn, &tenant, &id, guard)?;
                insert_events(conn, &tenant, new_events).map_err(repository_error)?;
                Ok(counts)
            })
            .await
    }

    async fn find_purge_due(
        &self,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<(TenantId, String)>, RepositoryError> {
        ResourceStore::find_purge_due(self, now, limit).await
    }

    /// Rows and bodies in one statement, along the primary keys; ids are never empty,
    /// so the first page starts after `""`.
    async fn monitored<'a>(
        &self,
        tenant: &TenantId,
        after: Option<&'a str>,
        limit: u32,
    ) -> Result<Vec<Entity>, RepositoryError> {
        let (tenant, after) = (tenant.as_str().to_owned(), after.unwrap_or("").to_owned());
        self.db()
            .read(move |conn| {
                entities::table
                    .inner_join(
                        entity_bodies::table.on(entity_bodies::tenant_id
                            .eq(entities::tenant_id)
                            .and(entity_bodies::entity_id.eq(entities::id))),
                    )
                    .filter(entities::tenant_id.eq(&tenant))
                    .filter(entities::id.gt(&after))
                    .filter(entities::delete_time.is_null())
                    .filter(entity_bodies::monitoring.eq(true))
                    .order(entities::id.asc())
                    .limit(i64::from(limit))
                    .select((EntityRow::as_select(), entity_bodies::body))
                    .load::<(EntityRow, String)>(conn)
                    .map_err(repository_error)?
                    .into_iter()
                    .map(|(row, body)| row.into_entity(&body))
                    .collect()
            })
            .await
    }

    async fn add_relationship(
        &self,
        tenant: &TenantId,
        relationship: &RelationshipRecord,
        new_events: &[NewEvent],
    ) -> Result<(), RepositoryError> {
        let row = RelationshipRow::from_record(tenant, relationship);
        let symmetric = relationship.relationship_type.is_symmetric();
        let (tenant, new_events) = (tenant.as_str().to_owned(), outbox(new_events));
        self.db()
            .write(move |conn| {
                if symmetric {
                    // Without the locks two concurrent adds in opposite directions
                    // could both see no reverse row and both insert (PostgreSQL; SQLite
                    // runs write transactions one at a time).
                    let pair = [row.entity_id.as_str(), row.related_entity_id.as_str()];
                    lock_stored(conn, &tenant, &pair, "FOR NO KEY UPDATE")?;
                    let reverse = entity_relationships::table
                        .filter(entity_relationships::tenant_id.eq(&tenant))
                        .filter(entity_relationships::entity_id.eq(&row.related_entity_id))
                        .filter(entity_relationships::related_entity_id.eq(&row.entity_id))
                        .filter(entity_relationships::relationship_type.eq(&row.relationship_type))
                        .count()
                        .get_result::<i64>(conn)
                        .map_err(repository_error)?;
                    if reverse > 0 {
                        return Err(RepositoryError::AlreadyExists);
                    }
                }
                diesel::insert_into(entity_relationships::table)
                    .values(&row)
                    .execute(conn)
                    .map_err(repository_error)?;
                insert_events(conn, &tenant, new_events).map_err(repository_error)?;
                Ok(())
            })
            .await
    }

    async fn remove_relationship(
        &self,
        tenant: &TenantId,
        entity_id: &str,
        other_entity_id: &str,
        relationship_type: RelationshipType,
        new_events: &[NewEvent],
    ) -> Result<RelationshipRecord, RepositoryError> {
        let (tenant, a, b, new_events) = (
            tenant.as_str().to_owned(),
            entity_id.to_owned(),
            other_entity_id.to_owned(),
            outbox(new_events),
        );
        self.db()
            .write(move |conn| {
                let between = entity_relationships::entity_id
                    .eq(&a)
                    .and(entity_relationships::related_entity_id.eq(&b))
                    .or(entity_relationships::entity_id
                        .eq(&b)
                        .and(entity_relationships::related_entity_id.eq(&a)));
                let row = entity_relationships::table
                    .filter(entity_relationships::tenant_id.eq(&tenant))
                    .filter(between)
                    .filter(entity_relationships::relationship_type.eq(relationship_type.as_str()))
                    .select(RelationshipRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(repository_error)?
                    .ok_or(RepositoryError::NotFound)?;
                let removed = diesel::delete(
                    entity_relationships::table
                        .filter(entity_relationships::tenant_id.eq(&tenant))
                        .filter(entity_relationships::id.eq(&row.id)),
                )
                .execute(conn)
                .map_err(repository_error)?;
                // On PostgreSQL a concurrent removal may commit between the read and
                // the delete: then this call removed nothing.
                if removed == 0 {
                    return Err(RepositoryError::NotFound);
                }
                insert_events(conn, &tenant, new_events).map_err(repository_error)?;
                row.into_record()
            })
            .await
    }

    async fn list_relationships(
        &self,
        tenant: &TenantId,
        entity_id: &str,
        query: &ListQuery,
    ) -> Result<Page<RelationshipRecord>, RepositoryError> {
        let mut compiled = compile_list(query, &RELATIONSHIP_FIELDS, tenant.as_str(), None, None)?;
        compiled
            .filter
            .push(" AND (r.entity_id = ")
            .bind(entity_id)
            .push(" OR r.related_entity_id = ")
            .bind(entity_id)
            .push(")");
        let query = query.clone();
        self.db()
            .read(move |conn| {
                let sort_columns = compiled.sort_columns.clone();
                load_page(
                    conn,
                    "entity_relationships r",
                    "r.*",
                    compiled,
                    &query,
                    |row: RelationshipRow| {
                        let position = sort_columns
                            .iter()
                            .map(|c| relationship_sort_value(&row, c))
                            .collect::<Result<Vec<_>, _>>()?;
                        Ok((row.into_record()?, position))
                    },
                )
            })
            .await
    }
}
