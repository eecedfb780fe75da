//! Each tenant's secrets of one purpose over Diesel (the webhook signing secrets in
//! `tenant_webhook_secrets`, the Truuth callback secrets in `truuth_callback_secrets`,
//! tables of the same shape, queried by the same code): made once on first use (the
//! first to store it wins, concurrent makers read it back), rotated by compare-and-set
//! on the current secret, with its event in the same transaction.

use async_trait::async_trait;
use rics_domain::event::NewEvent;
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_domain::time::Timestamp;
use rics_domain::webhook::model::SealedSecrets;
use rics_domain::webhook::tenant_secret::{SecretPurpose, TenantSecretRepository};

use crate::connection::DbConnection;
use crate::database::Database;
use crate::error::repository_error;
use crate::events::{insert_events, outbox};

/// The Diesel store of tenants' secrets of one purpose.
#[derive(Debug, Clone)]
pub struct DieselTenantSecretRepository {
    db: Database,
    purpose: SecretPurpose,
}

impl DieselTenantSecretRepository {
    /// A repository of the webhook signing secrets over `db`.
    pub fn new(db: Database) -> DieselTenantSecretRepository {
        DieselTenantSecretRepository::for_purpose(db, SecretPurpose::WebhookSigning)
    }

    /// A repository of the secrets of `purpose` over `db`.
    pub fn for_purpose(db: Database, purpose: SecretPurpose) -> DieselTenantSecretRepository {
        DieselTenantSecretRepository { db, purpose }
    }
}

/// The queries of one table of secrets: `load` (the tenant's stored secrets),
/// `insert_first` (stores secrets as the tenant's first unless it has some; whether
/// they were stored) and `replace` (replaces the current secret if it is still
/// `replaced`; whether it was).
macro_rules! secret_queries {
    ($module:ident, $table:ident) => {
        mod $module {
            use diesel::prelude::*;
            use rics_domain::repository::RepositoryError;
            use rics_domain::time::Timestamp;
            use rics_domain::webhook::model::SealedSecrets;

            use crate::connection::DbConnection;
            use crate::error::repository_error;
            use crate::schema::$table as t;
            use crate::webhook_deliveries::{SecretColumns, sealed};

            pub(super) fn load(
                conn: &mut DbConnection,
                tenant: &str,
            ) -> Result<Option<SealedSecrets>, RepositoryError> {
                t::table
                    .filter(t::tenant_id.eq(tenant))
                    .select((
                        t::secret,
                        t::previous_secret,
                        t::previous_secret_expire_time,
                    ))
                    .first::<SecretColumns>(conn)
                    .optional()
                    .map_err(repository_error)?
                    .map(sealed)
                    .transpose()
            }

            pub(super) fn insert_first(
                conn: &mut DbConnection,
                tenant: &str,
                secrets: &SealedSecrets,
                now: Timestamp,
            ) -> Result<bool, RepositoryError> {
                let time = now.unix_micros();
                let values = (
                    t::tenant_id.eq(tenant),
                    t::secret.eq(&secrets.current),
                    t::previous_secret.eq(secrets.previous.as_deref()),
                    t::previous_secret_expire_time
                        .eq(secrets.previous_expire_time.map(Timestamp::unix_micros)),
                    t::create_time.eq(time),
                    t::update_time.eq(time),
                );
                let inserted = match conn {
                    DbConnection::Postgresql(pg) => diesel::insert_into(t::table)
                        .values(values)
                        .on_conflict_do_nothing()
                        .execute(pg),
                    DbConnection::Sqlite(lite) => diesel::insert_or_ignore_into(t::table)
                        .values(values)
                        .execute(lite),
                }
                .map_err(repository_error)?;
                Ok(inserted == 1)
            }

            pub(super) fn replace(
                conn: &mut DbConnection,
                tenant: &str,
                replaced: &str,
                secrets: &SealedSecrets,
                now: Timestamp,
            ) -> Result<bool, RepositoryError> {
                let updated = diesel::update(
                    t::table
                        .filter(t::tenant_id.eq(tenant))
                        .filter(t::secret.eq(replaced)),
                )
                .set((
                    t::secret.eq(&secrets.current),
                    t::previous_secret.eq(secrets.previous.as_deref()),
                    t::previous_secret_expire_time
                        .eq(secrets.previous_expire_time.map(Timestamp::unix_micros)),
                    t::update_time.eq(now.unix_micros()),
                ))
                .execute(conn)
                .map_err(repository_error)?;
                Ok(updated == 1)
            }
        }
    };
}

secret_queries!(webhook_signing, tenant_webhook_secrets);
secret_queries!(truuth_callback, truuth_callback_secrets);

/// The tenant's stored secrets of `purpose`.
fn load(
    purpose: SecretPurpose,
    conn: &mut DbConnection,
    tenant: &str,
) -> Result<Option<SealedSecrets>, RepositoryError> {
    match purpose {
        SecretPurpose::WebhookSigning => webhook_signing::load(conn, tenant),
        SecretPurpose::TruuthCallback => truuth_callback::load(conn, tenant),
    }
}

/// Stores `secrets` as the tenant's first of `purpose` unless it has some; whether
/// they were stored.
fn insert_first(
    purpose: SecretPurpose,
    conn: &mut DbConnection,
    tenant: &str,
    secrets: &SealedSecrets,
    now: Timestamp,
) -> Result<bool, RepositoryError> {
    match purpose {
        SecretPurpose::WebhookSigning => webhook_signing::insert_first(conn, tenant, secrets, now),
        SecretPurpose::TruuthCallback => truuth_callback::insert_first(conn, tenant, secrets, now),
    }
}

/// Replaces the tenant's current secret of `purpose` if it is still `replaced`;
/// whether it was.
fn replace(
    purpose: SecretPurpose,
    conn: &mut DbConnection,
    tenant: &str,
    replaced: &str,
    secrets: &SealedSecrets,
    now: Timestamp,
) -> Result<bool, RepositoryError> {
    match purpose {
        SecretPurpose::WebhookSigning => {
            webhook_signing::replace(conn, tenant, replaced, secrets, now)
        }
        SecretPurpose::TruuthCallback => {
            truuth_callback::replace(conn, tenant, replaced, secrets, now)
        }
    }
}

#[async_trait]
impl TenantSecretRepository for DieselTenantSecretRepository {
    async fn get(&self, tenant: &TenantId) -> Result<Option<SealedSecrets>, RepositoryError> {
        let tenant = tenant.as_str().to_owned();
        let purpose = self.purpose;
        self.db.read(move |conn| load(purpose, conn, &tenant)).await
    }

    async fn create(
        &self,
        tenant: &TenantId,
        secrets: &SealedSecrets,
        now: Timestamp,
    ) -> Result<SealedSecrets, RepositoryError> {
        let (tenant, secrets, purpose) =
            (tenant.as_str().to_owned(), secrets.clone(), self.purpose);
        self.db
            .write(move |conn| {
                insert_first(purpose, conn, &tenant, &secrets, now)?;
                load(purpose, conn, &tenant)?.ok_or_else(|| {
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
        let (tenant, secrets, events) =
            (tenant.as_str().to_owned(), secrets.clone(), outbox([event]));
        let purpose = self.purpose;
        self.db
            .write(move |conn| {
                let stored = match &replaced {
                    None => insert_first(purpose, conn, &tenant, &secrets, now)?,
                    Some(replaced) => replace(purpose, conn, &tenant, replaced, &secrets, now)?,
                };
                if !stored {
                    return Err(RepositoryError::Conflict);
                }
                insert_events(conn, &tenant, events).map_err(repository_error)
            })
            .await
    }
}
