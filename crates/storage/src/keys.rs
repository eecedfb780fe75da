//! The signing-key repository over Diesel: the keys every replica signs access tokens
//! with and publishes.

use async_trait::async_trait;
use diesel::prelude::*;
use rics_domain::identity::model::SigningKey;
use rics_domain::identity::ports::KeyRepository;
use rics_domain::repository::RepositoryError;
use rics_domain::time::Timestamp;

use crate::database::Database;
use crate::error::repository_error;
use crate::locks::{Table, lock_table};
use crate::rows::timestamp;
use crate::schema::signing_keys;

/// One row of `signing_keys`.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = signing_keys)]
struct KeyRow {
    kid: String,
    algorithm: String,
    private_key: String,
    public_jwk: String,
    create_time: i64,
    retire_time: Option<i64>,
}

impl KeyRow {
    fn into_key(self) -> Result<SigningKey, RepositoryError> {
        Ok(SigningKey {
            kid: self.kid,
            algorithm: self.algorithm,
            private_key: self.private_key,
            public_jwk: self.public_jwk,
            create_time: timestamp(self.create_time)?,
            retire_time: self.retire_time.map(timestamp).transpose()?,
        })
    }
}

/// The Diesel signing-key repository.
#[derive(Debug, Clone)]
pub struct DieselKeyRepository {
    db: Database,
}

impl DieselKeyRepository {
    /// A repository over `db`.
    pub fn new(db: Database) -> DieselKeyRepository {
        DieselKeyRepository { db }
    }
}

#[async_trait]
impl KeyRepository for DieselKeyRepository {
    async fn keys(&self, since: Timestamp) -> Result<Vec<SigningKey>, RepositoryError> {
        let since = since.unix_micros();
        self.db
            .run(move |conn| {
                signing_keys::table
                    .filter(
                        signing_keys::retire_time
                            .is_null()
                            .or(signing_keys::retire_time.ge(since)),
                    )
                    .order((signing_keys::create_time.desc(), signing_keys::kid.desc()))
                    .select(KeyRow::as_select())
                    .load(conn)
                    .map_err(repository_error)?
                    .into_iter()
                    .map(KeyRow::into_key)
                    .collect()
            })
            .await
    }

    async fn rotate(
        &self,
        key: &SigningKey,
        expected_current: Option<String>,
    ) -> Result<bool, RepositoryError> {
        let row = KeyRow {
            kid: key.kid.clone(),
            algorithm: key.algorithm.clone(),
            private_key: key.private_key.clone(),
            public_jwk: key.public_jwk.clone(),
            create_time: key.create_time.unix_micros(),
            retire_time: None,
        };
        self.db
            .write(move |conn| {
                // Replicas rotating together take turns; the second sees the first's
                // key as current and stores nothing.
                lock_table(conn, Table::SigningKeys)?;
                let current = signing_keys::table
                    .filter(signing_keys::retire_time.is_null())
                    .order((signing_keys::create_time.desc(), signing_keys::kid.desc()))
                    .select(signing_keys::kid)
                    .first::<String>(conn)
                    .optional()
                    .map_err(repository_error)?;
                if current != expected_current {
                    return Ok(false);
                }
                diesel::update(signing_keys::table.filter(signing_keys::retire_time.is_null()))
                    .set(signing_keys::retire_time.eq(row.create_time))
                    .execute(conn)
                    .map_err(repository_error)?;
                diesel::insert_into(signing_keys::table)
                    .values(&row)
                    .execute(conn)
                    .map_err(repository_error)?;
                Ok(true)
            })
            .await
    }
}
