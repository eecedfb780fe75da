//! The long-running operation repository over Diesel.
//!
//! An operation is owned by the tenant that polls it; its id is the last segment of
//! its name. `error`, `response` and `metadata` are stored as JSON text.

use async_trait::async_trait;
use diesel::prelude::*;
use rics_domain::operation::{Operation, OperationRepository};
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_domain::time::Timestamp;
use serde_json::Value;

use crate::connection::DbConnection;
use crate::database::Database;
use crate::error::repository_error;
use crate::rows::{internal, micros, timestamp};
use crate::schema::operations;

/// The member of an operation's response that holds a one-time secret.
pub const SECRET_MEMBER: &str = "clientSecret";

/// One row of `operations`.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = operations)]
struct OperationRow {
    tenant_id: String,
    id: String,
    name: String,
    kind: String,
    done: bool,
    error: Option<String>,
    response: Option<String>,
    metadata: String,
    create_time: i64,
    update_time: i64,
    redact_after: Option<i64>,
}

/// The id of the operation named `name`: its last segment.
fn id_of(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

impl OperationRow {
    fn from_operation(
        owner: &TenantId,
        operation: &Operation,
    ) -> Result<OperationRow, RepositoryError> {
        let create_time = operation
            .create_time
            .ok_or_else(|| internal("operation without a create time", &operation.name))?
            .unix_micros();
        let json =
            |value: serde_json::Result<String>| value.map_err(|e| internal("operation to JSON", e));
        Ok(OperationRow {
            tenant_id: owner.as_str().to_owned(),
            id: id_of(&operation.name).to_owned(),
            name: operation.name.clone(),
            kind: operation.metadata.kind.clone(),
            done: operation.done,
            error: operation
                .error
                .as_ref()
                .map(|e| json(serde_json::to_string(e)))
                .transpose()?,
            response: operation
                .response
                .as_ref()
                .map(|r| json(serde_json::to_string(r)))
                .transpose()?,
            metadata: json(serde_json::to_string(&operation.metadata))?,
            create_time,
            update_time: create_time,
            redact_after: micros(operation.redact_after),
        })
    }

    fn into_operation(self) -> Result<Operation, RepositoryError> {
        let parse = |what: &str, text: &str| -> Result<Value, RepositoryError> {
            serde_json::from_str(text).map_err(|e| internal(what, e))
        };
        let error = self
            .error
            .as_deref()
            .map(|text| {
                serde_json::from_str(text).map_err(|e| internal("stored operation error", e))
            })
            .transpose()?;
        Ok(Operation {
            metadata: serde_json::from_str(&self.metadata)
                .map_err(|e| internal("stored operation metadata", e))?,
            done: self.done,
            error,
            response: self
                .response
                .as_deref()
                .map(|text| parse("stored operation response", text))
                .transpose()?,
            create_time: Some(timestamp(self.create_time)?),
            redact_after: self.redact_after.map(timestamp).transpose()?,
            name: self.name,
        })
    }
}

/// Inserts `operation`, owned by `owner`, in the current transaction.
///
/// # Errors
/// [`RepositoryError::AlreadyExists`] for a taken id; [`RepositoryError::Internal`]
/// for an operation without a create time.
pub(crate) fn insert_operation(
    conn: &mut DbConnection,
    owner: &TenantId,
    operation: &Operation,
) -> Result<(), RepositoryError> {
    diesel::insert_into(operations::table)
        .values(&OperationRow::from_operation(owner, operation)?)
        .execute(conn)
        .map(|_| ())
        .map_err(repository_error)
}

/// `value` without any `clientSecret` member, at any depth.
pub fn without_secrets(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(key, _)| key != SECRET_MEMBER)
                .map(|(key, member)| (key, without_secrets(member)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_secrets).collect()),
        other => other,
    }
}

/// The Diesel operation repository.
#[derive(Debug, Clone)]
pub struct DieselOperationRepository {
    db: Database,
}

impl DieselOperationRepository {
    /// A repository over `db`.
    pub fn new(db: Database) -> DieselOperationRepository {
        DieselOperationRepository { db }
    }
}

#[async_trait]
impl OperationRepository for DieselOperationRepository {
    async fn get(
        &self,
        owner: &TenantId,
        name: &str,
    ) -> Result<Option<Operation>, RepositoryError> {
        let (owner, name) = (owner.as_str().to_owned(), name.to_owned());
        self.db
            .run(move |conn| {
                operations::table
                    .filter(operations::tenant_id.eq(&owner))
                    .filter(operations::id.eq(id_of(&name)))
                    .filter(operations::name.eq(&name))
                    .select(OperationRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(repository_error)?
                    .map(OperationRow::into_operation)
                    .transpose()
            })
            .await
    }

    /// Removes the `clientSecret` members from the responses of the operations whose
    /// `redact_after` is at or before `before` (pass the current time), and clears
    /// their `redact_after`.
    async fn redact_secrets(&self, before: Timestamp) -> Result<u64, RepositoryError> {
        let before = before.unix_micros();
        self.db
            .write(move |conn| {
                let due = operations::table
                    .filter(operations::redact_after.is_not_null())
                    .filter(operations::redact_after.le(before))
                    .select((operations::tenant_id, operations::id, operations::response))
                    .load::<(String, String, Option<String>)>(conn)
                    .map_err(repository_error)?;
                let mut changed = 0_u64;
                for (tenant, id, response) in due {
                    let redacted = response
                        .as_deref()
                        .map(|text| {
                            serde_json::from_str::<Value>(text)
                                .map(|value| without_secrets(value).to_string())
                                .map_err(|e| internal("stored operation response", e))
                        })
                        .transpose()?;
                    // Conditional, so that concurrent redactions count each once.
                    changed += diesel::update(
                        operations::table
                            .filter(operations::tenant_id.eq(&tenant))
                            .filter(operations::id.eq(&id))
                            .filter(operations::redact_after.is_not_null()),
                    )
                    .set((
                        operations::response.eq(redacted),
                        operations::redact_after.eq(None::<i64>),
                    ))
                    .execute(conn)
                    .map_err(repository_error)? as u64;
                }
                Ok(changed)
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secrets_are_removed_at_any_depth_and_nothing_else() {
        let response = json!({
            "clientSecret": "a",
            "clients": [{"clientId": "c", "clientSecret": "b"}, "clientSecret"],
            "nested": {"deeper": {"clientSecret": "c", "keep": 1}},
        });
        assert_eq!(
            without_secrets(response),
            json!({
                "clients": [{"clientId": "c"}, "clientSecret"],
                "nested": {"deeper": {"keep": 1}},
            })
        );
    }

    #[test]
    fn the_id_is_the_last_segment_of_the_name() {
        assert_eq!(id_of("tenants/t1/operations/abc"), "abc");
        assert_eq!(id_of("abc"), "abc");
    }
}
