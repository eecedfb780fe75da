//! The bridge between async request handlers and synchronous Diesel.
//!
//! Each repository call is one unit of work: wait (bounded) for a permit on a
//! semaphore sized to the pool, then on a blocking thread take a connection, run the
//! whole transaction and return owned data. Nothing awaits inside a transaction and no
//! connection is held across calls. Waiting too long for a permit or a connection is
//! UNAVAILABLE, which clients retry. Connections are not tested when handed out (see
//! [`crate::connection::open_pool`]).

use std::sync::Arc;
use std::time::Duration;

use diesel::Connection;
use diesel::RunQueryDsl;
use diesel::connection::SimpleConnection;
use diesel::connection::{AnsiTransactionManager, TransactionManager};
use diesel::r2d2::{Pool, PooledConnection};
use rics_domain::repository::RepositoryError;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError};

use crate::connection::{Backend, DatabaseUrl, DbConnection, Manager, PoolOptions, open_pool};
use crate::error::{StorageError, repository_error};
use crate::search_index::SearchIndexes;

/// Units of work that found every connection busy and waited for one.
pub const POOL_WAITS: &str = "rics_db_pool_waits_total";
/// Units of work refused because no connection came in time (UNAVAILABLE).
pub const POOL_TIMEOUTS: &str = "rics_db_pool_timeouts_total";

/// A pooled database with the async bridge.
#[derive(Clone)]
pub struct Database {
    pool: Pool<Manager>,
    permits: Arc<Semaphore>,
    size: usize,
    acquire_timeout: Duration,
    backend: Backend,
    search: Arc<SearchIndexes>,
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Database")
            .field("backend", &self.backend)
            .field("available_permits", &self.permits.available_permits())
            .finish()
    }
}

impl Database {
    /// Opens a pool for `url`.
    ///
    /// # Errors
    /// [`StorageError::Configuration`] for a bad URL; [`StorageError::Unavailable`]
    /// when the database cannot be reached.
    pub fn open(url: &str, options: PoolOptions) -> Result<Database, StorageError> {
        let url = DatabaseUrl::parse(url)?;
        let pool = open_pool(&url, options)?;
        let size = usize::try_from(options.max_size).unwrap_or(1).max(1);
        Ok(Database {
            pool,
            permits: Arc::new(Semaphore::new(size)),
            size,
            acquire_timeout: options.acquire_timeout,
            backend: url.backend,
            search: Arc::default(),
        })
    }

    /// Which backend this is.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The in-memory search indexes of this process's lists over this database.
    pub fn search_indexes(&self) -> Arc<SearchIndexes> {
        Arc::clone(&self.search)
    }

    /// Connections held by units of work now (at most the pool size).
    pub fn connections_in_use(&self) -> usize {
        self.size.saturating_sub(self.permits.available_permits())
    }

    /// Runs `work` in a read transaction on a blocking thread.
    ///
    /// # Errors
    /// What `work` returns; [`RepositoryError::Unavailable`] when no connection comes
    /// in time; [`RepositoryError::Internal`] when the work panics.
    pub async fn read<T, F>(&self, work: F) -> Result<T, RepositoryError>
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConnection) -> Result<T, RepositoryError> + Send + 'static,
    {
        self.run(move |conn| transaction(conn, Lock::Deferred, work))
            .await
    }

    /// Runs `work` in a write transaction on a blocking thread. On SQLite the
    /// transaction starts with `BEGIN IMMEDIATE`, so it takes the write lock up front
    /// and waits for it (busy timeout) instead of failing half-way.
    ///
    /// # Errors
    /// As [`Database::read`]; the transaction is rolled back on any error.
    pub async fn write<T, F>(&self, work: F) -> Result<T, RepositoryError>
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConnection) -> Result<T, RepositoryError> + Send + 'static,
    {
        self.run(move |conn| transaction(conn, Lock::Immediate, work))
            .await
    }

    /// Runs `work` with a connection and no transaction: for a single statement (which
    /// is atomic by itself) or statements that manage their own, such as maintenance.
    ///
    /// # Errors
    /// As [`Database::read`].
    pub async fn run<T, F>(&self, work: F) -> Result<T, RepositoryError>
    where
        T: Send + 'static,
        F: FnOnce(&mut DbConnection) -> Result<T, RepositoryError> + Send + 'static,
    {
        let permit = self.permit().await?;
        let pool = self.pool.clone();
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let mut conn = checkout(&pool)?;
            work(&mut conn)
        })
        .await
        .map_err(|e| RepositoryError::Internal(format!("database task failed: {e}")))?
    }

    /// A permit for one connection: at once when one is free, else after a wait
    /// counted in [`POOL_WAITS`] and bounded by the acquire timeout ([`POOL_TIMEOUTS`]).
    async fn permit(&self) -> Result<OwnedSemaphorePermit, RepositoryError> {
        let shutting_down = || RepositoryError::Unavailable("the database is shutting down".into());
        match self.permits.clone().try_acquire_owned() {
            Ok(permit) => return Ok(permit),
            Err(TryAcquireError::Closed) => return Err(shutting_down()),
            Err(TryAcquireError::NoPermits) => metrics::counter!(POOL_WAITS).increment(1),
        }
        match tokio::time::timeout(self.acquire_timeout, self.permits.clone().acquire_owned()).await
        {
            Ok(permit) => permit.map_err(|_| shutting_down()),
            Err(_) => {
                metrics::counter!(POOL_TIMEOUTS).increment(1);
                Err(RepositoryError::Unavailable(
                    "all database connections are busy".into(),
                ))
            }
        }
    }

    /// Housekeeping to run periodically (and at start).
    ///
    /// On SQLite it copies the write-ahead log into the database and truncates it:
    /// under a steady stream of writers the log is never idle long enough to restart
    /// by itself. (SQLite's planner statistics are fixed by a migration: sampled ones
    /// misjudge indexes that lead with tenant_id.)
    ///
    /// On PostgreSQL with autovacuum off it does autovacuum's job for rics' tables:
    /// `VACUUM (ANALYZE)` of the tables changed by more than a fifth since their last
    /// analysis. Without statistics, plans made for empty tables stay cached in pooled
    /// connections (foreign-key checks scanning a tenant's whole index), and without
    /// vacuum no scan can be index-only. With autovacuum on it does nothing.
    ///
    /// # Errors
    /// [`RepositoryError::Unavailable`] when the database stays busy past the timeout.
    pub async fn maintain(&self) -> Result<(), RepositoryError> {
        self.run(|conn| match conn {
            DbConnection::Sqlite(_) => conn
                .batch_execute("PRAGMA wal_checkpoint(TRUNCATE);")
                .map_err(repository_error),
            DbConnection::Postgresql(_) => {
                let stale = diesel::sql_query(
                    "SELECT relname::text AS name FROM pg_stat_user_tables \
                     WHERE schemaname = current_schema() \
                     AND current_setting('autovacuum') = 'off' \
                     AND n_mod_since_analyze > GREATEST(1000, n_live_tup / 5)",
                )
                .load::<TableName>(conn)
                .map_err(repository_error)?;
                for table in stale {
                    let name = table.name.replace('"', "\"\"");
                    conn.batch_execute(&format!("VACUUM (ANALYZE) \"{name}\""))
                        .map_err(repository_error)?;
                }
                Ok(())
            }
        })
        .await
    }

    /// Checks that the database answers a trivial query, for readiness.
    ///
    /// # Errors
    /// [`RepositoryError::Unavailable`] when no connection can be had or the query
    /// fails.
    pub async fn ping(&self) -> Result<(), RepositoryError> {
        self.run(|conn| {
            conn.batch_execute("SELECT 1")
                .map_err(|e| RepositoryError::Unavailable(e.to_string()))
        })
        .await
    }

    /// Runs `work` with a connection on the current thread (for start-up and tools,
    /// outside any async runtime).
    ///
    /// # Errors
    /// What `work` returns, or [`StorageError::Unavailable`] without a connection.
    pub fn blocking<T>(
        &self,
        work: impl FnOnce(&mut DbConnection) -> Result<T, StorageError>,
    ) -> Result<T, StorageError> {
        let mut conn = self
            .pool
            .get()
            .map_err(|e| StorageError::Unavailable(e.to_string()))?;
        work(&mut conn)
    }
}

/// A table name read from the catalog.
#[derive(diesel::QueryableByName)]
struct TableName {
    #[diesel(sql_type = diesel::sql_types::Text)]
    name: String,
}

fn checkout(pool: &Pool<Manager>) -> Result<PooledConnection<Manager>, RepositoryError> {
    pool.get().map_err(|e| {
        metrics::counter!(POOL_TIMEOUTS).increment(1);
        RepositoryError::Unavailable(format!("no database connection: {e}"))
    })
}

/// When a transaction takes SQLite's write lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lock {
    /// For reads: SQLite's plain `BEGIN` (a snapshot from the first read on), and on
    /// PostgreSQL a read-only REPEATABLE READ transaction (one snapshot throughout).
    Deferred,
    /// At once (`BEGIN IMMEDIATE`): for writes, so they wait for the lock (busy
    /// timeout) instead of failing half-way when another writer committed first.
    Immediate,
}

/// Runs `work` in a transaction, committed when it succeeds and rolled back otherwise.
fn transaction<T>(
    conn: &mut DbConnection,
    lock: Lock,
    work: impl FnOnce(&mut DbConnection) -> Result<T, RepositoryError>,
) -> Result<T, RepositoryError> {
    match conn {
        DbConnection::Sqlite(sqlite) if lock == Lock::Immediate => {
            AnsiTransactionManager::begin_transaction_sql(sqlite, "BEGIN IMMEDIATE")
        }
        // One snapshot for every statement of a read (a page and its total agree).
        DbConnection::Postgresql(pg) if lock == Lock::Deferred => {
            AnsiTransactionManager::begin_transaction_sql(
                pg,
                "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY",
            )
        }
        _ => <DbConnection as Connection>::TransactionManager::begin_transaction(conn),
    }
    .map_err(repository_error)?;
    match work(conn) {
        Ok(value) => {
            <DbConnection as Connection>::TransactionManager::commit_transaction(conn)
                .map_err(repository_error)?;
            Ok(value)
        }
        Err(error) => {
            // The work's error is what the caller needs; a failed rollback leaves the
            // connection broken, which the pool detects and discards.
            let _ = <DbConnection as Connection>::TransactionManager::rollback_transaction(conn);
            Err(error)
        }
    }
}
