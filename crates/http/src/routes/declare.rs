//! The macros a route module declares its routes with: `route_table!` for its rows of
//! the route table, `resource_routes!` for a resource whose standard methods
//! (AIP-131 to 135, AIP-164's Undelete) are generated with their OpenAPI operation, and
//! `list_response!` for the page a List answers.

/// Declares a module's rows of the route table, in order: each the method, the path as
/// the OpenAPI document shows it, optionally `as` its explicit `operationId`, the
/// handler (with its `#[utoipa::path]`) and the scope it needs. Emits `ROUTES` (the
/// rows), `configure` (registers them with actix) and `Api` (their OpenAPI operations);
/// [`super::ROUTES`] and the document assemble every module's.
macro_rules! route_table {
    ($( $method:ident $path:literal $(as $operation_id:literal)? => $($handler:ident)::+, $scope:expr $(, lists $spec:path)?; )+) => {
        /// This module's rows of the route table, in order.
        pub const ROUTES: &[$crate::routes::Route] = &[
            $( $crate::routes::Route {
                method: stringify!($method),
                path: $path,
                scope: $scope,
                operation_id: route_table!(@id $($operation_id)?),
                list: route_table!(@list $($spec)?),
            }, )+
        ];

        /// Registers this module's routes.
        pub fn configure(config: &mut actix_web::web::ServiceConfig) {
            $( $crate::routes::register(
                config,
                actix_web::http::Method::$method,
                $path,
                $scope,
                $($handler)::+,
            ); )+
        }

        /// This module's OpenAPI operations.
        #[derive(utoipa::OpenApi)]
        #[openapi(paths($($($handler)::+),+))]
        pub struct Api;
    };
    (@id $operation_id:literal) => { Some($operation_id) };
    (@id) => { None };
    (@list $spec:path) => { Some(&$spec) };
    (@list) => { None };
}

/// Declares the routes of a resource served by `state.$service`: its standard methods,
/// each a keyword, the path, the scope and what differs between resources, and rows of
/// hand-written handlers (custom methods) as in `route_table!`, in the order of the
/// route table. A standard method's doc comment is its operation's summary; the macro
/// writes its handler, whose body is the generic one of [`super::standard`], and its
/// `#[utoipa::path]`. The header names the resource's type, its OpenAPI tag and its path
/// variable as a utoipa parameter.
///
/// The standard methods:
/// - `list PATH, SCOPE, lists SPEC => PAGE, params(...);` GET, answering `PAGE`
///   (`list_response!`), with `showDeleted` when `SPEC` is soft-deletable;
/// - `create PATH, SCOPE, params(...);` POST, the id chosen by the query parameter the
///   service's `CreateMethod::ID_PARAMETER` names;
/// - `get PATH, SCOPE;` GET, with the redundant `name` parameter;
/// - `update PATH, SCOPE, params(...);` PATCH;
/// - `delete PATH, SCOPE, params(...);` DELETE, soft (AIP-164);
/// - `undelete PATH, SCOPE;` POST `:undelete`.
///
/// `params(...)` lists the parameters beyond the path variable, as utoipa reads them.
///
/// A Get or List whose service method is not the standard one (a parent in the path, a
/// version number, another service) names its handler and says how to call the
/// service, binding the caller's principal, the state and each path variable, in the
/// path's order (and, for a List, the list request):
/// - `get_by HANDLER PATH, SCOPE, params(...), names [...] => ANSWER, |caller, state, var...| CALL;`
///   GET answering `ANSWER`; the redundant `name` parameter must be one of `names`, or,
///   without `names`, no query parameter is accepted;
/// - `list_by HANDLER PATH, SCOPE, lists SPEC => PAGE, params(...), |caller, state, request, var...| CALL;`
///   GET answering `PAGE`, with `showDeleted` when `SPEC` is soft-deletable.
///
/// `params(...)` then lists every parameter, path variables included.
///
/// A resource under a parent collection (`entities/{entity}/notes/{note}`) adds to
/// the header `parent: Parent::Variant, ("entity" = String, Path, ...)`: the
/// constructor of its domain `Parent` from the parent's path variable, and that
/// variable as a utoipa parameter. Its handlers take the parent from the path and
/// address the service [`Within`](rics_domain::lifecycle::Within) it; a request may
/// name a resource in full or within its parent (`notes/{note}`). Its methods:
/// - `list PATH, SCOPE, lists SPEC => PAGE, params(...);` with the redundant `parent`;
/// - `create PATH, SCOPE, [id "xId",] body "description", params(...);` the id chosen
///   by the query's `xId`, or by the body;
/// - `get PATH, SCOPE, params(...);` (the params give the redundant `name`);
/// - `update PATH, SCOPE, body "description", params(...);`
/// - `delete PATH, SCOPE, removes, params(...);` DELETE removing it for good
///   ([`DeleteMethod`](rics_domain::lifecycle::DeleteMethod)), with the redundant
///   `name` and `etag`;
/// - `delete PATH, SCOPE, params(...);` DELETE, soft (AIP-164), with `etag` and
///   `allowMissing`;
/// - `undelete PATH, SCOPE;` POST `:undelete`.
macro_rules! resource_routes {
    (
        service: $service:ident, resource: $resource:ident, tag: $tag:literal, id: $id:tt;
        $($routes:tt)+
    ) => {
        resource_routes!(@route [$service $resource $tag $id] [] $($routes)+);
    };

    (@route [$service:ident $resource:ident $tag:literal $id:tt] [$($rows:tt)*]
        $(#[$doc:meta])* list $path:literal, $scope:expr, lists $spec:path => $page:ident, params($($params:tt)*);
        $($rest:tt)*
    ) => {
        $(#[$doc])*
        #[utoipa::path(get, path = $path, tag = $tag, params($($params)*),
            responses((status = 200, body = $page), (status = 400, body = crate::error::ErrorEnvelope)))]
        pub async fn list(
            caller: $crate::extract::Caller,
            req: actix_web::HttpRequest,
            state: actix_web::web::Data<$crate::state::ApiState>,
        ) -> $crate::routes::Response {
            $crate::routes::standard::list::<_, $page>(&req, $spec.soft_delete, async |request| {
                state.$service.list(&caller.0, request).await
            })
            .await
        }

        resource_routes!(@route [$service $resource $tag $id] [$($rows)* GET $path => list, $scope, lists $spec;] $($rest)*);
    };

    (@route [$service:ident $resource:ident $tag:literal $id:tt] [$($rows:tt)*]
        $(#[$doc:meta])* create $path:literal, $scope:expr, params($($params:tt)*);
        $($rest:tt)*
    ) => {
        $(#[$doc])*
        #[utoipa::path(post, path = $path, tag = $tag, params($($params)*), request_body = $resource,
            responses((status = 200, body = $resource), (status = 400, body = crate::error::ErrorEnvelope), (status = 404, body = crate::error::ErrorEnvelope), (status = 409, body = crate::error::ErrorEnvelope)))]
        pub async fn create(
            caller: $crate::extract::Caller,
            req: actix_web::HttpRequest,
            state: actix_web::web::Data<$crate::state::ApiState>,
            body: $crate::extract::JsonBody,
        ) -> $crate::routes::Response {
            $crate::routes::standard::create(&req, state.$service.as_ref(), &caller.0, body.0).await
        }

        resource_routes!(@route [$service $resource $tag $id] [$($rows)* POST $path => create, $scope;] $($rest)*);
    };

    (@route [$service:ident $resource:ident $tag:literal $id:tt] [$($rows:tt)*]
        $(#[$doc:meta])* get $path:literal, $scope:expr;
        $($rest:tt)*
    ) => {
        $(#[$doc])*
        #[utoipa::path(get, path = $path, tag = $tag,
            params($id, ("name" = Option<String>, Query, description = "Redundant resource name; must match the path")),
            responses((status = 200, body = $resource), (status = 404, body = crate::error::ErrorEnvelope)))]
        pub async fn get(
            caller: $crate::extract::Caller,
            req: actix_web::HttpRequest,
            path: actix_web::web::Path<String>,
            state: actix_web::web::Data<$crate::state::ApiState>,
        ) -> $crate::routes::Response {
            let name = $resource::name_of(&path);
            $crate::routes::standard::get(&req, &[&name, &path], state.$service.get(&caller.0, &path))
                .await
        }

        resource_routes!(@route [$service $resource $tag $id] [$($rows)* GET $path => get, $scope;] $($rest)*);
    };

    (@route [$service:ident $resource:ident $tag:literal $id:tt] [$($rows:tt)*]
        $(#[$doc:meta])* update $path:literal, $scope:expr, params($($params:tt)*);
        $($rest:tt)*
    ) => {
        $(#[$doc])*
        #[utoipa::path(patch, path = $path, tag = $tag, params($id, $($params)*), request_body = $resource,
            responses((status = 200, body = $resource), (status = 400, body = crate::error::ErrorEnvelope), (status = 404, body = crate::error::ErrorEnvelope), (status = 409, body = crate::error::ErrorEnvelope)))]
        pub async fn update(
            caller: $crate::extract::Caller,
            req: actix_web::HttpRequest,
            path: actix_web::web::Path<String>,
            state: actix_web::web::Data<$crate::state::ApiState>,
            body: $crate::extract::JsonBody,
        ) -> $crate::routes::Response {
            $crate::routes::standard::update(&req, async |mask| {
                let service = state.$service.as_ref();
                rics_domain::methods::UpdateMethod::update(service, &caller.0, &path, body.0, mask)
                    .await
            })
            .await
        }

        resource_routes!(@route [$service $resource $tag $id] [$($rows)* PATCH $path => update, $scope;] $($rest)*);
    };

    (@route [$service:ident $resource:ident $tag:literal $id:tt] [$($rows:tt)*]
        $(#[$doc:meta])* delete $path:literal, $scope:expr, params($($params:tt)*);
        $($rest:tt)*
    ) => {
        $(#[$doc])*
        #[utoipa::path(delete, path = $path, tag = $tag, params($id, $($params)*),
            responses((status = 200, body = $resource), (status = 404, body = crate::error::ErrorEnvelope), (status = 409, body = crate::error::ErrorEnvelope)))]
        pub async fn delete(
            caller: $crate::extract::Caller,
            req: actix_web::HttpRequest,
            path: actix_web::web::Path<String>,
            state: actix_web::web::Data<$crate::state::ApiState>,
        ) -> $crate::routes::Response {
            $crate::routes::standard::delete(state.$service.as_ref(), &caller.0, &req, &path).await
        }

        resource_routes!(@route [$service $resource $tag $id] [$($rows)* DELETE $path => delete, $scope;] $($rest)*);
    };

    (@route [$service:ident $resource:ident $tag:literal $id:tt] [$($rows:tt)*]
        $(#[$doc:meta])* undelete $path:literal, $scope:expr;
        $($rest:tt)*
    ) => {
        $(#[$doc])*
        #[utoipa::path(post, path = $path, tag = $tag, params($id), request_body = crate::routes::EtagRequest,
            responses((status = 200, body = $resource), (status = 404, body = crate::error::ErrorEnvelope), (status = 409, body = crate::error::ErrorEnvelope)))]
        pub async fn undelete(
            caller: $crate::extract::Caller,
            _query: $crate::extract::NoQuery,
            path: actix_web::web::Path<String>,
            state: actix_web::web::Data<$crate::state::ApiState>,
            body: $crate::extract::JsonBody,
        ) -> $crate::routes::Response {
            $crate::routes::standard::undelete(state.$service.as_ref(), &caller.0, &path, body).await
        }

        resource_routes!(@route [$service $resource $tag $id] [$($rows)* POST $path => undelete, $scope;] $($rest)*);
    };

    (@route [$service:ident $resource:ident $tag:literal $id:tt] [$($rows:tt)*]
        $(#[$doc:meta])* get_by $handler:ident $path:literal $(as $operation_id:literal)?, $scope:expr,
            params($($params:tt)*) $(, names [$($name:expr),+])? => $answer:ty,
            |$caller:ident, $state:ident $(, $var:ident)*| $call:expr;
        $($rest:tt)*
    ) => {
        resource_routes!(@read [$(#[$doc])*] $handler $path $tag [$($params)*] $answer,
            |req, $caller, $state $(, $var)*|
            $crate::routes::standard::read(&req, resource_routes!(@names $([$($name),+])?), $call).await);

        resource_routes!(@route [$service $resource $tag $id] [$($rows)* GET $path $(as $operation_id)? => $handler, $scope;] $($rest)*);
    };

    (@route [$service:ident $resource:ident $tag:literal $id:tt] [$($rows:tt)*]
        $(#[$doc:meta])* list_by $handler:ident $path:literal $(as $operation_id:literal)?, $scope:expr,
            lists $spec:path => $page:ident, params($($params:tt)*),
            |$caller:ident, $state:ident, $request:ident $(, $var:ident)*| $call:expr;
        $($rest:tt)*
    ) => {
        resource_routes!(@read [$(#[$doc])*] $handler $path $tag [$($params)*] $page,
            |req, $caller, $state $(, $var)*|
            $crate::routes::standard::list::<_, $page>(&req, $spec.soft_delete, async |$request| $call.await).await);

        resource_routes!(@route [$service $resource $tag $id] [$($rows)* GET $path $(as $operation_id)? => $handler, $scope, lists $spec;] $($rest)*);
    };

    (@read [$($doc:tt)*] $handler:ident $path:literal $tag:literal [$($params:tt)*] $answer:ty,
        |$req:ident, $caller:ident, $state:ident $(, $var:ident)*| $body:expr) => {
        $($doc)*
        #[utoipa::path(get, path = $path, tag = $tag, params($($params)*),
            responses((status = 200, body = $answer), (status = 400, body = crate::error::ErrorEnvelope), (status = 404, body = crate::error::ErrorEnvelope)))]
        pub async fn $handler(
            caller: $crate::extract::Caller,
            $req: actix_web::HttpRequest,
            path: actix_web::web::Path<($(resource_routes!(@text $var),)*)>,
            state: actix_web::web::Data<$crate::state::ApiState>,
        ) -> $crate::routes::Response {
            let ($($var,)*) = path.into_inner();
            let ($caller, $state) = (&caller.0, &state);
            $body
        }
    };

    (@text $var:ident) => { String };
    (@names [$($name:expr),+]) => { Some(&[$($name),+]) };
    (@names) => { None };

    (
        service: $service:ident, resource: $resource:ident, tag: $tag:literal, id: $id:tt,
        parent: $parent:path, $parent_param:tt;
        $($routes:tt)+
    ) => {
        resource_routes!(@route [$service $resource $tag $id parent $parent, $parent_param] [] $($routes)+);
    };

    (@route [$service:ident $resource:ident $tag:literal $id:tt parent $parent:path, $parent_param:tt] [$($rows:tt)*]
        $(#[$doc:meta])* list $path:literal, $scope:expr, lists $spec:path => $page:ident, params($($params:tt)*);
        $($rest:tt)*
    ) => {
        resource_routes!(@handler [$(#[$doc])*] list get $path $tag [$parent_param, $($params)*]
            [responses((status = 200, body = $page), (status = 400, body = crate::error::ErrorEnvelope), (status = 404, body = crate::error::ErrorEnvelope))]
            (caller, req, path: String, state) {
                let within = rics_domain::lifecycle::Within::new(state.$service.as_ref(), $parent(path.into_inner()));
                let parent = rics_domain::resource::Parent::name(&within.parent);
                $crate::routes::standard::list_in::<_, $page>(&req, &parent, $spec.soft_delete, async |request| {
                    within.list(&caller.0, request).await
                })
                .await
            });
        resource_routes!(@route [$service $resource $tag $id parent $parent, $parent_param] [$($rows)* GET $path => list, $scope, lists $spec;] $($rest)*);
    };

    (@route [$service:ident $resource:ident $tag:literal $id:tt parent $parent:path, $parent_param:tt] [$($rows:tt)*]
        $(#[$doc:meta])* create $path:literal, $scope:expr, $(id $id_param:literal,)? body $body_doc:literal, params($($params:tt)*);
        $($rest:tt)*
    ) => {
        resource_routes!(@handler [$(#[$doc])*] create post $path $tag [$parent_param, $($params)*]
            [request_body(content = $resource, description = $body_doc),
                responses((status = 200, body = $resource), (status = 400, body = crate::error::ErrorEnvelope), (status = 404, body = crate::error::ErrorEnvelope), (status = 409, body = crate::error::ErrorEnvelope))]
            (caller, req, path: String, state, body) {
                let within = rics_domain::lifecycle::Within::new(state.$service.as_ref(), $parent(path.into_inner()));
                $crate::routes::standard::create_with(&req, None $(.or(Some($id_param)))?, async |id, request_id| {
                    rics_domain::methods::CreateMethod::create(&within, &caller.0, body.0, id, request_id).await
                })
                .await
            });
        resource_routes!(@route [$service $resource $tag $id parent $parent, $parent_param] [$($rows)* POST $path => create, $scope;] $($rest)*);
    };

    (@route [$service:ident $resource:ident $tag:literal $id:tt parent $parent:path, $parent_param:tt] [$($rows:tt)*]
        $(#[$doc:meta])* get $path:literal, $scope:expr, params($($params:tt)*);
        $($rest:tt)*
    ) => {
        resource_routes!(@handler [$(#[$doc])*] get get $path $tag [$parent_param, $id, $($params)*]
            [responses((status = 200, body = $resource), (status = 404, body = crate::error::ErrorEnvelope))]
            (caller, req, path: (String, String), state) {
                let (parent, id) = path.into_inner();
                let within = rics_domain::lifecycle::Within::new(state.$service.as_ref(), $parent(parent));
                let names = resource_routes!(@full_and_short within, $resource, id);
                $crate::routes::standard::get(&req, &[&names.0, &names.1], within.get(&caller.0, &id)).await
            });
        resource_routes!(@route [$service $resource $tag $id parent $parent, $parent_param] [$($rows)* GET $path => get, $scope;] $($rest)*);
    };

    (@route [$service:ident $resource:ident $tag:literal $id:tt parent $parent:path, $parent_param:tt] [$($rows:tt)*]
        $(#[$doc:meta])* update $path:literal, $scope:expr, body $body_doc:literal, params($($params:tt)*);
        $($rest:tt)*
    ) => {
        resource_routes!(@handler [$(#[$doc])*] update patch $path $tag [$parent_param, $id, $($params)*]
            [request_body(content = $resource, description = $body_doc),
                responses((status = 200, body = $resource), (status = 400, body = crate::error::ErrorEnvelope), (status = 404, body = crate::error::ErrorEnvelope), (status = 409, body = crate::error::ErrorEnvelope))]
            (caller, req, path: (String, String), state, body) {
                let (parent, id) = path.into_inner();
                let within = rics_domain::lifecycle::Within::new(state.$service.as_ref(), $parent(parent));
                $crate::routes::standard::update(&req, async |mask| {
                    rics_domain::methods::UpdateMethod::update(&within, &caller.0, &id, body.0, mask).await
                })
                .await
            });
        resource_routes!(@route [$service $resource $tag $id parent $parent, $parent_param] [$($rows)* PATCH $path => update, $scope;] $($rest)*);
    };

    (@route [$service:ident $resource:ident $tag:literal $id:tt parent $parent:path, $parent_param:tt] [$($rows:tt)*]
        $(#[$doc:meta])* delete $path:literal, $scope:expr, removes, params($($params:tt)*);
        $($rest:tt)*
    ) => {
        resource_routes!(@handler [$(#[$doc])*] delete delete $path $tag [$parent_param, $id, $($params)*]
            [responses((status = 200, body = $resource), (status = 404, body = crate::error::ErrorEnvelope), (status = 409, body = crate::error::ErrorEnvelope))]
            (caller, req, path: (String, String), state) {
                let (parent, id) = path.into_inner();
                let within = rics_domain::lifecycle::Within::new(state.$service.as_ref(), $parent(parent));
                let names = resource_routes!(@full_and_short within, $resource, id);
                $crate::routes::standard::remove(&within, &caller.0, &req, &id, &[&names.0, &names.1]).await
            });
        resource_routes!(@route [$service $resource $tag $id parent $parent, $parent_param] [$($rows)* DELETE $path => delete, $scope;] $($rest)*);
    };

    (@route [$service:ident $resource:ident $tag:literal $id:tt parent $parent:path, $parent_param:tt] [$($rows:tt)*]
        $(#[$doc:meta])* delete $path:literal, $scope:expr, params($($params:tt)*);
        $($rest:tt)*
    ) => {
        resource_routes!(@handler [$(#[$doc])*] delete delete $path $tag [$parent_param, $id, $($params)*]
            [responses((status = 200, body = $resource), (status = 404, body = crate::error::ErrorEnvelope), (status = 409, body = crate::error::ErrorEnvelope))]
            (caller, req, path: (String, String), state) {
                let (parent, id) = path.into_inner();
                let within = rics_domain::lifecycle::Within::new(state.$service.as_ref(), $parent(parent));
                $crate::routes::standard::delete(&within, &caller.0, &req, &id).await
            });
        resource_routes!(@route [$service $resource $tag $id parent $parent, $parent_param] [$($rows)* DELETE $path => delete, $scope;] $($rest)*);
    };

    (@route [$service:ident $resource:ident $tag:literal $id:tt parent $parent:path, $parent_param:tt] [$($rows:tt)*]
        $(#[$doc:meta])* undelete $path:literal, $scope:expr;
        $($rest:tt)*
    ) => {
        resource_routes!(@handler [$(#[$doc])*] undelete post $path $tag [$parent_param, $id]
            [request_body = crate::routes::EtagRequest,
                responses((status = 200, body = $resource), (status = 404, body = crate::error::ErrorEnvelope), (status = 409, body = crate::error::ErrorEnvelope))]
            (caller, req, path: (String, String), state, body) {
                $crate::extract::QueryParams::parse(req.query_string())?.finish()?;
                let (parent, id) = path.into_inner();
                let within = rics_domain::lifecycle::Within::new(state.$service.as_ref(), $parent(parent));
                $crate::routes::standard::undelete(&within, &caller.0, &id, body).await
            });
        resource_routes!(@route [$service $resource $tag $id parent $parent, $parent_param] [$($rows)* POST $path => undelete, $scope;] $($rest)*);
    };

    // One handler of a resource under a parent: its doc comment, its operation (the
    // HTTP method, the parameters, then the body and responses) and its function, whose
    // parameters the caller names so that its block can use them.
    (@handler [$($doc:tt)*] $name:ident $http:ident $path:literal $tag:literal [$($params:tt)*] [$($operation:tt)*]
        ($caller:ident, $req:ident, $path_var:ident: $path_type:ty, $state:ident $(, $json:ident)?) $block:block
    ) => {
        $($doc)*
        #[utoipa::path($http, path = $path, tag = $tag, params($($params)*), $($operation)*)]
        pub async fn $name(
            $caller: $crate::extract::Caller,
            $req: actix_web::HttpRequest,
            $path_var: actix_web::web::Path<$path_type>,
            $state: actix_web::web::Data<$crate::state::ApiState>,
            $($json: $crate::extract::JsonBody,)?
        ) -> $crate::routes::Response $block
    };

    // The names a request may give the resource `id` under the parent: in full, and
    // within the parent.
    (@full_and_short $within:ident, $resource:ident, $id:ident) => {
        (
            rics_domain::lifecycle::StoreVersions::name_of(&$within, &$id),
            <$resource as rics_domain::resource::Named>::name_of(&$id),
        )
    };

    (@route $header:tt [$($rows:tt)*]
        $method:ident $path:literal $(as $operation_id:literal)? => $handler:ident, $scope:expr $(, lists $spec:path)?;
        $($rest:tt)*
    ) => {
        resource_routes!(@route $header [$($rows)* $method $path $(as $operation_id)? => $handler, $scope $(, lists $spec)?;] $($rest)*);
    };

    (@route $header:tt [$($rows:tt)*]) => {
        route_table! { $($rows)* }
    };
}

/// Declares the page a List answers: the items under their collection's key (AIP-132),
/// `nextPageToken` and `totalSize`, built from the domain's page.
macro_rules! list_response {
    (
        $(#[$doc:meta])*
        $name:ident {
            $(#[$items_doc:meta])*
            $items:ident: $item:ident,
            $(#[$total_doc:meta])*
            total_size,
        }
    ) => {
        $(#[$doc])*
        #[derive(Debug, serde::Serialize, utoipa::ToSchema)]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            $(#[$items_doc])*
            pub $items: Vec<$item>,
            /// Token of the next page; absent on the last page.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub next_page_token: Option<String>,
            $(#[$total_doc])*
            pub total_size: i32,
        }

        impl From<rics_domain::list::ListResponse<$item>> for $name {
            fn from(page: rics_domain::list::ListResponse<$item>) -> $name {
                $name {
                    $items: page.items,
                    next_page_token: page.next_page_token,
                    total_size: $crate::routes::total_size(page.total_size),
                }
            }
        }
    };
}
