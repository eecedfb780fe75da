//! Who is calling: the tenant and the [`Principal`].

use std::collections::BTreeSet;
use std::fmt;

/// The id of a tenant. Every stored row and every repository call carries one, so no
/// query can cross tenants.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TenantId(String);

impl TenantId {
    /// A tenant id from its stored text.
    pub fn new(id: impl Into<String>) -> TenantId {
        TenantId(id.into())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TenantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An OAuth 2.0 scope the API knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// `rics.read`: read resources.
    Read,
    /// `rics.write`: create and change resources.
    Write,
    /// `rics.admin`: tenants, automations, activity log types, alert types.
    Admin,
}

impl Scope {
    /// Every scope.
    pub const ALL: [Scope; 3] = [Scope::Read, Scope::Write, Scope::Admin];

    /// The scope named `name` (`rics.read`), if any.
    pub fn parse(name: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|scope| scope.as_str() == name)
    }

    /// The scope's name in tokens (`rics.read`).
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "rics.read",
            Scope::Write => "rics.write",
            Scope::Admin => "rics.admin",
        }
    }
}

/// The authenticated caller: tenant, subject, display name and granted scopes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// The caller's tenant.
    pub tenant: TenantId,
    /// The subject (`sub` claim): a client id or a user id.
    pub subject: String,
    /// The display name, recorded as authors of notes.
    pub display_name: String,
    /// The scopes granted to the token.
    pub scopes: BTreeSet<Scope>,
}

impl Principal {
    /// Whether the principal holds `scope`.
    pub fn has_scope(&self, scope: Scope) -> bool {
        self.scopes.contains(&scope)
    }
}

/// `ErrorInfo` reasons of UNAUTHENTICATED that the HTTP adapter tells apart (RFC 6750
/// section 3: a request without a bearer token gets no error code; one whose token is
/// refused gets `invalid_token`). The token verifier defines the other reasons.
pub mod reasons {
    /// No `Authorization` header, or `Bearer` without a token.
    pub const MISSING_TOKEN: &str = "MISSING_TOKEN";
    /// An `Authorization` header of another scheme than `Bearer`.
    pub const UNSUPPORTED_AUTHORIZATION_SCHEME: &str = "UNSUPPORTED_AUTHORIZATION_SCHEME";
    /// A valid token names a tenant that does not exist here, or is not ACTIVE.
    pub const UNKNOWN_TENANT: &str = "UNKNOWN_TENANT";

    /// Whether an UNAUTHENTICATED error with `reason` means that the request carried
    /// no bearer token at all, rather than one that was refused.
    pub fn no_bearer_token(reason: &str) -> bool {
        reason == MISSING_TOKEN || reason == UNSUPPORTED_AUTHORIZATION_SCHEME
    }
}

/// Turns a request's credentials into a [`Principal`]. A port: the HTTP adapter calls
/// it for every request that needs a caller; the auth adapter implements it.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait::async_trait]
pub trait Authenticator: Send + Sync {
    /// The caller behind the `Authorization` header value, if any.
    ///
    /// # Errors
    /// UNAUTHENTICATED when the credentials are missing or invalid.
    async fn authenticate<'a>(&self, authorization: Option<&'a str>) -> crate::Result<Principal>;
}
