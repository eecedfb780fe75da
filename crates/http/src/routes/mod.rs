//! Every route of the API, declared once in its module: the method, the path as the
//! OpenAPI document shows it, the scope it needs and its handler (`route_table!`),
//! with the handlers of a resource's standard methods written from the same line
//! (`resource_routes!`). `route_modules!` assembles the modules' rows into
//! [`ROUTES`], which registration with actix, the OpenAPI document's operations and
//! the route-coverage tests read.

#[macro_use]
mod declare;

pub mod activity_log_types;
pub mod activity_logs;
pub mod alerts;
pub mod automations;
pub mod documents;
pub mod entities;
pub mod events;
pub mod files;
pub mod form_definitions;
pub mod forms;
pub mod health;
pub mod hosted;
pub mod jobs;
pub mod notes;
pub mod oauth;
pub mod operation_id;
pub mod risk;
pub mod screening_lists;
pub mod standard;
pub mod tenants;
pub mod verification;
pub mod webhook_endpoints;
pub mod workspaces;

use std::sync::{Arc, LazyLock};

use actix_web::HttpMessage;
use actix_web::body::BoxBody;
use actix_web::dev::{ResourceDef, ServiceRequest};
use actix_web::http::Method;
use actix_web::middleware::{Next, from_fn};
use actix_web::{FromRequest, Handler, HttpResponse, Responder, guard, web};
use rics_domain::error::Error;
use rics_domain::list::ListSpec;
use rics_domain::principal::Scope;
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
pub(crate) fn total_size(total: i64) -> i32 {
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

/// The paging parameters of a List (AIP-158), as the document shows them.
#[derive(Debug, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(non_snake_case, dead_code)]
pub struct PageParams {
    /// Default 50, at most 1000 (larger values are coerced)
    pageSize: Option<i32>,
    /// Token from a previous response; every other parameter must be unchanged
    pageToken: Option<String>,
    /// Items to skip before the page
    skip: Option<i32>,
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
    /// A List's declaration (limits, filter schema, order fields): the document states
    /// its `filter` and `orderBy` from it.
    pub list: Option<&'static LazyLock<ListSpec>>,
}

/// Registers one route: a resource answering only `method`, gated by `scope`, its
/// path variables checked ([`crate::extract::path_variables`]) once the gate has
/// admitted the caller.
pub(crate) fn register<F, Args>(
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

/// The modules whose rows make the route table, in its order; each declares its rows
/// with `route_table!` or `resource_routes!`.
macro_rules! route_modules {
    ($($($module:ident)::+),+ $(,)?) => {
        /// Each module's rows.
        const TABLES: &[&[Route]] = &[$($($module)::+::ROUTES),+];

        /// Registers every route of [`ROUTES`] with its handler, behind the
        /// authentication gate when it names a scope.
        pub fn configure(config: &mut web::ServiceConfig) {
            $( $($module)::+::configure(config); )+
        }

        /// Adds the operation of every route of [`ROUTES`] (and the schemas they refer
        /// to) to `document`.
        pub fn add_operations(document: &mut utoipa::openapi::OpenApi) {
            $( document.merge(<$($module)::+::Api as utoipa::OpenApi>::openapi()); )+
        }
    };
}

route_modules!(
    health,
    oauth,
    entities,
    events,
    jobs::pep_sanction,
    jobs::match_reviews,
    jobs::risk_rating,
    jobs::id_verification,
    jobs::onboarding,
    jobs::identity_verification,
    jobs::identity_verification_changes,
    risk,
    notes::of_entities,
    workspaces,
    notes::of_workspaces,
    activity_log_types,
    activity_logs,
    alerts,
    documents,
    form_definitions,
    forms,
    automations,
    files::of_entities,
    files::of_forms,
    screening_lists,
    tenants,
    webhook_endpoints,
    hosted,
    verification,
);

/// Every route of the API: the rows of each module of `TABLES`, in order.
pub const ROUTES: &[Route] = &ALL_ROUTES;

const ALL_ROUTES: [Route; row_count()] = concatenate();

const fn row_count() -> usize {
    let mut count = 0;
    let mut table = 0;
    while table < TABLES.len() {
        count += TABLES[table].len();
        table += 1;
    }
    count
}

/// The rows of [`TABLES`] in one array (`N` is [`row_count`]); the first row fills it
/// before each place gets its own.
const fn concatenate<const N: usize>() -> [Route; N] {
    let mut rows = [TABLES[0][0]; N];
    let mut next = 0;
    let mut table = 0;
    while table < TABLES.len() {
        let mut row = 0;
        while row < TABLES[table].len() {
            rows[next] = TABLES[table][row];
            next += 1;
            row += 1;
        }
        table += 1;
    }
    rows
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

/// The route template of a request, as [`label_of`] keeps it in the request's extensions.
#[derive(Debug, Clone)]
struct RouteLabel(Arc<str>);

/// The route template of a request (`/v1alpha/entities/{entity}`), or `unmatched` for a
/// path of no route: the label of its log span and its metrics.
///
/// Matching the path against the route table again is a regular-expression walk of
/// every route (about 1 % of a GET's CPU, docs/benchmarks.md), so the first middleware
/// that asks keeps the answer in the request's extensions and the next reads it there.
pub fn label_of(request: &ServiceRequest) -> Arc<str> {
    if let Some(RouteLabel(label)) = request.extensions().get::<RouteLabel>() {
        return Arc::clone(label);
    }
    let label: Arc<str> = request
        .match_pattern()
        .map_or_else(|| "unmatched".into(), |p| openapi_path(&p).into());
    request
        .extensions_mut()
        .insert(RouteLabel(Arc::clone(&label)));
    label
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
        // The OpenAPI document and Truuth's callback (authenticated by the tenant's
        // callback secret) are public; every other `/v1alpha` route needs a token.
        for route in ROUTES.iter().filter(|r| {
            r.path.starts_with("/v1alpha/")
                && r.path != "/v1alpha/openapi.json"
                && r.path != verification::TRUUTH_CALLBACK
        }) {
            assert!(
                route.scope.is_some(),
                "{} {} has no scope",
                route.method,
                route.path
            );
        }
    }
}
