//! The dismissal memory of screening over Diesel (`screening_dismissals`).

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::upsert::excluded;
use rics_domain::job::dismissals::{Dismissal, DismissalRepository};
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;

use crate::connection::DbConnection;
use crate::database::Database;
use crate::error::repository_error;
use crate::rows::timestamp;
use crate::schema::screening_dismissals as d;

/// One row of `screening_dismissals`.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = d)]
struct DismissalRow {
    tenant_id: String,
    entity_id: String,
    dataset: String,
    list_entry: String,
    record_hash: String,
    job: String,
    reviewer: String,
    dismiss_time: i64,
}

/// The Diesel dismissal memory.
pub struct DieselDismissalRepository {
    db: Database,
}

impl DieselDismissalRepository {
    /// The dismissals in `db`.
    pub fn new(db: Database) -> Self {
        Self { db }
    }
}

#[async_trait]
impl DismissalRepository for DieselDismissalRepository {
    async fn remember(
        &self,
        tenant: &TenantId,
        dismissal: &Dismissal,
    ) -> Result<(), RepositoryError> {
        let row = DismissalRow {
            tenant_id: tenant.as_str().to_owned(),
            entity_id: dismissal.entity_id.clone(),
            dataset: dismissal.dataset.clone(),
            list_entry: dismissal.list_entry.clone(),
            record_hash: dismissal.record_hash.clone(),
            job: dismissal.job.clone(),
            reviewer: dismissal.reviewer.clone(),
            dismiss_time: dismissal.dismiss_time.unix_micros(),
        };
        self.db
            .write(move |conn| {
                let upsert = diesel::insert_into(d::table)
                    .values(&row)
                    .on_conflict((d::tenant_id, d::entity_id, d::dataset, d::list_entry))
                    .do_update()
                    .set((
                        d::record_hash.eq(excluded(d::record_hash)),
                        d::job.eq(excluded(d::job)),
                        d::reviewer.eq(excluded(d::reviewer)),
                        d::dismiss_time.eq(excluded(d::dismiss_time)),
                    ));
                match conn {
                    DbConnection::Postgresql(pg) => upsert.execute(pg),
                    DbConnection::Sqlite(sqlite) => upsert.execute(sqlite),
                }
                .map(|_| ())
                .map_err(repository_error)
            })
            .await
    }

    async fn forget(
        &self,
        tenant: &TenantId,
        entity_id: &str,
        dataset: &str,
        list_entry: &str,
    ) -> Result<(), RepositoryError> {
        let (tenant, entity_id, dataset, list_entry) = (
            tenant.as_str().to_owned(),
            entity_id.to_owned(),
            dataset.to_owned(),
            list_entry.to_owned(),
        );
        self.db
            .write(move |conn| {
                diesel::delete(
                    d::table
                        .filter(d::tenant_id.eq(tenant))
                        .filter(d::entity_id.eq(entity_id))
                        .filter(d::dataset.eq(dataset))
                        .filter(d::list_entry.eq(list_entry)),
                )
                .execute(conn)
                .map(|_| ())
                .map_err(repository_error)
            })
            .await
    }

    async fn of_entity(
        &self,
        tenant: &TenantId,
        entity_id: &str,
    ) -> Result<Vec<Dismissal>, RepositoryError> {
        let (tenant, entity_id) = (tenant.as_str().to_owned(), entity_id.to_owned());
        // One statement: no transaction around it.
        let rows: Vec<DismissalRow> = self
            .db
            .run(move |conn| {
                d::table
                    .filter(d::tenant_id.eq(tenant))
                    .filter(d::entity_id.eq(entity_id))
                    .select(DismissalRow::as_select())
                    .load(conn)
                    .map_err(repository_error)
            })
            .await?;
        rows.into_iter()
            .map(|row| {
                Ok(Dismissal {
                    dismiss_time: timestamp(row.dismiss_time)?,
                    entity_id: row.entity_id,
                    dataset: row.dataset,
                    list_entry: row.list_entry,
                    record_hash: row.record_hash,
                    job: row.job,
                    reviewer: row.reviewer,
                })
            })
            .collect()
    }
}

/// Removes the dismissals of the erased entity `entity_id`; returns how many. Part of
/// an entity's erasure.
pub(crate) fn erase_entity_dismissals(
    conn: &mut DbConnection,
    tenant: &str,
    entity_id: &str,
) -> Result<i64, RepositoryError> {
    diesel::delete(
        d::table
            .filter(d::tenant_id.eq(tenant))
            .filter(d::entity_id.eq(entity_id)),
    )
    .execute(conn)
    .map(|n| i64::try_from(n).unwrap_or(i64::MAX))
    .map_err(repository_error)
}
