//! The automation repository over Diesel: the automations, and every revision of their
//! definition beside them.

use async_trait::async_trait;
use diesel::prelude::*;
use rics_aip::page_token::CursorValue;
use rics_domain::automation::model::{Automation, AutomationDefinition};
use rics_domain::automation::ports::AutomationRevisions;
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_domain::resource;
use rics_domain::time::Timestamp;

use crate::connection::DbConnection;
use crate::error::repository_error;
use crate::filter::{Column, FieldMap, ScalarKind, Unset};
use crate::rows::{body_without, internal, micros, timestamp};
use crate::schema::{automation_revisions, automations};
use crate::store::{DieselStore, StoredTable, Write, row_statements};

/// Where the automation filter fields live.
const AUTOMATION_FIELDS: FieldMap = FieldMap {
    alias: "au",
    tenant_column: "au.tenant_id",
    id_column: "au.id",
    fields: &[
        (
            "displayName",
            Column::Scalar {
                column: "au.display_name",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "revisionId",
            Column::Scalar {
                column: "au.revision_id",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "createTime",
            Column::Scalar {
                column: "au.create_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
        (
            "updateTime",
            Column::Scalar {
                column: "au.update_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
        (
            "deleteTime",
            Column::Scalar {
                column: "au.delete_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::InMessage,
            },
        ),
    ],
    fuzzy: &[],
};

/// Fields kept in columns rather than in the body.
const COLUMN_FIELDS: [&str; 10] = [
    "name",
    "uid",
    "displayName",
    "revisionId",
    "revisionCreateTime",
    "createTime",
    "updateTime",
    "deleteTime",
    "purgeTime",
    "etag",
];

/// One row of `automations`.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = automations, primary_key(tenant_id, id), treat_none_as_null = true)]
pub struct AutomationRow {
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

impl AutomationRow {
    fn from_automation(
        tenant: &TenantId,
        automation: &Automation,
    ) -> Result<AutomationRow, RepositoryError> {
        Ok(AutomationRow {
            tenant_id: tenant.as_str().to_owned(),
            id: automation.id().to_owned(),
            uid: automation.uid.clone(),
            revision: automation.revision,
            display_name: automation.display_name.clone(),
            revision_id: automation.revision_id.clone(),
            revision_create_time: automation
                .revision_create_time
                .map_or(0, Timestamp::unix_micros),
            body: body_without(
                serde_json::to_value(automation),
                &COLUMN_FIELDS,
                "automation to JSON",
            )?,
            create_time: automation.create_time.map_or(0, Timestamp::unix_micros),
            update_time: automation.update_time.map_or(0, Timestamp::unix_micros),
            delete_time: micros(automation.delete_time),
            purge_time: micros(automation.purge_time),
        })
    }

    fn into_automation(self) -> Result<Automation, RepositoryError> {
        let mut automation: Automation =
            serde_json::from_str(&self.body).map_err(|e| internal("stored automation JSON", e))?;
        automation.name = Automation::name_of(&self.id);
        automation.etag = resource::etag(&self.uid, self.revision);
        automation.uid = self.uid;
        automation.revision = self.revision;
        automation.display_name = self.display_name;
        automation.revision_id = self.revision_id;
        automation.revision_create_time = Some(timestamp(self.revision_create_time)?);
        automation.create_time = Some(timestamp(self.create_time)?);
        automation.update_time = Some(timestamp(self.update_time)?);
        automation.delete_time = self.delete_time.map(timestamp).transpose()?;
        automation.purge_time = self.purge_time.map(timestamp).transpose()?;
        Ok(automation)
    }
}

/// One row of `automation_revisions`.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = automation_revisions)]
struct RevisionRow {
    tenant_id: String,
    automation_id: String,
    revision_id: String,
    definition: String,
    create_time: i64,
}

/// Stores the revision `automation` is at, unless it is stored already (an update that
/// left the definition as it was).
fn store_revision(
    conn: &mut DbConnection,
    row: &AutomationRow,
    automation: &Automation,
) -> Result<(), RepositoryError> {
    let stored = diesel::select(diesel::dsl::exists(
        automation_revisions::table
            .filter(automation_revisions::tenant_id.eq(&row.tenant_id))
            .filter(automation_revisions::automation_id.eq(&row.id))
            .filter(automation_revisions::revision_id.eq(&row.revision_id)),
    ))
    .get_result::<bool>(conn)
    .map_err(repository_error)?;
    if stored {
        return Ok(());
    }
    let revision = RevisionRow {
        tenant_id: row.tenant_id.clone(),
        automation_id: row.id.clone(),
        revision_id: row.revision_id.clone(),
        definition: serde_json::to_string(&automation.definition())
            .map_err(|e| internal("automation definition to JSON", e))?,
        create_time: row.revision_create_time,
    };
    diesel::insert_into(automation_revisions::table)
        .values(&revision)
        .execute(conn)
        .map_err(repository_error)?;
    Ok(())
}

/// Stores the automations a new tenant starts with (built in, without events), each
/// with its first revision, in the caller's transaction.
///
/// # Errors
/// Database failures.
pub(crate) fn insert_built_in(
    conn: &mut DbConnection,
    tenant: &str,
    automations: &[Automation],
) -> Result<(), RepositoryError> {
    let tenant = TenantId::new(tenant);
    for automation in automations {
        let row = AutomationRow::from_automation(&tenant, automation)?;
        AutomationTable::insert(conn, vec![&row]).map_err(repository_error)?;
        store_revision(conn, &row, automation)?;
    }
    Ok(())
}

/// The automations table, for [`DieselStore`]: each version's definition revision is
/// kept beside it, and goes with it when it is purged (ON DELETE CASCADE).
#[derive(Debug, Clone, Copy)]
pub struct AutomationTable;

/// The Diesel automation repository, also the store of their revisions.
pub type DieselAutomationRepository = DieselStore<AutomationTable>;

impl StoredTable for AutomationTable {
    type Resource = Automation;
    type Row = AutomationRow;

    const TABLE: &'static str = "automations";
    const FIELDS: &'static FieldMap = &AUTOMATION_FIELDS;

    row_statements!(automations);

    fn row(tenant: &TenantId, automation: &Automation) -> Result<AutomationRow, RepositoryError> {
        AutomationRow::from_automation(tenant, automation)
    }

    fn sort_value(row: &AutomationRow, column: &str) -> Option<CursorValue> {
        Some(match column {
            "au.id" => CursorValue::Text(row.id.clone()),
            "au.display_name" => CursorValue::Text(row.display_name.clone()),
            "au.create_time" => CursorValue::Integer(row.create_time),
            "au.update_time" => CursorValue::Integer(row.update_time),
            _ => return None,
        })
    }

    fn resources(
        _conn: &mut DbConnection,
        _tenant: &str,
        rows: Vec<AutomationRow>,
    ) -> Result<Vec<Automation>, RepositoryError> {
        rows.into_iter()
            .map(AutomationRow::into_automation)
            .collect()
    }

    /// The revision the automation is now at, stored once.
    fn write_side_rows(
        conn: &mut DbConnection,
        automation: &Automation,
        row: &AutomationRow,
        _write: Write,
    ) -> Result<(), RepositoryError> {
        store_revision(conn, row, automation)
    }
}

#[async_trait]
impl AutomationRevisions for DieselStore<AutomationTable> {
    async fn get_definition(
        &self,
        tenant: &TenantId,
        id: &str,
        revision_id: &str,
    ) -> Result<Option<AutomationDefinition>, RepositoryError> {
        let (tenant, id, revision_id) = (
            tenant.as_str().to_owned(),
            id.to_owned(),
            revision_id.to_owned(),
        );
        self.db()
            .read(move |conn| {
                let stored = automation_revisions::table
                    .filter(automation_revisions::tenant_id.eq(&tenant))
                    .filter(automation_revisions::automation_id.eq(&id))
                    .filter(automation_revisions::revision_id.eq(&revision_id))
                    .select(automation_revisions::definition)
                    .first::<String>(conn)
                    .optional()
                    .map_err(repository_error)?;
                stored
                    .map(|text| {
                        serde_json::from_str(&text)
                            .map_err(|e| internal("stored automation definition JSON", e))
                    })
                    .transpose()
            })
            .await
    }
}
