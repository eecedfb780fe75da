//! The note resource (`entities/{entity}/notes/{note}` or
//! `workspaces/{workspace}/notes/{note}`) in its JSON form.

use serde::{Deserialize, Serialize};

use crate::entity::model::Entity;
use crate::resource::Parent;
use crate::workspace::model::Workspace;

/// What a note is written about.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum NoteParent {
    /// The entity with this id.
    Entity(String),
    /// The workspace with this id.
    Workspace(String),
}

impl Parent for NoteParent {
    fn name(&self) -> String {
        match self {
            NoteParent::Entity(id) => Entity::name_of(id),
            NoteParent::Workspace(id) => Workspace::name_of(id),
        }
    }

    fn id(&self) -> &str {
        match self {
            NoteParent::Entity(id) | NoteParent::Workspace(id) => id,
        }
    }
}

crate::resource_struct! {
    /// A note about an entity or a workspace.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Note named "`entities/{entity}/notes/{note}` or `workspaces/{workspace}/notes/{note}`. Optional on create, where it chooses the note's id." {
        /// The text of the note. Required; at most 100 KiB.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub content: String,
        /// The subject of the user or client who wrote the note. Output only.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub author_id: String,
        /// The author's display name. Output only.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub author: String,
        /// True once the note has been changed after its creation. Output only.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "std::ops::Not::not"
        )]
        pub is_edited: bool,
    }
    times: update_time;
}

crate::named_resource!(Note, "notes", "note", under a parent);
crate::soft_deletable!(Note, entities = Note::entity_ids, removed when deleted);

impl Note {
    /// The entity whose note this is: an entity's note events are the entity's, a
    /// workspace's are the tenant's.
    fn entity_ids(&self) -> Vec<&str> {
        self.parent_and_id()
            .and_then(|(parent, _)| parent.strip_prefix("entities/"))
            .into_iter()
            .collect()
    }
}
