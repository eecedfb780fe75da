//! The note resource (`entities/{entity}/notes/{note}` or
//! `workspaces/{workspace}/notes/{note}`) in its JSON form.

use serde::{Deserialize, Serialize};

use crate::time::Timestamp;

/// What a note is written about.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum NoteParent {
    /// The entity with this id.
    Entity(String),
    /// The workspace with this id.
    Workspace(String),
}

impl NoteParent {
    /// The parent's resource name (`entities/{entity}`).
    pub fn name(&self) -> String {
        match self {
            NoteParent::Entity(id) => format!("entities/{id}"),
            NoteParent::Workspace(id) => format!("workspaces/{id}"),
        }
    }

    /// The parent's id.
    pub fn id(&self) -> &str {
        match self {
            NoteParent::Entity(id) | NoteParent::Workspace(id) => id,
        }
    }

    /// The resource name of the note `id` under this parent.
    pub fn note_name(&self, id: &str) -> String {
        format!("{}/notes/{id}", self.name())
    }
}

/// A note about an entity or a workspace.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Note {
    /// `entities/{entity}/notes/{note}` or `workspaces/{workspace}/notes/{note}`.
    /// Optional on create, where it chooses the note's id.
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
    /// Creation time. Output only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_time: Option<Timestamp>,
    /// Last change time. Output only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update_time: Option<Timestamp>,
    /// True once the note has been changed after its creation. Output only.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub is_edited: bool,
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

impl Note {
    /// The parent's name and the note's id, from the note's name.
    pub fn parent_and_id(&self) -> Option<(&str, &str)> {
        self.name.rsplit_once("/notes/")
    }
}
