//! The tenant resource (`tenants/{tenant}`).

use serde::{Deserialize, Serialize};

use crate::proto_enum;
use crate::time::Timestamp;

proto_enum! {
    /// What a tenant may do.
    pub enum TenantType("TENANT_TYPE_UNSPECIFIED") {
        /// May create child tenants.
        Partner = "PARTNER",
        /// A customer tenant.
        Standard = "STANDARD",
    }
}

proto_enum! {
    /// The lifecycle state of a tenant.
    pub enum TenantState("STATE_UNSPECIFIED") {
        /// Provisioned and in use.
        Active = "ACTIVE",
    }
}

/// A tenant: an isolated set of data with its own clients and users.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Tenant {
    /// `tenants/{tenant}`. Output only.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Human-readable name, 1 to 200 characters. Required.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub display_name: String,
    /// PARTNER or STANDARD. Output only: children of a partner are STANDARD.
    #[serde(default, skip_serializing_if = "TenantType::is_unspecified")]
    pub tenant_type: TenantType,
    /// The partner tenant that created it, `tenants/{tenant}`. Output only.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub parent: String,
    /// Lifecycle state. Output only.
    #[serde(default, skip_serializing_if = "TenantState::is_unspecified")]
    pub state: TenantState,
    /// Creation time. Output only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_time: Option<Timestamp>,
    /// Last change time. Output only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update_time: Option<Timestamp>,
}

impl Tenant {
    /// The resource name of the tenant with `id`.
    pub fn name_of(id: &str) -> String {
        format!("tenants/{id}")
    }

    /// The id part of the name.
    pub fn id(&self) -> &str {
        self.name.strip_prefix("tenants/").unwrap_or(&self.name)
    }
}
