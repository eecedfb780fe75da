//! Reading events: one by name, or an entity's, page by page.

use std::sync::{Arc, LazyLock};

use rics_aip::filter::{FieldType, FilterSchema};

use super::model::{Event, EventRecord};
use super::ports::EventRepository;
use crate::entity::repository::EntityRepository;
use crate::error::{Error, Result};
use crate::lifecycle::{self, ServiceContext};
use crate::list::{ListRequest, ListResponse, ListSpec, SortBy, SortKey};
use crate::principal::Principal;

/// What an entity's event list may filter on.
static EVENT_FILTER: LazyLock<FilterSchema> = LazyLock::new(|| {
    FilterSchema::new()
        .field("eventType", FieldType::String)
        .field("createTime", FieldType::Timestamp)
});

/// How an entity's events are listed: 10 per page by default, at most 100 (larger
/// sizes coerced), oldest first (the order things happened).
pub static EVENT_LIST: LazyLock<ListSpec> = LazyLock::new(|| ListSpec {
    method: "entities.events.list",
    default_page_size: 10,
    max_page_size: 100,
    filter: &EVENT_FILTER,
    sortable: &["createTime"],
    default_order: &[SortKey {
        by: SortBy::Field("createTime"),
        descending: false,
    }],
    soft_delete: false,
});

/// Event use cases.
pub struct EventService {
    events: Arc<dyn EventRepository>,
    entities: Arc<dyn EntityRepository>,
    /// The clock, ids, paging and retention.
    context: ServiceContext,
}

impl EventService {
    /// The service over its ports and its context.
    pub fn new(
        events: Arc<dyn EventRepository>,
        entities: Arc<dyn EntityRepository>,
        context: ServiceContext,
    ) -> EventService {
        EventService {
            events,
            entities,
            context,
        }
    }

    /// The tenant-level event `events/{id}`.
    ///
    /// # Errors
    /// NOT_FOUND when the caller's tenant has no tenant-level event `id` (an entity's
    /// event is read under its entity's name); UNAVAILABLE when storage fails.
    pub async fn get(&self, principal: &Principal, id: &str) -> Result<Event> {
        self.read(principal, &format!("events/{id}"), id, None)
            .await
    }

    /// The event `entities/{entity_id}/events/{id}`.
    ///
    /// # Errors
    /// NOT_FOUND when the entity has no such event; UNAVAILABLE when storage fails.
    pub async fn get_for_entity(
        &self,
        principal: &Principal,
        entity_id: &str,
        id: &str,
    ) -> Result<Event> {
        let name = format!("entities/{entity_id}/events/{id}");
        self.read(principal, &name, id, Some(entity_id)).await
    }

    /// A page of the entity's events. The entity may be soft-deleted: its history
    /// stays readable until it is purged.
    ///
    /// # Errors
    /// NOT_FOUND for an unknown entity; INVALID_ARGUMENT for bad paging, filter or
    /// order; UNAVAILABLE when storage fails.
    pub async fn list_for_entity(
        &self,
        principal: &Principal,
        entity_id: &str,
        request: &ListRequest,
    ) -> Result<ListResponse<Event>> {
        let tenant = &principal.tenant;
        let entity_name = format!("entities/{entity_id}");
        lifecycle::read_named(&entity_name, self.entities.get(tenant, entity_id)).await?;
        self.context
            .paging
            .list_with(
                &EVENT_LIST,
                tenant,
                Some(&entity_name),
                request,
                async |query| {
                    let page = self
                        .events
                        .list_for_entity(tenant, entity_id, query)
                        .await?;
                    Ok(page.map(EventRecord::into_event))
                },
            )
            .await
    }

    /// The event `id`, named `name`, when it belongs to the entity `entity_id` (or,
    /// with `None`, to the tenant).
    async fn read(
        &self,
        principal: &Principal,
        name: &str,
        id: &str,
        entity_id: Option<&str>,
    ) -> Result<Event> {
        let record = lifecycle::read_named(name, self.events.get(&principal.tenant, id)).await?;
        if record.entity_id.as_deref() == entity_id {
            Ok(record.into_event())
        } else {
            Err(Error::not_found(name))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use mockall::predicate::eq;

    use super::*;
    use crate::entity::repository::MockEntityRepository;
    use crate::event::ports::MockEventRepository;
    use crate::id::MockIdGenerator;
    use crate::list::Paging;
    use crate::principal::TenantId;
    use crate::time::{MockClock, Timestamp};

    fn principal() -> Principal {
        Principal {
            tenant: TenantId::new("t1"),
            subject: "alice".into(),
            display_name: "Alice".into(),
            scopes: Default::default(),
        }
    }

    fn record(id: &str, entity: Option<&str>) -> EventRecord {
        EventRecord {
            id: id.into(),
            entity_id: entity.map(str::to_owned),
            event_type: "entity.created".into(),
            payload: "{}".into(),
            creator: "alice".into(),
            create_time: Timestamp::from_unix_micros(1).unwrap(),
        }
    }

    fn service(events: MockEventRepository, entities: MockEntityRepository) -> EventService {
        let mut clock = MockClock::new();
        clock
            .expect_now()
            .returning(|| Timestamp::from_unix_micros(1_000_000).unwrap());
        let clock = Arc::new(clock);
        let paging = Arc::new(Paging::new(&[3; 32], clock.clone()).unwrap());
        let context = ServiceContext {
            clock,
            ids: Arc::new(MockIdGenerator::new()),
            paging,
            retention: Duration::from_secs(86_400),
        };
        EventService::new(Arc::new(events), Arc::new(entities), context)
    }

    #[tokio::test]
    async fn each_event_is_read_under_its_own_name_only() {
        let mut events = MockEventRepository::new();
        events
            .expect_get()
            .with(eq(TenantId::new("t1")), eq("tenant-level"))
            .returning(|_, _| Ok(Some(record("tenant-level", None))));
        events
            .expect_get()
            .with(eq(TenantId::new("t1")), eq("about-jane"))
            .returning(|_, _| Ok(Some(record("about-jane", Some("jane")))));
        let service = service(events, MockEntityRepository::new());
        let p = principal();
        assert_eq!(
            service.get(&p, "tenant-level").await.unwrap().name,
            "events/tenant-level"
        );
        assert_eq!(
            service.get(&p, "about-jane").await.unwrap_err().code,
            crate::Code::NotFound
        );
        assert_eq!(
            service
                .get_for_entity(&p, "jane", "about-jane")
                .await
                .unwrap()
                .name,
            "entities/jane/events/about-jane"
        );
        for (entity, id) in [("john", "about-jane"), ("jane", "tenant-level")] {
            let error = service.get_for_entity(&p, entity, id).await.unwrap_err();
            assert_eq!(error.code, crate::Code::NotFound, "{entity}/{id}");
            assert!(
                error
                    .message
                    .contains(&format!("entities/{entity}/events/{id}"))
            );
        }
    }

    #[tokio::test]
    async fn an_unknown_entity_has_no_event_list() {
        let mut entities = MockEntityRepository::new();
        entities.expect_get().returning(|_, _| Ok(None));
        let service = service(MockEventRepository::new(), entities);
        let error = service
            .list_for_entity(&principal(), "nobody", &ListRequest::default())
            .await
            .unwrap_err();
        assert_eq!(error.code, crate::Code::NotFound);
    }
}
