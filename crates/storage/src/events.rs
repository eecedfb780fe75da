//! The event log: appended inside each change's transaction (the outbox), read back
//! by [`DieselEventRepository`].

use async_trait::async_trait;
use diesel::prelude::*;
use rics_aip::page_token::CursorValue;
use rics_domain::event::model::EventRecord;
use rics_domain::event::ports::EventRepository;
use rics_domain::event::{DirectDelivery, NewEvent};
use rics_domain::list::{ListQuery, Page};
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_domain::time::Timestamp;
use serde_json::Value;

use crate::connection::DbConnection;
use crate::database::Database;
use crate::filter::{Column, FieldMap, ScalarKind, Unset};
use crate::rows::timestamp;
use crate::schema::events;
use crate::sql::insert_rows;
use crate::store::{ListedTable, ReadTable, list_page, read_one};

/// An event as the outbox writes it: a [`NewEvent`] with its payload already JSON
/// text. Repositories make these from the events they are given before their write,
/// so that the write owns text it moves into the statement rather than a tree of JSON
/// values to copy across to the database thread and drop there (the copies of a batch
/// create's events were a fifth of the import's CPU in rics).
#[derive(Debug)]
pub struct OutboxEvent {
    /// What the outbox's deliveries are queued from.
    pub(crate) header: EventHeader,
    /// The payload as JSON text.
    payload: String,
}

/// What a delivery of an event is queued from: the event without its payload, but
/// with the resource name the payload holds, by which deliveries are ordered.
#[derive(Debug)]
pub(crate) struct EventHeader {
    pub(crate) id: String,
    pub(crate) entity_id: Option<String>,
    pub(crate) event_type: String,
    /// The payload's `resource`, empty when it has none.
    pub(crate) resource: String,
    pub(crate) creator: String,
    pub(crate) create_time: Timestamp,
    /// Where the event is delivered beside the endpoints that subscribe to its type.
    pub(crate) deliver_to: Option<DirectDelivery>,
}

impl From<&NewEvent> for OutboxEvent {
    fn from(event: &NewEvent) -> OutboxEvent {
        OutboxEvent {
            header: EventHeader {
                id: event.id.clone(),
                entity_id: event.entity_id.clone(),
                event_type: event.event_type.clone(),
                resource: event
                    .payload
                    .get("resource")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                creator: event.creator.clone(),
                create_time: event.create_time,
                deliver_to: event.deliver_to.clone(),
            },
            payload: event.payload.to_string(),
        }
    }
}

/// `events` as the outbox writes them, in order.
pub fn outbox<'a>(events: impl IntoIterator<Item = &'a NewEvent>) -> Vec<OutboxEvent> {
    events.into_iter().map(OutboxEvent::from).collect()
}

/// Appends `events` for `tenant` in the current transaction, in multi-row statements
/// (a batch create appends one event per entity), with the webhook deliveries they
/// make (the outbox: both commit or roll back with the change).
///
/// # Errors
/// Database failures.
pub fn insert_events(
    conn: &mut DbConnection,
    tenant: &str,
    events: Vec<OutboxEvent>,
) -> QueryResult<()> {
    let mut headers = Vec::with_capacity(events.len());
    let mut rows = Vec::with_capacity(events.len());
    for OutboxEvent { header, payload } in events {
        rows.push(vec![
            tenant.into(),
            header.id.as_str().into(),
            header.entity_id.clone().into(),
            header.event_type.as_str().into(),
            payload.into(),
            header.creator.as_str().into(),
            header.create_time.unix_micros().into(),
        ]);
        headers.push(header);
    }
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
    crate::webhook_deliveries::queue_deliveries(conn, tenant, &headers)
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
