//! The note use cases: what is special about notes (the author, `isEdited`, the rule
//! of a closed workspace, the content limit) over the template's standard methods,
//! which a note's parent addresses ([`NoteService::within`]).

use std::sync::Arc;

use async_trait::async_trait;
use rics_aip::field_mask::FieldTable;
use serde_json::{Value, json};

use super::fields;
use super::model::{Note, NoteParent};
use super::ports::NoteRepository;
use crate::entity::repository::EntityRepository;
use crate::error::{Code, Error, Result};
use crate::event::NewEvent;
use crate::id::validate_user_id;
use crate::lifecycle::{DeleteMethod, ParentedService, ServiceContext, Within};
use crate::list::ListSpec;
use crate::methods::{CreateMethod, DeclaredFields, UpdateMethod};
use crate::principal::{Principal, TenantId};
use crate::repository::{RepositoryError, ResourceStore};
use crate::resource::Parent;
use crate::time::Timestamp;
use crate::validate::Violations;
use crate::workspace::ports::WorkspaceRepository;
use crate::workspace::service::writable;

/// Largest note content, in bytes of UTF-8 (100 KiB).
pub const MAX_CONTENT_BYTES: usize = 100 * 1024;

/// Everything the note service needs.
#[derive(derive_new::new)]
pub struct NoteService {
    notes: Arc<dyn NoteRepository>,
    entities: Arc<dyn EntityRepository>,
    workspaces: Arc<dyn WorkspaceRepository>,
    /// The clock, ids and paging (notes are never soft-deleted, so never purged).
    context: ServiceContext,
}

impl NoteService {
    /// The notes of `parent`, with their standard methods: Get and List, and Create,
    /// Update and Delete for the author.
    pub fn within(&self, parent: NoteParent) -> Within<'_, NoteService> {
        Within::new(self, parent)
    }
}

impl DeclaredFields for NoteService {
    const BODY: &'static str = "note";

    fn table(&self) -> &'static FieldTable {
        &fields::TABLE
    }
}

#[async_trait]
impl ParentedService for NoteService {
    type Resource = Note;
    type Parent = NoteParent;

    const EVENT_KIND: &'static str = "note";

    fn context(&self) -> &ServiceContext {
        &self.context
    }

    fn store(&self) -> &dyn ResourceStore<Note> {
        self.notes.as_ref()
    }

    fn list_spec(&self) -> &'static ListSpec {
        &fields::LIST
    }

    /// Only its author may change or delete a note, administrators included.
    fn check_caller(&self, principal: &Principal, note: &Note) -> Result<()> {
        if note.author_id == principal.subject {
            return Ok(());
        }
        Err(Error::new(
            Code::PermissionDenied,
            "NOT_NOTE_AUTHOR",
            format!(
                "Only the author of '{}' may change or delete it.",
                note.name
            ),
        )
        .with_metadata("resource", note.name.clone()))
    }

    /// The parent must exist and be live; changes also need an open workspace.
    async fn check_parent(
        &self,
        principal: &Principal,
        parent: &NoteParent,
        change: bool,
    ) -> Result<()> {
        let name = parent.name();
        let live = match parent {
            NoteParent::Entity(id) => self
                .entities
                .get(&principal.tenant, id)
                .await
                .map_err(|e| e.for_resource(&name))?
                .is_some_and(|entity| !entity.is_deleted()),
            NoteParent::Workspace(id) => {
                match self
                    .workspaces
                    .get(&principal.tenant, id)
                    .await
                    .map_err(|e| e.for_resource(&name))?
                {
                    Some(workspace) if !workspace.is_deleted() => {
                        if change {
                            writable(&workspace)?;
                        }
                        true
                    }
                    _ => false,
                }
            }
        };
        if live {
            Ok(())
        } else {
            Err(Error::not_found(&name))
        }
    }
}

#[async_trait]
impl CreateMethod for Within<'_, NoteService> {
    /// A note's id is chosen by the body's `name`.
    const ID_PARAMETER: &'static str = "note.name";

    /// The body's `name`, under the parent (or the short `notes/{note}` form), chooses
    /// the id.
    fn chosen_id(&self, body: &Value, _id: Option<&str>) -> Result<Option<String>> {
        let Some(name) = body
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
        else {
            return Ok(None);
        };
        let parent = self.parent.name();
        let id = name
            .strip_prefix(&format!("{parent}/notes/"))
            .or_else(|| name.strip_prefix("notes/"))
            .ok_or_else(|| {
                Error::invalid_field(
                    Self::ID_PARAMETER,
                    "NAME_MISMATCH",
                    format!("'{name}' is not a note of '{parent}'"),
                )
            })?;
        validate_user_id(Self::ID_PARAMETER, id)?;
        Ok(Some(id.to_owned()))
    }

    /// The key binds the parent and the body.
    fn key_parameters(&self, _id: Option<&str>) -> Vec<(&'static str, Value)> {
        vec![("parent", json!(self.parent.name()))]
    }

    /// The content must keep its limits, and the parent must admit new notes.
    async fn admit_new(
        &self,
        principal: &Principal,
        note: &mut Note,
        _now: Timestamp,
    ) -> Result<()> {
        validate(note)?;
        self.check_parent(principal, true).await
    }

    /// The caller is the author.
    fn fill_new(&self, principal: &Principal, note: &mut Note, _now: Timestamp) {
        note.author_id = principal.subject.clone();
        note.author = if principal.display_name.is_empty() {
            principal.subject.clone()
        } else {
            principal.display_name.clone()
        };
    }
}

#[async_trait]
impl UpdateMethod for Within<'_, NoteService> {
    /// Only `content` changes, within its limits.
    async fn admit_update(
        &self,
        _principal: &Principal,
        _current: &Note,
        note: &mut Note,
    ) -> Result<()> {
        validate(note)
    }

    /// A changed note is edited.
    fn on_change(&self, _current: &Note, note: &mut Note) {
        note.is_edited = true;
    }
}

#[async_trait]
impl DeleteMethod for Within<'_, NoteService> {
    /// A note is removed for good.
    async fn write_removal(
        &self,
        tenant: &TenantId,
        note: &Note,
        events: &[NewEvent],
    ) -> std::result::Result<(), RepositoryError> {
        self.service.notes.remove(tenant, note, events).await
    }
}

fn validate(note: &Note) -> Result<()> {
    let mut v = Violations::new();
    if note.content.trim().is_empty() {
        v.add(
            "note.content",
            "REQUIRED",
            "is required and must not be blank",
        );
    } else if note.content.len() > MAX_CONTENT_BYTES {
        v.add(
            "note.content",
            "TOO_LONG",
            format!(
                "must be at most {MAX_CONTENT_BYTES} bytes (got {})",
                note.content.len()
            ),
        );
    }
    if v.is_empty() {
        Ok(())
    } else {
        Err(Error::invalid_fields(v.into_vec()))
    }
}
