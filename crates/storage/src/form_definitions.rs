//! The form definition repository over Diesel: the definitions, and every revision of
//! their schema beside them.

use async_trait::async_trait;
use diesel::prelude::*;
use rics_aip::page_token::CursorValue;
use rics_domain::form_definition::model::{FormDefinition, FormSchema};
use rics_domain::form_definition::ports::FormRevisions;
use rics_domain::form_definition::response_schema::response_schema;
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_domain::resource;
use rics_domain::time::Timestamp;

use crate::connection::DbConnection;
use crate::error::repository_error;
use crate::filter::{Column, FieldMap, ScalarKind, Unset};
use crate::rows::{body_without, internal, micros, timestamp};
use crate::schema::{form_definition_revisions, form_definitions};
use crate::store::{DieselStore, StoredTable, Write, row_statements};

/// Where the form definition filter fields live.
const DEFINITION_FIELDS: FieldMap = FieldMap {
    alias: "fd",
    tenant_column: "fd.tenant_id",
    id_column: "fd.id",
    fields: &[
        (
            "displayName",
            Column::Scalar {
                column: "fd.display_name",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "revisionId",
            Column::Scalar {
                column: "fd.revision_id",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "createTime",
            Column::Scalar {
                column: "fd.create_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
        (
            "updateTime",
            Column::Scalar {
                column: "fd.update_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
        (
            "deleteTime",
            Column::Scalar {
                column: "fd.delete_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::InMessage,
            },
        ),
    ],
    fuzzy: &[],
};

/// Fields kept in columns, or derived when read (`responseSchema`), rather than in the
/// body.
const COLUMN_FIELDS: [&str; 11] = [
    "name",
    "uid",
    "displayName",
    "responseSchema",
    "revisionId",
    "revisionCreateTime",
    "createTime",
    "updateTime",
    "deleteTime",
    "purgeTime",
    "etag",
];

/// One row of `form_definitions`.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = form_definitions, primary_key(tenant_id, id), treat_none_as_null = true)]
pub struct FormDefinitionRow {
    tenant_id: String,
    id: String,
    uid: String,
    revision: i64,
    display_name: String,
    revision_id: String,
    revision_create_time: i64,
    body: String,
    create_time: i64,
    update_time: i64,
    delete_time: Option<i64>,
    purge_time: Option<i64>,
}

impl FormDefinitionRow {
    fn from_definition(
        tenant: &TenantId,
        definition: &FormDefinition,
    ) -> Result<FormDefinitionRow, RepositoryError> {
        Ok(FormDefinitionRow {
            tenant_id: tenant.as_str().to_owned(),
            id: definition.id().to_owned(),
            uid: definition.uid.clone(),
            revision: definition.revision,
            display_name: definition.display_name.clone(),
            revision_id: definition.revision_id.clone(),
            revision_create_time: definition
                .revision_create_time
                .map_or(0, Timestamp::unix_micros),
            body: body_without(
                serde_json::to_value(definition),
                &COLUMN_FIELDS,
                "form definition to JSON",
            )?,
            create_time: definition.create_time.map_or(0, Timestamp::unix_micros),
            update_time: definition.update_time.map_or(0, Timestamp::unix_micros),
            delete_time: micros(definition.delete_time),
            purge_time: micros(definition.purge_time),
        })
    }

    /// The definition of this row, with the response schema its schema derives.
    fn into_definition(self) -> Result<FormDefinition, RepositoryError> {
        let mut definition: FormDefinition = serde_json::from_str(&self.body)
            .map_err(|e| internal("stored form definition JSON", e))?;
        definition.name = FormDefinition::name_of(&self.id);
        definition.etag = resource::etag(&self.uid, self.revision);
        definition.uid = self.uid;
        definition.revision = self.revision;
        definition.display_name = self.display_name;
        definition.revision_id = self.revision_id;
        definition.revision_create_time = Some(timestamp(self.revision_create_time)?);
        definition.response_schema = definition.schema.as_ref().map(response_schema);
        definition.create_time = Some(timestamp(self.create_time)?);
        definition.update_time = Some(timestamp(self.update_time)?);
        definition.delete_time = self.delete_time.map(timestamp).transpose()?;
        definition.purge_time = self.purge_time.map(timestamp).transpose()?;
        Ok(definition)
    }
}

/// One row of `form_definition_revisions`.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = form_definition_revisions)]
struct RevisionRow {
    tenant_id: String,
    definition_id: String,
    revision_id: String,
    form_schema: String,
    create_time: i64,
}

/// Stores the revision `definition` is at, unless it is stored already (an update
/// that left the schema as it was).
fn store_revision(
    conn: &mut DbConnection,
    row: &FormDefinitionRow,
    definition: &FormDefinition,
) -> Result<(), RepositoryError> {
    let stored = form_definition_revisions::table
        .filter(form_definition_revisions::tenant_id.eq(&row.tenant_id))
        .filter(form_definition_revisions::definition_id.eq(&row.id))
        .filter(form_definition_revisions::revision_id.eq(&row.revision_id))
        .count()
        .get_result::<i64>(conn)
        .map_err(repository_error)?;
    if stored > 0 {
        return Ok(());
    }
    let schema = definition.schema.clone().unwrap_or_default();
    let revision = RevisionRow {
        tenant_id: row.tenant_id.clone(),
        definition_id: row.id.clone(),
        revision_id: row.revision_id.clone(),
        form_schema: serde_json::to_string(&schema)
            .map_err(|e| internal("form schema to JSON", e))?,
        create_time: row.revision_create_time,
    };
    diesel::insert_into(form_definition_revisions::table)
        .values(&revision)
        .execute(conn)
        .map_err(repository_error)?;
    Ok(())
}

/// Stores the definitions a new tenant starts with (seeded, without events), each with
/// its first revision, in the caller's transaction.
///
/// # Errors
/// Database failures.
pub(crate) fn insert_seeded(
    conn: &mut DbConnection,
    tenant: &str,
    definitions: &[FormDefinition],
) -> Result<(), RepositoryError> {
    let tenant = TenantId::new(tenant);
    for definition in definitions {
        let row = FormDefinitionRow::from_definition(&tenant, definition)?;
        FormDefinitionTable::insert(conn, vec![&row]).map_err(repository_error)?;
        store_revision(conn, &row, definition)?;
    }
    Ok(())
}

/// The form definitions table, for [`DieselStore`]: each version's schema revision is
/// kept beside it, and goes with it when it is purged (ON DELETE CASCADE).
#[derive(Debug, Clone, Copy)]
pub struct FormDefinitionTable;

/// The Diesel form definition repository, also the store of their revisions.
pub type DieselFormDefinitionRepository = DieselStore<FormDefinitionTable>;

impl StoredTable for FormDefinitionTable {
    type Resource = FormDefinition;
    type Row = FormDefinitionRow;

    const TABLE: &'static str = "form_definitions";
    const FIELDS: &'static FieldMap = &DEFINITION_FIELDS;

    row_statements!(form_definitions);

    fn row(
        tenant: &TenantId,
        definition: &FormDefinition,
    ) -> Result<FormDefinitionRow, RepositoryError> {
        FormDefinitionRow::from_definition(tenant, definition)
    }

    fn sort_value(row: &FormDefinitionRow, column: &str) -> Option<CursorValue> {
        Some(match column {
            "fd.id" => CursorValue::Text(row.id.clone()),
            "fd.display_name" => CursorValue::Text(row.display_name.clone()),
            "fd.create_time" => CursorValue::Integer(row.create_time),
            "fd.update_time" => CursorValue::Integer(row.update_time),
            _ => return None,
        })
    }

    fn resources(
        _conn: &mut DbConnection,
        _tenant: &str,
        rows: Vec<FormDefinitionRow>,
    ) -> Result<Vec<FormDefinition>, RepositoryError> {
        rows.into_iter()
            .map(FormDefinitionRow::into_definition)
            .collect()
    }

    /// The revision the definition is now at, stored once.
    fn write_side_rows(
        conn: &mut DbConnection,
        definition: &FormDefinition,
        row: &FormDefinitionRow,
        _write: Write,
    ) -> Result<(), RepositoryError> {
        store_revision(conn, row, definition)
    }
}

#[async_trait]
impl FormRevisions for DieselStore<FormDefinitionTable> {
    async fn get_revision(
        &self,
        tenant: &TenantId,
        id: &str,
        revision_id: &str,
    ) -> Result<Option<FormDefinition>, RepositoryError> {
        let (tenant, id, revision_id) = (
            tenant.as_str().to_owned(),
            id.to_owned(),
            revision_id.to_owned(),
        );
        self.db()
            .read(move |conn| {
                let Some(row) =
                    FormDefinitionTable::load(conn, &tenant, &id).map_err(repository_error)?
                else {
                    return Ok(None);
                };
                let Some(revision) = form_definition_revisions::table
                    .filter(form_definition_revisions::tenant_id.eq(&tenant))
                    .filter(form_definition_revisions::definition_id.eq(&id))
                    .filter(form_definition_revisions::revision_id.eq(&revision_id))
                    .select(RevisionRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(repository_error)?
                else {
                    return Ok(None);
                };
                let schema: FormSchema = serde_json::from_str(&revision.form_schema)
                    .map_err(|e| internal("stored form schema JSON", e))?;
                let mut definition = row.into_definition()?;
                definition.response_schema = Some(response_schema(&schema));
                definition.schema = Some(schema);
                definition.revision_id = revision.revision_id;
                definition.revision_create_time = Some(timestamp(revision.create_time)?);
                Ok(Some(definition))
            })
            .await
    }
}
