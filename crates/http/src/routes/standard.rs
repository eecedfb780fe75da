//! The bodies of the standard methods (AIP-131 to 135, AIP-164), written once: each
//! reads and checks its query string, then answers what the resource's service gives.
//! `resource_routes!` writes the handlers that call them.

use actix_web::HttpRequest;
use rics_domain::error::Error;
use rics_domain::lifecycle::{DeleteMethod, SoftDeleteMethods};
use rics_domain::list::{ListRequest, ListResponse};
use rics_domain::methods::CreateMethod;
use rics_domain::principal::Principal;
use rics_domain::resource::Named;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{Response, body_etag, check_name_param, ok};
use crate::error::ApiError;
use crate::extract::{JsonBody, QueryParams};

/// List (AIP-132): the paging, filter and order parameters, and `showDeleted` when
/// the items are `soft_deletable`, answered with the page `read` gives as `Page`.
pub async fn list<T, Page>(
    req: &HttpRequest,
    soft_deletable: bool,
    read: impl AsyncFnOnce(&ListRequest) -> Result<ListResponse<T>, Error>,
) -> Response
where
    Page: From<ListResponse<T>> + Serialize,
{
    let query = QueryParams::parse(req.query_string())?;
    list_page::<T, Page>(query, soft_deletable, read).await
}

/// List (AIP-132) of the resources under the parent named `parent`, as [`list`]; the
/// redundant `parent` parameter must be `parent` when given.
pub async fn list_in<T, Page>(
    req: &HttpRequest,
    parent: &str,
    soft_deletable: bool,
    read: impl AsyncFnOnce(&ListRequest) -> Result<ListResponse<T>, Error>,
) -> Response
where
    Page: From<ListResponse<T>> + Serialize,
{
    let mut query = QueryParams::parse(req.query_string())?;
    if let Some(given) = query.take("parent")?
        && given != parent
    {
        return Err(ApiError(Error::invalid_field(
            "parent",
            "PARENT_MISMATCH",
            format!("'{given}' does not match the path's '{parent}'"),
        )));
    }
    list_page::<T, Page>(query, soft_deletable, read).await
}

/// The rest of a List's `query`: the paging, filter and order parameters, and
/// `showDeleted` when `soft_deletable`.
async fn list_page<T, Page>(
    mut query: QueryParams,
    soft_deletable: bool,
    read: impl AsyncFnOnce(&ListRequest) -> Result<ListResponse<T>, Error>,
) -> Response
where
    Page: From<ListResponse<T>> + Serialize,
{
    let request = query.take_list(soft_deletable)?;
    query.finish()?;
    ok(&Page::from(read(&request).await?))
}

/// Create (AIP-133) through the service's [`CreateMethod`]: the query's id parameter
/// (its `ID_PARAMETER`, the id the caller chooses) and `requestId`, then `body`.
pub async fn create<S>(
    req: &HttpRequest,
    service: &S,
    principal: &Principal,
    body: Value,
) -> Response
where
    S: CreateMethod + Sync,
    S::Resource: DeserializeOwned + Named + Serialize,
{
    create_with(req, Some(S::ID_PARAMETER), async |id, request_id| {
        service.create(principal, body, id, request_id).await
    })
    .await
}

/// Create (AIP-133) of a resource whose id the query's `id_param` chooses, or, without
/// one, the body (`create` is then given no id): as [`create`].
pub async fn create_with<T: Serialize>(
    req: &HttpRequest,
    id_param: Option<&str>,
    create: impl AsyncFnOnce(Option<&str>, Option<&str>) -> Result<T, Error>,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let id = id_param
        .map(|param| query.take(param))
        .transpose()?
        .flatten();
    let request_id = query.take("requestId")?;
    query.finish()?;
    ok(&create(id.as_deref(), request_id.as_deref()).await?)
}

/// Get (AIP-131): the redundant `name` parameter must be one of `accepted_names`; then
/// `read` answers.
pub async fn get<T: Serialize>(
    req: &HttpRequest,
    accepted_names: &[&str],
    read: impl Future<Output = Result<T, Error>>,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    check_name_param(&mut query, accepted_names)?;
    query.finish()?;
    ok(&read.await?)
}

/// A Get whose resource is read by `read`: with `accepted_names`, as [`get`]; without,
/// no query parameter is accepted.
pub async fn read<T: Serialize>(
    req: &HttpRequest,
    accepted_names: Option<&[&str]>,
    read: impl Future<Output = Result<T, Error>>,
) -> Response {
    match accepted_names {
        Some(names) => get(req, names, read).await,
        None => {
            QueryParams::parse(req.query_string())?.finish()?;
            ok(&read.await?)
        }
    }
}

/// Update (AIP-134): `update` is given the query's `updateMask`.
pub async fn update<T: Serialize>(
    req: &HttpRequest,
    update: impl AsyncFnOnce(Option<&str>) -> Result<T, Error>,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let mask = query.take("updateMask")?;
    query.finish()?;
    ok(&update(mask.as_deref()).await?)
}

/// The query of a soft delete (AIP-164): `etag` (must be current when given) and
/// `allowMissing` (succeed when the resource is missing or already deleted).
pub(crate) struct SoftDeleteQuery {
    /// The `etag` parameter.
    pub(crate) etag: Option<String>,
    /// The `allowMissing` parameter.
    pub(crate) allow_missing: bool,
}

impl SoftDeleteQuery {
    /// Reads them from the query string, refusing any other parameter.
    pub(crate) fn parse(req: &HttpRequest) -> Result<SoftDeleteQuery, crate::error::ApiError> {
        let mut query = QueryParams::parse(req.query_string())?;
        let params = SoftDeleteQuery {
            etag: query.take("etag")?,
            allow_missing: query.take_bool("allowMissing")?,
        };
        query.finish()?;
        Ok(params)
    }
}

/// The standard Delete of a soft-deletable resource (AIP-135, AIP-164): `etag` and
/// `allowMissing` from the query string; answers the deleted resource, or `{}` when
/// `allowMissing` found none.
pub async fn delete<S: SoftDeleteMethods>(
    service: &S,
    caller: &Principal,
    req: &HttpRequest,
    id: &str,
) -> Response
where
    S::Resource: Serialize,
{
    let params = SoftDeleteQuery::parse(req)?;
    match service
        .delete(caller, id, params.etag.as_deref(), params.allow_missing)
        .await?
    {
        Some(resource) => ok(&resource),
        None => ok(&serde_json::Map::new()),
    }
}

/// The standard Undelete (AIP-164): an optional etag in the body.
pub async fn undelete<S: SoftDeleteMethods>(
    service: &S,
    caller: &Principal,
    id: &str,
    body: JsonBody,
) -> Response
where
    S::Resource: Serialize,
{
    let etag = body_etag(body, "undelete")?;
    ok(&service.undelete(caller, id, etag.as_deref()).await?)
}

/// The standard Delete of a resource removed when deleted (AIP-135): the redundant
/// `name` parameter must be one of `accepted_names`, and `etag` must be current when
/// given; answers the removed resource.
pub async fn remove<S: DeleteMethod>(
    service: &S,
    caller: &Principal,
    req: &HttpRequest,
    id: &str,
    accepted_names: &[&str],
) -> Response
where
    S::Resource: Serialize,
{
    let mut query = QueryParams::parse(req.query_string())?;
    check_name_param(&mut query, accepted_names)?;
    let etag = query.take("etag")?;
    query.finish()?;
    ok(&service.delete(caller, id, etag.as_deref()).await?)
}
