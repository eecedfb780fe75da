//! The event routes: read-only, since events are append-only.

use rics_domain::event::Event;
use rics_domain::principal::Scope;

resource_routes! {
    service: events, resource: Event, tag: "events",
    id: ("event" = String, Path, description = "Event id");

    /// A tenant-level event (an entity's events are read under the entity).
    get_by get "/v1alpha/events/{event}", Some(Scope::Read),
        params(("event" = String, Path, description = "Event id"), ("name" = Option<String>, Query, description = "Redundant resource name; must match the path")),
        names [&format!("events/{event}")] => Event,
        |caller, state, event| state.events.get(caller, &event);
    /// The events of an entity (soft-deleted entities included), oldest first.
    list_by list "/v1alpha/entities/{entity}/events", Some(Scope::Read),
        lists rics_domain::event::service::EVENT_LIST => ListEventsResponse,
        params(("entity" = String, Path, description = "Entity id"),
            ("pageSize" = Option<i32>, Query, description = "Default 10, at most 100 (larger values are coerced to 100)"),
            ("pageToken" = Option<String>, Query, description = "Token from a previous response"),
            ("skip" = Option<i32>, Query, description = "Items to skip"),
            ("filter" = Option<String>, Query, description = "AIP-160 over eventType and createTime"),
            ("orderBy" = Option<String>, Query, description = "createTime, optionally desc")),
        |caller, state, request, entity| state.events.list_for_entity(caller, &entity, request);
    /// One event of an entity.
    get_by get_for_entity "/v1alpha/entities/{entity}/events/{event}", Some(Scope::Read),
        params(("entity" = String, Path, description = "Entity id"), ("event" = String, Path, description = "Event id"),
            ("name" = Option<String>, Query, description = "Redundant resource name; must match the path")),
        names [&format!("entities/{entity}/events/{event}")] => Event,
        |caller, state, entity, event| state.events.get_for_entity(caller, &entity, &event);
}

list_response! {
    /// A page of an entity's events.
    ListEventsResponse {
        /// The events, oldest first unless `orderBy` says otherwise.
        events: Event,
        /// How many events match (always an exact count today).
        total_size,
    }
}
