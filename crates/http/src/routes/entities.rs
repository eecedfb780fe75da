//! The entity routes.

use actix_web::HttpRequest;
use actix_web::web::{Data, Path};
use rics_domain::entity::relationship::{
    AddRelationshipRequest, EntityRelationship, RemoveRelationshipRequest,
};
use rics_domain::entity::{Entity, ErasureReceipt};
use rics_domain::principal::Scope;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::{EtagRequest, Response, check_name_param, ok, standard, total_size};
use crate::error::ErrorEnvelope;
use crate::extract::{Caller, JsonBody, NoQuery, QueryParams};
use crate::state::ApiState;

route_table! {
    GET "/v1alpha/entities" => list, Some(Scope::Read);
    POST "/v1alpha/entities" => create, Some(Scope::Write);
    GET "/v1alpha/entities:batchGet" => batch_get, Some(Scope::Read);
    GET "/v1alpha/entities/{entity}" => get, Some(Scope::Read);
    PATCH "/v1alpha/entities/{entity}" => update, Some(Scope::Write);
    DELETE "/v1alpha/entities/{entity}" => delete, Some(Scope::Write);
    POST "/v1alpha/entities/{entity}:undelete" => undelete, Some(Scope::Write);
    DELETE "/v1alpha/entities/{entity}:hardDelete" => hard_delete, Some(Scope::Write);
    POST "/v1alpha/entities/{entity}:addTag" as "AddEntityTag" => add_tag, Some(Scope::Write);
    POST "/v1alpha/entities/{entity}:removeTag" as "RemoveEntityTag" => remove_tag, Some(Scope::Write);
    POST "/v1alpha/entities/{entity}:addEntityRelationship" as "AddEntityRelationship" => add_relationship, Some(Scope::Write);
    POST "/v1alpha/entities/{entity}:removeEntityRelationship" as "RemoveEntityRelationship" => remove_relationship, Some(Scope::Write);
    GET "/v1alpha/entities/{entity}:EntityRelationships" as "ListEntityRelationships" => list_relationships, Some(Scope::Read);
}

/// A page of entities.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListEntitiesResponse {
    /// The entities.
    pub entities: Vec<Entity>,
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// How many entities match the filter.
    pub total_size: i32,
}

/// The entities asked for, in order.
#[derive(Debug, Serialize, ToSchema)]
pub struct BatchGetEntitiesResponse {
    /// The entities.
    pub entities: Vec<Entity>,
}

/// A page of relationships.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListEntityRelationshipsResponse {
    /// The relationships, as the entity sees them.
    pub entity_relationships: Vec<EntityRelationship>,
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// How many relationships match.
    pub total_size: i32,
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
    /// as `ACTIVE`), screeningStatus, verificationStatus, legalHold.
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

/// Lists entities.
#[utoipa::path(get, path = "/v1alpha/entities", tag = "entities", params(ListParams),
    responses((status = 200, body = ListEntitiesResponse), (status = 400, body = ErrorEnvelope)))]
pub async fn list(caller: Caller, req: HttpRequest, state: Data<ApiState>) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let request = query.take_list(true)?;
    query.finish()?;
    let page = state.entities.list(&caller.0, &request).await?;
    ok(&ListEntitiesResponse {
        entities: page.items,
        next_page_token: page.next_page_token,
        total_size: total_size(page.total_size),
    })
}

/// Creates an entity.
#[utoipa::path(post, path = "/v1alpha/entities", tag = "entities", params(CreateParams), request_body = Entity,
    responses((status = 200, body = Entity), (status = 400, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn create(
    caller: Caller,
    req: HttpRequest,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let entity_id = query.take("entityId")?;
    let request_id = query.take("requestId")?;
    query.finish()?;
    let entity = state
        .entities
        .create(
            &caller.0,
            body.0,
            entity_id.as_deref(),
            request_id.as_deref(),
        )
        .await?;
    ok(&entity)
}

/// Gets an entity, deleted or not.
#[utoipa::path(get, path = "/v1alpha/entities/{entity}", tag = "entities",
    params(("entity" = String, Path, description = "Entity id"), ("name" = Option<String>, Query, description = "Redundant resource name; must match the path")),
    responses((status = 200, body = Entity), (status = 404, body = ErrorEnvelope)))]
pub async fn get(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    let id = parse_id(&path);
    let mut query = QueryParams::parse(req.query_string())?;
    check_name_param(&mut query, &[&Entity::name_of(&id), &id])?;
    query.finish()?;
    ok(&state.entities.get(&caller.0, &id).await?)
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

/// Updates an entity.
#[utoipa::path(patch, path = "/v1alpha/entities/{entity}", tag = "entities",
    params(("entity" = String, Path, description = "Entity id"), ("updateMask" = Option<String>, Query, description = "Comma-separated field paths; `*` replaces the entity; absent = the populated fields of the body")),
    request_body = Entity,
    responses((status = 200, body = Entity), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn update(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let id = parse_id(&path);
    let mut query = QueryParams::parse(req.query_string())?;
    let mask = query.take("updateMask")?;
    query.finish()?;
    ok(&state
        .entities
        .update(&caller.0, &id, body.0, mask.as_deref())
        .await?)
}

/// Soft-deletes an entity; returns it with `deleteTime` and `purgeTime`.
#[utoipa::path(delete, path = "/v1alpha/entities/{entity}", tag = "entities",
    params(("entity" = String, Path, description = "Entity id"), DeleteParams),
    responses((status = 200, body = Entity), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn delete(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    let id = parse_id(&path);
    standard::delete(state.entities.as_ref(), &caller.0, &req, &id).await
}

/// Restores a soft-deleted entity.
#[utoipa::path(post, path = "/v1alpha/entities/{entity}:undelete", tag = "entities",
    params(("entity" = String, Path, description = "Entity id")), request_body = EtagRequest,
    responses((status = 200, body = Entity), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
pub async fn undelete(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let id = parse_id(&path);
    standard::undelete(state.entities.as_ref(), &caller.0, &id, body).await
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
    let mut query = QueryParams::parse(req.query_string())?;
    let request = query.take_list(false)?;
    query.finish()?;
    let page = state
        .entities
        .list_relationships(&caller.0, &parse_id(&path), &request)
        .await?;
    ok(&ListEntityRelationshipsResponse {
        entity_relationships: page.items,
        next_page_token: page.next_page_token,
        total_size: total_size(page.total_size),
    })
}
