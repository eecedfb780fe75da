//! The execution repository over Diesel: executions of automations, whose one task
//! each waits in the job queue (`job_tasks`, family
//! [`EXECUTION_QUEUE`](rics_domain::automation::execution::EXECUTION_QUEUE)), claimed
//! with the job runs' claim, once per step.

use async_trait::async_trait;
use diesel::prelude::*;
use rics_aip::page_token::CursorValue;
use rics_domain::automation::execution::{EXECUTION_QUEUE, Execution};
use rics_domain::automation::ports::{ExecutionRepository, StepFinish};
use rics_domain::event::NewEvent;
use rics_domain::job::ClaimedTask;
use rics_domain::list::{ListQuery, Page};
use rics_domain::operation::{Operation, OperationError, OperationMetadata};
use rics_domain::principal::TenantId;
use rics_domain::repository::{CreateOutcome, IdempotencyKey, RepositoryError, ResourceStore};
use rics_domain::time::Timestamp;

use crate::connection::DbConnection;
use crate::error::repository_error;
use crate::events::{insert_events, outbox};
use crate::filter::{Column, FieldMap, ScalarKind, Unset};
use crate::operations::insert_operation;
use crate::rows::internal;
use crate::schema::{automation_executions, job_tasks, operations};
use crate::store::{DieselStore, StoredTable, insert_once, overwrite, row_statements};

/// Where the execution filter fields live.
const EXECUTION_FIELDS: FieldMap = FieldMap {
    alias: "x",
    tenant_column: "x.tenant_id",
    id_column: "x.id",
    fields: &[
        (
            "state",
            Column::Scalar {
                column: "x.state",
                kind: ScalarKind::Enum,
                unset: Unset::NotNull,
            },
        ),
        (
            "startTime",
            Column::Scalar {
                column: "x.start_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::ZeroValue,
            },
        ),
        (
            "endTime",
            Column::Scalar {
                column: "x.end_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::ZeroValue,
            },
        ),
        (
            "createTime",
            Column::Scalar {
                column: "x.create_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
        (
            "updateTime",
            Column::Scalar {
                column: "x.update_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
    ],
    fuzzy: &[],
};

/// One row of `automation_executions`.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = automation_executions, primary_key(tenant_id, id), treat_none_as_null = true)]
pub struct ExecutionRow {
    tenant_id: String,
    id: String,
    automation_id: String,
    entity_id: Option<String>,
    awaited_form: Option<String>,
    uid: String,
    revision: i64,
    state: String,
    body: String,
    start_time: Option<i64>,
    end_time: Option<i64>,
    create_time: i64,
    update_time: i64,
}

impl ExecutionRow {
    fn from_record(tenant: &TenantId, x: &Execution) -> Result<ExecutionRow, RepositoryError> {
        Ok(ExecutionRow {
            tenant_id: tenant.as_str().to_owned(),
            id: x.id.clone(),
            automation_id: x.automation_id.clone(),
            entity_id: x.entity_id.clone(),
            awaited_form: x.awaited_form().map(str::to_owned),
            uid: x.uid.clone(),
            revision: x.revision,
            state: x.state.as_str().to_owned(),
            body: serde_json::to_string(x).map_err(|e| internal("execution to JSON", e))?,
            start_time: x.start_time.map(Timestamp::unix_micros),
            end_time: x.end_time.map(Timestamp::unix_micros),
            create_time: x.create_time.unix_micros(),
            update_time: x.update_time.unix_micros(),
        })
    }

    fn into_record(self) -> Result<Execution, RepositoryError> {
        serde_json::from_str(&self.body).map_err(|e| internal("stored execution JSON", e))
    }
}

/// The executions table, for [`DieselStore`]: executions are never deleted (they go
/// only with their tenant, or with the entity their parameter names).
#[derive(Debug, Clone, Copy)]
pub struct ExecutionTable;

/// The Diesel execution repository.
pub type DieselExecutionRepository = DieselStore<ExecutionTable>;

impl StoredTable for ExecutionTable {
    type Resource = Execution;
    type Row = ExecutionRow;

    const TABLE: &'static str = "automation_executions";
    const FIELDS: &'static FieldMap = &EXECUTION_FIELDS;
    const SOFT_DELETES: bool = false;

    row_statements!(automation_executions);

    fn row(tenant: &TenantId, execution: &Execution) -> Result<ExecutionRow, RepositoryError> {
        ExecutionRow::from_record(tenant, execution)
    }

    fn sort_value(row: &ExecutionRow, column: &str) -> Option<CursorValue> {
        Some(match column {
            "x.id" => CursorValue::Text(row.id.clone()),
            "x.create_time" => CursorValue::Integer(row.create_time),
            "x.update_time" => CursorValue::Integer(row.update_time),
            _ => return None,
        })
    }

    fn resources(
        _conn: &mut DbConnection,
        _tenant: &str,
        rows: Vec<ExecutionRow>,
    ) -> Result<Vec<Execution>, RepositoryError> {
        rows.into_iter().map(ExecutionRow::into_record).collect()
    }
}

/// Ends the operation `id` of `tenant` with `end`, or only updates its metadata.
fn update_operation(
    conn: &mut DbConnection,
    tenant: &str,
    id: &str,
    metadata: &OperationMetadata,
    end: Option<&Result<serde_json::Value, OperationError>>,
    now: Timestamp,
) -> Result<(), RepositoryError> {
    let metadata =
        serde_json::to_string(metadata).map_err(|e| internal("operation metadata to JSON", e))?;
    let target = operations::table
        .filter(operations::tenant_id.eq(tenant))
        .filter(operations::id.eq(id));
    match end {
        None => diesel::update(target)
            .set((
                operations::metadata.eq(metadata),
                operations::update_time.eq(now.unix_micros()),
            ))
            .execute(conn),
        Some(end) => {
            let (response, error) = match end {
                Ok(response) => (Some(response.to_string()), None),
                Err(error) => (
                    None,
                    Some(
                        serde_json::to_string(error)
                            .map_err(|e| internal("operation error to JSON", e))?,
                    ),
                ),
            };
            diesel::update(target)
                .set((
                    operations::done.eq(true),
                    operations::response.eq(response),
                    operations::error.eq(error),
                    operations::metadata.eq(metadata),
                    operations::update_time.eq(now.unix_micros()),
                ))
                .execute(conn)
        }
    }
    .map_err(repository_error)?;
    Ok(())
}

/// The operation id of an execution's `:run` operation name (`.../operations/{id}`),
/// which is also its task's id.
fn operation_id(execution: &Execution) -> &str {
    execution
        .operation
        .rsplit_once('/')
        .map_or(execution.operation.as_str(), |(_, id)| id)
}

/// Removes the executions whose parameter `entity` names the erased entity
/// `entity_id`, their tasks and their operations; returns how many executions. Part of
/// an entity's erasure.
///
/// # Errors
/// Database failures.
pub(crate) fn erase_entity_executions(
    conn: &mut DbConnection,
    tenant: &str,
    entity_id: &str,
) -> Result<i64, RepositoryError> {
    let rows: Vec<ExecutionRow> = automation_executions::table
        .filter(automation_executions::tenant_id.eq(tenant))
        .filter(automation_executions::entity_id.eq(entity_id))
        .select(ExecutionRow::as_select())
        .load(conn)
        .map_err(repository_error)?;
    for row in &rows {
        let execution = row.clone().into_record()?;
        let task = operation_id(&execution);
        diesel::delete(
            job_tasks::table
                .filter(job_tasks::tenant_id.eq(tenant))
                .filter(job_tasks::id.eq(task)),
        )
        .execute(conn)
        .map_err(repository_error)?;
        diesel::delete(
            operations::table
                .filter(operations::tenant_id.eq(tenant))
                .filter(operations::id.eq(task)),
        )
        .execute(conn)
        .map_err(repository_error)?;
    }
    diesel::delete(
        automation_executions::table
            .filter(automation_executions::tenant_id.eq(tenant))
            .filter(automation_executions::entity_id.eq(entity_id)),
    )
    .execute(conn)
    .map(|n| n as i64)
    .map_err(repository_error)
}

#[async_trait]
impl ExecutionRepository for DieselStore<ExecutionTable> {
    async fn start<'a>(
        &self,
        tenant: &TenantId,
        execution: &Execution,
        operation: &Operation,
        key: Option<&'a IdempotencyKey>,
        new_events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError> {
        let row = ExecutionRow::from_record(tenant, execution)?;
        let (owner, operation, key, new_events) = (
            tenant.clone(),
            operation.clone(),
            key.cloned(),
            outbox(new_events),
        );
        let task_id = operation_id(execution).to_owned();
        self.db()
            .write(move |conn| {
                let tenant = owner.as_str().to_owned();
                let now = Timestamp::from_unix_micros(row.create_time)
                    .ok_or_else(|| internal("execution create time", row.create_time))?;
                insert_once(conn, &tenant, key.as_ref(), now, new_events, |conn| {
                    diesel::insert_into(automation_executions::table)
                        .values(&row)
                        .execute(conn)
                        .map_err(repository_error)?;
                    insert_operation(conn, &owner, &operation)?;
                    diesel::insert_into(job_tasks::table)
                        .values((
                            job_tasks::tenant_id.eq(&tenant),
                            job_tasks::id.eq(&task_id),
                            job_tasks::job_id.eq(&row.id),
                            job_tasks::family.eq(EXECUTION_QUEUE),
                            job_tasks::operation_name.eq(&operation.name),
                            job_tasks::attempts.eq(0_i64),
                            job_tasks::run_after.eq(row.create_time),
                            job_tasks::claim.eq(None::<String>),
                            job_tasks::done.eq(false),
                            job_tasks::last_error.eq(None::<String>),
                            job_tasks::create_time.eq(row.create_time),
                            job_tasks::update_time.eq(row.create_time),
                            job_tasks::run_input.eq(None::<String>),
                        ))
                        .execute(conn)
                        .map_err(repository_error)?;
                    Ok(())
                })
            })
            .await
    }

    async fn get<'a>(
        &self,
        tenant: &TenantId,
        automation_id: Option<&'a str>,
        id: &str,
    ) -> Result<Option<Execution>, RepositoryError> {
        let execution = ResourceStore::get(self, tenant, id).await?;
        Ok(execution.filter(|x| automation_id.is_none_or(|a| x.automation_id == a)))
    }

    async fn list(
        &self,
        tenant: &TenantId,
        automation_id: &str,
        query: &ListQuery,
    ) -> Result<Page<Execution>, RepositoryError> {
        self.list_where(tenant, query, |filter| {
            filter.push(" AND x.automation_id = ").bind(automation_id);
        })
        .await
    }

    async fn advance(
        &self,
        task: &ClaimedTask,
        step: &StepFinish,
        now: Timestamp,
    ) -> Result<bool, RepositoryError> {
        let row = ExecutionRow::from_record(&task.tenant, &step.execution)?;
        let (task, step) = (task.clone(), step.clone());
        self.db()
            .write(move |conn| {
                let tenant = task.tenant.as_str();
                let held = job_tasks::table
                    .filter(job_tasks::tenant_id.eq(tenant))
                    .filter(job_tasks::id.eq(&task.id))
                    .filter(job_tasks::claim.eq(&task.claim))
                    .filter(job_tasks::done.eq(false));
                let released = diesel::update(held)
                    .set((
                        job_tasks::claim.eq(None::<String>),
                        job_tasks::done.eq(step.next.is_none()),
                        job_tasks::attempts.eq(0_i64),
                        job_tasks::run_after.eq(step.next.unwrap_or(now).unix_micros()),
                        job_tasks::last_error.eq(None::<String>),
                        job_tasks::update_time.eq(now.unix_micros()),
                    ))
                    .execute(conn)
                    .map_err(repository_error)?;
                if released == 0 {
                    return Ok(false);
                }
                let written =
                    <ExecutionTable as StoredTable>::update(conn, &row, step.expected_revision)
                        .map_err(repository_error)?;
                if written == 0 {
                    // A cancel came first and ended the execution: roll back the
                    // release (the cancel ended the task).
                    return Err(RepositoryError::Conflict);
                }
                update_operation(
                    conn,
                    tenant,
                    &task.id,
                    &step.metadata,
                    step.end.as_ref(),
                    now,
                )?;
                insert_events(conn, tenant, outbox(&step.events)).map_err(repository_error)?;
                Ok(true)
            })
            .await
            .or_else(|error| match error {
                RepositoryError::Conflict => Ok(false),
                other => Err(other),
            })
    }

    async fn cancel(
        &self,
        tenant: &TenantId,
        execution: &Execution,
        expected_revision: i64,
        new_events: &[NewEvent],
    ) -> Result<(), RepositoryError> {
        let row = ExecutionRow::from_record(tenant, execution)?;
        let error = execution.error.clone().map(Err);
        let metadata = rics_domain::automation::engine::metadata(execution);
        let (tenant, task_id, new_events, now) = (
            tenant.as_str().to_owned(),
            operation_id(execution).to_owned(),
            outbox(new_events),
            execution.update_time,
        );
        self.db()
            .write(move |conn| {
                overwrite::<ExecutionTable>(conn, &tenant, &row, expected_revision)?;
                diesel::update(
                    job_tasks::table
                        .filter(job_tasks::tenant_id.eq(&tenant))
                        .filter(job_tasks::id.eq(&task_id)),
                )
                .set((
                    job_tasks::claim.eq(None::<String>),
                    job_tasks::run_after.eq(now.unix_micros()),
                    job_tasks::update_time.eq(now.unix_micros()),
                ))
                .execute(conn)
                .map_err(repository_error)?;
                update_operation(conn, &tenant, &task_id, &metadata, error.as_ref(), now)?;
                insert_events(conn, &tenant, new_events).map_err(repository_error)
            })
            .await
    }

    async fn wake(
        &self,
        tenant: &TenantId,
        form: &str,
        now: Timestamp,
    ) -> Result<u64, RepositoryError> {
        let (tenant, form) = (tenant.as_str().to_owned(), form.to_owned());
        self.db()
            .write(move |conn| {
                let waiting = automation_executions::table
                    .filter(automation_executions::tenant_id.eq(&tenant))
                    .filter(automation_executions::awaited_form.eq(&form))
                    .select(automation_executions::id);
                diesel::update(
                    job_tasks::table
                        .filter(job_tasks::tenant_id.eq(&tenant))
                        .filter(job_tasks::family.eq(EXECUTION_QUEUE))
                        .filter(job_tasks::job_id.eq_any(waiting))
                        .filter(job_tasks::done.eq(false))
                        .filter(job_tasks::claim.is_null()),
                )
                .set(job_tasks::run_after.eq(now.unix_micros()))
                .execute(conn)
                .map(|n| n as u64)
                .map_err(repository_error)
            })
            .await
    }
}
