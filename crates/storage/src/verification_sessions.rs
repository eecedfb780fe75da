//! Verification sessions and the provider callbacks received, over Diesel
//! (`verification_sessions`, `verification_callbacks`).

use async_trait::async_trait;
use diesel::prelude::*;
use rics_domain::event::NewEvent;
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_domain::verification::provider::{Provider, ProviderStatus};
use rics_domain::verification::session::{
    ReceivedCallback, SessionState, VerificationSession, VerificationSessionRepository,
};

use crate::connection::DbConnection;
use crate::database::Database;
use crate::error::repository_error;
use crate::events::{insert_events, outbox};
use crate::rows::timestamp;
use crate::schema::{verification_callbacks as c, verification_sessions as s};

/// One row of `verification_sessions`.
#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = s, treat_none_as_null = true)]
struct SessionRow {
    tenant_id: String,
    id: String,
    provider: String,
    provider_session_id: Option<String>,
    entity_id: Option<String>,
    operation: Option<String>,
    identity_owner: String,
    enrich_entity: bool,
    webhook_uri: Option<String>,
    state: String,
    outcome: Option<String>,
    activity_log: Option<String>,
    create_time: i64,
    expire_time: i64,
    complete_time: Option<i64>,
}

/// A stored value that does not read.
fn unreadable(what: &str, e: impl std::fmt::Display) -> RepositoryError {
    RepositoryError::Internal(format!("stored verification session {what}: {e}"))
}

impl SessionRow {
    fn of(session: &VerificationSession) -> Result<SessionRow, RepositoryError> {
        Ok(SessionRow {
            tenant_id: session.tenant.as_str().to_owned(),
            id: session.id.clone(),
            provider: session.provider.as_str().to_owned(),
            provider_session_id: session.provider_session_id.clone(),
            entity_id: session.entity_id.clone(),
            operation: session.operation.clone(),
            identity_owner: serde_json::to_string(&session.identity_owner)
                .map_err(|e| unreadable("identity owner", e))?,
            enrich_entity: session.enrich_entity,
            webhook_uri: session.webhook_uri.clone(),
            state: session.state.as_str().to_owned(),
            outcome: session
                .outcome
                .as_ref()
                .map(serde_json::to_string)
                .transpose()
                .map_err(|e| unreadable("outcome", e))?,
            activity_log: session.activity_log.clone(),
            create_time: session.create_time.unix_micros(),
            expire_time: session.expire_time.unix_micros(),
            complete_time: session.complete_time.map(|t| t.unix_micros()),
        })
    }

    fn session(self) -> Result<VerificationSession, RepositoryError> {
        Ok(VerificationSession {
            tenant: TenantId::new(self.tenant_id),
            provider: Provider::parse(&self.provider)
                .ok_or_else(|| unreadable("provider", &self.provider))?,
            state: SessionState::parse(&self.state)
                .ok_or_else(|| unreadable("state", &self.state))?,
            identity_owner: serde_json::from_str(&self.identity_owner)
                .map_err(|e| unreadable("identity owner", e))?,
            outcome: self
                .outcome
                .as_deref()
                .map(serde_json::from_str)
                .transpose()
                .map_err(|e| unreadable("outcome", e))?,
            id: self.id,
            provider_session_id: self.provider_session_id,
            entity_id: self.entity_id,
            operation: self.operation,
            enrich_entity: self.enrich_entity,
            webhook_uri: self.webhook_uri,
            activity_log: self.activity_log,
            create_time: timestamp(self.create_time)?,
            expire_time: timestamp(self.expire_time)?,
            complete_time: self.complete_time.map(timestamp).transpose()?,
        })
    }
}

/// Records `callback` of `tenant` unless it was recorded already.
fn insert_callback(
    conn: &mut DbConnection,
    tenant: &str,
    callback: &ReceivedCallback,
) -> Result<(), RepositoryError> {
    let values = (
        c::tenant_id.eq(tenant),
        c::verification_id.eq(&callback.verification_id),
        c::status.eq(callback.status.as_str()),
        c::session_id.eq(&callback.session_id),
        c::receive_time.eq(callback.receive_time.unix_micros()),
        c::body.eq(callback.body.to_string()),
    );
    match conn {
        DbConnection::Postgresql(pg) => diesel::insert_into(c::table)
            .values(values)
            .on_conflict_do_nothing()
            .execute(pg),
        DbConnection::Sqlite(lite) => diesel::insert_or_ignore_into(c::table)
            .values(values)
            .execute(lite),
    }
    .map(|_| ())
    .map_err(repository_error)
}

/// The Diesel store of verification sessions.
#[derive(Debug, Clone)]
pub struct DieselVerificationSessionRepository {
    db: Database,
}

impl DieselVerificationSessionRepository {
    /// A repository over `db`.
    pub fn new(db: Database) -> DieselVerificationSessionRepository {
        DieselVerificationSessionRepository { db }
    }
}

#[async_trait]
impl VerificationSessionRepository for DieselVerificationSessionRepository {
    async fn create(
        &self,
        session: &VerificationSession,
        events: &[NewEvent],
    ) -> Result<(), RepositoryError> {
        let row = SessionRow::of(session)?;
        let events = outbox(events);
        self.db
            .write(move |conn| {
                let exists = s::table
                    .filter(s::tenant_id.eq(&row.tenant_id))
                    .filter(s::id.eq(&row.id))
                    .count()
                    .get_result::<i64>(conn)
                    .map_err(repository_error)?;
                if exists > 0 {
                    return Err(RepositoryError::AlreadyExists);
                }
                diesel::insert_into(s::table)
                    .values(&row)
                    .execute(conn)
                    .map_err(repository_error)?;
                insert_events(conn, &row.tenant_id, events).map_err(repository_error)
            })
            .await
    }

    async fn get(
        &self,
        tenant: &TenantId,
        id: &str,
    ) -> Result<Option<VerificationSession>, RepositoryError> {
        let (tenant, id) = (tenant.as_str().to_owned(), id.to_owned());
        let row: Option<SessionRow> = self
            .db
            .read(move |conn| {
                s::table
                    .filter(s::tenant_id.eq(tenant))
                    .filter(s::id.eq(id))
                    .select(SessionRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(repository_error)
            })
            .await?;
        row.map(SessionRow::session).transpose()
    }

    async fn has_callback(
        &self,
        tenant: &TenantId,
        verification_id: &str,
        status: ProviderStatus,
    ) -> Result<bool, RepositoryError> {
        let (tenant, verification_id) = (tenant.as_str().to_owned(), verification_id.to_owned());
        let count: i64 = self
            .db
            .read(move |conn| {
                c::table
                    .filter(c::tenant_id.eq(tenant))
                    .filter(c::verification_id.eq(verification_id))
                    .filter(c::status.eq(status.as_str()))
                    .count()
                    .get_result(conn)
                    .map_err(repository_error)
            })
            .await?;
        Ok(count > 0)
    }

    async fn update<'a>(
        &self,
        session: &VerificationSession,
        callback: Option<&'a ReceivedCallback>,
        events: &[NewEvent],
    ) -> Result<(), RepositoryError> {
        let row = SessionRow::of(session)?;
        let (callback, events) = (callback.cloned(), outbox(events));
        self.db
            .write(move |conn| {
                let updated = diesel::update(
                    s::table
                        .filter(s::tenant_id.eq(&row.tenant_id))
                        .filter(s::id.eq(&row.id)),
                )
                .set(&row)
                .execute(conn)
                .map_err(repository_error)?;
                if updated == 0 {
                    return Err(RepositoryError::NotFound);
                }
                if let Some(callback) = &callback {
                    insert_callback(conn, &row.tenant_id, callback)?;
                }
                insert_events(conn, &row.tenant_id, events).map_err(repository_error)
            })
            .await
    }
}

/// Removes the verification sessions of the erased entity `entity_id`, and the
/// callbacks received for them; returns how many sessions. Part of an entity's
/// erasure.
pub(crate) fn erase_entity_sessions(
    conn: &mut DbConnection,
    tenant: &str,
    entity_id: &str,
) -> Result<i64, RepositoryError> {
    let ids: Vec<String> = s::table
        .filter(s::tenant_id.eq(tenant))
        .filter(s::entity_id.eq(entity_id))
        .select(s::id)
        .load(conn)
        .map_err(repository_error)?;
    if ids.is_empty() {
        return Ok(0);
    }
    diesel::delete(
        c::table
            .filter(c::tenant_id.eq(tenant))
            .filter(c::session_id.eq_any(&ids)),
    )
    .execute(conn)
    .map_err(repository_error)?;
    let removed = diesel::delete(
        s::table
            .filter(s::tenant_id.eq(tenant))
            .filter(s::id.eq_any(&ids)),
    )
    .execute(conn)
    .map_err(repository_error)?;
    Ok(i64::try_from(removed).unwrap_or(i64::MAX))
}
