//! AIP-160 filters, AIP-132 orders and keyset positions compiled to bound SQL.
//!
//! A [`FieldMap`] tells, for one resource, where each declared filter field lives:
//! a column of the main row (aliased), or a side table with one row per element of a
//! repeated field or map entry. Every predicate this module writes is TRUE or FALSE,
//! never NULL, so `NOT` means logical negation as the checked filter expects.

use rics_aip::filter::{Comparator, Condition, Literal, StringMatch};
use rics_aip::page_token::CursorValue;
use rics_domain::list::{FuzzyRank, ListQuery, SortBy, SortKey};
use rics_domain::repository::RepositoryError;
use rics_domain::text_search;
use rics_domain::time::Timestamp;

use std::collections::HashMap;

use crate::connection::Backend;
use crate::search_index::{ChangeLog, FacetFilter, Facets};
use crate::sql::{Bind, Sql};

/// What kind of value a scalar column holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarKind {
    /// TEXT.
    Text,
    /// BIGINT.
    Integer,
    /// BOOLEAN.
    Bool,
    /// BIGINT microseconds since the epoch.
    Timestamp,
    /// TEXT holding an enum value; NULL stands for the zero value.
    Enum,
}

/// What a NULL in a scalar column means for comparisons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unset {
    /// The column is never NULL.
    NotNull,
    /// NULL is the field's zero value (proto3): `!= x` matches it, `= zero` matches it.
    ZeroValue,
    /// NULL means the enclosing message is unset: every comparison is false.
    InMessage,
}

/// Where a declared filter field lives.
#[derive(Debug, Clone, Copy)]
pub enum Column {
    /// A column of the main row, such as `e.display_name`.
    Scalar {
        /// Qualified column.
        column: &'static str,
        /// Its kind.
        kind: ScalarKind,
        /// What NULL means.
        unset: Unset,
    },
    /// A repeated string in a side table, one row per element.
    Repeated {
        /// The side table.
        table: &'static str,
        /// Its column holding the owner's id.
        owner: &'static str,
        /// Its column holding the element.
        value: &'static str,
    },
    /// A string map in a side table, one row per entry.
    Map {
        /// The side table.
        table: &'static str,
        /// Its column holding the owner's id.
        owner: &'static str,
        /// Its column holding the key.
        key: &'static str,
        /// Its column holding the value.
        value: &'static str,
    },
    /// A message prefix (`riskDetails`), present when this fixed predicate holds.
    Message {
        /// SQL predicate over the main row, without user input.
        present: &'static str,
    },
}

/// A fuzzy-searchable field: where its matches are found, and the main row's column
/// holding the field's trigram count (for the relevance of a ranked list).
#[derive(Debug, Clone, Copy)]
pub struct FuzzyIndex {
    /// The declared field.
    pub field: &'static str,
    /// The main row's column holding the field's trigram count.
    pub count_column: &'static str,
    /// Where its matches are found.
    pub source: FuzzySource,
}

/// Where the matches of a fuzzy search are found.
#[derive(Debug, Clone, Copy)]
pub enum FuzzySource {
    /// A table of each row's trigrams, aggregated in SQL.
    Trigrams(TrigramTable),
    /// The in-memory index that follows this change log ([`crate::search_index`]):
    /// a list whose filter is the search alone is answered by it, and any other list
    /// reads the matches it found ([`Searched`]).
    Memory(ChangeLog),
}

/// The table of a fuzzy-searchable field's trigrams, one row per trigram of a row.
#[derive(Debug, Clone, Copy)]
pub struct TrigramTable {
    /// The trigram table.
    pub table: &'static str,
    /// Its column holding the owner's id.
    pub owner: &'static str,
    /// Its column holding the trigram.
    pub trigram: &'static str,
}

/// The matches the in-memory indexes found for a list's searches before it is
/// compiled: for each searched field and text, a JSON object of each matching id and
/// its hits (trigrams in common with the text), which the compiled SQL reads.
#[derive(Debug)]
pub struct Searched {
    /// The backend, whose JSON functions read the matches.
    pub backend: Backend,
    /// (field, text) -> `{"id": hits, ...}`.
    pub hits: HashMap<(&'static str, String), String>,
}

/// How one resource's filter fields map to SQL.
#[derive(Debug, Clone, Copy)]
pub struct FieldMap {
    /// Alias of the main table in queries (`e`).
    pub alias: &'static str,
    /// Qualified tenant column of the main row.
    pub tenant_column: &'static str,
    /// Qualified id column of the main row (the final sort key).
    pub id_column: &'static str,
    /// Declared path -> column.
    pub fields: &'static [(&'static str, Column)],
    /// Fuzzy-searchable fields.
    pub fuzzy: &'static [FuzzyIndex],
}

impl FieldMap {
    fn column(&self, field: &str) -> Result<Column, RepositoryError> {
        self.fields
            .iter()
            .find(|(path, _)| *path == field)
            .map(|(_, column)| *column)
            .ok_or_else(|| unmapped(field))
    }

    fn fuzzy_index(&self, field: &str) -> Result<FuzzyIndex, RepositoryError> {
        self.fuzzy
            .iter()
            .find(|f| f.field == field)
            .copied()
            .ok_or_else(|| unmapped(field))
    }

    /// The change log of the in-memory index that searches `field`, if one does.
    pub fn change_log(&self, field: &str) -> Option<ChangeLog> {
        self.fuzzy.iter().find_map(|index| match index.source {
            FuzzySource::Memory(changes) if index.field == field => Some(changes),
            _ => None,
        })
    }

    /// The change log of the in-memory index over this table's rows, if it has one.
    pub fn memory_index(&self) -> Option<ChangeLog> {
        self.fuzzy.iter().find_map(|index| match index.source {
            FuzzySource::Memory(changes) => Some(changes),
            FuzzySource::Trigrams(_) => None,
        })
    }

    fn id_of_main_row(&self) -> String {
        self.id_column.to_owned()
    }
}

fn unmapped(field: &str) -> RepositoryError {
    RepositoryError::Internal(format!("filter field '{field}' has no column mapping"))
}

/// Compiles a checked filter to a predicate over the main row. A fuzzy search that
/// `ranked` names reads the matches of the list's [`FUZZY_MATCHES`] expression rather
/// than finding them again.
///
/// # Errors
/// [`RepositoryError::Internal`] when a declared field has no mapping (a programming
/// error the contract tests catch).
pub fn compile(
    condition: &Condition,
    map: &FieldMap,
    tenant: &str,
    ranked: Option<&FuzzyRank>,
    searched: Option<&Searched>,
) -> Result<Sql, RepositoryError> {
    match condition {
        Condition::And(parts) => Ok(Sql::join(
            parts
                .iter()
                .map(|p| compile(p, map, tenant, ranked, searched))
                .collect::<Result<_, _>>()?,
            " AND ",
        )),
        Condition::Or(parts) => Ok(Sql::join(
            parts
                .iter()
                .map(|p| compile(p, map, tenant, ranked, searched))
                .collect::<Result<_, _>>()?,
            " OR ",
        )),
        Condition::Not(inner) => {
            let mut sql = Sql::from("(NOT ");
            sql.append(compile(inner, map, tenant, ranked, searched)?)
                .push(")");
            Ok(sql)
        }
        Condition::Compare { field, op, value } => compare(map.column(field)?, *op, value),
        Condition::Contains { field, value } => match map.column(field)? {
            Column::Repeated {
                table,
                owner,
                value: column,
            } => {
                let predicate = string_match(&format!("x.{column}"), value);
                Ok(side_matches(map, table, owner, tenant, predicate))
            }
            _ => Err(unmapped(field)),
        },
        Condition::HasKey { field, key } => match map.column(field)? {
            Column::Map {
                table,
                owner,
                key: key_column,
                ..
            } => {
                let mut predicate = Sql::new();
                predicate
                    .push(&format!("x.{key_column} = "))
                    .bind(key.as_str());
                Ok(side_matches(map, table, owner, tenant, predicate))
            }
            _ => Err(unmapped(field)),
        },
        Condition::MapValue {
            field,
            key,
            op,
            value,
        } => match map.column(field)? {
            Column::Map {
                table,
                owner,
                key: key_column,
                value: value_column,
            } => {
                let mut predicate = Sql::new();
                predicate
                    .push(&format!("x.{key_column} = "))
                    .bind(key.as_str())
                    .push(" AND ");
                let column = format!("x.{value_column}");
                let matched = match (op, value) {
                    (Comparator::Eq, value) => string_match(&column, value),
                    (Comparator::Ne, value) => negate(string_match(&column, value)),
                    (op, StringMatch::Exact(text)) => {
                        let mut sql = Sql::new();
                        sql.push(&format!("{column} {} ", operator(*op)))
                            .bind(text.as_str());
                        sql
                    }
                    (_, _) => string_match(&column, value),
                };
                predicate.append(matched);
                Ok(side_matches(map, table, owner, tenant, predicate))
            }
            _ => Err(unmapped(field)),
        },
        Condition::Present { field } => present(map, field),
        Condition::Fuzzy { field, text } => {
            let index = map.fuzzy_index(field)?;
            let mut sql = Sql::new();
            sql.push(&format!("{} IN ", map.id_of_main_row()));
            match ranked {
                Some(rank) if rank.field == *field && rank.text == *text => {
                    sql.push(&format!("(SELECT fuzzy_id FROM {FUZZY_MATCHES})"));
                }
                _ => {
                    sql.append(fuzzy_hits(&index, tenant, text, true, searched)?);
                }
            }
            Ok(sql)
        }
        Condition::Call { function, .. } => Err(RepositoryError::Internal(format!(
            "filter function '{function}' has no SQL translation"
        ))),
    }
}

/// `condition` as a filter over the facets an in-memory index keeps, when every part
/// of it refers to them: equality with the enum field, elements of the repeated field
/// (matched, or present), and their `AND`, `OR` and `NOT`. The translation keeps what
/// [`compile`] means: the enum column is never NULL, and a repeated field matches when
/// one of its elements does.
pub fn facet_filter(condition: &Condition, map: &FieldMap, facets: &Facets) -> Option<FacetFilter> {
    let all = |parts: &[Condition]| {
        parts
            .iter()
            .map(|part| facet_filter(part, map, facets))
            .collect::<Option<Vec<_>>>()
    };
    let repeated = |field: &str| {
        *field == *facets.values.0
            && matches!(map.column(field), Ok(Column::Repeated { table, .. })
                if table == facets.values.1.table)
    };
    match condition {
        Condition::And(parts) => all(parts).map(FacetFilter::All),
        Condition::Or(parts) => all(parts).map(FacetFilter::Any),
        Condition::Not(part) => {
            facet_filter(part, map, facets).map(|part| FacetFilter::Not(Box::new(part)))
        }
        Condition::Compare {
            field,
            op: op @ (Comparator::Eq | Comparator::Ne),
            value: Literal::Enum(value),
        } if *field == facets.kind.0
            && matches!(
                map.column(field),
                Ok(Column::Scalar {
                    unset: Unset::NotNull,
                    ..
                })
            ) =>
        {
            let equal = FacetFilter::Kind((*value).to_owned());
            Some(if *op == Comparator::Ne {
                FacetFilter::Not(Box::new(equal))
            } else {
                equal
            })
        }
        Condition::Contains { field, value } if repeated(field) => {
            Some(FacetFilter::Value(value.clone()))
        }
        Condition::Present { field } if repeated(field) => {
            Some(FacetFilter::Value(StringMatch::Prefix(String::new())))
        }
        _ => None,
    }
}

/// `e.id IN (SELECT x.owner FROM table x WHERE x.tenant_id = ? AND ...)`: the rows
/// owning a side row that matches. Uncorrelated, so the database may drive the query
/// from the side table's index (a rare tag) or probe it per row (a common one).
fn side_matches(map: &FieldMap, table: &str, owner: &str, tenant: &str, predicate: Sql) -> Sql {
    let mut sql = Sql::from(&format!(
        "{} IN (SELECT x.{owner} FROM {table} x WHERE x.tenant_id = ",
        map.id_column
    ));
    sql.bind(tenant).push(" AND ").append(predicate).push(")");
    sql
}

/// `EXISTS (SELECT 1 FROM table x WHERE x.tenant_id = e.tenant_id AND x.owner = e.id AND ...)`.
fn side_exists(map: &FieldMap, table: &str, owner: &str, predicate: Sql) -> Sql {
    let mut sql = Sql::from(&format!(
        "EXISTS (SELECT 1 FROM {table} x WHERE x.tenant_id = {} AND x.{owner} = {} AND ",
        map.tenant_column, map.id_column
    ));
    sql.append(predicate).push(")");
    sql
}

/// The ids whose trigrams match `text`, or the ids with their hits (`fuzzy_id`,
/// `fuzzy_hits`): aggregated from a trigram table, or read from what an in-memory
/// index found (`searched`).
///
/// # Errors
/// [`RepositoryError::Internal`] when an in-memory search was not run first.
fn fuzzy_hits(
    index: &FuzzyIndex,
    tenant: &str,
    text: &str,
    ids_only: bool,
    searched: Option<&Searched>,
) -> Result<Sql, RepositoryError> {
    let table = match index.source {
        FuzzySource::Trigrams(table) => table,
        FuzzySource::Memory(_) => {
            let (backend, hits) = searched
                .and_then(|s| Some((s.backend, s.hits.get(&(index.field, text.to_owned()))?)))
                .ok_or_else(|| {
                    RepositoryError::Internal(format!(
                        "the search of '{}' was not run before the list",
                        index.field
                    ))
                })?;
            let columns = if ids_only {
                "key"
            } else {
                "key AS fuzzy_id, CAST(value AS BIGINT) AS fuzzy_hits"
            };
            // The keys as the C collation of the ids they are compared with.
            let mut sql = match backend {
                Backend::Sqlite => Sql::from(&format!("(SELECT {columns} FROM json_each(")),
                Backend::Postgres => Sql::from(&format!(
                    "(SELECT {} FROM json_each_text(CAST(",
                    columns.replacen("key", "key COLLATE \"C\"", 1)
                )),
            };
            sql.bind(hits.as_str());
            sql.push(match backend {
                Backend::Sqlite => "))",
                Backend::Postgres => " AS json)))",
            });
            return Ok(sql);
        }
    };
    let trigrams = text_search::trigrams(text);
    let needed = text_search::required_hits(trigrams.len());
    let select = if ids_only {
        format!(
            "(SELECT t.{owner} FROM {table} t",
            owner = table.owner,
            table = table.table
        )
    } else {
        format!(
            "(SELECT t.{owner} AS fuzzy_id, COUNT(*) AS fuzzy_hits FROM {table} t",
            owner = table.owner,
            table = table.table
        )
    };
    let mut sql = Sql::from(&select);
    sql.push(" WHERE t.tenant_id = ").bind(tenant);
    sql.push(&format!(" AND t.{} IN ", table.trigram))
        .bind_list(trigrams);
    sql.push(&format!(" GROUP BY t.{} HAVING COUNT(*) >= ", table.owner))
        .bind(needed);
    sql.push(")");
    Ok(sql)
}

fn operator(op: Comparator) -> &'static str {
    match op {
        Comparator::Eq => "=",
        Comparator::Ne => "<>",
        Comparator::Lt => "<",
        Comparator::Le => "<=",
        Comparator::Gt => ">",
        Comparator::Ge => ">=",
    }
}

fn negate(sql: Sql) -> Sql {
    let mut negated = Sql::from("(NOT ");
    negated.append(sql).push(")");
    negated
}

/// A predicate that `column` (never NULL here) matches a string with wildcards.
fn string_match(column: &str, value: &StringMatch) -> Sql {
    let mut sql = Sql::new();
    match value {
        StringMatch::Exact(text) => {
            sql.push(&format!("{column} = ")).bind(text.as_str());
        }
        StringMatch::Prefix(prefix) if prefix.is_empty() => {
            sql.push("1 = 1");
        }
        StringMatch::Prefix(prefix) => {
            let length = prefix.chars().count() as i64;
            // Bound integers are BIGINT; PostgreSQL's substr takes INTEGER.
            sql.push(&format!("substr({column}, 1, CAST("))
                .bind(length)
                .push(" AS INTEGER)) = ")
                .bind(prefix.as_str());
        }
        StringMatch::Suffix(suffix) => {
            let length = suffix.chars().count() as i64;
            sql.push(&format!("(length({column}) >= "))
                .bind(length)
                .push(&format!(" AND substr({column}, length({column}) - CAST("))
                .bind(length)
                .push(" AS INTEGER) + 1) = ")
                .bind(suffix.as_str())
                .push(")");
        }
    }
    sql.push("");
    let mut wrapped = Sql::from("(");
    wrapped.append(sql).push(")");
    wrapped
}

fn literal_bind(value: &Literal) -> Option<Bind> {
    match value {
        Literal::String(StringMatch::Exact(text)) => Some(Bind::Text(text.clone())),
        Literal::String(_) => None,
        Literal::Integer(n) => Some(Bind::BigInt(*n)),
        Literal::Bool(b) => Some(Bind::Bool(*b)),
        Literal::Timestamp(t) => Some(Bind::BigInt(Timestamp::from_datetime(*t).unix_micros())),
        Literal::Enum(name) => Some(Bind::Text((*name).to_owned())),
    }
}

/// A comparison on a scalar column, honouring what NULL means for it.
fn compare(column: Column, op: Comparator, value: &Literal) -> Result<Sql, RepositoryError> {
    let Column::Scalar {
        column,
        kind,
        unset,
    } = column
    else {
        return Err(RepositoryError::Internal(
            "comparison on a field that is not a scalar column".into(),
        ));
    };
    let mut matched = match (value, literal_bind(value)) {
        (Literal::String(pattern), None) => {
            let positive = string_match(column, pattern);
            if op == Comparator::Ne {
                negate(positive)
            } else {
                positive
            }
        }
        (_, Some(bind)) => {
            let mut sql = Sql::from(&format!("{column} {} ", operator(op)));
            sql.bind(bind);
            sql
        }
        (_, None) => {
            return Err(RepositoryError::Internal(
                "unsupported filter literal".into(),
            ));
        }
    };
    let zero = matches!(value, Literal::Enum(name) if name.ends_with("_UNSPECIFIED"));
    match unset {
        Unset::NotNull => {}
        Unset::InMessage => {
            let mut guarded = Sql::from(&format!("({column} IS NOT NULL AND "));
            guarded.append(matched).push(")");
            matched = guarded;
        }
        Unset::ZeroValue if zero => {
            matched = Sql::from(&format!(
                "({column} IS {}NULL)",
                if op == Comparator::Ne { "NOT " } else { "" }
            ));
        }
        Unset::ZeroValue => {
            let glue = if op == Comparator::Ne {
                format!("({column} IS NULL OR ")
            } else {
                format!("({column} IS NOT NULL AND ")
            };
            let mut guarded = Sql::from(&glue);
            guarded.append(matched).push(")");
            matched = guarded;
        }
    }
    let _ = kind;
    Ok(matched)
}

/// Presence: non-default scalars, non-empty repeated fields and maps, and
/// messages with a set field.
fn present(map: &FieldMap, field: &str) -> Result<Sql, RepositoryError> {
    Ok(match map.column(field)? {
        Column::Scalar {
            column,
            kind,
            unset,
        } => Sql::from(&match (kind, unset) {
            (_, Unset::ZeroValue | Unset::InMessage) => format!("({column} IS NOT NULL)"),
            (ScalarKind::Text | ScalarKind::Enum, Unset::NotNull) => format!("({column} <> '')"),
            (ScalarKind::Integer | ScalarKind::Timestamp, Unset::NotNull) => {
                format!("({column} <> 0)")
            }
            (ScalarKind::Bool, Unset::NotNull) => format!("({column} = TRUE)"),
        }),
        Column::Repeated { table, owner, .. } | Column::Map { table, owner, .. } => {
            side_exists(map, table, owner, Sql::from("1 = 1"))
        }
        Column::Message { present } => Sql::from(&format!("({present})")),
    })
}

/// The SQL expression a sort key orders by.
fn sort_expression(map: &FieldMap, key: &SortKey) -> Result<String, RepositoryError> {
    match key.by {
        SortBy::Field(field) => match map.column(field)? {
            Column::Scalar { column, .. } => Ok(column.to_owned()),
            _ => Err(RepositoryError::Internal(format!(
                "cannot sort by '{field}'"
            ))),
        },
        SortBy::Relevance => Ok(RELEVANCE.to_owned()),
    }
}

/// The column alias of the relevance score in ranked queries.
pub const RELEVANCE: &str = "fuzzy_score";

/// The common table expression of a ranked list holding the fuzzy search's matches and
/// their hits, found once for the page, its ranking and its count.
const FUZZY_MATCHES: &str = "fuzzy_matches";

/// The pieces of a list query over one resource table.
#[derive(Debug)]
pub struct CompiledList {
    /// `WITH` clause the statement starts with (the ranked fuzzy search's matches),
    /// empty when unranked.
    pub with: Sql,
    /// Extra FROM clause (the fuzzy ranking join), empty when unranked.
    pub join: Sql,
    /// Extra selected column (the relevance score), empty when unranked.
    pub select: String,
    /// WHERE predicate without the keyset position: tenant, soft delete, filter.
    pub filter: Sql,
    /// The keyset predicate (start after the cursor), or `1 = 1`.
    pub after: Sql,
    /// ORDER BY clause body.
    pub order: String,
    /// Sort expressions, in order, last the id (to build cursors).
    pub sort_columns: Vec<String>,
}

/// Compiles a list query over the main table aliased by `map.alias`.
///
/// `deleted_column` is the soft-delete column, or `None` for resources without soft
/// delete. The id sort direction follows the last sort key so that single-direction
/// orders compare row values and use the index.
///
/// # Errors
/// [`RepositoryError::Internal`] for unmapped fields or a cursor that does not fit the
/// order (tokens are signed and bound to the order, so this is a bug).
pub fn compile_list(
    query: &ListQuery,
    map: &FieldMap,
    tenant: &str,
    deleted_column: Option<&str>,
    searched: Option<&Searched>,
) -> Result<CompiledList, RepositoryError> {
    let mut filter = Sql::from(&format!("{} = ", map.tenant_column));
    filter.bind(tenant);
    if let (Some(column), false) = (deleted_column, query.show_deleted) {
        filter.push(&format!(" AND {column} IS NULL"));
    }
    if let Some(condition) = &query.condition {
        filter.push(" AND ").append(compile(
            condition,
            map,
            tenant,
            query.rank.as_ref(),
            searched,
        )?);
    }
    let (with, join, relevance) = match &query.rank {
        Some(FuzzyRank { field, text }) => {
            let index = map.fuzzy_index(field)?;
            let query_count = text_search::trigrams(text).len() as i64;
            // MATERIALIZED: found once though the page and its count both read it.
            let mut with = Sql::from(&format!("WITH {FUZZY_MATCHES} AS MATERIALIZED "));
            with.append(fuzzy_hits(&index, tenant, text, false, searched)?)
                .push(" ");
            let join = Sql::from(&format!(
                " JOIN {FUZZY_MATCHES} fz ON fz.fuzzy_id = {}",
                map.id_column
            ));
            let relevance = format!(
                "((fz.fuzzy_hits * {scale}) / ({query_count} + {count} - fz.fuzzy_hits))",
                scale = text_search::SIMILARITY_SCALE,
                count = index.count_column
            );
            (with, join, Some(relevance))
        }
        None => (Sql::new(), Sql::new(), None),
    };
    let select = relevance
        .as_ref()
        .map(|expr| format!("{expr} AS {RELEVANCE}"))
        .unwrap_or_default();
    let mut keys: Vec<(String, bool)> = query
        .order
        .iter()
        .map(|key| Ok((sort_expression(map, key)?, key.descending)))
        .collect::<Result<_, RepositoryError>>()?;
    let id_descending = keys.last().is_some_and(|(_, descending)| *descending);
    keys.push((map.id_column.to_owned(), id_descending));
    // ORDER BY and the keyset predicate use the relevance expression itself: a select
    // alias is not visible in WHERE on PostgreSQL.
    let sql_keys = keys
        .iter()
        .map(|(expr, descending)| match (expr.as_str(), &relevance) {
            (RELEVANCE, Some(relevance)) => Ok((relevance.clone(), *descending)),
            (RELEVANCE, None) => Err(RepositoryError::Internal(
                "sorting by relevance without a fuzzy search".into(),
            )),
            _ => Ok((expr.clone(), *descending)),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let order = sql_keys
        .iter()
        .map(|(expr, descending)| format!("{expr} {}", if *descending { "DESC" } else { "ASC" }))
        .collect::<Vec<_>>()
        .join(", ");
    let after = match &query.after {
        None => Sql::from("1 = 1"),
        Some(values) => keyset_after(&sql_keys, values)?,
    };
    Ok(CompiledList {
        with,
        join,
        select,
        filter,
        after,
        order,
        sort_columns: keys.into_iter().map(|(expr, _)| expr).collect(),
    })
}

fn cursor_bind(value: &CursorValue) -> Result<Bind, RepositoryError> {
    match value {
        CursorValue::Text(text) => Ok(Bind::Text(text.clone())),
        CursorValue::Integer(n) => Ok(Bind::BigInt(*n)),
        CursorValue::Bool(b) => Ok(Bind::Bool(*b)),
        CursorValue::Float(f) => Ok(Bind::Double(*f)),
        CursorValue::Null => Err(RepositoryError::Internal("NULL in a keyset cursor".into())),
    }
}

/// Rows strictly after the position `values` in the order `keys`.
fn keyset_after(keys: &[(String, bool)], values: &[CursorValue]) -> Result<Sql, RepositoryError> {
    if keys.len() != values.len() {
        return Err(RepositoryError::Internal(
            "the page token's position does not fit the order".into(),
        ));
    }
    let binds = values
        .iter()
        .map(cursor_bind)
        .collect::<Result<Vec<_>, _>>()?;
    let uniform = keys.iter().all(|(_, d)| *d == keys[0].1);
    if uniform {
        let columns = keys
            .iter()
            .map(|(expr, _)| expr.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        let mut sql = Sql::from(&format!(
            "({columns}) {} ",
            if keys[0].1 { "<" } else { ">" }
        ));
        sql.bind_list(binds);
        return Ok(sql);
    }
    let mut alternatives = Vec::new();
    for i in 0..keys.len() {
        let mut parts = Vec::new();
        for (j, bind) in binds.iter().enumerate().take(i) {
            let mut eq = Sql::from(&format!("{} = ", keys[j].0));
            eq.bind(bind.clone());
            parts.push(eq);
        }
        let (expr, descending) = &keys[i];
        let mut step = Sql::from(&format!("{expr} {} ", if *descending { "<" } else { ">" }));
        step.bind(binds[i].clone());
        parts.push(step);
        alternatives.push(Sql::join(parts, " AND "));
    }
    Ok(Sql::join(alternatives, " OR "))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAP: FieldMap = FieldMap {
        alias: "e",
        tenant_column: "e.tenant_id",
        id_column: "e.id",
        fields: &[
            (
                "displayName",
                Column::Scalar {
                    column: "e.display_name",
                    kind: ScalarKind::Text,
                    unset: Unset::NotNull,
                },
            ),
            (
                "screeningStatus",
                Column::Scalar {
                    column: "e.screening_status",
                    kind: ScalarKind::Enum,
                    unset: Unset::ZeroValue,
                },
            ),
            (
                "riskDetails.riskLevel",
                Column::Scalar {
                    column: "e.risk_level",
                    kind: ScalarKind::Enum,
                    unset: Unset::InMessage,
                },
            ),
            (
                "tags",
                Column::Repeated {
                    table: "entity_tags",
                    owner: "entity_id",
                    value: "tag",
                },
            ),
        ],
        fuzzy: &[FuzzyIndex {
            field: "displayName",
            count_column: "e.display_name_trigrams",
            source: FuzzySource::Trigrams(TrigramTable {
                table: "entity_name_trigrams",
                owner: "entity_id",
                trigram: "trigram",
            }),
        }],
    };

    fn text(condition: Condition) -> String {
        compile(&condition, &MAP, "t1", None, None)
            .unwrap()
            .debug_text()
    }

    #[test]
    fn zero_value_enums_match_null() {
        let ne = Condition::Compare {
            field: "screeningStatus",
            op: Comparator::Ne,
            value: Literal::Enum("CLEAR"),
        };
        assert_eq!(
            text(ne),
            "(e.screening_status IS NULL OR e.screening_status <> ?)"
        );
        let unspecified = Condition::Compare {
            field: "screeningStatus",
            op: Comparator::Eq,
            value: Literal::Enum("SCREENING_STATUS_UNSPECIFIED"),
        };
        assert_eq!(text(unspecified), "(e.screening_status IS NULL)");
    }

    #[test]
    fn fields_in_unset_messages_never_match() {
        let ne = Condition::Compare {
            field: "riskDetails.riskLevel",
            op: Comparator::Ne,
            value: Literal::Enum("HIGH"),
        };
        assert_eq!(text(ne), "(e.risk_level IS NOT NULL AND e.risk_level <> ?)");
    }

    #[test]
    fn repeated_fields_select_owners_from_the_side_table() {
        let contains = Condition::Contains {
            field: "tags",
            value: StringMatch::Prefix("re".into()),
        };
        assert_eq!(
            text(contains),
            "e.id IN (SELECT x.entity_id FROM entity_tags x WHERE x.tenant_id = ? AND (substr(x.tag, 1, CAST(? AS INTEGER)) = ?))"
        );
    }

    #[test]
    fn keyset_uses_row_values_for_one_direction() {
        let keys = vec![
            ("e.create_time".to_string(), false),
            ("e.id".to_string(), false),
        ];
        let sql = keyset_after(
            &keys,
            &[CursorValue::Integer(5), CursorValue::Text("a".into())],
        )
        .unwrap();
        assert_eq!(sql.debug_text(), "(e.create_time, e.id) > (?, ?)");
    }

    #[test]
    fn keyset_expands_mixed_directions() {
        let keys = vec![
            ("e.display_name".to_string(), true),
            ("e.id".to_string(), false),
        ];
        let sql = keyset_after(
            &keys,
            &[CursorValue::Text("b".into()), CursorValue::Text("a".into())],
        )
        .unwrap();
        assert_eq!(
            sql.debug_text(),
            "((e.display_name < ?) OR (e.display_name = ? AND e.id > ?))"
        );
    }

    #[test]
    fn a_ranked_search_finds_its_matches_once_for_filter_and_rank() {
        let search = || Condition::Fuzzy {
            field: "displayName",
            text: "jon smith".into(),
        };
        let query = ListQuery {
            condition: Some(Condition::And(vec![
                search(),
                Condition::Not(Box::new(Condition::Fuzzy {
                    field: "displayName",
                    text: "jane".into(),
                })),
            ])),
            rank: Some(FuzzyRank {
                field: "displayName",
                text: "jon smith".into(),
            }),
            ..ListQuery::first(
                SortKey {
                    by: SortBy::Relevance,
                    descending: true,
                },
                20,
            )
        };
        let compiled = compile_list(&query, &MAP, "t1", None, None).unwrap();
        assert!(
            compiled
                .with
                .debug_text()
                .starts_with("WITH fuzzy_matches AS MATERIALIZED (SELECT t.entity_id AS fuzzy_id")
        );
        assert_eq!(
            compiled.join.debug_text(),
            " JOIN fuzzy_matches fz ON fz.fuzzy_id = e.id"
        );
        let filter = compiled.filter.debug_text();
        assert!(filter.contains("e.id IN (SELECT fuzzy_id FROM fuzzy_matches)"));
        assert_eq!(
            filter.matches("entity_name_trigrams").count(),
            1,
            "only the unranked search aggregates its own trigrams: {filter}"
        );
    }

    #[test]
    fn unmapped_fields_are_internal_errors() {
        let condition = Condition::Present { field: "colour" };
        assert!(matches!(
            compile(&condition, &MAP, "t", None, None),
            Err(RepositoryError::Internal(_))
        ));
    }
}
