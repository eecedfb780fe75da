//! Webhook deliveries over Diesel: queued with each event in its own transaction
//! ([`queue_deliveries`], called by [`crate::events::insert_events`]), claimed by
//! workers with a lease and `FOR UPDATE SKIP LOCKED` as job runs are, in order per
//! endpoint and entity.

use std::time::Duration;

use async_trait::async_trait;
use diesel::prelude::*;
use rics_aip::page_token::CursorValue;
use rics_domain::event::DirectDelivery;
use rics_domain::list::{ListQuery, Page};
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_domain::time::Timestamp;
use rics_domain::webhook::delivery::{
    ClaimedDelivery, DeliveryAttempt, DeliveryOutcome, DeliveryRecord, DeliveryRepository,
    DeliveryState, URL_DELIVERIES, subscribes,
};
use rics_domain::webhook::model::SealedSecrets;
use serde_json::Value;

use crate::connection::DbConnection;
use crate::database::Database;
use crate::error::repository_error;
use crate::events::EventHeader;
use crate::filter::{Column, FieldMap, ScalarKind, Unset};
use crate::rows::{internal, timestamp};
use crate::schema::{events, tenant_webhook_secrets, webhook_deliveries, webhook_endpoints};
use crate::sql::Sql;
use crate::store::{ListedTable, list_page};

/// Queues, in the current transaction, a delivery of each of `new_events` to each
/// ENABLED, live endpoint of `tenant` that subscribes to its type, and to the target
/// each event asks for itself ([`EventHeader::deliver_to`]: a URL, or one of the
/// tenant's enabled live endpoints whatever its subscriptions). Nothing is queued for
/// another tenant's endpoints, and nothing survives a rollback.
///
/// # Errors
/// Database failures; a stored endpoint body that does not read back.
pub(crate) fn queue_deliveries(
    conn: &mut DbConnection,
    tenant: &str,
    new_events: &[EventHeader],
) -> QueryResult<()> {
    if new_events.is_empty() {
        return Ok(());
    }
    let endpoints: Vec<(String, String)> = webhook_endpoints::table
        .filter(webhook_endpoints::tenant_id.eq(tenant))
        .filter(webhook_endpoints::state.eq("ENABLED"))
        .filter(webhook_endpoints::delete_time.is_null())
        .select((webhook_endpoints::id, webhook_endpoints::body))
        .load(conn)?;
    let mut subscriptions = Vec::with_capacity(endpoints.len());
    for (endpoint_id, body) in endpoints {
        let body: Value = serde_json::from_str(&body)
            .map_err(|e| diesel::result::Error::DeserializationError(Box::new(e)))?;
        let patterns: Vec<String> = body
            .get("eventTypes")
            .and_then(Value::as_array)
            .map(|types| {
                types
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        subscriptions.push((endpoint_id, patterns));
    }
    for event in new_events {
        let direct = |endpoint_id: &str| matches!(&event.deliver_to, Some(DirectDelivery::Endpoint(id)) if id == endpoint_id);
        for (endpoint_id, _) in subscriptions
            .iter()
            .filter(|(id, patterns)| direct(id) || subscribes(patterns, &event.event_type))
        {
            queue_one(conn, tenant, event, endpoint_id, None)?;
        }
        if let Some(DirectDelivery::Url(url)) = &event.deliver_to {
            queue_one(conn, tenant, event, URL_DELIVERIES, Some(url))?;
        }
    }
    Ok(())
}

/// Queues the delivery of `event` to the endpoint `endpoint_id`, or to `url` under
/// [`URL_DELIVERIES`]. Deliveries to one endpoint are ordered by entity (or resource);
/// those to URLs by URL and entity.
fn queue_one(
    conn: &mut DbConnection,
    tenant: &str,
    event: &EventHeader,
    endpoint_id: &str,
    url: Option<&str>,
) -> QueryResult<()> {
    let resource = event.resource.as_str();
    let entity_or_resource = event.entity_id.as_deref().unwrap_or(resource);
    // Neither entity ids nor resource names hold a space: the first one ends the key.
    let ordering_key = match url {
        Some(url) => format!("{entity_or_resource} {url}"),
        None => entity_or_resource.to_owned(),
    };
    let time = event.create_time.unix_micros();
    diesel::insert_into(webhook_deliveries::table)
        .values((
            webhook_deliveries::tenant_id.eq(tenant),
            webhook_deliveries::endpoint_id.eq(endpoint_id),
            webhook_deliveries::id.eq(&event.id),
            webhook_deliveries::entity_id.eq(event.entity_id.as_deref()),
            webhook_deliveries::ordering_key.eq(ordering_key),
            webhook_deliveries::event_type.eq(&event.event_type),
            webhook_deliveries::resource.eq(resource),
            webhook_deliveries::state.eq(DeliveryState::Pending.as_str()),
            webhook_deliveries::tries.eq(0_i64),
            webhook_deliveries::attempts.eq("[]"),
            webhook_deliveries::run_after.eq(time),
            webhook_deliveries::create_time.eq(time),
            webhook_deliveries::update_time.eq(time),
            webhook_deliveries::url.eq(url),
        ))
        .execute(conn)
        .map(|_| ())
}

/// At the erasure of the entity `entity_id`: removes its finished deliveries (their
/// attempts may echo its data) and empties the attempt log of its pending ones, which
/// go out without the erased event's object (`erased: true`). Returns how many were
/// removed.
///
/// # Errors
/// Database failures.
pub(crate) fn erase_entity_deliveries(
    conn: &mut DbConnection,
    tenant: &str,
    entity_id: &str,
) -> Result<i64, RepositoryError> {
    let of_entity = || {
        webhook_deliveries::table
            .filter(webhook_deliveries::tenant_id.eq(tenant))
            .filter(webhook_deliveries::entity_id.eq(entity_id))
    };
    let removed = diesel::delete(
        of_entity().filter(webhook_deliveries::state.ne(DeliveryState::Pending.as_str())),
    )
    .execute(conn)
    .map_err(repository_error)?;
    diesel::update(of_entity())
        .set(webhook_deliveries::attempts.eq("[]"))
        .execute(conn)
        .map_err(repository_error)?;
    Ok(i64::try_from(removed).unwrap_or(i64::MAX))
}

/// Where the delivery filter fields live.
const DELIVERY_FIELDS: FieldMap = FieldMap {
    alias: "wd",
    tenant_column: "wd.tenant_id",
    id_column: "wd.id",
    fields: &[
        (
            "state",
            Column::Scalar {
                column: "wd.state",
                kind: ScalarKind::Enum,
                unset: Unset::NotNull,
            },
        ),
        (
            "eventType",
            Column::Scalar {
                column: "wd.event_type",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "createTime",
            Column::Scalar {
                column: "wd.create_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
    ],
    fuzzy: &[],
};

/// One row of `webhook_deliveries`.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable)]
#[diesel(table_name = webhook_deliveries)]
pub struct DeliveryRow {
    tenant_id: String,
    endpoint_id: String,
    id: String,
    entity_id: Option<String>,
    event_type: String,
    resource: String,
    state: String,
    tries: i64,
    attempts: String,
    run_after: i64,
    create_time: i64,
    url: Option<String>,
}

impl DeliveryRow {
    fn into_record(self) -> Result<DeliveryRecord, RepositoryError> {
        Ok(DeliveryRecord {
            state: DeliveryState::parse(&self.state)
                .ok_or_else(|| internal("stored delivery state", &self.state))?,
            attempts: serde_json::from_str(&self.attempts)
                .map_err(|e| internal("stored delivery attempts", e))?,
            tries: u32::try_from(self.tries).unwrap_or(u32::MAX),
            run_after: timestamp(self.run_after)?,
            create_time: timestamp(self.create_time)?,
            endpoint_id: self.endpoint_id,
            id: self.id,
            entity_id: self.entity_id,
            event_type: self.event_type,
            resource: self.resource,
            url: self.url,
        })
    }
}

/// The deliveries table, as an endpoint's deliveries are listed.
struct DeliveryTable;

impl ListedTable for DeliveryTable {
    type Resource = DeliveryRecord;
    type Row = DeliveryRow;

    const TABLE: &'static str = "webhook_deliveries";
    const FIELDS: &'static FieldMap = &DELIVERY_FIELDS;
    const PARENT_COLUMN: Option<&'static str> = Some("wd.endpoint_id");
    const SOFT_DELETES: bool = false;

    fn sort_value(row: &DeliveryRow, column: &str) -> Option<CursorValue> {
        match column {
            "wd.id" => Some(CursorValue::Text(row.id.clone())),
            "wd.create_time" => Some(CursorValue::Integer(row.create_time)),
            _ => None,
        }
    }

    fn resources(
        _conn: &mut DbConnection,
        _tenant: &str,
        rows: Vec<DeliveryRow>,
    ) -> Result<Vec<DeliveryRecord>, RepositoryError> {
        rows.into_iter().map(DeliveryRow::into_record).collect()
    }
}

/// Claims up to `limit` ready deliveries under `claim` until `lease_end`: PENDING,
/// due, to a URL or of an enabled live endpoint, and first in line for their endpoint
/// and ordering key. "First in line" compares the queue key (endpoint and ordering
/// key), the expression that `webhook_deliveries_in_order` indexes after tenant_id and
/// no other index has, so the planner probes that index whatever its statistics say
/// (migration 000035).
fn claim_ready(
    conn: &mut DbConnection,
    claim: &str,
    now: Timestamp,
    lease_end: Timestamp,
    limit: u32,
) -> Result<Vec<DeliveryRow>, RepositoryError> {
    let skip_locked = matches!(conn, DbConnection::Postgresql(_));
    let mut sql = Sql::from("UPDATE webhook_deliveries SET claim = ");
    sql.bind(claim)
        .push(", run_after = ")
        .bind(lease_end.unix_micros())
        .push(", update_time = ")
        .bind(now.unix_micros())
        .push(
            " WHERE (tenant_id, endpoint_id, id) IN (SELECT d.tenant_id, d.endpoint_id, d.id \
             FROM webhook_deliveries d LEFT JOIN webhook_endpoints e \
             ON e.tenant_id = d.tenant_id AND e.id = d.endpoint_id \
             WHERE d.state = 'PENDING' \
             AND (d.url IS NOT NULL OR (e.state = 'ENABLED' AND e.delete_time IS NULL)) \
             AND d.run_after <= ",
        )
        .bind(now.unix_micros())
        .push(
            " AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p \
             WHERE p.tenant_id = d.tenant_id \
             AND p.endpoint_id || ' ' || p.ordering_key = d.endpoint_id || ' ' || d.ordering_key \
             AND p.state = 'PENDING' \
             AND (p.create_time < d.create_time \
             OR (p.create_time = d.create_time AND p.id < d.id))) \
             ORDER BY d.run_after LIMIT ",
        )
        .bind(i64::from(limit));
    if skip_locked {
        sql.push(" FOR UPDATE OF d SKIP LOCKED");
    }
    sql.push(
        ") RETURNING tenant_id, endpoint_id, id, entity_id, event_type, resource, state, \
         tries, attempts, run_after, create_time, url",
    );
    sql.load::<DeliveryRow>(conn).map_err(repository_error)
}

/// What sending `row` needs besides the row: the endpoint's URL and secrets (for a
/// delivery to a URL, its own URL and the tenant's secrets, empty before the first is
/// made), and the event's payload (`None` when it was erased).
fn claimed(
    conn: &mut DbConnection,
    row: DeliveryRow,
    claim: &str,
) -> Result<ClaimedDelivery, RepositoryError> {
    let (url, secrets) = match &row.url {
        Some(url) => {
            let secrets = tenant_webhook_secrets::table
                .filter(tenant_webhook_secrets::tenant_id.eq(&row.tenant_id))
                .select((
                    tenant_webhook_secrets::secret,
                    tenant_webhook_secrets::previous_secret,
                    tenant_webhook_secrets::previous_secret_expire_time,
                ))
                .first(conn)
                .optional()
                .map_err(repository_error)?;
            (
                url.clone(),
                secrets.map(sealed).transpose()?.unwrap_or_default(),
            )
        }
        None => {
            let (url, current, previous, expire) = webhook_endpoints::table
                .filter(webhook_endpoints::tenant_id.eq(&row.tenant_id))
                .filter(webhook_endpoints::id.eq(&row.endpoint_id))
                .select((
                    webhook_endpoints::url,
                    webhook_endpoints::secret,
                    webhook_endpoints::previous_secret,
                    webhook_endpoints::previous_secret_expire_time,
                ))
                .first(conn)
                .map_err(repository_error)?;
            (url, sealed((current, previous, expire))?)
        }
    };
    let payload = events::table
        .filter(events::tenant_id.eq(&row.tenant_id))
        .filter(events::id.eq(&row.id))
        .select(events::payload)
        .first::<String>(conn)
        .optional()
        .map_err(repository_error)?;
    let tenant = TenantId::new(row.tenant_id.clone());
    Ok(ClaimedDelivery {
        tenant,
        record: row.into_record()?,
        claim: claim.to_owned(),
        url,
        secrets,
        payload,
    })
}

/// Stored secret columns: the current secret, the previous one and its expiry.
pub(crate) type SecretColumns = (String, Option<String>, Option<i64>);

/// The sealed secrets of stored secret columns.
pub(crate) fn sealed(
    (current, previous, previous_expire_time): SecretColumns,
) -> Result<SealedSecrets, RepositoryError> {
    Ok(SealedSecrets {
        current,
        previous,
        previous_expire_time: previous_expire_time.map(timestamp).transpose()?,
    })
}

/// How many of the endpoint's deliveries that finished since it last changed failed
/// in a row, the latest first, counting at most `limit`.
fn failure_streak(
    conn: &mut DbConnection,
    tenant: &str,
    endpoint_id: &str,
    limit: u32,
) -> Result<u32, RepositoryError> {
    // Deliveries of one endpoint finish concurrently; on PostgreSQL each transaction
    // would count without the others' failures and none would reach the limit. The
    // endpoint's row lock puts them in line, and the count below, a statement after
    // the wait, sees the failures committed before it (SQLite's write lock does this
    // already).
    if matches!(conn, DbConnection::Postgresql(_)) {
        let mut lock = Sql::from("SELECT 1 FROM webhook_endpoints WHERE tenant_id = ");
        lock.bind(tenant)
            .push(" AND id = ")
            .bind(endpoint_id)
            .push(" FOR UPDATE");
        lock.execute(conn).map_err(repository_error)?;
    }
    let since: i64 = webhook_endpoints::table
        .filter(webhook_endpoints::tenant_id.eq(tenant))
        .filter(webhook_endpoints::id.eq(endpoint_id))
        .select(webhook_endpoints::update_time)
        .first(conn)
        .map_err(repository_error)?;
    let latest: Vec<String> = webhook_deliveries::table
        .filter(webhook_deliveries::tenant_id.eq(tenant))
        .filter(webhook_deliveries::endpoint_id.eq(endpoint_id))
        .filter(webhook_deliveries::finish_time.ge(since))
        .order((
            webhook_deliveries::finish_time.desc(),
            webhook_deliveries::id.desc(),
        ))
        .select(webhook_deliveries::state)
        .limit(i64::from(limit))
        .load(conn)
        .map_err(repository_error)?;
    let failed = latest
        .iter()
        .take_while(|state| state.as_str() == DeliveryState::Failed.as_str())
        .count();
    Ok(u32::try_from(failed).unwrap_or(u32::MAX))
}

/// The Diesel delivery repository.
#[derive(Debug, Clone)]
pub struct DieselDeliveryRepository {
    db: Database,
}

impl DieselDeliveryRepository {
    /// A repository over `db`.
    pub fn new(db: Database) -> DieselDeliveryRepository {
        DieselDeliveryRepository { db }
    }
}

/// The row of one delivery.
fn load_one(
    conn: &mut DbConnection,
    tenant: &str,
    endpoint_id: &str,
    id: &str,
) -> Result<Option<DeliveryRecord>, RepositoryError> {
    webhook_deliveries::table
        .filter(webhook_deliveries::tenant_id.eq(tenant))
        .filter(webhook_deliveries::endpoint_id.eq(endpoint_id))
        .filter(webhook_deliveries::id.eq(id))
        .select(DeliveryRow::as_select())
        .first(conn)
        .optional()
        .map_err(repository_error)?
        .map(DeliveryRow::into_record)
        .transpose()
}

#[async_trait]
impl DeliveryRepository for DieselDeliveryRepository {
    async fn claim(
        &self,
        claim: &str,
        now: Timestamp,
        lease: Duration,
        limit: u32,
    ) -> Result<Vec<ClaimedDelivery>, RepositoryError> {
        let claim = claim.to_owned();
        self.db
            .write(move |conn| {
                let rows = claim_ready(conn, &claim, now, now.plus(lease), limit)?;
                rows.into_iter()
                    .map(|row| claimed(conn, row, &claim))
                    .collect()
            })
            .await
    }

    async fn finish(
        &self,
        delivery: &ClaimedDelivery,
        attempt: &DeliveryAttempt,
        outcome: &DeliveryOutcome,
        now: Timestamp,
        streak_limit: u32,
    ) -> Result<Option<u32>, RepositoryError> {
        let (delivery, attempt, outcome) = (delivery.clone(), attempt.clone(), outcome.clone());
        self.db
            .write(move |conn| {
                let tenant = delivery.tenant.as_str();
                let record = &delivery.record;
                let held = webhook_deliveries::table
                    .filter(webhook_deliveries::tenant_id.eq(tenant))
                    .filter(webhook_deliveries::endpoint_id.eq(&record.endpoint_id))
                    .filter(webhook_deliveries::id.eq(&record.id))
                    .filter(webhook_deliveries::claim.eq(&delivery.claim))
                    .filter(webhook_deliveries::state.eq(DeliveryState::Pending.as_str()));
                let Some(attempts) = held
                    .select(webhook_deliveries::attempts)
                    .first::<String>(conn)
                    .optional()
                    .map_err(repository_error)?
                else {
                    return Ok(None);
                };
                let mut attempts: Vec<DeliveryAttempt> = serde_json::from_str(&attempts)
                    .map_err(|e| internal("stored delivery attempts", e))?;
                attempts.push(attempt);
                let attempts = serde_json::to_string(&attempts)
                    .map_err(|e| internal("delivery attempts to JSON", e))?;
                let (state, run_after, finish_time) = match outcome {
                    DeliveryOutcome::Delivered => (DeliveryState::Succeeded, now, Some(now)),
                    DeliveryOutcome::Retry { at } => (DeliveryState::Pending, at, None),
                    DeliveryOutcome::Failed => (DeliveryState::Failed, now, Some(now)),
                    DeliveryOutcome::Gone => (DeliveryState::Pending, now, None),
                };
                diesel::update(held)
                    .set((
                        webhook_deliveries::state.eq(state.as_str()),
                        webhook_deliveries::tries.eq(i64::from(record.tries) + 1),
                        webhook_deliveries::attempts.eq(attempts),
                        webhook_deliveries::run_after.eq(run_after.unix_micros()),
                        webhook_deliveries::claim.eq(None::<String>),
                        webhook_deliveries::update_time.eq(now.unix_micros()),
                        webhook_deliveries::finish_time.eq(finish_time.map(Timestamp::unix_micros)),
                    ))
                    .execute(conn)
                    .map_err(repository_error)?;
                let streak = if state == DeliveryState::Failed && record.url.is_none() {
                    failure_streak(conn, tenant, &record.endpoint_id, streak_limit)?
                } else {
                    0
                };
                Ok(Some(streak))
            })
            .await
    }

    async fn get(
        &self,
        tenant: &TenantId,
        endpoint_id: &str,
        id: &str,
    ) -> Result<Option<DeliveryRecord>, RepositoryError> {
        let (tenant, endpoint_id, id) = (
            tenant.as_str().to_owned(),
            endpoint_id.to_owned(),
            id.to_owned(),
        );
        self.db
            .read(move |conn| load_one(conn, &tenant, &endpoint_id, &id))
            .await
    }

    async fn list(
        &self,
        tenant: &TenantId,
        endpoint_id: &str,
        query: &ListQuery,
    ) -> Result<Page<DeliveryRecord>, RepositoryError> {
        list_page::<DeliveryTable>(&self.db, tenant.as_str(), Some(endpoint_id), query).await
    }

    async fn redeliver(
        &self,
        tenant: &TenantId,
        endpoint_id: &str,
        id: &str,
        now: Timestamp,
    ) -> Result<Option<DeliveryRecord>, RepositoryError> {
        let (tenant, endpoint_id, id) = (
            tenant.as_str().to_owned(),
            endpoint_id.to_owned(),
            id.to_owned(),
        );
        self.db
            .write(move |conn| {
                diesel::update(
                    webhook_deliveries::table
                        .filter(webhook_deliveries::tenant_id.eq(&tenant))
                        .filter(webhook_deliveries::endpoint_id.eq(&endpoint_id))
                        .filter(webhook_deliveries::id.eq(&id)),
                )
                .set((
                    webhook_deliveries::state.eq(DeliveryState::Pending.as_str()),
                    webhook_deliveries::tries.eq(0_i64),
                    webhook_deliveries::run_after.eq(now.unix_micros()),
                    webhook_deliveries::claim.eq(None::<String>),
                    webhook_deliveries::update_time.eq(now.unix_micros()),
                    webhook_deliveries::finish_time.eq(None::<i64>),
                ))
                .execute(conn)
                .map_err(repository_error)?;
                load_one(conn, &tenant, &endpoint_id, &id)
            })
            .await
    }

    async fn purge_finished(&self, cutoff: Timestamp, limit: u32) -> Result<u64, RepositoryError> {
        self.db
            .write(move |conn| {
                let mut sql = Sql::from(
                    "DELETE FROM webhook_deliveries WHERE (tenant_id, endpoint_id, id) IN \
                     (SELECT tenant_id, endpoint_id, id FROM webhook_deliveries \
                     WHERE finish_time < ",
                );
                sql.bind(cutoff.unix_micros())
                    .push(" ORDER BY finish_time LIMIT ")
                    .bind(i64::from(limit))
                    .push(")");
                let removed = sql.execute(conn).map_err(repository_error)?;
                Ok(u64::try_from(removed).unwrap_or(u64::MAX))
            })
            .await
    }
}
