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
    /// Every tenant has the seven built-in automations, each taking `entity` but the
    /// onboarding journey (which takes `job`), which cannot be changed or deleted.
    fn every_tenant_has_the_built_in_automations(server) {
        let page = server.get(AUTOMATIONS).ok();
        // Created together with the tenant, they list by id.
        assert_eq!(names(&page["automations"]), ["automations/capture-identity",
            "automations/kyc-individual", "automations/onboard-individual",
            "automations/periodic-review", "automations/rate-entity", "automations/screen-entity",
            "automations/verify-document"]);
        assert_eq!(page["totalSize"], 7);
        for automation in array(&page["automations"]) {
            assert_eq!(automation["builtIn"], true, "{automation}");
            assert_eq!(automation["revisionId"], "builtin1", "{automation}");
            let subject = if automation["name"] == "automations/onboard-individual" { "job" } else { "entity" };
            assert_eq!(automation["inputSchema"][subject]["type"], "string", "{automation}");
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
        let skipped = server.get(&format!("{AUTOMATIONS}?pageSize=2&skip=5")).ok();
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
        assert_eq!(server.get(AUTOMATIONS).ok()["totalSize"], 7);
        server.patch(&path, &json!({"displayName": "x"})).error(400, "FAILED_PRECONDITION", "RESOURCE_DELETED");
        server.post(&format!("{path}:undelete"), &json!({})).ok();
        assert_eq!(server.get(AUTOMATIONS).ok()["totalSize"], 8);
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
        assert_eq!(listed["totalSize"], 7, "nothing was stored");
    }
}

/// The executions of `automation`'s run `operation`: the execution's name.
fn execution_of(operation: &Value) -> String {
    let name = operation["metadata"]["debug"]["execution"]
        .as_str()
        .unwrap_or_else(|| panic!("no execution: {operation}"));
    format!("/v1alpha/{name}")
}

/// Polls the execution at `path` until `done` says so, at most 30 s.
fn until(server: &Server, path: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let current = server.get(path).ok();
        if done(&current) {
            return current;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{path} never got there: {current}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

on_both_backends! {
    /// A run of an operator's automation: its operation names the execution, which
    /// runs each step and ends SUCCEEDED with the operation done with it; the step's
    /// side effects happened once.
    fn a_run_executes_every_step(server) {
        server.create_person("tagged-one", "Tagged One");
        server.post(&format!("{AUTOMATIONS}?automationId=tagger"), &tagger("vip")).ok();
        let operation = server.post(&format!("{AUTOMATIONS}/tagger:run"),
            &json!({"parameters": {"entity": "entities/tagged-one", "note": "by a run"}})).ok();
        assert!(operation["name"].as_str().unwrap().starts_with("automations/tagger/operations/"), "{operation}");
        assert_eq!(operation["done"], false);
        let path = execution_of(&operation);
        let done = server.wait_for(&operation);
        assert_eq!(done["response"]["state"], "SUCCEEDED", "{done}");
        assert_eq!(done["metadata"]["value"], "SUCCEEDED");
        let execution = server.get(&path).ok();
        assert_eq!(execution["automation"], "automations/tagger");
        assert_eq!(execution["inputParameters"], json!({"entity": "entities/tagged-one", "note": "by a run"}));
        assert!(execution.get("error").is_none() && execution["endTime"].is_string(), "{execution}");
        let states: Vec<&str> = array(&execution["steps"]).iter().map(|s| s["state"].as_str().unwrap()).collect();
        assert_eq!(states, ["SUCCEEDED", "SUCCEEDED"]);
        let log = execution["steps"][1]["resources"][0].as_str().unwrap();
        assert_eq!(server.get(&format!("/v1alpha/{log}")).ok()["description"], "Tagged by a run");
        assert!(array(&server.entity("tagged-one")["tags"]).contains(&json!("vip")));
        let page = server.get(&format!("{AUTOMATIONS}/tagger/executions{}", query(&[("filter", "state = SUCCEEDED")]))).ok();
        assert_eq!(page["totalSize"], 1);
        assert_eq!(page["automationExecutions"][0]["name"], execution["name"]);
        let none = server.get(&format!("{AUTOMATIONS}/tagger/executions{}", query(&[("filter", "state = FAILED")]))).ok();
        assert_eq!(none["totalSize"], 0);
    }

    /// Parameters are checked against the input schema, every violation at once; an
    /// automation of another tenant is not found.
    fn runs_check_their_parameters(server) {
        server.post(&format!("{AUTOMATIONS}?automationId=tagger"), &tagger("vip")).ok();
        let reply = server.post(&format!("{AUTOMATIONS}/tagger:run"), &json!({"parameters": {"note": 7, "colour": "red"}}));
        reply.error(400, "INVALID_ARGUMENT", "INVALID_FIELDS");
        let mut fields = reply.violation_fields();
        fields.sort();
        assert_eq!(fields, ["parameters.colour", "parameters.entity", "parameters.note"]);
        let (_, child) = server.child_tenant("Child");
        let theirs = server.send(server.request_as(Some(&child), Method::POST, &format!("{AUTOMATIONS}/tagger:run"))
            .json(&json!({"parameters": {"entity": "entities/x"}})));
        theirs.error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
    }

    /// A step that fails fails the execution, with its error; cancelling an ended
    /// execution is FAILED_PRECONDITION.
    fn a_failing_step_fails_the_execution(server) {
        server.post(&format!("{AUTOMATIONS}?automationId=tagger"), &tagger("vip")).ok();
        let operation = server.post(&format!("{AUTOMATIONS}/tagger:run"), &json!({"parameters": {"entity": "entities/nobody"}})).ok();
        let done = server.wait_for(&operation);
        assert_eq!(done["error"]["code"], 5, "{done}");
        let path = execution_of(&operation);
        let execution = server.get(&path).ok();
        assert_eq!(execution["state"], "FAILED");
        assert_eq!(execution["error"]["code"], 5);
        let states: Vec<&str> = array(&execution["steps"]).iter().map(|s| s["state"].as_str().unwrap()).collect();
        assert_eq!(states, ["FAILED", "SKIPPED"]);
        server.post(&format!("{path}:cancel"), &json!({})).error(400, "FAILED_PRECONDITION", "EXECUTION_ENDED");
    }

    /// The built-in `verify-document` with neither a document nor an ID type: its job
    /// cannot be made, so the execution fails with the job's INVALID_ARGUMENT naming the
    /// missing input, and no job is left behind.
    fn verify_document_without_a_document_fails_clearly(server) {
        server.create_person("no-doc", "No Document");
        let operation = server.post(&format!("{AUTOMATIONS}/verify-document:run"), &json!({"parameters": {"entity": "entities/no-doc"}})).ok();
        let done = server.wait_for(&operation);
        assert_eq!(done["error"]["code"], 3, "{done}");
        let message = done["error"]["message"].as_str().unwrap();
        assert!(message.contains("document"), "{message}");
        let execution = server.get(&execution_of(&operation)).ok();
        assert_eq!(execution["state"], "FAILED");
        assert_eq!(execution["steps"][0]["state"], "FAILED");
        let jobs = server.get(&format!("/v1alpha/individualEntityIDVerificationJobs{}", query(&[("filter", "entity = \"entities/no-doc\"")]))).ok();
        assert_eq!(jobs["totalSize"], 0, "{jobs}");
    }

    /// The KYC automation end to end: it waits for its form, resumes when the form is
    /// submitted, updates the entity from the response, makes its identity document,
    /// verifies, screens and rates it, and tags the outcome.
    fn kyc_runs_end_to_end(server) {
        server.create_person("kyc-anna", "Anna Eriksson");
        let operation = server.post(&format!("{AUTOMATIONS}/kyc-individual:run"), &json!({"parameters": {"entity": "entities/kyc-anna"}})).ok();
        let path = execution_of(&operation);
        let waiting = until(&server, &path, |x| x["state"] == "WAITING_FOR_INPUT");
        let form = format!("/v1alpha/{}", waiting["forms"][0].as_str().unwrap());
        assert_eq!(server.get(&form).ok()["entity"], "entities/kyc-anna");
        server.patch(&form, &json!({"response": {
            "given_name": "Anna", "family_name": "Eriksson", "date_of_birth": "1974-08-12",
            "nationality": "SE", "email": "anna@example.com",
            "identity_document": {"documentType": "PASSPORT", "documentNumber": "L898902C3", "issuingCountry": "SWE"}
        }})).ok();
        server.post(&format!("{form}:submit"), &json!({})).ok();
        let done = server.wait_for(&operation);
        assert_eq!(done["response"]["state"], "SUCCEEDED", "{done}");
        let execution = server.get(&path).ok();
        let document = execution["steps"][1]["output"]["document"].as_str().unwrap().to_owned();
        assert_eq!(server.get(&format!("/v1alpha/{document}")).ok()["documentNumber"], "L898902C3");
        for key in ["verify", "screen", "rate"] {
            let step = array(&execution["steps"]).iter().find(|s| s["key"] == key).unwrap();
            assert_eq!(step["state"], "SUCCEEDED", "{step}");
        }
        let entity = server.entity("kyc-anna");
        assert_eq!(entity["individual"]["nationalities"], json!(["SE"]), "{entity}");
        assert_eq!(entity["contactInfo"]["emails"], json!(["anna@example.com"]), "{entity}");
        assert!(entity["riskDetails"]["riskLevel"].is_string(), "rated: {entity}");
        let tags = array(&entity["tags"]);
        assert!(tags.contains(&json!("kyc-passed")) != tags.contains(&json!("kyc-referred")), "{entity}");
    }

    /// An execution waiting for its form: cancelled, it is CANCELLED with code 1 and
    /// its form expired; a second cancel is FAILED_PRECONDITION.
    fn cancel_while_waiting_for_a_form(server) {
        server.create_person("kyc-waiting", "Kyc Waiting");
        let operation = server.post(&format!("{AUTOMATIONS}/kyc-individual:run"), &json!({"parameters": {"entity": "entities/kyc-waiting"}})).ok();
        let path = execution_of(&operation);
        let waiting = until(&server, &path, |x| x["state"] == "WAITING_FOR_INPUT");
        let form = waiting["forms"][0].as_str().unwrap().to_owned();
        assert_eq!(waiting["steps"][0]["state"], "WAITING_FOR_INPUT");
        assert_eq!(server.get(&format!("/v1alpha/{form}")).ok()["state"], "DRAFT");
        let cancelled = server.post(&format!("{path}:cancel"), &json!({"etag": waiting["etag"]})).ok();
        assert_eq!(cancelled["state"], "CANCELLED");
        assert_eq!(cancelled["error"]["code"], 1);
        assert!(cancelled["endTime"].is_string());
        assert_eq!(server.get(&format!("/v1alpha/{form}")).ok()["state"], "EXPIRED");
        let done = server.get(&format!("/v1alpha/{}", operation["name"].as_str().unwrap())).ok();
        assert_eq!(done["done"], true);
        assert_eq!(done["error"]["code"], 1);
        server.post(&format!("{path}:cancel"), &json!({})).error(400, "FAILED_PRECONDITION", "EXECUTION_ENDED");
    }
}
