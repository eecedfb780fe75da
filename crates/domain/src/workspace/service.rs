//! The workspace use cases.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rics_aip::field_mask::FieldTable;
use serde_json::{Value, json};

use super::fields;
use super::model::{Workspace, WorkspaceState};
use super::ports::WorkspaceRepository;

use crate::entity::references::check_named_entities;
use crate::entity::repository::EntityRepository;
use crate::error::{Error, Result};
use crate::id::{IdGenerator, parse_request_id, validate_user_id};
use crate::lifecycle::{self, check_etag, deleted};
use crate::lifecycle::{SoftDeletable, StoreVersions, soft_delete_methods};
use crate::list::{ListRequest, ListResponse, Paging};
use crate::principal::Principal;
use crate::resource::parse_body;
use crate::time::Clock;
use crate::update::UpdateMethod;
use crate::validate::Violations;

/// Longest display name.
pub const MAX_DISPLAY_NAME: usize = 200;
/// Longest description.
pub const MAX_DESCRIPTION: usize = 2000;
/// Most entities in one workspace.
pub const MAX_ENTITIES: usize = 1000;
/// The method name bound into idempotency keys.
const CREATE_METHOD: &str = "workspaces.create";

/// Everything the workspace service needs.
pub struct WorkspaceService {
    repository: Arc<dyn WorkspaceRepository>,
    entities: Arc<dyn EntityRepository>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    paging: Arc<Paging>,
    retention: Duration,
}

impl WorkspaceService {
    /// The service over its ports. `retention` is how long soft-deleted workspaces are
    /// kept before they are purged.
    pub fn new(
        repository: Arc<dyn WorkspaceRepository>,
        entities: Arc<dyn EntityRepository>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdGenerator>,
        paging: Arc<Paging>,
        retention: Duration,
    ) -> WorkspaceService {
        WorkspaceService {
            repository,
            entities,
            clock,
            ids,
            paging,
            retention,
        }
    }

    /// Creates an OPEN workspace from the request body, with an optional user-chosen
    /// id and an optional request id that makes retries safe (AIP-133, AIP-155).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a bad body, id or request id, or a request id reused with
    /// another request; NOT_FOUND for an entity that does not exist;
    /// FAILED_PRECONDITION for a deleted entity; ALREADY_EXISTS when the id is taken.
    pub async fn create(
        &self,
        principal: &Principal,
        body: Value,
        workspace_id: Option<&str>,
        request_id: Option<&str>,
    ) -> Result<Workspace> {
        let request_id = request_id.map(parse_request_id).transpose()?;
        if let Some(id) = workspace_id {
            validate_user_id("workspaceId", id)?;
        }
        let body = crate::fields::input(&fields::TABLE, body, "workspace")?;
        let mut workspace: Workspace = parse_body(body.clone(), "workspace")?;
        validate(&workspace)?;
        self.check_entities(principal, &workspace.entities, &[])
            .await?;
        let now = self.clock.now();
        let id = workspace_id.map_or_else(|| self.ids.resource_id(), str::to_owned);
        workspace.begin(Workspace::name_of(&id), self.ids.uid(), now);
        workspace.state = WorkspaceState::Open;
        let key = lifecycle::create_key(
            request_id,
            CREATE_METHOD,
            &[("workspaceId", &json!(workspace_id)), ("workspace", &body)],
            &workspace.name,
        );
        self.store_new(principal, workspace, key.as_ref(), now)
            .await
    }

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
        self.paging
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
        self.save(principal, &current, changed, event_type, self.clock.now())
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
    const BODY: &'static str = "workspace";

    fn table(&self) -> &'static FieldTable {
        &fields::TABLE
    }

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

// Delete and undelete as every soft-deletable resource has them: a deleted
// workspace's notes are unreachable until it is restored.
soft_delete_methods!(
    WorkspaceService,
    Workspace,
    "workspace",
    store = repository.update,
    purge = "workspaces"
);
