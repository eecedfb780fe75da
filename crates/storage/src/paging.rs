//! Running a compiled list query: the total count, one page of rows, and the keyset
//! position of the last row when more may follow.

use diesel::QueryableByName;
use diesel::RunQueryDsl;
use diesel::sql_types::BigInt;
use rics_aip::page_token::CursorValue;
use rics_domain::list::{ListQuery, Page};
use rics_domain::repository::RepositoryError;

use crate::connection::{Db, DbConnection};
use crate::error::repository_error;
use crate::filter::CompiledList;
use crate::sql::Sql;

/// A count.
#[derive(Debug, QueryableByName)]
struct Total {
    #[diesel(sql_type = BigInt)]
    total: i64,
}

/// Loads one page: `columns` of `from` (`entities e`) matching `compiled`, converted
/// by `convert` into an item and its keyset position (one value per
/// `compiled.sort_columns`).
///
/// # Errors
/// Database failures, and what `convert` returns.
pub fn load_page<R, T>(
    conn: &mut DbConnection,
    from: &str,
    columns: &str,
    compiled: CompiledList,
    query: &ListQuery,
    convert: impl Fn(R) -> Result<(T, Vec<CursorValue>), RepositoryError>,
) -> Result<Page<T>, RepositoryError>
where
    R: QueryableByName<Db> + 'static,
{
    let mut count = Sql::from(&format!("SELECT COUNT(*) AS total FROM {from} WHERE "));
    count.append(compiled.filter.clone());
    let total = count
        .load::<Total>(conn)
        .map_err(repository_error)?
        .first()
        .map_or(0, |t| t.total);

    let mut select = Sql::from(&format!("SELECT {columns}"));
    if !compiled.select.is_empty() {
        select.push(", ").push(&compiled.select);
    }
    select.push(&format!(" FROM {from}"));
    select.append(compiled.join);
    select.push(" WHERE ").append(compiled.filter);
    select.push(" AND ").append(compiled.after);
    select.push(&format!(" ORDER BY {} LIMIT ", compiled.order));
    select.bind(i64::from(query.limit) + 1);
    select.push(" OFFSET ").bind(i64::from(query.skip));
    let rows = select.load::<R>(conn).map_err(repository_error)?;

    let more = rows.len() > query.limit as usize;
    let mut items = Vec::with_capacity(rows.len().min(query.limit as usize));
    let mut last = None;
    for row in rows.into_iter().take(query.limit as usize) {
        let (item, position) = convert(row)?;
        items.push(item);
        last = Some(position);
    }
    Ok(Page {
        items,
        next: if more { last } else { None },
        total_size: total,
    })
}
