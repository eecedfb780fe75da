//! Every route of the API, declared once: the method, the path as the OpenAPI document
//! shows it, the scope it needs and its handler. Registration with actix and the
//! route-coverage tests both read this table.

pub mod activity_log_types;
pub mod activity_logs;
pub mod alerts;
pub mod documents;
pub mod entities;
pub mod events;
pub mod health;
pub mod jobs;
pub mod notes;
pub mod oauth;
pub mod operation_id;
pub mod risk;
pub mod screening_lists;
pub mod tenants;
pub mod workspaces;

use std::sync::LazyLock;

use actix_web::body::BoxBody;
use actix_web::dev::{ResourceDef, ServiceRequest};
use actix_web::http::Method;
use actix_web::middleware::{Next, from_fn};
use actix_web::{FromRequest, Handler, HttpResponse, Responder, guard, web};
use rics_domain::error::Error;
use rics_domain::lifecycle::SoftDeleteMethods;
use rics_domain::principal::{Principal, Scope};
use serde::Serialize;

use crate::error::ApiError;
use crate::extract::QueryParams;

/// What every handler returns.
type Response = Result<HttpResponse, ApiError>;

/// 200 with `value` as JSON.
fn ok<T: Serialize>(value: &T) -> Response {
    Ok(HttpResponse::Ok().json(value))
}

/// A list's `totalSize` as the API's int32.
fn total_size(total: i64) -> i32 {
    i32::try_from(total).unwrap_or(i32::MAX)
}

/// Checks the redundant `name` query parameter of a GET: when given, it must be one of
/// `accepted` (the resource's name first).
fn check_name_param(query: &mut QueryParams, accepted: &[&str]) -> Result<(), ApiError> {
    if let Some(given) = query.take("name")?
        && !accepted.contains(&given.as_str())
    {
        let name = accepted.first().copied().unwrap_or_default();
        return Err(ApiError(Error::invalid_field(
            "name",
            "NAME_MISMATCH",
            format!("'{given}' does not match the path's '{name}'"),
        )));
    }
    Ok(())
}

/// The query of a soft delete (AIP-164): `etag` (must be current when given) and
/// `allowMissing` (succeed when the resource is missing or already deleted).
struct SoftDeleteQuery {
    etag: Option<String>,
    allow_missing: bool,
}

impl SoftDeleteQuery {
    /// Reads them from the query string, refusing any other parameter.
    fn parse(req: &actix_web::HttpRequest) -> Result<SoftDeleteQuery, ApiError> {
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
async fn standard_delete<S: SoftDeleteMethods>(
    service: &S,
    caller: &Principal,
    req: &actix_web::HttpRequest,
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
async fn standard_undelete<S: SoftDeleteMethods>(
    service: &S,
    caller: &Principal,
    id: &str,
    body: crate::extract::JsonBody,
) -> Response
where
    S::Resource: Serialize,
{
    let etag = body_etag(body, "undelete")?;
    ok(&service.undelete(caller, id, etag.as_deref()).await?)
}

/// The etag of a custom method's body (`:undelete`, `:close`, ...), read as
/// [`EtagRequest`]; errors name `method`.
fn body_etag(body: crate::extract::JsonBody, method: &str) -> Result<Option<String>, ApiError> {
    let request: EtagRequest = rics_domain::resource::parse_body(body.0, method)?;
    Ok(request.etag)
}

/// The body of custom methods that change a resource's state (`:undelete`,
/// `:close`, ...): only an optional etag.
#[derive(Debug, Default, serde::Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EtagRequest {
    /// When given, must be the resource's current etag.
    #[serde(default)]
    pub etag: Option<String>,
}

/// One route.
#[derive(Debug, Clone, Copy)]
pub struct Route {
    /// The HTTP method.
    pub method: &'static str,
    /// The path template as in the OpenAPI document (`/v1alpha/entities/{entity}`).
    pub path: &'static str,
    /// The scope a caller needs; `None` for public routes.
    pub scope: Option<Scope>,
    /// The OpenAPI `operationId` when the rule of [`operation_id`] does not give it: for
    /// routes outside the resource paths and custom methods whose verb names its object.
    pub operation_id: Option<&'static str>,
}

macro_rules! routes {
    ($( $method:ident $path:literal $(as $operation_id:literal)? => $handler:path, $scope:expr; )+) => {
        /// Every route of the API.
        pub const ROUTES: &[Route] = &[
            $( Route {
                method: stringify!($method),
                path: $path,
                scope: $scope,
                operation_id: routes!(@id $($operation_id)?),
            }, )+
        ];

        /// Registers every route of [`ROUTES`] with its handler, behind the
        /// authentication gate when it names a scope.
        pub fn configure(config: &mut web::ServiceConfig) {
            $( register(config, Method::$method, $path, $scope, $handler); )+
        }
    };
    (@id $operation_id:literal) => { Some($operation_id) };
    (@id) => { None };
}

/// Registers one route: a resource answering only `method`, gated by `scope`, its
/// path variables checked ([`crate::extract::path_variables`]) once the gate has
/// admitted the caller.
fn register<F, Args>(
    config: &mut web::ServiceConfig,
    method: Method,
    path: &'static str,
    scope: Option<Scope>,
    handler: F,
) where
    F: Handler<Args>,
    Args: FromRequest + 'static,
    F::Output: Responder + 'static,
{
    let resource = web::resource(actix_pattern(path))
        .guard(guard::Method(method))
        .wrap(from_fn(move |req: ServiceRequest, next: Next<BoxBody>| {
            crate::extract::path_variables(path, req, next)
        }));
    match scope {
        Some(scope) => config.service(
            resource
                .wrap(from_fn(move |req: ServiceRequest, next: Next<BoxBody>| {
                    crate::guard::admit(scope, req, next)
                }))
                .to(handler),
        ),
        None => config.service(resource.to(handler)),
    };
}

routes! {
    GET "/healthz" as "CheckHealth" => health::healthz, None;
    GET "/readyz" as "CheckReadiness" => health::readyz, None;
    GET "/v1alpha/openapi.json" as "GetOpenApiDocument" => crate::openapi::document, None;
    POST "/oauth2/token" as "IssueToken" => oauth::token, None;
    GET "/oauth2/authorize" as "ShowAuthorizationPage" => oauth::authorize_page, None;
    POST "/oauth2/authorize" as "SubmitAuthorization" => oauth::authorize_submit, None;
    GET "/.well-known/openid-configuration" as "GetOpenIdConfiguration" => oauth::discovery, None;
    GET "/.well-known/jwks.json" as "GetJsonWebKeySet" => oauth::jwks, None;
    GET "/v1alpha/entities" => entities::list, Some(Scope::Read);
    POST "/v1alpha/entities" => entities::create, Some(Scope::Write);
    GET "/v1alpha/entities:batchGet" => entities::batch_get, Some(Scope::Read);
    GET "/v1alpha/entities/{entity}" => entities::get, Some(Scope::Read);
    PATCH "/v1alpha/entities/{entity}" => entities::update, Some(Scope::Write);
    DELETE "/v1alpha/entities/{entity}" => entities::delete, Some(Scope::Write);
    POST "/v1alpha/entities/{entity}:undelete" => entities::undelete, Some(Scope::Write);
    DELETE "/v1alpha/entities/{entity}:hardDelete" => entities::hard_delete, Some(Scope::Write);
    POST "/v1alpha/entities/{entity}:addTag" as "AddEntityTag" => entities::add_tag, Some(Scope::Write);
    POST "/v1alpha/entities/{entity}:removeTag" as "RemoveEntityTag" => entities::remove_tag, Some(Scope::Write);
    POST "/v1alpha/entities/{entity}:addEntityRelationship" as "AddEntityRelationship" => entities::add_relationship, Some(Scope::Write);
    POST "/v1alpha/entities/{entity}:removeEntityRelationship" as "RemoveEntityRelationship" => entities::remove_relationship, Some(Scope::Write);
    GET "/v1alpha/entities/{entity}:EntityRelationships" as "ListEntityRelationships" => entities::list_relationships, Some(Scope::Read);
    GET "/v1alpha/events/{event}" => events::get, Some(Scope::Read);
    GET "/v1alpha/entities/{entity}/events" => events::list, Some(Scope::Read);
    GET "/v1alpha/entities/{entity}/events/{event}" => events::get_for_entity, Some(Scope::Read);
    GET "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs" => jobs::list_pep_sanction, Some(Scope::Read);
    POST "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs" => jobs::create_pep_sanction, Some(Scope::Write);
    GET "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs/{job}" => jobs::get_pep_sanction, Some(Scope::Read);
    POST "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs/{job}:run" => jobs::run_pep_sanction, Some(Scope::Write);
    GET "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs/{job}/operations/{operation}" => jobs::operation_pep_sanction, Some(Scope::Read);
    GET "/v1alpha/entities/{entity}/individualEntityRiskRatingJobs" => jobs::list_risk_rating, Some(Scope::Read);
    POST "/v1alpha/entities/{entity}/individualEntityRiskRatingJobs" => jobs::create_risk_rating, Some(Scope::Write);
    GET "/v1alpha/entities/{entity}/individualEntityRiskRatingJobs/{job}" => jobs::get_risk_rating, Some(Scope::Read);
    POST "/v1alpha/entities/{entity}/individualEntityRiskRatingJobs/{job}:run" => jobs::run_risk_rating, Some(Scope::Write);
    GET "/v1alpha/entities/{entity}/individualEntityRiskRatingJobs/{job}/operations/{operation}" => jobs::operation_risk_rating, Some(Scope::Read);
    GET "/v1alpha/individualEntityIDVerificationJobs" => jobs::list_id_verification, Some(Scope::Read);
    POST "/v1alpha/individualEntityIDVerificationJobs" => jobs::create_id_verification, Some(Scope::Write);
    GET "/v1alpha/individualEntityIDVerificationJobs/{job}" => jobs::get_id_verification, Some(Scope::Read);
    POST "/v1alpha/individualEntityIDVerificationJobs/{job}:run" => jobs::run_id_verification, Some(Scope::Write);
    GET "/v1alpha/individualEntityIDVerificationJobs/{job}/operations/{operation}" => jobs::operation_id_verification, Some(Scope::Read);
    POST "/v1alpha/entities/{entity}:evaluate" => risk::evaluate, Some(Scope::Write);
    GET "/v1alpha/entities/{entity}:evaluationInput" as "GetEntityEvaluationInput" => risk::evaluation_input, Some(Scope::Read);
    GET "/v1alpha/riskModels" => risk::list, Some(Scope::Read);
    POST "/v1alpha/riskModels" => risk::create, Some(Scope::Admin);
    GET "/v1alpha/riskModels/{riskModel}" => risk::get, Some(Scope::Read);
    POST "/v1alpha/riskModels/{riskModel}:rate" => risk::rate, Some(Scope::Read);
    GET "/v1alpha/entities/{entity}/notes" => notes::list_for_entity, Some(Scope::Read);
    POST "/v1alpha/entities/{entity}/notes" => notes::create_for_entity, Some(Scope::Write);
    GET "/v1alpha/entities/{entity}/notes/{note}" => notes::get_for_entity, Some(Scope::Read);
    PATCH "/v1alpha/entities/{entity}/notes/{note}" => notes::update_for_entity, Some(Scope::Write);
    DELETE "/v1alpha/entities/{entity}/notes/{note}" => notes::delete_for_entity, Some(Scope::Write);
    GET "/v1alpha/workspaces" => workspaces::list, Some(Scope::Read);
    POST "/v1alpha/workspaces" => workspaces::create, Some(Scope::Write);
    GET "/v1alpha/workspaces/{workspace}" => workspaces::get, Some(Scope::Read);
    PATCH "/v1alpha/workspaces/{workspace}" => workspaces::update, Some(Scope::Write);
    DELETE "/v1alpha/workspaces/{workspace}" => workspaces::delete, Some(Scope::Write);
    POST "/v1alpha/workspaces/{workspace}:undelete" => workspaces::undelete, Some(Scope::Write);
    POST "/v1alpha/workspaces/{workspace}:close" => workspaces::close, Some(Scope::Write);
    POST "/v1alpha/workspaces/{workspace}:reopen" => workspaces::reopen, Some(Scope::Write);
    GET "/v1alpha/workspaces/{workspace}/notes" => notes::list_for_workspace, Some(Scope::Read);
    POST "/v1alpha/workspaces/{workspace}/notes" => notes::create_for_workspace, Some(Scope::Write);
    GET "/v1alpha/workspaces/{workspace}/notes/{note}" => notes::get_for_workspace, Some(Scope::Read);
    PATCH "/v1alpha/workspaces/{workspace}/notes/{note}" => notes::update_for_workspace, Some(Scope::Write);
    DELETE "/v1alpha/workspaces/{workspace}/notes/{note}" => notes::delete_for_workspace, Some(Scope::Write);
    GET "/v1alpha/activityLogTypes" => activity_log_types::list, Some(Scope::Read);
    POST "/v1alpha/activityLogTypes" => activity_log_types::create, Some(Scope::Admin);
    GET "/v1alpha/activityLogTypes/{activityLogType}" => activity_log_types::get, Some(Scope::Read);
    PATCH "/v1alpha/activityLogTypes/{activityLogType}" => activity_log_types::update, Some(Scope::Admin);
    DELETE "/v1alpha/activityLogTypes/{activityLogType}" => activity_log_types::delete, Some(Scope::Admin);
    POST "/v1alpha/activityLogTypes/{activityLogType}:undelete" => activity_log_types::undelete, Some(Scope::Admin);
    POST "/v1alpha/activityLogs" => activity_logs::create, Some(Scope::Write);
    GET "/v1alpha/activityLogs:batchGet" => activity_logs::batch_get, Some(Scope::Read);
    GET "/v1alpha/activityLogs/{activityLog}" => activity_logs::get, Some(Scope::Read);
    DELETE "/v1alpha/activityLogs/{activityLog}" => activity_logs::delete, Some(Scope::Write);
    POST "/v1alpha/activityLogs/{activityLog}:undelete" => activity_logs::undelete, Some(Scope::Write);
    GET "/v1alpha/entities/{entity}/activityLogs" => activity_logs::list_for_entity, Some(Scope::Read);
    GET "/v1alpha/alertTypes" => alerts::list_types, Some(Scope::Read);
    GET "/v1alpha/alertTypes/{alertType}" => alerts::get_type, Some(Scope::Read);
    GET "/v1alpha/alerts" => alerts::list, Some(Scope::Read);
    POST "/v1alpha/alerts" => alerts::create, Some(Scope::Write);
    GET "/v1alpha/alerts/{alert}" => alerts::get, Some(Scope::Read);
    DELETE "/v1alpha/alerts/{alert}" => alerts::delete, Some(Scope::Write);
    POST "/v1alpha/alerts/{alert}:undelete" => alerts::undelete, Some(Scope::Write);
    POST "/v1alpha/alerts/{alert}:acknowledge" => alerts::acknowledge, Some(Scope::Write);
    GET "/v1alpha/documents" => documents::list, Some(Scope::Read);
    POST "/v1alpha/documents" => documents::create, Some(Scope::Write);
    GET "/v1alpha/documents/{document}" => documents::get, Some(Scope::Read);
    PATCH "/v1alpha/documents/{document}" => documents::update, Some(Scope::Write);
    DELETE "/v1alpha/documents/{document}" => documents::delete, Some(Scope::Write);
    POST "/v1alpha/documents/{document}:undelete" => documents::undelete, Some(Scope::Write);
    GET "/v1alpha/entities/{entity}/documents" => documents::list_for_entity, Some(Scope::Read);
    GET "/v1alpha/screeningLists" => screening_lists::list, Some(Scope::Read);
    POST "/v1alpha/tenants" => tenants::create, Some(Scope::Admin);
    GET "/v1alpha/tenants/{tenant}" => tenants::get, Some(Scope::Read);
    GET "/v1alpha/tenants/{tenant}/children" as "ListTenantChildren" => tenants::children, Some(Scope::Read);
    GET "/v1alpha/tenants/{tenant}/operations/{operation}" => tenants::operation, Some(Scope::Read);
}

/// Each route of [`ROUTES`] as the actix resource definition its requests match, with
/// its method; built once, on the first request no route answers.
static ROUTE_PATTERNS: LazyLock<Vec<(ResourceDef, &'static str)>> = LazyLock::new(|| {
    ROUTES
        .iter()
        .map(|route| (ResourceDef::new(actix_pattern(route.path)), route.method))
        .collect()
});

/// The methods the route table serves on `request_path` (a request's path, not a
/// template), in table order and followed by OPTIONS, which every such path answers;
/// `None` when no route has that path.
pub fn allowed_methods(request_path: &str) -> Option<Vec<&'static str>> {
    let mut allowed: Vec<&'static str> = Vec::new();
    for (pattern, method) in ROUTE_PATTERNS.iter() {
        if pattern.is_match(request_path) && !allowed.contains(method) {
            allowed.push(method);
        }
    }
    if allowed.is_empty() {
        return None;
    }
    allowed.push("OPTIONS");
    Some(allowed)
}

/// The variable pattern [`actix_pattern`] gives every path variable.
const VARIABLE_PATTERN: &str = ":[^/:]+}";

/// The OpenAPI path of an actix pattern made by [`actix_pattern`]: the route template
/// (`/v1alpha/entities/{entity}`) as logs and the document show it.
pub fn openapi_path(pattern: &str) -> String {
    pattern.replace(VARIABLE_PATTERN, "}")
}

/// The actix pattern of an OpenAPI path: path variables match one segment without
/// `:`, so `entities/abc:undelete` is never read as the id `abc:undelete`.
pub fn actix_pattern(path: &str) -> String {
    let mut pattern = String::with_capacity(path.len() + 16);
    let mut rest = path;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        pattern.push_str(&rest[..open]);
        pattern.push_str(&rest[open..open + close]);
        pattern.push_str(VARIABLE_PATTERN);
        rest = &rest[open + close + 1..];
    }
    pattern.push_str(rest);
    pattern
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_exclude_colons() {
        assert_eq!(
            actix_pattern("/v1alpha/entities/{entity}:undelete"),
            "/v1alpha/entities/{entity:[^/:]+}:undelete"
        );
        assert_eq!(actix_pattern("/v1alpha/entities"), "/v1alpha/entities");
    }

    #[test]
    fn patterns_give_back_their_paths() {
        for route in ROUTES {
            assert_eq!(openapi_path(&actix_pattern(route.path)), route.path);
        }
    }

    #[test]
    fn allowed_methods_come_from_the_route_table() {
        assert_eq!(
            allowed_methods("/v1alpha/entities/jane-doe"),
            Some(vec!["GET", "PATCH", "DELETE", "OPTIONS"])
        );
        assert_eq!(
            allowed_methods("/v1alpha/entities/jane-doe:undelete"),
            Some(vec!["POST", "OPTIONS"])
        );
        assert_eq!(
            allowed_methods("/v1alpha/entities"),
            Some(vec!["GET", "POST", "OPTIONS"])
        );
        assert_eq!(
            allowed_methods("/v1alpha/entities/jane-doe:frobnicate"),
            None
        );
        assert_eq!(allowed_methods("/v1alpha/entities/jane-doe/unknown"), None);
        assert_eq!(allowed_methods("/v1alpha/nothing"), None);
        for route in ROUTES {
            let path = route.path.replace('{', "x").replace('}', "");
            let allowed = allowed_methods(&path).unwrap_or_default();
            assert!(
                allowed.contains(&route.method),
                "{} {} is not allowed on {path}: {allowed:?}",
                route.method,
                route.path
            );
        }
    }

    #[test]
    fn every_api_route_has_a_scope() {
        // The OpenAPI document is public; every other
        // `/v1alpha` route needs a token.
        for route in ROUTES
            .iter()
            .filter(|r| r.path.starts_with("/v1alpha/") && r.path != "/v1alpha/openapi.json")
        {
            assert!(
                route.scope.is_some(),
                "{} {} has no scope",
                route.method,
                route.path
            );
        }
    }
}
