//! Bad input must get a clear 4xx in the error envelope and change nothing (issue 2,
//! "Bad input that must get a clear 4xx and change nothing"; R-127.8 and friends).
//! Every test seeds a few entities, sends bad requests, and compares a snapshot of
//! every entity (deleted ones and relationships included) before and after.

use rics_e2e::*;
use serde_json::{Value, json};

/// Seeds `jane-doe` (live, tagged, related to `acme`), `acme` and `gone` (deleted).
fn seed(server: &Server) -> Vec<Value> {
    server.create(
        "?entityId=jane-doe",
        &json!({"displayName": "Jane Doe", "individual": {"legalName": {"givenName": "Jane", "familyName": "Doe"}, "dateOfBirth": "1980-01-02", "nationalities": ["FR"]}, "tags": ["vip"], "externalIds": {"crm": "7"}}),
    );
    server.create("?entityId=acme", &company("Acme"));
    server.create_person("gone", "Gone Person");
    server.delete(&format!("{ENTITIES}/gone")).ok();
    server
        .post(
            &format!("{ENTITIES}/acme:addEntityRelationship"),
            &json!({"relatedEntity": "entities/jane-doe", "relationshipType": "DIRECTOR"}),
        )
        .ok();
    server.snapshot()
}

const JANE: &str = "/v1alpha/entities/jane-doe";

/// Sends `body` as raw bytes with a content type.
fn raw(
    server: &Server,
    method: Method,
    path: &str,
    content_type: Option<&str>,
    body: &str,
) -> Reply {
    let mut request = server.request(method, path).body(body.to_owned());
    if let Some(content_type) = content_type {
        request = request.header("content-type", content_type);
    }
    server.send(request)
}

/// A valid individual with `individual` members merged in.
fn person_with(individual: Value) -> Value {
    let mut body = person("Val Idation");
    if let (Some(target), Value::Object(extra)) = (body["individual"].as_object_mut(), individual) {
        target.extend(extra);
    }
    body
}

on_both_backends! {
    /// Malformed JSON, and JSON that is not an object, are INVALID_ARGUMENT.
    fn malformed_json(server) {
        let before = seed(&server);
        for (method, path) in [
            (Method::POST, ENTITIES.to_owned()),
            (Method::PATCH, JANE.to_owned()),
            (Method::POST, format!("{JANE}:addTag")),
            (Method::POST, format!("{ENTITIES}/gone:undelete")),
            (Method::POST, format!("{ENTITIES}/acme:addEntityRelationship")),
            (Method::POST, format!("{ENTITIES}/acme:removeEntityRelationship")),
        ] {
            for body in ["{\"displayName\": ", "{\"displayName\": \"X\",}", "{} trailing", "not json", "{\"tag\": \"a\"\u{0}}"] {
                raw(&server, method.clone(), &path, Some("application/json"), body)
                    .error(400, "INVALID_ARGUMENT", "MALFORMED_JSON");
            }
        }
        server
            .post(ENTITIES, &json!([person("A B")]))
            .invalid("INVALID_VALUE", "entity");
        server.post(ENTITIES, &json!("text")).invalid("INVALID_VALUE", "entity");
        server.patch(JANE, &json!(42)).invalid("INVALID_VALUE", "entity");
        assert_eq!(server.snapshot(), before);
    }

    /// Unknown fields in a body are rejected (strict proto3 JSON, R-127.8), at any
    /// depth, naming the field.
    fn unknown_fields_are_rejected(server) {
        let before = seed(&server);
        let mut top = person("Ann Lee");
        top["colour"] = json!("red");
        server.post(ENTITIES, &top).invalid("UNKNOWN_FIELD", "entity.colour");
        let mut nested = person("Ann Lee");
        nested["individual"]["legalName"]["nickname"] = json!("Annie");
        server
            .post(ENTITIES, &nested)
            .invalid("UNKNOWN_FIELD", "entity.individual.legalName.nickname");
        let mut in_list = person("Ann Lee");
        in_list["contactInfo"] = json!({"addresses": [{"locality": "Paris", "planet": "Earth"}]});
        let reply = server.post(ENTITIES, &in_list);
        reply.error(400, "INVALID_ARGUMENT", "UNKNOWN_FIELD");
        assert!(reply.violation_fields()[0].ends_with("planet"), "{}", reply.text);
        server
            .patch(JANE, &json!({"displayName": "X", "colour": "red"}))
            .invalid("UNKNOWN_FIELD", "entity.colour");
        server
            .patch(&format!("{JANE}?updateMask=displayName"), &json!({"displayName": "X", "colour": "red"}))
            .invalid("UNKNOWN_FIELD", "entity.colour");
        server
            .post(&format!("{ENTITIES}/gone:undelete"), &json!({"force": true}))
            .error(400, "INVALID_ARGUMENT", "UNKNOWN_FIELD");
        server
            .post(&format!("{JANE}:removeTag"), &json!({"tag": "vip", "all": true}))
            .error(400, "INVALID_ARGUMENT", "UNKNOWN_FIELD");
        server
            .post(&format!("{ENTITIES}/acme:removeEntityRelationship"), &json!({"relatedEntity": "entities/jane-doe", "relationshipType": "DIRECTOR", "cascade": true}))
            .error(400, "INVALID_ARGUMENT", "UNKNOWN_FIELD");
        assert_eq!(server.snapshot(), before);
    }

    /// An unknown field is rejected even when its value is null: a misspelt field
    /// must not pass silently.
    fn unknown_fields_with_null_values_are_rejected(server) {
        let before = seed(&server);
        let mut body = person("Ann Lee");
        body["legalHld"] = Value::Null;
        server.post(ENTITIES, &body).invalid("UNKNOWN_FIELD", "entity.legalHld");
        server
            .patch(JANE, &json!({"displayName": "X", "colour": null}))
            .invalid("UNKNOWN_FIELD", "entity.colour");
        assert_eq!(server.snapshot(), before);
    }

    /// Values of the wrong type, in the body or the query, name the field.
    fn wrong_types(server) {
        let before = seed(&server);
        let cases = [
            (json!({"displayName": 5, "individual": {}}), "entity.displayName"),
            (json!({"displayName": "X", "individual": {}, "tags": "vip"}), "entity.tags"),
            (json!({"displayName": "X", "individual": {}, "tags": [1]}), "entity.tags[0]"),
            (json!({"displayName": "X", "individual": {}, "legalHold": "yes"}), "entity.legalHold"),
            (json!({"displayName": "X", "individual": {}, "externalIds": {"crm": 5}}), "entity.externalIds.crm"),
            (json!({"displayName": "X", "individual": {}, "entityType": "ROBOT"}), "entity.entityType"),
            (json!({"displayName": "X", "individual": {"gender": "M"}}), "entity.individual.gender"),
            (json!({"displayName": "X", "individual": {"dateOfBirth": 1980}}), "entity.individual.dateOfBirth"),
        ];
        for (body, field) in &cases {
            let reply = server.post(ENTITIES, body);
            assert_eq!(reply.status, 400, "{body} must be refused: {}", reply.text);
            reply.invalid("INVALID_VALUE", field);
        }
        server
            .patch(JANE, &json!({"displayName": ["X"]}))
            .invalid("INVALID_VALUE", "entity.displayName");
        server
            .patch(&format!("{JANE}?updateMask=tags"), &json!({"tags": {"a": 1}}))
            .error(400, "INVALID_ARGUMENT", "INVALID_VALUE");
        server.post(&format!("{JANE}:addTag"), &json!({"tag": 7})).invalid("INVALID_VALUE", "tag.tag");
        for (path, field) in [
            (format!("{ENTITIES}?pageSize=abc"), "pageSize"),
            (format!("{ENTITIES}?pageSize=1.5"), "pageSize"),
            (format!("{ENTITIES}?pageSize=2147483648"), "pageSize"),
            (format!("{ENTITIES}?skip=x"), "skip"),
            (format!("{ENTITIES}?showDeleted=maybe"), "showDeleted"),
            (format!("{ENTITIES}/jane-doe:EntityRelationships?pageSize=ten"), "pageSize"),
        ] {
            let reply = server.get(&path);
            reply.error(400, "INVALID_ARGUMENT", reply.reason());
            reply.assert_violation(field);
        }
        server
            .delete(&format!("{JANE}?allowMissing=yes"))
            .invalid("INVALID_BOOLEAN", "allowMissing");
        server
            .get(&format!("{ENTITIES}?pageSize=1&pageSize=2"))
            .invalid("REPEATED_PARAMETER", "pageSize");
        assert_eq!(server.snapshot(), before);
    }

    /// A JSON array where an object is expected is a wrong type too, not a positional
    /// form of the object (strict proto3 JSON, R-127.8).
    fn objects_given_as_arrays_are_refused(server) {
        let before = seed(&server);
        let cases = [
            (json!({"displayName": "X", "individual": []}), "entity.individual"),
            (json!({"displayName": "X", "individual": [{"givenName": "Jane", "familyName": "Seq"}, [], "1970-01-01"]}), "entity.individual"),
            (json!({"displayName": "X", "individual": {"legalName": ["Jane", "", "Seq"]}}), "entity.individual.legalName"),
            (json!({"displayName": "X", "individual": {}, "contactInfo": [["a@example.com"]]}), "entity.contactInfo"),
        ];
        for (body, field) in &cases {
            let reply = server.post(ENTITIES, body);
            assert_eq!(reply.status, 400, "{body} must be refused: {}", reply.text);
            reply.invalid("INVALID_VALUE", field);
        }
        let reply = server.patch(JANE, &json!({"individual": {"legalName": ["Janet"]}}));
        assert_eq!(reply.status, 400, "must be refused: {}", reply.text);
        let reply = server.post(&format!("{JANE}:addTag"), &json!(["positional"]));
        assert_eq!(reply.status, 400, "must be refused: {}", reply.text);
        let reply = server.post(&format!("{ENTITIES}/acme:addEntityRelationship"), &json!(["entities/gone", "OTHER"]));
        assert_eq!(reply.status, 400, "must be refused: {}", reply.text);
        assert_eq!(server.snapshot(), before);
    }

    /// A negative pageSize or skip is INVALID_ARGUMENT naming it (R-158.4).
    fn negative_page_size_and_skip(server) {
        let before = seed(&server);
        server.get(&format!("{ENTITIES}?pageSize=-1")).invalid("INVALID_PAGE_SIZE", "pageSize");
        server.get(&format!("{ENTITIES}?skip=-1")).invalid("INVALID_SKIP", "skip");
        server
            .get(&format!("{JANE}:EntityRelationships?pageSize=-1"))
            .invalid("INVALID_PAGE_SIZE", "pageSize");
        assert_eq!(server.snapshot(), before);
    }

    /// A page token is bound to the query that issued it: another filter, orderBy,
    /// showDeleted, collection or parent is INVALID_ARGUMENT; pageSize and skip may
    /// change (R-158.7, R-158.8).
    fn page_token_from_another_query(server) {
        seed(&server);
        for i in 0..4 {
            server.create("", &person(&format!("Extra Person{i}")));
        }
        let first = server.get(&format!("{ENTITIES}?pageSize=1&filter=entityType%3DINDIVIDUAL")).ok();
        let token = encode(first["nextPageToken"].as_str().unwrap());
        for other in [
            "filter=entityType%3DCOMPANY".to_owned(),
            String::new(),
            "filter=entityType%3DINDIVIDUAL&orderBy=displayName".to_owned(),
            "filter=entityType%3DINDIVIDUAL&showDeleted=true".to_owned(),
        ] {
            server
                .get(&format!("{ENTITIES}?pageSize=1&{other}&pageToken={token}"))
                .invalid("PAGE_TOKEN_REQUEST_MISMATCH", "pageToken");
        }
        server
            .get(&format!("{ENTITIES}?pageSize=3&skip=1&filter=entityType%3DINDIVIDUAL&pageToken={token}"))
            .ok();
        let ordered = server.get(&format!("{ENTITIES}?pageSize=1&orderBy=displayName%20desc")).ok();
        let ordered = encode(ordered["nextPageToken"].as_str().unwrap());
        server
            .get(&format!("{ENTITIES}?pageSize=1&orderBy=%20displayName%20%20desc%20&pageToken={ordered}"))
            .ok();
        server
            .get(&format!("{ENTITIES}?pageSize=1&orderBy=displayName&pageToken={ordered}"))
            .invalid("PAGE_TOKEN_REQUEST_MISMATCH", "pageToken");
        server
            .get(&format!("{ENTITIES}/acme:EntityRelationships?pageToken={token}"))
            .invalid("PAGE_TOKEN_REQUEST_MISMATCH", "pageToken");
        for id in ["anna", "bert"] {
            server.create_person(id, "Some One");
            server
                .post(&format!("{ENTITIES}/acme:addEntityRelationship"), &json!({"relatedEntity": format!("entities/{id}"), "relationshipType": "EMPLOYEE"}))
                .ok();
        }
        let relationships = server.get(&format!("{ENTITIES}/acme:EntityRelationships?pageSize=1")).ok();
        let relationship_token = encode(relationships["nextPageToken"].as_str().unwrap());
        server
            .get(&format!("{ENTITIES}/anna:EntityRelationships?pageSize=1&pageToken={relationship_token}"))
            .invalid("PAGE_TOKEN_REQUEST_MISMATCH", "pageToken");
        server
            .get(&format!("{ENTITIES}?pageSize=1&pageToken={relationship_token}"))
            .invalid("PAGE_TOKEN_REQUEST_MISMATCH", "pageToken");
    }

    /// Garbage, tampered and foreign (another server's secret) page tokens are
    /// INVALID_ARGUMENT on pageToken (R-158.9, R-158.11).
    fn forged_page_tokens(server) {
        seed(&server);
        server.create("", &person("Extra One"));
        let first = server.get(&format!("{ENTITIES}?pageSize=1")).ok();
        let token = first["nextPageToken"].as_str().unwrap().to_owned();
        let mut tampered: Vec<char> = token.chars().collect();
        let middle = tampered.len() / 2;
        tampered[middle] = if tampered[middle] == 'A' { 'B' } else { 'A' };
        let tampered: String = tampered.into_iter().collect();
        let truncated = &token[..token.len() - 4];
        for forged in ["garbage", "!!!", "AAAA", tampered.as_str(), truncated, "eyJvZmZzZXQiOjF9"] {
            let reply = server.get(&format!("{ENTITIES}?pageSize=1&pageToken={}", encode(forged)));
            reply.error(400, "INVALID_ARGUMENT", reply.reason());
            reply.assert_violation("pageToken");
        }
        let other = Server::start(server.backend());
        for i in 0..3 {
            other.create("", &person(&format!("Other Person{i}")));
        }
        let foreign = other.get(&format!("{ENTITIES}?pageSize=1")).ok();
        let foreign = encode(foreign["nextPageToken"].as_str().unwrap());
        server
            .get(&format!("{ENTITIES}?pageSize=1&pageToken={foreign}"))
            .invalid("INVALID_PAGE_TOKEN_SIGNATURE", "pageToken");
    }

    /// Filter syntax errors are INVALID_ARGUMENT on `filter` with the position in the
    /// ErrorInfo metadata (R-160.17).
    fn filter_syntax_errors(server) {
        let before = seed(&server);
        for filter in [
            "tags:vip AND",
            "AND tags:vip",
            "(tags:vip",
            "tags:vip)",
            "displayName =",
            "displayName = \"unterminated",
            "createTime > 2026-01-01T00:00:00Z",
            "tags:vip OR OR tags:pep",
            "NOT NOT tags:vip",
            "AND(tags:vip)",
            "= \"x\"",
        ] {
            let reply = server.get(&format!("{ENTITIES}{}", query(&[("filter", filter)])));
            reply.error(400, "INVALID_ARGUMENT", reply.reason());
            reply.assert_violation("filter");
            let position = reply
                .metadata("position")
                .unwrap_or_else(|| panic!("no position for {filter:?}: {}", reply.text));
            let position: usize = position.parse().unwrap_or_else(|_| panic!("position {position} is a number"));
            assert!(position <= filter.len(), "position {position} lies within {filter:?}");
        }
        let reply = server.get(&format!("{ENTITIES}{}", query(&[("filter", "tags:vip AND (displayName = )")])));
        reply.error(400, "INVALID_ARGUMENT", reply.reason());
        assert_eq!(reply.metadata("position"), Some("28"), "the position of the ')': {}", reply.text);
        let long = "tags:vip OR ".repeat(400) + "tags:pep";
        let reply = server.get(&format!("{ENTITIES}{}", query(&[("filter", &long)])));
        reply.error(400, "INVALID_ARGUMENT", reply.reason());
        reply.assert_violation("filter");
        assert_eq!(server.snapshot(), before);
    }

    /// Filters on unknown fields, values of the wrong type, enum values outside the
    /// set, ordering on enums, indexing into lists and unknown functions are refused;
    /// so are unknown orderBy fields (R-160.10, R-160.12, R-160.17, R-132.8).
    fn filters_and_orders_on_unknown_fields(server) {
        let before = seed(&server);
        for filter in [
            "colour = \"red\"",
            "individual.gender = MALE",
            "riskDetails.riskScore > 5",
            "entityType = ROBOT",
            "entityType > COMPANY",
            "screeningStatus = clear",
            "tags.0 = \"x\"",
            "tags[0] = \"x\"",
            "tags = \"vip\"",
            "createTime > \"yesterday\"",
            "legalHold = maybe",
            "legalHold > false",
            "nosuchfn(x)",
            "displayName:\"!!\"",
            "\"Jane\" = displayName",
        ] {
            let reply = server.get(&format!("{ENTITIES}{}", query(&[("filter", filter)])));
            reply.error(400, "INVALID_ARGUMENT", reply.reason());
            reply.assert_violation("filter");
        }
        server
            .get(&format!("{JANE}:EntityRelationships{}", query(&[("filter", "displayName = \"x\"")])))
            .assert_violation("filter");
        for order in ["colour", "displayName up", "tags", "displayName desc desc", "createTime,"] {
            server
                .get(&format!("{ENTITIES}{}", query(&[("orderBy", order)])))
                .invalid("INVALID_ORDER_BY", "orderBy");
        }
        server
            .get(&format!("{JANE}:EntityRelationships?showDeleted=true"))
            .error(400, "INVALID_ARGUMENT", "UNKNOWN_PARAMETER");
        assert_eq!(server.snapshot(), before);
    }

    /// An updateMask with an unknown path, an index, `*` with other paths, or an
    /// emptied required field is INVALID_ARGUMENT on updateMask and changes nothing
    /// (R-161.4, R-161.5, R-134.5, R-203.4).
    fn update_mask_errors(server) {
        let before = seed(&server);
        let patch = |mask: &str, body: Value| server.patch(&format!("{JANE}{}", query(&[("updateMask", mask)])), &body);
        let reply = patch("colour", json!({"displayName": "X"}));
        reply.invalid("UNKNOWN_UPDATE_MASK_PATH", "updateMask");
        assert_eq!(reply.metadata("path"), Some("colour"));
        patch("displayName,individual.nope", json!({"displayName": "X"}))
            .invalid("UNKNOWN_UPDATE_MASK_PATH", "updateMask");
        patch("tags.0", json!({"tags": ["x"]})).invalid("UPDATE_MASK_INDEXES_REPEATED_FIELD", "updateMask");
        patch("*,displayName", json!({"displayName": "X"})).invalid("UPDATE_MASK_WILDCARD_NOT_ALONE", "updateMask");
        patch("displayName,", json!({"displayName": "X"})).error(400, "INVALID_ARGUMENT", "INVALID_UPDATE_MASK");
        let emptied = patch("displayName", json!({}));
        emptied.error(400, "INVALID_ARGUMENT", emptied.reason());
        assert!(
            emptied.violation_fields().iter().any(|f| f.ends_with("displayName")),
            "the required field is named: {}", emptied.text
        );
        server
            .patch(&format!("{JANE}?updateMask=*"), &json!({"individual": {"legalName": {"familyName": "Doe"}}}))
            .assert_violation("entity.displayName");
        assert_eq!(server.snapshot(), before);
    }

    /// Ids with bad characters are INVALID_ARGUMENT, on create (`entityId`) and in
    /// paths (R-122.3, R-131.5), and nothing is stored.
    fn ids_with_bad_characters(server) {
        let before = seed(&server);
        for id in ["Bad_ID", "abc", "1abc", "-abc", "abcd-", "ab.cd", "abcd%20e", "ab%3Acd", "ab%2Fcd", &"a".repeat(64), "caf%C3%A9"] {
            server
                .post(&format!("{ENTITIES}?entityId={id}"), &person("Some One"))
                .invalid("INVALID_RESOURCE_ID", "entityId");
        }
        for id in ["Bad_ID", "UPPER", "a%20b", "caf%C3%A9"] {
            let path = format!("{ENTITIES}/{id}");
            for reply in [
                server.get(&path),
                server.patch(&path, &json!({"displayName": "X"})),
                server.delete(&path),
                server.post(&format!("{path}:undelete"), &json!({})),
                server.delete(&format!("{path}:hardDelete")),
                server.post(&format!("{path}:addTag"), &json!({"tag": "x"})),
                server.get(&format!("{path}:EntityRelationships")),
            ] {
                reply.invalid("INVALID_NAME", "name");
            }
        }
        server
            .post(&format!("{JANE}:addEntityRelationship"), &json!({"relatedEntity": "entities/Bad_ID", "relationshipType": "OTHER"}))
            .invalid("INVALID_NAME", "relatedEntity");
        server
            .get(&format!("{ENTITIES}:batchGet?names=entities/Bad_ID"))
            .invalid("INVALID_NAME", "names[0]");
        assert_eq!(server.snapshot(), before);
    }

    /// A 2 MiB body is refused with 400 whether its length is declared or it comes in
    /// chunks, and nothing is stored.
    fn two_mebibyte_bodies(server) {
        let before = seed(&server);
        let mut big = person("Big Body");
        big["individual"]["occupation"] = json!("x".repeat(2 * 1024 * 1024));
        let text = big.to_string();
        let reply = raw(&server, Method::POST, ENTITIES, Some("application/json"), &text);
        reply.error(400, "INVALID_ARGUMENT", "REQUEST_BODY_TOO_LARGE");
        let reply = raw(&server, Method::PATCH, JANE, Some("application/json"), &text);
        reply.error(400, "INVALID_ARGUMENT", "REQUEST_BODY_TOO_LARGE");
        let chunks: Vec<Result<Vec<u8>, std::io::Error>> = text
            .as_bytes()
            .chunks(64 * 1024)
            .map(|c| Ok(c.to_vec()))
            .collect();
        let chunked = server.send(
            server
                .request(Method::POST, ENTITIES)
                .header("content-type", "application/json")
                .body(reqwest::blocking::Body::new(ChunkReader::new(chunks))),
        );
        chunked.error(400, "INVALID_ARGUMENT", "REQUEST_BODY_TOO_LARGE");
        assert_eq!(server.snapshot(), before);
        server.create("", &person("Still Works"));
    }

    /// A body that is not `application/json` is refused; `charset=utf-8` is fine (other
    /// charsets: [`charsets_other_than_utf8_are_refused`]).
    fn wrong_content_type(server) {
        let before = seed(&server);
        let body = person("Ann Lee").to_string();
        for content_type in [Some("text/plain"), Some("application/x-www-form-urlencoded"), Some("application/xml"), None] {
            let reply = raw(&server, Method::POST, ENTITIES, content_type, &body);
            reply.error(400, "INVALID_ARGUMENT", "UNSUPPORTED_CONTENT_TYPE");
            raw(&server, Method::PATCH, JANE, content_type, "{\"displayName\": \"X\"}")
                .error(400, "INVALID_ARGUMENT", "UNSUPPORTED_CONTENT_TYPE");
        }
        assert_eq!(server.snapshot(), before);
        raw(&server, Method::POST, ENTITIES, Some("application/json; charset=utf-8"), &body).ok();
        raw(&server, Method::POST, ENTITIES, Some("Application/JSON"), &body).ok();
    }

    /// Unknown paths and unknown custom verbs are NOT_FOUND in the envelope (R-127.8,
    /// R-136.4), never actix's plain text, whatever the method.
    fn unknown_routes(server) {
        let before = seed(&server);
        for (method, path) in [
            (Method::GET, "/"),
            (Method::GET, "/v1alpha"),
            (Method::GET, "/v1alpha/nothing"),
            (Method::GET, "/v1/entities"),
            (Method::PUT, "/v1alpha/nothing"),
            (Method::OPTIONS, "/v1alpha/nothing"),
            (Method::POST, "/v1alpha/entities/jane-doe:unknownVerb"),
            (Method::OPTIONS, "/v1alpha/entities/jane-doe:unknownVerb"),
            (Method::GET, "/v1alpha/entities/jane-doe/notes/x/y"),
            (Method::GET, "/v1alpha/entities/jane-doe:"),
            (Method::GET, "/v1alpha/entities/jane-doe:addTag:removeTag"),
            (Method::GET, "/v1alpha/entities/"),
        ] {
            let reply = server.send(server.request(method.clone(), path).header("content-type", "application/json").body("{}"));
            reply.error(404, "NOT_FOUND", "ROUTE_NOT_FOUND");
            assert_eq!(reply.metadata("method"), Some(method.as_str()), "{}", reply.text);
            assert_eq!(reply.header("allow"), None, "{}", reply.text);
        }
        assert_eq!(server.snapshot(), before);
    }

    /// A method a path does not have is 405 METHOD_NOT_ALLOWED in the envelope, with
    /// `Allow` naming the path's methods (RFC 9110 section 15.5.6), answered before
    /// authentication: no token, or a bad one, learns the same.
    fn wrong_methods_are_not_allowed(server) {
        let before = seed(&server);
        for (method, path, allowed) in [
            (Method::PUT, JANE, "GET, PATCH, DELETE, OPTIONS"),
            (Method::POST, JANE, "GET, PATCH, DELETE, OPTIONS"),
            (Method::PUT, ENTITIES, "GET, POST, OPTIONS"),
            (Method::DELETE, ENTITIES, "GET, POST, OPTIONS"),
            (Method::HEAD, ENTITIES, "GET, POST, OPTIONS"),
            (Method::GET, "/v1alpha/entities/jane-doe:undelete", "POST, OPTIONS"),
            (Method::GET, "/v1alpha/entities/jane-doe%3Aundelete", "POST, OPTIONS"),
            (Method::GET, "/v1alpha/entities/jane-doe:hardDelete", "DELETE, OPTIONS"),
            (Method::POST, "/v1alpha/entities/jane-doe:EntityRelationships", "GET, OPTIONS"),
            (Method::POST, "/v1alpha/entities:batchGet", "GET, OPTIONS"),
            (Method::PUT, "/v1alpha/entities/jane-doe/notes/n1", "GET, PATCH, DELETE, OPTIONS"),
            (Method::POST, "/healthz", "GET, OPTIONS"),
            (Method::DELETE, "/oauth2/token", "POST, OPTIONS"),
            (Method::PUT, "/oauth2/authorize", "GET, POST, OPTIONS"),
        ] {
            for (credentials, token) in [("a token", Some(server.token())), ("a bad token", Some("not-a-token")), ("no token", None)] {
                let mut request = server.request_as(token, method.clone(), path);
                if method != Method::HEAD {
                    request = request.header("content-type", "application/json").body("{}");
                }
                let reply = server.send(request);
                let context = format!("{method} {path} with {credentials}: {}", reply.text);
                assert_eq!(reply.header("allow"), Some(allowed), "{context}");
                assert_eq!(reply.header("www-authenticate"), None, "{context}");
                if method == Method::HEAD {
                    assert_eq!(reply.status, 405, "{context}");
                    continue;
                }
                reply.error(405, "UNIMPLEMENTED", "METHOD_NOT_ALLOWED");
                assert_eq!(reply.metadata("method"), Some(method.as_str()), "{context}");
                assert_eq!(reply.metadata("allowedMethods"), Some(allowed), "{context}");
            }
        }
        assert_eq!(server.snapshot(), before);
    }

    /// OPTIONS on a path that exists answers 204 with `Allow` and no body, without a
    /// token; on one that does not, 404.
    fn options_lists_the_methods(server) {
        let before = seed(&server);
        for (path, allowed) in [
            (JANE, "GET, PATCH, DELETE, OPTIONS"),
            (ENTITIES, "GET, POST, OPTIONS"),
            ("/v1alpha/entities/jane-doe:addTag", "POST, OPTIONS"),
            ("/v1alpha/openapi.json", "GET, OPTIONS"),
            ("/oauth2/token", "POST, OPTIONS"),
        ] {
            for (credentials, token) in [("a token", Some(server.token())), ("no token", None)] {
                let reply = server.send(server.request_as(token, Method::OPTIONS, path));
                let context = format!("OPTIONS {path} with {credentials}: {}", reply.text);
                assert_eq!(reply.status, 204, "{context}");
                assert_eq!(reply.header("allow"), Some(allowed), "{context}");
                assert!(reply.text.is_empty(), "{context}");
                assert!(reply.header("x-request-id").is_some(), "{context}");
            }
        }
        assert_eq!(server.snapshot(), before);
    }

    /// Custom verbs work with the colon percent-encoded (R-136.4).
    fn percent_encoded_custom_verbs(server) {
        seed(&server);
        let tagged = server.post(&format!("{JANE}%3AaddTag"), &json!({"tag": "encoded"})).ok();
        assert!(array(&tagged["tags"]).contains(&json!("encoded")));
        server.post(&format!("{JANE}%3aremoveTag"), &json!({"tag": "encoded"})).ok();
        server.post(&format!("{ENTITIES}/gone%3Aundelete"), &json!({})).ok();
        let batch = server.get(&format!("{ENTITIES}%3AbatchGet?names=entities%2Fjane-doe")).ok();
        assert_eq!(names(&batch["entities"]), vec!["entities/jane-doe"]);
        let relationships = server.get(&format!("{JANE}%3AEntityRelationships")).ok();
        assert_eq!(array(&relationships["entityRelationships"]).len(), 1);
        server.delete(&format!("{ENTITIES}/gone%3AhardDelete")).ok();
        server.get(&format!("{ENTITIES}/gone")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        server
            .post(&format!("{JANE}%3AnoSuchVerb"), &json!({}))
            .error(404, "NOT_FOUND", "ROUTE_NOT_FOUND");
        server
            .get(&format!("{JANE}%3Aundelete"))
            .error(405, "UNIMPLEMENTED", "METHOD_NOT_ALLOWED");
    }

    /// Every route refuses a query parameter it does not know, naming it, and does
    /// nothing.
    fn unknown_query_parameters(server) {
        let before = seed(&server);
        let routes: Vec<(Method, String, Option<Value>)> = vec![
            (Method::GET, format!("{ENTITIES}?colour=red"), None),
            (Method::GET, format!("{ENTITIES}?pagesize=1"), None),
            (Method::POST, format!("{ENTITIES}?colour=red"), Some(person("New Person"))),
            (Method::POST, format!("{ENTITIES}?entityId=newp&validateOnly=true"), Some(person("New Person"))),
            (Method::GET, format!("{JANE}?colour=red"), None),
            (Method::GET, format!("{JANE}?view=FULL"), None),
            (Method::PATCH, format!("{JANE}?colour=red"), Some(json!({"displayName": "Changed"}))),
            (Method::PATCH, format!("{JANE}?allowMissing=true"), Some(json!({"displayName": "Changed"}))),
            (Method::DELETE, format!("{JANE}?colour=red"), None),
            (Method::DELETE, format!("{JANE}?force=true"), None),
            (Method::DELETE, format!("{JANE}:hardDelete?colour=red"), None),
            (Method::GET, format!("{ENTITIES}:batchGet?names=entities/jane-doe&colour=red"), None),
            (Method::GET, format!("{JANE}:EntityRelationships?colour=red"), None),
            (Method::POST, format!("{ENTITIES}/gone:undelete?colour=red"), Some(json!({}))),
            (Method::POST, format!("{ENTITIES}/gone:undelete?etag=%22stale%22"), Some(json!({}))),
            (Method::POST, format!("{JANE}:addTag?colour=red"), Some(json!({"tag": "new"}))),
            (Method::POST, format!("{JANE}:removeTag?colour=red"), Some(json!({"tag": "vip"}))),
            (Method::POST, format!("{ENTITIES}/acme:removeEntityRelationship?colour=red"), Some(json!({"relatedEntity": "entities/jane-doe", "relationshipType": "DIRECTOR"}))),
            (Method::POST, format!("{JANE}:addEntityRelationship?colour=red"), Some(json!({"relatedEntity": "entities/acme", "relationshipType": "CUSTOMER"}))),
        ];
        let mut wrong = Vec::new();
        let mut before = before;
        for (method, path, body) in routes {
            let mut request = server.request(method.clone(), &path);
            if let Some(body) = &body {
                request = request.json(body);
            }
            let reply = server.send(request);
            let parameter = path.rsplit(['?', '&']).next().unwrap().split('=').next().unwrap().to_owned();
            if reply.status != 400 || reply.reason() != "UNKNOWN_PARAMETER" || !reply.violation_fields().contains(&parameter) {
                wrong.push(format!("{method} {path} -> {} {}", reply.status, reply.text));
            } else {
                reply.invalid("UNKNOWN_PARAMETER", &parameter);
            }
            let after = server.snapshot();
            if after != before {
                wrong.push(format!("{method} {path} changed the data"));
                before = after;
            }
        }
        assert!(wrong.is_empty(), "unknown query parameters must be refused:\n{}", wrong.join("\n"));
    }

    /// Impossible and out-of-range dates are refused naming the field.
    fn invalid_dates(server) {
        let before = seed(&server);
        for date in ["1970-02-31", "2023-02-29", "2023-13-01", "2023-00-10", "1970-2-3", "70-01-01", "yesterday", "", "1980-01-01T00:00:00Z", "2999-01-01", "1700-01-01"] {
            let reply = server.post(ENTITIES, &person_with(json!({"dateOfBirth": date})));
            reply.error(400, "INVALID_ARGUMENT", reply.reason());
            reply.assert_violation("entity.individual.dateOfBirth");
        }
        let reply = server.patch(JANE, &json!({"individual": {"dateOfBirth": "1970-02-31"}}));
        reply.error(400, "INVALID_ARGUMENT", reply.reason());
        reply.assert_violation("entity.individual.dateOfBirth");
        assert_eq!(server.snapshot(), before);
        let leap = server.create("", &person_with(json!({"dateOfBirth": "2000-02-29"})));
        assert_eq!(leap["individual"]["dateOfBirth"], "2000-02-29");
    }

    /// Country codes must be assigned ISO 3166-1 alpha-2 codes, wherever they appear.
    fn invalid_country_codes(server) {
        let before = seed(&server);
        for code in ["XX", "ZZ", "FRA", "F", "12", "", "F R"] {
            let reply = server.post(ENTITIES, &person_with(json!({"nationalities": ["GB", code]})));
            reply.error(400, "INVALID_ARGUMENT", reply.reason());
            reply.assert_violation("entity.individual.nationalities[1]");
        }
        let cases = [
            (person_with(json!({"countryOfResidence": "XX"})), "entity.individual.countryOfResidence"),
            (person_with(json!({"countryOfBirth": "SU"})), "entity.individual.countryOfBirth"),
            (json!({"displayName": "Co", "company": {"legalName": "Co", "countryOfIncorporation": "QQ"}}), "entity.company.countryOfIncorporation"),
            (json!({"displayName": "Tr", "trust": {"legalName": "Tr", "countryOfRegistration": "AAA"}}), "entity.trust.countryOfRegistration"),
            ({
                let mut body = person("Ad Dress");
                body["contactInfo"] = json!({"addresses": [{"locality": "X", "country": "EU"}]});
                body
            }, "entity.contactInfo.addresses[0].country"),
        ];
        for (body, field) in &cases {
            let reply = server.post(ENTITIES, body);
            reply.error(400, "INVALID_ARGUMENT", reply.reason());
            reply.assert_violation(field);
        }
        let reply = server.patch(JANE, &json!({"individual": {"nationalities": ["XX"]}}));
        reply.error(400, "INVALID_ARGUMENT", reply.reason());
        reply.assert_violation("entity.individual.nationalities[0]");
        assert_eq!(server.snapshot(), before);
        let lower = server.create("", &person_with(json!({"nationalities": ["fr", "FR", "gb"]})));
        assert_eq!(lower["individual"]["nationalities"], json!(["FR", "GB"]));
    }

    /// Other validation: required and bounded displayName, exactly one details object,
    /// a type matching it, emails, phone numbers, tags, external ids, request ids;
    /// every violation is reported at once.
    fn entity_validation(server) {
        let before = seed(&server);
        let cases = [
            (json!({"individual": {}}), "entity.displayName"),
            (json!({"displayName": "", "individual": {}}), "entity.displayName"),
            (json!({"displayName": "x".repeat(201), "individual": {}}), "entity.displayName"),
            (json!({"displayName": "X"}), "entity"),
            (json!({"displayName": "X", "individual": {}, "company": {}}), "entity"),
            (json!({"displayName": "X", "entityType": "TRUST", "individual": {}}), "entity.entityType"),
            (json!({"displayName": "X", "trust": {}}), "entity.trust.legalName"),
            (json!({"displayName": "X", "individual": {"legalName": {"middleNames": "M"}}}), "entity.individual.legalName"),
            (json!({"displayName": "X", "individual": {}, "contactInfo": {"emails": ["ok@example.com", "nope"]}}), "entity.contactInfo.emails[1]"),
            (json!({"displayName": "X", "individual": {}, "contactInfo": {"phoneNumbers": ["call me"]}}), "entity.contactInfo.phoneNumbers[0]"),
            (json!({"displayName": "X", "individual": {}, "tags": ["ok", "not ok"]}), "entity.tags[1]"),
            (json!({"displayName": "X", "individual": {}, "externalIds": {"bad key": "1"}}), "entity.externalIds.bad key"),
            (json!({"displayName": "X", "individual": {}, "externalIds": {"crm": ""}}), "entity.externalIds.crm"),
        ];
        for (body, field) in &cases {
            let reply = server.post(ENTITIES, body);
            reply.error(400, "INVALID_ARGUMENT", reply.reason());
            reply.assert_violation(field);
        }
        let several = server.post(ENTITIES, &json!({"displayName": "", "individual": {"dateOfBirth": "2999"}, "tags": [" "]}));
        several.error(400, "INVALID_ARGUMENT", "INVALID_FIELDS");
        for field in ["entity.displayName", "entity.individual.dateOfBirth", "entity.tags[0]"] {
            several.assert_violation(field);
        }
        for request_id in ["abc", "00000000-0000-0000-0000-000000000000", "6b7c0e4a2f514d8e"] {
            server
                .post(&format!("{ENTITIES}?requestId={request_id}"), &person("Ann Lee"))
                .invalid("INVALID_REQUEST_ID", "requestId");
        }
        server
            .patch(JANE, &json!({"displayName": "y".repeat(201)}))
            .assert_violation("entity.displayName");
        assert_eq!(server.snapshot(), before);
    }
}

// ---- Input hygiene: control characters, duplicate keys, charsets, UTF-8 (issue 13) ----

/// The string-taking filter variants of every list route, `{}` standing for the literal
/// (issue 13: a U+0000 there answered 500 on PostgreSQL). A list route of the OpenAPI
/// document missing here fails [`nul_in_every_list_filter_is_refused`].
const STRING_FILTERS: &[(&str, &[&str])] = &[
    (
        "/v1alpha/automations/{automation}/executions",
        &["state = \"{}\"", "createTime > \"{}\""],
    ),
    (
        "/v1alpha/entities",
        &[
            "displayName = \"{}\"",
            "displayName:\"{}\"",
            "\"{}\"",
            "tags:\"{}\"",
            "externalIds.crm = \"{}\"",
            "externalIds:\"{}\"",
            "createTime > \"{}\"",
            "riskDetails.riskStatus = \"{}\"",
        ],
    ),
    (
        "/v1alpha/entities/{entity}:EntityRelationships",
        &["createTime > \"{}\""],
    ),
    ("/v1alpha/entities/{entity}/events", &["eventType = \"{}\""]),
    (
        "/v1alpha/entities/{entity}/files",
        &[
            "displayName = \"{}\"",
            "contentType = \"{}\"",
            "createTime > \"{}\"",
        ],
    ),
    (
        "/v1alpha/forms/{form}/files",
        &[
            "displayName = \"{}\"",
            "contentType = \"{}\"",
            "createTime > \"{}\"",
        ],
    ),
    (
        "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs",
        &["entity = \"{}\""],
    ),
    (
        "/v1alpha/entities/{entity}/individualEntityRiskRatingJobs",
        &["entity = \"{}\""],
    ),
    (
        "/v1alpha/entities/{entity}/onboardIndividualEntityJobs",
        &["entity = \"{}\""],
    ),
    (
        "/v1alpha/individualEntityIDVerificationJobs",
        &["entity = \"{}\""],
    ),
    (
        "/v1alpha/individualEntityVerificationJobs",
        &["entity = \"{}\""],
    ),
    ("/v1alpha/riskModels", &["createTime > \"{}\""]),
    ("/v1alpha/entities/{entity}/notes", &["authorId = \"{}\""]),
    (
        "/v1alpha/workspaces",
        &["displayName = \"{}\"", "entities:\"{}\""],
    ),
    (
        "/v1alpha/workspaces/{workspace}/notes",
        &["authorId = \"{}\""],
    ),
    (
        "/v1alpha/activityLogTypes",
        &["displayName = \"{}\"", "\"{}\""],
    ),
    (
        "/v1alpha/entities/{entity}/activityLogs",
        &["activityLogType = \"{}\"", "source = \"{}\""],
    ),
    ("/v1alpha/alertTypes", &["displayName = \"{}\""]),
    (
        "/v1alpha/alerts",
        &[
            "alertType = \"{}\"",
            "entities:\"{}\"",
            "workspace = \"{}\"",
        ],
    ),
    (
        "/v1alpha/documents",
        &[
            "displayName = \"{}\"",
            "displayName:\"{}\"",
            "entity = \"{}\"",
            "workspace = \"{}\"",
            "issuingCountry = \"{}\"",
            "expiryDate < \"{}\"",
        ],
    ),
    (
        "/v1alpha/entities/{entity}/documents",
        &[
            "displayName = \"{}\"",
            "displayName:\"{}\"",
            "entity = \"{}\"",
            "issuingCountry = \"{}\"",
            "expiryDate < \"{}\"",
        ],
    ),
    (
        "/v1alpha/tenants/{tenant}/children",
        &["displayName = \"{}\""],
    ),
    (
        "/v1alpha/workspaces/{workspace}/documents",
        &["displayName:\"{}\"", "workspace = \"{}\""],
    ),
    (
        "/v1alpha/formDefinitions",
        &["displayName = \"{}\"", "revisionId = \"{}\""],
    ),
    (
        "/v1alpha/automations",
        &["displayName = \"{}\"", "revisionId = \"{}\""],
    ),
    (
        "/v1alpha/forms",
        &[
            "formDefinition = \"{}\"",
            "entity = \"{}\"",
            "workspaces:\"{}\"",
            "expireTime < \"{}\"",
        ],
    ),
    (
        "/v1alpha/workspaces/{workspace}/forms",
        &["displayName = \"{}\"", "workspaces:\"{}\""],
    ),
    ("/v1alpha/webhookEndpoints", &["url = \"{}\""]),
    (
        "/v1alpha/webhookEndpoints/{webhookEndpoint}/deliveries",
        &["eventType = \"{}\"", "createTime > \"{}\""],
    ),
];

/// The GET operations of the OpenAPI document that take a `filter`.
fn filtered_lists(server: &Server) -> Vec<String> {
    let document = server.get("/v1alpha/openapi.json").ok();
    let paths = document["paths"].as_object().expect("paths");
    paths
        .iter()
        .filter(|(_, item)| {
            array(&item["get"]["parameters"])
                .iter()
                .any(|p| p["name"] == "filter" && p["in"] == "query")
        })
        .map(|(path, _)| path.clone())
        .collect()
}

/// Sends a raw JSON text (not re-encoded by serde_json, so duplicate keys survive).
fn json_text(server: &Server, method: Method, path: &str, body: &str) -> Reply {
    raw(server, method, path, Some("application/json"), body)
}

on_both_backends! {
    /// Every list route refuses U+0000 in each of its string filters, sent raw
    /// (`%00`) or as a CEL escape (`\x00`, `\u0000`, `\000`): 400 CONTROL_CHARACTER
    /// naming `filter`, never 500 (issue 13).
    fn nul_in_every_list_filter_is_refused(server) {
        let before = seed(&server);
        server.post("/v1alpha/workspaces?workspaceId=case-1", &json!({"displayName": "Case 1"})).ok();
        server.post("/v1alpha/forms?formId=form-1", &json!({"formDefinition": "formDefinitions/kyc-individual"})).ok();
        server.post("/v1alpha/webhookEndpoints?webhookEndpointId=hook-1", &json!({"url": "http://127.0.0.1:9/hooks", "eventTypes": ["alert.created"]})).ok();
        let documented = filtered_lists(&server);
        let known: Vec<&str> = STRING_FILTERS.iter().map(|(path, _)| *path).collect();
        let missing: Vec<&String> = documented.iter().filter(|p| !known.contains(&p.as_str())).collect();
        assert!(missing.is_empty(), "list routes without string filters in STRING_FILTERS: {missing:?}");
        let mut wrong = Vec::new();
        for (template, filters) in STRING_FILTERS {
            assert!(documented.iter().any(|p| p == template), "{template} is not a documented list route");
            let path = template
                .replace("{entity}", "jane-doe")
                .replace("{workspace}", "case-1")
                .replace("{form}", "form-1")
                .replace("{automation}", "screen-entity")
                .replace("{webhookEndpoint}", "hook-1")
                .replace("{tenant}", server.partner().trim_start_matches("tenants/"));
            for filter in *filters {
                for literal in ["a\u{0}b", "a\\x00b", "a\\u0000b", "a\\000b"] {
                    let filter = filter.replace("{}", literal);
                    let reply = server.get(&format!("{path}{}", query(&[("filter", &filter)])));
                    if reply.status != 400 || reply.reason() != "CONTROL_CHARACTER" || reply.violation_fields() != ["filter"] {
                        wrong.push(format!("GET {path} filter={filter:?} -> {} {}", reply.status, reply.text));
                    } else {
                        reply.invalid("CONTROL_CHARACTER", "filter");
                    }
                }
            }
        }
        assert!(wrong.is_empty(), "NUL in a filter literal must be 400 CONTROL_CHARACTER:\n{}", wrong.join("\n"));
        assert_eq!(server.snapshot(), before);
    }

    /// Other C0 and C1 controls are refused in filter literals (single line), quoted or
    /// bare, raw or escaped; TAB, LF and CR between tokens are whitespace.
    fn control_characters_in_filter_literals(server) {
        let before = seed(&server);
        for filter in [
            "displayName = \"a\u{7}b\"",
            "displayName = \"a\\ab\"",
            "displayName = \"a\nb\"",
            "displayName = \"a\\nb\"",
            "displayName = \"a\\tb\"",
            "displayName = \"a\u{85}b\"",
            "tags:a\u{1b}b",
            "a\u{9f}b",
        ] {
            let reply = server.get(&format!("{ENTITIES}{}", query(&[("filter", filter)])));
            reply.invalid("CONTROL_CHARACTER", "filter");
            assert!(reply.metadata("position").is_some(), "{filter:?}: {}", reply.text);
        }
        let found = server.get(&format!("{ENTITIES}{}", query(&[("filter", "tags:vip\tAND\ndisplayName = \"Jane Doe\"\r")]))).ok();
        assert_eq!(names(&found["entities"]), vec!["entities/jane-doe"]);
        assert_eq!(server.snapshot(), before);
    }

    /// U+0000 is refused in JSON strings and keys at any depth, free-form values
    /// included, naming the path from the body's root; tenants too (issue 13).
    fn nul_in_json_bodies_is_refused(server) {
        let before = seed(&server);
        let mut nested = person("Ann Lee");
        nested["individual"]["legalName"]["givenName"] = json!("A\u{0}nn");
        let mut tagged = person("Ann Lee");
        tagged["tags"] = json!(["a", "b", "c\u{0}"]);
        let mut keyed = person("Ann Lee");
        keyed["externalIds"] = json!({"cr\u{0}m": "1"});
        for (body, field) in [
            (json!({"displayName": "A\u{0}B", "individual": {}}), "displayName"),
            (nested, "individual.legalName.givenName"),
            (tagged, "tags[2]"),
            (keyed, "externalIds.cr\\u0000m"),
        ] {
            server.post(ENTITIES, &body).invalid("CONTROL_CHARACTER", field);
        }
        server.patch(JANE, &json!({"displayName": "Jane\u{0}"})).invalid("CONTROL_CHARACTER", "displayName");
        server.post(&format!("{JANE}:addTag"), &json!({"tag": "x\u{0}"})).invalid("CONTROL_CHARACTER", "tag");
        server
            .post("/v1alpha/alerts", &json!({"alertType": "alertTypes/unusual-event", "title": "T", "details": {"notes": ["ok", "n\u{0}"]}}))
            .invalid("CONTROL_CHARACTER", "details.notes[1]");
        server
            .post("/v1alpha/tenants", &json!({"displayName": "Child\u{0}Co"}))
            .invalid("CONTROL_CHARACTER", "displayName");
        let children = server.get(&format!("/v1alpha/{}/children", server.partner())).ok();
        assert!(array(&children["tenants"]).is_empty(), "no tenant was made: {children}");
        assert_eq!(server.snapshot(), before);
    }

    /// U+0000 is refused in query values and path segments, naming the parameter or
    /// the path variable (issue 13).
    fn nul_in_queries_and_paths_is_refused(server) {
        let before = seed(&server);
        server.post(&format!("{ENTITIES}?entityId=ab%00cd"), &person("Ann Lee")).invalid("CONTROL_CHARACTER", "entityId");
        server.delete(&format!("{JANE}?etag=%22a%00%22")).invalid("CONTROL_CHARACTER", "etag");
        server.get(&format!("{ENTITIES}?orderBy=displayName%00")).invalid("CONTROL_CHARACTER", "orderBy");
        server.get(&format!("{ENTITIES}:batchGet?names=entities/jane%00doe")).invalid("CONTROL_CHARACTER", "names");
        server.get(&format!("{ENTITIES}?page%00Size=1")).invalid("CONTROL_CHARACTER", "page\\u0000Size");
        server.get(&format!("{ENTITIES}/jane%00doe")).invalid("CONTROL_CHARACTER", "entity");
        server.patch(&format!("{ENTITIES}/jane%00doe"), &json!({"displayName": "X"})).invalid("CONTROL_CHARACTER", "entity");
        server.get(&format!("{ENTITIES}/jane-doe/notes/n%00te")).invalid("CONTROL_CHARACTER", "note");
        server.get("/v1alpha/tenants/te%00nant").invalid("CONTROL_CHARACTER", "tenant");
        assert_eq!(server.snapshot(), before);
    }

    /// Other C0 and C1 controls are refused in single-line fields (names, displayName,
    /// title, tags); TAB, LF and CR only where api.md allows line breaks
    /// (descriptions, note content), and free-form values keep them.
    fn control_characters_in_single_line_fields(server) {
        let before = seed(&server);
        for (body, field) in [
            (json!({"displayName": "A\u{7}B", "individual": {}}), "entity.displayName"),
            (json!({"displayName": "A\nB", "individual": {}}), "entity.displayName"),
            (json!({"displayName": "A\tB", "individual": {}}), "entity.displayName"),
            (json!({"displayName": "A\u{85}B", "individual": {}}), "entity.displayName"),
            (json!({"displayName": "A", "individual": {"legalName": {"givenName": "A\rB"}}}), "entity.individual.legalName.givenName"),
            (json!({"displayName": "A", "individual": {}, "contactInfo": {"addresses": [{"lines": ["1 Rue\u{1b}"]}]}}), "entity.contactInfo.addresses[0].lines[0]"),
            (json!({"displayName": "A", "individual": {}, "externalIds": {"crm": "4\u{9b}2"}}), "entity.externalIds.crm"),
        ] {
            server.post(ENTITIES, &body).invalid("CONTROL_CHARACTER", field);
        }
        server.patch(JANE, &json!({"displayName": "Jane\u{1}"})).invalid("CONTROL_CHARACTER", "entity.displayName");
        server
            .post("/v1alpha/tenants", &json!({"displayName": "Child\u{85}Co"}))
            .invalid("CONTROL_CHARACTER", "tenant.displayName");
        server
            .post("/v1alpha/tenants", &json!({"displayName": "Child\nCo"}))
            .invalid("CONTROL_CHARACTER", "tenant.displayName");
        server
            .post("/v1alpha/workspaces", &json!({"displayName": "Case\t1"}))
            .invalid("CONTROL_CHARACTER", "workspace.displayName");
        server
            .post("/v1alpha/workspaces", &json!({"displayName": "Case", "description": "bell\u{7}"}))
            .invalid("CONTROL_CHARACTER", "workspace.description");
        server
            .post("/v1alpha/alerts", &json!({"alertType": "alertTypes/unusual-event", "title": "Two\nlines"}))
            .invalid("CONTROL_CHARACTER", "alert.title");
        assert_eq!(server.snapshot(), before);
        let workspace = server
            .post("/v1alpha/workspaces", &json!({"displayName": "Case", "description": "Line one\r\n\tLine two"}))
            .ok();
        assert_eq!(workspace["description"], "Line one\r\n\tLine two");
        let note = server.post(&format!("{JANE}/notes"), &json!({"content": "Called.\n\tNo answer."})).ok();
        assert_eq!(note["content"], "Called.\n\tNo answer.");
        let alert = server
            .post("/v1alpha/alerts", &json!({"alertType": "alertTypes/unusual-event", "title": "Odd", "details": {"text": "two\nlines"}}))
            .ok();
        assert_eq!(alert["details"]["text"], "two\nlines");
    }

    /// The OAuth endpoints refuse U+0000 too, in their own formats: an RFC 6749
    /// `invalid_request` from the token endpoint, a refusal page from the authorization
    /// endpoint; never 500 (a client id holding it reached PostgreSQL).
    fn nul_in_oauth_requests_is_refused(server) {
        let form = |body: &str| {
            server.send(
                server
                    .request_as(None, Method::POST, "/oauth2/token")
                    .header("content-type", "application/x-www-form-urlencoded")
                    .body(body.to_owned()),
            )
        };
        for reply in [
            form("grant_type=client_credentials&client_id=e2e%00admin&client_secret=x"),
            form("grant_type=client_credentials&client_id=e2e-admin&client_secret=e2e-admin-secret-0001&scope=rics.read%00"),
            server.send(
                server
                    .request_as(None, Method::POST, "/oauth2/token")
                    .basic_auth("e2e\u{0}admin", Some("x"))
                    .form(&[("grant_type", "client_credentials")]),
            ),
        ] {
            assert_eq!(reply.status, 400, "{}", reply.text);
            assert_eq!(reply.json["error"], "invalid_request", "{}", reply.text);
        }
        let page = server.send(server.request_as(
            None,
            Method::GET,
            "/oauth2/authorize?response_type=code&client_id=e2e%00admin&redirect_uri=http://x&code_challenge=abc&code_challenge_method=S256",
        ));
        assert_eq!(page.status, 400, "{}", page.text);
        assert!(page.text.contains("U+0000"), "{}", page.text);
        let submitted = server.send(
            server
                .request_as(None, Method::POST, "/oauth2/authorize")
                .form(&[("username", "a\u{0}b"), ("password", "x"), ("client_id", ADMIN_CLIENT_ID)]),
        );
        assert_eq!(submitted.status, 400, "{}", submitted.text);
        assert!(submitted.text.contains("U+0000"), "{}", submitted.text);
    }

    /// A key given twice in a JSON object, at any depth, is refused naming its path;
    /// the last one does not silently win (issue 13).
    fn duplicate_json_keys_are_refused(server) {
        let before = seed(&server);
        for (body, field) in [
            (r#"{"displayName": "A", "displayName": "B", "individual": {}}"#, "displayName"),
            (r#"{"displayName": "A", "individual": {"legalName": {"givenName": "A", "givenName": "B"}}}"#, "individual.legalName.givenName"),
            (r#"{"displayName": "A", "individual": {}, "contactInfo": {"addresses": [{"locality": "X"}, {"locality": "Y", "locality": "Z"}]}}"#, "contactInfo.addresses[1].locality"),
            (r#"{"displayName": "A", "individual": {}, "externalIds": {"crm": "1", "crm": "1"}}"#, "externalIds.crm"),
        ] {
            let reply = json_text(&server, Method::POST, ENTITIES, body);
            reply.invalid("DUPLICATE_JSON_KEY", field);
        }
        json_text(&server, Method::PATCH, JANE, r#"{"displayName": "X", "displayName": "Y"}"#)
            .invalid("DUPLICATE_JSON_KEY", "displayName");
        json_text(&server, Method::POST, &format!("{JANE}:addTag"), r#"{"tag": "a", "tag": "b"}"#)
            .invalid("DUPLICATE_JSON_KEY", "tag");
        assert_eq!(server.snapshot(), before);
    }

    /// A charset other than UTF-8 is refused like a wrong content type; `utf-8` is
    /// accepted in any case, quoted or not (issue 13).
    fn charsets_other_than_utf8_are_refused(server) {
        let before = seed(&server);
        let body = person("Ann Lee").to_string();
        for content_type in ["application/json; charset=latin1", "application/json; charset=ISO-8859-1", "application/json;charset=utf-16", "application/json; charset=utf8"] {
            let reply = raw(&server, Method::POST, ENTITIES, Some(content_type), &body);
            reply.error(400, "INVALID_ARGUMENT", "UNSUPPORTED_CONTENT_TYPE");
            assert!(reply.metadata("charset").is_some(), "{content_type}: {}", reply.text);
        }
        assert_eq!(server.snapshot(), before);
        for content_type in ["application/json; charset=UTF-8", "application/json;charset=\"utf-8\""] {
            raw(&server, Method::POST, ENTITIES, Some(content_type), &body).ok();
        }
    }

    /// Percent-encoded bytes that are not UTF-8 are refused in query values and path
    /// segments, naming the parameter or path variable, never decoded lossily
    /// (issue 13).
    fn invalid_utf8_in_queries_and_paths_is_refused(server) {
        let before = seed(&server);
        for (path, field) in [
            (format!("{ENTITIES}?filter=%FF"), "filter"),
            (format!("{ENTITIES}?filter=displayName%20%3D%20%22caf%E9%22"), "filter"),
            (format!("{ENTITIES}?pageToken=%C3"), "pageToken"),
            (format!("{ENTITIES}/jane%FFdoe"), "entity"),
            (format!("{ENTITIES}/jane-doe/notes/%ED%A0%80"), "note"),
        ] {
            let reply = server.get(&path);
            reply.invalid("INVALID_UTF8", field);
        }
        server.post(&format!("{ENTITIES}?entityId=caf%E9"), &person("Ann Lee")).invalid("INVALID_UTF8", "entityId");
        assert_eq!(server.snapshot(), before);
        let found = server.get(&format!("{ENTITIES}?filter=displayName%20%3D%20%22Jane%20Doe%22")).ok();
        assert_eq!(names(&found["entities"]), vec!["entities/jane-doe"]);
    }
}
