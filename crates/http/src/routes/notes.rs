//! The note routes, the same five under `entities/{entity}` and under
//! `workspaces/{workspace}`: `note_routes!` declares each parent's, whose handlers
//! share one implementation.

use actix_web::HttpRequest;
use actix_web::web::Data;
use rics_domain::error::Error;
use rics_domain::note::{Note, NoteParent};

use super::{Response, check_name_param, ok};
use crate::error::ApiError;
use crate::extract::{Caller, JsonBody, QueryParams};
use crate::state::ApiState;

list_response! {
    /// A page of notes.
    ListNotesResponse {
        /// The notes, oldest first unless `orderBy` says otherwise.
        notes: Note,
        /// How many notes match.
        total_size,
    }
}

async fn list(
    caller: Caller,
    req: HttpRequest,
    parent: NoteParent,
    state: Data<ApiState>,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    if let Some(given) = query.take("parent")?
        && given != parent.name()
    {
        return Err(ApiError(Error::invalid_field(
            "parent",
            "PARENT_MISMATCH",
            format!("'{given}' does not match the path's '{}'", parent.name()),
        )));
    }
    let request = query.take_list(false)?;
    query.finish()?;
    let page = state.notes.list(&caller.0, &parent, &request).await?;
    ok(&ListNotesResponse::from(page))
}

async fn create(
    caller: Caller,
    req: HttpRequest,
    parent: NoteParent,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let request_id = query.take("requestId")?;
    query.finish()?;
    ok(&state
        .notes
        .create(&caller.0, &parent, body.0, request_id.as_deref())
        .await?)
}

/// Checks the redundant `name` parameter: the note's full name or `notes/{note}`.
fn check_note_name(query: &mut QueryParams, parent: &NoteParent, id: &str) -> Result<(), ApiError> {
    check_name_param(query, &[&parent.note_name(id), &format!("notes/{id}")])
}

async fn get(
    caller: Caller,
    req: HttpRequest,
    (parent, id): (NoteParent, String),
    state: Data<ApiState>,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    check_note_name(&mut query, &parent, &id)?;
    query.finish()?;
    ok(&state.notes.get(&caller.0, &parent, &id).await?)
}

async fn update(
    caller: Caller,
    req: HttpRequest,
    (parent, id): (NoteParent, String),
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let mask = query.take("updateMask")?;
    query.finish()?;
    ok(&state
        .notes
        .update(&caller.0, &parent, &id, body.0, mask.as_deref())
        .await?)
}

async fn delete(
    caller: Caller,
    req: HttpRequest,
    (parent, id): (NoteParent, String),
    state: Data<ApiState>,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    check_note_name(&mut query, &parent, &id)?;
    let etag = query.take("etag")?;
    query.finish()?;
    ok(&state
        .notes
        .delete(&caller.0, &parent, &id, etag.as_deref())
        .await?)
}

/// Declares the note routes under one kind of parent, in a module of their own: its
/// path variable as a utoipa parameter, its [`NoteParent`] variant and the description
/// of the redundant `parent` parameter, then each route's path after its doc comment
/// (the operation's summary).
macro_rules! note_routes {
    (
        $(#[$module_doc:meta])*
        mod $module:ident: $variant:ident, $parent:tt, $parent_name:literal;
        $(#[$list_doc:meta])* list $collection:literal;
        $(#[$create_doc:meta])* create $collection_again:literal;
        $(#[$get_doc:meta])* get $item:literal;
        $(#[$update_doc:meta])* update $item_again:literal;
        $(#[$delete_doc:meta])* delete $item_once_more:literal;
    ) => {
        $(#[$module_doc])*
        pub mod $module {
            use actix_web::HttpRequest;
            use actix_web::web::{Data, Path};
            use rics_domain::note::{Note, NoteParent};
            use rics_domain::principal::Scope;

            use super::ListNotesResponse;
            use crate::error::ErrorEnvelope;
            use crate::extract::{Caller, JsonBody};
            use crate::routes::Response;
            use crate::state::ApiState;

            route_table! {
                GET $collection => list, Some(Scope::Read), lists rics_domain::note::fields::LIST;
                POST $collection_again => create, Some(Scope::Write);
                GET $item => get, Some(Scope::Read);
                PATCH $item_again => update, Some(Scope::Write);
                DELETE $item_once_more => delete, Some(Scope::Write);
            }

            $(#[$list_doc])*
            #[utoipa::path(get, path = $collection, tag = "notes",
                params($parent,
                    ("parent" = Option<String>, Query, description = $parent_name),
                    ("pageSize" = Option<i32>, Query, description = "Default 50, at most 1000 (larger values are coerced to 1000)"),
                    ("pageToken" = Option<String>, Query, description = "Token from a previous response; every other parameter must be unchanged"),
                    ("skip" = Option<i32>, Query, description = "Items to skip before the page"),
                    ("filter" = Option<String>, Query, description = "AIP-160 over authorId, isEdited, createTime, updateTime"),
                    ("orderBy" = Option<String>, Query, description = "createTime or updateTime, optionally ` desc`; default createTime")),
                responses((status = 200, body = ListNotesResponse), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
            pub async fn list(
                caller: Caller,
                req: HttpRequest,
                path: Path<String>,
                state: Data<ApiState>,
            ) -> Response {
                super::list(caller, req, NoteParent::$variant(path.into_inner()), state).await
            }

            $(#[$create_doc])*
            #[utoipa::path(post, path = $collection_again, tag = "notes",
                params($parent, ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent")),
                request_body(content = Note, description = "`content` required; `name` optional, choosing the note's id"),
                responses((status = 200, body = Note), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
            pub async fn create(
                caller: Caller,
                req: HttpRequest,
                path: Path<String>,
                state: Data<ApiState>,
                body: JsonBody,
            ) -> Response {
                super::create(caller, req, NoteParent::$variant(path.into_inner()), state, body).await
            }

            $(#[$get_doc])*
            #[utoipa::path(get, path = $item, tag = "notes",
                params($parent, ("note" = String, Path, description = "Note id"),
                    ("name" = Option<String>, Query, description = "Redundant name (`notes/{note}` or the full name); must match the path")),
                responses((status = 200, body = Note), (status = 404, body = ErrorEnvelope)))]
            pub async fn get(
                caller: Caller,
                req: HttpRequest,
                path: Path<(String, String)>,
                state: Data<ApiState>,
            ) -> Response {
                super::get(caller, req, note(path), state).await
            }

            $(#[$update_doc])*
            #[utoipa::path(patch, path = $item_again, tag = "notes",
                params($parent, ("note" = String, Path, description = "Note id"),
                    ("updateMask" = Option<String>, Query, description = "`content` or `*`; absent = the populated fields of the body")),
                request_body(content = Note, description = "The note; its `name`, when given, must be the note's"),
                responses((status = 200, body = Note), (status = 400, body = ErrorEnvelope), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
            pub async fn update(
                caller: Caller,
                req: HttpRequest,
                path: Path<(String, String)>,
                state: Data<ApiState>,
                body: JsonBody,
            ) -> Response {
                super::update(caller, req, note(path), state, body).await
            }

            $(#[$delete_doc])*
            #[utoipa::path(delete, path = $item_once_more, tag = "notes",
                params($parent, ("note" = String, Path, description = "Note id"),
                    ("name" = Option<String>, Query, description = "Redundant name (`notes/{note}` or the full name); must match the path"),
                    ("etag" = Option<String>, Query, description = "When given, must be the note's current etag")),
                responses((status = 200, body = Note), (status = 403, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
            pub async fn delete(
                caller: Caller,
                req: HttpRequest,
                path: Path<(String, String)>,
                state: Data<ApiState>,
            ) -> Response {
                super::delete(caller, req, note(path), state).await
            }

            /// The note's parent and id, from the path.
            fn note(path: Path<(String, String)>) -> (NoteParent, String) {
                let (parent, note) = path.into_inner();
                (NoteParent::$variant(parent), note)
            }
        }
    };
}

note_routes! {
    /// The notes of an entity.
    mod of_entities: Entity, ("entity" = String, Path, description = "Entity id"),
        "Redundant parent name (`entities/{entity}`); must match the path";
    /// Lists an entity's notes.
    list "/v1alpha/entities/{entity}/notes";
    /// Writes a note about an entity as the caller.
    create "/v1alpha/entities/{entity}/notes";
    /// Gets a note about an entity.
    get "/v1alpha/entities/{entity}/notes/{note}";
    /// Changes a note about an entity; only its author may.
    update "/v1alpha/entities/{entity}/notes/{note}";
    /// Deletes a note about an entity for good and returns it; only its author may.
    delete "/v1alpha/entities/{entity}/notes/{note}";
}

note_routes! {
    /// The notes of a workspace.
    mod of_workspaces: Workspace, ("workspace" = String, Path, description = "Workspace id"),
        "Redundant parent name (`workspaces/{workspace}`); must match the path";
    /// Lists a workspace's notes.
    list "/v1alpha/workspaces/{workspace}/notes";
    /// Writes a note in a workspace as the caller; refused while the workspace is closed.
    create "/v1alpha/workspaces/{workspace}/notes";
    /// Gets a note of a workspace.
    get "/v1alpha/workspaces/{workspace}/notes/{note}";
    /// Changes a note of a workspace; only its author may, while the workspace is open.
    update "/v1alpha/workspaces/{workspace}/notes/{note}";
    /// Deletes a note of a workspace for good and returns it; only its author may.
    delete "/v1alpha/workspaces/{workspace}/notes/{note}";
}
