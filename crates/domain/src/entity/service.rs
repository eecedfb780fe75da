//! The entity use cases.

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use serde::Serialize;
use serde_json::{Value, json};

use super::erasure::AfterErasure;
use super::fields;
use super::model::{Entity, RiskStatus, VerificationStatus};
use super::relationship::{
    AddRelationshipRequest, EntityRelationship, MAX_RELATIONSHIP_NOTE, RelationshipRecord,
    RelationshipType, RemoveRelationshipRequest,
};
use super::repository::{EntityRepository, EraseGuard};
use super::validate::{MAX_TAGS, check_tag, validate_entity};

use crate::batch::{self, Collection};
use crate::error::{Code, Error, Result};
use crate::event::NewEvent;
use crate::housekeeping::{Purge, PurgeDue, Stored};
use crate::id::is_well_formed_id;
use crate::id::parse_request_id;
use crate::job::pep_sanction::{ScreenReason, ScreenTrigger};
use crate::lifecycle::{self, ServiceContext, create_key, create_once, deleted};
use crate::lifecycle::{StoreVersions, soft_delete_methods};
use crate::list::{ListRequest, ListResponse};
use crate::methods::UpdateMethod;
use crate::methods::{CreateMethod, DeclaredFields};
use crate::monitoring::{Rescreens, screened_fields_changed};
use crate::principal::{Principal, TenantId};
use crate::repository::RepositoryError;
use crate::resource::{parse_body, to_json};
use crate::time::Timestamp;

/// Entity names, for batch gets.
const ENTITIES: Collection = Collection {
    id: Entity::COLLECTION,
    pattern: "entities/{entity}",
    called: "an entity",
};
/// The method a batch create's idempotency key is bound to.
const BATCH_CREATE_METHOD: &str = "entities.batchCreate";
/// How often a change without an etag is retried when a concurrent change wins.
const CONCURRENT_RETRIES: usize = 3;

/// The receipt of a hard delete: what was erased, when, and the event that records it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ErasureReceipt {
    /// The erased entity's former name.
    pub entity: String,
    /// When it was erased.
    pub erase_time: Timestamp,
    /// How many records of each kind were erased.
    pub erased_counts: BTreeMap<String, i32>,
    /// The tenant-level event recording the erasure (`events/{event}`), which holds no
    /// personal data.
    pub event: String,
}

/// Everything the entity service needs.
pub struct EntityService {
    repository: Arc<dyn EntityRepository>,
    /// The clock, ids, paging and retention.
    context: ServiceContext,
    /// What runs after each erasure.
    after_erasure: Vec<Arc<dyn AfterErasure>>,
    /// Screens a monitored entity again when its names, date of birth or
    /// nationalities change (ongoing monitoring), once set.
    rescreens: Option<Arc<Rescreens>>,
}

impl EntityService {
    /// The service over its ports and its context. The context's retention is how long soft-deleted entities are
    /// kept before they are purged.
    pub fn new(repository: Arc<dyn EntityRepository>, context: ServiceContext) -> EntityService {
        EntityService {
            repository,
            context,
            after_erasure: Vec::new(),
            rescreens: None,
        }
    }

    /// The service with a monitored entity screened again, through `rescreens`, when
    /// an update changes its names, date of birth or nationalities.
    pub fn with_rescreens(mut self, rescreens: Arc<Rescreens>) -> EntityService {
        self.rescreens = Some(rescreens);
        self
    }

    /// The service with `follow_up` run after each erasure (`:hardDelete` and purge).
    pub fn with_after_erasure(mut self, follow_up: Arc<dyn AfterErasure>) -> EntityService {
        self.after_erasure.push(follow_up);
        self
    }

    /// Runs what follows an erasure in `tenant`.
    async fn erased(&self, tenant: &TenantId) {
        for follow_up in &self.after_erasure {
            follow_up.erased(tenant).await;
        }
    }
    /// The entity with `id`, deleted or not.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed id; NOT_FOUND.
    pub async fn get(&self, principal: &Principal, id: &str) -> Result<Entity> {
        lifecycle::read(id, self.repository.get(&principal.tenant, id)).await
    }

    /// Several entities by name, in the order asked, all or nothing (AIP-231).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for no names, too many, or a malformed one; NOT_FOUND naming
    /// the first missing entity.
    pub async fn batch_get(&self, principal: &Principal, names: &[String]) -> Result<Vec<Entity>> {
        let ids = batch::requested_ids(names, ENTITIES)?;
        let found = self
            .repository
            .get_many(&principal.tenant, &batch::distinct(&ids))
            .await
            .map_err(Error::from)?;
        batch::in_request_order(&ids, &found, Entity::id, ENTITIES)
    }

    /// Creates entities at once, all or none (AIP-233), from a `:batchCreate` body
    /// (`{requests: [{entity, entityId}]}`), once per `request_id`: see
    /// [`EntityService::create_many`].
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a bad request id or body, naming `requests[i]...`; what
    /// [`EntityService::create_many`] refuses.
    pub async fn batch_create(
        &self,
        principal: &Principal,
        body: Value,
        request_id: Option<&str>,
    ) -> Result<Vec<Entity>> {
        let request_id = request_id.map(parse_request_id).transpose()?;
        let requests = batch::create_requests(body, Self::BODY, Self::ID_PARAMETER)?;
        self.create_many(principal, requests, request_id).await
    }

    /// Creates the entities `requests` describe, all or none: each is read, checked
    /// and filled as Create does it, then all are stored in one transaction with their
    /// `entity.created` events, exactly as Create stores one. With a request id, a
    /// repeat of the same requests answers the entities the first call created, as
    /// they are now. The answer is in the order of `requests`.
    ///
    /// # Errors
    /// INVALID_ARGUMENT naming `requests[i]...` for what Create refuses in request
    /// `i`, or an id chosen twice (`DUPLICATE_ID`), or a request id reused with other
    /// requests; ALREADY_EXISTS naming `requests[i]` whose id is taken.
    pub async fn create_many(
        &self,
        principal: &Principal,
        requests: Vec<batch::CreateRequest>,
        request_id: Option<uuid::Uuid>,
    ) -> Result<Vec<Entity>> {
        batch::distinct_ids(&requests, Self::ID_PARAMETER)?;
        let fingerprinted = request_id.map(|_| {
            Value::Array(
                requests
                    .iter()
                    .map(|r| json!({ Self::BODY: r.body, Self::ID_PARAMETER: r.id }))
                    .collect(),
            )
        });
        let now = self.context.clock.now();
        let mut entities = Vec::with_capacity(requests.len());
        let mut events = Vec::with_capacity(requests.len());
        for (i, request) in requests.into_iter().enumerate() {
            let (entity, _) = self
                .new_resource(principal, request.body, request.id.as_deref(), now)
                .await
                .map_err(|e| e.within(&format!("requests[{i}]")))?;
            events.extend(self.created_events(&entity, principal, now)?);
            entities.push(entity);
        }
        let names: Vec<&str> = entities.iter().map(|e| e.name.as_str()).collect();
        let key = fingerprinted.and_then(|requests| {
            create_key(
                request_id,
                BATCH_CREATE_METHOD,
                &[("requests", &requests)],
                &names.join(","),
            )
        });
        let stored = create_once(ENTITIES.id, key.as_ref(), || {
            self.repository
                .create_many(&principal.tenant, &entities, key.as_ref(), &events)
        })
        .await;
        match stored {
            Ok(None) => Ok(entities),
            Ok(Some(first)) => {
                let names: Vec<String> = first.split(',').map(str::to_owned).collect();
                self.batch_get(principal, &names).await
            }
            Err(e) if e.code == Code::AlreadyExists => {
                Err(self.taken(principal, &entities).await.unwrap_or(e))
            }
            Err(e) => Err(e),
        }
    }

    /// ALREADY_EXISTS naming the first of `entities` whose id is stored, if any.
    async fn taken(&self, principal: &Principal, entities: &[Entity]) -> Option<Error> {
        let ids: Vec<String> = entities.iter().map(|e| e.id().to_owned()).collect();
        let stored = self
            .repository
            .get_many(&principal.tenant, &ids)
            .await
            .ok()?;
        entities
            .iter()
            .position(|e| stored.iter().any(|s| s.id() == e.id()))
            .map(|i| batch::already_exists(i, &entities[i].name))
    }

    /// One page of entities (AIP-132, AIP-158, AIP-160).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for bad list parameters.
    pub async fn list(
        &self,
        principal: &Principal,
        request: &ListRequest,
    ) -> Result<ListResponse<Entity>> {
        let (query, context) =
            self.context
                .paging
                .prepare(&fields::LIST, &principal.tenant, None, request)?;
        let page = self
            .repository
            .list(&principal.tenant, &query)
            .await
            .map_err(Error::from)?;
        Ok(self.context.paging.finish(context, page))
    }

    /// Erases an entity and everything it owns at once, returning a receipt.
    ///
    /// # Errors
    /// NOT_FOUND; FAILED_PRECONDITION when the entity is under legal hold.
    pub async fn hard_delete(&self, principal: &Principal, id: &str) -> Result<ErasureReceipt> {
        let current = self.get(principal, id).await?;
        if current.legal_hold {
            return Err(Error::failed_precondition(
                "LEGAL_HOLD",
                format!(
                    "'{}' is under legal hold and cannot be erased.",
                    current.name
                ),
            )
            .with_metadata("resource", current.name.clone()));
        }
        let now = self.context.clock.now();
        let event_id = self.context.ids.resource_id();
        // The entity's name may itself be personal data (a chosen id such as
        // `jane-doe`), so the record of the erasure names the collection and the
        // entity's random uid only.
        let event = NewEvent::new(
            event_id.clone(),
            "entity.hard_deleted",
            "entities",
            principal,
            now,
        )
        .with_field("erasedUid", json!(current.uid));
        let counts = self
            .repository
            .hard_delete(
                &principal.tenant,
                id,
                EraseGuard::Revision(current.revision),
                &[event],
            )
            .await
            .map_err(|e| e.for_resource(&current.name))?;
        self.erased(&principal.tenant).await;
        Ok(ErasureReceipt {
            entity: current.name,
            erase_time: now,
            erased_counts: counts
                .into_iter()
                .map(|(kind, n)| (kind, i32::try_from(n).unwrap_or(i32::MAX)))
                .collect(),
            event: format!("events/{event_id}"),
        })
    }

    /// Adds a tag; adding one the entity has changes nothing.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a bad tag; NOT_FOUND; FAILED_PRECONDITION when the entity
    /// is deleted or has the most tags allowed.
    pub async fn add_tag(&self, principal: &Principal, id: &str, tag: &str) -> Result<Entity> {
        check_tag(tag).map_err(|problem| Error::invalid_field("tag", "INVALID_TAG", problem))?;
        self.retry_concurrent(|| async {
            let current = self.get(principal, id).await?;
            if current.is_deleted() {
                return Err(deleted(&current.name));
            }
            if current.tags.iter().any(|t| t == tag) {
                return Ok(current);
            }
            if current.tags.len() >= MAX_TAGS {
                return Err(Error::failed_precondition(
                    "TOO_MANY_TAGS",
                    format!(
                        "'{}' already has the most tags allowed ({MAX_TAGS}).",
                        current.name
                    ),
                ));
            }
            let mut tagged = current.clone();
            tagged.tags.push(tag.to_owned());
            self.save(
                principal,
                &current,
                tagged,
                "entity.tag_added",
                self.context.clock.now(),
            )
            .await
        })
        .await
    }

    /// Removes a tag; removing one the entity lacks changes nothing.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a bad tag; NOT_FOUND; FAILED_PRECONDITION when the entity
    /// is deleted.
    pub async fn remove_tag(&self, principal: &Principal, id: &str, tag: &str) -> Result<Entity> {
        check_tag(tag).map_err(|problem| Error::invalid_field("tag", "INVALID_TAG", problem))?;
        self.retry_concurrent(|| async {
            let current = self.get(principal, id).await?;
            if current.is_deleted() {
                return Err(deleted(&current.name));
            }
            if !current.tags.iter().any(|t| t == tag) {
                return Ok(current);
            }
            let mut untagged = current.clone();
            untagged.tags.retain(|t| t != tag);
            self.save(
                principal,
                &current,
                untagged,
                "entity.tag_removed",
                self.context.clock.now(),
            )
            .await
        })
        .await
    }

    /// Relates the entity to another of the same tenant.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a bad request (missing type, self-relationship, bad
    /// percentage); NOT_FOUND when either entity is missing; FAILED_PRECONDITION when
    /// either is deleted; ALREADY_EXISTS for a duplicate.
    pub async fn add_relationship(
        &self,
        principal: &Principal,
        id: &str,
        body: Value,
    ) -> Result<EntityRelationship> {
        let request: AddRelationshipRequest = parse_body(body, "relationship")?;
        let related = relationship_target(&request.related_entity, request.relationship_type, id)?;
        if request
            .ownership_percentage
            .is_some_and(|p| !(p > 0.0 && p <= 100.0))
        {
            return Err(Error::invalid_field(
                "ownershipPercentage",
                "OUT_OF_RANGE",
                "must be more than 0 and at most 100",
            ));
        }
        if request.note.chars().count() > MAX_RELATIONSHIP_NOTE {
            return Err(Error::invalid_field(
                "note",
                "TOO_LONG",
                format!("must be at most {MAX_RELATIONSHIP_NOTE} characters"),
            ));
        }
        let entity = self.get(principal, id).await?;
        if entity.is_deleted() {
            return Err(deleted(&entity.name));
        }
        let other = self.related(principal, &related).await?;
        let now = self.context.clock.now();
        let record = RelationshipRecord {
            id: self.context.ids.resource_id(),
            entity_id: id.to_owned(),
            related_entity_id: related.clone(),
            relationship_type: request.relationship_type,
            ownership_percentage: request.ownership_percentage,
            note: request.note,
            create_time: now,
        };
        let view = record.view_from(id);
        let events =
            self.relationship_events("entity.relationship_added", principal, &record, now)?;
        self.repository
            .add_relationship(&principal.tenant, &record, &events)
            .await
            .map_err(|e| match e {
                RepositoryError::AlreadyExists => Error::new(
                    Code::AlreadyExists,
                    "RELATIONSHIP_ALREADY_EXISTS",
                    format!(
                        "'{}' and '{}' already have a {} relationship.",
                        entity.name, other.name, record.relationship_type
                    ),
                )
                .with_metadata("entity", entity.name.clone())
                .with_metadata("relatedEntity", other.name.clone()),
                other_error => other_error.for_resource(&other.name),
            })?;
        Ok(view)
    }

    /// Removes a relationship, from whichever side it was added.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a bad request; NOT_FOUND when the entity or the
    /// relationship is missing.
    pub async fn remove_relationship(
        &self,
        principal: &Principal,
        id: &str,
        body: Value,
    ) -> Result<EntityRelationship> {
        let request: RemoveRelationshipRequest = parse_body(body, "relationship")?;
        let related = relationship_target(&request.related_entity, request.relationship_type, id)?;
        let entity = self.get(principal, id).await?;
        let now = self.context.clock.now();
        let probe = RelationshipRecord {
            id: String::new(),
            entity_id: id.to_owned(),
            related_entity_id: related.clone(),
            relationship_type: request.relationship_type,
            ownership_percentage: None,
            note: String::new(),
            create_time: now,
        };
        let events =
            self.relationship_events("entity.relationship_removed", principal, &probe, now)?;
        let removed = self
            .repository
            .remove_relationship(
                &principal.tenant,
                id,
                &related,
                request.relationship_type,
                &events,
            )
            .await
            .map_err(|e| match e {
                RepositoryError::NotFound => Error::new(
                    Code::NotFound,
                    "RELATIONSHIP_NOT_FOUND",
                    format!(
                        "'{}' has no {} relationship with 'entities/{related}'.",
                        entity.name, request.relationship_type
                    ),
                )
                .with_metadata("entity", entity.name.clone())
                .with_metadata("relatedEntity", format!("entities/{related}")),
                other => other.for_resource(&entity.name),
            })?;
        Ok(removed.view_from(id))
    }

    /// One page of the relationships the entity takes part in.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for bad list parameters; NOT_FOUND.
    pub async fn list_relationships(
        &self,
        principal: &Principal,
        id: &str,
        request: &ListRequest,
    ) -> Result<ListResponse<EntityRelationship>> {
        let entity = self.get(principal, id).await?;
        let (query, context) = self.context.paging.prepare(
            &fields::RELATIONSHIP_LIST,
            &principal.tenant,
            Some(&entity.name),
            request,
        )?;
        let page = self
            .repository
            .list_relationships(&principal.tenant, id, &query)
            .await
            .map_err(Error::from)?;
        let response = self.context.paging.finish(context, page);
        Ok(ListResponse {
            items: response.items.iter().map(|r| r.view_from(id)).collect(),
            next_page_token: response.next_page_token,
            total_size: response.total_size,
        })
    }

    fn event(
        &self,
        event_type: &str,
        resource: &str,
        principal: &Principal,
        now: Timestamp,
    ) -> NewEvent {
        NewEvent::new(
            self.context.ids.resource_id(),
            event_type,
            resource,
            principal,
            now,
        )
    }

    /// One event per side of a relationship change.
    fn relationship_events(
        &self,
        event_type: &str,
        principal: &Principal,
        record: &RelationshipRecord,
        now: Timestamp,
    ) -> Result<Vec<NewEvent>> {
        [&record.entity_id, &record.related_entity_id]
            .into_iter()
            .map(|side| {
                let view = to_json(&record.view_from(side))?;
                Ok(self
                    .event(event_type, &Entity::name_of(side), principal, now)
                    .for_entity(side)
                    .with_changes(None, Some(&json!({ "relationship": view }))))
            })
            .collect()
    }

    /// The related entity, which must exist and not be deleted.
    async fn related(&self, principal: &Principal, id: &str) -> Result<Entity> {
        let related = self.get(principal, id).await.map_err(|e| {
            if e.code == Code::NotFound {
                Error::invalid_field(
                    "relatedEntity",
                    "RELATED_ENTITY_NOT_FOUND",
                    format!("'entities/{id}' does not exist"),
                )
                .with_code(Code::NotFound)
            } else {
                e
            }
        })?;
        if related.is_deleted() {
            return Err(Error::failed_precondition(
                "RELATED_ENTITY_DELETED",
                format!("'{}' is deleted; undelete it first.", related.name),
            )
            .with_metadata("relatedEntity", related.name.clone()));
        }
        Ok(related)
    }

    /// Runs a read-modify-write again when a concurrent change won the race (only
    /// for changes without a client etag, which cannot go stale).
    async fn retry_concurrent<T, F, Fut>(&self, mut attempt: F) -> Result<T>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<T>>,
    {
        let mut tries = 0;
        loop {
            match attempt().await {
                Err(e) if e.reason == "CONCURRENT_MODIFICATION" && tries < CONCURRENT_RETRIES => {
                    tries += 1
                }
                other => return other,
            }
        }
    }
}
/// The id of the other entity of a relationship request, which must name an entity
/// other than `id`, with a relationship type.
fn relationship_target(
    name: &str,
    relationship_type: RelationshipType,
    id: &str,
) -> Result<String> {
    if relationship_type.is_unspecified() {
        return Err(Error::invalid_field(
            "relationshipType",
            "REQUIRED",
            "is required",
        ));
    }
    let related = name
        .strip_prefix("entities/")
        .filter(|r| is_well_formed_id(r))
        .ok_or_else(|| {
            Error::invalid_field(
                "relatedEntity",
                "INVALID_NAME",
                format!("'{name}' is not an entity name (entities/{{entity}})"),
            )
        })?;
    if related == id {
        return Err(Error::invalid_field(
            "relatedEntity",
            "SELF_RELATIONSHIP",
            "an entity cannot be related to itself",
        ));
    }
    Ok(related.to_owned())
}
#[async_trait]
impl Purge for EntityService {
    fn collection(&self) -> &'static str {
        "entities"
    }

    async fn find_purge_due(&self, now: Timestamp, limit: u32) -> Stored<Vec<(TenantId, String)>> {
        self.repository.find_purge_due(now, limit).await
    }

    /// Erases the entity as `:hardDelete` does (the erasure plan), with a tenant-level
    /// `entity.purged` event.
    async fn purge_one(&self, system: &Principal, due: &PurgeDue) -> Stored<()> {
        let event = self.purged_event(system, due);
        self.repository
            .hard_delete(
                &due.tenant,
                &due.id,
                EraseGuard::PurgeDue(due.now),
                &[event],
            )
            .await?;
        self.erased(&due.tenant).await;
        Ok(())
    }
}

#[async_trait]
impl UpdateMethod for EntityService {
    async fn admit_update(
        &self,
        _principal: &Principal,
        _current: &Entity,
        updated: &mut Entity,
    ) -> Result<()> {
        validate_entity(updated, self.context.clock.now().datetime().date())
    }

    /// The latest rating no longer reflects the entity: say so until it is rated
    /// again.
    fn on_change(&self, _current: &Entity, updated: &mut Entity) {
        if let Some(details) = updated.risk_details.as_mut() {
            details.risk_status = RiskStatus::Outdated;
        }
    }

    /// A monitored entity whose names, date of birth or nationalities changed is
    /// screened again: a run, with the reason ENTITY_CHANGE, of a screening job rics
    /// creates, once per stored revision.
    async fn after_change(
        &self,
        principal: &Principal,
        current: &Entity,
        saved: &Entity,
    ) -> Result<()> {
        let Some(rescreens) = &self.rescreens else {
            return Ok(());
        };
        if !saved.monitoring.is_on() || !screened_fields_changed(current, saved) {
            return Ok(());
        }
        let trigger = ScreenTrigger {
            reason: ScreenReason::EntityChange,
            records: Vec::new(),
        };
        let key = format!("entity-change/{}/{}", saved.id(), saved.revision);
        rescreens
            .start(&principal.tenant, saved.id(), &trigger, &key)
            .await
            .map(|_| ())
    }
}

#[async_trait]
impl CreateMethod for EntityService {
    const ID_PARAMETER: &'static str = "entityId";

    async fn admit_new(
        &self,
        _principal: &Principal,
        entity: &mut Entity,
        now: Timestamp,
    ) -> Result<()> {
        validate_entity(entity, now.datetime().date())
    }

    /// A new entity is UNVERIFIED until a document of it is verified.
    fn fill_new(&self, _principal: &Principal, entity: &mut Entity, _now: Timestamp) {
        entity.verification_status = VerificationStatus::Unverified;
    }
}

// Delete and undelete as every soft-deletable resource has them.
soft_delete_methods!(
    EntityService,
    Entity,
    "entity",
    fields = fields::TABLE as "entity",
    store = repository.update
);
