//! The workspace resource (`workspaces/{workspace}`) in its JSON form.

use serde::{Deserialize, Serialize};

use crate::proto_enum;
use crate::time::Timestamp;

proto_enum! {
    /// Whether a case is being worked on.
    pub enum WorkspaceState("STATE_UNSPECIFIED") {
        /// Open: the workspace and its notes may change.
        Open = "OPEN",
        /// Closed: frozen until it is reopened.
        Closed = "CLOSED",
    }
}

/// A case: entities under review together, with notes.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Workspace {
    /// `workspaces/{workspace}`. Output only.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub name: String,
    /// Random identifier (AIP-148). Output only.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub uid: String,
    /// Human-readable name. Required.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub display_name: String,
    /// What the case is about.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub description: String,
    /// The entities under review (`entities/{entity}`), each of the caller's tenant.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub entities: Vec<String>,
    /// OPEN or CLOSED; changed by `:close` and `:reopen`. Output only.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "WorkspaceState::is_unspecified"
    )]
    pub state: WorkspaceState,
    /// Creation time. Output only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_time: Option<Timestamp>,
    /// Last change time. Output only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update_time: Option<Timestamp>,
    /// Soft-deletion time, when deleted. Output only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delete_time: Option<Timestamp>,
    /// When a soft-deleted workspace will be purged. Output only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purge_time: Option<Timestamp>,
    /// Strong etag of this version (AIP-154), quotes included.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub etag: String,
    /// Version counter behind the etag. Not part of the JSON.
    #[serde(skip)]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub revision: i64,
}

crate::named_resource!(Workspace, "workspaces", "workspace");

crate::soft_deletable!(Workspace);
