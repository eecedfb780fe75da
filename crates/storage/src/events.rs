//! The event log: appended inside each change's transaction (the outbox), read back
//! by [`DieselEventRepository`].

use std::borrow::Borrow;

use async_trait::async_trait;
use diesel::prelude::*;
use rics_aip::page_token::CursorValue;
use rics_domain::event::NewEvent;
use rics_domain::event::model::EventRecord;
use rics_domain::event::ports::EventRepository;
use rics_domain::list::{ListQuery, Page};
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;

use crate::connection::DbConnection;
use crate::database::Database;
use crate::filter::{Column, FieldMap, ScalarKind, Unset};
use crate::rows::timestamp;
use crate::schema::events;
use crate::sql::insert_rows;
use crate::store::{ListedTable, ReadTable, list_page, read_one};

/// Appends `new_events` for `tenant` in the current transaction, in multi-row
/// statements (a batch create appends one event per entity), with the webhook
/// deliveries they make (the outbox: both commit or roll back with the change).
///
/// # Errors
/// Database failures.
pub fn insert_events<E: Borrow<NewEvent>>(
    conn: &mut DbConnection,
    tenant: &str,
    new_events: &[E],
) -> QueryResult<()> {
    let rows = new_events
        .iter()
        .map(|event| {
            let event = event.borrow();
            vec![
                tenant.into(),
                event.id.as_str().into(),
                event.entity_id.clone().into(),
                event.event_type.as_str().into(),
                event.payload.to_string().into(),
                event.creator.as_str().into(),
                event.create_time.unix_micros().into(),
            ]
        })
        .collect();
    insert_rows(
        conn,
        "events",
        &[
            "tenant_id",
            "id",
            "entity_id",
            "event_type",
            "payload",
            "creator",
            "create_time",
        ],
        rows,
    )?;
    crate::webhook_deliveries::queue_deliveries(conn, tenant, new_events)
}

/// Where the event filter fields live.
const EVENT_FIELDS: FieldMap = FieldMap {
    alias: "ev",
    tenant_column: "ev.tenant_id",
    id_column: "ev.id",
    fields: &[
        (
            "eventType",
            Column::Scalar {
                column: "ev.event_type",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "createTime",
            Column::Scalar {
                column: "ev.create_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
    ],
    fuzzy: &[],
};

/// One row of `events`.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable)]
#[diesel(table_name = events)]
struct EventRow {
    id: String,
    entity_id: Option<String>,
    event_type: String,
    payload: String,
    creator: String,
    create_time: i64,
}

impl EventRow {
    fn into_record(self) -> Result<EventRecord, RepositoryError> {
        Ok(EventRecord {
            create_time: timestamp(self.create_time)?,
            id: self.id,
            entity_id: self.entity_id,
            event_type: self.event_type,
            payload: self.payload,
            creator: self.creator,
        })
    }
}

/// The `events` table, as the event log is read: by id, or an entity's.
struct EventTable;

impl ListedTable for EventTable {
    type Resource = EventRecord;
    type Row = EventRow;

    const TABLE: &'static str = "events";
    const FIELDS: &'static FieldMap = &EVENT_FIELDS;
    const PARENT_COLUMN: Option<&'static str> = Some("ev.entity_id");
    const SOFT_DELETES: bool = false;

    fn sort_value(row: &EventRow, column: &str) -> Option<CursorValue> {
        match column {
            "ev.id" => Some(CursorValue::Text(row.id.clone())),
            "ev.create_time" => Some(CursorValue::Integer(row.create_time)),
            _ => None,
        }
    }

    fn resources(
        _conn: &mut DbConnection,
        _tenant: &str,
        rows: Vec<EventRow>,
    ) -> Result<Vec<EventRecord>, RepositoryError> {
        rows.into_iter().map(EventRow::into_record).collect()
    }
}

impl ReadTable for EventTable {
    type Key = str;
    const READS_SIDE_ROWS: bool = false;

    fn load(conn: &mut DbConnection, tenant: &str, id: &str) -> QueryResult<Option<EventRow>> {
        events::table
            .filter(events::tenant_id.eq(tenant))
            .filter(events::id.eq(id))
            .select(EventRow::as_select())
            .first(conn)
            .optional()
    }
}

/// Reads the event log with Diesel.
#[derive(Debug, Clone)]
pub struct DieselEventRepository {
    db: Database,
}

impl DieselEventRepository {
    /// A repository over `db`.
    pub fn new(db: Database) -> DieselEventRepository {
        DieselEventRepository { db }
    }
}

#[async_trait]
impl EventRepository for DieselEventRepository {
    async fn get(
        &self,
        tenant: &TenantId,
        id: &str,
    ) -> Result<Option<EventRecord>, RepositoryError> {
        read_one::<EventTable>(&self.db, tenant.as_str(), id).await
    }

    async fn list_for_entity(
        &self,
        tenant: &TenantId,
        entity_id: &str,
        query: &ListQuery,
    ) -> Result<Page<EventRecord>, RepositoryError> {
        list_page::<EventTable>(&self.db, tenant.as_str(), Some(entity_id), query).await
    }
}
