//! Authentication of API callers.
//!
//! Until token verification lands (the security issue), every request acts as one
//! principal of the default tenant with every scope: [`SingleTenantAuthenticator`].
//! The HTTP adapter only sees the [`Authenticator`] port, so the real verifier will
//! replace this without touching it.

use std::collections::BTreeSet;

use async_trait::async_trait;
use rics_domain::principal::{Authenticator, Principal, Scope, TenantId};

/// Treats every caller as the administrator of the default tenant. For single-user
/// development only; it ignores the `Authorization` header.
#[derive(Debug, Default, Clone, Copy)]
pub struct SingleTenantAuthenticator;

impl SingleTenantAuthenticator {
    /// The principal every request acts as.
    pub fn principal() -> Principal {
        Principal {
            tenant: TenantId::default_tenant(),
            subject: "local-admin".into(),
            display_name: "Local administrator".into(),
            scopes: BTreeSet::from([Scope::Read, Scope::Write, Scope::Admin]),
        }
    }
}

#[async_trait]
impl Authenticator for SingleTenantAuthenticator {
    async fn authenticate<'a>(
        &self,
        _authorization: Option<&'a str>,
    ) -> rics_domain::Result<Principal> {
        Ok(SingleTenantAuthenticator::principal())
    }
}
