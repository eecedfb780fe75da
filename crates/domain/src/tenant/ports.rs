//! The tenant repository port.

use async_trait::async_trait;

use super::model::Tenant;
use crate::alert::model::AlertType;
use crate::automation::model::Automation;
use crate::event::NewEvent;
use crate::form_definition::model::FormDefinition;
use crate::identity::model::{Client, User};
use crate::list::{ListQuery, Page};
use crate::operation::Operation;
use crate::principal::TenantId;
use crate::repository::RepositoryError;

/// Everything a new tenant starts with, written at once: the tenant, its first
/// client, and what the provisioning steps added (its default alert types, form
/// definitions and automations, ...).
#[derive(Debug, Clone, PartialEq)]
pub struct TenantPlan {
    /// The tenant.
    pub tenant: Tenant,
    /// Its clients (the first one at least).
    pub clients: Vec<Client>,
    /// Its users.
    pub users: Vec<User>,
    /// Its alert types.
    pub alert_types: Vec<AlertType>,
    /// Its form definitions, each with its first revision.
    pub form_definitions: Vec<FormDefinition>,
    /// Its built-in automations, each with its first revision.
    pub automations: Vec<Automation>,
}

impl TenantPlan {
    /// When the tenant is created: when what the provisioning steps add to it is
    /// created too.
    ///
    /// # Errors
    /// INTERNAL for a plan whose tenant has no creation time.
    pub fn creation_time(&self) -> crate::error::Result<crate::time::Timestamp> {
        self.tenant
            .create_time
            .ok_or_else(|| crate::error::Error::internal("a tenant plan without a creation time"))
    }
}

/// Stores tenants and the operations that create them.
///
/// Any method may fail with [`RepositoryError::Unavailable`] or
/// [`RepositoryError::Internal`]; the other errors are listed per method.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait TenantRepository: Send + Sync {
    /// The tenant with `id`.
    ///
    /// # Errors
    /// Only the common errors.
    async fn get(&self, id: &TenantId) -> Result<Option<Tenant>, RepositoryError>;

    /// One page of the children of `parent`.
    ///
    /// # Errors
    /// Only the common errors.
    async fn list_children(
        &self,
        parent: &TenantId,
        query: &ListQuery,
    ) -> Result<Page<Tenant>, RepositoryError>;

    /// Writes `plan` and, in the same transaction, `operation` (owned by `owner`, the
    /// tenant that polls it) and `events`.
    ///
    /// # Errors
    /// [`RepositoryError::AlreadyExists`] when the tenant id, a client id or a username
    /// is taken.
    async fn provision(
        &self,
        plan: &TenantPlan,
        owner: &TenantId,
        operation: &Operation,
        events: &[NewEvent],
    ) -> Result<(), RepositoryError>;

    /// Writes `plan` only if no tenant exists yet (first start); returns whether it did.
    /// Concurrent first starts write it once.
    ///
    /// # Errors
    /// Only the common errors.
    async fn bootstrap(&self, plan: &TenantPlan) -> Result<bool, RepositoryError>;

    /// The ids of every tenant, in order: what an operator's command over all tenants
    /// (`rics automations load --all-tenants`) visits.
    ///
    /// # Errors
    /// Only the common errors.
    async fn all_ids(&self) -> Result<Vec<TenantId>, RepositoryError>;
}
