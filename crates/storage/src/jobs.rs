//! The job repository over Diesel: jobs of every family, their runs' operations, and
//! the queue workers claim runs from.
//!
//! A task is ready when it is not done and its `run_after` has passed. A claim moves
//! `run_after` to the end of the lease and records a fresh claim token, so the task of
//! a worker that died becomes ready again when the lease runs out, and the dead
//! worker's late `finish` (which must present the token) changes nothing.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use rics_aip::page_token::CursorValue;
use rics_domain::event::NewEvent;
use rics_domain::job::model::{
    ClaimedTask, JobRecord, JobState, RunEnd, RunStart, TaskEnd, TaskFinish, job_name,
};
use rics_domain::job::ports::JobRepository;
use rics_domain::job::records::RunEffects;
use rics_domain::list::{ListQuery, Page};
use rics_domain::operation::OperationMetadata;
use rics_domain::principal::TenantId;
use rics_domain::repository::{
    CreateOutcome, IdempotencyKey, RepositoryError, ResourceStore, Staged,
};
use rics_domain::time::Timestamp;
use serde_json::Value;

use crate::activity_logs::ActivityLogTable;
use crate::alerts::AlertTable;
use crate::connection::DbConnection;
use crate::entities::EntityTable;
use crate::error::repository_error;
use crate::events::{insert_events, outbox};
use crate::filter::{Column, FieldMap, ScalarKind, Unset};
use crate::idempotency;
use crate::operations::insert_operation;
use crate::rows::{internal, timestamp};
use crate::schema::{job_tasks, jobs, operations};
use crate::sql::{Bind, Sql};
use crate::store::{
    DieselStore, StoredTable, insert_unless_stored, overwrite, row_statements, update_in,
    update_rows,
};

/// Where the job filter fields live.
const JOB_FIELDS: FieldMap = FieldMap {
    alias: "j",
    tenant_column: "j.tenant_id",
    id_column: "j.id",
    fields: &[
        (
            // Jobs hold their entity's id; filters name the entity, the one a job at
            // `entities/-` made once it did.
            "entity",
            Column::Scalar {
                column: "('entities/' || COALESCE(j.made_entity_id, j.entity_id))",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "state",
            Column::Scalar {
                column: "j.state",
                kind: ScalarKind::Enum,
                unset: Unset::NotNull,
            },
        ),
        (
            "createTime",
            Column::Scalar {
                column: "j.create_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
        (
            "updateTime",
            Column::Scalar {
                column: "j.update_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
    ],
    fuzzy: &[],
};

/// One row of `jobs`.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = jobs, primary_key(tenant_id, id), treat_none_as_null = true)]
pub struct JobRow {
    tenant_id: String,
    id: String,
    family: String,
    entity_id: String,
    uid: String,
    revision: i64,
    state: String,
    input: String,
    result: Option<String>,
    latest_operation: Option<String>,
    create_time: i64,
    update_time: i64,
    made_entity_id: Option<String>,
    delete_time: Option<i64>,
    purge_time: Option<i64>,
}

impl JobRow {
    fn from_record(tenant: &TenantId, job: &JobRecord) -> JobRow {
        JobRow {
            tenant_id: tenant.as_str().to_owned(),
            id: job.id.clone(),
            family: job.family.clone(),
            entity_id: job.entity_id.clone(),
            uid: job.uid.clone(),
            revision: job.revision,
            state: job.state.as_str().to_owned(),
            input: job.input.to_string(),
            result: job.result.as_ref().map(Value::to_string),
            latest_operation: job.latest_operation.clone(),
            create_time: job.create_time.unix_micros(),
            update_time: job.update_time.unix_micros(),
            made_entity_id: job.made_entity_id.clone(),
            delete_time: job.delete_time.map(Timestamp::unix_micros),
            purge_time: job.purge_time.map(Timestamp::unix_micros),
        }
    }

    /// Its values, the id first and then every other column but the tenant, in the
    /// order of the columns of `jobs` ([`JOB_ASSIGNMENTS`]). Destructured whole, so a
    /// column added to the row cannot be left out here unnoticed.
    fn values(self) -> Vec<Bind> {
        let JobRow {
            tenant_id: _,
            id,
            family,
            entity_id,
            uid,
            revision,
            state,
            input,
            result,
            latest_operation,
            create_time,
            update_time,
            made_entity_id,
            delete_time,
            purge_time,
        } = self;
        vec![
            id.into(),
            family.into(),
            entity_id.into(),
            uid.into(),
            revision.into(),
            state.into(),
            input.into(),
            result.into(),
            latest_operation.into(),
            create_time.into(),
            update_time.into(),
            made_entity_id.into(),
            delete_time.into(),
            purge_time.into(),
        ]
    }

    fn into_record(self) -> Result<JobRecord, RepositoryError> {
        let json = |what: &str, text: &str| -> Result<Value, RepositoryError> {
            serde_json::from_str(text).map_err(|e| internal(what, e))
        };
        Ok(JobRecord {
            state: JobState::parse(&self.state)
                .ok_or_else(|| internal("stored job state", &self.state))?,
            input: json("stored job input", &self.input)?,
            result: self
                .result
                .as_deref()
                .map(|text| json("stored job result", text))
                .transpose()?,
            create_time: timestamp(self.create_time)?,
            update_time: timestamp(self.update_time)?,
            delete_time: self.delete_time.map(timestamp).transpose()?,
            purge_time: self.purge_time.map(timestamp).transpose()?,
            id: self.id,
            family: self.family,
            entity_id: self.entity_id,
            made_entity_id: self.made_entity_id,
            uid: self.uid,
            revision: self.revision,
            latest_operation: self.latest_operation,
        })
    }
}

/// A task a claim returned.
#[derive(Debug, QueryableByName)]
struct ClaimedRow {
    #[diesel(sql_type = Text)]
    tenant_id: String,
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = Text)]
    job_id: String,
    #[diesel(sql_type = Text)]
    family: String,
    #[diesel(sql_type = Text)]
    operation_name: String,
    #[diesel(sql_type = BigInt)]
    attempts: i64,
    #[diesel(sql_type = BigInt)]
    create_time: i64,
    #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
    run_input: Option<String>,
}

/// The runs of one family not yet done (queued, running or waiting to retry), for
/// operators: every tenant's together (the queue is shared, as its claim is).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueDepth {
    /// The family's collection (`pepSanctionIndividualEntityJobs`).
    pub family: String,
    /// Runs not done.
    pub runs: u64,
    /// When the oldest of them was queued.
    pub oldest_queue_time: Timestamp,
}

/// One family's row of [`DieselStore::queue_depths`].
#[derive(QueryableByName)]
struct QueueDepthRow {
    #[diesel(sql_type = Text)]
    family: String,
    #[diesel(sql_type = BigInt)]
    runs: i64,
    #[diesel(sql_type = BigInt)]
    oldest: i64,
}

impl DieselStore<JobTable> {
    /// The queue by family, for the `rics_job_queue_*` metrics.
    ///
    /// # Errors
    /// UNAVAILABLE or INTERNAL when the queue cannot be read.
    pub async fn queue_depths(&self) -> Result<Vec<QueueDepth>, RepositoryError> {
        let rows = self
            .db()
            .read(|conn| {
                Sql::from(
                    "SELECT family, COUNT(*) AS runs, MIN(create_time) AS oldest \
                     FROM job_tasks WHERE NOT done GROUP BY family",
                )
                .load::<QueueDepthRow>(conn)
                .map_err(repository_error)
            })
            .await?;
        rows.into_iter()
            .map(|row| {
                Ok(QueueDepth {
                    family: row.family,
                    runs: u64::try_from(row.runs).unwrap_or_default(),
                    oldest_queue_time: timestamp(row.oldest)?,
                })
            })
            .collect()
    }
}

/// Removes the jobs of the erased entity `entity_id` (those it made included: a job
/// created at `entities/-` whose run made it), their queued runs and their
/// operations; returns how many jobs. Part of an entity's erasure.
///
/// # Errors
/// Database failures.
pub(crate) fn erase_entity_jobs(
    conn: &mut DbConnection,
    tenant: &str,
    entity_id: &str,
) -> Result<i64, RepositoryError> {
    let of_entity = jobs::entity_id
        .eq(entity_id)
        .or(jobs::made_entity_id.eq(entity_id));
    let found: Vec<(String, String, String)> = jobs::table
        .filter(jobs::tenant_id.eq(tenant))
        .filter(of_entity)
        .select((jobs::id, jobs::family, jobs::entity_id))
        .load(conn)
        .map_err(repository_error)?;
    let ids: Vec<&String> = found.iter().map(|(id, _, _)| id).collect();
    for chunk in ids.chunks(500) {
        diesel::delete(
            job_tasks::table
                .filter(job_tasks::tenant_id.eq(tenant))
                .filter(job_tasks::job_id.eq_any(chunk)),
        )
        .execute(conn)
        .map_err(repository_error)?;
    }
    // The operations of the entity's own jobs are named under the entity; those of a
    // job it was made by, under the job's `entities/-` name.
    diesel::delete(
        operations::table
            .filter(operations::tenant_id.eq(tenant))
            .filter(operations::name.like(format!("entities/{entity_id}/%"))),
    )
    .execute(conn)
    .map_err(repository_error)?;
    for (id, family, named_entity) in &found {
        if named_entity != entity_id {
            let job = job_name(family, named_entity, id);
            diesel::delete(
                operations::table
                    .filter(operations::tenant_id.eq(tenant))
                    .filter(operations::name.like(format!("{job}/operations/%"))),
            )
            .execute(conn)
            .map_err(repository_error)?;
        }
    }
    diesel::delete(
        jobs::table
            .filter(jobs::tenant_id.eq(tenant))
            .filter(of_entity),
    )
    .execute(conn)
    .map(|n| n as i64)
    .map_err(repository_error)
}

/// Claims ready tasks: one statement that locks the chosen rows, skipping those
/// another claimer holds, on PostgreSQL; the same under SQLite's write lock, which the
/// surrounding `BEGIN IMMEDIATE` transaction already holds.
fn claim_ready(
    conn: &mut DbConnection,
    claim: &str,
    now: Timestamp,
    lease_end: Timestamp,
    limit: u32,
) -> Result<Vec<ClaimedRow>, RepositoryError> {
    let skip_locked = matches!(conn, DbConnection::Postgresql(_));
    let mut sql = Sql::from("UPDATE job_tasks SET claim = ");
    sql.bind(claim)
        .push(", attempts = attempts + 1, run_after = ")
        .bind(lease_end.unix_micros())
        .push(", update_time = ")
        .bind(now.unix_micros())
        .push(
            " WHERE (tenant_id, id) IN (SELECT r.tenant_id, r.id FROM job_tasks r \
             WHERE NOT r.done AND r.run_after <= ",
        )
        .bind(now.unix_micros())
        .push(" ORDER BY r.run_after LIMIT ")
        .bind(i64::from(limit));
    if skip_locked {
        sql.push(" FOR UPDATE SKIP LOCKED");
    }
    sql.push(
        ") RETURNING tenant_id, id, job_id, family, operation_name, attempts, create_time, \
         run_input",
    );
    sql.load::<ClaimedRow>(conn).map_err(repository_error)
}

/// The jobs of the claimed tasks `rows`, read in the claim's transaction (one
/// statement per tenant among them), so a worker need not read each job again: the
/// job of each task whose family has one, keyed by tenant and job id.
fn jobs_of_claimed(
    conn: &mut DbConnection,
    rows: &[ClaimedRow],
) -> Result<HashMap<(String, String), JobRow>, RepositoryError> {
    let mut by_tenant: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for row in rows {
        by_tenant
            .entry(row.tenant_id.as_str())
            .or_default()
            .push(row.job_id.as_str());
    }
    let mut found = HashMap::new();
    for (tenant, ids) in by_tenant {
        let loaded: Vec<JobRow> = jobs::table
            .filter(jobs::tenant_id.eq(tenant))
            .filter(jobs::id.eq_any(ids))
            .select(JobRow::as_select())
            .load(conn)
            .map_err(repository_error)?;
        found.extend(
            loaded
                .into_iter()
                .map(|job| ((job.tenant_id.clone(), job.id.clone()), job)),
        );
    }
    Ok(found)
}

/// The jobs table, for [`DieselStore`]: jobs of every family in one table. Only the
/// jobs of a family whose jobs may be deleted are ever soft-deleted, and purged; the
/// others go only with their entity's erasure.
#[derive(Debug, Clone, Copy)]
pub struct JobTable;

/// The Diesel job repository.
pub type DieselJobRepository = DieselStore<JobTable>;

impl StoredTable for JobTable {
    type Resource = JobRecord;
    type Row = JobRow;

    const TABLE: &'static str = "jobs";
    const FIELDS: &'static FieldMap = &JOB_FIELDS;

    row_statements!(jobs);

    fn row(tenant: &TenantId, job: &JobRecord) -> Result<JobRow, RepositoryError> {
        Ok(JobRow::from_record(tenant, job))
    }

    fn sort_value(row: &JobRow, column: &str) -> Option<CursorValue> {
        Some(match column {
            "j.id" => CursorValue::Text(row.id.clone()),
            "j.create_time" => CursorValue::Integer(row.create_time),
            "j.update_time" => CursorValue::Integer(row.update_time),
            _ => return None,
        })
    }

    fn resources(
        _conn: &mut DbConnection,
        _tenant: &str,
        rows: Vec<JobRow>,
    ) -> Result<Vec<JobRecord>, RepositoryError> {
        rows.into_iter().map(JobRow::into_record).collect()
    }
}

#[async_trait]
impl JobRepository for DieselStore<JobTable> {
    async fn create<'a>(
        &self,
        tenant: &TenantId,
        job: &JobRecord,
        key: Option<&'a IdempotencyKey>,
        new_events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError> {
        ResourceStore::create(self, tenant, job, key, new_events).await
    }

    async fn get(
        &self,
        tenant: &TenantId,
        family: &str,
        id: &str,
    ) -> Result<Option<JobRecord>, RepositoryError> {
        let job = ResourceStore::get(self, tenant, id).await?;
        Ok(job.filter(|job| job.family == family))
    }

    async fn list<'a>(
        &self,
        tenant: &TenantId,
        family: &str,
        entity_id: Option<&'a str>,
        query: &ListQuery,
    ) -> Result<Page<JobRecord>, RepositoryError> {
        self.list_where(tenant, query, |filter| {
            filter.push(" AND j.family = ").bind(family);
            if let Some(entity_id) = entity_id {
                filter
                    .push(" AND (j.entity_id = ")
                    .bind(entity_id)
                    .push(" OR j.made_entity_id = ")
                    .bind(entity_id)
                    .push(")");
            }
        })
        .await
    }

    async fn update(
        &self,
        tenant: &TenantId,
        job: &JobRecord,
        expected_revision: i64,
        new_events: &[NewEvent],
    ) -> Result<(), RepositoryError> {
        ResourceStore::update(self, tenant, job, expected_revision, new_events).await
    }

    async fn find_purge_due(
        &self,
        family: &str,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<(TenantId, String)>, RepositoryError> {
        let family = family.to_owned();
        self.db()
            .read(move |conn| {
                let found: Vec<(String, String)> = jobs::table
                    .filter(jobs::family.eq(&family))
                    .filter(jobs::purge_time.lt(now.unix_micros()))
                    .order(jobs::purge_time)
                    .limit(i64::from(limit))
                    .select((jobs::tenant_id, jobs::id))
                    .load(conn)
                    .map_err(repository_error)?;
                Ok(found
                    .into_iter()
                    .map(|(tenant, id)| (TenantId::new(tenant), id))
                    .collect())
            })
            .await
    }

    async fn purge(
        &self,
        tenant: &TenantId,
        job: &JobRecord,
        now: Timestamp,
        new_events: &[NewEvent],
    ) -> Result<(), RepositoryError> {
        let (tenant, job, new_events) =
            (tenant.as_str().to_owned(), job.clone(), outbox(new_events));
        self.db()
            .write(move |conn| {
                crate::purge::remove_due(conn, "jobs", &tenant, &job.id, now, new_events)?;
                diesel::delete(
                    job_tasks::table
                        .filter(job_tasks::tenant_id.eq(&tenant))
                        .filter(job_tasks::job_id.eq(&job.id)),
                )
                .execute(conn)
                .map_err(repository_error)?;
                diesel::delete(
                    operations::table
                        .filter(operations::tenant_id.eq(&tenant))
                        .filter(operations::name.like(format!("{}/operations/%", job.name()))),
                )
                .execute(conn)
                .map_err(repository_error)?;
                Ok(())
            })
            .await
    }

    async fn start_run<'a>(
        &self,
        tenant: &TenantId,
        start: &RunStart,
        key: Option<&'a IdempotencyKey>,
        new_events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError> {
        let row = JobRow::from_record(tenant, &start.job);
        let owner = tenant.clone();
        let expected_revision = start.expected_revision;
        let (tenant, operation, task, key, new_events) = (
            tenant.as_str().to_owned(),
            start.operation.clone(),
            start.task.clone(),
            key.cloned(),
            outbox(new_events),
        );
        self.db()
            .write(move |conn| {
                if let Some(replay) =
                    idempotency::claim(conn, &tenant, key.as_ref(), task.queue_time)?
                {
                    return Ok(replay);
                }
                overwrite::<JobTable>(conn, &tenant, &row, expected_revision)?;
                insert_operation(conn, &owner, &operation)?;
                let queued = task.queue_time.unix_micros();
                let run_input = (!task.run_input.is_null()).then(|| task.run_input.to_string());
                diesel::insert_into(job_tasks::table)
                    .values((
                        job_tasks::tenant_id.eq(&tenant),
                        job_tasks::id.eq(&task.id),
                        job_tasks::job_id.eq(&row.id),
                        job_tasks::family.eq(&row.family),
                        job_tasks::operation_name.eq(&task.operation_name),
                        job_tasks::attempts.eq(0_i64),
                        job_tasks::run_after.eq(queued),
                        job_tasks::claim.eq(None::<String>),
                        job_tasks::done.eq(false),
                        job_tasks::last_error.eq(None::<String>),
                        job_tasks::create_time.eq(queued),
                        job_tasks::update_time.eq(queued),
                        job_tasks::run_input.eq(run_input),
                    ))
                    .execute(conn)
                    .map_err(repository_error)?;
                insert_events(conn, &tenant, new_events).map_err(repository_error)?;
                Ok(CreateOutcome::Created)
            })
            .await
    }

    async fn find_request(
        &self,
        tenant: &TenantId,
        request_id: &str,
    ) -> Result<Option<(String, String, String)>, RepositoryError> {
        let (tenant, request_id) = (tenant.as_str().to_owned(), request_id.to_owned());
        self.db()
            .run(move |conn| idempotency::find(conn, &tenant, &request_id))
            .await
    }

    async fn claim(
        &self,
        claim: &str,
        now: Timestamp,
        lease: Duration,
        limit: u32,
    ) -> Result<Vec<ClaimedTask>, RepositoryError> {
        let claim = claim.to_owned();
        let (rows, jobs) = self
            .db()
            .write({
                let claim = claim.clone();
                move |conn| {
                    let rows = claim_ready(conn, &claim, now, now.plus(lease), limit)?;
                    let jobs = jobs_of_claimed(conn, &rows)?;
                    Ok((rows, jobs))
                }
            })
            .await?;
        rows.into_iter()
            .map(|row| {
                let job = jobs
                    .get(&(row.tenant_id.clone(), row.job_id.clone()))
                    .filter(|job| job.family == row.family)
                    .cloned()
                    .map(JobRow::into_record)
                    .transpose()?;
                let run_input = match &row.run_input {
                    Some(text) => serde_json::from_str(text)
                        .map_err(|e| internal("stored run input JSON", e))?,
                    None => serde_json::Value::Null,
                };
                Ok(ClaimedTask {
                    run_input,
                    queue_time: timestamp(row.create_time)?,
                    tenant: TenantId::new(row.tenant_id),
                    id: row.id,
                    job_id: row.job_id,
                    family: row.family,
                    operation_name: row.operation_name,
                    attempt: u32::try_from(row.attempts).unwrap_or(u32::MAX),
                    claim: claim.clone(),
                    claim_time: now,
                    job,
                })
            })
            .collect()
    }

    async fn renew(&self, task: &ClaimedTask, until: Timestamp) -> Result<bool, RepositoryError> {
        let (tenant, id, claim) = (
            task.tenant.as_str().to_owned(),
            task.id.clone(),
            task.claim.clone(),
        );
        self.db()
            .run(move |conn| {
                diesel::update(
                    job_tasks::table
                        .filter(job_tasks::tenant_id.eq(&tenant))
                        .filter(job_tasks::id.eq(&id))
                        .filter(job_tasks::claim.eq(&claim))
                        .filter(job_tasks::done.eq(false)),
                )
                .set(job_tasks::run_after.eq(until.unix_micros()))
                .execute(conn)
                .map(|changed| changed == 1)
                .map_err(repository_error)
            })
            .await
    }

    async fn finish(
        &self,
        task: &ClaimedTask,
        finish: Arc<TaskFinish>,
        now: Timestamp,
    ) -> Result<bool, RepositoryError> {
        let end = TaskEnd {
            task: task.clone(),
            finish,
            time: now,
        };
        let written = self.finish_all(vec![end]).await?;
        Ok(written.first() == Some(&true))
    }

    async fn finish_all(&self, ends: Vec<TaskEnd>) -> Result<Vec<bool>, RepositoryError> {
        self.db().write(move |conn| write_ends(conn, &ends)).await
    }

    async fn end_run(
        &self,
        tenant: &TenantId,
        operation_id: &str,
        end: &RunEnd,
        expected_revision: i64,
        now: Timestamp,
    ) -> Result<bool, RepositoryError> {
        let (tenant, operation_id, end) = (tenant.clone(), operation_id.to_owned(), end.clone());
        self.db()
            .write(move |conn| {
                let done: Option<bool> = operations::table
                    .filter(operations::tenant_id.eq(tenant.as_str()))
                    .filter(operations::id.eq(&operation_id))
                    .select(operations::done)
                    .first(conn)
                    .optional()
                    .map_err(repository_error)?;
                match done {
                    None => return Err(RepositoryError::NotFound),
                    Some(true) => return Ok(false),
                    Some(false) => {}
                }
                let stored: Option<i64> = jobs::table
                    .filter(jobs::tenant_id.eq(tenant.as_str()))
                    .filter(jobs::id.eq(&end.job.id))
                    .select(jobs::revision)
                    .first(conn)
                    .optional()
                    .map_err(repository_error)?;
                match stored {
                    None => return Err(RepositoryError::NotFound),
                    Some(revision) if revision != expected_revision => {
                        return Err(RepositoryError::Conflict);
                    }
                    Some(_) => {}
                }
                complete_runs(conn, &tenant, &[(&operation_id, &end, now)])?;
                insert_events(conn, tenant.as_str(), outbox(&end.events))
                    .map_err(repository_error)?;
                Ok(true)
            })
            .await
    }

    async fn cancel_queued(
        &self,
        tenant: &TenantId,
        operation: &str,
        now: Timestamp,
    ) -> Result<bool, RepositoryError> {
        let (tenant, operation) = (tenant.as_str().to_owned(), operation.to_owned());
        self.db()
            .write(move |conn| {
                let queued = job_tasks::table
                    .filter(job_tasks::tenant_id.eq(&tenant))
                    .filter(job_tasks::operation_name.eq(&operation))
                    .filter(job_tasks::done.eq(false))
                    .filter(job_tasks::claim.is_null());
                let task: Option<(String, String)> = queued
                    .select((job_tasks::id, job_tasks::job_id))
                    .first(conn)
                    .optional()
                    .map_err(repository_error)?;
                let Some((task_id, job_id)) = task else {
                    return Ok(false);
                };
                diesel::update(
                    job_tasks::table
                        .filter(job_tasks::tenant_id.eq(&tenant))
                        .filter(job_tasks::id.eq(&task_id)),
                )
                .set((
                    job_tasks::done.eq(true),
                    job_tasks::last_error.eq("cancelled"),
                    job_tasks::update_time.eq(now.unix_micros()),
                ))
                .execute(conn)
                .map_err(repository_error)?;
                diesel::update(
                    jobs::table
                        .filter(jobs::tenant_id.eq(&tenant))
                        .filter(jobs::id.eq(&job_id)),
                )
                .set((
                    jobs::state.eq(JobState::Cancelled.as_str()),
                    jobs::revision.eq(jobs::revision + 1),
                    jobs::update_time.eq(now.unix_micros()),
                ))
                .execute(conn)
                .map_err(repository_error)?;
                let error = serde_json::json!({"code": 1, "message": "the run was cancelled"});
                diesel::update(
                    operations::table
                        .filter(operations::tenant_id.eq(&tenant))
                        .filter(operations::id.eq(&task_id)),
                )
                .set((
                    operations::done.eq(true),
                    operations::error.eq(Some(error.to_string())),
                    operations::update_time.eq(now.unix_micros()),
                ))
                .execute(conn)
                .map_err(repository_error)?;
                Ok(true)
            })
            .await
    }
}

/// Writes the ends of claimed tasks in the caller's transaction, tenant by tenant
/// ([`JobRepository::finish_all`]): the retries released one by one (each with its
/// own time), then the other tasks marked done in one statement, which tells whose
/// claims still hold; only their ends are written: what their runs recorded, the
/// jobs and operations of those that completed, the metadata of those handed off,
/// and all their events in one insert. Returns whether each end was written.
///
/// # Errors
/// As [`JobRepository::finish_all`].
fn write_ends(conn: &mut DbConnection, ends: &[TaskEnd]) -> Result<Vec<bool>, RepositoryError> {
    let mut written = vec![false; ends.len()];
    let mut by_tenant: BTreeMap<&TenantId, Vec<usize>> = BTreeMap::new();
    for (i, end) in ends.iter().enumerate() {
        by_tenant.entry(&end.task.tenant).or_default().push(i);
    }
    for (tenant, indices) in by_tenant {
        let mut closing = Vec::with_capacity(indices.len());
        for i in indices {
            let TaskEnd { task, finish, time } = &ends[i];
            match &**finish {
                TaskFinish::Retry { error, at } => {
                    written[i] = release_for_retry(conn, task, error, *at, *time)?;
                }
                TaskFinish::Complete(run) => closing.push((i, Closing::Completed(run))),
                TaskFinish::HandedOff { metadata, effects } => {
                    closing.push((i, Closing::HandedOff(metadata, effects)));
                }
            }
        }
        let closed = close_tasks(
            conn,
            tenant.as_str(),
            closing.iter().map(|(i, c)| (&ends[*i], c)),
        )?;
        closing.retain(|(i, _)| closed.contains(ends[*i].task.id.as_str()));
        if closing.is_empty() {
            continue;
        }
        for (i, _) in &closing {
            written[*i] = true;
        }
        let effects: Vec<&RunEffects> = closing.iter().map(|(_, c)| c.effects()).collect();
        let recorded = write_effects(conn, tenant, &effects)?;
        let mut completed = Vec::new();
        let mut handed_off = Vec::new();
        for (i, closed) in &closing {
            let end = &ends[*i];
            match closed {
                Closing::Completed(run) => completed.push((end.task.id.as_str(), *run, end.time)),
                Closing::HandedOff(metadata, _) => {
                    handed_off.push((end.task.id.as_str(), *metadata, end.time));
                }
            }
        }
        complete_runs(conn, tenant, &completed)?;
        hand_off_runs(conn, tenant.as_str(), &handed_off)?;
        let events = closing
            .iter()
            .zip(recorded)
            .flat_map(|((_, closed), recorded)| recorded.into_iter().chain(closed.events()));
        insert_events(conn, tenant.as_str(), outbox(events)).map_err(repository_error)?;
    }
    Ok(written)
}

/// An end that closes its task: the run completed, or its runner's part was handed
/// off.
enum Closing<'a> {
    Completed(&'a RunEnd),
    HandedOff(&'a OperationMetadata, &'a RunEffects),
}

impl<'a> Closing<'a> {
    /// What the run recorded.
    fn effects(&self) -> &'a RunEffects {
        match self {
            Closing::Completed(run) => &run.effects,
            Closing::HandedOff(_, effects) => effects,
        }
    }

    /// The events of its end, beside those of what it recorded.
    fn events(&self) -> &'a [NewEvent] {
        match self {
            Closing::Completed(run) => &run.events,
            Closing::HandedOff(..) => &[],
        }
    }

    /// The run's error, for operators.
    fn error(&self) -> Option<String> {
        match self {
            Closing::Completed(run) => run.error.as_ref().map(|e| e.message.clone()),
            Closing::HandedOff(..) => None,
        }
    }
}

/// Releases the claimed `task` for a retry at `at`, if its claim still holds;
/// returns whether it did.
fn release_for_retry(
    conn: &mut DbConnection,
    task: &ClaimedTask,
    error: &str,
    at: Timestamp,
    now: Timestamp,
) -> Result<bool, RepositoryError> {
    let released = diesel::update(
        job_tasks::table
            .filter(job_tasks::tenant_id.eq(task.tenant.as_str()))
            .filter(job_tasks::id.eq(&task.id))
            .filter(job_tasks::claim.eq(&task.claim))
            .filter(job_tasks::done.eq(false)),
    )
    .set((
        job_tasks::claim.eq(None::<String>),
        job_tasks::run_after.eq(at.unix_micros()),
        job_tasks::last_error.eq(error),
        job_tasks::update_time.eq(now.unix_micros()),
    ))
    .execute(conn)
    .map_err(repository_error)?;
    Ok(released == 1)
}

/// Marks the tasks of `closing` (of `tenant`) done whose claims still hold, in one
/// statement, each with its run's error for operators; returns the ids of those it
/// marked.
fn close_tasks<'a>(
    conn: &mut DbConnection,
    tenant: &str,
    closing: impl Iterator<Item = (&'a TaskEnd, &'a Closing<'a>)>,
) -> Result<HashSet<String>, RepositoryError> {
    let rows: Vec<Vec<Bind>> = closing
        .map(|(TaskEnd { task, time, .. }, closed)| {
            vec![
                task.id.as_str().into(),
                closed.error().into(),
                time.unix_micros().into(),
                task.claim.as_str().into(),
            ]
        })
        .collect();
    if rows.is_empty() {
        return Ok(HashSet::new());
    }
    let closed = update_rows(
        conn,
        ("job_tasks", tenant),
        &[
            "claim = NULL",
            "done = TRUE",
            "last_error = v.column2",
            "update_time = v.column3",
        ],
        "AND job_tasks.claim = v.column4 AND NOT job_tasks.done",
        rows,
    )?;
    Ok(closed.into_iter().collect())
}

/// Stores the `effects` runs recorded, in the transaction of their ends: each
/// entity's change first (refused with [`RepositoryError::Conflict`] when the entity
/// changed since its run read it, before anything else is written), then the new
/// activity logs and alerts, each table's in one insert, leaving out those stored
/// under their ids already. Returns, for each run's effects, the events of what it
/// stored, for its end to write with its own.
///
/// # Errors
/// [`RepositoryError::Conflict`] or [`RepositoryError::NotFound`] for an entity that
/// changed or is gone; what the inserts refuse (an entity a record names erased);
/// database failures.
fn write_effects<'a>(
    conn: &mut DbConnection,
    tenant: &TenantId,
    effects: &[&'a RunEffects],
) -> Result<Vec<Vec<&'a NewEvent>>, RepositoryError> {
    let mut events: Vec<Vec<&NewEvent>> = vec![Vec::new(); effects.len()];
    for (effects, events) in effects.iter().zip(&mut events) {
        for staged in &effects.entities {
            let row = EntityTable::row(tenant, &staged.resource)?;
            let read_revision = staged.resource.revision - 1;
            update_in::<EntityTable>(conn, tenant.as_str(), &staged.resource, &row, read_revision)?;
            events.extend(&staged.events);
        }
    }
    let logs = effects
        .iter()
        .enumerate()
        .flat_map(|(i, e)| e.logs.iter().map(move |s| (i, s)));
    record_new::<ActivityLogTable>(conn, tenant, logs.collect(), &mut events)?;
    let alerts = effects
        .iter()
        .enumerate()
        .flat_map(|(i, e)| e.alerts.iter().map(move |s| (i, s)));
    record_new::<AlertTable>(conn, tenant, alerts.collect(), &mut events)?;
    Ok(events)
}

/// Stores the new records of `T` that runs staged, each tagged with the index of its
/// run's end, unless stored already; adds the events of those it stored to their
/// runs' `events`.
fn record_new<'a, T: StoredTable>(
    conn: &mut DbConnection,
    tenant: &TenantId,
    staged: Vec<(usize, &'a Staged<T::Resource>)>,
    events: &mut [Vec<&'a NewEvent>],
) -> Result<(), RepositoryError> {
    let resources: Vec<&T::Resource> = staged.iter().map(|(_, s)| &s.resource).collect();
    let stored = insert_unless_stored::<T>(conn, tenant, &resources)?;
    for ((end, staged), new) in staged.into_iter().zip(stored) {
        if new {
            events[end].extend(&staged.events);
        }
    }
    Ok(())
}

/// The assignments of [`complete_runs`]'s update of `jobs`: every column but the key,
/// from the row's values in [`JobRow::values`]' order.
const JOB_ASSIGNMENTS: [&str; 13] = [
    "family = v.column2",
    "entity_id = v.column3",
    "uid = v.column4",
    "revision = v.column5",
    "state = v.column6",
    "input = v.column7",
    "result = v.column8",
    "latest_operation = v.column9",
    "create_time = v.column10",
    "update_time = v.column11",
    "made_entity_id = v.column12",
    "delete_time = v.column13",
    "purge_time = v.column14",
];

/// Stores the ends of runs of `tenant`, each its operation's id, its end and when it
/// ended: the jobs, then the operations done with their outcomes (their metadata's
/// `debug` merged over the stored one), each table's rows in one statement. The
/// events are the caller's to write.
fn complete_runs(
    conn: &mut DbConnection,
    tenant_id: &TenantId,
    runs: &[(&str, &RunEnd, Timestamp)],
) -> Result<(), RepositoryError> {
    if runs.is_empty() {
        return Ok(());
    }
    let tenant = tenant_id.as_str();
    let jobs = runs
        .iter()
        .map(|(_, end, _)| JobRow::from_record(tenant_id, &end.job).values())
        .collect();
    update_rows(conn, ("jobs", tenant), &JOB_ASSIGNMENTS, "", jobs)?;
    let stored = stored_metadata(conn, tenant, runs.iter().map(|(id, _, _)| *id))?;
    let operations = runs
        .iter()
        .map(|(id, end, time)| {
            let error = end
                .error
                .as_ref()
                .map(serde_json::to_string)
                .transpose()
                .map_err(|e| internal("operation error to JSON", e))?;
            Ok(vec![
                (*id).into(),
                end.response.as_ref().map(Value::to_string).into(),
                error.into(),
                merged_metadata(stored.get(*id), &end.metadata)?.into(),
                time.unix_micros().into(),
            ])
        })
        .collect::<Result<_, RepositoryError>>()?;
    update_rows(
        conn,
        ("operations", tenant),
        &[
            "done = TRUE",
            "response = v.column2",
            "error = v.column3",
            "metadata = v.column4",
            "update_time = v.column5",
        ],
        "",
        operations,
    )?;
    Ok(())
}

/// Stores the metadata of the operations of runs of `tenant` handed off (each its
/// operation's id, its metadata and when its runner's part ended), merged over the
/// stored metadata, in one statement.
fn hand_off_runs(
    conn: &mut DbConnection,
    tenant: &str,
    runs: &[(&str, &OperationMetadata, Timestamp)],
) -> Result<(), RepositoryError> {
    if runs.is_empty() {
        return Ok(());
    }
    let stored = stored_metadata(conn, tenant, runs.iter().map(|(id, _, _)| *id))?;
    let operations = runs
        .iter()
        .map(|(id, metadata, time)| {
            Ok(vec![
                (*id).into(),
                merged_metadata(stored.get(*id), metadata)?.into(),
                time.unix_micros().into(),
            ])
        })
        .collect::<Result<_, RepositoryError>>()?;
    update_rows(
        conn,
        ("operations", tenant),
        &["metadata = v.column2", "update_time = v.column3"],
        "",
        operations,
    )?;
    Ok(())
}

/// The stored metadata (JSON text) of the operations `ids` of `tenant`, by id.
fn stored_metadata<'a>(
    conn: &mut DbConnection,
    tenant: &str,
    ids: impl Iterator<Item = &'a str>,
) -> Result<HashMap<String, String>, RepositoryError> {
    let ids: Vec<&str> = ids.collect();
    let stored: Vec<(String, String)> = operations::table
        .filter(operations::tenant_id.eq(tenant))
        .filter(operations::id.eq_any(ids))
        .select((operations::id, operations::metadata))
        .load(conn)
        .map_err(repository_error)?;
    Ok(stored.into_iter().collect())
}

/// `metadata` as JSON text, its `debug` fields laid over those of the `stored`
/// metadata (JSON text) of its operation, so what a run's start showed (a link) stays
/// to its end.
fn merged_metadata(
    stored: Option<&String>,
    metadata: &OperationMetadata,
) -> Result<String, RepositoryError> {
    let mut merged = metadata.clone();
    if let Some(stored) = stored {
        let stored: OperationMetadata =
            serde_json::from_str(stored).map_err(|e| internal("stored operation metadata", e))?;
        if let (Value::Object(mut debug), Some(new)) = (stored.debug, metadata.debug.as_object()) {
            debug.extend(new.iter().map(|(k, v)| (k.clone(), v.clone())));
            merged.debug = Value::Object(debug);
        }
    }
    serde_json::to_string(&merged).map_err(|e| internal("operation metadata to JSON", e))
}
