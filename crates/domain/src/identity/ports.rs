//! The ports of the authorization server: where clients, users and grants are kept,
//! how secrets are hashed and how access tokens are signed.

use async_trait::async_trait;

use super::model::{
    AccessClaims, AccessToken, AuthorizationCode, Client, RefreshToken, Rotation, SigningKey, User,
};
use crate::repository::RepositoryError;
use crate::time::Timestamp;

/// Stores clients, users and grants. Lookups by client id, username, code and token
/// hash are global: they happen before the caller's tenant is known.
///
/// Any method may fail with [`RepositoryError::Unavailable`] or
/// [`RepositoryError::Internal`]; the other errors are listed per method.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait IdentityRepository: Send + Sync {
    /// The client with `client_id`.
    ///
    /// # Errors
    /// Only the common errors.
    async fn find_client(&self, client_id: &str) -> Result<Option<Client>, RepositoryError>;

    /// Registers a client.
    ///
    /// # Errors
    /// [`RepositoryError::AlreadyExists`] for a taken client id;
    /// [`RepositoryError::NotFound`] when the tenant does not exist.
    async fn create_client(&self, client: &Client) -> Result<(), RepositoryError>;

    /// The user signing in as `username` (lower case).
    ///
    /// # Errors
    /// Only the common errors.
    async fn find_user(&self, username: &str) -> Result<Option<User>, RepositoryError>;

    /// Creates a user.
    ///
    /// # Errors
    /// [`RepositoryError::AlreadyExists`] for a taken username or user id;
    /// [`RepositoryError::NotFound`] when the tenant does not exist.
    async fn create_user(&self, user: &User) -> Result<(), RepositoryError>;

    /// Stores an authorization code.
    ///
    /// # Errors
    /// Only the common errors.
    async fn save_code(&self, code: &AuthorizationCode) -> Result<(), RepositoryError>;

    /// The code with `code_hash` if it exists and has not expired at `now`. Reads
    /// only: the token endpoint checks the request against it before anything is
    /// spent.
    ///
    /// # Errors
    /// Only the common errors.
    async fn find_code(
        &self,
        code_hash: &str,
        now: Timestamp,
    ) -> Result<Option<AuthorizationCode>, RepositoryError>;

    /// Exchanges the code with `code_hash`, if it still exists and has not expired at
    /// `now`, for the first refresh token of a new family: removes the code and stores
    /// `first` in one transaction, and returns `true`. A code is exchanged at most
    /// once, even by concurrent requests; when it is gone or expired nothing changes
    /// and the answer is `false`.
    ///
    /// # Errors
    /// Only the common errors; on any error nothing changes.
    async fn exchange_code(
        &self,
        code_hash: &str,
        now: Timestamp,
        first: &RefreshToken,
    ) -> Result<bool, RepositoryError>;

    /// The refresh token with `token_hash` if it was issued to `client_id`, is not
    /// revoked and has not expired at `now`, whether or not it is spent. Reads only:
    /// the token endpoint checks the request against it before anything is spent.
    ///
    /// # Errors
    /// Only the common errors.
    async fn find_refresh_token(
        &self,
        token_hash: &str,
        client_id: &str,
        now: Timestamp,
    ) -> Result<Option<RefreshToken>, RepositoryError>;

    /// Rotates the refresh token with `token_hash`, issued to `client_id`, in one
    /// transaction: a live token is marked spent and `successor` (of the same family)
    /// stored ([`Rotation::Rotated`]). A token already spent revokes its whole family
    /// ([`Rotation::Reused`]); an unknown, expired, revoked or other client's token
    /// changes nothing ([`Rotation::Unknown`]).
    ///
    /// # Errors
    /// Only the common errors; on any error nothing changes.
    async fn rotate_refresh_token(
        &self,
        token_hash: &str,
        client_id: &str,
        now: Timestamp,
        successor: &RefreshToken,
    ) -> Result<Rotation, RepositoryError>;

    /// Forgets codes and refresh tokens that expired before `now`; returns how many.
    ///
    /// # Errors
    /// Only the common errors.
    async fn expire_grants(&self, now: Timestamp) -> Result<u64, RepositoryError>;
}

/// Hashes and checks secrets (client secrets, passwords) with a slow, salted hash.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait SecretHasher: Send + Sync {
    /// The hash of `secret`, in a self-describing format (PHC string).
    ///
    /// # Errors
    /// INTERNAL when hashing fails.
    async fn hash(&self, secret: &str) -> crate::Result<String>;

    /// Whether `secret` matches `hash` (in constant time). A malformed hash never
    /// matches.
    async fn verify(&self, secret: &str, hash: &str) -> bool;
}

/// Signs access tokens with the server's current key.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait TokenSigner: Send + Sync {
    /// A signed access token carrying `claims`, issued at `now`.
    ///
    /// # Errors
    /// INTERNAL or UNAVAILABLE when no key can sign.
    async fn sign(&self, claims: &AccessClaims, now: Timestamp) -> crate::Result<AccessToken>;
}

/// Stores the server's signing keys, shared by every replica.
///
/// Any method may fail with [`RepositoryError::Unavailable`] or
/// [`RepositoryError::Internal`].
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait KeyRepository: Send + Sync {
    /// Every key not retired before `since`, newest first.
    ///
    /// # Errors
    /// Only the common errors.
    async fn keys(&self, since: Timestamp) -> Result<Vec<SigningKey>, RepositoryError>;

    /// Stores `key` as the current key and retires the others at its creation time,
    /// atomically. When another replica added a current key after `expected_current`
    /// (the kid of the current key the caller saw, `None` for none), nothing is stored
    /// and `false` is returned: replicas starting together make one key.
    ///
    /// # Errors
    /// Only the common errors.
    async fn rotate(
        &self,
        key: &SigningKey,
        expected_current: Option<String>,
    ) -> Result<bool, RepositoryError>;
}
