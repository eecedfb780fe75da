//! The screening dataset versions of ongoing monitoring over Diesel
//! (`screening_list_versions`, `screening_list_changes`), and the re-screening tasks a
//! change queues in `job_tasks` (family [`LIST_CHANGE_QUEUE`]).

use std::collections::BTreeMap;

use async_trait::async_trait;
use diesel::prelude::*;
use rics_domain::job::model::ClaimedTask;
use rics_domain::monitoring::{
    DatasetVersion, LIST_CHANGE_QUEUE, ListChange, ListVersionRepository,
};
use rics_domain::repository::RepositoryError;
use rics_domain::time::Timestamp;

use crate::database::Database;
use crate::error::repository_error;
use crate::schema::{
    job_tasks, screening_list_changes as c, screening_list_versions as v, tenants,
};

/// One row of `screening_list_versions`.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = v)]
struct VersionRow {
    dataset: String,
    content_hash: String,
    record_hashes: String,
    update_time: i64,
}

impl VersionRow {
    fn new(version: &DatasetVersion, now: Timestamp) -> Result<VersionRow, RepositoryError> {
        Ok(VersionRow {
            dataset: version.dataset.clone(),
            content_hash: version.content_hash.clone(),
            record_hashes: serde_json::to_string(&version.record_hashes)
                .map_err(|e| RepositoryError::Internal(e.to_string()))?,
            update_time: now.unix_micros(),
        })
    }

    fn version(self) -> Result<DatasetVersion, RepositoryError> {
        let record_hashes: BTreeMap<String, String> = serde_json::from_str(&self.record_hashes)
            .map_err(|e| {
                RepositoryError::Internal(format!(
                    "the stored record hashes of '{}' do not read: {e}",
                    self.dataset
                ))
            })?;
        Ok(DatasetVersion {
            dataset: self.dataset,
            content_hash: self.content_hash,
            record_hashes,
        })
    }
}

/// The Diesel store of dataset versions.
pub struct DieselListVersionRepository {
    db: Database,
}

impl DieselListVersionRepository {
    /// The versions in `db`.
    pub fn new(db: Database) -> Self {
        Self { db }
    }
}

#[async_trait]
impl ListVersionRepository for DieselListVersionRepository {
    async fn current(&self, dataset: &str) -> Result<Option<DatasetVersion>, RepositoryError> {
        let dataset = dataset.to_owned();
        let row: Option<VersionRow> = self
            .db
            .read(move |conn| {
                v::table
                    .filter(v::dataset.eq(dataset))
                    .select(VersionRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(repository_error)
            })
            .await?;
        row.map(VersionRow::version).transpose()
    }

    async fn first(
        &self,
        version: &DatasetVersion,
        now: Timestamp,
    ) -> Result<bool, RepositoryError> {
        let row = VersionRow::new(version, now)?;
        self.db
            .write(move |conn| {
                let stored = v::table
                    .filter(v::dataset.eq(&row.dataset))
                    .count()
                    .get_result::<i64>(conn)
                    .map_err(repository_error)?;
                if stored > 0 {
                    return Ok(false);
                }
                diesel::insert_into(v::table)
                    .values(&row)
                    .execute(conn)
                    .map_err(repository_error)?;
                Ok(true)
            })
            .await
    }

    async fn record_change(
        &self,
        change: &ListChange,
        version: &DatasetVersion,
    ) -> Result<bool, RepositoryError> {
        let now = change.change_time.unix_micros();
        let row = VersionRow::new(version, change.change_time)?;
        let (old, task_id) = (change.old_version.clone(), change.task_id());
        let input = change.task_input().to_string();
        let counts = (
            count(change.delta.added.len()),
            count(change.delta.changed.len()),
            count(change.delta.removed.len()),
        );
        self.db
            .write(move |conn| {
                let swapped = diesel::update(
                    v::table
                        .filter(v::dataset.eq(&row.dataset))
                        .filter(v::content_hash.eq(&old)),
                )
                .set((
                    v::content_hash.eq(&row.content_hash),
                    v::record_hashes.eq(&row.record_hashes),
                    v::update_time.eq(row.update_time),
                ))
                .execute(conn)
                .map_err(repository_error)?;
                if swapped == 0 {
                    return Ok(false);
                }
                // A version seen again (changed back and forth) re-records its change.
                diesel::delete(
                    c::table
                        .filter(c::dataset.eq(&row.dataset))
                        .filter(c::old_version.eq(&old))
                        .filter(c::new_version.eq(&row.content_hash)),
                )
                .execute(conn)
                .map_err(repository_error)?;
                diesel::insert_into(c::table)
                    .values((
                        c::dataset.eq(&row.dataset),
                        c::old_version.eq(&old),
                        c::new_version.eq(&row.content_hash),
                        c::added.eq(counts.0),
                        c::changed.eq(counts.1),
                        c::removed.eq(counts.2),
                        c::change_time.eq(now),
                    ))
                    .execute(conn)
                    .map_err(repository_error)?;
                let tenant_ids: Vec<String> = tenants::table
                    .select(tenants::id)
                    .load(conn)
                    .map_err(repository_error)?;
                for tenant in tenant_ids {
                    // A task of the same change done before is queued again.
                    diesel::delete(
                        job_tasks::table
                            .filter(job_tasks::tenant_id.eq(&tenant))
                            .filter(job_tasks::id.eq(&task_id)),
                    )
                    .execute(conn)
                    .map_err(repository_error)?;
                    diesel::insert_into(job_tasks::table)
                        .values((
                            job_tasks::tenant_id.eq(&tenant),
                            job_tasks::id.eq(&task_id),
                            job_tasks::job_id.eq(&task_id),
                            job_tasks::family.eq(LIST_CHANGE_QUEUE),
                            job_tasks::operation_name.eq(format!("{LIST_CHANGE_QUEUE}/{task_id}")),
                            job_tasks::attempts.eq(0_i64),
                            job_tasks::run_after.eq(now),
                            job_tasks::claim.eq(None::<String>),
                            job_tasks::done.eq(false),
                            job_tasks::last_error.eq(None::<String>),
                            job_tasks::create_time.eq(now),
                            job_tasks::update_time.eq(now),
                            job_tasks::run_input.eq(Some(&input)),
                        ))
                        .execute(conn)
                        .map_err(repository_error)?;
                }
                Ok(true)
            })
            .await
    }

    async fn end_task<'a>(
        &self,
        task: &ClaimedTask,
        error: Option<&'a str>,
        now: Timestamp,
    ) -> Result<bool, RepositoryError> {
        let (tenant, id, claim) = (
            task.tenant.as_str().to_owned(),
            task.id.clone(),
            task.claim.clone(),
        );
        let error = error.map(str::to_owned);
        self.db
            .write(move |conn| {
                let ended = diesel::update(
                    job_tasks::table
                        .filter(job_tasks::tenant_id.eq(tenant))
                        .filter(job_tasks::id.eq(id))
                        .filter(job_tasks::claim.eq(claim))
                        .filter(job_tasks::done.eq(false)),
                )
                .set((
                    job_tasks::claim.eq(None::<String>),
                    job_tasks::done.eq(true),
                    job_tasks::last_error.eq(error),
                    job_tasks::update_time.eq(now.unix_micros()),
                ))
                .execute(conn)
                .map_err(repository_error)?;
                Ok(ended == 1)
            })
            .await
    }
}

/// A count as stored.
fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
