//! The workspace repository over Diesel.

use diesel::prelude::*;
use rics_aip::page_token::CursorValue;
use rics_domain::entity::model::Entity;
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_domain::resource;
use rics_domain::time::Timestamp;
use rics_domain::workspace::model::{Workspace, WorkspaceState};

use crate::connection::DbConnection;
use crate::error::repository_error;
use crate::filter::{Column, FieldMap, ScalarKind, Unset};
use crate::forms::insert_new_forms;
use crate::rows::{body_without, internal, micros, timestamp};
use crate::schema::{notes, workspaces};
use crate::side_rows::ValueRows;
use crate::store::{DieselStore, StoredTable, Write, row_statements};

/// The entities of each workspace, in order.
const ENTITIES: ValueRows = ValueRows {
    table: "workspace_entities",
    owner: "workspace_id",
    value: "entity",
};

/// Where the workspace filter fields live.
const WORKSPACE_FIELDS: FieldMap = FieldMap {
    alias: "w",
    tenant_column: "w.tenant_id",
    id_column: "w.id",
    fields: &[
        (
            "displayName",
            Column::Scalar {
                column: "w.display_name",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "state",
            Column::Scalar {
                column: "w.state",
                kind: ScalarKind::Enum,
                unset: Unset::NotNull,
            },
        ),
        (
            "entities",
            Column::Repeated {
                table: ENTITIES.table,
                owner: ENTITIES.owner,
                value: ENTITIES.value,
            },
        ),
        (
            "createTime",
            Column::Scalar {
                column: "w.create_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
        (
            "updateTime",
            Column::Scalar {
                column: "w.update_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
        (
            "deleteTime",
            Column::Scalar {
                column: "w.delete_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::InMessage,
            },
        ),
    ],
    fuzzy: &[],
};

/// Fields kept in columns or side rows rather than in the body.
const COLUMN_FIELDS: [&str; 10] = [
    "name",
    "uid",
    "displayName",
    "state",
    "entities",
    "createTime",
    "updateTime",
    "deleteTime",
    "purgeTime",
    "etag",
];

/// One row of `workspaces`.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = workspaces, primary_key(tenant_id, id), treat_none_as_null = true)]
pub struct WorkspaceRow {
    tenant_id: String,
    id: String,
    uid: String,
    revision: i64,
    display_name: String,
    state: String,
    body: String,
    create_time: i64,
    update_time: i64,
    delete_time: Option<i64>,
    purge_time: Option<i64>,
}

impl WorkspaceRow {
    fn from_workspace(
        tenant: &TenantId,
        workspace: &Workspace,
    ) -> Result<WorkspaceRow, RepositoryError> {
        Ok(WorkspaceRow {
            tenant_id: tenant.as_str().to_owned(),
            id: workspace.id().to_owned(),
            uid: workspace.uid.clone(),
            revision: workspace.revision,
            display_name: workspace.display_name.clone(),
            state: workspace.state.as_str().to_owned(),
            body: body_without(
                serde_json::to_value(workspace),
                &COLUMN_FIELDS,
                "workspace to JSON",
            )?,
            create_time: workspace.create_time.map_or(0, Timestamp::unix_micros),
            update_time: workspace.update_time.map_or(0, Timestamp::unix_micros),
            delete_time: micros(workspace.delete_time),
            purge_time: micros(workspace.purge_time),
        })
    }

    /// The workspace of this row, with its entities in order.
    fn into_workspace(self, entities: Vec<String>) -> Result<Workspace, RepositoryError> {
        let mut workspace: Workspace =
            serde_json::from_str(&self.body).map_err(|e| internal("stored workspace JSON", e))?;
        workspace.name = Workspace::name_of(&self.id);
        workspace.etag = resource::etag(&self.uid, self.revision);
        workspace.uid = self.uid;
        workspace.revision = self.revision;
        workspace.display_name = self.display_name;
        workspace.state = WorkspaceState::parse(&self.state)
            .ok_or_else(|| internal("stored workspace state", &self.state))?;
        workspace.entities = entities;
        workspace.create_time = Some(timestamp(self.create_time)?);
        workspace.update_time = Some(timestamp(self.update_time)?);
        workspace.delete_time = self.delete_time.map(timestamp).transpose()?;
        workspace.purge_time = self.purge_time.map(timestamp).transpose()?;
        Ok(workspace)
    }
}

/// Takes the erased entity `entity_id` out of every workspace; returns how many
/// memberships were removed. Part of an entity's erasure.
///
/// # Errors
/// Database failures.
pub(crate) fn remove_erased_entity(
    conn: &mut DbConnection,
    tenant: &str,
    entity_id: &str,
) -> Result<i64, RepositoryError> {
    ENTITIES.remove_value(conn, tenant, &Entity::name_of(entity_id))
}

/// The workspaces table, for [`DieselStore`]: the entities of a workspace are side
/// rows, the forms a new workspace opens are stored with it, and its notes go when it
/// is purged.
#[derive(Debug, Clone, Copy)]
pub struct WorkspaceTable;

/// The Diesel workspace repository.
pub type DieselWorkspaceRepository = DieselStore<WorkspaceTable>;

impl StoredTable for WorkspaceTable {
    type Resource = Workspace;
    type Row = WorkspaceRow;

    const TABLE: &'static str = "workspaces";
    const FIELDS: &'static FieldMap = &WORKSPACE_FIELDS;
    const READS_SIDE_ROWS: bool = true;

    row_statements!(workspaces);

    fn row(tenant: &TenantId, workspace: &Workspace) -> Result<WorkspaceRow, RepositoryError> {
        WorkspaceRow::from_workspace(tenant, workspace)
    }

    fn sort_value(row: &WorkspaceRow, column: &str) -> Option<CursorValue> {
        Some(match column {
            "w.id" => CursorValue::Text(row.id.clone()),
            "w.display_name" => CursorValue::Text(row.display_name.clone()),
            "w.create_time" => CursorValue::Integer(row.create_time),
            "w.update_time" => CursorValue::Integer(row.update_time),
            _ => return None,
        })
    }

    fn resources(
        conn: &mut DbConnection,
        tenant: &str,
        rows: Vec<WorkspaceRow>,
    ) -> Result<Vec<Workspace>, RepositoryError> {
        ENTITIES.attach(
            conn,
            tenant,
            rows,
            |row| row.id.as_str(),
            WorkspaceRow::into_workspace,
        )
    }

    /// Its entities; on create, the forms it opens too.
    fn write_side_rows(
        conn: &mut DbConnection,
        workspace: &Workspace,
        row: &WorkspaceRow,
        write: Write,
    ) -> Result<(), RepositoryError> {
        ENTITIES
            .write(conn, (&row.tenant_id, &row.id), &workspace.entities, write)
            .map_err(repository_error)?;
        if write == Write::Insert {
            insert_new_forms(conn, &row.tenant_id, &workspace.new_forms)?;
        }
        Ok(())
    }

    /// Its entity rows go with it (ON DELETE CASCADE); its notes are keyed by name, not
    /// by a foreign key.
    fn purged(conn: &mut DbConnection, tenant: &str, id: &str) -> Result<(), RepositoryError> {
        diesel::delete(
            notes::table
                .filter(notes::tenant_id.eq(tenant))
                .filter(notes::parent.eq(Workspace::name_of(id))),
        )
        .execute(conn)
        .map_err(repository_error)?;
        Ok(())
    }
}
