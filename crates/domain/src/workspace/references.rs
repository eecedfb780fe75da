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

/// Checks the workspace names of the repeated field `field` (`form.workspaces`): each
/// well-formed (`workspaces/{workspace}`), none listed twice, at most `max`; those not
/// in `kept` (already named before a change) must exist in `tenant` and be live.
///
/// # Errors
/// INVALID_ARGUMENT with a violation per bad name (`field[i]`) or on `field` for too
/// many; NOT_FOUND (`WORKSPACE_NOT_FOUND`, with a violation on `field[i]`);
/// FAILED_PRECONDITION (`WORKSPACE_DELETED`); UNAVAILABLE or INTERNAL when storage
/// fails.
pub async fn check_named_workspaces(
    workspaces: &dyn WorkspaceRepository,
    tenant: &TenantId,
    field: &str,
    names: &[String],
    kept: &[String],
    max: usize,
) -> Result<()> {
    let mut v = crate::validate::Violations::new();
    v.max_items(field, names, max);
    for (i, name) in names.iter().enumerate() {
        let well_formed = name
            .strip_prefix("workspaces/")
            .is_some_and(crate::id::is_well_formed_id);
        if !well_formed {
            v.add(
                format!("{field}[{i}]"),
                "INVALID_NAME",
                format!("'{name}' is not a workspace name (workspaces/{{workspace}})"),
            );
        } else if names[..i].contains(name) {
            v.add(
                format!("{field}[{i}]"),
                "DUPLICATE_WORKSPACE",
                format!("'{name}' is listed twice"),
            );
        }
    }
    if !v.is_empty() {
        return Err(Error::invalid_fields(v.into_vec()));
    }
    for (i, name) in names.iter().enumerate() {
        if !kept.contains(name) {
            check_named_workspace(workspaces, tenant, &format!("{field}[{i}]"), name).await?;
        }
    }
    Ok(())
}

/// The name of the workspace `workspace_id` whose forms or documents a List reads:
/// it must exist in `tenant` and be live, as a parent must.
///
/// # Errors
/// INVALID_ARGUMENT (`INVALID_NAME` on `parent`) for a malformed id; NOT_FOUND naming
/// the workspace when it is missing or deleted; UNAVAILABLE or INTERNAL.
pub async fn listed_workspace(
    workspaces: &dyn WorkspaceRepository,
    tenant: &TenantId,
    workspace_id: &str,
) -> Result<String> {
    let name = format!("workspaces/{workspace_id}");
    if !crate::id::is_well_formed_id(workspace_id) {
        return Err(Error::invalid_field(
            "parent",
            "INVALID_NAME",
            format!("'{name}' is not a valid workspace name"),
        ));
    }
    let live = workspaces
        .get(tenant, workspace_id)
        .await
        .map_err(|e| e.for_resource(&name))?
        .is_some_and(|found| !found.is_deleted());
    if live {
        Ok(name)
    } else {
        Err(Error::not_found(&name))
    }
}
