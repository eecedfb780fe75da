//! The form repository over Diesel: forms with their workspaces, the submit that
//! writes its activity log in the same transaction, the forms past their deadline, and
//! the part of an entity's erasure that concerns its forms.

use async_trait::async_trait;
use diesel::prelude::*;
use rics_aip::page_token::CursorValue;
use rics_domain::activity::model::ActivityLog;
use rics_domain::entity::model::Entity;
use rics_domain::event::NewEvent;
use rics_domain::form::model::{Form, FormState, NewForm};
use rics_domain::form::ports::FormRecords;
use rics_domain::principal::TenantId;
use rics_domain::repository::{RepositoryError, Staged};
use rics_domain::resource;
use rics_domain::time::Timestamp;
use serde_json::{Map, Value};

use crate::activity_logs::ActivityLogTable;
use crate::connection::DbConnection;
use crate::entities::lock_stored;
use crate::error::repository_error;
use crate::events::{insert_events, outbox};
use crate::filter::{Column, FieldMap, ScalarKind, Unset};
use crate::rows::{FoundId, body_without, internal, micros, timestamp};
use crate::schema::forms;
use crate::side_rows::ValueRows;
use crate::sql::Sql;
use crate::store::{
    DieselStore, StoredTable, Write, insert_with_events, overwrite, row_statements,
};

/// The workspaces of each form, in order.
const WORKSPACES: ValueRows = ValueRows {
    table: "form_workspaces",
    owner: "form_id",
    value: "workspace",
};

/// Where the form filter fields live.
const FORM_FIELDS: FieldMap = FieldMap {
    alias: "f",
    tenant_column: "f.tenant_id",
    id_column: "f.id",
    fields: &[
        (
            "displayName",
            Column::Scalar {
                column: "f.display_name",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "state",
            Column::Scalar {
                column: "f.state",
                kind: ScalarKind::Enum,
                unset: Unset::NotNull,
            },
        ),
        (
            "formDefinition",
            Column::Scalar {
                column: "f.form_definition",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "entity",
            Column::Scalar {
                column: "f.entity",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "workspaces",
            Column::Repeated {
                table: WORKSPACES.table,
                owner: WORKSPACES.owner,
                value: WORKSPACES.value,
            },
        ),
        (
            "createTime",
            Column::Scalar {
                column: "f.create_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
        (
            "updateTime",
            Column::Scalar {
                column: "f.update_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
        (
            "submitTime",
            Column::Scalar {
                column: "f.submit_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::InMessage,
            },
        ),
        (
            "expireTime",
            Column::Scalar {
                column: "f.expire_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::InMessage,
            },
        ),
    ],
    fuzzy: &[],
};

/// Fields kept in columns or side rows rather than in the body, which holds the
/// response.
const COLUMN_FIELDS: [&str; 12] = [
    "name",
    "uid",
    "displayName",
    "formDefinition",
    "entity",
    "workspaces",
    "state",
    "submitTime",
    "expireTime",
    "createTime",
    "updateTime",
    "etag",
];

/// One row of `forms`.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = forms, primary_key(tenant_id, id), treat_none_as_null = true)]
pub struct FormRow {
    tenant_id: String,
    id: String,
    uid: String,
    revision: i64,
    display_name: String,
    form_definition: String,
    entity: String,
    state: String,
    body: String,
    create_time: i64,
    update_time: i64,
    submit_time: Option<i64>,
    expire_time: Option<i64>,
}

impl FormRow {
    fn from_form(tenant: &TenantId, form: &Form) -> Result<FormRow, RepositoryError> {
        Ok(FormRow {
            tenant_id: tenant.as_str().to_owned(),
            id: form.id().to_owned(),
            uid: form.uid.clone(),
            revision: form.revision,
            display_name: form.display_name.clone(),
            form_definition: form.form_definition.clone(),
            entity: form.entity.clone(),
            state: form.state.as_str().to_owned(),
            body: body_without(serde_json::to_value(form), &COLUMN_FIELDS, "form to JSON")?,
            create_time: form.create_time.map_or(0, Timestamp::unix_micros),
            update_time: form.update_time.map_or(0, Timestamp::unix_micros),
            submit_time: micros(form.submit_time),
            expire_time: micros(form.expire_time),
        })
    }

    /// The form of this row, with its workspaces in order.
    fn into_form(self, workspaces: Vec<String>) -> Result<Form, RepositoryError> {
        let mut form: Form =
            serde_json::from_str(&self.body).map_err(|e| internal("stored form JSON", e))?;
        form.name = Form::name_of(&self.id);
        form.etag = resource::etag(&self.uid, self.revision);
        form.uid = self.uid;
        form.revision = self.revision;
        form.display_name = self.display_name;
        form.form_definition = self.form_definition;
        form.entity = self.entity;
        form.workspaces = workspaces;
        form.state = FormState::parse(&self.state)
            .ok_or_else(|| internal("stored form state", &self.state))?;
        form.create_time = Some(timestamp(self.create_time)?);
        form.update_time = Some(timestamp(self.update_time)?);
        form.submit_time = self.submit_time.map(timestamp).transpose()?;
        form.expire_time = self.expire_time.map(timestamp).transpose()?;
        Ok(form)
    }
}

/// Stores the forms a new workspace opens, with their events, in the caller's
/// transaction.
///
/// # Errors
/// Database failures.
pub(crate) fn insert_new_forms(
    conn: &mut DbConnection,
    tenant: &str,
    new_forms: &[NewForm],
) -> Result<(), RepositoryError> {
    let tenant = TenantId::new(tenant);
    for new in new_forms {
        insert_with_events::<FormTable>(conn, &tenant, &new.form, &new.events)?;
    }
    Ok(())
}

/// Takes the erased entity `entity_id` out of its forms and clears their response
/// (a response holds personal data about the person); the forms stay, with a new
/// etag. Returns how many. Part of an entity's erasure.
///
/// # Errors
/// Database failures; INTERNAL for a stored body that does not read.
pub(crate) fn unlink_erased_entity(
    conn: &mut DbConnection,
    tenant: &str,
    entity_id: &str,
) -> Result<i64, RepositoryError> {
    let rows: Vec<(String, String)> = forms::table
        .filter(forms::tenant_id.eq(tenant))
        .filter(forms::entity.eq(Entity::name_of(entity_id)))
        .select((forms::id, forms::body))
        .load(conn)
        .map_err(repository_error)?;
    for (id, body) in &rows {
        let mut members: Map<String, Value> =
            serde_json::from_str(body).map_err(|e| internal("stored form JSON", e))?;
        members.remove("response");
        diesel::update(
            forms::table
                .filter(forms::tenant_id.eq(tenant))
                .filter(forms::id.eq(id)),
        )
        .set((
            forms::entity.eq(""),
            forms::body.eq(Value::Object(members).to_string()),
            forms::revision.eq(forms::revision + 1),
        ))
        .execute(conn)
        .map_err(repository_error)?;
    }
    Ok(rows.len() as i64)
}

/// The forms table, for [`DieselStore`]: the workspaces of a form are side rows; a
/// form about an entity needs the entity stored; forms are never deleted.
#[derive(Debug, Clone, Copy)]
pub struct FormTable;

/// The Diesel form repository.
pub type DieselFormRepository = DieselStore<FormTable>;

impl StoredTable for FormTable {
    type Resource = Form;
    type Row = FormRow;

    const TABLE: &'static str = "forms";
    const FIELDS: &'static FieldMap = &FORM_FIELDS;
    const READS_SIDE_ROWS: bool = true;
    const SOFT_DELETES: bool = false;

    row_statements!(forms);

    fn row(tenant: &TenantId, form: &Form) -> Result<FormRow, RepositoryError> {
        FormRow::from_form(tenant, form)
    }

    fn sort_value(row: &FormRow, column: &str) -> Option<CursorValue> {
        Some(match column {
            "f.id" => CursorValue::Text(row.id.clone()),
            "f.display_name" => CursorValue::Text(row.display_name.clone()),
            "f.create_time" => CursorValue::Integer(row.create_time),
            "f.update_time" => CursorValue::Integer(row.update_time),
            _ => return None,
        })
    }

    fn resources(
        conn: &mut DbConnection,
        tenant: &str,
        rows: Vec<FormRow>,
    ) -> Result<Vec<Form>, RepositoryError> {
        WORKSPACES.attach(
            conn,
            tenant,
            rows,
            |row| row.id.as_str(),
            FormRow::into_form,
        )
    }

    /// A form about an entity that is gone (erased meanwhile) is NOT_FOUND.
    fn before_insert(
        conn: &mut DbConnection,
        tenant: &str,
        form: &Form,
    ) -> Result<(), RepositoryError> {
        let entities = form.entity_ids();
        // As a document's create does: an erasure, which locks the entity's row before
        // it unlinks its forms, either waits for this transaction or has removed the
        // entity when this one reads it.
        if entities.is_empty() || lock_stored(conn, tenant, &entities, "FOR KEY SHARE")? == 1 {
            Ok(())
        } else {
            Err(RepositoryError::NotFound)
        }
    }

    fn write_side_rows(
        conn: &mut DbConnection,
        form: &Form,
        row: &FormRow,
        write: Write,
    ) -> Result<(), RepositoryError> {
        WORKSPACES
            .write(conn, (&row.tenant_id, &row.id), &form.workspaces, write)
            .map_err(repository_error)
    }
}

#[async_trait]
impl FormRecords for DieselStore<FormTable> {
    async fn find_expired(
        &self,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<(TenantId, String)>, RepositoryError> {
        self.db()
            .read(move |conn| {
                let mut sql = Sql::from(
                    "SELECT f.tenant_id AS tenant_id, f.id AS id FROM forms f \
                     WHERE f.state = 'DRAFT' AND f.expire_time IS NOT NULL AND f.expire_time <= ",
                );
                sql.bind(now.unix_micros())
                    .push(" ORDER BY f.expire_time, f.tenant_id, f.id LIMIT ")
                    .bind(i64::from(limit));
                let found = sql.load::<FoundId>(conn).map_err(repository_error)?;
                Ok(found
                    .into_iter()
                    .map(|row| (TenantId::new(&row.tenant_id), row.id))
                    .collect())
            })
            .await
    }

    async fn submit<'a>(
        &self,
        tenant: &TenantId,
        form: &Form,
        expected_revision: i64,
        events: &[NewEvent],
        log: Option<&'a Staged<ActivityLog>>,
    ) -> Result<(), RepositoryError> {
        let row = FormTable::row(tenant, form)?;
        let (tenant, form, events, log) =
            (tenant.clone(), form.clone(), outbox(events), log.cloned());
        self.db()
            .write(move |conn| {
                overwrite::<FormTable>(conn, tenant.as_str(), &row, expected_revision)?;
                FormTable::write_side_rows(conn, &form, &row, Write::Update)?;
                insert_events(conn, tenant.as_str(), events).map_err(repository_error)?;
                if let Some(log) = log {
                    insert_with_events::<ActivityLogTable>(
                        conn,
                        &tenant,
                        &log.resource,
                        &log.events,
                    )?;
                }
                Ok(())
            })
            .await
    }
}
