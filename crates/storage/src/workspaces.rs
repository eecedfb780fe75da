//! The workspace repository over Diesel.

use async_trait::async_trait;
use diesel::prelude::*;
use rics_aip::page_token::CursorValue;
use rics_domain::event::NewEvent;
use rics_domain::list::{ListQuery, Page};
use rics_domain::principal::TenantId;
use rics_domain::repository::{CreateOutcome, IdempotencyKey, RepositoryError, ResourceStore};
use rics_domain::resource;
use rics_domain::time::Timestamp;
use rics_domain::workspace::model::{Workspace, WorkspaceState};

use crate::connection::DbConnection;
use crate::database::Database;
use crate::error::{repository_error, revision_missed};
use crate::events::insert_events;
use crate::filter::{Column, FieldMap, ScalarKind, Unset, compile_list};
use crate::idempotency;
use crate::paging::load_page;
use crate::rows::{internal, micros, timestamp};
use crate::schema::{notes, workspace_entities, workspaces};
use crate::sql::{Bind, insert_rows};

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
                table: "workspace_entities",
                owner: "workspace_id",
                value: "entity",
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
struct WorkspaceRow {
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
        let mut body =
            serde_json::to_value(workspace).map_err(|e| internal("workspace to JSON", e))?;
        if let Some(map) = body.as_object_mut() {
            for field in COLUMN_FIELDS {
                map.remove(field);
            }
        }
        Ok(WorkspaceRow {
            tenant_id: tenant.as_str().to_owned(),
            id: workspace.id().to_owned(),
            uid: workspace.uid.clone(),
            revision: workspace.revision,
            display_name: workspace.display_name.clone(),
            state: workspace.state.as_str().to_owned(),
            body: body.to_string(),
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

    fn sort_value(&self, expression: &str) -> Result<CursorValue, RepositoryError> {
        Ok(match expression {
            "w.id" => CursorValue::Text(self.id.clone()),
            "w.display_name" => CursorValue::Text(self.display_name.clone()),
            "w.create_time" => CursorValue::Integer(self.create_time),
            "w.update_time" => CursorValue::Integer(self.update_time),
            other => return Err(internal("no cursor value for sort expression", other)),
        })
    }
}

/// Replaces the entity rows of a workspace.
fn write_entities(conn: &mut DbConnection, tenant: &str, workspace: &Workspace) -> QueryResult<()> {
    let id = workspace.id();
    diesel::delete(
        workspace_entities::table
            .filter(workspace_entities::tenant_id.eq(tenant))
            .filter(workspace_entities::workspace_id.eq(id)),
    )
    .execute(conn)?;
    let rows = workspace
        .entities
        .iter()
        .enumerate()
        .map(|(position, entity)| -> Vec<Bind> {
            vec![
                tenant.into(),
                id.into(),
                entity.as_str().into(),
                Bind::BigInt(position as i64),
            ]
        })
        .collect();
    insert_rows(
        conn,
        "workspace_entities",
        &["tenant_id", "workspace_id", "entity", "position"],
        rows,
    )?;
    Ok(())
}

/// The workspaces of `rows`, in order, with their entities.
fn with_entities(
    conn: &mut DbConnection,
    tenant: &str,
    rows: Vec<WorkspaceRow>,
) -> Result<Vec<Workspace>, RepositoryError> {
    let mut members: std::collections::HashMap<String, Vec<String>> =
        std::collections::HashMap::with_capacity(rows.len());
    for chunk in rows.chunks(500) {
        let ids: Vec<&str> = chunk.iter().map(|row| row.id.as_str()).collect();
        let found = workspace_entities::table
            .filter(workspace_entities::tenant_id.eq(tenant))
            .filter(workspace_entities::workspace_id.eq_any(ids))
            .order((
                workspace_entities::workspace_id,
                workspace_entities::position,
            ))
            .select((workspace_entities::workspace_id, workspace_entities::entity))
            .load::<(String, String)>(conn)
            .map_err(repository_error)?;
        for (workspace, entity) in found {
            members.entry(workspace).or_default().push(entity);
        }
    }
    rows.into_iter()
        .map(|row| {
            let entities = members.remove(&row.id).unwrap_or_default();
            row.into_workspace(entities)
        })
        .collect()
}

fn load_row(
    conn: &mut DbConnection,
    tenant: &str,
    id: &str,
) -> Result<Option<WorkspaceRow>, RepositoryError> {
    workspaces::table
        .filter(workspaces::tenant_id.eq(tenant))
        .filter(workspaces::id.eq(id))
        .select(WorkspaceRow::as_select())
        .first(conn)
        .optional()
        .map_err(repository_error)
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
    diesel::delete(
        workspace_entities::table
            .filter(workspace_entities::tenant_id.eq(tenant))
            .filter(workspace_entities::entity.eq(format!("entities/{entity_id}"))),
    )
    .execute(conn)
    .map(|n| n as i64)
    .map_err(repository_error)
}

/// The Diesel workspace repository.
#[derive(Debug, Clone)]
pub struct DieselWorkspaceRepository {
    db: Database,
}

impl DieselWorkspaceRepository {
    /// A repository over `db`.
    pub fn new(db: Database) -> DieselWorkspaceRepository {
        DieselWorkspaceRepository { db }
    }
}

#[async_trait]
impl ResourceStore<Workspace> for DieselWorkspaceRepository {
    async fn create<'a>(
        &self,
        tenant: &TenantId,
        workspace: &Workspace,
        key: Option<&'a IdempotencyKey>,
        new_events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError> {
        let row = WorkspaceRow::from_workspace(tenant, workspace)?;
        let (tenant, workspace, key, new_events) = (
            tenant.as_str().to_owned(),
            workspace.clone(),
            key.cloned(),
            new_events.to_vec(),
        );
        self.db
            .write(move |conn| {
                let now = timestamp(row.create_time)?;
                if let Some(replay) = idempotency::claim(conn, &tenant, key.as_ref(), now)? {
                    return Ok(replay);
                }
                diesel::insert_into(workspaces::table)
                    .values(&row)
                    .execute(conn)
                    .map_err(repository_error)?;
                write_entities(conn, &tenant, &workspace).map_err(repository_error)?;
                insert_events(conn, &tenant, &new_events).map_err(repository_error)?;
                Ok(CreateOutcome::Created)
            })
            .await
    }

    async fn get(&self, tenant: &TenantId, id: &str) -> Result<Option<Workspace>, RepositoryError> {
        let (tenant, id) = (tenant.as_str().to_owned(), id.to_owned());
        self.db
            .read(move |conn| {
                let Some(row) = load_row(conn, &tenant, &id)? else {
                    return Ok(None);
                };
                Ok(with_entities(conn, &tenant, vec![row])?.pop())
            })
            .await
    }

    async fn list<'a>(
        &self,
        tenant: &TenantId,
        _parent: Option<&'a str>,
        query: &ListQuery,
    ) -> Result<Page<Workspace>, RepositoryError> {
        let compiled = compile_list(
            query,
            &WORKSPACE_FIELDS,
            tenant.as_str(),
            Some("w.delete_time"),
        )?;
        let query = query.clone();
        let tenant = tenant.as_str().to_owned();
        self.db
            .read(move |conn| {
                let sort_columns = compiled.sort_columns.clone();
                let page = load_page(
                    conn,
                    "workspaces w",
                    "w.*",
                    compiled,
                    &query,
                    |row: WorkspaceRow| {
                        let position = sort_columns
                            .iter()
                            .map(|c| row.sort_value(c))
                            .collect::<Result<Vec<_>, _>>()?;
                        Ok((row, position))
                    },
                )?;
                Ok(Page {
                    items: with_entities(conn, &tenant, page.items)?,
                    next: page.next,
                    total_size: page.total_size,
                })
            })
            .await
    }

    async fn update(
        &self,
        tenant: &TenantId,
        workspace: &Workspace,
        expected_revision: i64,
        new_events: &[NewEvent],
    ) -> Result<(), RepositoryError> {
        let row = WorkspaceRow::from_workspace(tenant, workspace)?;
        let (tenant, workspace, new_events) = (
            tenant.as_str().to_owned(),
            workspace.clone(),
            new_events.to_vec(),
        );
        self.db
            .write(move |conn| {
                let updated = diesel::update(
                    workspaces::table
                        .filter(workspaces::tenant_id.eq(&tenant))
                        .filter(workspaces::id.eq(&row.id))
                        .filter(workspaces::revision.eq(expected_revision)),
                )
                .set(&row)
                .execute(conn)
                .map_err(repository_error)?;
                if updated == 0 {
                    return Err(revision_missed(load_row(conn, &tenant, &row.id)?));
                }
                write_entities(conn, &tenant, &workspace).map_err(repository_error)?;
                insert_events(conn, &tenant, &new_events).map_err(repository_error)?;
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
            .read(move |conn| crate::purge::find_due(conn, "workspaces", now, limit))
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
                crate::purge::remove_due(conn, "workspaces", &tenant, &id, now, &new_events)?;
                // Its entity rows go with it (ON DELETE CASCADE); its notes are keyed
                // by name, not by a foreign key.
                diesel::delete(
                    notes::table
                        .filter(notes::tenant_id.eq(&tenant))
                        .filter(notes::parent.eq(Workspace::name_of(&id))),
                )
                .execute(conn)
                .map_err(repository_error)?;
                Ok(())
            })
            .await
    }
}
