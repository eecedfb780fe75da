//! The note routes, the same five under `entities/{entity}` and under
//! `workspaces/{workspace}`, each parent's in a module of its own.

use rics_domain::note::Note;

list_response! {
    /// A page of notes.
    ListNotesResponse {
        /// The notes, oldest first unless `orderBy` says otherwise.
        notes: Note,
        /// How many notes match.
        total_size,
    }
}

/// Declares the note routes under one kind of parent, in a module of its own: its
/// [`NoteParent`](rics_domain::note::NoteParent) variant, its path variable as a
/// utoipa parameter and the description of the redundant `parent` parameter, then
/// each route's path after its doc comment (the operation's summary).
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
            use rics_domain::note::{Note, NoteParent};
            use rics_domain::principal::Scope;

            use super::ListNotesResponse;

            resource_routes! {
                service: notes, resource: Note, tag: "notes",
                id: ("note" = String, Path, description = "Note id"),
                parent: NoteParent::$variant, $parent;

                $(#[$list_doc])*
                list $collection, Some(Scope::Read), lists rics_domain::note::fields::LIST => ListNotesResponse, params(
                    ("parent" = Option<String>, Query, description = $parent_name),
                    ("pageSize" = Option<i32>, Query, description = "Default 50, at most 1000 (larger values are coerced to 1000)"),
                    ("pageToken" = Option<String>, Query, description = "Token from a previous response; every other parameter must be unchanged"),
                    ("skip" = Option<i32>, Query, description = "Items to skip before the page"),
                    ("filter" = Option<String>, Query, description = "AIP-160 over authorId, isEdited, createTime, updateTime"),
                    ("orderBy" = Option<String>, Query, description = "createTime or updateTime, optionally ` desc`; default createTime"));
                $(#[$create_doc])*
                create $collection_again, Some(Scope::Write), body "`content` required; `name` optional, choosing the note's id", params(
                    ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent"));
                $(#[$get_doc])*
                get $item, Some(Scope::Read), params(
                    ("name" = Option<String>, Query, description = "Redundant name (`notes/{note}` or the full name); must match the path"));
                $(#[$update_doc])*
                update $item_again, Some(Scope::Write), body "The note; its `name`, when given, must be the note's", params(
                    ("updateMask" = Option<String>, Query, description = "`content` or `*`; absent = the populated fields of the body"));
                $(#[$delete_doc])*
                delete $item_once_more, Some(Scope::Write), removes, params(
                    ("name" = Option<String>, Query, description = "Redundant name (`notes/{note}` or the full name); must match the path"),
                    ("etag" = Option<String>, Query, description = "When given, must be the note's current etag"));
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
