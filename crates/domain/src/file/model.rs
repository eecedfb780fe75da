//! The file resource (`entities/{entity}/files/{file}` and `forms/{form}/files/{file}`)
//! in its JSON form: the metadata of content that sits behind the
//! [`FileStore`](super::content::FileStore) port.

use serde::{Deserialize, Serialize};

use crate::entity::model::Entity;
use crate::form::model::Form;
use crate::resource::Parent;

/// What a file belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FileParent {
    /// The entity with this id.
    Entity(String),
    /// The form with this id: what someone uploaded while filling it in.
    Form(String),
}

impl Parent for FileParent {
    fn name(&self) -> String {
        match self {
            FileParent::Entity(id) => Entity::name_of(id),
            FileParent::Form(id) => Form::name_of(id),
        }
    }

    fn id(&self) -> &str {
        match self {
            FileParent::Entity(id) | FileParent::Form(id) => id,
        }
    }
}

crate::resource_struct! {
    /// A file someone submitted about an entity, or uploaded with a form: a scan, a
    /// selfie, a statement.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct File named "`entities/{entity}/files/{file}` or `forms/{form}/files/{file}`. Output only; the id is chosen by `fileId` on create." {
        /// What people call the file, such as the name it was uploaded under. Required;
        /// at most 255 characters. It is only ever shown, never used as a path.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub display_name: String,
        /// The media type of the content, as sniffed from its bytes. Optional on create:
        /// a type given there (other than `application/octet-stream`) must be the one
        /// the bytes have.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub content_type: String,
        /// The size of the content in bytes. Output only.
        #[serde(default, deserialize_with = "crate::serde_util::null_as_default")]
        pub size_bytes: i64,
        /// The SHA-256 digest of the content, 64 lower-case hex digits. Output only.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub sha256: String,
        /// The entity of the form a form's file belongs to (`entities/{entity}`), to
        /// which its events belong: read from the form, never stored with the file nor
        /// answered.
        #[serde(skip)]
        #[cfg_attr(feature = "openapi", schema(ignore))]
        pub form_entity: Option<String>,
    }
    times: update_time delete_time purge_time;
}

crate::named_resource!(File, "files", "file", under a parent);
crate::soft_deletable!(File, entities = File::entity_ids);

impl File {
    /// The entity the file belongs to, or that its form is about: its events are the
    /// entity's.
    fn entity_ids(&self) -> Vec<&str> {
        let parent = self.parent_and_id().map(|(parent, _)| parent);
        parent
            .and_then(|parent| parent.strip_prefix("entities/"))
            .or_else(|| {
                self.form_entity
                    .as_deref()
                    .and_then(|entity| entity.strip_prefix("entities/"))
            })
            .into_iter()
            .collect()
    }
}
