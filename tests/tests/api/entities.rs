//! The entity endpoints' intended behaviour: create, get, update, delete, undelete,
//! hard delete, batch get, tags and relationships (design.md sections 3 and 5, the
//! AIP checklist).

use rics_e2e::*;
use serde_json::{Value, json};

/// An individual with every field set.
fn full_person() -> Value {
    json!({
        "displayName": "Jane Q. Doe",
        "individual": {
            "legalName": {"givenName": "Jane", "middleNames": "Quinn", "familyName": "Doe"},
            "otherNames": [{"givenName": "Janie", "familyName": "Doe"}],
            "dateOfBirth": "1980-07-14",
            "placeOfBirth": "Lyon",
            "nationalities": ["FR", "GB"],
            "countryOfResidence": "GB",
            "gender": "FEMALE",
            "occupation": "Engineer"
        },
        "contactInfo": {
            "emails": ["jane@example.com"],
            "phoneNumbers": ["+44 20 7946 0958"],
            "addresses": [{
                "type": "RESIDENTIAL", "lines": ["1 High Street", "Flat 2"], "locality": "London",
                "region": "Greater London", "postalCode": "SW1A 1AA", "country": "GB"
            }]
        },
        "externalIds": {"crm": "42", "ledger": "A-7"},
        "tags": ["vip", "onboarding"],
        "legalHold": true
    })
}

/// Asserts that every member of `expected` is in `actual` with the same value,
/// recursively through objects.
fn assert_contains(actual: &Value, expected: &Value, path: &str) {
    match (actual, expected) {
        (Value::Object(actual), Value::Object(expected)) => {
            for (key, value) in expected {
                let member = actual
                    .get(key)
                    .unwrap_or_else(|| panic!("{path}.{key} is missing from {actual:?}"));
                assert_contains(member, value, &format!("{path}.{key}"));
            }
        }
        _ => assert_eq!(actual, expected, "at {path}"),
    }
}

/// Whether `text` is a lower-case hyphenated UUID of `version`.
fn is_uuid(text: &str, version: char) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.iter().map(|g| g.len()).collect::<Vec<_>>() == [8, 4, 4, 4, 12]
        && text
            .chars()
            .all(|c| c == '-' || c.is_ascii_digit() || ('a'..='f').contains(&c))
        && text.chars().nth(14) == Some(version)
}

fn path(id: &str) -> String {
    format!("{ENTITIES}/{id}")
}

const REQUEST_ID: &str = "6b7c0e4a-2f51-4d8e-9c3b-1a2b3c4d5e6f";

on_both_backends! {
    /// Create without `entityId`: a UUID v7 name, a UUID v4 uid, output-only fields
    /// set, every field sent echoed, and GET returns the same.
    fn create_generates_the_name_and_echoes_every_field(server) {
        let body = full_person();
        let created = server.create("", &body);
        assert_contains(&created, &body, "entity");
        let id = id_of(&created);
        assert!(is_uuid(id, '7'), "generated ids are lower-case UUID v7: {id}");
        assert!(is_uuid(created["uid"].as_str().unwrap(), '4'), "uid is a UUID v4: {created}");
        assert_eq!(created["entityType"], "INDIVIDUAL", "the type is inferred from the details");
        assert_eq!(created["verificationStatus"], "UNVERIFIED");
        assert_eq!(created["createTime"], created["updateTime"]);
        timestamp(&created["createTime"]);
        assert!(created.get("deleteTime").is_none() && created.get("purgeTime").is_none());
        let etag = created["etag"].as_str().unwrap();
        assert!(etag.len() > 2 && etag.starts_with('"') && etag.ends_with('"'), "strong, quoted etag: {etag}");
        assert_eq!(server.entity(id), created, "GET returns what create returned (R-121.3)");
    }

    /// Create with `entityId` names the entity after it; a `name` in the body is
    /// ignored; every entity type is accepted with its details.
    fn create_with_entity_id_and_every_type(server) {
        let mut body = person("Ann Lee");
        body["name"] = json!("entities/zzzz");
        let created = server.create("?entityId=ann-lee", &body);
        assert_eq!(created["name"], "entities/ann-lee");
        let generated = server.create("", &body);
        assert_ne!(generated["name"], "entities/zzzz", "the body's name is ignored");
        server.get(&path("zzzz")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        let acme = server.create("?entityId=acme", &company("Acme"));
        assert_eq!(acme["entityType"], "COMPANY");
        for (field, kind) in [("trust", "TRUST"), ("partnership", "PARTNERSHIP"), ("soleProprietor", "SOLE_PROPRIETOR")] {
            let body = json!({"displayName": format!("A {kind}"), field: {"legalName": "Legal", "registrationNumber": "R1", "countryOfRegistration": "au"}});
            let created = server.create("", &body);
            assert_eq!(created["entityType"], kind);
            assert_eq!(created[field]["countryOfRegistration"], "AU", "country codes are stored in upper case");
        }
        let explicit = server.create("", &json!({"entityType": "COMPANY", "displayName": "B", "company": {"legalName": "B"}}));
        assert_eq!(explicit["entityType"], "COMPANY");
        let partial = server.create("", &json!({"displayName": "Old", "individual": {"legalName": {"familyName": "Old"}, "dateOfBirth": "1950-03"}}));
        assert_eq!(partial["individual"]["dateOfBirth"], "1950-03", "partial dates of birth are kept");
    }

    /// BNDRY's spelling `GOVERMENTAL_ORG` is read as `GOVERNMENTAL_ORG` on create and
    /// on update, and only `GOVERNMENTAL_ORG` is ever written; giving the alias to an
    /// entity that already has the type changes nothing.
    fn governmental_org_is_also_read_in_bndry_spelling(server) {
        let body = json!({"displayName": "Ministry", "company": {"legalName": "Ministry of Finance", "type": "GOVERMENTAL_ORG"}});
        let created = server.create("?entityId=ministry", &body);
        assert_eq!(created["company"]["type"], "GOVERNMENTAL_ORG");
        assert_eq!(server.entity("ministry")["company"]["type"], "GOVERNMENTAL_ORG");
        let same = server
            .patch(&format!("{}?updateMask=company.type", path("ministry")), &json!({"company": {"type": "GOVERMENTAL_ORG"}}))
            .ok();
        assert_eq!(same["etag"], created["etag"], "the alias is the same value");
        server.create("?entityId=agency", &company("Agency"));
        let changed = server
            .patch(&format!("{}?updateMask=company.type", path("agency")), &json!({"company": {"type": "GOVERMENTAL_ORG"}}))
            .ok();
        assert_eq!(changed["company"]["type"], "GOVERNMENTAL_ORG");
        server
            .post(ENTITIES, &json!({"displayName": "X", "company": {"legalName": "X", "type": "GOVERMENT"}}))
            .invalid("INVALID_VALUE", "entity.company.type");
    }

    /// Create with an id that is taken, live or soft-deleted, is ALREADY_EXISTS and
    /// changes nothing.
    fn create_with_a_taken_id_is_already_exists(server) {
        server.create_person("taken", "Ann Lee");
        server.create_person("gone", "Bob Lee");
        server.delete(&path("gone")).ok();
        let before = server.snapshot();
        for id in ["taken", "gone"] {
            let reply = server.post(&format!("{ENTITIES}?entityId={id}"), &person("Other Name"));
            reply.error(409, "ALREADY_EXISTS", "RESOURCE_ALREADY_EXISTS");
            assert_eq!(reply.metadata("resource"), Some(format!("entities/{id}").as_str()));
        }
        assert_eq!(server.snapshot(), before);
    }

    /// `requestId` makes create idempotent: the same request returns the first result,
    /// not a second entity and not ALREADY_EXISTS.
    fn create_with_the_same_request_id_returns_the_first_entity(server) {
        let first = server.create(&format!("?requestId={REQUEST_ID}"), &person("Ann Lee"));
        let again = server.create(&format!("?requestId={REQUEST_ID}"), &person("Ann Lee"));
        assert_eq!(again, first);
        let second_id = "0e9a3c55-71d2-4a8b-8f00-5b6c7d8e9f10";
        let named = server.create(&format!("?entityId=anne&requestId={second_id}"), &person("Ann Two"));
        let named_again = server.create(&format!("?entityId=anne&requestId={second_id}"), &person("Ann Two"));
        assert_eq!(named_again, named);
        let all = server.list_all(&[]);
        assert_eq!(all.len(), 2, "two requests ids, two entities: {all:?}");
        // A retry after a change returns the entity as it is now.
        server.patch(&format!("{}?updateMask=tags", path("anne")), &json!({"tags": ["x"]})).ok();
        let replay = server.create(&format!("?entityId=anne&requestId={second_id}"), &person("Ann Two"));
        assert_eq!(replay["name"], "entities/anne");
        assert_eq!(replay["tags"], json!(["x"]));
    }

    /// The same `requestId` with a different body or id is REQUEST_ID_REUSED and
    /// stores nothing.
    fn create_with_a_reused_request_id_is_refused(server) {
        server.create(&format!("?requestId={REQUEST_ID}"), &person("Ann Lee"));
        let before = server.snapshot();
        server
            .post(&format!("{ENTITIES}?requestId={REQUEST_ID}"), &person("Bob Lee"))
            .invalid("REQUEST_ID_REUSED", "requestId");
        server
            .post(&format!("{ENTITIES}?requestId={REQUEST_ID}&entityId=other"), &person("Ann Lee"))
            .invalid("REQUEST_ID_REUSED", "requestId");
        assert_eq!(server.snapshot(), before);
        server.get(&path("other")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
    }

    /// GET accepts the redundant `?name=` when it matches the path and refuses it when
    /// it does not; a missing entity is NOT_FOUND naming it.
    fn get_with_and_without_name(server) {
        let created = server.create_person("anne", "Ann Lee");
        assert_eq!(server.get(&format!("{}?name=entities%2Fanne", path("anne"))).ok(), created);
        assert_eq!(server.get(&format!("{}?name=entities/anne", path("anne"))).ok(), created);
        server
            .get(&format!("{}?name=entities/bob", path("anne")))
            .invalid("NAME_MISMATCH", "name");
        let missing = server.get(&path("nobody"));
        missing.error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        assert_eq!(missing.metadata("resource"), Some("entities/nobody"));
    }

    /// PATCH without a mask updates the populated fields only: empty values do not
    /// clear anything; updateTime and the etag change, uid and createTime do
    /// not.
    fn patch_without_mask_updates_populated_fields(server) {
        let created = server.create("?entityId=jane", &full_person());
        let updated = server
            .patch(&path("jane"), &json!({"displayName": "Jane Doe", "tags": [], "externalIds": {}, "legalHold": null}))
            .ok();
        assert_eq!(updated["displayName"], "Jane Doe");
        assert_eq!(updated["tags"], created["tags"], "an empty list is not populated");
        assert_eq!(updated["externalIds"], created["externalIds"]);
        assert_eq!(updated["individual"], created["individual"]);
        assert_eq!(updated["uid"], created["uid"]);
        assert_eq!(updated["createTime"], created["createTime"]);
        assert_ne!(updated["etag"], created["etag"]);
        assert!(timestamp(&updated["updateTime"]) > timestamp(&created["updateTime"]));
        let unchanged = server.patch(&path("jane"), &json!({"displayName": ""})).ok();
        assert_eq!(unchanged["displayName"], "Jane Doe", "an empty string does not clear without a mask");
        let nested = server
            .patch(&path("jane"), &json!({"individual": {"occupation": "Pilot"}}))
            .ok();
        assert_eq!(nested["individual"]["occupation"], "Pilot");
        assert_eq!(
            nested["individual"]["legalName"], created["individual"]["legalName"],
            "populated-fields semantics reach into messages"
        );
        assert_eq!(server.entity("jane"), nested);
    }

    /// PATCH with a mask: named fields are set or cleared (an empty body clears
    /// them), repeated fields and maps are replaced, nested paths work (R-134.4,
    ///
    fn patch_with_mask_sets_and_clears_named_fields(server) {
        let created = server.create("?entityId=jane", &full_person());
        let cleared = server.patch(&format!("{}?updateMask=tags,contactInfo", path("jane")), &json!({})).ok();
        assert!(cleared.get("tags").is_none(), "tags cleared: {cleared}");
        assert!(cleared.get("contactInfo").is_none(), "contactInfo cleared: {cleared}");
        assert_eq!(cleared["externalIds"], created["externalIds"], "fields outside the mask stay");
        let replaced = server
            .patch(
                &format!("{}?updateMask=externalIds,individual.legalName.givenName,displayName", path("jane")),
                &json!({"externalIds": {"erp": "9"}, "individual": {"legalName": {"givenName": "Janet"}, "occupation": "ignored"}, "displayName": "Janet Doe", "tags": ["ignored"]}),
            )
            .ok();
        assert_eq!(replaced["externalIds"], json!({"erp": "9"}), "maps are replaced");
        assert_eq!(replaced["individual"]["legalName"]["givenName"], "Janet");
        assert_eq!(replaced["individual"]["legalName"]["familyName"], "Doe");
        assert_eq!(replaced["individual"]["occupation"], "Engineer", "body fields outside the mask are ignored");
        assert!(replaced.get("tags").is_none(), "tags outside the mask are ignored");
        assert_eq!(replaced["displayName"], "Janet Doe");
        let snake = server
            .patch(&format!("{}?update_mask=display_name", path("jane")), &json!({"displayName": "J"}))
            .ok();
        assert_eq!(snake["displayName"], "J", "snake_case parameter and paths are accepted");
        assert_eq!(server.entity("jane"), snake);
    }

    /// `updateMask=*` replaces the whole entity: fields missing from the body are
    /// reset, output-only ones are kept.
    fn patch_with_star_replaces_the_entity(server) {
        let created = server.create("?entityId=jane", &full_person());
        let replaced = server
            .patch(&format!("{}?updateMask=*", path("jane")), &person("Jane Roe"))
            .ok();
        assert_eq!(replaced["displayName"], "Jane Roe");
        assert_eq!(replaced["individual"], json!({"legalName": {"givenName": "Jane", "familyName": "Roe"}}));
        for reset in ["tags", "externalIds", "contactInfo", "legalHold"] {
            assert!(replaced.get(reset).is_none(), "{reset} is reset: {replaced}");
        }
        for kept in ["name", "uid", "entityType", "createTime", "verificationStatus"] {
            assert_eq!(replaced[kept], created[kept], "{kept} is kept");
        }
    }

    /// entityType is immutable: the same value is accepted, another one refused with
    /// nothing changed.
    fn patch_cannot_change_the_entity_type(server) {
        server.create_person("jane", "Jane Doe");
        let same = server
            .patch(&path("jane"), &json!({"entityType": "INDIVIDUAL", "displayName": "Jane X"}))
            .ok();
        assert_eq!(same["entityType"], "INDIVIDUAL");
        let before = server.snapshot();
        let reply = server.patch(
            &format!("{}?updateMask=entityType,company,individual", path("jane")),
            &json!({"entityType": "COMPANY", "company": {"legalName": "Jane Ltd"}}),
        );
        reply.invalid("IMMUTABLE_FIELD_CHANGED", "entity.entityType");
        assert!(
            reply.violation_fields().iter().any(|f| f.contains("entityType")),
            "the violation names entityType: {}", reply.text
        );
        let star = server.patch(&format!("{}?updateMask=*", path("jane")), &company("Jane Ltd"));
        star.error(400, "INVALID_ARGUMENT", star.reason());
        assert!(
            star.violation_fields().iter().any(|f| f.contains("entityType")),
            "the violation names entityType: {}", star.text
        );
        assert_eq!(server.snapshot(), before);
    }

    /// A stale etag on PATCH is ABORTED and changes nothing; the current one works
    ///
    fn patch_with_a_stale_etag_is_aborted(server) {
        let created = server.create_person("jane", "Jane Doe");
        let updated = server
            .patch(&path("jane"), &json!({"displayName": "Jane A", "etag": created["etag"]}))
            .ok();
        let before = server.snapshot();
        let reply = server.patch(&path("jane"), &json!({"displayName": "Jane B", "etag": created["etag"]}));
        reply.error(409, "ABORTED", "ETAG_MISMATCH");
        assert_eq!(reply.metadata("resource"), Some("entities/jane"));
        server
            .patch(&format!("{}?updateMask=displayName", path("jane")), &json!({"displayName": "Jane C", "etag": "\"stale\""}))
            .error(409, "ABORTED", "ETAG_MISMATCH");
        assert_eq!(server.snapshot(), before);
        server.patch(&path("jane"), &json!({"displayName": "Jane D", "etag": updated["etag"]})).ok();
    }

    /// An empty etag is an unset etag (proto3 JSON): it checks nothing, on PATCH as on
    /// DELETE and `:undelete`.
    fn an_empty_etag_is_no_etag(server) {
        server.create_person("jane", "Jane Doe");
        server.patch(&path("jane"), &json!({"displayName": "Jane B", "etag": ""})).ok();
        server.patch(&format!("{}?updateMask=displayName", path("jane")), &json!({"displayName": "Jane C", "etag": ""})).ok();
        server.delete(&format!("{}?etag=", path("jane"))).ok();
        server.post(&format!("{}:undelete", path("jane")), &json!({"etag": ""})).ok();
    }

    /// A create refused for bad input does not use up its requestId: the corrected
    /// retry succeeds.
    fn a_refused_create_does_not_use_up_its_request_id(server) {
        server
            .post(&format!("{ENTITIES}?requestId={REQUEST_ID}"), &json!({"individual": {}}))
            .invalid("INVALID_FIELDS", "entity.displayName");
        server.create_person("taken", "Ann Lee");
        server
            .post(&format!("{ENTITIES}?requestId={REQUEST_ID}&entityId=taken"), &person("Bob Lee"))
            .error(409, "ALREADY_EXISTS", "RESOURCE_ALREADY_EXISTS");
        let created = server.create(&format!("?requestId={REQUEST_ID}&entityId=fresh"), &person("Bob Lee"));
        assert_eq!(created["name"], "entities/fresh");
    }

    /// Output-only fields in a PATCH body are ignored, never an error, with or without
    /// a mask naming them.
    fn patch_ignores_output_only_fields(server) {
        let created = server.create_person("jane", "Jane Doe");
        let noise = json!({
            "displayName": "Jane E",
            "uid": "00000000-0000-4000-8000-000000000000",
            "createTime": "2000-01-01T00:00:00Z",
            "updateTime": "2000-01-01T00:00:00Z",
            "deleteTime": "2000-01-01T00:00:00Z",
            "purgeTime": "2000-01-01T00:00:00Z",
            "screeningStatus": "CONFIRMED_MATCH",
            "verificationStatus": "VERIFIED",
            "riskDetails": {"riskLevel": "HIGH", "riskScore": 99}
        });
        let updated = server.patch(&path("jane"), &noise).ok();
        let masked = server
            .patch(&format!("{}?updateMask=displayName,uid,createTime,screeningStatus,riskDetails", path("jane")), &noise)
            .ok();
        for entity in [&updated, &masked] {
            assert_eq!(entity["displayName"], "Jane E");
            assert_eq!(entity["uid"], created["uid"]);
            assert_eq!(entity["createTime"], created["createTime"]);
            assert_eq!(entity["verificationStatus"], "UNVERIFIED");
            for absent in ["deleteTime", "purgeTime", "screeningStatus", "riskDetails"] {
                assert!(entity.get(absent).is_none(), "{absent} stays unset: {entity}");
            }
        }
        let created_too = server.create("?entityId=noisy", &{
            let mut body = noise.clone();
            body["individual"] = json!({"legalName": {"familyName": "Noisy"}});
            body
        });
        assert_ne!(created_too["uid"], noise["uid"], "output-only fields are ignored on create too");
        assert!(created_too.get("deleteTime").is_none() && created_too.get("screeningStatus").is_none());
    }

    /// A `name` in the PATCH body must be the path's; a deleted entity cannot be
    /// updated; a missing one is NOT_FOUND.
    fn patch_checks_name_state_and_existence(server) {
        server.create_person("jane", "Jane Doe");
        server.patch(&path("jane"), &json!({"name": "entities/jane", "displayName": "Same Name"})).ok();
        let before = server.snapshot();
        server
            .patch(&path("jane"), &json!({"name": "entities/bobby", "displayName": "Other"}))
            .invalid("NAME_MISMATCH", "entity.name");
        server
            .patch(&path("nobody"), &json!({"displayName": "X"}))
            .error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        assert_eq!(server.snapshot(), before);
        server.delete(&path("jane")).ok();
        let before = server.snapshot();
        server
            .patch(&path("jane"), &json!({"displayName": "While Deleted"}))
            .error(400, "FAILED_PRECONDITION", "RESOURCE_DELETED");
        assert_eq!(server.snapshot(), before);
    }

    /// DELETE soft-deletes: it returns the entity with deleteTime and purgeTime, GET
    /// still returns it, lists hide it unless showDeleted, deleting again is NOT_FOUND
    /// unless allowMissing (R-164.*, R-148.4).
    fn delete_is_soft(server) {
        let created = server.create_person("jane", "Jane Doe");
        server.create_person("bobby", "Bob Lee");
        let deleted = server.delete(&path("jane")).ok();
        let delete_time = timestamp(&deleted["deleteTime"]);
        let purge_time = timestamp(&deleted["purgeTime"]);
        assert!(purge_time >= delete_time + time::Duration::days(29), "purge about 30 days later: {deleted}");
        assert_ne!(deleted["etag"], created["etag"], "the etag changes on delete (R-154.5)");
        assert_eq!(server.entity("jane"), deleted, "GET returns a deleted entity");
        assert_eq!(server.list_names(&[]), vec!["entities/bobby"]);
        assert_eq!(server.list_names(&[("showDeleted", "true")]), vec!["entities/jane", "entities/bobby"]);
        let before = server.snapshot();
        let again = server.delete(&path("jane"));
        again.error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        assert_eq!(again.metadata("resource"), Some("entities/jane"));
        assert_eq!(server.delete(&format!("{}?allowMissing=true", path("jane"))).ok(), deleted);
        server.delete(&path("nobody")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        assert_eq!(server.delete(&format!("{}?allowMissing=true", path("nobody"))).ok(), json!({}));
        assert_eq!(server.snapshot(), before);
    }

    /// DELETE with a stale etag is ABORTED and deletes nothing; the current etag works
    ///
    fn delete_with_a_stale_etag_is_aborted(server) {
        let created = server.create_person("jane", "Jane Doe");
        server.patch(&path("jane"), &json!({"displayName": "Jane B"})).ok();
        let before = server.snapshot();
        server
            .delete(&format!("{}?etag={}", path("jane"), encode(created["etag"].as_str().unwrap())))
            .error(409, "ABORTED", "ETAG_MISMATCH");
        assert_eq!(server.snapshot(), before);
        let current = server.entity("jane");
        let deleted = server
            .delete(&format!("{}?etag={}", path("jane"), encode(current["etag"].as_str().unwrap())))
            .ok();
        assert!(deleted.get("deleteTime").is_some());
    }

    /// `:undelete` restores a deleted entity (no deleteTime/purgeTime, a new etag,
    /// listed again); on a live entity it is ALREADY_EXISTS; a stale etag is ABORTED;
    /// a missing entity is NOT_FOUND.
    fn undelete_restores(server) {
        server.create_person("jane", "Jane Doe");
        let before = server.snapshot();
        let live = server.post(&format!("{}:undelete", path("jane")), &json!({}));
        live.error(409, "ALREADY_EXISTS", live.reason());
        assert_eq!(server.snapshot(), before);
        let deleted = server.delete(&path("jane")).ok();
        let before = server.snapshot();
        server
            .post(&format!("{}:undelete", path("jane")), &json!({"etag": "\"stale\""}))
            .error(409, "ABORTED", "ETAG_MISMATCH");
        assert_eq!(server.snapshot(), before);
        let restored = server
            .post(&format!("{}:undelete", path("jane")), &json!({"etag": deleted["etag"]}))
            .ok();
        assert!(restored.get("deleteTime").is_none() && restored.get("purgeTime").is_none());
        assert_ne!(restored["etag"], deleted["etag"]);
        assert_eq!(server.list_names(&[]), vec!["entities/jane"]);
        assert_eq!(server.entity("jane"), restored);
        server.delete(&path("jane")).ok();
        let empty_body = server.send(server.request(Method::POST, &format!("{}:undelete", path("jane"))));
        assert_eq!(empty_body.status, 200, "an empty body reads as {{}}: {}", empty_body.text);
        server
            .post(&format!("{}:undelete", path("nobody")), &json!({}))
            .error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
    }

    /// `:hardDelete` erases the entity, its relationships and everything it owns and
    /// returns a receipt; GET is then NOT_FOUND; a legal hold refuses it.
    fn hard_delete_erases_with_a_receipt(server) {
        server.create("?entityId=jane", &json!({"displayName": "Jane", "individual": {"legalName": {"familyName": "Doe"}}, "tags": ["a", "b"], "externalIds": {"crm": "1"}}));
        server.create_person("bobby", "Bob Lee");
        server
            .post(&format!("{}:addEntityRelationship", path("jane")), &json!({"relatedEntity": "entities/bobby", "relationshipType": "SPOUSE"}))
            .ok();
        let receipt = server.delete(&format!("{}:hardDelete", path("jane"))).ok();
        assert_eq!(receipt["entity"], "entities/jane");
        timestamp(&receipt["eraseTime"]);
        assert!(receipt["event"].as_str().unwrap().starts_with("events/"), "{receipt}");
        let counts = &receipt["erasedCounts"];
        assert_eq!(counts["entities"], 1, "{receipt}");
        assert_eq!(counts["relationships"], 1, "{receipt}");
        assert_eq!(counts["tags"], 2, "{receipt}");
        assert_eq!(counts["externalIds"], 1, "{receipt}");
        server.get(&path("jane")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        server
            .post(&format!("{}:undelete", path("jane")), &json!({}))
            .error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        assert!(server.relationships("bobby").is_empty(), "the relationship went with it");
        assert_eq!(server.list_names(&[("showDeleted", "true")]), vec!["entities/bobby"]);
        server
            .delete(&format!("{}:hardDelete", path("jane")))
            .error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        // A soft-deleted entity can be erased too.
        server.delete(&path("bobby")).ok();
        server.delete(&format!("{}:hardDelete", path("bobby"))).ok();
        assert!(server.snapshot().is_empty());
    }

    /// An entity under legal hold cannot be erased: FAILED_PRECONDITION, nothing
    /// changes; lifting the hold allows it.
    fn hard_delete_under_legal_hold_is_refused(server) {
        server.create("?entityId=held", &{
            let mut body = person("Held Person");
            body["legalHold"] = json!(true);
            body
        });
        let before = server.snapshot();
        let reply = server.delete(&format!("{}:hardDelete", path("held")));
        reply.error(400, "FAILED_PRECONDITION", "LEGAL_HOLD");
        assert_eq!(reply.metadata("resource"), Some("entities/held"));
        assert_eq!(server.snapshot(), before);
        server.patch(&format!("{}?updateMask=legalHold", path("held")), &json!({})).ok();
        server.delete(&format!("{}:hardDelete", path("held"))).ok();
    }

    /// `:batchCreate` stores every entity as Create does, answers them in request
    /// order, replays a request id, and is all or none: a bad field, an id given
    /// twice or an id taken names `requests[i]` and stores nothing (R-233.*).
    fn batch_create_is_all_or_none_in_request_order(server) {
        let batch = json!({"requests": [
            {"entity": person("Batch One"), "entityId": "batch-one"},
            {"entity": {"entityType": "INDIVIDUAL", "displayName": "Batch Two", "tags": ["vip"],
                        "individual": {"legalName": {"givenName": "Batch", "familyName": "Two"}}}},
        ]});
        let request_id = "0192a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c";
        let created = server.post(&format!("{ENTITIES}:batchCreate?requestId={request_id}"), &batch).ok();
        let made = names(&created["entities"]);
        assert_eq!(made[0], "entities/batch-one");
        assert_eq!(created["entities"][0], server.entity("batch-one"));
        assert_eq!(created["entities"][1]["verificationStatus"], "UNVERIFIED");
        let second = made[1].trim_start_matches("entities/").to_owned();
        assert_eq!(created["entities"][1], server.entity(&second));
        let tagged = server.get(&format!("{ENTITIES}?filter=tags:%22vip%22")).ok();
        assert!(names(&tagged["entities"]).contains(&made[1]));
        let fuzzy = server.get(&format!("{ENTITIES}?filter=displayName:%22batch%20twoo%22")).ok();
        assert!(names(&fuzzy["entities"]).contains(&made[1]));
        let events = server.get(&format!("{}/events", path("batch-one"))).ok();
        assert_eq!(events["events"][0]["eventType"], "entity.created");
        let replay = server.post(&format!("{ENTITIES}:batchCreate?requestId={request_id}"), &batch).ok();
        assert_eq!(names(&replay["entities"]), made);

        let before = server.snapshot();
        let mut bad = person("Bad");
        bad["displayName"] = json!("");
        let invalid = json!({"requests": [{"entity": person("Fine")}, {"entity": bad}]});
        let reply = server.post(&format!("{ENTITIES}:batchCreate"), &invalid);
        assert_eq!(reply.status, 400, "{}", reply.text);
        assert!(reply.text.contains("requests[1].entity.displayName"), "{}", reply.text);
        let twice = json!({"requests": [{"entity": person("A"), "entityId": "twice"}, {"entity": person("B"), "entityId": "twice"}]});
        server.post(&format!("{ENTITIES}:batchCreate"), &twice).invalid("DUPLICATE_ID", "requests[1].entityId");
        let taken = json!({"requests": [{"entity": person("C"), "entityId": "fresh-one"}, {"entity": person("D"), "entityId": "batch-one"}]});
        let reply = server.post(&format!("{ENTITIES}:batchCreate"), &taken);
        reply.error(409, "ALREADY_EXISTS", "RESOURCE_ALREADY_EXISTS");
        assert_eq!(reply.metadata("field"), Some("requests[1]"));
        server.post(&format!("{ENTITIES}:batchCreate"), &json!({"requests": []})).invalid("REQUIRED", "requests");
        assert_eq!(server.snapshot(), before);
    }

    /// `:batchGet` returns the entities in the order asked, duplicates once per
    /// occurrence, deleted ones included (R-231.*).
    fn batch_get_preserves_order_and_duplicates(server) {
        for id in ["aaaa", "bbbb", "cccc"] {
            server.create_person(id, "Some One");
        }
        server.delete(&path("bbbb")).ok();
        let got = server
            .get(&format!("{ENTITIES}:batchGet?names=entities/cccc&names=entities/aaaa&names=entities/bbbb&names=entities/cccc"))
            .ok();
        assert_eq!(
            names(&got["entities"]),
            vec!["entities/cccc", "entities/aaaa", "entities/bbbb", "entities/cccc"]
        );
        assert_eq!(got["entities"][0], server.entity("cccc"));
        assert!(got["entities"][2].get("deleteTime").is_some());
        let encoded = server.get(&format!("{ENTITIES}:batchGet?names=entities%2Faaaa")).ok();
        assert_eq!(names(&encoded["entities"]), vec!["entities/aaaa"]);
    }

    /// `:batchGet` is all or nothing: one missing name is NOT_FOUND naming it; no
    /// names, more than 1000 or a malformed name is INVALID_ARGUMENT.
    fn batch_get_refuses_missing_empty_and_too_many(server) {
        server.create_person("aaaa", "Some One");
        let missing = server.get(&format!("{ENTITIES}:batchGet?names=entities/aaaa&names=entities/nope"));
        missing.error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        assert_eq!(missing.metadata("resource"), Some("entities/nope"));
        server.get(&format!("{ENTITIES}:batchGet")).invalid("REQUIRED", "names");
        let many: Vec<(&str, &str)> = std::iter::repeat_n(("names", "entities/aaaa"), 1001).collect();
        server
            .get(&format!("{ENTITIES}:batchGet{}", query(&many)))
            .invalid("TOO_MANY_NAMES", "names");
        let thousand: Vec<(&str, &str)> = std::iter::repeat_n(("names", "entities/aaaa"), 1000).collect();
        let got = server.get(&format!("{ENTITIES}:batchGet{}", query(&thousand))).ok();
        assert_eq!(array(&got["entities"]).len(), 1000);
        server
            .get(&format!("{ENTITIES}:batchGet?names=entities/aaaa&names=aaaa"))
            .invalid("INVALID_NAME", "names[1]");
    }

    /// `:addTag` and `:removeTag` are idempotent and return the entity.
    fn tags_are_added_and_removed_idempotently(server) {
        server.create_person("jane", "Jane Doe");
        let created = server.entity("jane");
        let tagged = server.post(&format!("{}:addTag", path("jane")), &json!({"tag": "vip"})).ok();
        assert_eq!(tagged["tags"], json!(["vip"]));
        assert_ne!(tagged["etag"], created["etag"], "a tag is a change");
        assert!(timestamp(&tagged["updateTime"]) > timestamp(&created["updateTime"]));
        let again = server.post(&format!("{}:addTag", path("jane")), &json!({"tag": "vip"})).ok();
        assert_eq!(again, tagged, "adding a present tag changes nothing, not even the etag");
        let two = server.post(&format!("{}:addTag", path("jane")), &json!({"tag": "pep"})).ok();
        assert_eq!(two["tags"], json!(["vip", "pep"]));
        assert_eq!(server.list_names(&[("filter", "tags:pep")]), vec!["entities/jane"]);
        let removed = server.post(&format!("{}:removeTag", path("jane")), &json!({"tag": "vip"})).ok();
        assert_eq!(removed["tags"], json!(["pep"]));
        let removed_again = server.post(&format!("{}:removeTag", path("jane")), &json!({"tag": "vip"})).ok();
        assert_eq!(removed_again, removed);
        assert_eq!(server.entity("jane"), removed);
    }

    /// Tag changes refuse bad tags, missing and deleted entities, and change nothing.
    fn tag_changes_refuse_bad_input(server) {
        server.create_person("jane", "Jane Doe");
        let before = server.snapshot();
        for bad in [json!({"tag": "has space"}), json!({"tag": ""}), json!({}), json!({"tag": "x".repeat(65)})] {
            server.post(&format!("{}:addTag", path("jane")), &bad).invalid("INVALID_TAG", "tag");
        }
        server
            .post(&format!("{}:addTag", path("jane")), &json!({"tag": "a", "colour": "red"}))
            .error(400, "INVALID_ARGUMENT", "UNKNOWN_FIELD");
        server
            .post(&format!("{}:addTag", path("nobody")), &json!({"tag": "a"}))
            .error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        assert_eq!(server.snapshot(), before);
        server.delete(&path("jane")).ok();
        let before = server.snapshot();
        server
            .post(&format!("{}:addTag", path("jane")), &json!({"tag": "a"}))
            .error(400, "FAILED_PRECONDITION", "RESOURCE_DELETED");
        assert_eq!(server.snapshot(), before);
    }

    /// A relationship is visible from both sides, with the same role holder;
    /// removing it from the other side removes it for both.
    fn relationships_are_seen_from_both_sides(server) {
        server.create("?entityId=acme", &company("Acme"));
        server.create_person("jane", "Jane Doe");
        let added = server
            .post(
                &format!("{}:addEntityRelationship", path("acme")),
                &json!({"relatedEntity": "entities/jane", "relationshipType": "SHAREHOLDER", "ownershipPercentage": 25.5, "note": "since 2020"}),
            )
            .ok();
        assert_eq!(added["relatedEntity"], "entities/jane");
        assert_eq!(added["roleHolder"], "entities/jane");
        assert_eq!(added["relationshipType"], "SHAREHOLDER");
        assert_eq!(added["ownershipPercentage"], 25.5);
        assert!(added["name"].as_str().unwrap().starts_with("entities/acme/relationships/"));
        let from_acme = server.relationships("acme");
        assert_eq!(from_acme, vec![added.clone()]);
        let from_jane = server.relationships("jane");
        assert_eq!(from_jane.len(), 1);
        assert_eq!(from_jane[0]["relatedEntity"], "entities/acme");
        assert_eq!(from_jane[0]["roleHolder"], "entities/jane");
        assert_eq!(from_jane[0]["relationshipType"], "SHAREHOLDER");
        let page = server.get(&format!("{}:EntityRelationships", path("jane"))).ok();
        assert_eq!(page["totalSize"], 1);
        assert!(page.get("nextPageToken").is_none());
        let removed = server
            .post(
                &format!("{}:removeEntityRelationship", path("jane")),
                &json!({"relatedEntity": "entities/acme", "relationshipType": "SHAREHOLDER"}),
            )
            .ok();
        assert_eq!(removed["relationshipType"], "SHAREHOLDER");
        assert!(server.relationships("acme").is_empty());
        assert!(server.relationships("jane").is_empty());
        server
            .post(
                &format!("{}:removeEntityRelationship", path("acme")),
                &json!({"relatedEntity": "entities/jane", "relationshipType": "SHAREHOLDER"}),
            )
            .error(404, "NOT_FOUND", "RELATIONSHIP_NOT_FOUND");
    }

    /// Relationship lists page and filter by relationshipType.
    fn relationship_lists_page_and_filter(server) {
        server.create("?entityId=acme", &company("Acme"));
        for (id, kind) in [("anna", "DIRECTOR"), ("bert", "EMPLOYEE"), ("cara", "DIRECTOR")] {
            server.create_person(id, "Some One");
            server
                .post(&format!("{}:addEntityRelationship", path("acme")), &json!({"relatedEntity": format!("entities/{id}"), "relationshipType": kind}))
                .ok();
        }
        let first = server.get(&format!("{}:EntityRelationships?pageSize=2", path("acme"))).ok();
        assert_eq!(array(&first["entityRelationships"]).len(), 2);
        assert_eq!(first["totalSize"], 3);
        let token = first["nextPageToken"].as_str().unwrap();
        let second = server
            .get(&format!("{}:EntityRelationships?pageSize=2&pageToken={}", path("acme"), encode(token)))
            .ok();
        assert_eq!(array(&second["entityRelationships"]).len(), 1);
        assert!(second.get("nextPageToken").is_none());
        let newest = server
            .get(&format!("{}:EntityRelationships{}", path("acme"), query(&[("orderBy", "createTime desc")])))
            .ok();
        let related: Vec<&Value> = array(&newest["entityRelationships"]).iter().map(|r| &r["relatedEntity"]).collect();
        assert_eq!(related, vec!["entities/cara", "entities/bert", "entities/anna"]);
        let directors = server
            .get(&format!("{}:EntityRelationships{}", path("acme"), query(&[("filter", "relationshipType = DIRECTOR")])))
            .ok();
        let related: Vec<&Value> = array(&directors["entityRelationships"]).iter().map(|r| &r["relatedEntity"]).collect();
        assert_eq!(related, vec!["entities/anna", "entities/cara"]);
        assert_eq!(directors["totalSize"], 2);
        server
            .get(&format!("{}:EntityRelationships", path("nobody")))
            .error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
    }

    /// Relationships to a missing entity (NOT_FOUND), a deleted one
    /// (FAILED_PRECONDITION), itself (INVALID_ARGUMENT), or a duplicate one
    /// (ALREADY_EXISTS, also from the other side for a symmetric type) change nothing.
    fn relationship_refusals_change_nothing(server) {
        server.create("?entityId=acme", &company("Acme"));
        server.create_person("jane", "Jane Doe");
        server.create_person("gone", "Gone Person");
        server.delete(&path("gone")).ok();
        server
            .post(&format!("{}:addEntityRelationship", path("acme")), &json!({"relatedEntity": "entities/jane", "relationshipType": "DIRECTOR"}))
            .ok();
        server
            .post(&format!("{}:addEntityRelationship", path("acme")), &json!({"relatedEntity": "entities/jane", "relationshipType": "ASSOCIATE"}))
            .ok();
        let before = server.snapshot();
        let add = |id: &str, body: Value| server.post(&format!("{}:addEntityRelationship", path(id)), &body);
        let missing = add("acme", json!({"relatedEntity": "entities/nobody", "relationshipType": "DIRECTOR"}));
        missing.error(404, "NOT_FOUND", "RELATED_ENTITY_NOT_FOUND");
        add("nobody", json!({"relatedEntity": "entities/acme", "relationshipType": "DIRECTOR"}))
            .error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        add("acme", json!({"relatedEntity": "entities/gone", "relationshipType": "DIRECTOR"}))
            .error(400, "FAILED_PRECONDITION", "RELATED_ENTITY_DELETED");
        add("gone", json!({"relatedEntity": "entities/acme", "relationshipType": "DIRECTOR"}))
            .error(400, "FAILED_PRECONDITION", "RESOURCE_DELETED");
        add("acme", json!({"relatedEntity": "entities/acme", "relationshipType": "OTHER"}))
            .invalid("SELF_RELATIONSHIP", "relatedEntity");
        let duplicate = add("acme", json!({"relatedEntity": "entities/jane", "relationshipType": "DIRECTOR"}));
        duplicate.error(409, "ALREADY_EXISTS", "RELATIONSHIP_ALREADY_EXISTS");
        add("jane", json!({"relatedEntity": "entities/acme", "relationshipType": "ASSOCIATE"}))
            .error(409, "ALREADY_EXISTS", "RELATIONSHIP_ALREADY_EXISTS");
        add("acme", json!({"relatedEntity": "entities/jane"})).invalid("REQUIRED", "relationshipType");
        add("acme", json!({"relatedEntity": "entities/jane", "relationshipType": "SHAREHOLDER", "ownershipPercentage": 150}))
            .invalid("OUT_OF_RANGE", "ownershipPercentage");
        add("acme", json!({"relatedEntity": "jane", "relationshipType": "SHAREHOLDER"}))
            .invalid("INVALID_NAME", "relatedEntity");
        add("acme", json!({"relatedEntity": "entities/jane", "relationshipType": "BOSS"}))
            .error(400, "INVALID_ARGUMENT", "INVALID_VALUE");
        add("acme", json!({"relatedEntity": "entities/jane", "relationshipType": "SHAREHOLDER", "colour": "red"}))
            .error(400, "INVALID_ARGUMENT", "UNKNOWN_FIELD");
        assert_eq!(server.snapshot(), before);
    }
}
