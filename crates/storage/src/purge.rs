//! The purger's work on every soft-deletable table: find the rows whose purge time has
//! passed, and remove one if it is still due.

use diesel::RunQueryDsl;
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_domain::time::Timestamp;

use crate::connection::DbConnection;
use crate::error::repository_error;
use crate::events::{OutboxEvent, insert_events};
use crate::rows::FoundId;
use crate::sql::Sql;

/// The soft-deleted rows of `table` (a table with `tenant_id` and `purge_time`, whose
/// rows `key` addresses: `t.id`, or a resource name built from the row) whose purge
/// time is before `now`, across tenants, oldest first, at most `limit`.
///
/// # Errors
/// Database failures.
pub(crate) fn find_due(
    conn: &mut DbConnection,
    table: &'static str,
    key: &'static str,
    now: Timestamp,
    limit: u32,
) -> Result<Vec<(TenantId, String)>, RepositoryError> {
    let mut sql = Sql::from(&format!(
        "SELECT t.tenant_id AS tenant_id, {key} AS id FROM {table} t \
         WHERE t.purge_time IS NOT NULL AND t.purge_time < "
    ));
    sql.bind(now.unix_micros())
        .push(" ORDER BY t.purge_time LIMIT ")
        .bind(i64::from(limit));
    let found = sql.load::<FoundId>(conn).map_err(repository_error)?;
    Ok(found
        .into_iter()
        .map(|f| (TenantId::new(f.tenant_id), f.id))
        .collect())
}

/// Removes the row `id` of `table` if it is still soft-deleted with a purge time
/// before `now`, then writes `events`: the condition is part of the DELETE, so a
/// resource undeleted meanwhile (no purge time) stays. Rows that hang off it by
/// foreign key go with it (ON DELETE CASCADE).
///
/// # Errors
/// [`RepositoryError::NotFound`] when it is gone or no longer due; database failures.
pub(crate) fn remove_due(
    conn: &mut DbConnection,
    table: &'static str,
    tenant: &str,
    id: &str,
    now: Timestamp,
    events: Vec<OutboxEvent>,
) -> Result<(), RepositoryError> {
    let mut sql = Sql::from(&format!("DELETE FROM {table} WHERE tenant_id = "));
    sql.bind(tenant)
        .push(" AND id = ")
        .bind(id)
        .push(" AND purge_time < ")
        .bind(now.unix_micros());
    let removed = sql.execute(conn).map_err(repository_error)?;
    if removed == 0 {
        return Err(RepositoryError::NotFound);
    }
    insert_events(conn, tenant, events).map_err(repository_error)
}
