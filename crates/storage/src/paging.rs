//! Running a compiled list query: one page of rows with the total count, in one
//! statement, and the keyset position of the last row when more may follow.

use diesel::QueryableByName;
use diesel::RunQueryDsl;
use diesel::deserialize;
use diesel::row::NamedRow;
use diesel::sql_types::BigInt;
use rics_aip::page_token::CursorValue;
use rics_domain::list::{ListQuery, Page};
use rics_domain::repository::RepositoryError;

use crate::connection::{Db, DbConnection};
use crate::error::repository_error;
use crate::filter::CompiledList;
use crate::sql::Sql;

/// The column alias of the total count beside each row of a page.
const TOTAL: &str = "list_total_size";

/// A count.
#[derive(Debug, QueryableByName)]
struct Total {
    #[diesel(sql_type = BigInt)]
    list_total_size: i64,
}

/// A row of a page with the count of every row the list matches.
struct Counted<R> {
    row: R,
    total: i64,
}

/// Read by hand: Diesel's derive does not embed a generic row.
impl<R: QueryableByName<Db>> QueryableByName<Db> for Counted<R> {
    fn build<'a>(row: &impl NamedRow<'a, Db>) -> deserialize::Result<Self> {
        Ok(Counted {
            row: R::build(row)?,
            total: NamedRow::get::<BigInt, i64>(row, TOTAL)?,
        })
    }
}

/// Loads one page: `columns` of `from` (`entities e`) matching `compiled`, converted
/// by `convert` into an item and its keyset position (one value per
/// `compiled.sort_columns`).
///
/// The count is an uncorrelated subquery of the page's statement, which both backends
/// evaluate once, so that a ranked list finds its fuzzy matches once for both (its
/// `WITH`). A page past the end has no row to carry the count: then a second statement
/// counts.
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
    let mut count = Sql::from(&format!("SELECT COUNT(*) FROM {from} WHERE "));
    count.append(compiled.filter.clone());

    let mut select = compiled.with.clone();
    select.push(&format!("SELECT {columns}"));
    if !compiled.select.is_empty() {
        select.push(", ").push(&compiled.select);
    }
    select
        .push(", (")
        .append(count.clone())
        .push(&format!(") AS {TOTAL}"));
    select.push(&format!(" FROM {from}"));
    select.append(compiled.join);
    select.push(" WHERE ").append(compiled.filter);
    select.push(" AND ").append(compiled.after);
    select.push(&format!(" ORDER BY {} LIMIT ", compiled.order));
    select.bind(i64::from(query.limit) + 1);
    select.push(" OFFSET ").bind(i64::from(query.skip));
    let rows = select.load::<Counted<R>>(conn).map_err(repository_error)?;

    let total = match rows.first() {
        Some(first) => first.total,
        None => {
            let mut alone = compiled.with;
            alone
                .push("SELECT (")
                .append(count)
                .push(&format!(") AS {TOTAL}"));
            alone
                .load::<Total>(conn)
                .map_err(repository_error)?
                .first()
                .map_or(0, |t| t.list_total_size)
        }
    };
    let more = rows.len() > query.limit as usize;
    let mut items = Vec::with_capacity(rows.len().min(query.limit as usize));
    let mut last = None;
    for counted in rows.into_iter().take(query.limit as usize) {
        let (item, position) = convert(counted.row)?;
        items.push(item);
        last = Some(position);
    }
    Ok(Page {
        items,
        next: if more { last } else { None },
        total_size: total,
    })
}
