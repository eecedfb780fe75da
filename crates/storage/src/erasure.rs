//! Erasure of an entity, carried out step by step as the domain's plan lists them
//! ([`rics_domain::entity::erasure::PLAN`]), in the caller's transaction. Each
//! resource's module erases its own rows; this one only runs the plan and counts.

use diesel::prelude::*;
use rics_domain::entity::erasure::PLAN;
use rics_domain::entity::model::Entity;
use rics_domain::entity::repository::{EraseGuard, ErasureCounts};
use rics_domain::repository::RepositoryError;

use crate::connection::DbConnection;
use crate::error::repository_error;
use crate::rows::internal;
use crate::schema::{
    entities, entity_external_ids, entity_relationships, entity_tags, events, idempotency_keys,
};

/// The entity being erased.
struct Target<'a> {
    tenant: &'a str,
    id: &'a str,
    guard: EraseGuard,
}

/// One step: removes or unlinks its rows and adds what it did to the counts.
type Step = fn(&mut DbConnection, &Target<'_>, &mut ErasureCounts) -> Result<(), RepositoryError>;

/// The step that carries out `resource` of the plan.
fn step(resource: &str) -> Option<Step> {
    Some(match resource {
        "relationships" => relationships,
        "tags" => tags,
        "externalIds" => external_ids,
        "activityLogs" => activity_logs,
        "events" => entity_events,
        "idempotencyKeys" => creation_key,
        "entities" => entity_row,
        "documents" => documents,
        "notes" => notes,
        "files" => files,
        "jobs" => jobs,
        "automationExecutions" => automation_executions,
        "screeningDismissals" => screening_dismissals,
        "verificationSessions" => verification_sessions,
        "workspaceMemberships" => workspace_memberships,
        "alertMemberships" => alert_memberships,
        "formFiles" => form_files,
        "forms" => forms,
        "webhookDeliveries" => webhook_deliveries,
        _ => return None,
    })
}

/// Erases the entity `id` and what refers to it if `guard` holds; returns the counts
/// of every step of the plan.
///
/// # Errors
/// NOT_FOUND when the entity is missing or a purge's guard no longer holds, CONFLICT
/// when a revision guard does not; database failures.
pub(crate) fn erase_entity(
    conn: &mut DbConnection,
    tenant: &str,
    id: &str,
    guard: EraseGuard,
) -> Result<ErasureCounts, RepositoryError> {
    let target = Target { tenant, id, guard };
    let mut counts = ErasureCounts::new();
    for planned in PLAN {
        let run = step(planned.resource)
            .ok_or_else(|| internal("an erasure step storage cannot run", planned.resource))?;
        run(conn, &target, &mut counts)?;
    }
    Ok(counts)
}

/// Removes the idempotency keys that created the resources named `names`; adds them
/// to `counts`.
///
/// # Errors
/// Database failures.
pub(crate) fn erase_creation_keys(
    conn: &mut DbConnection,
    tenant: &str,
    names: &[String],
    counts: &mut ErasureCounts,
) -> Result<(), RepositoryError> {
    let removed = diesel::delete(
        idempotency_keys::table
            .filter(idempotency_keys::tenant_id.eq(tenant))
            .filter(idempotency_keys::resource_name.eq_any(names)),
    )
    .execute(conn)
    .map_err(repository_error)?;
    add(counts, "idempotencyKeys", removed as i64);
    Ok(())
}

/// Adds `count` rows of `resource` (a kind the plan names) to `counts`.
pub(crate) fn add(counts: &mut ErasureCounts, resource: &str, count: i64) {
    *counts.entry(resource.to_owned()).or_default() += count;
}

/// Relationships, tags and external ids go with the entity's row (ON DELETE CASCADE):
/// these steps count them first.
fn relationships(
    conn: &mut DbConnection,
    target: &Target<'_>,
    counts: &mut ErasureCounts,
) -> Result<(), RepositoryError> {
    let found = entity_relationships::table
        .filter(entity_relationships::tenant_id.eq(target.tenant))
        .filter(
            entity_relationships::entity_id
                .eq(target.id)
                .or(entity_relationships::related_entity_id.eq(target.id)),
        )
        .count()
        .get_result::<i64>(conn)
        .map_err(repository_error)?;
    add(counts, "relationships", found);
    Ok(())
}

fn tags(
    conn: &mut DbConnection,
    target: &Target<'_>,
    counts: &mut ErasureCounts,
) -> Result<(), RepositoryError> {
    let found = entity_tags::table
        .filter(entity_tags::tenant_id.eq(target.tenant))
        .filter(entity_tags::entity_id.eq(target.id))
        .count()
        .get_result::<i64>(conn)
        .map_err(repository_error)?;
    add(counts, "tags", found);
    Ok(())
}

fn external_ids(
    conn: &mut DbConnection,
    target: &Target<'_>,
    counts: &mut ErasureCounts,
) -> Result<(), RepositoryError> {
    let found = entity_external_ids::table
        .filter(entity_external_ids::tenant_id.eq(target.tenant))
        .filter(entity_external_ids::entity_id.eq(target.id))
        .count()
        .get_result::<i64>(conn)
        .map_err(repository_error)?;
    add(counts, "externalIds", found);
    Ok(())
}

fn activity_logs(
    conn: &mut DbConnection,
    target: &Target<'_>,
    counts: &mut ErasureCounts,
) -> Result<(), RepositoryError> {
    let logs = crate::activity_logs::erase_naming_entity(conn, target.tenant, target.id, counts)?;
    add(counts, "activityLogs", logs);
    Ok(())
}

fn entity_events(
    conn: &mut DbConnection,
    target: &Target<'_>,
    counts: &mut ErasureCounts,
) -> Result<(), RepositoryError> {
    let removed = diesel::delete(
        events::table
            .filter(events::tenant_id.eq(target.tenant))
            .filter(events::entity_id.eq(target.id)),
    )
    .execute(conn)
    .map_err(repository_error)?;
    add(counts, "events", removed as i64);
    Ok(())
}

fn creation_key(
    conn: &mut DbConnection,
    target: &Target<'_>,
    counts: &mut ErasureCounts,
) -> Result<(), RepositoryError> {
    erase_creation_keys(conn, target.tenant, &[Entity::name_of(target.id)], counts)
}

/// The entity's row, under its guard. The guard is part of the DELETE itself: on
/// PostgreSQL a change that commits after the caller's check is seen here (the row is
/// re-read under its lock), and the whole erasure then rolls back.
fn entity_row(
    conn: &mut DbConnection,
    target: &Target<'_>,
    counts: &mut ErasureCounts,
) -> Result<(), RepositoryError> {
    let entity = entities::table
        .filter(entities::tenant_id.eq(target.tenant))
        .filter(entities::id.eq(target.id));
    let removed = match target.guard {
        EraseGuard::Always => diesel::delete(entity).execute(conn),
        EraseGuard::Revision(revision) => {
            diesel::delete(entity.filter(entities::revision.eq(revision))).execute(conn)
        }
        EraseGuard::PurgeDue(before) => {
            diesel::delete(entity.filter(entities::purge_time.lt(before.unix_micros())))
                .execute(conn)
        }
    }
    .map_err(repository_error)?;
    if removed == 0 {
        return Err(match target.guard {
            EraseGuard::Revision(_) => RepositoryError::Conflict,
            EraseGuard::Always | EraseGuard::PurgeDue(_) => RepositoryError::NotFound,
        });
    }
    add(counts, "entities", removed as i64);
    Ok(())
}

fn documents(
    conn: &mut DbConnection,
    target: &Target<'_>,
    counts: &mut ErasureCounts,
) -> Result<(), RepositoryError> {
    let documents =
        crate::documents::erase_entity_documents(conn, target.tenant, target.id, counts)?;
    add(counts, "documents", documents);
    Ok(())
}

fn notes(
    conn: &mut DbConnection,
    target: &Target<'_>,
    counts: &mut ErasureCounts,
) -> Result<(), RepositoryError> {
    let removed = crate::notes::erase_entity_notes(conn, target.tenant, target.id)?;
    add(counts, "notes", removed);
    Ok(())
}

fn files(
    conn: &mut DbConnection,
    target: &Target<'_>,
    counts: &mut ErasureCounts,
) -> Result<(), RepositoryError> {
    let files = crate::files::erase_entity_files(conn, target.tenant, target.id, counts)?;
    add(counts, "files", files);
    Ok(())
}

fn jobs(
    conn: &mut DbConnection,
    target: &Target<'_>,
    counts: &mut ErasureCounts,
) -> Result<(), RepositoryError> {
    let removed = crate::jobs::erase_entity_jobs(conn, target.tenant, target.id)?;
    add(counts, "jobs", removed);
    Ok(())
}

fn automation_executions(
    conn: &mut DbConnection,
    target: &Target<'_>,
    counts: &mut ErasureCounts,
) -> Result<(), RepositoryError> {
    let removed = crate::executions::erase_entity_executions(conn, target.tenant, target.id)?;
    add(counts, "automationExecutions", removed);
    Ok(())
}

fn screening_dismissals(
    conn: &mut DbConnection,
    target: &Target<'_>,
    counts: &mut ErasureCounts,
) -> Result<(), RepositoryError> {
    let removed = crate::dismissals::erase_entity_dismissals(conn, target.tenant, target.id)?;
    add(counts, "screeningDismissals", removed);
    Ok(())
}

fn verification_sessions(
    conn: &mut DbConnection,
    target: &Target<'_>,
    counts: &mut ErasureCounts,
) -> Result<(), RepositoryError> {
    let removed =
        crate::verification_sessions::erase_entity_sessions(conn, target.tenant, target.id)?;
    add(counts, "verificationSessions", removed);
    Ok(())
}

fn workspace_memberships(
    conn: &mut DbConnection,
    target: &Target<'_>,
    counts: &mut ErasureCounts,
) -> Result<(), RepositoryError> {
    let removed = crate::workspaces::remove_erased_entity(conn, target.tenant, target.id)?;
    add(counts, "workspaceMemberships", removed);
    Ok(())
}

fn alert_memberships(
    conn: &mut DbConnection,
    target: &Target<'_>,
    counts: &mut ErasureCounts,
) -> Result<(), RepositoryError> {
    let removed = crate::alerts::remove_erased_entity(conn, target.tenant, target.id)?;
    add(counts, "alertMemberships", removed);
    Ok(())
}

fn form_files(
    conn: &mut DbConnection,
    target: &Target<'_>,
    counts: &mut ErasureCounts,
) -> Result<(), RepositoryError> {
    let files = crate::files::erase_entity_form_files(conn, target.tenant, target.id, counts)?;
    add(counts, "formFiles", files);
    Ok(())
}

fn forms(
    conn: &mut DbConnection,
    target: &Target<'_>,
    counts: &mut ErasureCounts,
) -> Result<(), RepositoryError> {
    let unlinked = crate::forms::unlink_erased_entity(conn, target.tenant, target.id)?;
    add(counts, "forms", unlinked);
    Ok(())
}

fn webhook_deliveries(
    conn: &mut DbConnection,
    target: &Target<'_>,
    counts: &mut ErasureCounts,
) -> Result<(), RepositoryError> {
    let removed =
        crate::webhook_deliveries::erase_entity_deliveries(conn, target.tenant, target.id)?;
    add(counts, "webhookDeliveries", removed);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_runs_every_step_of_the_plan() {
        for planned in PLAN {
            assert!(step(planned.resource).is_some(), "{}", planned.resource);
        }
    }
}
