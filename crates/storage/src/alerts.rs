//! The alert type and alert repositories over Diesel, the writing of a new tenant's
//! alert types, and the part of an entity's erasure that concerns alerts.

use async_trait::async_trait;
use diesel::prelude::*;
use rics_aip::page_token::CursorValue;
use rics_domain::alert::model::{Alert, AlertState, AlertType, Disposition, Severity};
use rics_domain::alert::ports::AlertTypeRepository;
use rics_domain::entity::model::Entity;
use rics_domain::list::{ListQuery, Page};
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_domain::resource;
use rics_domain::time::Timestamp;

use crate::connection::DbConnection;
use crate::error::repository_error;
use crate::filter::{Column, FieldMap, ScalarKind, Unset, compile_list};
use crate::paging::load_page;
use crate::rows::{body_without, internal, micros, timestamp};
use crate::schema::{alert_entities, alert_types, alerts};
use crate::side_rows::ValueRows;
use crate::store::{DieselStore, StoredTable, Write, row_statements};

/// Where the alert type filter fields live.
const ALERT_TYPE_FIELDS: FieldMap = FieldMap {
    alias: "at",
    tenant_column: "at.tenant_id",
    id_column: "at.id",
    fields: &[
        (
            "displayName",
            Column::Scalar {
                column: "at.display_name",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "defaultSeverity",
            Column::Scalar {
                column: "at.default_severity",
                kind: ScalarKind::Enum,
                unset: Unset::NotNull,
            },
        ),
        (
            "createTime",
            Column::Scalar {
                column: "at.create_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
    ],
    fuzzy: &[],
};

/// The entities of each alert, in order.
const ENTITIES: ValueRows = ValueRows {
    table: "alert_entities",
    owner: "alert_id",
    value: "entity",
};

/// Where the alert filter fields live.
const ALERT_FIELDS: FieldMap = FieldMap {
    alias: "a",
    tenant_column: "a.tenant_id",
    id_column: "a.id",
    fields: &[
        (
            "state",
            Column::Scalar {
                column: "a.state",
                kind: ScalarKind::Enum,
                unset: Unset::NotNull,
            },
        ),
        (
            "severity",
            Column::Scalar {
                column: "a.severity",
                kind: ScalarKind::Enum,
                unset: Unset::NotNull,
            },
        ),
        (
            "alertType",
            Column::Scalar {
                column: "a.alert_type",
                kind: ScalarKind::Text,
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
            "workspace",
            Column::Scalar {
                column: "a.workspace",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "createTime",
            Column::Scalar {
                column: "a.create_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
        (
            "updateTime",
            Column::Scalar {
                column: "a.update_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
        (
            "acknowledgeTime",
            Column::Scalar {
                column: "a.acknowledge_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::InMessage,
            },
        ),
        (
            "resolveTime",
            Column::Scalar {
                column: "a.resolve_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::InMessage,
            },
        ),
        (
            "disposition",
            Column::Scalar {
                column: "a.disposition",
                kind: ScalarKind::Enum,
                unset: Unset::ZeroValue,
            },
        ),
        (
            "deleteTime",
            Column::Scalar {
                column: "a.delete_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::InMessage,
            },
        ),
    ],
    fuzzy: &[],
};

/// Fields kept in columns or side rows rather than in the body.
const COLUMN_FIELDS: [&str; 15] = [
    "name",
    "uid",
    "alertType",
    "entities",
    "workspace",
    "severity",
    "state",
    "createTime",
    "updateTime",
    "acknowledgeTime",
    "resolveTime",
    "disposition",
    "deleteTime",
    "purgeTime",
    "etag",
];

/// One row of `alert_types`.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable)]
#[diesel(table_name = alert_types)]
struct AlertTypeRow {
    tenant_id: String,
    id: String,
    uid: String,
    revision: i64,
    display_name: String,
    description: String,
    default_severity: String,
    create_time: i64,
    update_time: i64,
}

impl AlertTypeRow {
    fn from_alert_type(
        tenant: &str,
        alert_type: &AlertType,
    ) -> Result<AlertTypeRow, RepositoryError> {
        let time = |t: Option<Timestamp>| {
            micros(t).ok_or_else(|| {
                internal("alert type without create or update time", &alert_type.name)
            })
        };
        Ok(AlertTypeRow {
            tenant_id: tenant.to_owned(),
            id: alert_type.id().to_owned(),
            uid: alert_type.uid.clone(),
            revision: alert_type.revision,
            display_name: alert_type.display_name.clone(),
            description: alert_type.description.clone(),
            default_severity: alert_type.default_severity.as_str().to_owned(),
            create_time: time(alert_type.create_time)?,
            update_time: time(alert_type.update_time)?,
        })
    }

    fn into_alert_type(self) -> Result<AlertType, RepositoryError> {
        Ok(AlertType {
            name: AlertType::name_of(&self.id),
            etag: resource::etag(&self.uid, self.revision),
            default_severity: Severity::parse(&self.default_severity)
                .ok_or_else(|| internal("stored default severity", &self.default_severity))?,
            uid: self.uid,
            display_name: self.display_name,
            description: self.description,
            create_time: Some(timestamp(self.create_time)?),
            update_time: Some(timestamp(self.update_time)?),
            revision: self.revision,
        })
    }

    fn sort_value(&self, expression: &str) -> Result<CursorValue, RepositoryError> {
        Ok(match expression {
            "at.id" => CursorValue::Text(self.id.clone()),
            "at.display_name" => CursorValue::Text(self.display_name.clone()),
            "at.create_time" => CursorValue::Integer(self.create_time),
            other => return Err(internal("no cursor value for sort expression", other)),
        })
    }
}

/// Writes the alert types of a new tenant, in the current transaction.
///
/// # Errors
/// [`RepositoryError::AlreadyExists`] when the tenant has one of them; database
/// failures.
pub(crate) fn insert_alert_types(
    conn: &mut DbConnection,
    tenant: &str,
    types: &[AlertType],
) -> Result<(), RepositoryError> {
    let rows = types
        .iter()
        .map(|t| AlertTypeRow::from_alert_type(tenant, t))
        .collect::<Result<Vec<_>, _>>()?;
    for row in &rows {
        diesel::insert_into(alert_types::table)
            .values(row)
            .execute(conn)
            .map_err(repository_error)?;
    }
    Ok(())
}

/// One row of `alerts`.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = alerts, primary_key(tenant_id, id), treat_none_as_null = true)]
pub struct AlertRow {
    tenant_id: String,
    id: String,
    uid: String,
    revision: i64,
    alert_type: String,
    workspace: String,
    severity: String,
    state: String,
    body: String,
    create_time: i64,
    update_time: i64,
    acknowledge_time: Option<i64>,
    delete_time: Option<i64>,
    purge_time: Option<i64>,
    resolve_time: Option<i64>,
    disposition: Option<String>,
}

impl AlertRow {
    fn from_alert(tenant: &TenantId, alert: &Alert) -> Result<AlertRow, RepositoryError> {
        Ok(AlertRow {
            tenant_id: tenant.as_str().to_owned(),
            id: alert.id().to_owned(),
            uid: alert.uid.clone(),
            revision: alert.revision,
            alert_type: alert.alert_type.clone(),
            workspace: alert.workspace.clone(),
            severity: alert.severity.as_str().to_owned(),
            state: alert.state.as_str().to_owned(),
            body: body_without(serde_json::to_value(alert), &COLUMN_FIELDS, "alert to JSON")?,
            create_time: alert.create_time.map_or(0, Timestamp::unix_micros),
            update_time: alert.update_time.map_or(0, Timestamp::unix_micros),
            acknowledge_time: micros(alert.acknowledge_time),
            delete_time: micros(alert.delete_time),
            purge_time: micros(alert.purge_time),
            resolve_time: micros(alert.resolve_time),
            disposition: (!alert.disposition.is_unspecified())
                .then(|| alert.disposition.as_str().to_owned()),
        })
    }

    /// The alert of this row, with its entities in order.
    fn into_alert(self, entities: Vec<String>) -> Result<Alert, RepositoryError> {
        let mut alert: Alert =
            serde_json::from_str(&self.body).map_err(|e| internal("stored alert JSON", e))?;
        alert.name = Alert::name_of(&self.id);
        alert.etag = resource::etag(&self.uid, self.revision);
        alert.uid = self.uid;
        alert.revision = self.revision;
        alert.alert_type = self.alert_type;
        alert.entities = entities;
        alert.workspace = self.workspace;
        alert.severity = Severity::parse(&self.severity)
            .ok_or_else(|| internal("stored alert severity", &self.severity))?;
        alert.state = AlertState::parse(&self.state)
            .ok_or_else(|| internal("stored alert state", &self.state))?;
        alert.create_time = Some(timestamp(self.create_time)?);
        alert.update_time = Some(timestamp(self.update_time)?);
        alert.acknowledge_time = self.acknowledge_time.map(timestamp).transpose()?;
        alert.delete_time = self.delete_time.map(timestamp).transpose()?;
        alert.purge_time = self.purge_time.map(timestamp).transpose()?;
        alert.resolve_time = self.resolve_time.map(timestamp).transpose()?;
        alert.disposition = match self.disposition {
            Some(text) => Disposition::parse(&text)
                .ok_or_else(|| internal("stored alert disposition", &text))?,
            None => Disposition::Unspecified,
        };
        Ok(alert)
    }
}

/// Takes the erased entity `entity_id` out of every alert; returns how many
/// memberships were removed. The alerts stay (they are the firm's compliance record),
/// each with a new revision, so that its etag changes with its `entities`. Part of an
/// entity's erasure.
///
/// # Errors
/// Database failures.
pub(crate) fn remove_erased_entity(
    conn: &mut DbConnection,
    tenant: &str,
    entity_id: &str,
) -> Result<i64, RepositoryError> {
    let name = Entity::name_of(entity_id);
    let naming = alert_entities::table
        .filter(alert_entities::tenant_id.eq(tenant))
        .filter(alert_entities::entity.eq(&name))
        .select(alert_entities::alert_id);
    diesel::update(
        alerts::table
            .filter(alerts::tenant_id.eq(tenant))
            .filter(alerts::id.eq_any(naming)),
    )
    .set(alerts::revision.eq(alerts::revision + 1))
    .execute(conn)
    .map_err(repository_error)?;
    ENTITIES.remove_value(conn, tenant, &name)
}

/// The alerts table, for [`DieselStore`]: the entities of an alert are side rows,
/// written once when it is created (they change only by erasure).
#[derive(Debug, Clone, Copy)]
pub struct AlertTable;

/// The Diesel repository of alert types and alerts.
pub type DieselAlertRepository = DieselStore<AlertTable>;

impl StoredTable for AlertTable {
    type Resource = Alert;
    type Row = AlertRow;

    const TABLE: &'static str = "alerts";
    const FIELDS: &'static FieldMap = &ALERT_FIELDS;
    const READS_SIDE_ROWS: bool = true;

    row_statements!(alerts);

    fn row(tenant: &TenantId, alert: &Alert) -> Result<AlertRow, RepositoryError> {
        AlertRow::from_alert(tenant, alert)
    }

    fn sort_value(row: &AlertRow, column: &str) -> Option<CursorValue> {
        Some(match column {
            "a.id" => CursorValue::Text(row.id.clone()),
            "a.create_time" => CursorValue::Integer(row.create_time),
            "a.update_time" => CursorValue::Integer(row.update_time),
            _ => return None,
        })
    }

    fn resources(
        conn: &mut DbConnection,
        tenant: &str,
        rows: Vec<AlertRow>,
    ) -> Result<Vec<Alert>, RepositoryError> {
        ENTITIES.attach(
            conn,
            tenant,
            rows,
            |row| row.id.as_str(),
            AlertRow::into_alert,
        )
    }

    /// The entities of an alert are written once, when it is created: they change
    /// only by erasure.
    fn write_side_rows(
        conn: &mut DbConnection,
        alert: &Alert,
        row: &AlertRow,
        write: Write,
    ) -> Result<(), RepositoryError> {
        if write == Write::Update {
            return Ok(());
        }
        ENTITIES
            .write(conn, (&row.tenant_id, &row.id), &alert.entities, write)
            .map_err(repository_error)
    }

    /// The entities of all of them in one statement: a batch of screening runs ends
    /// with an alert each.
    fn write_new_side_rows(
        conn: &mut DbConnection,
        tenant: &str,
        new: &[(Alert, AlertRow)],
    ) -> Result<(), RepositoryError> {
        let owners: Vec<(&str, &[String])> = new
            .iter()
            .map(|(alert, row)| (row.id.as_str(), alert.entities.as_slice()))
            .collect();
        ENTITIES
            .insert(conn, tenant, &owners)
            .map_err(repository_error)
    }
}

#[async_trait]
impl AlertTypeRepository for DieselAlertRepository {
    async fn get(&self, tenant: &TenantId, id: &str) -> Result<Option<AlertType>, RepositoryError> {
        let (tenant, id) = (tenant.as_str().to_owned(), id.to_owned());
        self.db()
            .run(move |conn| {
                alert_types::table
                    .filter(alert_types::tenant_id.eq(&tenant))
                    .filter(alert_types::id.eq(&id))
                    .select(AlertTypeRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(repository_error)?
                    .map(AlertTypeRow::into_alert_type)
                    .transpose()
            })
            .await
    }

    async fn list(
        &self,
        tenant: &TenantId,
        query: &ListQuery,
    ) -> Result<Page<AlertType>, RepositoryError> {
        let compiled = compile_list(query, &ALERT_TYPE_FIELDS, tenant.as_str(), None, None)?;
        let query = query.clone();
        self.db()
            .read(move |conn| {
                let sort_columns = compiled.sort_columns.clone();
                load_page(
                    conn,
                    "alert_types at",
                    "at.*",
                    compiled,
                    &query,
                    |row: AlertTypeRow| {
                        let position = sort_columns
                            .iter()
                            .map(|c| row.sort_value(c))
                            .collect::<Result<Vec<_>, _>>()?;
                        Ok((row.into_alert_type()?, position))
                    },
                )
            })
            .await
    }
}
