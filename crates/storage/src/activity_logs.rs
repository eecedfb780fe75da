//! The activity log repository over Diesel: a row of queryable columns with the JSON
//! body, and one side row per entity the log names, from which an entity's logs are
//! listed and erased.

use std::collections::BTreeMap;

use diesel::prelude::*;
use rics_aip::page_token::CursorValue;
use rics_domain::activity::model::ActivityLog;
use rics_domain::activity::ports::ActivityLogRepository;
use rics_domain::entity::repository::ErasureCounts;
use rics_domain::list::{ListQuery, Page};
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_domain::resource;

use crate::connection::DbConnection;
use crate::entities::lock_stored;
use crate::erasure::{add, erase_creation_keys};
use crate::error::repository_error;
use crate::filter::{Column, FieldMap, ScalarKind, Unset};
use crate::rows::{body_without, internal, micros, timestamp};
use crate::schema::{activity_log_entities, activity_logs};
use crate::side_rows::{insert_owned, write_owned};
use crate::sql::Sql;
use crate::store::{DieselStore, StoredTable, Write, port_over_store, row_statements};

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

/// The table of the entities a log is about, and its column holding the log's id.
const LOG_ENTITIES: (&str, &str) = ("activity_log_entities", "activity_log_id");

/// One row of `activity_logs`.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable)]
#[diesel(table_name = activity_logs)]
pub struct LogRow {
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
}

/// Erases, in the caller's transaction, every activity log naming the entity
/// `entity_id`: the log may hold personal data about the entity, so it goes with it,
/// with its events under every entity it named and its idempotency keys (added to
/// `counts`). Returns how many logs. On PostgreSQL the entity's row is locked first, so
/// that no log naming it is written meanwhile.
///
/// # Errors
/// Database failures.
pub(crate) fn erase_naming_entity(
    conn: &mut DbConnection,
    tenant: &str,
    entity_id: &str,
    counts: &mut ErasureCounts,
) -> Result<i64, RepositoryError> {
    lock_stored(conn, tenant, &[entity_id], "FOR UPDATE")?;
    let log_ids: Vec<String> = activity_log_entities::table
        .filter(activity_log_entities::tenant_id.eq(tenant))
        .filter(activity_log_entities::entity_id.eq(entity_id))
        .select(activity_log_entities::activity_log_id)
        .load(conn)
        .map_err(repository_error)?;
    let mut logs = 0;
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
            let events = erase_events_about(conn, tenant, log_id, entity_ids)?;
            add(counts, "events", events);
        }
        let names: Vec<String> = chunk.iter().map(|id| ActivityLog::name_of(id)).collect();
        erase_creation_keys(conn, tenant, &names, counts)?;
        logs += diesel::delete(
            activity_logs::table
                .filter(activity_logs::tenant_id.eq(tenant))
                .filter(activity_logs::id.eq_any(chunk)),
        )
        .execute(conn)
        .map_err(repository_error)? as i64;
    }
    Ok(logs)
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

/// The activity logs table, for [`DieselStore`]: a log never changes but for its
/// lifecycle, so an update writes only the revision, delete and purge times; the
/// entities a log names are side rows, written when it is created, from which an
/// entity's logs are listed. They go with a purged log (cascade); its events stay in
/// the entities' history.
#[derive(Debug, Clone, Copy)]
pub struct ActivityLogTable;

/// The Diesel activity log repository.
pub type DieselActivityLogRepository = DieselStore<ActivityLogTable>;

impl StoredTable for ActivityLogTable {
    type Resource = ActivityLog;
    type Row = LogRow;

    const TABLE: &'static str = "activity_logs";
    const FIELDS: &'static FieldMap = &ACTIVITY_LOG_FIELDS;

    row_statements!(activity_logs, updates(revision, delete_time, purge_time));

    fn row(tenant: &TenantId, log: &ActivityLog) -> Result<LogRow, RepositoryError> {
        LogRow::from_log(tenant, log)
    }

    fn sort_value(row: &LogRow, column: &str) -> Option<CursorValue> {
        Some(match column {
            "l.id" => CursorValue::Text(row.id.clone()),
            "l.occur_time" => CursorValue::Integer(row.occur_time),
            "l.create_time" => CursorValue::Integer(row.create_time),
            _ => return None,
        })
    }

    fn resources(
        _conn: &mut DbConnection,
        _tenant: &str,
        rows: Vec<LogRow>,
    ) -> Result<Vec<ActivityLog>, RepositoryError> {
        rows.into_iter().map(LogRow::into_log).collect()
    }

    /// A named entity erased since the service checked it fails the foreign key:
    /// NOT_FOUND.
    fn write_side_rows(
        conn: &mut DbConnection,
        log: &ActivityLog,
        row: &LogRow,
        write: Write,
    ) -> Result<(), RepositoryError> {
        if write == Write::Update {
            return Ok(());
        }
        let named = log
            .entity_ids()
            .into_iter()
            .map(|entity| vec![entity.into()]);
        write_owned(
            conn,
            LOG_ENTITIES,
            (&row.tenant_id, &row.id),
            (&["entity_id"], named.collect()),
            write,
        )
        .map_err(repository_error)
    }

    /// The entities of all of them in one statement: a batch of screening runs ends
    /// with a log each.
    fn write_new_side_rows(
        conn: &mut DbConnection,
        tenant: &str,
        new: &[(ActivityLog, LogRow)],
    ) -> Result<(), RepositoryError> {
        let owned = new
            .iter()
            .map(|(log, row)| {
                let named = log
                    .entity_ids()
                    .into_iter()
                    .map(|entity| vec![entity.into()]);
                (row.id.as_str(), named.collect())
            })
            .collect();
        insert_owned(conn, LOG_ENTITIES, tenant, (&["entity_id"], owned)).map_err(repository_error)
    }
}

port_over_store! {
    impl ActivityLogRepository for ActivityLogTable {
        standard [create, get, get_many, update_lifecycle, find_purge_due, purge]

        async fn list_for_entity(
            &self,
            tenant: &TenantId,
            entity_id: &str,
            query: &ListQuery,
        ) -> Result<Page<ActivityLog>, RepositoryError> {
            // Uncorrelated, so the database starts from the entity's side rows (its index)
            // and reads only the logs naming it.
            self.list_where(tenant, query, |filter| {
                filter
                    .push(
                        " AND l.id IN (SELECT x.activity_log_id FROM activity_log_entities x \
                         WHERE x.tenant_id = ",
                    )
                    .bind(tenant.as_str())
                    .push(" AND x.entity_id = ")
                    .bind(entity_id)
                    .push(")");
            })
            .await
        }
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
