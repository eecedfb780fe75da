//! Notes over HTTP, under entities and under workspaces: written as the caller, changed
//! and deleted by their author only, unreachable while their parent is deleted, paged
//! 50 by default and at most 1000.

use rics::admin::CreateClient;
use rics_domain::principal::Scope;
use rics_e2e::*;
use serde_json::json;

const WORKSPACES: &str = "/v1alpha/workspaces";

/// A token of a second client of the partner tenant: another author.
fn colleague_token(server: &Server) -> String {
    let registered = server.register_client(CreateClient {
        tenant: server.partner().to_owned(),
        name: "Colleague".into(),
        scopes: vec![Scope::Read, Scope::Write],
        redirect_uris: vec![],
        public: false,
        client_id: Some("colleague".into()),
        settings: Default::default(),
    });
    server.client_token(
        "colleague",
        registered["clientSecret"].as_str().unwrap(),
        None,
    )
}

/// The notes collection of each kind of parent, both created.
fn parents(server: &Server) -> [String; 2] {
    server.create_person("jane-doe", "Jane Doe");
    server
        .post(
            &format!("{WORKSPACES}?workspaceId=case-1"),
            &json!({"displayName": "Case 1"}),
        )
        .ok();
    [
        format!("{ENTITIES}/jane-doe/notes"),
        format!("{WORKSPACES}/case-1/notes"),
    ]
}

on_both_backends! {
    /// A note records its author from the token; reads back by name (with the spec's
    /// `notes/{note}` form of `?name=`); the first change marks it edited; deleting it
    /// returns it; each change is an event.
    fn notes_round_trip_under_both_parents(server) {
        for collection in parents(&server) {
            let parent = collection.trim_start_matches("/v1alpha/").trim_end_matches("/notes").to_owned();
            let note = server.post(&collection, &json!({"content": "Called the client.", "authorId": "forged"})).ok();
            let name = note["name"].as_str().unwrap().to_owned();
            assert!(name.starts_with(&format!("{parent}/notes/")), "{name}");
            assert_eq!(note["authorId"], ADMIN_CLIENT_ID);
            assert!(note["author"].as_str().is_some_and(|a| !a.is_empty()));
            assert!(note.get("isEdited").is_none(), "false is omitted: {note}");
            timestamp(&note["createTime"]);
            let id = name.rsplit('/').next().unwrap();
            let path = format!("/v1alpha/{name}");
            assert_eq!(server.get(&path).ok(), note);
            assert_eq!(server.get(&format!("{path}?name=notes/{id}")).ok(), note);
            assert_eq!(server.get(&format!("{path}?name={}", encode(&name))).ok(), note);
            server.get(&format!("{path}?name=notes/other")).invalid("NAME_MISMATCH", "name");

            let chosen = server.post(&collection, &json!({"name": format!("{parent}/notes/follow-up"), "content": "Next week."})).ok();
            assert_eq!(chosen["name"], format!("{parent}/notes/follow-up"));
            server.post(&collection, &json!({"name": format!("{parent}/notes/follow-up"), "content": "Again"}))
                .error(409, "ALREADY_EXISTS", "RESOURCE_ALREADY_EXISTS");

            let unchanged = server.patch(&path, &json!({"content": "Called the client."})).ok();
            assert_eq!(unchanged, note, "no change, no edit");
            let edited = server.patch(&path, &json!({"name": name, "content": "Called the client twice."})).ok();
            assert_eq!(edited["isEdited"], true);
            assert_eq!(edited["content"], "Called the client twice.");
            assert_ne!(edited["etag"], note["etag"]);
            assert_eq!(edited["createTime"], note["createTime"]);
            server.patch(&format!("{path}?updateMask=content"), &json!({"content": "x", "etag": note["etag"]}))
                .error(409, "ABORTED", "ETAG_MISMATCH");
            let listed = server.get(&format!("{collection}?parent={}", encode(&parent))).ok();
            assert_eq!(names(&listed["notes"]), vec![name.clone(), format!("{parent}/notes/follow-up")]);
            assert_eq!(listed["totalSize"], 2);
            server.get(&format!("{collection}?parent=entities/someone-else")).invalid("PARENT_MISMATCH", "parent");

            let deleted = server.delete(&path).ok();
            assert_eq!(deleted, edited, "the deleted note as it was");
            server.get(&path).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
            server.delete(&path).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        }
        // An entity's note events are the entity's.
        let events = server.get(&format!("{ENTITIES}/jane-doe/events?pageSize=100")).ok();
        let types: Vec<&str> = array(&events["events"]).iter().map(|e| e["eventType"].as_str().unwrap()).collect();
        assert_eq!(types, ["entity.created", "note.created", "note.created", "note.updated", "note.deleted"]);
    }

    /// Only the author changes or deletes a note; others may read it.
    fn only_the_author_changes_a_note(server) {
        let [entity_notes, workspace_notes] = parents(&server);
        let colleague = colleague_token(&server);
        for collection in [entity_notes, workspace_notes] {
            let note = server.post(&collection, &json!({"content": "Mine."})).ok();
            let path = format!("/v1alpha/{}", note["name"].as_str().unwrap());
            let as_colleague = |method: Method| server.request_as(Some(&colleague), method, &path);
            assert_eq!(server.send(as_colleague(Method::GET)).ok(), note);
            server.send(as_colleague(Method::PATCH).json(&json!({"content": "Ours."})))
                .error(403, "PERMISSION_DENIED", "NOT_NOTE_AUTHOR");
            server.send(as_colleague(Method::DELETE)).error(403, "PERMISSION_DENIED", "NOT_NOTE_AUTHOR");
            assert_eq!(server.get(&path).ok(), note, "unchanged");
            let theirs = server.send(server.request_as(Some(&colleague), Method::POST, &collection).json(&json!({"content": "Theirs."}))).ok();
            assert_eq!(theirs["authorId"], "colleague");
            let their_path = format!("/v1alpha/{}", theirs["name"].as_str().unwrap());
            server.delete(&their_path).error(403, "PERMISSION_DENIED", "NOT_NOTE_AUTHOR");
        }
    }

    /// The bad inputs of a note.
    fn bad_notes_are_refused(server) {
        let [collection, _] = parents(&server);
        server.post(&collection, &json!({})).invalid("INVALID_FIELDS", "note.content");
        server.post(&collection, &json!({"content": ""})).invalid("INVALID_FIELDS", "note.content");
        server.post(&collection, &json!({"content": "x".repeat(100 * 1024 + 1)})).invalid("INVALID_FIELDS", "note.content");
        server.post(&collection, &json!({"content": "x".repeat(100 * 1024)})).ok();
        server.post(&collection, &json!({"content": "x", "colour": "red"})).invalid("UNKNOWN_FIELD", "note.colour");
        server.post(&collection, &json!({"content": "x", "name": "entities/john/notes/abcd"})).invalid("NAME_MISMATCH", "note.name");
        server.post(&collection, &json!({"content": "x", "name": "entities/jane-doe/notes/AB"})).invalid("INVALID_RESOURCE_ID", "note.name");
        let first = server.post(&collection, &json!({"name": "notes/first", "content": "one"})).ok();
        server.post(&collection, &json!({"name": "notes/second", "content": "two"})).ok();
        let path = format!("/v1alpha/{}", first["name"].as_str().unwrap());
        // Patching a note's name to another note's.
        server.patch(&path, &json!({"name": "entities/jane-doe/notes/second", "content": "moved"})).invalid("NAME_MISMATCH", "note.name");
        // Without a mask an empty field is not populated, so nothing changes; with one it
        // empties a required field.
        assert_eq!(server.patch(&path, &json!({"content": ""})).ok()["content"], "one");
        server.patch(&format!("{path}?updateMask=content"), &json!({"content": ""})).invalid("REQUIRED_FIELD_MISSING", "note.content");
        server.patch(&format!("{path}?updateMask=colour"), &json!({"content": "x"})).invalid("UNKNOWN_UPDATE_MASK_PATH", "updateMask");
        server.get(&format!("{ENTITIES}/nobody/notes")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        server.post(&format!("{ENTITIES}/nobody/notes"), &json!({"content": "x"})).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        server.get(&format!("{collection}?pageSize=-1")).invalid("INVALID_PAGE_SIZE", "pageSize");
        server.get(&format!("{collection}?filter=colour%3D1")).invalid("UNKNOWN_FILTER_FIELD", "filter");
    }

    /// The notes of a deleted entity or workspace cannot be reached until it is
    /// restored; a closed workspace's notes can be read but not changed.
    fn notes_follow_their_parent(server) {
        let [entity_notes, workspace_notes] = parents(&server);
        let on_entity = server.post(&entity_notes, &json!({"content": "About Jane."})).ok();
        let on_case = server.post(&workspace_notes, &json!({"content": "About the case."})).ok();
        server.delete(&format!("{ENTITIES}/jane-doe")).ok();
        server.delete(&format!("{WORKSPACES}/case-1")).ok();
        for (collection, note) in [(&entity_notes, &on_entity), (&workspace_notes, &on_case)] {
            let path = format!("/v1alpha/{}", note["name"].as_str().unwrap());
            server.get(&path).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
            server.get(collection).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
            server.post(collection, &json!({"content": "x"})).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
            server.patch(&path, &json!({"content": "x"})).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
            server.delete(&path).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        }
        server.post(&format!("{ENTITIES}/jane-doe:undelete"), &json!({})).ok();
        server.post(&format!("{WORKSPACES}/case-1:undelete"), &json!({})).ok();
        assert_eq!(server.get(&format!("/v1alpha/{}", on_entity["name"].as_str().unwrap())).ok(), on_entity);

        server.post(&format!("{WORKSPACES}/case-1:close"), &json!({})).ok();
        let path = format!("/v1alpha/{}", on_case["name"].as_str().unwrap());
        assert_eq!(server.get(&path).ok(), on_case);
        server.patch(&path, &json!({"content": "late"})).error(400, "FAILED_PRECONDITION", "WORKSPACE_CLOSED");
        server.post(&workspace_notes, &json!({"content": "late"})).error(400, "FAILED_PRECONDITION", "WORKSPACE_CLOSED");
        server.post(&format!("{WORKSPACES}/case-1:reopen"), &json!({})).ok();
        server.patch(&path, &json!({"content": "in time"})).ok();

        // Erasing the entity erases its notes.
        let receipt = server.delete(&format!("{ENTITIES}/jane-doe:hardDelete")).ok();
        assert_eq!(receipt["erasedCounts"]["notes"], 1);
    }

    /// Note lists page 50 by default and at most 1000 (larger sizes coerced); the
    /// token is bound to its parameters.
    fn note_lists_page(server) {
        let [collection, _] = parents(&server);
        for n in 0..1003 {
            server.post(&collection, &json!({"content": format!("note {n}")})).ok();
        }
        let first = server.get(&collection).ok();
        assert_eq!(array(&first["notes"]).len(), 50);
        assert_eq!(first["totalSize"], 1003);
        let coerced = server.get(&format!("{collection}?pageSize=5000")).ok();
        assert_eq!(array(&coerced["notes"]).len(), 1000);
        let token = coerced["nextPageToken"].as_str().unwrap();
        let rest = server.get(&format!("{collection}?pageSize=5000&pageToken={token}")).ok();
        assert_eq!(array(&rest["notes"]).len(), 3);
        assert!(rest.get("nextPageToken").is_none());
        let contents: Vec<&str> = array(&rest["notes"]).iter().map(|n| n["content"].as_str().unwrap()).collect();
        assert_eq!(contents, ["note 1000", "note 1001", "note 1002"]);
        server.get(&format!("{collection}?pageToken={token}&filter=isEdited%3Dtrue")).invalid("PAGE_TOKEN_REQUEST_MISMATCH", "pageToken");
        let skipped = server.get(&format!("{collection}?skip=1001")).ok();
        assert_eq!(array(&skipped["notes"]).len(), 2);
        let newest = server.get(&format!("{collection}?pageSize=1&orderBy=createTime%20desc")).ok();
        assert_eq!(newest["notes"][0]["content"], "note 1002");
    }
}
