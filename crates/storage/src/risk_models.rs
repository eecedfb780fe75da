//! The risk model repository over Diesel: each version one immutable row with the
//! model's JSON.

use async_trait::async_trait;
use diesel::prelude::*;
use rics_aip::page_token::CursorValue;
use rics_domain::event::NewEvent;
use rics_domain::list::{ListQuery, Page};
use rics_domain::principal::TenantId;
use rics_domain::repository::{CreateOutcome, IdempotencyKey, RepositoryError};
use rics_domain::resource;
use rics_domain::risk::RiskModel;
use rics_domain::risk::ports::RiskModelRepository;

use crate::connection::DbConnection;
use crate::database::Database;
use crate::error::repository_error;
use crate::events::outbox;
use crate::filter::{Column, FieldMap, ScalarKind, Unset};
use crate::rows::{body_without, internal, timestamp};
use crate::schema::risk_models;
use crate::store::{ListedTable, ReadTable, insert_once, list_page, read_one};

/// Where the risk model filter fields live.
const RISK_MODEL_FIELDS: FieldMap = FieldMap {
    alias: "rm",
    tenant_column: "rm.tenant_id",
    id_column: "rm.version",
    fields: &[(
        "createTime",
        Column::Scalar {
            column: "rm.create_time",
            kind: ScalarKind::Timestamp,
            unset: Unset::NotNull,
        },
    )],
    fuzzy: &[],
};

/// The fields of a model that live in columns rather than the JSON body.
const COLUMN_FIELDS: [&str; 4] = ["name", "uid", "createTime", "etag"];

/// One row of `risk_models`.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable)]
#[diesel(table_name = risk_models)]
struct RiskModelRow {
    tenant_id: String,
    version: i64,
    uid: String,
    body: String,
    create_time: i64,
}

impl RiskModelRow {
    fn from_model(tenant: &str, model: &RiskModel) -> Result<RiskModelRow, RepositoryError> {
        let version = model
            .version()
            .ok_or_else(|| internal("risk model without a version", &model.name))?;
        let create_time = model
            .create_time
            .ok_or_else(|| internal("risk model without create time", &model.name))?;
        Ok(RiskModelRow {
            tenant_id: tenant.to_owned(),
            version,
            uid: model.uid.clone(),
            body: body_without(serde_json::to_value(model), &COLUMN_FIELDS, "risk model")?,
            create_time: create_time.unix_micros(),
        })
    }

    fn into_model(self) -> Result<RiskModel, RepositoryError> {
        let mut model: RiskModel =
            serde_json::from_str(&self.body).map_err(|e| internal("stored risk model", e))?;
        model.name = RiskModel::name_of(self.version);
        model.etag = resource::etag(&self.uid, 1);
        model.uid = self.uid;
        model.create_time = Some(timestamp(self.create_time)?);
        Ok(model)
    }
}

/// The `risk_models` table, read by version number.
struct RiskModelTable;

impl ListedTable for RiskModelTable {
    type Resource = RiskModel;
    type Row = RiskModelRow;

    const TABLE: &'static str = "risk_models";
    const FIELDS: &'static FieldMap = &RISK_MODEL_FIELDS;
    const PARENT_COLUMN: Option<&'static str> = None;
    const SOFT_DELETES: bool = false;

    fn sort_value(row: &RiskModelRow, column: &str) -> Option<CursorValue> {
        match column {
            "rm.version" => Some(CursorValue::Integer(row.version)),
            "rm.create_time" => Some(CursorValue::Integer(row.create_time)),
            _ => None,
        }
    }

    fn resources(
        _conn: &mut DbConnection,
        _tenant: &str,
        rows: Vec<RiskModelRow>,
    ) -> Result<Vec<RiskModel>, RepositoryError> {
        rows.into_iter().map(RiskModelRow::into_model).collect()
    }
}

/// Which version of a tenant's risk model a read takes.
#[derive(Debug, Clone, Copy)]
enum Version {
    /// The version with this number.
    Numbered(i64),
    /// The newest version.
    Newest,
}

impl ReadTable for RiskModelTable {
    type Key = Version;
    const READS_SIDE_ROWS: bool = false;

    fn load(
        conn: &mut DbConnection,
        tenant: &str,
        version: &Version,
    ) -> QueryResult<Option<RiskModelRow>> {
        let mut rows = risk_models::table
            .filter(risk_models::tenant_id.eq(tenant))
            .order(risk_models::version.desc())
            .select(RiskModelRow::as_select())
            .into_boxed();
        if let Version::Numbered(number) = *version {
            rows = rows.filter(risk_models::version.eq(number));
        }
        rows.first(conn).optional()
    }
}

/// The risk model repository.
#[derive(Clone)]
pub struct DieselRiskModelRepository {
    db: Database,
}

impl DieselRiskModelRepository {
    /// A repository over `db`.
    pub fn new(db: Database) -> DieselRiskModelRepository {
        DieselRiskModelRepository { db }
    }
}

#[async_trait]
impl RiskModelRepository for DieselRiskModelRepository {
    async fn get(
        &self,
        tenant: &TenantId,
        version: i64,
    ) -> Result<Option<RiskModel>, RepositoryError> {
        read_one::<RiskModelTable>(&self.db, tenant.as_str(), &Version::Numbered(version)).await
    }

    async fn latest(&self, tenant: &TenantId) -> Result<Option<RiskModel>, RepositoryError> {
        read_one::<RiskModelTable>(&self.db, tenant.as_str(), &Version::Newest).await
    }

    async fn list(
        &self,
        tenant: &TenantId,
        query: &ListQuery,
    ) -> Result<Page<RiskModel>, RepositoryError> {
        list_page::<RiskModelTable>(&self.db, tenant.as_str(), None, query).await
    }

    async fn create<'a>(
        &self,
        tenant: &TenantId,
        model: &RiskModel,
        key: Option<&'a IdempotencyKey>,
        new_events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError> {
        let row = RiskModelRow::from_model(tenant.as_str(), model)?;
        let (tenant, key, new_events) =
            (tenant.as_str().to_owned(), key.cloned(), outbox(new_events));
        self.db
            .write(move |conn| {
                let now = timestamp(row.create_time)?;
                insert_once(conn, &tenant, key.as_ref(), now, new_events, |conn| {
                    diesel::insert_into(risk_models::table)
                        .values(&row)
                        .execute(conn)
                        .map(drop)
                        .map_err(repository_error)
                })
            })
            .await
    }
}
