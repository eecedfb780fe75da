//! The output-only fields that jobs set on an entity (`screeningStatus`,
//! `verificationStatus`, `riskDetails`), written under optimistic concurrency: a write
//! that loses a race with a user's update reads the entity again and re-applies the
//! change, so neither side's change is lost. A new screening or verification status
//! makes the entity's rating `OUTDATED`, as a user's change does.

use std::sync::Arc;

use serde_json::{Value, json};

use super::model::{Entity, RiskStatus};
use super::repository::EntityRepository;
use crate::error::{Error, Result};
use crate::event::NewEvent;
use crate::id::IdGenerator;
use crate::job::model::worker_principal;
use crate::principal::TenantId;
use crate::repository::RepositoryError;
use crate::resource;
use crate::time::Clock;

/// How often a write is retried when the entity changes meanwhile.
const RETRIES: usize = 5;
/// The output field ratings write.
const RISK_DETAILS: &str = "riskDetails";

/// Writes output-only fields of entities for rics's own workers.
#[derive(derive_new::new)]
pub struct OutputWriter {
    entities: Arc<dyn EntityRepository>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
}

/// Why an output field changed: the job or record that changed it, named in the
/// `entity.updated` event (for example `("job", "entities/e/…Jobs/j")`).
pub type Cause<'a> = (&'a str, Value);

impl OutputWriter {
    /// Applies `change` to the entity `id`, starting from `read` (the entity as the
    /// caller last saw it) and from a fresh read after a lost race. `change` returns
    /// the entity with the new value of `field` (a top-level JSON field), or `None`
    /// when the entity already has it (nothing is written then). Returns the entity
    /// as stored.
    ///
    /// # Errors
    /// NOT_FOUND when the entity is gone; ABORTED when it kept changing; what the
    /// store fails with.
    pub async fn write<F>(
        &self,
        tenant: &TenantId,
        id: &str,
        read: Entity,
        field: &str,
        cause: Cause<'_>,
        change: F,
    ) -> Result<Entity>
    where
        F: Fn(&Entity) -> Option<Entity> + Send + Sync,
    {
        let name = format!("entities/{id}");
        let mut known = Some(read);
        for _ in 0..RETRIES {
            let entity = match known.take() {
                Some(entity) => entity,
                None => self
                    .entities
                    .get(tenant, id)
                    .await?
                    .ok_or_else(|| Error::not_found(&name))?,
            };
            let Some((changed, event)) = self.prepare(tenant, &entity, field, &cause, &change)?
            else {
                return Ok(entity);
            };
            match self
                .entities
                .update(tenant, &changed, entity.revision, &[event])
                .await
            {
                Ok(()) => return Ok(changed),
                Err(RepositoryError::Conflict) => {}
                Err(e) => return Err(e.for_resource(&name)),
            }
        }
        Err(Error::concurrent_modification(&name))
    }

    /// The entity `id` of `tenant` as it is stored now.
    ///
    /// # Errors
    /// NOT_FOUND when it is gone; what the store fails with.
    pub async fn current(&self, tenant: &TenantId, id: &str) -> Result<Entity> {
        let name = format!("entities/{id}");
        self.entities
            .get(tenant, id)
            .await
            .map_err(|e| e.for_resource(&name))?
            .ok_or_else(|| Error::not_found(&name))
    }

    /// The entity `entity` (of `tenant`) as `change` leaves it, with its next revision,
    /// and the `entity.updated` event that records the change of `field` with its
    /// `cause`; `None` when `change` leaves it as it is. Nothing is written: a job run
    /// writes it with its end, expecting `entity`'s revision.
    ///
    /// # Errors
    /// INTERNAL when the entity does not convert to JSON.
    pub fn prepare(
        &self,
        tenant: &TenantId,
        entity: &Entity,
        field: &str,
        cause: &Cause<'_>,
        change: impl Fn(&Entity) -> Option<Entity>,
    ) -> Result<Option<(Entity, NewEvent)>> {
        let Some(mut changed) = change(entity) else {
            return Ok(None);
        };
        // A rating read the screening and verification statuses: a new one leaves
        // it outdated until the next rating.
        if field != RISK_DETAILS
            && let Some(details) = changed.risk_details.as_mut()
        {
            details.risk_status = RiskStatus::Outdated;
        }
        let now = self.clock.now();
        changed.revision = entity.revision + 1;
        changed.update_time = Some(now);
        changed.etag = resource::etag(&changed.uid, changed.revision);
        let before = field_of(entity, field)?;
        let after = field_of(&changed, field)?;
        let event = NewEvent::new(
            self.ids.resource_id(),
            "entity.updated",
            &format!("entities/{}", entity.id()),
            &worker_principal(tenant),
            now,
        )
        .for_entity(entity.id())
        .with_field(cause.0, cause.1.clone())
        .with_changes(Some(&before), Some(&after));
        Ok(Some((changed, event)))
    }
}

/// `{field: value}` of the entity's JSON (`{field: null}` when unset).
fn field_of(entity: &Entity, field: &str) -> Result<Value> {
    let json = serde_json::to_value(entity).map_err(|e| Error::internal(e.to_string()))?;
    Ok(json!({ field: json.get(field).cloned().unwrap_or(Value::Null) }))
}
