//! Checking the entities another resource names in a repeated field (a workspace's or
//! an alert's `entities`): the same rules, errors and field paths for every resource.

use std::collections::BTreeSet;

use super::repository::EntityRepository;
use crate::error::{Code, Error, Result};
use crate::id::is_well_formed_id;
use crate::principal::TenantId;
use crate::validate::Violations;

/// Checks the entity names of the repeated field `field` (`workspace.entities`): each
/// well-formed (`entities/{entity}`), none listed twice, at most `max`; those not in
/// `kept` (already named before a change) must exist in `tenant` and be live.
///
/// # Errors
/// INVALID_ARGUMENT with a violation per bad name (`field[i]`) or on `field` for too
/// many; NOT_FOUND (`ENTITY_NOT_FOUND`, with a violation on `field[i]`) for an entity
/// that does not exist in the tenant; FAILED_PRECONDITION (`ENTITY_DELETED`) for a
/// soft-deleted one; UNAVAILABLE or INTERNAL when storage fails.
pub async fn check_named_entities(
    entities: &dyn EntityRepository,
    tenant: &TenantId,
    field: &str,
    names: &[String],
    kept: &[String],
    max: usize,
) -> Result<()> {
    let mut v = Violations::new();
    v.max_items(field, names, max);
    let mut seen = BTreeSet::new();
    let mut added = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let element = format!("{field}[{i}]");
        match name
            .strip_prefix("entities/")
            .filter(|id| is_well_formed_id(id))
        {
            None => v.add(
                element,
                "INVALID_NAME",
                format!("'{name}' is not an entity name (entities/{{entity}})"),
            ),
            Some(_) if !seen.insert(name.as_str()) => {
                v.add(
                    element,
                    "DUPLICATE_ENTITY",
                    format!("'{name}' is listed twice"),
                );
            }
            Some(id) if !kept.contains(name) => added.push((i, id.to_owned())),
            Some(_) => {}
        }
    }
    if !v.is_empty() {
        return Err(Error::invalid_fields(v.into_vec()));
    }
    if added.is_empty() {
        return Ok(());
    }
    let ids: Vec<String> = added.iter().map(|(_, id)| id.clone()).collect();
    let found = entities.get_many(tenant, &ids).await.map_err(Error::from)?;
    for (i, id) in &added {
        let name = format!("entities/{id}");
        match found.iter().find(|e| e.id() == id) {
            None => {
                return Err(Error::invalid_field(
                    format!("{field}[{i}]"),
                    "ENTITY_NOT_FOUND",
                    format!("'{name}' does not exist"),
                )
                .with_code(Code::NotFound));
            }
            Some(entity) if entity.is_deleted() => {
                return Err(Error::failed_precondition(
                    "ENTITY_DELETED",
                    format!("'{name}' is deleted; undelete it first."),
                )
                .with_metadata("entity", name));
            }
            Some(_) => {}
        }
    }
    Ok(())
}
