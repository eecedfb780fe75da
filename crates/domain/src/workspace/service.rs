//! The workspace use cases.

use std::sync::Arc;

use async_trait::async_trait;

use super::fields;
use super::model::{Workspace, WorkspaceState};
use super::ports::WorkspaceRepository;

use crate::entity::references::check_named_entities;
use crate::entity::repository::EntityRepository;
use crate::error::{Error, Result};
use crate::form::service::FormService;
use crate::lifecycle::{self, ServiceContext, check_etag, deleted};
use crate::lifecycle::{StoreVersions, soft_delete_methods};
use crate::list::{ListRequest, ListResponse};
use crate::methods::CreateMethod;
use crate::methods::UpdateMethod;
use crate::principal::Principal;
use crate::time::Timestamp;
use crate::validate::Violations;

/// Longest display name.
pub const MAX_DISPLAY_NAME: usize = 200;
/// Longest description.
pub const MAX_DESCRIPTION: usize = 2000;
/// Most entities in one workspace.
pub const MAX_ENTITIES: usize = 1000;

/// Everything the workspace service needs.
#[derive(derive_new::new)]
pub struct WorkspaceService {
    repository: Arc<dyn WorkspaceRepository>,
    entities: Arc<dyn EntityRepository>,
    /// Opens the forms of a new workspace.
    forms: Arc<FormService>,
    /// The clock, ids, paging and retention.
    context: ServiceContext,
}

impl WorkspaceService {
    /// The workspace with `id`, deleted or not.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed id; NOT_FOUND.
    pub async fn get(&self, principal: &Principal, id: &str) -> Result<Workspace> {
        lifecycle::read(id, self.repository.get(&principal.tenant, id)).await
    }

    /// One page of workspaces (AIP-132, AIP-158, AIP-160).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for bad list parameters.
    pub async fn list(
        &self,
        principal: &Principal,
        request: &ListRequest,
    ) -> Result<ListResponse<Workspace>> {
        let store = self.repository.as_ref();
        self.context
            .paging
            .list(&fields::LIST, store, &principal.tenant, None, request)
            .await
    }

    /// Closes an OPEN workspace: it and its notes are frozen until it is reopened.
    ///
    /// # Errors
    /// NOT_FOUND; FAILED_PRECONDITION when it is deleted or already closed; ABORTED
    /// for a stale etag.
    pub async fn close(
        &self,
        principal: &Principal,
        id: &str,
        etag: Option<&str>,
    ) -> Result<Workspace> {
        self.transition(principal, id, etag, WorkspaceState::Closed)
            .await
    }

    /// Reopens a CLOSED workspace.
    ///
    /// # Errors
    /// NOT_FOUND; FAILED_PRECONDITION when it is deleted or already open; ABORTED for
    /// a stale etag.
    pub async fn reopen(
        &self,
        principal: &Principal,
        id: &str,
        etag: Option<&str>,
    ) -> Result<Workspace> {
        self.transition(principal, id, etag, WorkspaceState::Open)
            .await
    }

    async fn transition(
        &self,
        principal: &Principal,
        id: &str,
        etag: Option<&str>,
        target: WorkspaceState,
    ) -> Result<Workspace> {
        let current = self.get(principal, id).await?;
        if current.is_deleted() {
            return Err(deleted(&current.name));
        }
        check_etag(&current.name, &current.etag, etag)?;
        if current.state == target {
            let (reason, verb) = match target {
                WorkspaceState::Closed => ("WORKSPACE_ALREADY_CLOSED", "closed"),
                _ => ("WORKSPACE_ALREADY_OPEN", "open"),
            };
            return Err(Error::failed_precondition(
                reason,
                format!("'{}' is already {verb}.", current.name),
            )
            .with_metadata("resource", current.name.clone()));
        }
        let mut changed = current.clone();
        changed.state = target;
        let event_type = match target {
            WorkspaceState::Closed => "workspace.closed",
            _ => "workspace.reopened",
        };
        self.save(
            principal,
            &current,
            changed,
            event_type,
            self.context.clock.now(),
        )
        .await
    }

    /// Checks `entities` (see [`check_named_entities`]); those not in `kept` must exist
    /// in the caller's tenant and be live.
    async fn check_entities(
        &self,
        principal: &Principal,
        entities: &[String],
        kept: &[String],
    ) -> Result<()> {
        check_named_entities(
            self.entities.as_ref(),
            &principal.tenant,
            "workspace.entities",
            entities,
            kept,
            MAX_ENTITIES,
        )
        .await
    }
}

/// Refuses changes to a deleted or closed workspace.
///
/// # Errors
/// FAILED_PRECONDITION (`RESOURCE_DELETED` or `WORKSPACE_CLOSED`).
pub fn writable(workspace: &Workspace) -> Result<()> {
    if workspace.is_deleted() {
        return Err(deleted(&workspace.name));
    }
    if workspace.state == WorkspaceState::Closed {
        return Err(Error::failed_precondition(
            "WORKSPACE_CLOSED",
            format!("'{}' is closed; reopen it first.", workspace.name),
        )
        .with_metadata("resource", workspace.name.clone()));
    }
    Ok(())
}

fn validate(workspace: &Workspace) -> Result<()> {
    let mut v = Violations::new();
    v.required_text(
        "workspace.displayName",
        &workspace.display_name,
        MAX_DISPLAY_NAME,
    );
    v.optional_text(
        "workspace.description",
        &workspace.description,
        MAX_DESCRIPTION,
    );
    if v.is_empty() {
        Ok(())
    } else {
        Err(Error::invalid_fields(v.into_vec()))
    }
}

#[async_trait]
impl UpdateMethod for WorkspaceService {
    /// A closed workspace is frozen until it is reopened.
    fn check_writable(&self, current: &Workspace) -> Result<()> {
        writable(current)
    }

    /// Entities already in the workspace may have been deleted since; entities added
    /// must exist and be live.
    async fn admit_update(
        &self,
        principal: &Principal,
        current: &Workspace,
        updated: &mut Workspace,
    ) -> Result<()> {
        validate(updated)?;
        self.check_entities(principal, &updated.entities, &current.entities)
            .await
    }
}

#[async_trait]
impl CreateMethod for WorkspaceService {
    const ID_PARAMETER: &'static str = "workspaceId";

    /// Its entities must exist and be live, and its form definitions too: each is
    /// pinned to its revision, and a DRAFT form of it is prepared.
    async fn admit_new(
        &self,
        principal: &Principal,
        workspace: &mut Workspace,
        _now: Timestamp,
    ) -> Result<()> {
        validate(workspace)?;
        self.check_entities(principal, &workspace.entities, &[])
            .await?;
        workspace.new_forms = self
            .forms
            .drafts(
                principal,
                "workspace.formDefinitions",
                &mut workspace.form_definitions,
            )
            .await?;
        Ok(())
    }

    /// A new workspace is OPEN; its forms name it, and are stored with it.
    fn fill_new(&self, principal: &Principal, workspace: &mut Workspace, now: Timestamp) {
        workspace.state = WorkspaceState::Open;
        let name = workspace.name.clone();
        self.forms
            .open_drafts(principal, &name, &mut workspace.new_forms, now);
    }
}

// Delete and undelete as every soft-deletable resource has them: a deleted
// workspace's notes are unreachable until it is restored.
soft_delete_methods!(
    WorkspaceService,
    Workspace,
    "workspace",
    fields = fields::TABLE as "workspace",
    store = repository.update,
    purge = "workspaces"
);
