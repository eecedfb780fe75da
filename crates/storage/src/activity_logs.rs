//! The activity log repository over Diesel: a row of queryable columns with the JSON
//! body, and one side row per entity the log names, from which an entity's logs are
//! listed and erased.

use std::collections::BTreeMap;

use async_trait::async_trait;
use diesel::prelude::*;
use rics_aip::page_token::CursorValue;
use rics_domain::activity::model::ActivityLog;
use rics_domain::activity::ports::ActivityLogRepository;
use rics_domain::event::NewEvent;
use rics_domain::list::{ListQuery, Page};
use rics_domain::principal::TenantId;
use rics_domain::repository::{CreateOutcome, IdempotencyKey, RepositoryError};
use rics_domain::resource;
use rics_domain::time::Timestamp;

use crate::connection::DbConnection;
use crate::database::Database;
use crate::error::{repository_error, revision_missed};
use crate::events::insert_events;
use crate::filter::{Column, FieldMap, ScalarKind, Unset, compile_list};
use crate::idempotency;
use crate::paging::load_page;
use crate::rows::{FoundId, body_without, internal, micros, timestamp};
use crate::schema::{activity_log_entities, activity_logs, idempotency_keys};
use crate::sql::{Sql, insert_rows};

/// Where the filter fields of an entity's activity logs live.
pub const ACTIVITY_LOG_FIELDS: FieldMap = FieldMap {
    alias: "l",
    tenant_column: "l.tenant_id",
    id_column: "l.id",
    fields: &[
        (
            "type",
            Column::Scalar {
                column: "l.activity_type",
                kind: ScalarKind::Enum,
                unset: Unset::NotNull,
            },
        ),
        (
            "activityLogType",
            Column::Scalar {
                column: "l.activity_log_type",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "source",
            Column::Scalar {
                column: "l.source",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "occurTime",
            Column::Scalar {
                column: "l.occur_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
        (
            "createTime",
            Column::Scalar {
                column: "l.create_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
    ],
    fuzzy: &[],
};

/// Fields kept in columns only, not in the body.
const COLUMN_FIELDS: [&str; 6] = [
    "name",
    "uid",
    "createTime",
    "deleteTime",
    "purgeTime",
    "etag",
];

/// Ids per statement when a query names many logs or entities.
const CHUNK: usize = 500;

/// One row of `activity_logs`.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable)]
#[diesel(table_name = activity_logs)]
struct LogRow {
    tenant_id: String,
    id: String,
    uid: String,
    revision: i64,
    activity_type: String,
    activity_log_type: String,
    source: String,
    body: String,
    occur_time: i64,
    create_time: i64,
    delete_time: Option<i64>,
    purge_time: Option<i64>,
}

impl LogRow {
    fn from_log(tenant: &TenantId, log: &ActivityLog) -> Result<LogRow, RepositoryError> {
        Ok(LogRow {
            tenant_id: tenant.as_str().to_owned(),
            id: log.id().to_owned(),
            uid: log.uid.clone(),
            revision: log.revision,
            activity_type: log.activity_type.as_str().to_owned(),
            activity_log_type: log.activity_log_type.clone(),
            source: log.source.clone(),
            body: body_without(
                serde_json::to_value(log),
                &COLUMN_FIELDS,
                "activity log to JSON",
            )?,
            occur_time: micros(log.occur_time).unwrap_or_default(),
            create_time: micros(log.create_time).unwrap_or_default(),
            delete_time: micros(log.delete_time),
            purge_time: micros(log.purge_time),
        })
    }

    fn into_log(self) -> Result<ActivityLog, RepositoryError> {
        let mut log: ActivityLog = serde_json::from_str(&self.body)
            .map_err(|e| internal("stored activity log JSON", e))?;
        log.name = ActivityLog::name_of(&self.id);
        log.etag = resource::etag(&self.uid, self.revision);
        log.uid = self.uid;
        log.revision = self.revision;
        log.create_time = Some(timestamp(self.create_time)?);
        log.delete_time = self.delete_time.map(timestamp).transpose()?;
        log.purge_time = self.purge_time.map(timestamp).transpose()?;
        Ok(log)
    }

    /// The log and its keyset position in a page sorted by `sort_columns`.
    fn into_page_item(
        self,
        sort_columns: &[String],
    ) -> Result<(ActivityLog, Vec<CursorValue>), RepositoryError> {
        let position = sort_columns
            .iter()
            .map(|column| {
                Ok(match column.as_str() {
                    "l.id" => CursorValue::Text(self.id.clone()),
                    "l.occur_time" => CursorValue::Integer(self.occur_time),
                    "l.create_time" => CursorValue::Integer(self.create_time),
                    other => return Err(internal("no cursor value for sort expression", other)),
                })
            })
            .collect::<Result<Vec<_>, RepositoryError>>()?;
        Ok((self.into_log()?, position))
    }
}

fn load_row(
    conn: &mut DbConnection,
    tenant: &str,
    id: &str,
) -> Result<Option<LogRow>, RepositoryError> {
    activity_logs::table
        .filter(activity_logs::tenant_id.eq(tenant))
        .filter(activity_logs::id.eq(id))
        .select(LogRow::as_select())
        .first(conn)
        .optional()
        .map_err(repository_error)
}

/// What erasing an entity removed of the activity logs naming it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ErasedLogs {
    /// Logs removed, with the rows of the entities they name.
    pub(crate) logs: i64,
    /// Events about those logs, under every entity they named.
    pub(crate) events: i64,
    /// Idempotency keys that produced those logs.
    pub(crate) idempotency_keys: i64,
}

/// Erases, in the caller's transaction, every activity log naming the entity
/// `entity_id`: the log may hold personal data about the entity, so it goes with it,
/// with its events under every entity it named and its idempotency keys. On PostgreSQL
/// the entity's row is locked first, so that no log naming it is written meanwhile.
///
/// # Errors
/// Database failures.
pub(crate) fn erase_naming_entity(
    conn: &mut DbConnection,
    tenant: &str,
    entity_id: &str,
) -> Result<ErasedLogs, RepositoryError> {
    if let DbConnection::Postgresql(_) = conn {
        let mut lock = Sql::from(
            "SELECT e.tenant_id AS tenant_id, e.id AS id FROM entities e WHERE e.tenant_id = ",
        );
        lock.bind(tenant)
            .push(" AND e.id = ")
            .bind(entity_id)
            .push(" FOR UPDATE");
        lock.load::<FoundId>(conn).map_err(repository_error)?;
    }
    let log_ids: Vec<String> = activity_log_entities::table
        .filter(activity_log_entities::tenant_id.eq(tenant))
        .filter(activity_log_entities::entity_id.eq(entity_id))
        .select(activity_log_entities::activity_log_id)
        .load(conn)
        .map_err(repository_error)?;
    let mut erased = ErasedLogs::default();
    for chunk in log_ids.chunks(CHUNK) {
        let named: Vec<(String, String)> = activity_log_entities::table
            .filter(activity_log_entities::tenant_id.eq(tenant))
            .filter(activity_log_entities::activity_log_id.eq_any(chunk))
            .select((
                activity_log_entities::activity_log_id,
                activity_log_entities::entity_id,
            ))
            .load(conn)
            .map_err(repository_error)?;
        let mut entities_of: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (log_id, named_entity) in named {
            entities_of.entry(log_id).or_default().push(named_entity);
        }
        for (log_id, entity_ids) in &entities_of {
            erased.events += erase_events_about(conn, tenant, log_id, entity_ids)?;
        }
        let names: Vec<String> = chunk.iter().map(|id| ActivityLog::name_of(id)).collect();
        erased.idempotency_keys += diesel::delete(
            idempotency_keys::table
                .filter(idempotency_keys::tenant_id.eq(tenant))
                .filter(idempotency_keys::resource_name.eq_any(&names)),
        )
        .execute(conn)
        .map_err(repository_error)? as i64;
        erased.logs += diesel::delete(
            activity_logs::table
                .filter(activity_logs::tenant_id.eq(tenant))
                .filter(activity_logs::id.eq_any(chunk)),
        )
        .execute(conn)
        .map_err(repository_error)? as i64;
    }
    Ok(erased)
}

/// Removes the events about the log `log_id` scoped to `entity_ids`; returns how many.
/// An event is about the log when its payload's `resource` is the log's name: the
/// payload is stored as compact JSON text (see [`insert_events`]), so it holds exactly
/// the text of `{"resource": name}` without its braces.
fn erase_events_about(
    conn: &mut DbConnection,
    tenant: &str,
    log_id: &str,
    entity_ids: &[String],
) -> Result<i64, RepositoryError> {
    let marker = serde_json::json!({ "resource": ActivityLog::name_of(log_id) }).to_string();
    let inner = marker.trim_start_matches('{').trim_end_matches('}');
    let pattern = format!("%{}%", escape_like(inner));
    let mut sql = Sql::from("DELETE FROM events WHERE tenant_id = ");
    sql.bind(tenant)
        .push(" AND entity_id IN ")
        .bind_list(entity_ids.iter().map(String::as_str))
        .push(" AND payload LIKE ")
        .bind(pattern)
        .push(" ESCAPE '\\'");
    diesel::RunQueryDsl::execute(sql, conn)
        .map(|n| n as i64)
        .map_err(repository_error)
}

/// `text` with the LIKE wildcards and the escape character escaped (by `\`).
fn escape_like(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

/// The Diesel activity log repository.
#[derive(Debug, Clone)]
pub struct DieselActivityLogRepository {
    db: Database,
}

impl DieselActivityLogRepository {
    /// A repository over `db`.
    pub fn new(db: Database) -> DieselActivityLogRepository {
        DieselActivityLogRepository { db }
    }
}

#[async_trait]
impl ActivityLogRepository for DieselActivityLogRepository {
    async fn create<'a>(
        &self,
        tenant: &TenantId,
        log: &ActivityLog,
        key: Option<&'a IdempotencyKey>,
        new_events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError> {
        let row = LogRow::from_log(tenant, log)?;
        let entity_ids: Vec<String> = log.entity_ids().into_iter().map(str::to_owned).collect();
        let (key, new_events) = (key.cloned(), new_events.to_vec());
        self.db
            .write(move |conn| {
                let now = timestamp(row.create_time)?;
                if let Some(replay) = idempotency::claim(conn, &row.tenant_id, key.as_ref(), now)? {
                    return Ok(replay);
                }
                diesel::insert_into(activity_logs::table)
                    .values(&row)
                    .execute(conn)
                    .map_err(repository_error)?;
                // A named entity erased since the service checked it fails the foreign
                // key: NotFound.
                let named = entity_ids
                    .iter()
                    .map(|entity| {
                        vec![
                            row.tenant_id.as_str().into(),
                            row.id.as_str().into(),
                            entity.as_str().into(),
                        ]
                    })
                    .collect();
                insert_rows(
                    conn,
                    "activity_log_entities",
                    &["tenant_id", "activity_log_id", "entity_id"],
                    named,
                )
                .map_err(repository_error)?;
                insert_events(conn, &row.tenant_id, &new_events).map_err(repository_error)?;
                Ok(CreateOutcome::Created)
            })
            .await
    }

    async fn get(
        &self,
        tenant: &TenantId,
        id: &str,
    ) -> Result<Option<ActivityLog>, RepositoryError> {
        let (tenant, id) = (tenant.as_str().to_owned(), id.to_owned());
        // One statement: no transaction needed.
        self.db
            .run(move |conn| {
                load_row(conn, &tenant, &id)?
                    .map(LogRow::into_log)
                    .transpose()
            })
            .await
    }

    async fn get_many(
        &self,
        tenant: &TenantId,
        ids: &[String],
    ) -> Result<Vec<ActivityLog>, RepositoryError> {
        let (tenant, ids) = (tenant.as_str().to_owned(), ids.to_vec());
        self.db
            .read(move |conn| {
                let mut logs = Vec::with_capacity(ids.len());
                for chunk in ids.chunks(CHUNK) {
                    let rows = activity_logs::table
                        .filter(activity_logs::tenant_id.eq(&tenant))
                        .filter(activity_logs::id.eq_any(chunk))
                        .select(LogRow::as_select())
                        .load(conn)
                        .map_err(repository_error)?;
                    for row in rows {
                        logs.push(row.into_log()?);
                    }
                }
                Ok(logs)
            })
            .await
    }

    async fn list_for_entity(
        &self,
        tenant: &TenantId,
        entity_id: &str,
        query: &ListQuery,
    ) -> Result<Page<ActivityLog>, RepositoryError> {
        let mut compiled = compile_list(
            query,
            &ACTIVITY_LOG_FIELDS,
            tenant.as_str(),
            Some("l.delete_time"),
        )?;
        // Uncorrelated, so the database starts from the entity's side rows (its index)
        // and reads only the logs naming it.
        compiled
            .filter
            .push(" AND l.id IN (SELECT x.activity_log_id FROM activity_log_entities x WHERE x.tenant_id = ")
            .bind(tenant.as_str())
            .push(" AND x.entity_id = ")
            .bind(entity_id)
            .push(")");
        let query = query.clone();
        self.db
            .read(move |conn| {
                let sort_columns = compiled.sort_columns.clone();
                load_page(
                    conn,
                    "activity_logs l",
                    "l.*",
                    compiled,
                    &query,
                    |row: LogRow| row.into_page_item(&sort_columns),
                )
            })
            .await
    }

    async fn update_lifecycle(
        &self,
        tenant: &TenantId,
        log: &ActivityLog,
        expected_revision: i64,
        new_events: &[NewEvent],
    ) -> Result<(), RepositoryError> {
        let (tenant, id, new_events) = (
            tenant.as_str().to_owned(),
            log.id().to_owned(),
            new_events.to_vec(),
        );
        let (revision, delete_time, purge_time) = (
            log.revision,
            micros(log.delete_time),
            micros(log.purge_time),
        );
        self.db
            .write(move |conn| {
                let updated = diesel::update(
                    activity_logs::table
                        .filter(activity_logs::tenant_id.eq(&tenant))
                        .filter(activity_logs::id.eq(&id))
                        .filter(activity_logs::revision.eq(expected_revision)),
                )
                .set((
                    activity_logs::revision.eq(revision),
                    activity_logs::delete_time.eq(delete_time),
                    activity_logs::purge_time.eq(purge_time),
                ))
                .execute(conn)
                .map_err(repository_error)?;
                if updated == 0 {
                    return Err(revision_missed(load_row(conn, &tenant, &id)?));
                }
                insert_events(conn, &tenant, &new_events).map_err(repository_error)?;
                Ok(())
            })
            .await
    }

    async fn find_purge_due(
        &self,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<(TenantId, String)>, RepositoryError> {
        self.db
            .read(move |conn| crate::purge::find_due(conn, "activity_logs", now, limit))
            .await
    }

    async fn purge(
        &self,
        tenant: &TenantId,
        id: &str,
        now: Timestamp,
        new_events: &[NewEvent],
    ) -> Result<(), RepositoryError> {
        let (tenant, id, new_events) = (
            tenant.as_str().to_owned(),
            id.to_owned(),
            new_events.to_vec(),
        );
        self.db
            .write(move |conn| {
                // The condition is part of the DELETE: a log undeleted meanwhile has no
                // purge time and stays. The rows of the entities it names go with it
                // (cascade); its events stay in the entities' history.
                crate::purge::remove_due(conn, "activity_logs", &tenant, &id, now, &new_events)
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_wildcards_are_escaped() {
        assert_eq!(
            escape_like(r#""resource":"a_b%c\d""#),
            r#""resource":"a\_b\%c\\d""#
        );
    }
}
