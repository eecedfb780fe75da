//! The webhook endpoint repository over Diesel.

use diesel::prelude::*;
use rics_aip::page_token::CursorValue;
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_domain::resource;
use rics_domain::time::Timestamp;
use rics_domain::webhook::model::{SealedSecrets, WebhookEndpoint, WebhookEndpointState};

use crate::connection::DbConnection;
use crate::filter::{Column, FieldMap, ScalarKind, Unset};
use crate::rows::{body_without, internal, micros, timestamp};
use crate::schema::webhook_endpoints;
use crate::store::{DieselStore, StoredTable, row_statements};

/// A column of `webhook_endpoints` as a filter field.
const fn column(column: &'static str, kind: ScalarKind, unset: Unset) -> Column {
    Column::Scalar {
        column,
        kind,
        unset,
    }
}

/// Where the webhook endpoint filter fields live.
const ENDPOINT_FIELDS: FieldMap = FieldMap {
    alias: "we",
    tenant_column: "we.tenant_id",
    id_column: "we.id",
    fields: &[
        ("url", column("we.url", ScalarKind::Text, Unset::NotNull)),
        (
            "state",
            column("we.state", ScalarKind::Enum, Unset::NotNull),
        ),
        (
            "createTime",
            column("we.create_time", ScalarKind::Timestamp, Unset::NotNull),
        ),
        (
            "updateTime",
            column("we.update_time", ScalarKind::Timestamp, Unset::NotNull),
        ),
        (
            "deleteTime",
            column("we.delete_time", ScalarKind::Timestamp, Unset::InMessage),
        ),
    ],
    fuzzy: &[],
};

/// Fields kept in columns rather than in the body; `secret` is never stored in the
/// clear.
const COLUMN_FIELDS: [&str; 10] = [
    "name",
    "uid",
    "url",
    "state",
    "secret",
    "createTime",
    "updateTime",
    "deleteTime",
    "purgeTime",
    "etag",
];

/// One row of `webhook_endpoints`.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = webhook_endpoints, primary_key(tenant_id, id), treat_none_as_null = true)]
pub struct WebhookEndpointRow {
    tenant_id: String,
    id: String,
    uid: String,
    revision: i64,
    url: String,
    state: String,
    secret: String,
    previous_secret: Option<String>,
    previous_secret_expire_time: Option<i64>,
    body: String,
    create_time: i64,
    update_time: i64,
    delete_time: Option<i64>,
    purge_time: Option<i64>,
}

impl WebhookEndpointRow {
    fn from_endpoint(
        tenant: &TenantId,
        endpoint: &WebhookEndpoint,
    ) -> Result<WebhookEndpointRow, RepositoryError> {
        Ok(WebhookEndpointRow {
            tenant_id: tenant.as_str().to_owned(),
            id: endpoint.id().to_owned(),
            uid: endpoint.uid.clone(),
            revision: endpoint.revision,
            url: endpoint.url.clone(),
            state: endpoint.state.as_str().to_owned(),
            secret: endpoint.sealed.current.clone(),
            previous_secret: endpoint.sealed.previous.clone(),
            previous_secret_expire_time: micros(endpoint.sealed.previous_expire_time),
            body: body_without(
                serde_json::to_value(endpoint),
                &COLUMN_FIELDS,
                "webhook endpoint to JSON",
            )?,
            create_time: endpoint.create_time.map_or(0, Timestamp::unix_micros),
            update_time: endpoint.update_time.map_or(0, Timestamp::unix_micros),
            delete_time: micros(endpoint.delete_time),
            purge_time: micros(endpoint.purge_time),
        })
    }

    fn into_endpoint(self) -> Result<WebhookEndpoint, RepositoryError> {
        let mut endpoint: WebhookEndpoint = serde_json::from_str(&self.body)
            .map_err(|e| internal("stored webhook endpoint JSON", e))?;
        endpoint.name = WebhookEndpoint::name_of(&self.id);
        endpoint.etag = resource::etag(&self.uid, self.revision);
        endpoint.uid = self.uid;
        endpoint.revision = self.revision;
        endpoint.url = self.url;
        endpoint.state = WebhookEndpointState::parse(&self.state)
            .ok_or_else(|| internal("stored webhook endpoint state", &self.state))?;
        endpoint.sealed = SealedSecrets {
            current: self.secret,
            previous: self.previous_secret,
            previous_expire_time: self
                .previous_secret_expire_time
                .map(timestamp)
                .transpose()?,
        };
        endpoint.create_time = Some(timestamp(self.create_time)?);
        endpoint.update_time = Some(timestamp(self.update_time)?);
        endpoint.delete_time = self.delete_time.map(timestamp).transpose()?;
        endpoint.purge_time = self.purge_time.map(timestamp).transpose()?;
        Ok(endpoint)
    }
}

/// The webhook endpoints table, for [`DieselStore`].
#[derive(Debug, Clone, Copy)]
pub struct WebhookEndpointTable;

/// The Diesel webhook endpoint repository.
pub type DieselWebhookEndpointRepository = DieselStore<WebhookEndpointTable>;

impl StoredTable for WebhookEndpointTable {
    type Resource = WebhookEndpoint;
    type Row = WebhookEndpointRow;

    const TABLE: &'static str = "webhook_endpoints";
    const FIELDS: &'static FieldMap = &ENDPOINT_FIELDS;

    row_statements!(webhook_endpoints);

    fn row(
        tenant: &TenantId,
        endpoint: &WebhookEndpoint,
    ) -> Result<WebhookEndpointRow, RepositoryError> {
        WebhookEndpointRow::from_endpoint(tenant, endpoint)
    }

    fn sort_value(row: &WebhookEndpointRow, column: &str) -> Option<CursorValue> {
        Some(match column {
            "we.id" => CursorValue::Text(row.id.clone()),
            "we.url" => CursorValue::Text(row.url.clone()),
            "we.create_time" => CursorValue::Integer(row.create_time),
            "we.update_time" => CursorValue::Integer(row.update_time),
            _ => return None,
        })
    }

    fn resources(
        _conn: &mut DbConnection,
        _tenant: &str,
        rows: Vec<WebhookEndpointRow>,
    ) -> Result<Vec<WebhookEndpoint>, RepositoryError> {
        rows.into_iter()
            .map(WebhookEndpointRow::into_endpoint)
            .collect()
    }
}
