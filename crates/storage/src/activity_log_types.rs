//! The activity log type repository over Diesel: a row of queryable columns with the
//! JSON body, and the trigrams of the display name for fuzzy search.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use rics_aip::page_token::CursorValue;
use rics_domain::activity::model::ActivityLogType;
use rics_domain::event::NewEvent;
use rics_domain::list::{ListQuery, Page};
use rics_domain::principal::TenantId;
use rics_domain::repository::{CreateOutcome, IdempotencyKey, RepositoryError, ResourceStore};
use rics_domain::resource;
use rics_domain::text_search;
use rics_domain::time::Timestamp;

use crate::connection::DbConnection;
use crate::database::Database;
use crate::error::{repository_error, revision_missed};
use crate::events::insert_events;
use crate::filter::{Column, FieldMap, FuzzyIndex, RELEVANCE, ScalarKind, Unset, compile_list};
use crate::idempotency;
use crate::paging::load_page;
use crate::rows::{internal, micros, timestamp};
use crate::schema::{activity_log_type_name_trigrams, activity_log_types};
use crate::sql::insert_rows;

/// Where the activity log type filter fields live.
pub const ACTIVITY_LOG_TYPE_FIELDS: FieldMap = FieldMap {
    alias: "lt",
    tenant_column: "lt.tenant_id",
    id_column: "lt.id",
    fields: &[
        (
            "displayName",
            Column::Scalar {
                column: "lt.display_name",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "activityType",
            Column::Scalar {
                column: "lt.activity_type",
                kind: ScalarKind::Enum,
                unset: Unset::ZeroValue,
            },
        ),
        (
            "createTime",
            Column::Scalar {
                column: "lt.create_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
        (
            "updateTime",
            Column::Scalar {
                column: "lt.update_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
        (
            "deleteTime",
            Column::Scalar {
                column: "lt.delete_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::InMessage,
            },
        ),
    ],
    fuzzy: &[FuzzyIndex {
        field: "displayName",
        table: "activity_log_type_name_trigrams",
        owner: "activity_log_type_id",
        trigram: "trigram",
        count_column: "lt.display_name_trigrams",
    }],
};

/// Fields kept in columns only, not in the body.
const COLUMN_FIELDS: [&str; 7] = [
    "name",
    "uid",
    "createTime",
    "updateTime",
    "deleteTime",
    "purgeTime",
    "etag",
];

/// One row of `activity_log_types`.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = activity_log_types, primary_key(tenant_id, id), treat_none_as_null = true)]
struct TypeRow {
    tenant_id: String,
    id: String,
    uid: String,
    revision: i64,
    display_name: String,
    display_name_trigrams: i64,
    activity_type: Option<String>,
    body: String,
    create_time: i64,
    update_time: i64,
    delete_time: Option<i64>,
    purge_time: Option<i64>,
}

/// A type row with its relevance, in ranked searches.
#[derive(Debug, QueryableByName)]
struct RankedTypeRow {
    #[diesel(embed)]
    log_type: TypeRow,
    #[diesel(sql_type = BigInt)]
    fuzzy_score: i64,
}

impl TypeRow {
    fn from_type(
        tenant: &TenantId,
        log_type: &ActivityLogType,
    ) -> Result<TypeRow, RepositoryError> {
        let mut body =
            serde_json::to_value(log_type).map_err(|e| internal("activity log type to JSON", e))?;
        if let Some(map) = body.as_object_mut() {
            for field in COLUMN_FIELDS {
                map.remove(field);
            }
        }
        Ok(TypeRow {
            tenant_id: tenant.as_str().to_owned(),
            id: log_type.id().to_owned(),
            uid: log_type.uid.clone(),
            revision: log_type.revision,
            display_name: log_type.display_name.clone(),
            display_name_trigrams: text_search::trigrams(&log_type.display_name).len() as i64,
            activity_type: (!log_type.activity_type.is_unspecified())
                .then(|| log_type.activity_type.as_str().to_owned()),
            body: body.to_string(),
            create_time: micros(log_type.create_time).unwrap_or_default(),
            update_time: micros(log_type.update_time).unwrap_or_default(),
            delete_time: micros(log_type.delete_time),
            purge_time: micros(log_type.purge_time),
        })
    }

    fn into_type(self) -> Result<ActivityLogType, RepositoryError> {
        let mut log_type: ActivityLogType = serde_json::from_str(&self.body)
            .map_err(|e| internal("stored activity log type JSON", e))?;
        log_type.name = ActivityLogType::name_of(&self.id);
        log_type.etag = resource::etag(&self.uid, self.revision);
        log_type.uid = self.uid;
        log_type.revision = self.revision;
        log_type.create_time = Some(timestamp(self.create_time)?);
        log_type.update_time = Some(timestamp(self.update_time)?);
        log_type.delete_time = self.delete_time.map(timestamp).transpose()?;
        log_type.purge_time = self.purge_time.map(timestamp).transpose()?;
        Ok(log_type)
    }

    /// The value of a sort expression of [`ACTIVITY_LOG_TYPE_FIELDS`] for this row.
    fn sort_value(
        &self,
        expression: &str,
        relevance: Option<i64>,
    ) -> Result<CursorValue, RepositoryError> {
        Ok(match expression {
            "lt.id" => CursorValue::Text(self.id.clone()),
            "lt.display_name" => CursorValue::Text(self.display_name.clone()),
            "lt.create_time" => CursorValue::Integer(self.create_time),
            "lt.update_time" => CursorValue::Integer(self.update_time),
            RELEVANCE => {
                CursorValue::Integer(relevance.ok_or_else(|| internal("sort", "no relevance"))?)
            }
            other => return Err(internal("no cursor value for sort expression", other)),
        })
    }

    /// The type and its keyset position in a page sorted by `sort_columns`.
    fn into_page_item(
        self,
        relevance: Option<i64>,
        sort_columns: &[String],
    ) -> Result<(ActivityLogType, Vec<CursorValue>), RepositoryError> {
        let position = sort_columns
            .iter()
            .map(|column| self.sort_value(column, relevance))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((self.into_type()?, position))
    }
}

/// Replaces the name trigrams of the type `row` describes.
fn write_trigrams(conn: &mut DbConnection, row: &TypeRow) -> QueryResult<()> {
    diesel::delete(
        activity_log_type_name_trigrams::table
            .filter(activity_log_type_name_trigrams::tenant_id.eq(&row.tenant_id))
            .filter(activity_log_type_name_trigrams::activity_log_type_id.eq(&row.id)),
    )
    .execute(conn)?;
    let trigrams = text_search::trigrams(&row.display_name)
        .into_iter()
        .map(|trigram| {
            vec![
                row.tenant_id.as_str().into(),
                row.id.as_str().into(),
                trigram.into(),
            ]
        })
        .collect();
    insert_rows(
        conn,
        "activity_log_type_name_trigrams",
        &["tenant_id", "activity_log_type_id", "trigram"],
        trigrams,
    )
}

fn load_row(
    conn: &mut DbConnection,
    tenant: &str,
    id: &str,
) -> Result<Option<TypeRow>, RepositoryError> {
    activity_log_types::table
        .filter(activity_log_types::tenant_id.eq(tenant))
        .filter(activity_log_types::id.eq(id))
        .select(TypeRow::as_select())
        .first(conn)
        .optional()
        .map_err(repository_error)
}

/// The Diesel activity log type repository.
#[derive(Debug, Clone)]
pub struct DieselActivityLogTypeRepository {
    db: Database,
}

impl DieselActivityLogTypeRepository {
    /// A repository over `db`.
    pub fn new(db: Database) -> DieselActivityLogTypeRepository {
        DieselActivityLogTypeRepository { db }
    }
}

#[async_trait]
impl ResourceStore<ActivityLogType> for DieselActivityLogTypeRepository {
    async fn create<'a>(
        &self,
        tenant: &TenantId,
        log_type: &ActivityLogType,
        key: Option<&'a IdempotencyKey>,
        new_events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError> {
        let row = TypeRow::from_type(tenant, log_type)?;
        let (key, new_events) = (key.cloned(), new_events.to_vec());
        self.db
            .write(move |conn| {
                let now = timestamp(row.create_time)?;
                if let Some(replay) = idempotency::claim(conn, &row.tenant_id, key.as_ref(), now)? {
                    return Ok(replay);
                }
                diesel::insert_into(activity_log_types::table)
                    .values(&row)
                    .execute(conn)
                    .map_err(repository_error)?;
                write_trigrams(conn, &row).map_err(repository_error)?;
                insert_events(conn, &row.tenant_id, &new_events).map_err(repository_error)?;
                Ok(CreateOutcome::Created)
            })
            .await
    }

    async fn get(
        &self,
        tenant: &TenantId,
        id: &str,
    ) -> Result<Option<ActivityLogType>, RepositoryError> {
        let (tenant, id) = (tenant.as_str().to_owned(), id.to_owned());
        // One statement: no transaction needed.
        self.db
            .run(move |conn| {
                load_row(conn, &tenant, &id)?
                    .map(TypeRow::into_type)
                    .transpose()
            })
            .await
    }

    async fn list<'a>(
        &self,
        tenant: &TenantId,
        _parent: Option<&'a str>,
        query: &ListQuery,
    ) -> Result<Page<ActivityLogType>, RepositoryError> {
        let compiled = compile_list(
            query,
            &ACTIVITY_LOG_TYPE_FIELDS,
            tenant.as_str(),
            Some("lt.delete_time"),
        )?;
        let query = query.clone();
        self.db
            .read(move |conn| {
                let sort_columns = compiled.sort_columns.clone();
                let from = "activity_log_types lt";
                if query.rank.is_some() {
                    load_page(conn, from, "lt.*", compiled, &query, |r: RankedTypeRow| {
                        r.log_type
                            .into_page_item(Some(r.fuzzy_score), &sort_columns)
                    })
                } else {
                    load_page(conn, from, "lt.*", compiled, &query, |row: TypeRow| {
                        row.into_page_item(None, &sort_columns)
                    })
                }
            })
            .await
    }

    async fn update(
        &self,
        tenant: &TenantId,
        log_type: &ActivityLogType,
        expected_revision: i64,
        new_events: &[NewEvent],
    ) -> Result<(), RepositoryError> {
        let row = TypeRow::from_type(tenant, log_type)?;
        let new_events = new_events.to_vec();
        self.db
            .write(move |conn| {
                let updated = diesel::update(
                    activity_log_types::table
                        .filter(activity_log_types::tenant_id.eq(&row.tenant_id))
                        .filter(activity_log_types::id.eq(&row.id))
                        .filter(activity_log_types::revision.eq(expected_revision)),
                )
                .set(&row)
                .execute(conn)
                .map_err(repository_error)?;
                if updated == 0 {
                    return Err(revision_missed(load_row(conn, &row.tenant_id, &row.id)?));
                }
                write_trigrams(conn, &row).map_err(repository_error)?;
                insert_events(conn, &row.tenant_id, &new_events).map_err(repository_error)?;
                Ok(())
            })
            .await
    }

    async fn find_purge_due(
        &self,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<(TenantId, String)>, RepositoryError> {
        self.db
            .read(move |conn| crate::purge::find_due(conn, "activity_log_types", now, limit))
            .await
    }

    async fn purge(
        &self,
        tenant: &TenantId,
        id: &str,
        now: Timestamp,
        new_events: &[NewEvent],
    ) -> Result<(), RepositoryError> {
        let (tenant, id, new_events) = (
            tenant.as_str().to_owned(),
            id.to_owned(),
            new_events.to_vec(),
        );
        self.db
            .write(move |conn| {
                // The condition is part of the DELETE: a type undeleted meanwhile has
                // no purge time and stays. Its trigrams go with it (cascade).
                crate::purge::remove_due(conn, "activity_log_types", &tenant, &id, now, &new_events)
            })
            .await
    }
}
