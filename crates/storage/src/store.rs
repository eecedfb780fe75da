//! The standard methods of a stored resource ([`ResourceStore`]) written once:
//! [`DieselStore`] runs them over the table a [`StoredTable`] declares, so that each
//! repository says only what is special about its resource (its row, its side rows, a
//! parent that must exist, rows removed with it) and every resource gets the same
//! transactions, idempotency replay, revision check and purge.

use std::borrow::Borrow;
use std::collections::{HashMap, HashSet};
use std::marker::PhantomData;
use std::sync::Arc;

use async_trait::async_trait;
use diesel::deserialize;
use diesel::row::NamedRow;
use diesel::sql_types::{BigInt, Text};
use diesel::{QueryResult, QueryableByName, RunQueryDsl};
use rics_aip::filter::Condition;
use rics_aip::page_token::CursorValue;
use rics_domain::event::NewEvent;
use rics_domain::list::{ListQuery, Page, SortBy, SortKey};
use rics_domain::principal::TenantId;
use rics_domain::repository::{CreateOutcome, IdempotencyKey, RepositoryError, ResourceStore};
use rics_domain::time::Timestamp;

use crate::connection::{Db, DbConnection};
use crate::database::Database;
use crate::error::{repository_error, revision_missed};
use crate::events::{OutboxEvent, insert_events, outbox};
use crate::filter::{FieldMap, RELEVANCE, Searched, compile_list, facet_filter};
use crate::idempotency;
use crate::paging::load_page;
use crate::rows::{internal, timestamp};
use crate::search_index::{ChangeLog, FacetFilter, Listed, Span, TenantIndex, Window};
use crate::sql::{Bind, ROWS_PER_INSERT, Sql};

/// How many ids one `IN` list of [`DieselStore::read_many`] holds.
const CHUNK: usize = 500;

/// What [`DieselStore`] needs to know of one soft-deletable resource table (with
/// `tenant_id`, `id`, `revision`, `create_time`, `delete_time` and `purge_time`
/// columns): its row and how the resource maps to it, and hooks for what the resource
/// does beyond its row. Hooks run in the transaction of the method that calls them.
pub trait StoredTable: Sized + Send + Sync + 'static {
    /// The resource stored.
    type Resource: Clone + Send + Sync + 'static;
    /// One row of the table, read by column name (lists select `alias.*`).
    type Row: QueryableByName<Db> + Send + 'static;

    /// The table's name in SQL.
    const TABLE: &'static str;
    /// Where the list filter fields live; its alias names the table in list queries.
    const FIELDS: &'static FieldMap;
    /// The column a list within a parent compares with the parent's resource name;
    /// `None` when the resource has no parent and lists ignore it.
    const PARENT_COLUMN: Option<&'static str> = None;
    /// Whether reading a resource reads side rows besides its row: a get then runs in
    /// a read transaction, so that both come from one snapshot (a single statement
    /// needs none).
    const READS_SIDE_ROWS: bool = false;
    /// Whether the table has `delete_time` and `purge_time` columns: lists then leave
    /// out deleted rows unless asked for them. A table without them (a resource that
    /// is never deleted) lists every row, and none of its rows is ever due for purge.
    const SOFT_DELETES: bool = true;
    /// What the purger's list of due rows calls each (`t` names the table): its id, or,
    /// for a resource under a parent, which its store addresses by name, an SQL
    /// expression of its name.
    const PURGE_KEY: &'static str = "t.id";

    /// The row storing `resource` for `tenant`.
    ///
    /// # Errors
    /// [`RepositoryError::Internal`] when the resource does not serialize.
    fn row(tenant: &TenantId, resource: &Self::Resource) -> Result<Self::Row, RepositoryError>;

    /// The id of the resource `row` stores.
    fn row_id(row: &Self::Row) -> &str;

    /// The creation time of `row`, in stored microseconds: the time an idempotency
    /// key of its create is stored with.
    fn create_time(row: &Self::Row) -> i64;

    /// The value of `row` for the sort expression `column` (a column of
    /// [`StoredTable::FIELDS`]), for page cursors; `None` for a column it cannot sort
    /// by.
    fn sort_value(row: &Self::Row, column: &str) -> Option<CursorValue>;

    /// The resources of `rows`, in order, with what their side rows hold.
    ///
    /// # Errors
    /// Database failures; [`RepositoryError::Internal`] for stored data that does not
    /// read back.
    fn resources(
        conn: &mut DbConnection,
        tenant: &str,
        rows: Vec<Self::Row>,
    ) -> Result<Vec<Self::Resource>, RepositoryError>;

    /// Inserts `rows` in multi-row statements; returns how many rows it wrote.
    /// Usually written by [`row_statements!`].
    ///
    /// # Errors
    /// Database failures (a unique violation when an id is taken).
    fn insert(conn: &mut DbConnection, rows: Vec<&Self::Row>) -> QueryResult<usize>;

    /// The row of `id` in `tenant`, if any. Usually written by [`row_statements!`].
    ///
    /// # Errors
    /// Database failures.
    fn load(conn: &mut DbConnection, tenant: &str, id: &str) -> QueryResult<Option<Self::Row>>;

    /// Overwrites the stored row with `row` if its revision is still
    /// `expected_revision`; returns how many rows it changed (0 or 1). Usually written
    /// by [`row_statements!`].
    ///
    /// # Errors
    /// Database failures.
    fn update(
        conn: &mut DbConnection,
        row: &Self::Row,
        expected_revision: i64,
    ) -> QueryResult<usize>;

    /// The resource `id` of `tenant`, if any: its row and what [`StoredTable::resources`]
    /// adds. A table whose side rows one statement can read with the row overrides it
    /// (and leaves [`StoredTable::READS_SIDE_ROWS`] false).
    ///
    /// # Errors
    /// Database failures; [`RepositoryError::Internal`] for stored data that does not
    /// read back.
    fn load_resource(
        conn: &mut DbConnection,
        tenant: &str,
        id: &str,
    ) -> Result<Option<Self::Resource>, RepositoryError> {
        let row = Self::load(conn, tenant, id).map_err(repository_error)?;
        with_side_rows::<Self>(conn, tenant, row)
    }

    /// The stored version of the resource `row` stores, if any: after a write of `row`
    /// missed, it tells a resource that is gone from one that changed. By default
    /// [`StoredTable::load`] of its id.
    ///
    /// # Errors
    /// Database failures.
    fn reload(
        conn: &mut DbConnection,
        tenant: &str,
        row: &Self::Row,
    ) -> QueryResult<Option<Self::Row>> {
        Self::load(conn, tenant, Self::row_id(row))
    }

    /// Deletes the stored row of `row`'s resource if its revision is still the one
    /// `row` has; returns how many rows it removed (0 or 1). Only a resource removed
    /// when deleted (not [`StoredTable::SOFT_DELETES`]) has it, written by
    /// `row_statements!(table, parent)`; soft-deleted rows are never removed so, and by
    /// default refused.
    ///
    /// # Errors
    /// Database failures; for soft-deleted rows, always.
    fn remove(_conn: &mut DbConnection, _row: &Self::Row) -> QueryResult<usize> {
        Err(diesel::result::Error::QueryBuilderError(
            format!("{} rows are soft-deleted, never removed", Self::TABLE).into(),
        ))
    }

    /// Checks what a new resource needs before it is inserted (after its idempotency
    /// key is claimed), such as a parent that must exist.
    ///
    /// # Errors
    /// The repository error the create fails with.
    fn before_insert(
        _conn: &mut DbConnection,
        _tenant: &str,
        _resource: &Self::Resource,
    ) -> Result<(), RepositoryError> {
        Ok(())
    }

    /// Inserts new resources, each with the row storing it: checks each
    /// ([`StoredTable::before_insert`]), inserts the rows in multi-row statements and
    /// writes their side rows ([`StoredTable::write_new_side_rows`]). Every create runs
    /// it, a single create with one resource; a table whose rows another way writes
    /// faster overrides it.
    ///
    /// # Errors
    /// What [`StoredTable::before_insert`] and [`StoredTable::write_new_side_rows`]
    /// refuse; database failures (a unique violation when an id is taken).
    fn insert_new(
        conn: &mut DbConnection,
        tenant: &str,
        new: &[(Self::Resource, Self::Row)],
    ) -> Result<(), RepositoryError> {
        for (resource, _) in new {
            Self::before_insert(conn, tenant, resource)?;
        }
        Self::insert(conn, new.iter().map(|(_, row)| row).collect()).map_err(repository_error)?;
        Self::write_new_side_rows(conn, tenant, new)
    }

    /// Writes the side rows of new resources after [`StoredTable::insert_new`]
    /// inserted their rows: each as [`StoredTable::write_side_rows`] writes it. A
    /// table whose resources are created many at a time (the records a batch of job
    /// runs ends with) overrides it with statements that write many owners' rows each.
    ///
    /// # Errors
    /// The repository error the create fails with.
    fn write_new_side_rows(
        conn: &mut DbConnection,
        _tenant: &str,
        new: &[(Self::Resource, Self::Row)],
    ) -> Result<(), RepositoryError> {
        for (resource, row) in new {
            Self::write_side_rows(conn, resource, row, Write::Insert)?;
        }
        Ok(())
    }

    /// Writes the side rows of the resource `row` now stores, after `write` inserted
    /// or updated it.
    ///
    /// # Errors
    /// The repository error the create or update fails with.
    fn write_side_rows(
        _conn: &mut DbConnection,
        _resource: &Self::Resource,
        _row: &Self::Row,
        _write: Write,
    ) -> Result<(), RepositoryError> {
        Ok(())
    }

    /// Removes what goes with a purged resource and is not removed by a foreign key
    /// (`ON DELETE CASCADE` takes the rest).
    ///
    /// # Errors
    /// The repository error the purge fails with.
    fn purged(_conn: &mut DbConnection, _tenant: &str, _id: &str) -> Result<(), RepositoryError> {
        Ok(())
    }

    /// Removes the resource `id` if it is still soft-deleted with a purge time before
    /// `now`, with what goes with it ([`StoredTable::purged`]), then writes `events`. A
    /// resource whose removal reaches beyond its own rows overrides it.
    ///
    /// # Errors
    /// [`RepositoryError::NotFound`] when it is gone or no longer due; the repository
    /// error the purge fails with.
    fn remove_due(
        conn: &mut DbConnection,
        tenant: &str,
        id: &str,
        now: Timestamp,
        events: Vec<OutboxEvent>,
    ) -> Result<(), RepositoryError> {
        crate::purge::remove_due(conn, Self::TABLE, tenant, id, now, events)?;
        Self::purged(conn, tenant, id)
    }
}

/// Overwrites the stored row with `row` if its revision is still `expected_revision`.
///
/// # Errors
/// [`RepositoryError::NotFound`] when the row is gone; [`RepositoryError::Conflict`]
/// when its revision changed; database failures.
pub(crate) fn overwrite<T: StoredTable>(
    conn: &mut DbConnection,
    tenant: &str,
    row: &T::Row,
    expected_revision: i64,
) -> Result<(), RepositoryError> {
    if T::update(conn, row, expected_revision).map_err(repository_error)? == 0 {
        let stored = T::reload(conn, tenant, row).map_err(repository_error)?;
        return Err(revision_missed(stored));
    }
    Ok(())
}

/// Which write of the main row [`StoredTable::write_side_rows`] follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write {
    /// A create inserted it.
    Insert,
    /// An update overwrote it.
    Update,
}

/// Writes, inside an `impl StoredTable`, the functions Diesel types by table: `insert`,
/// `load` and `update` of rows of the Diesel table `$table`, and `row_id` and
/// `create_time`. The row type must be `Selectable` and `Insertable` for the table and
/// have `tenant_id`, `id` and `create_time` fields; the caller imports
/// `diesel::prelude::*`. `update` writes the whole row, which must then be
/// `AsChangeset`; with `updates(column, ...)` it writes only those columns (of a
/// resource whose other columns never change).
///
/// `row_statements!(table, parent)` is for a resource under a parent, whose row also has
/// a `parent` field (the parent's name) and whose store addresses it by its name: its
/// `load` reads the resource so named, `reload` the one a row stores, `update` and
/// `remove` (which it writes) address the row by parent and id (the resource must be
/// `Parented`, its row `AsChangeset`).
macro_rules! row_statements {
    ($table:ident) => {
        $crate::store::row_statements!(@ $table, row, row);
    };
    ($table:ident, updates($($column:ident),+)) => {
        $crate::store::row_statements!(@ $table, row, ($($table::$column.eq(&row.$column)),+,));
    };
    ($table:ident, parent) => {
        $crate::store::row_statements!(@rows $table, row);

        fn load(
            conn: &mut $crate::connection::DbConnection,
            tenant: &str,
            name: &str,
        ) -> diesel::QueryResult<Option<Self::Row>> {
            let Some((parent, id)) =
                <Self::Resource as rics_domain::resource::Parented>::parent_and_id(name)
            else {
                return Ok(None);
            };
            $table::table
                .filter($table::tenant_id.eq(tenant))
                .filter($table::parent.eq(parent))
                .filter($table::id.eq(id))
                .select(<Self::Row>::as_select())
                .first(conn)
                .optional()
        }

        fn reload(
            conn: &mut $crate::connection::DbConnection,
            tenant: &str,
            row: &Self::Row,
        ) -> diesel::QueryResult<Option<Self::Row>> {
            let name = <Self::Resource as rics_domain::resource::Parented>::name_in(&row.parent, &row.id);
            Self::load(conn, tenant, &name)
        }

        fn update(
            conn: &mut $crate::connection::DbConnection,
            row: &Self::Row,
            expected_revision: i64,
        ) -> diesel::QueryResult<usize> {
            diesel::update(
                $table::table
                    .filter($table::tenant_id.eq(&row.tenant_id))
                    .filter($table::parent.eq(&row.parent))
                    .filter($table::id.eq(&row.id))
                    .filter($table::revision.eq(expected_revision)),
            )
            .set(row)
            .execute(conn)
        }

        fn remove(
            conn: &mut $crate::connection::DbConnection,
            row: &Self::Row,
        ) -> diesel::QueryResult<usize> {
            diesel::delete(
                $table::table
                    .filter($table::tenant_id.eq(&row.tenant_id))
                    .filter($table::parent.eq(&row.parent))
                    .filter($table::id.eq(&row.id))
                    .filter($table::revision.eq(row.revision)),
            )
            .execute(conn)
        }
    };
    // `$row` names the row in `$changes`, what `update` sets.
    (@ $table:ident, $row:ident, $changes:expr) => {
        $crate::store::row_statements!(@rows $table, $row);

        fn load(
            conn: &mut $crate::connection::DbConnection,
            tenant: &str,
            id: &str,
        ) -> diesel::QueryResult<Option<Self::Row>> {
            $table::table
                .filter($table::tenant_id.eq(tenant))
                .filter($table::id.eq(id))
                .select(<Self::Row>::as_select())
                .first(conn)
                .optional()
        }

        fn update(
            conn: &mut $crate::connection::DbConnection,
            $row: &Self::Row,
            expected_revision: i64,
        ) -> diesel::QueryResult<usize> {
            diesel::update(
                $table::table
                    .filter($table::tenant_id.eq(&$row.tenant_id))
                    .filter($table::id.eq(&$row.id))
                    .filter($table::revision.eq(expected_revision)),
            )
            .set($changes)
            .execute(conn)
        }
    };
    // What every table's statements share: its id, its creation time and its insert.
    (@rows $table:ident, $row:ident) => {
        fn row_id($row: &Self::Row) -> &str {
            &$row.id
        }

        fn create_time($row: &Self::Row) -> i64 {
            $row.create_time
        }

        fn insert(
            conn: &mut $crate::connection::DbConnection,
            rows: Vec<&Self::Row>,
        ) -> diesel::QueryResult<usize> {
            // Diesel's connection over both backends has no multi-row insert; each
            // backend's own has.
            let mut written = 0;
            for chunk in rows.chunks($crate::sql::ROWS_PER_INSERT) {
                let insert = diesel::insert_into($table::table).values(chunk.to_vec());
                written += match conn {
                    $crate::connection::DbConnection::Postgresql(pg) => insert.execute(pg),
                    $crate::connection::DbConnection::Sqlite(lite) => insert.execute(lite),
                }?;
            }
            Ok(written)
        }
    };
}
pub(crate) use row_statements;

/// Writes `impl $port for DieselStore<$table>` for a resource whose port is a trait of
/// its own rather than [`ResourceStore`]: the methods named in `standard [...]` are
/// the store's ([`ResourceStore`]'s, `list` without a parent, `update_lifecycle` as
/// `update`, `get_many` as [`DieselStore::read_many`]), and the port's own methods
/// follow as written.
macro_rules! port_over_store {
    (impl $port:ident for $table:ident { standard [$($method:ident),*] $($own:tt)* }) => {
        $crate::store::port_over_store!(@ $port $table {$($own)*} [] $($method)*);
    };
    // Then one method at a time: `$own` holds the port's own methods, `[...]` the
    // standard ones written so far, and the names after it those still to write.
    (@ $port:ident $table:ident {$($own:tt)*} [$($done:tt)*]) => {
        #[::async_trait::async_trait]
        impl $port for $crate::store::DieselStore<$table> {
            $($done)*
            $($own)*
        }
    };
    (@ $port:ident $table:ident $own:tt [$($done:tt)*] create $($rest:ident)*) => {
        $crate::store::port_over_store!(@ $port $table $own [$($done)*
            async fn create<'a>(
                &self,
                tenant: &::rics_domain::principal::TenantId,
                resource: &<$table as $crate::store::StoredTable>::Resource,
                key: Option<&'a ::rics_domain::repository::IdempotencyKey>,
                events: &[::rics_domain::event::NewEvent],
            ) -> Result<
                ::rics_domain::repository::CreateOutcome,
                ::rics_domain::repository::RepositoryError,
            > {
                ::rics_domain::repository::ResourceStore::create(
                    self,
                    tenant,
                    resource,
                    key,
                    events,
                )
                .await
            }
        ] $($rest)*);
    };
    (@ $port:ident $table:ident $own:tt [$($done:tt)*] get $($rest:ident)*) => {
        $crate::store::port_over_store!(@ $port $table $own [$($done)*
            async fn get(
                &self,
                tenant: &::rics_domain::principal::TenantId,
                id: &str,
            ) -> Result<
                Option<<$table as $crate::store::StoredTable>::Resource>,
                ::rics_domain::repository::RepositoryError,
            > {
                ::rics_domain::repository::ResourceStore::get(self, tenant, id).await
            }
        ] $($rest)*);
    };
    (@ $port:ident $table:ident $own:tt [$($done:tt)*] get_many $($rest:ident)*) => {
        $crate::store::port_over_store!(@ $port $table $own [$($done)*
            async fn get_many(
                &self,
                tenant: &::rics_domain::principal::TenantId,
                ids: &[String],
            ) -> Result<
                Vec<<$table as $crate::store::StoredTable>::Resource>,
                ::rics_domain::repository::RepositoryError,
            > {
                self.read_many(tenant, ids).await
            }
        ] $($rest)*);
    };
    (@ $port:ident $table:ident $own:tt [$($done:tt)*] list $($rest:ident)*) => {
        $crate::store::port_over_store!(@ $port $table $own [$($done)*
            async fn list(
                &self,
                tenant: &::rics_domain::principal::TenantId,
                query: &::rics_domain::list::ListQuery,
            ) -> Result<
                ::rics_domain::list::Page<<$table as $crate::store::StoredTable>::Resource>,
                ::rics_domain::repository::RepositoryError,
            > {
                ::rics_domain::repository::ResourceStore::list(self, tenant, None, query).await
            }
        ] $($rest)*);
    };
    (@ $port:ident $table:ident $own:tt $done:tt update $($rest:ident)*) => {
        $crate::store::port_over_store!(@update update $port $table $own $done $($rest)*);
    };
    (@ $port:ident $table:ident $own:tt $done:tt update_lifecycle $($rest:ident)*) => {
        $crate::store::port_over_store!(@update update_lifecycle $port $table $own $done $($rest)*);
    };
    (@update $name:ident $port:ident $table:ident $own:tt [$($done:tt)*] $($rest:ident)*) => {
        $crate::store::port_over_store!(@ $port $table $own [$($done)*
            async fn $name(
                &self,
                tenant: &::rics_domain::principal::TenantId,
                resource: &<$table as $crate::store::StoredTable>::Resource,
                expected_revision: i64,
                events: &[::rics_domain::event::NewEvent],
            ) -> Result<(), ::rics_domain::repository::RepositoryError> {
                ::rics_domain::repository::ResourceStore::update(
                    self,
                    tenant,
                    resource,
                    expected_revision,
                    events,
                )
                .await
            }
        ] $($rest)*);
    };
    (@ $port:ident $table:ident $own:tt [$($done:tt)*] find_purge_due $($rest:ident)*) => {
        $crate::store::port_over_store!(@ $port $table $own [$($done)*
            async fn find_purge_due(
                &self,
                now: ::rics_domain::time::Timestamp,
                limit: u32,
            ) -> Result<
                Vec<(::rics_domain::principal::TenantId, String)>,
                ::rics_domain::repository::RepositoryError,
            > {
                ::rics_domain::repository::ResourceStore::find_purge_due(self, now, limit).await
            }
        ] $($rest)*);
    };
    (@ $port:ident $table:ident $own:tt [$($done:tt)*] purge $($rest:ident)*) => {
        $crate::store::port_over_store!(@ $port $table $own [$($done)*
            async fn purge(
                &self,
                tenant: &::rics_domain::principal::TenantId,
                id: &str,
                now: ::rics_domain::time::Timestamp,
                events: &[::rics_domain::event::NewEvent],
            ) -> Result<(), ::rics_domain::repository::RepositoryError> {
                ::rics_domain::repository::ResourceStore::purge(self, tenant, id, now, events).await
            }
        ] $($rest)*);
    };
}
pub(crate) use port_over_store;

/// What the standard List reads of a table: its rows, where its filter fields live,
/// and how rows become resources. Every [`StoredTable`] is one; so are the tables whose
/// rows are written by methods of their own (immutable versions, the append-only event
/// log, provisioned tenants), which [`list_page`] lists the same way.
pub trait ListedTable: Send + Sync + 'static {
    /// The resource listed.
    type Resource: Send + 'static;
    /// One row of the table, read by column name (lists select `alias.*`).
    type Row: QueryableByName<Db> + Send + 'static;

    /// The table's name in SQL.
    const TABLE: &'static str;
    /// Where the list filter fields live; its alias names the table in list queries,
    /// and its tenant column is what a list is scoped by.
    const FIELDS: &'static FieldMap;
    /// The column a list within a parent compares with the parent it is given;
    /// `None` when lists ignore the parent.
    const PARENT_COLUMN: Option<&'static str>;
    /// Whether rows are soft-deleted (a `delete_time` column), so that lists leave out
    /// the deleted ones unless they are asked for.
    const SOFT_DELETES: bool;

    /// The value of `row` for the sort expression `column` (a column of
    /// [`ListedTable::FIELDS`]), for page cursors; `None` for a column it cannot sort
    /// by.
    fn sort_value(row: &Self::Row, column: &str) -> Option<CursorValue>;

    /// The resources of `rows`, in order, with what their side rows hold.
    ///
    /// # Errors
    /// Database failures; [`RepositoryError::Internal`] for stored data that does not
    /// read back.
    fn resources(
        conn: &mut DbConnection,
        tenant: &str,
        rows: Vec<Self::Row>,
    ) -> Result<Vec<Self::Resource>, RepositoryError>;
}

/// What the standard Get reads of a table: one row of a tenant by its key.
pub trait ReadTable: ListedTable {
    /// What a row is found by within its tenant (`str` for an id, `i64` for a
    /// version number).
    type Key: ?Sized + ToOwned + Sync;
    /// Whether reading a resource reads side rows besides its row: a get then runs in
    /// a read transaction, so that both come from one snapshot.
    const READS_SIDE_ROWS: bool;

    /// The row of `key` in `tenant`, if any.
    ///
    /// # Errors
    /// Database failures.
    fn load(
        conn: &mut DbConnection,
        tenant: &str,
        key: &Self::Key,
    ) -> QueryResult<Option<Self::Row>>;

    /// The resource of `key` in `tenant`, if any: its row and what
    /// [`ListedTable::resources`] adds.
    ///
    /// # Errors
    /// Database failures; [`RepositoryError::Internal`] for stored data that does not
    /// read back.
    fn load_resource(
        conn: &mut DbConnection,
        tenant: &str,
        key: &Self::Key,
    ) -> Result<Option<Self::Resource>, RepositoryError> {
        let row = Self::load(conn, tenant, key).map_err(repository_error)?;
        with_side_rows::<Self>(conn, tenant, row)
    }
}

/// The resource of `row`, if any, with what its side rows hold.
fn with_side_rows<T: ListedTable + ?Sized>(
    conn: &mut DbConnection,
    tenant: &str,
    row: Option<T::Row>,
) -> Result<Option<T::Resource>, RepositoryError> {
    let Some(row) = row else {
        return Ok(None);
    };
    Ok(T::resources(conn, tenant, vec![row])?.pop())
}

impl<T: StoredTable> ListedTable for T {
    type Resource = <T as StoredTable>::Resource;
    type Row = <T as StoredTable>::Row;

    const TABLE: &'static str = <T as StoredTable>::TABLE;
    const FIELDS: &'static FieldMap = <T as StoredTable>::FIELDS;
    const PARENT_COLUMN: Option<&'static str> = <T as StoredTable>::PARENT_COLUMN;
    const SOFT_DELETES: bool = <T as StoredTable>::SOFT_DELETES;

    fn sort_value(row: &<T as StoredTable>::Row, column: &str) -> Option<CursorValue> {
        <T as StoredTable>::sort_value(row, column)
    }

    fn resources(
        conn: &mut DbConnection,
        tenant: &str,
        rows: Vec<<T as StoredTable>::Row>,
    ) -> Result<Vec<<T as StoredTable>::Resource>, RepositoryError> {
        <T as StoredTable>::resources(conn, tenant, rows)
    }
}

impl<T: StoredTable> ReadTable for T {
    type Key = str;
    const READS_SIDE_ROWS: bool = <T as StoredTable>::READS_SIDE_ROWS;

    fn load(
        conn: &mut DbConnection,
        tenant: &str,
        id: &str,
    ) -> QueryResult<Option<<T as StoredTable>::Row>> {
        <T as StoredTable>::load(conn, tenant, id)
    }

    fn load_resource(
        conn: &mut DbConnection,
        tenant: &str,
        id: &str,
    ) -> Result<Option<<T as StoredTable>::Resource>, RepositoryError> {
        <T as StoredTable>::load_resource(conn, tenant, id)
    }
}

/// The resource of `T` with `key` in `tenant`, deleted or not; `None` when there is
/// none. One statement, or a read transaction when it reads side rows too.
///
/// # Errors
/// Database failures; [`RepositoryError::Internal`] for stored data that does not read
/// back.
pub(crate) async fn read_one<T: ReadTable>(
    db: &Database,
    tenant: &str,
    key: &T::Key,
) -> Result<Option<T::Resource>, RepositoryError>
where
    <T::Key as ToOwned>::Owned: Send + 'static,
{
    let (tenant, key) = (tenant.to_owned(), key.to_owned());
    let work = move |conn: &mut DbConnection| T::load_resource(conn, &tenant, key.borrow());
    if T::READS_SIDE_ROWS {
        db.read(work).await
    } else {
        db.run(work).await
    }
}

/// One page of the resources of `T` in `tenant` (the value of its fields' tenant
/// column) that `query` asks for: only those whose parent column holds `parent`, when
/// given and the table has one; ranked by relevance in a fuzzy search.
///
/// # Errors
/// [`RepositoryError::Internal`] for a query the table cannot answer or stored data
/// that does not read back; database failures.
pub(crate) async fn list_page<T: ListedTable>(
    db: &Database,
    tenant: &str,
    parent: Option<&str>,
    query: &ListQuery,
) -> Result<Page<T::Resource>, RepositoryError> {
    if let Some((changes, text)) = searched_in_memory::<T>(query, parent) {
        return memory_page::<T>(db, tenant, query, changes, move |index, after, query| {
            index.search(
                &text,
                Window {
                    after,
                    skip: query.skip as usize,
                    limit: query.limit as usize,
                    show_deleted: query.show_deleted,
                },
            )
        })
        .await;
    }
    if let Some((changes, filter, descending)) = filtered_in_memory::<T>(query, parent) {
        return memory_page::<T>(db, tenant, query, changes, move |index, after, query| {
            index.list(
                &filter,
                Span {
                    after,
                    descending,
                    skip: query.skip as usize,
                    limit: query.limit as usize,
                    show_deleted: query.show_deleted,
                },
            )
        })
        .await;
    }
    list_page_where::<T>(db, tenant, query, |filter| {
        if let (Some(column), Some(parent)) = (T::PARENT_COLUMN, parent) {
            filter.push(&format!(" AND {column} = ")).bind(parent);
        }
    })
    .await
}

/// The change log and text of a list that the in-memory index answers alone: a
/// search that is the whole filter and ranks the list, over a field that has an
/// index, not narrowed to a parent.
fn searched_in_memory<T: ListedTable>(
    query: &ListQuery,
    parent: Option<&str>,
) -> Option<(ChangeLog, String)> {
    let rank = query.rank.as_ref()?;
    let Some(Condition::Fuzzy { field, text }) = &query.condition else {
        return None;
    };
    if *field != rank.field
        || *text != rank.text
        || (parent.is_some() && T::PARENT_COLUMN.is_some())
    {
        return None;
    }
    Some((T::FIELDS.change_log(field)?, text.clone()))
}

/// The change log, filter and direction of a list that the in-memory index answers
/// alone: one whose whole filter refers to the facets the index keeps
/// ([`facet_filter`]), ordered by creation time alone, not ranked, not narrowed to a
/// parent.
fn filtered_in_memory<T: ListedTable>(
    query: &ListQuery,
    parent: Option<&str>,
) -> Option<(ChangeLog, FacetFilter, bool)> {
    let changes = T::FIELDS.memory_index()?;
    if query.rank.is_some() || (parent.is_some() && T::PARENT_COLUMN.is_some()) {
        return None;
    }
    let [
        SortKey {
            by: SortBy::Field(field),
            descending,
        },
    ] = query.order.as_slice()
    else {
        return None;
    };
    if *field != changes.facets.create_time.0 {
        return None;
    }
    let filter = match &query.condition {
        None => FacetFilter::All(Vec::new()),
        Some(condition) => facet_filter(condition, T::FIELDS, &changes.facets)?,
    };
    Some((changes, filter, *descending))
}

/// The searches of `condition` that in-memory indexes answer: each field, text and
/// the change log of its index, once each.
fn memory_searches(
    map: &FieldMap,
    condition: &Condition,
) -> Vec<(&'static str, String, ChangeLog)> {
    let mut found: Vec<(&'static str, String, ChangeLog)> = Vec::new();
    let mut visit = vec![condition];
    while let Some(condition) = visit.pop() {
        match condition {
            Condition::And(parts) | Condition::Or(parts) => visit.extend(parts),
            Condition::Not(inner) => visit.push(inner),
            Condition::Fuzzy { field, text } => {
                if let Some(changes) = map.change_log(field)
                    && !found.iter().any(|(f, t, _)| f == field && t == text)
                {
                    found.push((field, text.clone(), changes));
                }
            }
            _ => {}
        }
    }
    found
}

/// One page of a list that the in-memory index of `changes` answers alone: `answer`
/// ranks or filters, pages and counts, in an order by a value (a similarity, a
/// creation time) and then id, starting after the page token's position; the page's
/// rows are then read by id (a row removed or deleted since the index's refresh is
/// left out of the page).
///
/// # Errors
/// [`RepositoryError::Internal`] for a page token of another order; database failures.
async fn memory_page<T: ListedTable>(
    db: &Database,
    tenant: &str,
    query: &ListQuery,
    changes: ChangeLog,
    answer: impl FnOnce(&TenantIndex, Option<(i64, &str)>, &ListQuery) -> Listed + Send + 'static,
) -> Result<Page<T::Resource>, RepositoryError> {
    let after = match query.after.as_deref() {
        None => None,
        Some([CursorValue::Integer(value), CursorValue::Text(id)]) => Some((*value, id.clone())),
        Some(_) => {
            return Err(internal(
                "page token",
                "the position does not fit an order by a value and id",
            ));
        }
    };
    let index = db.search_indexes().tenant(&changes, tenant);
    let (tenant, query) = (tenant.to_owned(), query.clone());
    db.read(move |conn| {
        index.refresh(conn, &tenant)?;
        let listed = answer(
            &index,
            after.as_ref().map(|(value, id)| (*value, id.as_str())),
            &query,
        );
        let next = match (listed.more, listed.page.last()) {
            (true, Some((value, id))) => Some(vec![
                CursorValue::Integer(*value),
                CursorValue::Text(id.clone()),
            ]),
            _ => None,
        };
        let ids: Vec<&str> = listed.page.iter().map(|(_, id)| id.as_str()).collect();
        let rows = rows_in_order::<T>(conn, &tenant, &ids, query.show_deleted)?;
        Ok(Page {
            items: T::resources(conn, &tenant, rows)?,
            next,
            total_size: listed.total,
        })
    })
    .await
}

/// The rows of `ids` in their order, those still stored (and live, unless
/// `show_deleted`).
///
/// # Errors
/// Database failures.
fn rows_in_order<T: ListedTable>(
    conn: &mut DbConnection,
    tenant: &str,
    ids: &[&str],
    show_deleted: bool,
) -> Result<Vec<T::Row>, RepositoryError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let fields = T::FIELDS;
    let mut sql = Sql::from(&format!(
        "SELECT {alias}.* FROM {table} {alias} WHERE {tenant_column} = ",
        alias = fields.alias,
        table = T::TABLE,
        tenant_column = fields.tenant_column
    ));
    sql.bind(tenant)
        .push(&format!(" AND {} IN ", fields.id_column))
        .bind_list(ids.iter().copied());
    if T::SOFT_DELETES && !show_deleted {
        sql.push(&format!(" AND {}.delete_time IS NULL", fields.alias));
    }
    let mut rows = HashMap::with_capacity(ids.len());
    for row in sql.load::<T::Row>(conn).map_err(repository_error)? {
        match T::sort_value(&row, fields.id_column) {
            Some(CursorValue::Text(id)) => rows.insert(id, row),
            _ => return Err(internal("no id for", fields.id_column)),
        };
    }
    Ok(ids.iter().filter_map(|id| rows.remove(*id)).collect())
}

/// One page of the resources of `T` in `tenant` that `query` asks for, among those
/// `narrow` keeps: it appends its conditions (` AND ...`) to the list's filter.
///
/// # Errors
/// As [`list_page`].
pub(crate) async fn list_page_where<T: ListedTable>(
    db: &Database,
    tenant: &str,
    query: &ListQuery,
    narrow: impl FnOnce(&mut Sql) + Send,
) -> Result<Page<T::Resource>, RepositoryError> {
    let alias = T::FIELDS.alias;
    let deleted = T::SOFT_DELETES.then(|| format!("{alias}.delete_time"));
    let mut narrowing = Sql::new();
    narrow(&mut narrowing);
    let searches: Vec<(&'static str, String, Arc<TenantIndex>)> = query
        .condition
        .as_ref()
        .map(|condition| memory_searches(T::FIELDS, condition))
        .unwrap_or_default()
        .into_iter()
        .map(|(field, text, changes)| (field, text, db.search_indexes().tenant(&changes, tenant)))
        .collect();
    let backend = db.backend();
    let query = query.clone();
    let tenant = tenant.to_owned();
    db.read(move |conn| {
        let mut searched = Searched {
            backend,
            hits: HashMap::with_capacity(searches.len()),
        };
        for (field, text, index) in searches {
            index.refresh(conn, &tenant)?;
            let hits = index.hits(&text);
            searched.hits.insert((field, text), hits);
        }
        let mut compiled = compile_list(
            &query,
            T::FIELDS,
            &tenant,
            deleted.as_deref(),
            Some(&searched),
        )?;
        compiled.filter.append(narrowing);
        let sort_columns = compiled.sort_columns.clone();
        let from = format!("{} {alias}", T::TABLE);
        let columns = format!("{alias}.*");
        let page = if query.rank.is_some() {
            load_page(
                conn,
                &from,
                &columns,
                compiled,
                &query,
                |r: Ranked<T::Row>| with_position::<T>(r.row, Some(r.fuzzy_score), &sort_columns),
            )
        } else {
            load_page(conn, &from, &columns, compiled, &query, |row: T::Row| {
                with_position::<T>(row, None, &sort_columns)
            })
        }?;
        Ok(Page {
            items: T::resources(conn, &tenant, page.items)?,
            next: page.next,
            total_size: page.total_size,
        })
    })
    .await
}

/// Writes a new resource in the current transaction, once per request id: claims
/// `key` (stored with `now`), returning the first request's outcome when its request
/// id was used before; otherwise runs `insert`, which writes the resource's rows, and
/// appends `new_events`.
///
/// # Errors
/// What `insert` fails with; [`RepositoryError::Conflict`] when a concurrent request
/// claimed the key first; database failures.
pub(crate) fn insert_once(
    conn: &mut DbConnection,
    tenant: &str,
    key: Option<&IdempotencyKey>,
    now: Timestamp,
    new_events: Vec<OutboxEvent>,
    insert: impl FnOnce(&mut DbConnection) -> Result<(), RepositoryError>,
) -> Result<CreateOutcome, RepositoryError> {
    if let Some(replay) = idempotency::claim(conn, tenant, key, now)? {
        return Ok(replay);
    }
    insert(conn)?;
    insert_events(conn, tenant, new_events).map_err(repository_error)?;
    Ok(CreateOutcome::Created)
}

/// Writes the new `resource` of `T` for `tenant` in the caller's transaction, with
/// `events`: what a create of another resource writes beside its own row (the forms a
/// new workspace opens, the activity log a form's submit writes). No idempotency key:
/// the create it goes with has one.
///
/// # Errors
/// What [`StoredTable::before_insert`] and [`StoredTable::write_side_rows`] refuse;
/// database failures (a unique violation when the id is taken).
pub(crate) fn insert_with_events<T: StoredTable>(
    conn: &mut DbConnection,
    tenant: &TenantId,
    resource: &T::Resource,
    events: &[NewEvent],
) -> Result<(), RepositoryError> {
    let new = [(resource.clone(), T::row(tenant, resource)?)];
    T::insert_new(conn, tenant.as_str(), &new)?;
    insert_events(conn, tenant.as_str(), outbox(events)).map_err(repository_error)
}

/// Writes the new `resources` of `T` for `tenant` in the caller's transaction, except
/// those stored under their ids already; returns, for each, whether it wrote it. What
/// a batch of job runs' ends writes of the records the runs made (a run under way
/// during an upgrade may have stored them before its end), with their events beside
/// its own: one statement to find those stored, then [`StoredTable::insert_new`]'s.
///
/// # Errors
/// What [`StoredTable::before_insert`] and [`StoredTable::write_new_side_rows`] refuse;
/// database failures.
pub(crate) fn insert_unless_stored<T: StoredTable>(
    conn: &mut DbConnection,
    tenant: &TenantId,
    resources: &[&T::Resource],
) -> Result<Vec<bool>, RepositoryError> {
    if resources.is_empty() {
        return Ok(Vec::new());
    }
    let rows = resources
        .iter()
        .map(|resource| T::row(tenant, resource))
        .collect::<Result<Vec<_>, _>>()?;
    let mut select = Sql::from(&format!(
        "SELECT t.id AS id FROM {} t WHERE t.tenant_id = ",
        T::TABLE
    ));
    select
        .bind(tenant.as_str())
        .push(" AND t.id IN ")
        .bind_list(rows.iter().map(T::row_id));
    let stored: HashSet<String> = select
        .load::<StoredId>(conn)
        .map_err(repository_error)?
        .into_iter()
        .map(|stored| stored.id)
        .collect();
    let written: Vec<bool> = rows
        .iter()
        .map(|row| !stored.contains(T::row_id(row)))
        .collect();
    let new: Vec<(T::Resource, T::Row)> = resources
        .iter()
        .zip(rows)
        .zip(&written)
        .filter(|(_, new)| **new)
        .map(|((resource, row), _)| ((*resource).clone(), row))
        .collect();
    if !new.is_empty() {
        T::insert_new(conn, tenant.as_str(), &new)?;
    }
    Ok(written)
}

/// Updates many rows of `table` of `tenant` in one statement, each with its own
/// values: `UPDATE table SET set... FROM (VALUES rows...) AS v WHERE table.id =
/// v.column1 AND condition`. Each of `rows` holds a row's id, then the values that
/// `set` (assignments such as `state = v.column2`) and `condition` (SQL such as `AND
/// job_tasks.claim = v.column3`, naming the table's columns qualified) refer to as
/// `v.column2`, `v.column3`, ... Returns the ids of the rows it changed, in no order.
///
/// # Errors
/// Database failures.
pub(crate) fn update_rows(
    conn: &mut DbConnection,
    (table, tenant): (&str, &str),
    set: &[&str],
    condition: &str,
    rows: Vec<Vec<Bind>>,
) -> Result<Vec<String>, RepositoryError> {
    let mut changed = Vec::with_capacity(rows.len());
    let mut rows = rows.into_iter().peekable();
    while rows.peek().is_some() {
        let mut update = Sql::from(&format!(
            "UPDATE {table} SET {} FROM (VALUES ",
            set.join(", ")
        ));
        for (i, row) in rows.by_ref().take(ROWS_PER_INSERT).enumerate() {
            if i > 0 {
                update.push(", ");
            }
            update.bind_list(row);
        }
        update
            .push(&format!(") AS v WHERE {table}.tenant_id = "))
            .bind(tenant)
            .push(&format!(
                " AND {table}.id = v.column1 {condition} RETURNING {table}.id AS id"
            ));
        changed.extend(
            update
                .load::<StoredId>(conn)
                .map_err(repository_error)?
                .into_iter()
                .map(|row| row.id),
        );
    }
    Ok(changed)
}

/// The id of a stored row, as [`insert_unless_stored`] reads it.
#[derive(QueryableByName)]
struct StoredId {
    #[diesel(sql_type = Text)]
    id: String,
}

/// Overwrites the stored `resource` of `T` (its row `row`) in the caller's
/// transaction if its revision is still `expected_revision`, with its side rows.
///
/// # Errors
/// [`RepositoryError::NotFound`] when it is gone; [`RepositoryError::Conflict`] when
/// its revision changed; database failures.
pub(crate) fn update_in<T: StoredTable>(
    conn: &mut DbConnection,
    tenant: &str,
    resource: &T::Resource,
    row: &T::Row,
    expected_revision: i64,
) -> Result<(), RepositoryError> {
    overwrite::<T>(conn, tenant, row, expected_revision)?;
    T::write_side_rows(conn, resource, row, Write::Update)
}

/// A row with its relevance, in ranked (fuzzy) searches.
#[derive(Debug)]
struct Ranked<R> {
    row: R,
    fuzzy_score: i64,
}

/// Read by hand: Diesel's derive does not embed a generic row.
impl<R: QueryableByName<Db>> QueryableByName<Db> for Ranked<R> {
    fn build<'a>(row: &impl NamedRow<'a, Db>) -> deserialize::Result<Self> {
        Ok(Ranked {
            row: R::build(row)?,
            fuzzy_score: NamedRow::get::<BigInt, i64>(row, RELEVANCE)?,
        })
    }
}

/// The Diesel store of the resource `T` declares: implements [`ResourceStore`] for it.
#[derive(Debug, Clone)]
pub struct DieselStore<T> {
    db: Database,
    table: PhantomData<T>,
}

impl<T> DieselStore<T> {
    /// A store over `db`.
    pub fn new(db: Database) -> DieselStore<T> {
        DieselStore {
            db,
            table: PhantomData,
        }
    }

    /// The database, for a repository's methods beyond the standard ones.
    pub(crate) fn db(&self) -> &Database {
        &self.db
    }
}

impl<T: StoredTable> DieselStore<T> {
    /// The resources among `ids` that exist, deleted or not, in any order.
    ///
    /// # Errors
    /// Database failures; [`RepositoryError::Internal`] for stored data that does not
    /// read back.
    pub(crate) async fn read_many(
        &self,
        tenant: &TenantId,
        ids: &[String],
    ) -> Result<Vec<T::Resource>, RepositoryError> {
        let (tenant, ids) = (tenant.as_str().to_owned(), ids.to_vec());
        let fields = T::FIELDS;
        self.db
            .read(move |conn| {
                let mut rows = Vec::with_capacity(ids.len());
                for chunk in ids.chunks(CHUNK) {
                    let mut select = Sql::from(&format!(
                        "SELECT {alias}.* FROM {table} {alias} WHERE {tenant_column} = ",
                        alias = fields.alias,
                        table = T::TABLE,
                        tenant_column = fields.tenant_column,
                    ));
                    select
                        .bind(tenant.as_str())
                        .push(&format!(" AND {} IN ", fields.id_column))
                        .bind_list(chunk.iter().map(String::as_str));
                    rows.extend(select.load::<T::Row>(conn).map_err(repository_error)?);
                }
                T::resources(conn, &tenant, rows)
            })
            .await
    }

    /// Stores new `resources` at once, all or none, in one transaction with
    /// `new_events`, once per `key` (whose resource name the caller makes): what
    /// [`ResourceStore::create`] does for one, which it runs.
    ///
    /// # Errors
    /// As [`ResourceStore::create`].
    pub(crate) async fn create_all(
        &self,
        tenant: &TenantId,
        resources: &[T::Resource],
        key: Option<&IdempotencyKey>,
        new_events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError> {
        let new = resources
            .iter()
            .map(|resource| Ok((resource.clone(), T::row(tenant, resource)?)))
            .collect::<Result<Vec<_>, RepositoryError>>()?;
        let Some(first) = new.first() else {
            return Ok(CreateOutcome::Created);
        };
        let now = timestamp(T::create_time(&first.1))?;
        let (tenant, key, new_events) =
            (tenant.as_str().to_owned(), key.cloned(), outbox(new_events));
        self.db
            .write(move |conn| {
                insert_once(conn, &tenant, key.as_ref(), now, new_events, |conn| {
                    T::insert_new(conn, &tenant, &new)
                })
            })
            .await
    }

    /// One page of the resources matching `query` among those `narrow` keeps: it
    /// appends its conditions (` AND ...`) to the list's filter. The standard list
    /// narrows to a parent; a repository's own lists narrow as they need.
    ///
    /// # Errors
    /// [`RepositoryError::InvalidArgument`] for a query the table cannot run; database
    /// failures.
    pub(crate) async fn list_where(
        &self,
        tenant: &TenantId,
        query: &ListQuery,
        narrow: impl FnOnce(&mut Sql) + Send,
    ) -> Result<Page<T::Resource>, RepositoryError> {
        list_page_where::<T>(&self.db, tenant.as_str(), query, narrow).await
    }
}

/// `row` with its keyset position in a page sorted by `sort_columns`; `relevance` is
/// its score in a ranked search.
fn with_position<T: ListedTable>(
    row: T::Row,
    relevance: Option<i64>,
    sort_columns: &[String],
) -> Result<(T::Row, Vec<CursorValue>), RepositoryError> {
    let position = sort_columns
        .iter()
        .map(|column| match (column.as_str(), relevance) {
            (RELEVANCE, Some(score)) => Ok(CursorValue::Integer(score)),
            (RELEVANCE, None) => Err(internal("sort", "no relevance")),
            _ => T::sort_value(&row, column)
                .ok_or_else(|| internal("no cursor value for sort expression", column)),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((row, position))
}

#[async_trait]
impl<T: StoredTable> ResourceStore<T::Resource> for DieselStore<T> {
    async fn create<'a>(
        &self,
        tenant: &TenantId,
        resource: &T::Resource,
        key: Option<&'a IdempotencyKey>,
        new_events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError> {
        self.create_all(tenant, std::slice::from_ref(resource), key, new_events)
            .await
    }

    async fn get(
        &self,
        tenant: &TenantId,
        id: &str,
    ) -> Result<Option<T::Resource>, RepositoryError> {
        read_one::<T>(&self.db, tenant.as_str(), id).await
    }

    async fn list<'a>(
        &self,
        tenant: &TenantId,
        parent: Option<&'a str>,
        query: &ListQuery,
    ) -> Result<Page<T::Resource>, RepositoryError> {
        list_page::<T>(&self.db, tenant.as_str(), parent, query).await
    }

    async fn update(
        &self,
        tenant: &TenantId,
        resource: &T::Resource,
        expected_revision: i64,
        new_events: &[NewEvent],
    ) -> Result<(), RepositoryError> {
        let row = T::row(tenant, resource)?;
        let (tenant, resource, new_events) = (
            tenant.as_str().to_owned(),
            resource.clone(),
            outbox(new_events),
        );
        self.db
            .write(move |conn| {
                update_in::<T>(conn, &tenant, &resource, &row, expected_revision)?;
                insert_events(conn, &tenant, new_events).map_err(repository_error)
            })
            .await
    }

    async fn remove(
        &self,
        tenant: &TenantId,
        resource: &T::Resource,
        new_events: &[NewEvent],
    ) -> Result<(), RepositoryError> {
        let row = T::row(tenant, resource)?;
        let (tenant, new_events) = (tenant.as_str().to_owned(), outbox(new_events));
        self.db
            .write(move |conn| {
                if T::remove(conn, &row).map_err(repository_error)? == 0 {
                    let stored = T::reload(conn, &tenant, &row).map_err(repository_error)?;
                    return Err(revision_missed(stored));
                }
                insert_events(conn, &tenant, new_events).map_err(repository_error)
            })
            .await
    }

    async fn find_purge_due(
        &self,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<(TenantId, String)>, RepositoryError> {
        if !T::SOFT_DELETES {
            return Ok(Vec::new());
        }
        self.db
            .read(move |conn| crate::purge::find_due(conn, T::TABLE, T::PURGE_KEY, now, limit))
            .await
    }

    async fn purge(
        &self,
        tenant: &TenantId,
        id: &str,
        now: Timestamp,
        new_events: &[NewEvent],
    ) -> Result<(), RepositoryError> {
        if !T::SOFT_DELETES {
            return Err(RepositoryError::NotFound);
        }
        let (tenant, id, new_events) = (
            tenant.as_str().to_owned(),
            id.to_owned(),
            outbox(new_events),
        );
        self.db
            .write(move |conn| T::remove_due(conn, &tenant, &id, now, new_events))
            .await
    }
}
