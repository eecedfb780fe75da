//! Checking the workspace another resource names (an activity log's or a document's
//! `workspace`): the same rules and errors for every resource.

use super::ports::WorkspaceRepository;
use crate::error::{Code, Error, Result};
use crate::lifecycle::{self, Referred};
use crate::principal::TenantId;

/// Checks the workspace `name` of the field `field` (`document.workspace`), when it
/// names one: it must exist in `tenant` and not be deleted. The name's form is checked
/// with the resource's other fields; a name that is not `workspaces/{workspace}`, or
/// none, passes here.
///
/// # Errors
/// NOT_FOUND (`WORKSPACE_NOT_FOUND`, with a violation on `field`) for a workspace that
/// does not exist in the tenant; FAILED_PRECONDITION (`RESOURCE_DELETED`) for a
/// soft-deleted one; UNAVAILABLE or INTERNAL when storage fails.
pub async fn check_named_workspace(
    workspaces: &dyn WorkspaceRepository,
    tenant: &TenantId,
    field: &str,
    name: &str,
) -> Result<()> {
    let Some(id) = name.strip_prefix("workspaces/") else {
        return Ok(());
    };
    match workspaces
        .get(tenant, id)
        .await
        .map_err(|e| e.for_resource(name))?
    {
        None => Err(Error::invalid_field(
            field,
            "WORKSPACE_NOT_FOUND",
            format!("'{name}' does not exist"),
        )
        .with_code(Code::NotFound)),
        Some(workspace) if workspace.is_deleted() => {
            Err(lifecycle::referred_deleted(Referred::Workspace, name))
        }
        Some(_) => Ok(()),
    }
}
