//! Each tenant's webhook signing secret over Diesel: made once on first use (the first
//! to store it wins, concurrent makers read it back), rotated by compare-and-set on the
//! current secret, with its event in the same transaction.

use async_trait::async_trait;
use diesel::prelude::*;
use rics_domain::event::NewEvent;
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_domain::time::Timestamp;
use rics_domain::webhook::model::SealedSecrets;
use rics_domain::webhook::tenant_secret::TenantSecretRepository;

use crate::connection::DbConnection;
use crate::database::Database;
use crate::error::repository_error;
use crate::events::insert_events;
use crate::schema::tenant_webhook_secrets;
use crate::webhook_deliveries::{SecretColumns, sealed};

/// The Diesel store of tenants' signing secrets.
#[derive(Debug, Clone)]
pub struct DieselTenantSecretRepository {
    db: Database,
}

impl DieselTenantSecretRepository {
    /// A repository over `db`.
    pub fn new(db: Database) -> DieselTenantSecretRepository {
        DieselTenantSecretRepository { db }
    }
}

/// The tenant's stored secrets.
fn load(conn: &mut DbConnection, tenant: &str) -> Result<Option<SealedSecrets>, RepositoryError> {
    tenant_webhook_secrets::table
        .filter(tenant_webhook_secrets::tenant_id.eq(tenant))
        .select((
            tenant_webhook_secrets::secret,
            tenant_webhook_secrets::previous_secret,
            tenant_webhook_secrets::previous_secret_expire_time,
        ))
        .first::<SecretColumns>(conn)
        .optional()
        .map_err(repository_error)?
        .map(sealed)
        .transpose()
}

/// Stores `secrets` as the tenant's first unless it has some; whether they were stored.
fn insert_first(
    conn: &mut DbConnection,
    tenant: &str,
    secrets: &SealedSecrets,
    now: Timestamp,
) -> Result<bool, RepositoryError> {
    let time = now.unix_micros();
    let values = (
        tenant_webhook_secrets::tenant_id.eq(tenant),
        tenant_webhook_secrets::secret.eq(&secrets.current),
        tenant_webhook_secrets::previous_secret.eq(secrets.previous.as_deref()),
        tenant_webhook_secrets::previous_secret_expire_time
            .eq(secrets.previous_expire_time.map(Timestamp::unix_micros)),
        tenant_webhook_secrets::create_time.eq(time),
        tenant_webhook_secrets::update_time.eq(time),
    );
    let inserted = match conn {
        DbConnection::Postgresql(pg) => diesel::insert_into(tenant_webhook_secrets::table)
            .values(values)
            .on_conflict_do_nothing()
            .execute(pg),
        DbConnection::Sqlite(lite) => diesel::insert_or_ignore_into(tenant_webhook_secrets::table)
            .values(values)
            .execute(lite),
    }
    .map_err(repository_error)?;
    Ok(inserted == 1)
}

#[async_trait]
impl TenantSecretRepository for DieselTenantSecretRepository {
    async fn get(&self, tenant: &TenantId) -> Result<Option<SealedSecrets>, RepositoryError> {
        let tenant = tenant.as_str().to_owned();
        self.db.read(move |conn| load(conn, &tenant)).await
    }

    async fn create(
        &self,
        tenant: &TenantId,
        secrets: &SealedSecrets,
        now: Timestamp,
    ) -> Result<SealedSecrets, RepositoryError> {
        let (tenant, secrets) = (tenant.as_str().to_owned(), secrets.clone());
        self.db
            .write(move |conn| {
                insert_first(conn, &tenant, &secrets, now)?;
                load(conn, &tenant)?.ok_or_else(|| {
                    RepositoryError::Internal("the secret stored was not read back".into())
                })
            })
            .await
    }

    async fn rotate(
        &self,
        tenant: &TenantId,
        replaced: Option<String>,
        secrets: &SealedSecrets,
        event: &NewEvent,
        now: Timestamp,
    ) -> Result<(), RepositoryError> {
        let (tenant, secrets, event) = (tenant.as_str().to_owned(), secrets.clone(), event.clone());
        self.db
            .write(move |conn| {
                let stored = match &replaced {
                    None => insert_first(conn, &tenant, &secrets, now)?,
                    Some(replaced) => {
                        let updated = diesel::update(
                            tenant_webhook_secrets::table
                                .filter(tenant_webhook_secrets::tenant_id.eq(&tenant))
                                .filter(tenant_webhook_secrets::secret.eq(replaced)),
                        )
                        .set((
                            tenant_webhook_secrets::secret.eq(&secrets.current),
                            tenant_webhook_secrets::previous_secret.eq(secrets.previous.as_deref()),
                            tenant_webhook_secrets::previous_secret_expire_time
                                .eq(secrets.previous_expire_time.map(Timestamp::unix_micros)),
                            tenant_webhook_secrets::update_time.eq(now.unix_micros()),
                        ))
                        .execute(conn)
                        .map_err(repository_error)?;
                        updated == 1
                    }
                };
                if !stored {
                    return Err(RepositoryError::Conflict);
                }
                insert_events(conn, &tenant, std::slice::from_ref(&event)).map_err(repository_error)
            })
            .await
    }
}
