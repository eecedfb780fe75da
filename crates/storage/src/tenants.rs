//! The tenant repository over Diesel: tenants, a partner's children, provisioning a
//! new tenant with everything it starts with, and the first-start bootstrap.

use async_trait::async_trait;
use diesel::prelude::*;
use rics_aip::page_token::CursorValue;
use rics_domain::event::NewEvent;
use rics_domain::list::{ListQuery, Page};
use rics_domain::operation::Operation;
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_domain::tenant::ports::{TenantPlan, TenantRepository};
use rics_domain::tenant::{Tenant, TenantState, TenantType};

use crate::alerts::insert_alert_types;
use crate::automations::insert_built_in;
use crate::connection::DbConnection;
use crate::database::Database;
use crate::error::repository_error;
use crate::events::{insert_events, outbox};
use crate::filter::{Column, FieldMap, ScalarKind, Unset};
use crate::form_definitions::insert_seeded;
use crate::identity::{insert_client, insert_user};
use crate::locks::{Table, lock_table};
use crate::operations::insert_operation;
use crate::rows::{internal, micros, timestamp};
use crate::schema::tenants;
use crate::store::{ListedTable, list_page};

/// Where the child-tenant filter fields live. The "tenant" of a child list is its
/// parent: every query is scoped by the partner's id.
pub const TENANT_FIELDS: FieldMap = FieldMap {
    alias: "t",
    tenant_column: "t.parent",
    id_column: "t.id",
    fields: &[
        (
            "displayName",
            Column::Scalar {
                column: "t.display_name",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "createTime",
            Column::Scalar {
                column: "t.create_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
    ],
    fuzzy: &[],
};

/// One row of `tenants`.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable)]
#[diesel(table_name = tenants)]
struct TenantRow {
    id: String,
    display_name: String,
    tenant_type: String,
    parent: Option<String>,
    state: String,
    create_time: i64,
    update_time: i64,
}

impl TenantRow {
    fn from_tenant(tenant: &Tenant) -> Result<TenantRow, RepositoryError> {
        let parent = tenant
            .parent
            .strip_prefix("tenants/")
            .unwrap_or(&tenant.parent);
        let time = |t: Option<rics_domain::time::Timestamp>| {
            micros(t).ok_or_else(|| internal("tenant without create or update time", &tenant.name))
        };
        Ok(TenantRow {
            id: tenant.id().to_owned(),
            display_name: tenant.display_name.clone(),
            tenant_type: tenant.tenant_type.as_str().to_owned(),
            parent: (!parent.is_empty()).then(|| parent.to_owned()),
            state: tenant.state.as_str().to_owned(),
            create_time: time(tenant.create_time)?,
            update_time: time(tenant.update_time)?,
        })
    }

    fn into_tenant(self) -> Result<Tenant, RepositoryError> {
        Ok(Tenant {
            name: Tenant::name_of(&self.id),
            tenant_type: TenantType::parse(&self.tenant_type)
                .ok_or_else(|| internal("stored tenant type", &self.tenant_type))?,
            state: TenantState::parse(&self.state)
                .ok_or_else(|| internal("stored tenant state", &self.state))?,
            parent: self
                .parent
                .as_deref()
                .map(Tenant::name_of)
                .unwrap_or_default(),
            create_time: Some(timestamp(self.create_time)?),
            update_time: Some(timestamp(self.update_time)?),
            display_name: self.display_name,
        })
    }
}

/// The `tenants` table as a partner's children are listed: scoped by their parent
/// (the tenant column of [`TENANT_FIELDS`]).
struct ChildTenantTable;

impl ListedTable for ChildTenantTable {
    type Resource = Tenant;
    type Row = TenantRow;

    const TABLE: &'static str = "tenants";
    const FIELDS: &'static FieldMap = &TENANT_FIELDS;
    const PARENT_COLUMN: Option<&'static str> = None;
    const SOFT_DELETES: bool = false;

    fn sort_value(row: &TenantRow, column: &str) -> Option<CursorValue> {
        match column {
            "t.id" => Some(CursorValue::Text(row.id.clone())),
            "t.display_name" => Some(CursorValue::Text(row.display_name.clone())),
            "t.create_time" => Some(CursorValue::Integer(row.create_time)),
            _ => None,
        }
    }

    fn resources(
        _conn: &mut DbConnection,
        _parent: &str,
        rows: Vec<TenantRow>,
    ) -> Result<Vec<Tenant>, RepositoryError> {
        rows.into_iter().map(TenantRow::into_tenant).collect()
    }
}

/// Writes the tenant of `plan`, then its clients, users, alert types, form definitions
/// and automations, in the current transaction. They must all belong to the plan's tenant.
fn write_plan(conn: &mut DbConnection, plan: &TenantPlan) -> Result<(), RepositoryError> {
    let id = plan.tenant.id();
    let foreign = plan
        .clients
        .iter()
        .map(|c| &c.tenant)
        .chain(plan.users.iter().map(|u| &u.tenant))
        .find(|tenant| tenant.as_str() != id);
    if let Some(other) = foreign {
        return Err(internal(
            "a plan's client or user belongs to another tenant",
            other,
        ));
    }
    diesel::insert_into(tenants::table)
        .values(&TenantRow::from_tenant(&plan.tenant)?)
        .execute(conn)
        .map_err(repository_error)?;
    for client in &plan.clients {
        insert_client(conn, client)?;
    }
    for user in &plan.users {
        insert_user(conn, user)?;
    }
    insert_alert_types(conn, id, &plan.alert_types)?;
    insert_seeded(conn, id, &plan.form_definitions)?;
    insert_built_in(conn, id, &plan.automations)?;
    Ok(())
}

fn any_tenant(conn: &mut DbConnection) -> Result<bool, RepositoryError> {
    diesel::select(diesel::dsl::exists(tenants::table.select(tenants::id)))
        .get_result(conn)
        .map_err(repository_error)
}

/// The Diesel tenant repository.
#[derive(Debug, Clone)]
pub struct DieselTenantRepository {
    db: Database,
}

impl DieselTenantRepository {
    /// A repository over `db`.
    pub fn new(db: Database) -> DieselTenantRepository {
        DieselTenantRepository { db }
    }
}

#[async_trait]
impl TenantRepository for DieselTenantRepository {
    async fn get(&self, id: &TenantId) -> Result<Option<Tenant>, RepositoryError> {
        let id = id.as_str().to_owned();
        self.db
            .run(move |conn| {
                tenants::table
                    .filter(tenants::id.eq(&id))
                    .select(TenantRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(repository_error)?
                    .map(TenantRow::into_tenant)
                    .transpose()
            })
            .await
    }

    async fn all_ids(&self) -> Result<Vec<TenantId>, RepositoryError> {
        self.db
            .read(|conn| {
                let ids: Vec<String> = tenants::table
                    .select(tenants::id)
                    .order(tenants::id)
                    .load(conn)
                    .map_err(repository_error)?;
                Ok(ids.into_iter().map(TenantId::new).collect())
            })
            .await
    }

    async fn list_children(
        &self,
        parent: &TenantId,
        query: &ListQuery,
    ) -> Result<Page<Tenant>, RepositoryError> {
        list_page::<ChildTenantTable>(&self.db, parent.as_str(), None, query).await
    }

    async fn provision(
        &self,
        plan: &TenantPlan,
        owner: &TenantId,
        operation: &Operation,
        events: &[NewEvent],
    ) -> Result<(), RepositoryError> {
        let (plan, owner, operation, events) = (
            plan.clone(),
            owner.clone(),
            operation.clone(),
            outbox(events),
        );
        self.db
            .write(move |conn| {
                write_plan(conn, &plan)?;
                insert_operation(conn, &owner, &operation)?;
                insert_events(conn, owner.as_str(), events).map_err(repository_error)
            })
            .await
    }

    async fn bootstrap(&self, plan: &TenantPlan) -> Result<bool, RepositoryError> {
        let plan = plan.clone();
        self.db
            .write(move |conn| {
                if any_tenant(conn)? {
                    return Ok(false);
                }
                // First starts racing take turns here; the later ones find the
                // tenant the first wrote.
                lock_table(conn, Table::Tenants)?;
                if any_tenant(conn)? {
                    return Ok(false);
                }
                write_plan(conn, &plan)?;
                Ok(true)
            })
            .await
    }
}
