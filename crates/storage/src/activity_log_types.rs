//! The activity log type repository over Diesel: a row of queryable columns with the
//! JSON body, and the trigrams of the display name for fuzzy search.

use diesel::prelude::*;
use rics_aip::page_token::CursorValue;
use rics_domain::activity::model::ActivityLogType;
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_domain::resource;
use rics_domain::text_search;

use crate::connection::DbConnection;
use crate::error::repository_error;
use crate::filter::{Column, FieldMap, FuzzyIndex, FuzzySource, ScalarKind, TrigramTable, Unset};
use crate::rows::{body_without, internal, micros, timestamp};
use crate::schema::activity_log_types;
use crate::side_rows::replace_trigrams;
use crate::store::{DieselStore, StoredTable, Write, row_statements};

/// The trigrams of a type's display name, for fuzzy search.
const NAME_TRIGRAMS: FuzzyIndex = FuzzyIndex {
    field: "displayName",
    count_column: "lt.display_name_trigrams",
    source: FuzzySource::Trigrams(NAME_TRIGRAM_ROWS),
};

/// The rows of each display name's trigrams.
const NAME_TRIGRAM_ROWS: TrigramTable = TrigramTable {
    table: "activity_log_type_name_trigrams",
    owner: "activity_log_type_id",
    trigram: "trigram",
};

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
    fuzzy: &[NAME_TRIGRAMS],
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
pub struct TypeRow {
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

impl TypeRow {
    fn from_type(
        tenant: &TenantId,
        log_type: &ActivityLogType,
    ) -> Result<TypeRow, RepositoryError> {
        Ok(TypeRow {
            tenant_id: tenant.as_str().to_owned(),
            id: log_type.id().to_owned(),
            uid: log_type.uid.clone(),
            revision: log_type.revision,
            display_name: log_type.display_name.clone(),
            display_name_trigrams: text_search::trigrams(&log_type.display_name).len() as i64,
            activity_type: (!log_type.activity_type.is_unspecified())
                .then(|| log_type.activity_type.as_str().to_owned()),
            body: body_without(
                serde_json::to_value(log_type),
                &COLUMN_FIELDS,
                "activity log type to JSON",
            )?,
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
}

/// The activity log types table, for [`DieselStore`]: the trigrams of a type's display
/// name are side rows.
#[derive(Debug, Clone, Copy)]
pub struct ActivityLogTypeTable;

/// The Diesel activity log type repository.
pub type DieselActivityLogTypeRepository = DieselStore<ActivityLogTypeTable>;

impl StoredTable for ActivityLogTypeTable {
    type Resource = ActivityLogType;
    type Row = TypeRow;

    const TABLE: &'static str = "activity_log_types";
    const FIELDS: &'static FieldMap = &ACTIVITY_LOG_TYPE_FIELDS;

    row_statements!(activity_log_types);

    fn row(tenant: &TenantId, log_type: &ActivityLogType) -> Result<TypeRow, RepositoryError> {
        TypeRow::from_type(tenant, log_type)
    }

    fn sort_value(row: &TypeRow, column: &str) -> Option<CursorValue> {
        Some(match column {
            "lt.id" => CursorValue::Text(row.id.clone()),
            "lt.display_name" => CursorValue::Text(row.display_name.clone()),
            "lt.create_time" => CursorValue::Integer(row.create_time),
            "lt.update_time" => CursorValue::Integer(row.update_time),
            _ => return None,
        })
    }

    fn resources(
        _conn: &mut DbConnection,
        _tenant: &str,
        rows: Vec<TypeRow>,
    ) -> Result<Vec<ActivityLogType>, RepositoryError> {
        rows.into_iter().map(TypeRow::into_type).collect()
    }

    fn write_side_rows(
        conn: &mut DbConnection,
        _resource: &ActivityLogType,
        row: &TypeRow,
        _write: Write,
    ) -> Result<(), RepositoryError> {
        replace_trigrams(
            conn,
            &NAME_TRIGRAM_ROWS,
            &row.tenant_id,
            &row.id,
            &row.display_name,
        )
        .map_err(repository_error)
    }
}
