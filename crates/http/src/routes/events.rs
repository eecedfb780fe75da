//! The event routes: read-only, since events are append-only.

use actix_web::HttpRequest;
use actix_web::web::{Data, Path};
use rics_domain::event::Event;
use rics_domain::principal::Scope;

use super::{Response, check_name_param, ok, standard};
use crate::error::ErrorEnvelope;
use crate::extract::{Caller, QueryParams};
use crate::state::ApiState;

route_table! {
    GET "/v1alpha/events/{event}" => get, Some(Scope::Read);
    GET "/v1alpha/entities/{entity}/events" => list, Some(Scope::Read), lists rics_domain::event::service::EVENT_LIST;
    GET "/v1alpha/entities/{entity}/events/{event}" => get_for_entity, Some(Scope::Read);
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

/// A tenant-level event (an entity's events are read under the entity).
#[utoipa::path(get, path = "/v1alpha/events/{event}", tag = "events",
    params(("event" = String, Path, description = "Event id"), ("name" = Option<String>, Query, description = "Redundant resource name; must match the path")),
    responses((status = 200, body = Event), (status = 404, body = ErrorEnvelope)))]
pub async fn get(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    check_name_param(&mut query, &[&format!("events/{path}")])?;
    query.finish()?;
    ok(&state.events.get(&caller.0, &path).await?)
}

/// One event of an entity.
#[utoipa::path(get, path = "/v1alpha/entities/{entity}/events/{event}", tag = "events",
    params(("entity" = String, Path, description = "Entity id"), ("event" = String, Path, description = "Event id"),
        ("name" = Option<String>, Query, description = "Redundant resource name; must match the path")),
    responses((status = 200, body = Event), (status = 404, body = ErrorEnvelope)))]
pub async fn get_for_entity(
    caller: Caller,
    req: HttpRequest,
    path: Path<(String, String)>,
    state: Data<ApiState>,
) -> Response {
    let (entity, event) = path.into_inner();
    let mut query = QueryParams::parse(req.query_string())?;
    check_name_param(&mut query, &[&format!("entities/{entity}/events/{event}")])?;
    query.finish()?;
    ok(&state
        .events
        .get_for_entity(&caller.0, &entity, &event)
        .await?)
}

/// The events of an entity (soft-deleted entities included), oldest first.
#[utoipa::path(get, path = "/v1alpha/entities/{entity}/events", tag = "events",
    params(("entity" = String, Path, description = "Entity id"),
        ("pageSize" = Option<i32>, Query, description = "Default 10, at most 100 (larger values are coerced to 100)"),
        ("pageToken" = Option<String>, Query, description = "Token from a previous response"),
        ("skip" = Option<i32>, Query, description = "Items to skip"),
        ("filter" = Option<String>, Query, description = "AIP-160 over eventType and createTime"),
        ("orderBy" = Option<String>, Query, description = "createTime, optionally desc")),
    responses((status = 200, body = ListEventsResponse), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn list(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    standard::list::<_, ListEventsResponse>(&req, false, async |request| {
        state
            .events
            .list_for_entity(&caller.0, &path, request)
            .await
    })
    .await
}
