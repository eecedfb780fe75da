//! Side rows that several resources keep beside their main row, written and read the
//! same way whatever the table: a repeated field's values in order, the trigrams of a
//! fuzzy-searchable field, and any rows keyed by their owner.

use std::collections::HashMap;

use diesel::sql_types::Text;
use diesel::{QueryResult, QueryableByName, RunQueryDsl};
use rics_domain::repository::RepositoryError;
use rics_domain::text_search;

use crate::connection::DbConnection;
use crate::error::repository_error;
use crate::filter::TrigramTable;
use crate::sql::{Bind, Sql, insert_rows};
use crate::store::Write;

/// How many owners one `IN` list of [`ValueRows::load`] holds.
const CHUNK: usize = 500;

/// A table of a repeated text field's values in order: `(tenant_id, owner, value,
/// position)` rows.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ValueRows {
    /// The table.
    pub(crate) table: &'static str,
    /// Its column holding the owner's id.
    pub(crate) owner: &'static str,
    /// Its column holding a value.
    pub(crate) value: &'static str,
}

/// One value of one owner, as [`ValueRows::load`] reads it.
#[derive(Debug, QueryableByName)]
struct OwnedValue {
    #[diesel(sql_type = Text)]
    owner: String,
    #[diesel(sql_type = Text)]
    value: String,
}

impl ValueRows {
    /// Writes `values`, in order, as the values of `owner`, after `write` of its main
    /// row: an update replaces the values it had, an insert has none to replace.
    ///
    /// # Errors
    /// Database failures.
    pub(crate) fn write(
        &self,
        conn: &mut DbConnection,
        (tenant, owner): (&str, &str),
        values: &[String],
        write: Write,
    ) -> QueryResult<()> {
        if write == Write::Update {
            delete_owned(conn, self.table, self.owner, tenant, owner)?;
        }
        self.insert(conn, tenant, &[(owner, values)])
    }

    /// Writes the values of new owners of `tenant`, each owner's in order, in
    /// multi-row statements.
    ///
    /// # Errors
    /// Database failures.
    pub(crate) fn insert(
        &self,
        conn: &mut DbConnection,
        tenant: &str,
        owners: &[(&str, &[String])],
    ) -> QueryResult<()> {
        let owned = owners
            .iter()
            .map(|(owner, values)| {
                let rows = values
                    .iter()
                    .enumerate()
                    .map(|(position, value)| {
                        vec![value.as_str().into(), Bind::BigInt(position as i64)]
                    })
                    .collect();
                (*owner, rows)
            })
            .collect();
        insert_owned(
            conn,
            (self.table, self.owner),
            tenant,
            (&[self.value, "position"], owned),
        )
    }

    /// Removes `value` from the values of every owner in `tenant`; returns how many
    /// it removed.
    ///
    /// # Errors
    /// Database failures.
    pub(crate) fn remove_value(
        &self,
        conn: &mut DbConnection,
        tenant: &str,
        value: &str,
    ) -> Result<i64, RepositoryError> {
        delete_owned(conn, self.table, self.value, tenant, value)
            .map(|n| n as i64)
            .map_err(repository_error)
    }

    /// The resources of `rows`, in order: `build` makes each from its row and the
    /// values, in order, of the owner `id` reads from the row (none when it has none).
    ///
    /// # Errors
    /// Database failures; what `build` returns.
    pub(crate) fn attach<Row, Resource>(
        &self,
        conn: &mut DbConnection,
        tenant: &str,
        rows: Vec<Row>,
        id: impl Fn(&Row) -> &str,
        build: impl Fn(Row, Vec<String>) -> Result<Resource, RepositoryError>,
    ) -> Result<Vec<Resource>, RepositoryError> {
        let owners: Vec<&str> = rows.iter().map(&id).collect();
        let mut values = self.load(conn, tenant, &owners)?;
        rows.into_iter()
            .map(|row| {
                let owned = values.remove(id(&row)).unwrap_or_default();
                build(row, owned)
            })
            .collect()
    }

    /// The values of each of `owners` in order, by owner; an owner without values is
    /// missing.
    fn load(
        &self,
        conn: &mut DbConnection,
        tenant: &str,
        owners: &[&str],
    ) -> Result<HashMap<String, Vec<String>>, RepositoryError> {
        let mut values: HashMap<String, Vec<String>> = HashMap::with_capacity(owners.len());
        for chunk in owners.chunks(CHUNK) {
            let mut select = Sql::from(&format!(
                "SELECT {owner} AS owner, {value} AS value FROM {table} WHERE tenant_id = ",
                owner = self.owner,
                value = self.value,
                table = self.table,
            ));
            select
                .bind(tenant)
                .push(&format!(" AND {} IN ", self.owner))
                .bind_list(chunk.iter().copied())
                .push(&format!(" ORDER BY {}, position", self.owner));
            let found = select.load::<OwnedValue>(conn).map_err(repository_error)?;
            for row in found {
                values.entry(row.owner).or_default().push(row.value);
            }
        }
        Ok(values)
    }
}

/// Replaces the trigrams of `owner`'s field in `index` with those of `text`.
///
/// # Errors
/// Database failures.
pub(crate) fn replace_trigrams(
    conn: &mut DbConnection,
    index: &TrigramTable,
    tenant: &str,
    owner: &str,
    text: &str,
) -> QueryResult<()> {
    let trigrams = text_search::trigrams(text)
        .into_iter()
        .map(|trigram| vec![trigram.into()])
        .collect();
    write_owned(
        conn,
        (index.table, index.owner),
        (tenant, owner),
        (&[index.trigram], trigrams),
        Write::Update,
    )
}

/// Writes `rows` as the rows of `owner` in `table`, after `write` of its main row: an
/// update replaces the rows it had, an insert has none to replace. `table` is the
/// table and its column holding the owner's id, `owner` the tenant and the owner's
/// id, and `rows` the columns written besides those two and each row's values of them.
///
/// # Errors
/// Database failures.
pub(crate) fn write_owned(
    conn: &mut DbConnection,
    (table, owner_column): (&str, &str),
    (tenant, owner): (&str, &str),
    (columns, rows): (&[&str], Vec<Vec<Bind>>),
    write: Write,
) -> QueryResult<()> {
    if write == Write::Update {
        delete_owned(conn, table, owner_column, tenant, owner)?;
    }
    insert_owned(
        conn,
        (table, owner_column),
        tenant,
        (columns, vec![(owner, rows)]),
    )
}

/// An owner's id and the values of its rows.
pub(crate) type OwnedRows<'a> = (&'a str, Vec<Vec<Bind>>);

/// Writes the rows of new owners of `tenant` in `table`, in multi-row statements:
/// `table` is the table and its column holding the owner's id, and `owned` the
/// columns written besides those two and each owner's rows' values of them.
///
/// # Errors
/// Database failures.
pub(crate) fn insert_owned(
    conn: &mut DbConnection,
    (table, owner_column): (&str, &str),
    tenant: &str,
    (columns, owned): (&[&str], Vec<OwnedRows<'_>>),
) -> QueryResult<()> {
    let rows = owned
        .into_iter()
        .flat_map(|(owner, rows)| {
            rows.into_iter().map(move |values| {
                let mut row: Vec<Bind> = vec![tenant.into(), owner.into()];
                row.extend(values);
                row
            })
        })
        .collect();
    let mut all_columns = vec!["tenant_id", owner_column];
    all_columns.extend_from_slice(columns);
    insert_rows(conn, table, &all_columns, rows)
}

/// Deletes the rows of `table` whose `owner_column` holds `owner`, in `tenant` (any
/// column: [`ValueRows::remove_value`] names its value column).
pub(crate) fn delete_owned(
    conn: &mut DbConnection,
    table: &str,
    owner_column: &str,
    tenant: &str,
    owner: &str,
) -> QueryResult<usize> {
    let mut delete = Sql::from(&format!("DELETE FROM {table} WHERE tenant_id = "));
    delete
        .bind(tenant)
        .push(&format!(" AND {owner_column} = "))
        .bind(owner);
    delete.execute(conn)
}
