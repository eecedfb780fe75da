//! Locks that make check-then-write units of work safe on PostgreSQL, whose default
//! isolation (READ COMMITTED) lets two transactions check the same state. On SQLite
//! every write transaction starts with `BEGIN IMMEDIATE` and holds the database's
//! write lock, so writers already run one at a time and these do nothing.
//!
//! Each lock is taken in a statement of its own, before the statements it guards: a
//! later statement of a READ COMMITTED transaction sees everything committed before
//! the lock was granted.

use diesel::RunQueryDsl;
use diesel::connection::SimpleConnection;
use rics_domain::repository::RepositoryError;

use crate::connection::DbConnection;
use crate::error::repository_error;
use crate::sql::Sql;

/// The first key of rics' two-key advisory locks ("rics"); the one-key space holds
/// the migration lock, which two-key locks never meet.
const ADVISORY_CLASS: i64 = 0x7269_6373;

/// Tables a unit of work may lock whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Table {
    /// `tenants`: the first-start bootstrap checks that none exists.
    Tenants,
    /// `signing_keys`: a rotation checks which key is current.
    SigningKeys,
}

/// Locks `table` against other writers until the transaction ends; readers go on.
/// `SHARE ROW EXCLUSIVE` conflicts with itself and with row changes.
pub(crate) fn lock_table(conn: &mut DbConnection, table: Table) -> Result<(), RepositoryError> {
    let name = match table {
        Table::Tenants => "tenants",
        Table::SigningKeys => "signing_keys",
    };
    match conn {
        DbConnection::Postgresql(_) => conn
            .batch_execute(&format!("LOCK TABLE {name} IN SHARE ROW EXCLUSIVE MODE"))
            .map_err(repository_error),
        DbConnection::Sqlite(_) => Ok(()),
    }
}

/// Serialises the changes of one refresh-token family (spend, revoke, store a
/// successor) until the transaction ends.
pub(crate) fn lock_family(conn: &mut DbConnection, family_id: &str) -> Result<(), RepositoryError> {
    match conn {
        DbConnection::Postgresql(_) => {
            let mut sql = Sql::from(&format!(
                "SELECT pg_advisory_xact_lock(CAST({ADVISORY_CLASS} AS INTEGER), hashtext("
            ));
            sql.bind(family_id).push("))");
            sql.execute(conn).map(|_| ()).map_err(repository_error)
        }
        DbConnection::Sqlite(_) => Ok(()),
    }
}
