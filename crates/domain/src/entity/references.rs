//! Checking the entities another resource names, in a repeated field (a workspace's or
//! an alert's `entities`) or a single one (a document's `entity`): the same rules,
//! errors and field paths for every resource.

use std::collections::BTreeSet;

use super::model::Entity;
use super::repository::EntityRepository;
use crate::error::{Code, Error, Result};
use crate::id::is_well_formed_id;
use crate::lifecycle::{Referred, referred_deleted};
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
        match entity_id(name) {
            None => v.add(element, "INVALID_NAME", not_an_entity_name(name)),
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
    let found = entities.presence(tenant, &ids).await.map_err(Error::from)?;
    for (i, id) in &added {
        live(
            &format!("{field}[{i}]"),
            &format!("entities/{id}"),
            found.iter().find(|e| e.id == *id).map(|e| e.deleted),
        )?;
    }
    Ok(())
}

/// Checks the entity name of the single field `field` (`document.entity`):
/// well-formed (`entities/{entity}`), existing in `tenant` and live.
///
/// # Errors
/// INVALID_ARGUMENT (`INVALID_NAME` on `field`) for a malformed name; NOT_FOUND
/// (`ENTITY_NOT_FOUND`, with a violation on `field`) for an entity that does not exist
/// in the tenant; FAILED_PRECONDITION (`ENTITY_DELETED`) for a soft-deleted one;
/// UNAVAILABLE or INTERNAL when storage fails.
pub async fn check_named_entity(
    entities: &dyn EntityRepository,
    tenant: &TenantId,
    field: &str,
    name: &str,
) -> Result<()> {
    let Some(id) = entity_id(name) else {
        return Err(Error::invalid_field(
            field,
            "INVALID_NAME",
            not_an_entity_name(name),
        ));
    };
    let found = entities.get(tenant, id).await.map_err(Error::from)?;
    live(field, name, found.as_ref().map(Entity::is_deleted))
}

/// The id of a well-formed entity name.
fn entity_id(name: &str) -> Option<&str> {
    name.strip_prefix("entities/")
        .filter(|id| is_well_formed_id(id))
}

fn not_an_entity_name(name: &str) -> String {
    format!("'{name}' is not an entity name (entities/{{entity}})")
}

/// The verdict on the entity `name` named in `field`: whether it is `deleted`, `None`
/// when the tenant has no such entity.
fn live(field: &str, name: &str, deleted: Option<bool>) -> Result<()> {
    match deleted {
        None => Err(Error::invalid_field(
            field,
            "ENTITY_NOT_FOUND",
            format!("'{name}' does not exist"),
        )
        .with_code(Code::NotFound)),
        Some(true) => Err(referred_deleted(Referred::Entity, name)),
        Some(false) => Ok(()),
    }
}
