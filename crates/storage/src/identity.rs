//! The identity repository over Diesel: OAuth 2.0 clients and users, and the grants
//! of the embedded authorization server (authorization codes, refresh tokens).
//!
//! Clients, users and grants are found by client id, username or the hash of a
//! secret, before the caller's tenant is known; those keys are globally unique (see
//! the identity migration). Scopes are stored as space-separated text.

use std::collections::BTreeSet;

use async_trait::async_trait;
use diesel::prelude::*;
use rics_domain::identity::model::{AuthorizationCode, Client, RefreshToken, Rotation, User};
use rics_domain::identity::ports::IdentityRepository;
use rics_domain::principal::{Scope, TenantId};
use rics_domain::repository::RepositoryError;
use rics_domain::time::Timestamp;

use crate::connection::DbConnection;
use crate::database::Database;
use crate::error::repository_error;
use crate::locks::lock_family;
use crate::rows::{internal, timestamp};
use crate::schema::{authorization_codes, oauth_clients, refresh_tokens, users};

/// Scopes as stored: their names, space separated, in order.
pub(crate) fn scopes_text(scopes: &BTreeSet<Scope>) -> String {
    scopes
        .iter()
        .map(|scope| scope.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Stored scopes. A name this version does not know grants nothing (a newer replica
/// may have written it).
pub(crate) fn parse_scopes(text: &str) -> BTreeSet<Scope> {
    text.split_whitespace().filter_map(Scope::parse).collect()
}

/// One row of `oauth_clients`.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = oauth_clients)]
struct ClientRow {
    client_id: String,
    tenant_id: String,
    display_name: String,
    secret_hash: Option<String>,
    scopes: String,
    redirect_uris: String,
    create_time: i64,
}

impl ClientRow {
    fn from_client(client: &Client) -> Result<ClientRow, RepositoryError> {
        Ok(ClientRow {
            client_id: client.client_id.clone(),
            tenant_id: client.tenant.as_str().to_owned(),
            display_name: client.display_name.clone(),
            secret_hash: client.secret_hash.clone(),
            scopes: scopes_text(&client.scopes),
            redirect_uris: serde_json::to_string(&client.redirect_uris)
                .map_err(|e| internal("redirect URIs to JSON", e))?,
            create_time: client.create_time.unix_micros(),
        })
    }

    fn into_client(self) -> Result<Client, RepositoryError> {
        Ok(Client {
            redirect_uris: serde_json::from_str(&self.redirect_uris)
                .map_err(|e| internal("stored redirect URIs", e))?,
            scopes: parse_scopes(&self.scopes),
            client_id: self.client_id,
            tenant: TenantId::new(self.tenant_id),
            display_name: self.display_name,
            secret_hash: self.secret_hash,
            create_time: timestamp(self.create_time)?,
        })
    }
}

/// One row of `users`.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = users)]
struct UserRow {
    tenant_id: String,
    user_id: String,
    username: String,
    display_name: String,
    password_hash: String,
    scopes: String,
    create_time: i64,
}

impl UserRow {
    fn from_user(user: &User) -> UserRow {
        UserRow {
            tenant_id: user.tenant.as_str().to_owned(),
            user_id: user.user_id.clone(),
            username: user.username.clone(),
            display_name: user.display_name.clone(),
            password_hash: user.password_hash.clone(),
            scopes: scopes_text(&user.scopes),
            create_time: user.create_time.unix_micros(),
        }
    }

    fn into_user(self) -> Result<User, RepositoryError> {
        Ok(User {
            scopes: parse_scopes(&self.scopes),
            user_id: self.user_id,
            tenant: TenantId::new(self.tenant_id),
            username: self.username,
            display_name: self.display_name,
            password_hash: self.password_hash,
            create_time: timestamp(self.create_time)?,
        })
    }
}

/// One row of `authorization_codes`.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = authorization_codes)]
struct CodeRow {
    code_hash: String,
    client_id: String,
    tenant_id: String,
    user_id: String,
    display_name: String,
    redirect_uri: String,
    code_challenge: String,
    scopes: String,
    expire_time: i64,
}

impl CodeRow {
    fn from_code(code: &AuthorizationCode) -> CodeRow {
        CodeRow {
            code_hash: code.code_hash.clone(),
            client_id: code.client_id.clone(),
            tenant_id: code.tenant.as_str().to_owned(),
            user_id: code.user_id.clone(),
            display_name: code.display_name.clone(),
            redirect_uri: code.redirect_uri.clone(),
            code_challenge: code.code_challenge.clone(),
            scopes: scopes_text(&code.scopes),
            expire_time: code.expire_time.unix_micros(),
        }
    }

    fn into_code(self) -> Result<AuthorizationCode, RepositoryError> {
        Ok(AuthorizationCode {
            scopes: parse_scopes(&self.scopes),
            code_hash: self.code_hash,
            client_id: self.client_id,
            tenant: TenantId::new(self.tenant_id),
            user_id: self.user_id,
            display_name: self.display_name,
            redirect_uri: self.redirect_uri,
            code_challenge: self.code_challenge,
            expire_time: timestamp(self.expire_time)?,
        })
    }
}

/// One row of `refresh_tokens`.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = refresh_tokens)]
struct TokenRow {
    token_hash: String,
    family_id: String,
    client_id: String,
    tenant_id: String,
    subject: String,
    display_name: String,
    scopes: String,
    spent: bool,
    revoked: bool,
    expire_time: i64,
}

impl TokenRow {
    /// A new token's row: neither spent nor revoked.
    fn from_token(token: &RefreshToken) -> TokenRow {
        TokenRow {
            token_hash: token.token_hash.clone(),
            family_id: token.family_id.clone(),
            client_id: token.client_id.clone(),
            tenant_id: token.tenant.as_str().to_owned(),
            subject: token.subject.clone(),
            display_name: token.display_name.clone(),
            scopes: scopes_text(&token.scopes),
            spent: false,
            revoked: false,
            expire_time: token.expire_time.unix_micros(),
        }
    }

    fn into_token(self) -> Result<RefreshToken, RepositoryError> {
        Ok(RefreshToken {
            scopes: parse_scopes(&self.scopes),
            token_hash: self.token_hash,
            family_id: self.family_id,
            client_id: self.client_id,
            tenant: TenantId::new(self.tenant_id),
            subject: self.subject,
            display_name: self.display_name,
            expire_time: timestamp(self.expire_time)?,
        })
    }
}

/// Inserts `client` in the current transaction.
///
/// # Errors
/// [`RepositoryError::AlreadyExists`] for a taken client id,
/// [`RepositoryError::NotFound`] when its tenant does not exist.
pub(crate) fn insert_client(
    conn: &mut DbConnection,
    client: &Client,
) -> Result<(), RepositoryError> {
    diesel::insert_into(oauth_clients::table)
        .values(&ClientRow::from_client(client)?)
        .execute(conn)
        .map(|_| ())
        .map_err(repository_error)
}

/// Inserts `user` in the current transaction.
///
/// # Errors
/// [`RepositoryError::AlreadyExists`] for a taken username or user id,
/// [`RepositoryError::NotFound`] when its tenant does not exist.
pub(crate) fn insert_user(conn: &mut DbConnection, user: &User) -> Result<(), RepositoryError> {
    diesel::insert_into(users::table)
        .values(&UserRow::from_user(user))
        .execute(conn)
        .map(|_| ())
        .map_err(repository_error)
}

fn load_token(
    conn: &mut DbConnection,
    token_hash: &str,
) -> Result<Option<TokenRow>, RepositoryError> {
    refresh_tokens::table
        .filter(refresh_tokens::token_hash.eq(token_hash))
        .select(TokenRow::as_select())
        .first(conn)
        .optional()
        .map_err(repository_error)
}

/// Rotates the refresh token `token_hash` in the current write transaction (see
/// [`IdentityRepository::rotate_refresh_token`]).
fn rotate(
    conn: &mut DbConnection,
    token_hash: &str,
    client_id: &str,
    now: Timestamp,
    successor: &RefreshToken,
) -> Result<Rotation, RepositoryError> {
    let Some(found) = load_token(conn, token_hash)? else {
        return Ok(Rotation::Unknown);
    };
    // Every change to a family happens under its lock, then is decided on what is
    // committed by then (on SQLite the write transaction already excludes others).
    lock_family(conn, &found.family_id)?;
    let Some(row) = load_token(conn, token_hash)? else {
        return Ok(Rotation::Unknown);
    };
    if row.client_id != client_id || row.revoked || row.expire_time < now.unix_micros() {
        return Ok(Rotation::Unknown);
    }
    if row.spent {
        diesel::update(
            refresh_tokens::table
                .filter(refresh_tokens::tenant_id.eq(&row.tenant_id))
                .filter(refresh_tokens::family_id.eq(&row.family_id)),
        )
        .set(refresh_tokens::revoked.eq(true))
        .execute(conn)
        .map_err(repository_error)?;
        return Ok(Rotation::Reused);
    }
    if successor.family_id != row.family_id || successor.tenant.as_str() != row.tenant_id {
        return Err(internal(
            "a refresh token's successor must be of its family and tenant",
            &successor.family_id,
        ));
    }
    diesel::update(refresh_tokens::table.filter(refresh_tokens::token_hash.eq(token_hash)))
        .set(refresh_tokens::spent.eq(true))
        .execute(conn)
        .map_err(repository_error)?;
    diesel::insert_into(refresh_tokens::table)
        .values(&TokenRow::from_token(successor))
        .execute(conn)
        .map_err(repository_error)?;
    Ok(Rotation::Rotated)
}

/// The Diesel identity repository.
#[derive(Debug, Clone)]
pub struct DieselIdentityRepository {
    db: Database,
}

impl DieselIdentityRepository {
    /// A repository over `db`.
    pub fn new(db: Database) -> DieselIdentityRepository {
        DieselIdentityRepository { db }
    }
}

#[async_trait]
impl IdentityRepository for DieselIdentityRepository {
    async fn find_client(&self, client_id: &str) -> Result<Option<Client>, RepositoryError> {
        let client_id = client_id.to_owned();
        self.db
            .run(move |conn| {
                oauth_clients::table
                    .filter(oauth_clients::client_id.eq(&client_id))
                    .select(ClientRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(repository_error)?
                    .map(ClientRow::into_client)
                    .transpose()
            })
            .await
    }

    async fn create_client(&self, client: &Client) -> Result<(), RepositoryError> {
        let client = client.clone();
        self.db
            .write(move |conn| insert_client(conn, &client))
            .await
    }

    async fn find_user(&self, username: &str) -> Result<Option<User>, RepositoryError> {
        let username = username.to_owned();
        self.db
            .run(move |conn| {
                users::table
                    .filter(users::username.eq(&username))
                    .select(UserRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(repository_error)?
                    .map(UserRow::into_user)
                    .transpose()
            })
            .await
    }

    async fn create_user(&self, user: &User) -> Result<(), RepositoryError> {
        let user = user.clone();
        self.db.write(move |conn| insert_user(conn, &user)).await
    }

    async fn save_code(&self, code: &AuthorizationCode) -> Result<(), RepositoryError> {
        let row = CodeRow::from_code(code);
        self.db
            .write(move |conn| {
                diesel::insert_into(authorization_codes::table)
                    .values(&row)
                    .execute(conn)
                    .map(|_| ())
                    .map_err(repository_error)
            })
            .await
    }

    async fn find_code(
        &self,
        code_hash: &str,
        now: Timestamp,
    ) -> Result<Option<AuthorizationCode>, RepositoryError> {
        let code_hash = code_hash.to_owned();
        self.db
            .run(move |conn| {
                authorization_codes::table
                    .filter(authorization_codes::code_hash.eq(&code_hash))
                    .filter(authorization_codes::expire_time.ge(now.unix_micros()))
                    .select(CodeRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(repository_error)?
                    .map(CodeRow::into_code)
                    .transpose()
            })
            .await
    }

    async fn exchange_code(
        &self,
        code_hash: &str,
        now: Timestamp,
        first: &RefreshToken,
    ) -> Result<bool, RepositoryError> {
        let code_hash = code_hash.to_owned();
        let first = TokenRow::from_token(first);
        self.db
            .write(move |conn| {
                // The delete decides who exchanges the code: on PostgreSQL a
                // concurrent exchange waits for this delete and then removes nothing.
                let removed = diesel::delete(
                    authorization_codes::table
                        .filter(authorization_codes::code_hash.eq(&code_hash))
                        .filter(authorization_codes::expire_time.ge(now.unix_micros())),
                )
                .execute(conn)
                .map_err(repository_error)?;
                if removed == 0 {
                    return Ok(false);
                }
                diesel::insert_into(refresh_tokens::table)
                    .values(&first)
                    .execute(conn)
                    .map_err(repository_error)?;
                Ok(true)
            })
            .await
    }

    async fn find_refresh_token(
        &self,
        token_hash: &str,
        client_id: &str,
        now: Timestamp,
    ) -> Result<Option<RefreshToken>, RepositoryError> {
        let (token_hash, client_id) = (token_hash.to_owned(), client_id.to_owned());
        self.db
            .run(move |conn| {
                refresh_tokens::table
                    .filter(refresh_tokens::token_hash.eq(&token_hash))
                    .filter(refresh_tokens::client_id.eq(&client_id))
                    .filter(refresh_tokens::revoked.eq(false))
                    .filter(refresh_tokens::expire_time.ge(now.unix_micros()))
                    .select(TokenRow::as_select())
                    .first(conn)
                    .optional()
                    .map_err(repository_error)?
                    .map(TokenRow::into_token)
                    .transpose()
            })
            .await
    }

    async fn rotate_refresh_token(
        &self,
        token_hash: &str,
        client_id: &str,
        now: Timestamp,
        successor: &RefreshToken,
    ) -> Result<Rotation, RepositoryError> {
        let (token_hash, client_id) = (token_hash.to_owned(), client_id.to_owned());
        let successor = successor.clone();
        self.db
            .write(move |conn| rotate(conn, &token_hash, &client_id, now, &successor))
            .await
    }

    async fn expire_grants(&self, now: Timestamp) -> Result<u64, RepositoryError> {
        let now = now.unix_micros();
        self.db
            .write(move |conn| {
                let codes = diesel::delete(
                    authorization_codes::table.filter(authorization_codes::expire_time.lt(now)),
                )
                .execute(conn)
                .map_err(repository_error)?;
                let tokens = diesel::delete(
                    refresh_tokens::table.filter(refresh_tokens::expire_time.lt(now)),
                )
                .execute(conn)
                .map_err(repository_error)?;
                Ok((codes + tokens) as u64)
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_are_space_separated_and_unknown_names_grant_nothing() {
        let all: BTreeSet<Scope> = Scope::ALL.into_iter().collect();
        assert_eq!(scopes_text(&all), "rics.read rics.write rics.admin");
        assert_eq!(parse_scopes(&scopes_text(&all)), all);
        assert_eq!(scopes_text(&BTreeSet::new()), "");
        assert_eq!(
            parse_scopes(" rics.read  rics.superuser "),
            BTreeSet::from([Scope::Read])
        );
    }
}
