//! The event log: appended inside each change's transaction (the outbox), read back
//! by [`DieselEventRepository`].

use async_trait::async_trait;
use diesel::prelude::*;
use rics_aip::page_token::CursorValue;
use rics_domain::event::NewEvent;
use rics_domain::event::model::EventRecord;
use rics_domain::event::ports::EventRepository;
use rics_domain::list::{ListQuery, Page};
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_domain::time::Timestamp;

use crate::connection::DbConnection;
use crate::database::Database;
use crate::error::repository_error;
use crate::filter::{Column, FieldMap, ScalarKind, Unset, compile_list};
use crate::paging::load_page;
use crate::rows::internal;
use crate::schema::events;

/// Appends `new_events` for `tenant` in the current transaction.
///
/// # Errors
/// Database failures.
pub fn insert_events(
    conn: &mut DbConnection,
    tenant: &str,
    new_events: &[NewEvent],
) -> QueryResult<()> {
    for event in new_events {
        diesel::insert_into(events::table)
            .values((
                events::tenant_id.eq(tenant),
                events::id.eq(&event.id),
                events::entity_id.eq(event.entity_id.as_deref()),
                events::event_type.eq(&event.event_type),
                events::payload.eq(event.payload.to_string()),
                events::creator.eq(&event.creator),
                events::create_time.eq(event.create_time.unix_micros()),
            ))
            .execute(conn)?;
    }
    Ok(())
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
            create_time: Timestamp::from_unix_micros(self.create_time)
                .ok_or_else(|| internal("event time out of range", self.create_time))?,
            id: self.id,
            entity_id: self.entity_id,
            event_type: self.event_type,
            payload: self.payload,
            creator: self.creator,
        })
    }

    fn sort_value(&self, column: &str) -> Result<CursorValue, RepositoryError> {
        Ok(match column {
            "ev.id" => CursorValue::Text(self.id.clone()),
            "ev.create_time" => CursorValue::Integer(self.create_time),
            other => return Err(internal("no cursor value for sort expression", other)),
        })
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
        let tenant = tenant.as_str().to_owned();
        let id = id.to_owned();
        self.db
            .read(move |conn| {
                events::table
                    .filter(events::tenant_id.eq(&tenant))
                    .filter(events::id.eq(&id))
                    .select(EventRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(repository_error)?
                    .map(EventRow::into_record)
                    .transpose()
            })
            .await
    }

    async fn list_for_entity(
        &self,
        tenant: &TenantId,
        entity_id: &str,
        query: &ListQuery,
    ) -> Result<Page<EventRecord>, RepositoryError> {
        let mut compiled = compile_list(query, &EVENT_FIELDS, tenant.as_str(), None)?;
        compiled.filter.push(" AND ev.entity_id = ").bind(entity_id);
        let query = query.clone();
        self.db
            .read(move |conn| {
                let sort_columns = compiled.sort_columns.clone();
                load_page(
                    conn,
                    "events ev",
                    "ev.*",
                    compiled,
                    &query,
                    |row: EventRow| {
                        let position = sort_columns
                            .iter()
                            .map(|c| row.sort_value(c))
                            .collect::<Result<Vec<_>, _>>()?;
                        Ok((row.into_record()?, position))
                    },
                )
            })
            .await
    }
}
