//! Automations over HTTP: the built-in automations every tenant has and cannot change,
//! definitions checked whole when stored (every fault at once, each naming its step),
//! revisions of the definition, soft delete and restore.

use rics_e2e::*;
use serde_json::{Value, json};

const AUTOMATIONS: &str = "/v1alpha/automations";

/// An automation tagging the entity it is given with `tag`.
fn tagger(tag: &str) -> Value {
    json!({
        "displayName": "Tagger",
        "inputSchema": {"entity": {"type": "string"}, "note": {"type": "string", "default": ""}},
        "steps": [
            {"key": "tag", "kind": "ADD_TAG", "args": {"entity": "${parameters.entity}", "tag": tag}},
            {"key": "log", "kind": "WRITE_ACTIVITY_LOG", "args": {"entity": "${parameters.entity}", "description": "Tagged ${parameters.note}"}}
        ]
    })
}

on_both_backends! {
    /// Every tenant has the five built-in automations, each taking `entity`, which
    /// cannot be changed or deleted.
    fn every_tenant_has_the_built_in_automations(server) {
        let page = server.get(AUTOMATIONS).ok();
        // Created together with the tenant, they list by id.
        assert_eq!(names(&page["automations"]), ["automations/kyc-individual", "automations/periodic-review",
            "automations/rate-entity", "automations/screen-entity", "automations/verify-document"]);
        assert_eq!(page["totalSize"], 5);
        for automation in array(&page["automations"]) {
            assert_eq!(automation["builtIn"], true, "{automation}");
            assert_eq!(automation["revisionId"], "builtin1", "{automation}");
            assert_eq!(automation["inputSchema"]["entity"]["type"], "string", "{automation}");
        }
        let kyc = server.get(&format!("{AUTOMATIONS}/kyc-individual")).ok();
        let kinds: Vec<&str> = array(&kyc["steps"]).iter().map(|s| s["kind"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["REQUEST_FORM", "UPSERT_ENTITY_FROM_FORM", "RUN_JOB", "RUN_JOB", "RUN_JOB",
            "BRANCH", "ADD_TAG", "BRANCH", "ADD_TAG"]);
        let (_, child) = server.child_tenant("Child");
        let theirs = server.send(server.request_as(Some(&child), Method::GET, &format!("{AUTOMATIONS}/kyc-individual"))).ok();
        assert_eq!(theirs["steps"], kyc["steps"], "a new tenant gets them too");
        assert_ne!(theirs["uid"], kyc["uid"]);

        let path = format!("{AUTOMATIONS}/screen-entity");
        server.patch(&path, &json!({"displayName": "Mine"}))
            .error(400, "FAILED_PRECONDITION", "BUILT_IN_AUTOMATION");
        server.delete(&path).error(400, "FAILED_PRECONDITION", "BUILT_IN_AUTOMATION");
        assert_eq!(server.get(&path).ok()["displayName"], "Screen an entity");
        let filtered = server.get(&format!("{AUTOMATIONS}{}", query(&[("filter", "displayName = \"Periodic review\"")]))).ok();
        assert_eq!(names(&filtered["automations"]), ["automations/periodic-review"]);
        let skipped = server.get(&format!("{AUTOMATIONS}?pageSize=2&skip=3")).ok();
        assert_eq!(names(&skipped["automations"]), ["automations/screen-entity", "automations/verify-document"]);
    }

    /// An operator's automation: a change of its steps is a new revision, a rename is
    /// not; a deleted one is restored.
    fn automations_are_versioned_and_soft_deleted(server) {
        let created = server.post(&format!("{AUTOMATIONS}?automationId=tagger"), &tagger("vip")).ok();
        assert_eq!(created["name"], "automations/tagger");
        assert!(created.get("builtIn").is_none(), "{created}");
        let first = created["revisionId"].as_str().unwrap().to_owned();
        assert!(first.len() == 8 && first.bytes().all(|b| b.is_ascii_hexdigit()), "{first}");
        let path = format!("{AUTOMATIONS}/tagger");
        assert_eq!(server.get(&path).ok(), created);
        let renamed = server.patch(&path, &json!({"displayName": "Tags"})).ok();
        assert_eq!(renamed["revisionId"], first.as_str(), "a rename is no new revision");
        let mut steps = tagger("gold")["steps"].clone();
        steps[1]["args"]["description"] = json!("Gold");
        let revised = server.patch(&format!("{path}?updateMask=steps"), &json!({"steps": steps, "etag": renamed["etag"]})).ok();
        assert_ne!(revised["revisionId"], first.as_str());
        assert_eq!(revised["steps"], steps);
        let by_revision = |revision: &str| {
            let page = server.get(&format!("{AUTOMATIONS}{}", query(&[("filter", &format!("revisionId = \"{revision}\""))]))).ok();
            names(&page["automations"])
        };
        assert_eq!(by_revision(revised["revisionId"].as_str().unwrap()), ["automations/tagger"]);
        assert!(by_revision(&first).is_empty(), "lists show the latest revision");

        let deleted = server.delete(&path).ok();
        assert!(deleted["deleteTime"].is_string(), "{deleted}");
        assert_eq!(server.get(AUTOMATIONS).ok()["totalSize"], 5);
        server.patch(&path, &json!({"displayName": "x"})).error(400, "FAILED_PRECONDITION", "RESOURCE_DELETED");
        server.post(&format!("{path}:undelete"), &json!({})).ok();
        assert_eq!(server.get(AUTOMATIONS).ok()["totalSize"], 6);
        server.post(&format!("{AUTOMATIONS}?automationId=tagger"), &tagger("vip")).error(409, "ALREADY_EXISTS", "RESOURCE_ALREADY_EXISTS");
    }

    /// A definition with a cycle, an unknown step kind, a reference to a later step or
    /// a missing parameter, or a branch condition that does not parse is refused, with
    /// every fault at once naming its step; nothing is stored.
    fn bad_definitions_are_refused_naming_the_step(server) {
        let bad = json!({"displayName": "Bad", "inputSchema": {"entity": {"type": "string"}}, "steps": [
            {"key": "tag", "kind": "ADD_TAG", "args": {"entity": "${parameters.who}", "tag": "${steps.log.output.tag}"}},
            {"key": "loop", "kind": "BRANCH", "args": {"condition": "steps.tag.output.done = true", "then": "tag"}},
            {"key": "check", "kind": "BRANCH", "args": {"condition": "steps.tag.output.x = ((", "else": "END"}},
            {"key": "self", "kind": "ADD_TAG", "args": {"entity": "${steps.self.output.entity}", "tag": "t"}},
            {"key": "log", "kind": "WRITE_ACTIVITY_LOG", "args": {"entity": "${parameters.entity}"}}
        ]});
        let reply = server.post(AUTOMATIONS, &bad);
        reply.error(400, "INVALID_ARGUMENT", "INVALID_FIELDS");
        let at = |s: usize, arg: &str| format!("automation.steps[{s}].args.{arg}");
        assert_eq!(reply.violation_fields(), [at(0, "entity"), at(0, "tag"), at(1, "then"), at(2, "condition"),
            at(3, "entity"), at(4, "description")]);
        let reasons: Vec<&str> = array(&reply.detail("BadRequest").unwrap()["fieldViolations"])
            .iter().map(|v| v["reason"].as_str().unwrap()).collect();
        assert_eq!(reasons, ["UNKNOWN_PARAMETER", "LATER_STEP", "CYCLE", "INVALID_CONDITION", "CYCLE", "ARGUMENT_REQUIRED"]);

        let mut unknown = tagger("vip");
        unknown["steps"][0]["kind"] = json!("SEND_FAX");
        server.post(AUTOMATIONS, &unknown).invalid("INVALID_VALUE", "automation.steps[0].kind");
        let mut extra = tagger("vip");
        extra["steps"][0]["args"]["colour"] = json!("red");
        server.post(AUTOMATIONS, &extra).invalid("UNKNOWN_ARGUMENT", "automation.steps[0].args.colour");
        let mut bad_schema = tagger("vip");
        bad_schema["inputSchema"]["entity"] = json!({"type": "colour"});
        server.post(AUTOMATIONS, &bad_schema).invalid("INVALID_SCHEMA", "automation.inputSchema.entity");
        server.post(AUTOMATIONS, &json!({"displayName": "Empty", "steps": []})).invalid("REQUIRED", "automation.steps");
        let listed = server.get(&format!("{AUTOMATIONS}?showDeleted=true")).ok();
        assert_eq!(listed["totalSize"], 5, "nothing was stored");
    }
}
