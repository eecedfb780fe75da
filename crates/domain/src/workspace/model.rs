//! The workspace resource (`workspaces/{workspace}`) in its JSON form.

use serde::{Deserialize, Serialize};

use crate::form::model::NewForm;
use crate::proto_enum;

proto_enum! {
    /// Whether a case is being worked on.
    pub enum WorkspaceState("STATE_UNSPECIFIED") {
        /// Open: the workspace and its notes may change.
        Open = "OPEN",
        /// Closed: frozen until it is reopened.
        Closed = "CLOSED",
    }
}

crate::resource_struct! {
    /// A case: entities under review together, with notes.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Workspace named "`workspaces/{workspace}`. Output only." {
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
        /// The form definitions the case collects forms of: given as
        /// `formDefinitions/{formDefinition}` (its latest revision) or with
        /// `@{revisionId}`, answered pinned to the revision. Creating the workspace
        /// opens one DRAFT form of each, naming the workspace. At most 20, each once.
        /// Immutable.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "Vec::is_empty"
        )]
        pub form_definitions: Vec<String>,
        /// The forms a create of the workspace opens with it, in its transaction: set
        /// by the service, never read back or answered.
        #[serde(skip)]
        #[cfg_attr(feature = "openapi", schema(ignore))]
        pub new_forms: Vec<NewForm>,
    }
    times: update_time delete_time purge_time;
}

crate::named_resource!(Workspace, "workspaces", "workspace");

crate::soft_deletable!(Workspace);
