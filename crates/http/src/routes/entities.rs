//! The entity routes.

use actix_web::HttpRequest;
use actix_web::web::{Data, Path, Payload};
use rics_domain::entity::relationship::{
    AddRelationshipRequest, EntityRelationship, RemoveRelationshipRequest,
};
use rics_domain::entity::{Entity, ErasureReceipt};
use rics_domain::principal::Scope;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::{Response, ok, standard};
use crate::error::ErrorEnvelope;
use crate::extract::{BodyHead, Caller, JsonBody, NoQuery, QueryParams, read_json};
use crate::state::ApiState;

resource_routes! {
    service: entities, resource: Entity, tag: "entities",
    id: ("entity" = String, Path, description = "Entity id");

    /// Lists entities.
    list "/v1alpha/entities", Some(Scope::Read), lists rics_domain::entity::fields::LIST => ListEntitiesResponse, params(ListParams);
    /// Creates an entity.
    create "/v1alpha/entities", Some(Scope::Write), params(CreateParams);
    GET "/v1alpha/entities:batchGet" => batch_get, Some(Scope::Read);
    POST "/v1alpha/entities:batchCreate" as "BatchCreateEntities" => batch_create, Some(Scope::Write);
    /// Gets an entity, deleted or not.
    get "/v1alpha/entities/{entity}", Some(Scope::Read);
    /// Updates an entity.
    update "/v1alpha/entities/{entity}", Some(Scope::Write), params(
        ("updateMask" = Option<String>, Query, description = "Comma-separated field paths; `*` replaces the entity; absent = the populated fields of the body"));
    /// Soft-deletes an entity; returns it with `deleteTime` and `purgeTime`.
    delete "/v1alpha/entities/{entity}", Some(Scope::Write), params(DeleteParams);
    /// Restores a soft-deleted entity.
    undelete "/v1alpha/entities/{entity}:undelete", Some(Scope::Write);
    DELETE "/v1alpha/entities/{entity}:hardDelete" => hard_delete, Some(Scope::Write);
    POST "/v1alpha/entities/{entity}:addTag" as "AddEntityTag" => add_tag, Some(Scope::Write);
    POST "/v1alpha/entities/{entity}:removeTag" as "RemoveEntityTag" => remove_tag, Some(Scope::Write);
    POST "/v1alpha/entities/{entity}:addEntityRelationship" as "AddEntityRelationship" => add_relationship, Some(Scope::Write);
    POST "/v1alpha/entities/{entity}:removeEntityRelationship" as "RemoveEntityRelationship" => remove_relationship, Some(Scope::Write);
    GET "/v1alpha/entities/{entity}:EntityRelationships" as "ListEntityRelationships" => list_relationships, Some(Scope::Read), lists rics_domain::entity::fields::RELATIONSHIP_LIST;
}

list_response! {
    /// A page of entities.
    ListEntitiesResponse {
        /// The entities.
        entities: Entity,
        /// How many entities match the filter.
        total_size,
    }
}

/// The entities asked for, in order.
#[derive(Debug, Serialize, ToSchema)]
pub struct BatchGetEntitiesResponse {
    /// The entities.
    pub entities: Vec<Entity>,
}

/// The largest `:batchCreate` body: a thousand entities of up to 16 KiB each.
pub const BATCH_CREATE_BODY_LIMIT: usize = 16 * 1024 * 1024;

/// The body of `:batchCreate` (AIP-233).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)]
pub struct BatchCreateEntitiesRequest {
    /// The create requests, 1 to 1000, stored all or none.
    #[schema(min_items = 1, max_items = 1000)]
    requests: Vec<CreateEntityRequest>,
}

/// One create request of a `:batchCreate`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)]
pub struct CreateEntityRequest {
    /// The entity, as the body of Create.
    entity: Entity,
    /// The id to give it, as Create's `entityId`; generated when absent.
    #[schema(pattern = "^[a-z][a-z0-9-]{2,61}[a-z0-9]$")]
    entity_id: Option<String>,
}

/// The entities a `:batchCreate` made, in the order of its requests.
#[derive(Debug, Serialize, ToSchema)]
pub struct BatchCreateEntitiesResponse {
    /// The entities.
    pub entities: Vec<Entity>,
}

list_response! {
    /// A page of relationships.
    ListEntityRelationshipsResponse {
        /// The relationships, as the entity sees them.
        entity_relationships: EntityRelationship,
        /// How many relationships match.
        total_size,
    }
}

/// The body of `:addTag` and `:removeTag`.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TagRequest {
    /// The tag: 1 to 64 characters, no whitespace.
    #[serde(default, deserialize_with = "rics_domain::serde_util::null_as_default")]
    pub tag: String,
}

/// The list parameters (documentation of the query string).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(non_snake_case, dead_code)]
pub struct ListParams {
    /// Page size: default 50, at most 1000 (larger values are coerced).
    pageSize: Option<i32>,
    /// Token from a previous response; every other parameter must be unchanged.
    pageToken: Option<String>,
    /// Items to skip before the page.
    skip: Option<i32>,
    /// AIP-160 filter over displayName (also fuzzy: `displayName:"jon smith"`, or a bare
    /// word), entityType, tags, externalIds, createTime, updateTime, deleteTime,
    /// riskDetails.riskLevel, riskDetails.riskStatus (`ACTIVE`, `OUTDATED`; `RATED` reads
    /// as `ACTIVE`), screeningStatus, verificationStatus, legalHold, monitoring.
    filter: Option<String>,
    /// Comma-separated displayName, createTime, updateTime, each optionally ` desc`.
    /// Default: createTime; a fuzzy search without orderBy ranks by similarity.
    orderBy: Option<String>,
    /// Include soft-deleted entities.
    showDeleted: Option<bool>,
}

/// The create parameters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(non_snake_case, dead_code)]
pub struct CreateParams {
    /// The id to give the entity: 4 to 63 of `[a-z0-9-]`, starting with a letter, not
    /// ending with `-`. Generated (UUID v7) when absent.
    entityId: Option<String>,
    /// A UUID making the call idempotent for at least 24 hours.
    requestId: Option<String>,
}

/// The delete parameters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(non_snake_case, dead_code)]
pub struct DeleteParams {
    /// When given, must be the entity's current etag.
    etag: Option<String>,
    /// Succeed when the entity is missing or already deleted.
    allowMissing: Option<bool>,
}

fn parse_id(path: &Path<String>) -> String {
    path.as_str().to_owned()
}

/// Gets several entities, all or nothing.
#[utoipa::path(get, path = "/v1alpha/entities:batchGet", tag = "entities",
    params(("names" = Vec<String>, Query, description = "Entity names (entities/{entity}), 1 to 1000, repeated")),
    responses((status = 200, body = BatchGetEntitiesResponse), (status = 404, body = ErrorEnvelope)))]
pub async fn batch_get(caller: Caller, req: HttpRequest, state: Data<ApiState>) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let names = query.take_all("names");
    query.finish()?;
    let entities = state.entities.batch_get(&caller.0, &names).await?;
    ok(&BatchGetEntitiesResponse { entities })
}

/// Creates up to 1000 entities at once, all or none (AIP-233); the body may be up
/// to 16 MiB.
#[utoipa::path(post, path = "/v1alpha/entities:batchCreate", tag = "entities",
    params(("requestId" = Option<String>, Query, description = "A UUID making the call idempotent")),
    request_body = BatchCreateEntitiesRequest,
    responses((status = 200, body = BatchCreateEntitiesResponse), (status = 400, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn batch_create(
    caller: Caller,
    req: HttpRequest,
    payload: Payload,
    state: Data<ApiState>,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let request_id = query.take("requestId")?;
    query.finish()?;
    let body = read_json(BodyHead::of(&req), payload, BATCH_CREATE_BODY_LIMIT).await?;
    let entities = state
        .entities
        .batch_create(&caller.0, body, request_id.as_deref())
        .await?;
    ok(&BatchCreateEntitiesResponse { entities })
}

/// Erases an entity and everything it owns; refused under legal hold.
#[utoipa::path(delete, path = "/v1alpha/entities/{entity}:hardDelete", tag = "entities",
    params(("entity" = String, Path, description = "Entity id")),
    responses((status = 200, body = ErasureReceipt), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn hard_delete(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    QueryParams::parse(req.query_string())?.finish()?;
    ok(&state
        .entities
        .hard_delete(&caller.0, &parse_id(&path))
        .await?)
}

/// Adds a tag (idempotent).
#[utoipa::path(post, path = "/v1alpha/entities/{entity}:addTag", tag = "entities",
    params(("entity" = String, Path, description = "Entity id")), request_body = TagRequest,
    responses((status = 200, body = Entity), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn add_tag(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let request: TagRequest = rics_domain::resource::parse_body(body.0, "tag")?;
    ok(&state
        .entities
        .add_tag(&caller.0, &parse_id(&path), &request.tag)
        .await?)
}

/// Removes a tag (idempotent).
#[utoipa::path(post, path = "/v1alpha/entities/{entity}:removeTag", tag = "entities",
    params(("entity" = String, Path, description = "Entity id")), request_body = TagRequest,
    responses((status = 200, body = Entity), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn remove_tag(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let request: TagRequest = rics_domain::resource::parse_body(body.0, "tag")?;
    ok(&state
        .entities
        .remove_tag(&caller.0, &parse_id(&path), &request.tag)
        .await?)
}

/// Relates the entity to another.
#[utoipa::path(post, path = "/v1alpha/entities/{entity}:addEntityRelationship", tag = "entities",
    params(("entity" = String, Path, description = "Entity id")), request_body = AddRelationshipRequest,
    responses((status = 200, body = EntityRelationship), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn add_relationship(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    ok(&state
        .entities
        .add_relationship(&caller.0, &parse_id(&path), body.0)
        .await?)
}

/// Removes a relationship, for both entities.
#[utoipa::path(post, path = "/v1alpha/entities/{entity}:removeEntityRelationship", tag = "entities",
    params(("entity" = String, Path, description = "Entity id")), request_body = RemoveRelationshipRequest,
    responses((status = 200, body = EntityRelationship), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn remove_relationship(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    ok(&state
        .entities
        .remove_relationship(&caller.0, &parse_id(&path), body.0)
        .await?)
}

/// Lists the entity's relationships, on either side.
#[utoipa::path(get, path = "/v1alpha/entities/{entity}:EntityRelationships", tag = "entities",
    params(("entity" = String, Path, description = "Entity id"),
        ("pageSize" = Option<i32>, Query, description = "Default 50, at most 1000"),
        ("pageToken" = Option<String>, Query, description = "Token from a previous response"),
        ("skip" = Option<i32>, Query, description = "Items to skip"),
        ("filter" = Option<String>, Query, description = "AIP-160 over relationshipType and createTime"),
        ("orderBy" = Option<String>, Query, description = "createTime, optionally desc")),
    responses((status = 200, body = ListEntityRelationshipsResponse), (status = 404, body = ErrorEnvelope)))]
pub async fn list_relationships(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    standard::list::<_, ListEntityRelationshipsResponse>(&req, false, async |request| {
        state
            .entities
            .list_relationships(&caller.0, &parse_id(&path), request)
            .await
    })
    .await
}
