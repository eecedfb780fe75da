//! The note use cases.

use std::sync::Arc;

use serde_json::{Value, json};

use super::fields;
use super::model::{Note, NoteParent};
use super::ports::NoteRepository;
use crate::entity::repository::EntityRepository;
use crate::error::{Code, Error, Result};
use crate::event::NewEvent;
use crate::id::{IdGenerator, is_well_formed_id, parse_request_id, validate_user_id};
use crate::lifecycle::{self, check_etag};
use crate::list::{ListRequest, ListResponse, Paging};
use crate::principal::Principal;
use crate::repository::IdempotencyKey;
use crate::resource::{self, fingerprint, parse_body, require_object, to_json};
use crate::time::{Clock, Timestamp};
use crate::validate::Violations;
use crate::workspace::ports::WorkspaceRepository;
use crate::workspace::service::writable;

/// Largest note content, in bytes of UTF-8 (100 KiB).
pub const MAX_CONTENT_BYTES: usize = 100 * 1024;
/// The method name bound into idempotency keys.
const CREATE_METHOD: &str = "notes.create";

/// Everything the note service needs.
pub struct NoteService {
    notes: Arc<dyn NoteRepository>,
    entities: Arc<dyn EntityRepository>,
    workspaces: Arc<dyn WorkspaceRepository>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    paging: Arc<Paging>,
}

/// Whether a note is only read or about to change: a closed workspace's notes can be
/// read but not changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    Read,
    Write,
}

impl NoteService {
    /// The service over its ports.
    pub fn new(
        notes: Arc<dyn NoteRepository>,
        entities: Arc<dyn EntityRepository>,
        workspaces: Arc<dyn WorkspaceRepository>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        paging: Arc<Paging>,
    ) -> NoteService {
        NoteService {
            notes,
            entities,
            workspaces,
            clock,
            ids,
            paging,
        }
    }

    /// Writes a note as the caller. The body holds `content` and, optionally, the
    /// `name` the note should have under `parent`.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a bad body, name or request id; NOT_FOUND when the parent
    /// is missing or deleted; FAILED_PRECONDITION when the workspace is closed;
    /// ALREADY_EXISTS when the chosen name is taken.
    pub async fn create(
        &self,
        principal: &Principal,
        parent: &NoteParent,
        body: Value,
        request_id: Option<&str>,
    ) -> Result<Note> {
        let request_id = request_id.map(parse_request_id).transpose()?;
        require_object(&body, "note")?;
        let chosen = body
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .map(|name| chosen_id(parent, name))
            .transpose()?;
        let body = crate::fields::input(&fields::TABLE, body, "note")?;
        let mut note: Note = parse_body(body.clone(), "note")?;
        validate(&note)?;
        self.live_parent(principal, parent, Access::Write).await?;
        let now = self.clock.now();
        let id = chosen.unwrap_or_else(|| self.ids.resource_id());
        note.name = parent.note_name(&id);
        note.uid = self.ids.uid();
        note.revision = 1;
        note.etag = resource::etag(&note.uid, note.revision);
        note.author_id = principal.subject.clone();
        note.author = if principal.display_name.is_empty() {
            principal.subject.clone()
        } else {
            principal.display_name.clone()
        };
        note.create_time = Some(now);
        note.update_time = Some(now);
        note.is_edited = false;
        let key = request_id.map(|request_id| IdempotencyKey {
            request_id: request_id.to_string(),
            method: CREATE_METHOD,
            fingerprint: fingerprint(
                CREATE_METHOD,
                &[("parent", &json!(parent.name())), ("note", &body)],
            ),
            resource_name: note.name.clone(),
        });
        let events = [self.event("note.created", parent, &note, principal, now, None)?];
        let replayed = lifecycle::create_once(&note.name, key.as_ref(), || {
            self.notes
                .create(&principal.tenant, &note, key.as_ref(), &events)
        })
        .await?;
        match replayed {
            None => Ok(note),
            Some(name) => {
                let id = name.rsplit('/').next().unwrap_or(&name);
                self.get(principal, parent, id).await
            }
        }
    }

    /// The note `id` of `parent`.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed id; NOT_FOUND when the note or its parent is
    /// missing, or the parent is deleted.
    pub async fn get(&self, principal: &Principal, parent: &NoteParent, id: &str) -> Result<Note> {
        self.live_parent(principal, parent, Access::Read).await?;
        self.load(principal, parent, id).await
    }

    /// One page of the notes of `parent`, oldest first by default.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for bad list parameters; NOT_FOUND when the parent is missing
    /// or deleted.
    pub async fn list(
        &self,
        principal: &Principal,
        parent: &NoteParent,
        request: &ListRequest,
    ) -> Result<ListResponse<Note>> {
        self.live_parent(principal, parent, Access::Read).await?;
        let parent_name = parent.name();
        let (query, context) = self.paging.prepare(
            &fields::LIST,
            &principal.tenant,
            Some(&parent_name),
            request,
        )?;
        let page = self
            .notes
            .list(&principal.tenant, &parent_name, &query)
            .await
            .map_err(Error::from)?;
        Ok(self.paging.finish(context, page))
    }

    /// Changes a note's content; only its author may. The body's `name`, when given,
    /// must be the note's.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a bad body or mask, or a name of another note; NOT_FOUND;
    /// PERMISSION_DENIED for anyone but the author; FAILED_PRECONDITION when the
    /// workspace is closed; ABORTED for a stale etag or a concurrent change.
    pub async fn update(
        &self,
        principal: &Principal,
        parent: &NoteParent,
        id: &str,
        body: Value,
        update_mask: Option<&str>,
    ) -> Result<Note> {
        let name = parent.note_name(id);
        require_object(&body, "note")?;
        let body_name = body.get("name").and_then(Value::as_str).unwrap_or("");
        if !body_name.is_empty() && body_name != name && body_name != format!("notes/{id}") {
            return Err(Error::invalid_field(
                "note.name",
                "NAME_MISMATCH",
                format!("'{body_name}' is not the note in the path ('{name}')"),
            ));
        }
        let etag = body.get("etag").and_then(Value::as_str).map(str::to_owned);
        let mask = crate::fields::update_mask(&fields::TABLE, update_mask)?;
        let patch = crate::fields::input(&fields::TABLE, body, "note")?;
        let _typed: Note = parse_body(patch.clone(), "note")?;
        self.live_parent(principal, parent, Access::Write).await?;
        let current = self.load(principal, parent, id).await?;
        check_author(principal, &current)?;
        check_etag(&name, &current.etag, etag.as_deref())?;
        let current_json = to_json(&current)?;
        let merged =
            crate::fields::apply_mask(&fields::TABLE, &mask, &current_json, &patch, "note")?;
        let changed: Note = parse_body(
            crate::fields::input(&fields::TABLE, merged, "note")?,
            "note",
        )?;
        validate(&changed)?;
        if changed.content == current.content {
            return Ok(current);
        }
        let now = self.clock.now();
        let mut updated = current.clone();
        updated.content = changed.content;
        updated.is_edited = true;
        updated.revision = current.revision + 1;
        updated.update_time = Some(now);
        updated.etag = resource::etag(&updated.uid, updated.revision);
        let events = [self.event(
            "note.updated",
            parent,
            &updated,
            principal,
            now,
            Some(&current),
        )?];
        self.notes
            .update(&principal.tenant, &updated, current.revision, &events)
            .await
            .map_err(|e| e.for_resource(&name))?;
        Ok(updated)
    }

    /// Deletes a note for good and returns it; only its author may.
    ///
    /// # Errors
    /// NOT_FOUND; PERMISSION_DENIED for anyone but the author; FAILED_PRECONDITION
    /// when the workspace is closed; ABORTED for a stale etag or a concurrent change.
    pub async fn delete(
        &self,
        principal: &Principal,
        parent: &NoteParent,
        id: &str,
        etag: Option<&str>,
    ) -> Result<Note> {
        self.live_parent(principal, parent, Access::Write).await?;
        let current = self.load(principal, parent, id).await?;
        check_author(principal, &current)?;
        check_etag(&current.name, &current.etag, etag)?;
        let now = self.clock.now();
        let event = NewEvent::new(
            self.ids.resource_id(),
            "note.deleted",
            &current.name,
            principal,
            now,
        )
        .with_changes(Some(&to_json(&current)?), None);
        let event = scoped(event, parent);
        self.notes
            .delete(
                &principal.tenant,
                &parent.name(),
                id,
                current.revision,
                &[event],
            )
            .await
            .map_err(|e| e.for_resource(&current.name))?;
        Ok(current)
    }

    async fn load(&self, principal: &Principal, parent: &NoteParent, id: &str) -> Result<Note> {
        let name = parent.note_name(id);
        if !is_well_formed_id(id) {
            return Err(Error::invalid_field(
                "name",
                "INVALID_NAME",
                format!("'{name}' is not a valid note name"),
            ));
        }
        self.notes
            .get(&principal.tenant, &parent.name(), id)
            .await
            .map_err(|e| e.for_resource(&name))?
            .ok_or_else(|| Error::not_found(&name))
    }

    /// Requires the parent to exist and be live: the notes of a deleted parent are
    /// unreachable. Changes also need an open workspace.
    async fn live_parent(
        &self,
        principal: &Principal,
        parent: &NoteParent,
        access: Access,
    ) -> Result<()> {
        let name = parent.name();
        if !is_well_formed_id(parent.id()) {
            return Err(Error::invalid_field(
                "parent",
                "INVALID_NAME",
                format!("'{name}' is not a valid parent name"),
            ));
        }
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
                        if access == Access::Write {
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

    fn event(
        &self,
        event_type: &str,
        parent: &NoteParent,
        note: &Note,
        principal: &Principal,
        now: Timestamp,
        before: Option<&Note>,
    ) -> Result<NewEvent> {
        let before = before.map(to_json).transpose()?;
        let event = NewEvent::new(
            self.ids.resource_id(),
            event_type,
            &note.name,
            principal,
            now,
        )
        .with_changes(before.as_ref(), Some(&to_json(note)?));
        Ok(scoped(event, parent))
    }
}

/// An entity's note events belong to the entity (and are erased with it); a
/// workspace's are tenant-level.
fn scoped(event: NewEvent, parent: &NoteParent) -> NewEvent {
    match parent {
        NoteParent::Entity(id) => event.for_entity(id),
        NoteParent::Workspace(_) => event,
    }
}

/// The id a create body's `name` chooses: the name must be under `parent` (or the
/// short `notes/{note}` form) and its id a valid user-chosen id.
fn chosen_id(parent: &NoteParent, name: &str) -> Result<String> {
    let prefix = format!("{}/notes/", parent.name());
    let id = name
        .strip_prefix(&prefix)
        .or_else(|| name.strip_prefix("notes/"))
        .ok_or_else(|| {
            Error::invalid_field(
                "note.name",
                "NAME_MISMATCH",
                format!("'{name}' is not a note of '{}'", parent.name()),
            )
        })?;
    validate_user_id("note.name", id)?;
    Ok(id.to_owned())
}

fn check_author(principal: &Principal, note: &Note) -> Result<()> {
    if note.author_id == principal.subject {
        Ok(())
    } else {
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
