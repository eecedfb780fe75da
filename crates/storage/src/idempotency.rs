//! Idempotency keys (AIP-155), stored in the transaction of the create they guard.

use async_trait::async_trait;
use diesel::prelude::*;
use rics_domain::housekeeping::IdempotencyKeyStore;
use rics_domain::repository::{CreateOutcome, IdempotencyKey, RepositoryError};
use rics_domain::time::Timestamp;

use crate::connection::DbConnection;
use crate::database::Database;
use crate::error::repository_error;
use crate::schema::idempotency_keys;

/// Looks the key up, if the request has one; when it was used before returns the
/// replay outcome, otherwise stores it. Call first in the create's transaction, so a
/// concurrent request with the same id waits on the key and then sees it. Without a
/// key there is nothing to replay.
///
/// # Errors
/// [`RepositoryError::Conflict`] when a concurrent request stored the same key first
/// (retrying the create then replays it); database failures.
pub fn claim(
    conn: &mut DbConnection,
    tenant: &str,
    key: Option<&IdempotencyKey>,
    now: Timestamp,
) -> Result<Option<CreateOutcome>, RepositoryError> {
    let Some(key) = key else {
        return Ok(None);
    };
    if let Some((method, fingerprint, resource_name)) = find(conn, tenant, &key.request_id)? {
        return Ok(Some(CreateOutcome::Replayed {
            method,
            fingerprint,
            resource_name,
        }));
    }
    diesel::insert_into(idempotency_keys::table)
        .values((
            idempotency_keys::tenant_id.eq(tenant),
            idempotency_keys::request_id.eq(&key.request_id),
            idempotency_keys::method.eq(key.method),
            idempotency_keys::fingerprint.eq(&key.fingerprint),
            idempotency_keys::resource_name.eq(&key.resource_name),
            idempotency_keys::create_time.eq(now.unix_micros()),
        ))
        .execute(conn)
        .map_err(|e| match repository_error(e) {
            RepositoryError::AlreadyExists => RepositoryError::Conflict,
            other => other,
        })?;
    Ok(None)
}

/// The method, fingerprint and resource name stored for `request_id`, if it was used.
///
/// # Errors
/// Database failures.
pub fn find(
    conn: &mut DbConnection,
    tenant: &str,
    request_id: &str,
) -> Result<Option<(String, String, String)>, RepositoryError> {
    idempotency_keys::table
        .filter(idempotency_keys::tenant_id.eq(tenant))
        .filter(idempotency_keys::request_id.eq(request_id))
        .select((
            idempotency_keys::method,
            idempotency_keys::fingerprint,
            idempotency_keys::resource_name,
        ))
        .first::<(String, String, String)>(conn)
        .optional()
        .map_err(repository_error)
}

/// Forgets keys created before `before`, across tenants; returns how many.
///
/// # Errors
/// Database failures.
pub fn expire(conn: &mut DbConnection, before: Timestamp) -> Result<u64, RepositoryError> {
    diesel::delete(
        idempotency_keys::table.filter(idempotency_keys::create_time.lt(before.unix_micros())),
    )
    .execute(conn)
    .map(|n| n as u64)
    .map_err(repository_error)
}

/// The idempotency keys of every tenant, for housekeeping.
#[derive(Clone)]
pub struct DieselIdempotencyKeys {
    db: Database,
}

impl DieselIdempotencyKeys {
    /// The keys in `db`.
    pub fn new(db: Database) -> Self {
        Self { db }
    }
}

#[async_trait]
impl IdempotencyKeyStore for DieselIdempotencyKeys {
    async fn expire(&self, before: Timestamp) -> Result<u64, RepositoryError> {
        self.db.write(move |conn| expire(conn, before)).await
    }
}
