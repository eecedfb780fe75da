//! SQL built at run time with every value bound, never spliced.
//!
//! [`Sql`] holds SQL text and bind values in order. It is a Diesel query fragment:
//! Diesel's backend query builder writes each placeholder (`$n` on PostgreSQL, `?` on
//! SQLite), so one builder serves both databases. Only fixed, allow-listed identifiers
//! (from [`crate::filter::FieldMap`]s) are ever pushed as text.

use diesel::backend::Backend;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::serialize::ToSql;
use diesel::sql_types::{BigInt, Bool, Double, HasSqlType, Nullable, Text, Untyped};
use diesel::{QueryResult, RunQueryDsl};

/// A value bound to a placeholder.
#[derive(Debug, Clone, PartialEq)]
pub enum Bind {
    /// A string.
    Text(String),
    /// A 64-bit integer.
    BigInt(i64),
    /// A boolean.
    Bool(bool),
    /// A double.
    Double(f64),
    /// A string or NULL.
    NullableText(Option<String>),
    /// A 64-bit integer or NULL.
    NullableBigInt(Option<i64>),
}

impl From<Option<String>> for Bind {
    fn from(value: Option<String>) -> Bind {
        Bind::NullableText(value)
    }
}

impl From<Option<i64>> for Bind {
    fn from(value: Option<i64>) -> Bind {
        Bind::NullableBigInt(value)
    }
}

impl From<&str> for Bind {
    fn from(value: &str) -> Bind {
        Bind::Text(value.to_owned())
    }
}

impl From<String> for Bind {
    fn from(value: String) -> Bind {
        Bind::Text(value)
    }
}

impl From<i64> for Bind {
    fn from(value: i64) -> Bind {
        Bind::BigInt(value)
    }
}

impl From<bool> for Bind {
    fn from(value: bool) -> Bind {
        Bind::Bool(value)
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Part {
    Text(String),
    Bind(Bind),
}

/// SQL text with bound values.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sql {
    parts: Vec<Part>,
}

impl Sql {
    /// Empty SQL.
    pub fn new() -> Sql {
        Sql::default()
    }

    /// SQL starting with `text`.
    pub fn from(text: &str) -> Sql {
        let mut sql = Sql::new();
        sql.push(text);
        sql
    }

    /// Appends fixed SQL text (never user input).
    pub fn push(&mut self, text: &str) -> &mut Sql {
        match self.parts.last_mut() {
            Some(Part::Text(last)) => last.push_str(text),
            _ => self.parts.push(Part::Text(text.to_owned())),
        }
        self
    }

    /// Appends a placeholder bound to `value`.
    pub fn bind(&mut self, value: impl Into<Bind>) -> &mut Sql {
        self.parts.push(Part::Bind(value.into()));
        self
    }

    /// Appends `(?, ?, ...)` bound to `values`.
    pub fn bind_list<T: Into<Bind>>(&mut self, values: impl IntoIterator<Item = T>) -> &mut Sql {
        self.push("(");
        for (i, value) in values.into_iter().enumerate() {
            if i > 0 {
                self.push(", ");
            }
            self.bind(value);
        }
        self.push(")")
    }

    /// Appends another fragment.
    pub fn append(&mut self, other: Sql) -> &mut Sql {
        for part in other.parts {
            match part {
                Part::Text(text) => {
                    self.push(&text);
                }
                Part::Bind(bind) => {
                    self.bind(bind);
                }
            }
        }
        self
    }

    /// `parts` joined by `separator`, in parentheses.
    pub fn join(parts: Vec<Sql>, separator: &str) -> Sql {
        let mut sql = Sql::from("(");
        for (i, part) in parts.into_iter().enumerate() {
            if i > 0 {
                sql.push(separator);
            }
            sql.append(part);
        }
        sql.push(")");
        sql
    }

    /// The SQL text with `?` for every placeholder (for tests and logs).
    pub fn debug_text(&self) -> String {
        self.parts
            .iter()
            .map(|p| match p {
                Part::Text(t) => t.as_str(),
                Part::Bind(_) => "?",
            })
            .collect()
    }

    /// The bound values in order (for tests).
    pub fn binds(&self) -> Vec<&Bind> {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::Bind(b) => Some(b),
                Part::Text(_) => None,
            })
            .collect()
    }
}

/// The most rows one `INSERT ... VALUES` statement of [`insert_rows`] writes.
pub(crate) const ROWS_PER_INSERT: usize = 200;

/// Inserts `rows` (each one value per column, in order) into `table` with multi-row
/// `INSERT ... VALUES` statements, at most 200 rows each.
///
/// # Errors
/// Database failures.
pub fn insert_rows<Conn>(
    conn: &mut Conn,
    table: &str,
    columns: &[&str],
    rows: Vec<Vec<Bind>>,
) -> QueryResult<()>
where
    Conn: diesel::Connection,
    Sql: QueryFragment<Conn::Backend>,
{
    // The rows' values move into the statements: a batch's entity bodies and event
    // payloads are not copied again.
    let mut rows = rows.into_iter().peekable();
    while rows.peek().is_some() {
        let mut sql = Sql::from(&format!(
            "INSERT INTO {table} ({}) VALUES ",
            columns.join(", ")
        ));
        for (i, row) in rows.by_ref().take(ROWS_PER_INSERT).enumerate() {
            if i > 0 {
                sql.push(", ");
            }
            sql.bind_list(row);
        }
        diesel::RunQueryDsl::execute(sql, conn)?;
    }
    Ok(())
}

impl QueryId for Sql {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl Query for Sql {
    type SqlType = Untyped;
}

impl<DB> QueryFragment<DB> for Sql
where
    DB: Backend + HasSqlType<Text> + HasSqlType<BigInt> + HasSqlType<Bool> + HasSqlType<Double>,
    String: ToSql<Text, DB>,
    i64: ToSql<BigInt, DB>,
    bool: ToSql<Bool, DB>,
    f64: ToSql<Double, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        for part in &self.parts {
            match part {
                Part::Text(text) => out.push_sql(text),
                Part::Bind(Bind::Text(value)) => out.push_bind_param::<Text, String>(value)?,
                Part::Bind(Bind::BigInt(value)) => out.push_bind_param::<BigInt, i64>(value)?,
                Part::Bind(Bind::Bool(value)) => out.push_bind_param::<Bool, bool>(value)?,
                Part::Bind(Bind::Double(value)) => out.push_bind_param::<Double, f64>(value)?,
                Part::Bind(Bind::NullableText(value)) => {
                    out.push_bind_param::<Nullable<Text>, Option<String>>(value)?
                }
                Part::Bind(Bind::NullableBigInt(value)) => {
                    out.push_bind_param::<Nullable<BigInt>, Option<i64>>(value)?
                }
            }
        }
        Ok(())
    }
}

impl<Conn> RunQueryDsl<Conn> for Sql {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_binds_stay_in_order() {
        let mut sql = Sql::from("SELECT 1 WHERE a = ");
        sql.bind("x").push(" AND b IN ").bind_list([1_i64, 2]);
        assert_eq!(sql.debug_text(), "SELECT 1 WHERE a = ? AND b IN (?, ?)");
        assert_eq!(
            sql.binds(),
            vec![&Bind::Text("x".into()), &Bind::BigInt(1), &Bind::BigInt(2)]
        );
    }

    #[test]
    fn join_wraps_in_parentheses() {
        let joined = Sql::join(vec![Sql::from("a"), Sql::from("b")], " OR ");
        assert_eq!(joined.debug_text(), "(a OR b)");
    }
}
