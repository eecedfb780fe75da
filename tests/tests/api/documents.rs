//! Identity documents over HTTP: documents of entities of the caller's tenant with
//! ICAO 9303 country codes as printed, numbers in their type's format and coherent
//! dates; updated with masks (the entity never changes), soft-deleted and restored,
//! filtered and paged in the collection and under their entity, and erased with it.

use rics_e2e::*;
use serde_json::{Value, json};

const DOCUMENTS: &str = "/v1alpha/documents";

/// A passport of `entities/{entity}`, with `extra` fields set over it.
fn passport(entity: &str, extra: Value) -> Value {
    let mut body = json!({
        "entity": format!("entities/{entity}"),
        "documentType": "PASSPORT",
        "documentNumber": " l898902c3 ",
        "issuingCountry": "de",
        "nationality": "D<<",
        "givenName": "Jane",
        "familyName": "Doe",
        "dateOfBirth": "1974-08-12",
        "gender": "FEMALE",
        "placeOfBirth": "Berlin",
        "issueDate": "2020-06-01",
        "expiryDate": "2030-05-31",
        "mrz": [
            "P<D<<DOE<<JANE<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<",
            "L898902C36D<<7408122F3005317<<<<<<<<<<<<<<<8"
        ],
        "files": [format!("entities/{entity}/files/front")],
    });
    if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
        body.extend(extra.clone());
    }
    body
}

/// Creates the individual `id` with a file `front` (a scan of a passport's front, as
/// [`passport`] names it).
fn person_with_front(server: &Server, id: &str, display_name: &str) {
    server.create_person(id, display_name);
    server.upload_text(id, "front", "the front of a passport");
}

fn create(server: &Server, id: &str, body: &Value) -> Value {
    server
        .post(&format!("{DOCUMENTS}?documentId={id}"), body)
        .ok()
}

/// The ids of a document list.
fn ids(page: &Value) -> Vec<String> {
    names(&page["documents"])
        .into_iter()
        .map(|n| n.trim_start_matches("documents/").to_owned())
        .collect()
}

/// The event types of `entities/{entity}`, oldest first.
fn event_types(server: &Server, entity: &str) -> Vec<String> {
    let page = server
        .get(&format!("{ENTITIES}/{entity}/events?pageSize=100"))
        .ok();
    array(&page["events"])
        .iter()
        .map(|e| e["eventType"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The error of a reply without what differs from call to call (the request id).
fn error_without_request(reply: &Reply) -> Value {
    let mut error = reply.json["error"].clone();
    if let Some(details) = error["details"].as_array_mut() {
        details.retain(|d| d["@type"] != "type.googleapis.com/google.rpc.RequestInfo");
    }
    error
}

on_both_backends! {
    /// Create (codes and number normalised, output-only fields ignored), get (also
    /// with ?name=), patch with and without a mask, the entity immutable, delete and
    /// undelete with etags, and idempotent retries; each change an event of the entity.
    fn documents_have_a_lifecycle(server) {
        person_with_front(&server, "jane-doe", "Jane Doe");
        let created = create(&server, "passport-1", &passport("jane-doe", json!({"uid": "mine", "createTime": "2000-01-01T00:00:00Z"})));
        assert_eq!(created["name"], "documents/passport-1");
        assert_eq!(created["entity"], "entities/jane-doe");
        assert_eq!(created["documentNumber"], "L898902C3", "trimmed and upper-cased");
        assert_eq!(created["issuingCountry"], "DEU", "alpha-2 becomes alpha-3");
        assert_eq!(created["nationality"], "D", "kept as printed");
        assert_eq!(created["dateOfBirth"], "1974-08-12");
        assert_eq!(created["gender"], "FEMALE");
        assert_eq!(array(&created["mrz"]).len(), 2);
        assert_eq!(created["files"], json!(["entities/jane-doe/files/front"]));
        assert_ne!(created["uid"], "mine", "uid is output only");
        assert_ne!(created["createTime"], "2000-01-01T00:00:00Z");
        let path = format!("{DOCUMENTS}/passport-1");
        assert_eq!(server.get(&path).ok(), created);
        assert_eq!(server.get(&format!("{path}?name=documents/passport-1")).ok(), created);
        server.get(&format!("{path}?name=documents/other")).invalid("NAME_MISMATCH", "name");
        server.get(&format!("{DOCUMENTS}/nothing")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");

        let renamed = server.patch(&path, &json!({"givenName": "Janet", "issuingCountry": "UTO"})).ok();
        assert_eq!(renamed["givenName"], "Janet");
        assert_eq!(renamed["issuingCountry"], "UTO");
        assert_eq!(renamed["familyName"], "Doe", "unpopulated fields stay");
        assert_ne!(renamed["etag"], created["etag"]);
        let cleared = server.patch(&format!("{path}?updateMask=mrz,placeOfBirth,givenName"), &json!({"givenName": "Jan"})).ok();
        assert_eq!(cleared["givenName"], "Jan");
        assert!(cleared.get("mrz").is_none() && cleared.get("placeOfBirth").is_none(), "masked and absent = cleared: {cleared}");
        let unchanged = server.patch(&path, &json!({"entity": "entities/jane-doe"})).ok();
        assert_eq!(unchanged, cleared, "the same entity changes nothing");
        person_with_front(&server, "bob-lee", "Bob");
        server.patch(&path, &json!({"entity": "entities/bob-lee"})).invalid("IMMUTABLE_FIELD_CHANGED", "document.entity");
        server.patch(&format!("{path}?updateMask=entity"), &json!({})).invalid("IMMUTABLE_FIELD_CHANGED", "document.entity");
        server.patch(&format!("{path}?updateMask=documentNumber"), &json!({})).invalid("REQUIRED_FIELD_MISSING", "document.documentNumber");
        server.patch(&format!("{path}?updateMask=colour"), &json!({})).invalid("UNKNOWN_UPDATE_MASK_PATH", "updateMask");
        server.patch(&path, &json!({"givenName": "x", "etag": created["etag"]})).error(409, "ABORTED", "ETAG_MISMATCH");
        server.patch(&path, &json!({"name": "documents/other"})).invalid("NAME_MISMATCH", "document.name");
        let retyped = server.patch(&path, &json!({"documentType": "NATIONAL_ID", "documentNumber": "t220001293"})).ok();
        assert_eq!((retyped["documentType"].as_str(), retyped["documentNumber"].as_str()), (Some("NATIONAL_ID"), Some("T220001293")));

        server.post(&format!("{path}:undelete"), &json!({})).error(409, "ALREADY_EXISTS", "RESOURCE_NOT_DELETED");
        server.delete(&format!("{path}?etag={}", encode(created["etag"].as_str().unwrap()))).error(409, "ABORTED", "ETAG_MISMATCH");
        let deleted = server.delete(&path).ok();
        assert!(deleted.get("deleteTime").is_some() && deleted.get("purgeTime").is_some());
        assert_eq!(server.get(&path).ok(), deleted, "a deleted document still reads");
        server.delete(&path).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        assert_eq!(server.delete(&format!("{path}?allowMissing=true")).ok(), deleted);
        server.patch(&path, &json!({"givenName": "x"})).error(400, "FAILED_PRECONDITION", "RESOURCE_DELETED");
        let restored = server.post(&format!("{path}:undelete"), &json!({"etag": deleted["etag"]})).ok();
        assert!(restored.get("deleteTime").is_none());
        assert_eq!(server.delete(&format!("{DOCUMENTS}/nothing?allowMissing=true")).ok(), json!({}));
        server.post(&format!("{DOCUMENTS}?documentId=passport-1"), &passport("jane-doe", json!({}))).error(409, "ALREADY_EXISTS", "RESOURCE_ALREADY_EXISTS");
        server.post(&format!("{DOCUMENTS}?documentId=AB"), &passport("jane-doe", json!({}))).invalid("INVALID_RESOURCE_ID", "documentId");

        // A retried create with the same request id returns the first document.
        let request = "?requestId=0b0c9a52-1a34-4b7c-9d55-55d3d7b6b2c1";
        let first = server.post(&format!("{DOCUMENTS}{request}"), &passport("jane-doe", json!({}))).ok();
        let again = server.post(&format!("{DOCUMENTS}{request}"), &passport("jane-doe", json!({}))).ok();
        assert_eq!(first, again);
        server.post(&format!("{DOCUMENTS}{request}"), &passport("jane-doe", json!({"givenName": "Other"}))).invalid("REQUEST_ID_REUSED", "requestId");

        let documents: Vec<String> = event_types(&server, "jane-doe").into_iter().filter(|t| t.starts_with("document.")).collect();
        assert_eq!(documents, ["document.created", "document.updated", "document.updated", "document.updated", "document.deleted", "document.undeleted", "document.created"]);
    }

    /// Every rule refuses its bad input with a field violation, or with the code the
    /// other resources use; nothing is written.
    fn bad_input_is_refused(server) {
        person_with_front(&server, "jane-doe", "Jane Doe");
        let refused = |extra: Value| server.post(DOCUMENTS, &passport("jane-doe", extra));
        refused(json!({"issueDate": "2020-06-01", "expiryDate": "2020-05-31"})).invalid("INVALID_FIELDS", "document.expiryDate");
        refused(json!({"expiryDate": "2020-06-01"})).invalid("INVALID_FIELDS", "document.expiryDate");
        refused(json!({"issueDate": "2999-01-01", "expiryDate": "3009-01-01"})).invalid("INVALID_FIELDS", "document.issueDate");
        refused(json!({"dateOfBirth": "2021-01-01"})).invalid("INVALID_FIELDS", "document.dateOfBirth");
        refused(json!({"dateOfBirth": "1974-08"})).invalid("INVALID_FIELDS", "document.dateOfBirth");
        refused(json!({"expiryDate": "2030-02-30"})).invalid("INVALID_VALUE", "document.expiryDate");
        refused(json!({"issuingCountry": "ZZZ"})).invalid("INVALID_VALUE", "document.issuingCountry");
        refused(json!({"nationality": "XKX"})).invalid("INVALID_VALUE", "document.nationality");
        refused(json!({"issuingCountry": 276})).invalid("INVALID_VALUE", "document.issuingCountry");
        refused(json!({"documentNumber": "L898-902C3"})).invalid("INVALID_FIELDS", "document.documentNumber");
        refused(json!({"documentNumber": "ABCDEFGHIJ0123456789XYZ"})).invalid("INVALID_FIELDS", "document.documentNumber");
        refused(json!({"documentType": "MEDICARE_CARD", "documentNumber": "2123456711"})).invalid("INVALID_FIELDS", "document.documentNumber");
        refused(json!({"documentType": "DRIVERS_LICENCE", "documentNumber": "NSW/123"})).invalid("INVALID_FIELDS", "document.documentNumber");
        refused(json!({"documentType": "PASSPORTE"})).invalid("INVALID_VALUE", "document.documentType");
        refused(json!({"documentNumber": "  "})).invalid("INVALID_FIELDS", "document.documentNumber");
        refused(json!({"gender": "F"})).invalid("INVALID_VALUE", "document.gender");
        refused(json!({"mrz": ["A", "B", "C", "D"]})).invalid("INVALID_FIELDS", "document.mrz");
        refused(json!({"mrz": ["P".repeat(45)]})).invalid("INVALID_FIELDS", "document.mrz[0]");
        refused(json!({"files": ["entities/bob/files/front"]})).invalid("INVALID_FIELDS", "document.files[0]");
        refused(json!({"files": ["files/front"]})).invalid("INVALID_FIELDS", "document.files[0]");
        refused(json!({"workspace": "cases/1"})).invalid("INVALID_FIELDS", "document.workspace");
        refused(json!({"givenName": "x".repeat(201)})).invalid("INVALID_FIELDS", "document.givenName");
        refused(json!({"colour": "red"})).invalid("UNKNOWN_FIELD", "document.colour");
        refused(json!({"entity": "jane-doe", "files": []})).invalid("INVALID_NAME", "document.entity");
        server.post(DOCUMENTS, &json!({"documentType": "PASSPORT", "documentNumber": "X1"})).invalid("INVALID_FIELDS", "document.entity");
        server.post(DOCUMENTS, &json!({"entity": "entities/jane-doe"})).invalid("INVALID_FIELDS", "document.documentType").assert_violation("document.documentNumber");

        let missing = refused(json!({"entity": "entities/nobody", "files": []}));
        missing.error(404, "NOT_FOUND", "ENTITY_NOT_FOUND");
        missing.assert_violation("document.entity");
        person_with_front(&server, "gone", "Gone Person");
        server.delete(&format!("{ENTITIES}/gone")).ok();
        refused(json!({"entity": "entities/gone", "files": []})).error(400, "FAILED_PRECONDITION", "ENTITY_DELETED");
        refused(json!({"workspace": "workspaces/nowhere"})).error(404, "NOT_FOUND", "WORKSPACE_NOT_FOUND");
        server.post("/v1alpha/workspaces?workspaceId=gone-case", &json!({"displayName": "Gone"})).ok();
        server.delete("/v1alpha/workspaces/gone-case").ok();
        refused(json!({"workspace": "workspaces/gone-case"})).error(400, "FAILED_PRECONDITION", "WORKSPACE_DELETED");
        assert!(ids(&server.get(&format!("{DOCUMENTS}?showDeleted=true")).ok()).is_empty(), "nothing was written");

        // Another tenant's entity looks exactly like a missing one.
        let (_, child) = server.child_tenant("Child");
        let as_child = |body: &Value| server.send(server.request_as(Some(&child), Method::POST, DOCUMENTS).json(body));
        let body = passport("twin", json!({"files": []}));
        let before = as_child(&body);
        before.error(404, "NOT_FOUND", "ENTITY_NOT_FOUND");
        person_with_front(&server, "twin", "Partner's Twin");
        let after = as_child(&body);
        assert_eq!(error_without_request(&after), error_without_request(&before));
        assert!(!after.text.contains("Twin"), "{}", after.text);
    }

    /// Valid numbers of every type, the ICAO-only codes and the MRZ shapes are
    /// accepted.
    fn every_type_and_code_is_accepted(server) {
        person_with_front(&server, "jane-doe", "Jane Doe");
        for (kind, number) in [
            ("PASSPORT", "L898902C3"),
            ("PASSPORT", "D23145890734"),
            ("VISA", "A1"),
            ("MEDICARE_CARD", "2123456701"),
            ("MEDICARE_CARD", "21234567011"),
            ("DRIVERS_LICENCE", "nsw-123 4567"),
            ("NATIONAL_ID", "T22000129"),
            ("BIRTH_CERTIFICATE", "1987-123"),
        ] {
            let created = server.post(DOCUMENTS, &passport("jane-doe", json!({"documentType": kind, "documentNumber": number}))).ok();
            assert_eq!(created["documentNumber"], number.trim().to_uppercase().as_str(), "{kind}");
        }
        for (given, stored) in [("D", "D"), ("utO", "UTO"), ("XXA", "XXA"), ("GBN", "GBN"), ("EUE", "EUE"), ("xk", "RKS"), ("au", "AUS"), ("UNO", "UNO")] {
            let created = server.post(DOCUMENTS, &passport("jane-doe", json!({"issuingCountry": given, "nationality": given}))).ok();
            assert_eq!((created["issuingCountry"].as_str(), created["nationality"].as_str()), (Some(stored), Some(stored)), "{given}");
        }
        let three_lines = server.post(DOCUMENTS, &passport("jane-doe", json!({"mrz": ["I<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"]}))).ok();
        assert_eq!(array(&three_lines["mrz"]).len(), 3);
        let bare = server.post(DOCUMENTS, &json!({"entity": "entities/jane-doe", "documentType": "BIRTH_CERTIFICATE", "documentNumber": "1"})).ok();
        for absent in ["issuingCountry", "nationality", "expiryDate", "mrz", "files", "workspace"] {
            assert!(bare.get(absent).is_none(), "{absent}: {bare}");
        }
        server.post("/v1alpha/workspaces?workspaceId=case-1", &json!({"displayName": "Case"})).ok();
        let in_case = server.post(DOCUMENTS, &passport("jane-doe", json!({"workspace": "workspaces/case-1"}))).ok();
        assert_eq!(in_case["workspace"], "workspaces/case-1");
    }

    /// Filters on entity, documentType, issuingCountry (as input names a country) and
    /// expiryDate; showDeleted; paging with a token bound to the filter; the list of
    /// one entity, NOT_FOUND under a deleted or missing entity.
    fn document_lists_filter_and_page(server) {
        person_with_front(&server, "amy-lee", "Amy");
        person_with_front(&server, "bob-lee", "Bob");
        for (id, entity, kind, number, country, expiry) in [
            ("doc-a", "amy-lee", "PASSPORT", "P1", "D", "2031-01-01"),
            ("doc-b", "amy-lee", "DRIVERS_LICENCE", "NSW-1", "AU", "2027-03-01"),
            ("doc-c", "bob-lee", "PASSPORT", "P2", "DE", "2029-07-15"),
            ("doc-d", "bob-lee", "NATIONAL_ID", "N1", "UTO", "2026-12-31"),
        ] {
            create(&server, id, &passport(entity, json!({"documentType": kind, "documentNumber": number, "issuingCountry": country, "expiryDate": expiry, "files": []})));
        }
        server.delete(&format!("{DOCUMENTS}/doc-d")).ok();
        let list = |base: &str, params: &[(&str, &str)]| ids(&server.get(&format!("{base}{}", query(params))).ok());
        assert_eq!(list(DOCUMENTS, &[]), ["doc-a", "doc-b", "doc-c"]);
        assert_eq!(list(DOCUMENTS, &[("showDeleted", "true")]), ["doc-a", "doc-b", "doc-c", "doc-d"]);
        assert_eq!(list(DOCUMENTS, &[("filter", "entity = \"entities/bob-lee\""), ("showDeleted", "true")]), ["doc-c", "doc-d"]);
        assert_eq!(list(DOCUMENTS, &[("filter", "documentType = PASSPORT")]), ["doc-a", "doc-c"]);
        assert_eq!(list(DOCUMENTS, &[("filter", "issuingCountry = \"de\"")]), ["doc-c"], "alpha-2 in a filter means alpha-3");
        assert_eq!(list(DOCUMENTS, &[("filter", "issuingCountry = \"D\" OR issuingCountry = \"DEU\"")]), ["doc-a", "doc-c"]);
        assert_eq!(list(DOCUMENTS, &[("filter", "expiryDate < \"2030-01-01\"")]), ["doc-b", "doc-c"]);
        assert_eq!(list(DOCUMENTS, &[("filter", "expiryDate < \"2027-01-01\""), ("showDeleted", "true")]), ["doc-d"]);
        assert_eq!(list(DOCUMENTS, &[("orderBy", "createTime desc")]), ["doc-c", "doc-b", "doc-a"]);
        server.get(&format!("{DOCUMENTS}{}", query(&[("filter", "documentType = CARD")]))).invalid("INVALID_FILTER_VALUE", "filter");
        server.get(&format!("{DOCUMENTS}{}", query(&[("filter", "givenName = \"Jane\"")]))).invalid("UNKNOWN_FILTER_FIELD", "filter");
        server.get(&format!("{DOCUMENTS}?orderBy=expiryDate")).invalid("INVALID_ORDER_BY", "orderBy");

        let amys = format!("{ENTITIES}/amy-lee/documents");
        assert_eq!(list(&amys, &[]), ["doc-a", "doc-b"]);
        assert_eq!(list(&amys, &[("filter", "documentType = DRIVERS_LICENCE")]), ["doc-b"]);
        let bobs = format!("{ENTITIES}/bob-lee/documents");
        assert_eq!(list(&bobs, &[]), ["doc-c"]);
        assert_eq!(list(&bobs, &[("showDeleted", "true")]), ["doc-c", "doc-d"]);
        server.get(&format!("{ENTITIES}/nobody/documents")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        server.get(&format!("{ENTITIES}/BAD_ID/documents")).invalid("INVALID_NAME", "parent");

        let first = server.get(&format!("{DOCUMENTS}?pageSize=2&showDeleted=true")).ok();
        assert_eq!(ids(&first), ["doc-a", "doc-b"]);
        assert_eq!(first["totalSize"], 4);
        let token = first["nextPageToken"].as_str().unwrap();
        let second = server.get(&format!("{DOCUMENTS}?pageSize=2&showDeleted=true&pageToken={}", encode(token))).ok();
        assert_eq!(ids(&second), ["doc-c", "doc-d"]);
        assert!(second.get("nextPageToken").is_none());
        server.get(&format!("{DOCUMENTS}?pageSize=2&pageToken={}", encode(token))).invalid("PAGE_TOKEN_REQUEST_MISMATCH", "pageToken");
        server.get(&format!("{bobs}?pageSize=2&showDeleted=true&pageToken={}", encode(token))).invalid("PAGE_TOKEN_REQUEST_MISMATCH", "pageToken");
        assert_eq!(ids(&server.get(&format!("{DOCUMENTS}?pageSize=5000")).ok()).len(), 3, "coerced to the maximum");
        server.get(&format!("{DOCUMENTS}?pageSize=-1")).invalid("INVALID_PAGE_SIZE", "pageSize");
    }

    /// Documents have a `displayName`: given, or "{documentType} {documentNumber}" when
    /// not (on create, and again when a PATCH clears it); single-line, at most 200
    /// characters. Both lists filter on it exactly (`=`) and fuzzily (`:`, best match
    /// first) and order on it.
    fn documents_have_a_display_name(server) {
        person_with_front(&server, "amy-lee", "Amy");
        person_with_front(&server, "bob-lee", "Bob");
        let named = create(&server, "doc-a", &passport("amy-lee", json!({"displayName": "Amy's passport", "documentNumber": "P1"})));
        assert_eq!(named["displayName"], "Amy's passport");
        let plain = create(&server, "doc-b", &passport("amy-lee", json!({"documentType": "DRIVERS_LICENCE", "documentNumber": "nsw-1", "mrz": [], "files": []})));
        assert_eq!(plain["displayName"], "DRIVERS_LICENCE NSW-1");
        create(&server, "doc-c", &passport("bob-lee", json!({"displayName": "Bob's passport", "documentNumber": "P2", "files": []})));
        assert_eq!(server.get(&format!("{DOCUMENTS}/doc-b")).ok()["displayName"], "DRIVERS_LICENCE NSW-1");

        let list = |base: &str, params: &[(&str, &str)]| ids(&server.get(&format!("{base}{}", query(params))).ok());
        assert_eq!(list(DOCUMENTS, &[("filter", r#"displayName = "Amy's passport""#)]), ["doc-a"]);
        assert_eq!(list(DOCUMENTS, &[("filter", r#"displayName != "Amy's passport""#)]), ["doc-b", "doc-c"]);
        assert_eq!(list(DOCUMENTS, &[("filter", r#"displayName = "*passport""#)]), ["doc-a", "doc-c"]);
        assert_eq!(list(DOCUMENTS, &[("filter", r#"displayName:"bobs pasport""#)]), ["doc-c", "doc-a"], "best match first");
        assert_eq!(list(DOCUMENTS, &[("filter", r#"displayName:"drivers licence""#)]), ["doc-b"]);
        assert_eq!(list(DOCUMENTS, &[("orderBy", "displayName")]), ["doc-a", "doc-c", "doc-b"]);
        assert_eq!(list(DOCUMENTS, &[("orderBy", "displayName desc")]), ["doc-b", "doc-c", "doc-a"]);
        let amys = format!("{ENTITIES}/amy-lee/documents");
        assert_eq!(list(&amys, &[("filter", r#"displayName:"passport""#)]), ["doc-a"]);
        assert_eq!(list(&amys, &[("orderBy", "displayName desc")]), ["doc-b", "doc-a"]);
        let first = server.get(&format!("{DOCUMENTS}?orderBy=displayName&pageSize=2")).ok();
        assert_eq!(ids(&first), ["doc-a", "doc-c"]);
        let token = first["nextPageToken"].as_str().unwrap();
        assert_eq!(list(DOCUMENTS, &[("orderBy", "displayName"), ("pageSize", "2"), ("pageToken", token)]), ["doc-b"]);

        let renamed = server.patch(&format!("{DOCUMENTS}/doc-b?updateMask=displayName"), &json!({"displayName": "Amy's licence"})).ok();
        assert_eq!(renamed["displayName"], "Amy's licence");
        assert_eq!(list(DOCUMENTS, &[("filter", r#"displayName:"amys licence""#)]), ["doc-b"]);
        assert!(list(DOCUMENTS, &[("filter", r#"displayName:"drivers""#)]).is_empty(), "the old name's trigrams are gone");
        let cleared = server.patch(&format!("{DOCUMENTS}/doc-b?updateMask=displayName"), &json!({})).ok();
        assert_eq!(cleared["displayName"], "DRIVERS_LICENCE NSW-1");

        server.post(DOCUMENTS, &passport("amy-lee", json!({"displayName": "x".repeat(201)}))).invalid("INVALID_FIELDS", "document.displayName");
        server.post(DOCUMENTS, &passport("amy-lee", json!({"displayName": "Two\nlines"}))).invalid("CONTROL_CHARACTER", "document.displayName");
    }

    /// A soft-deleted entity's documents still read, but are not listed under it and
    /// cannot change until it is restored; erasing the entity erases its documents and
    /// their events.
    fn documents_follow_their_entity(server) {
        person_with_front(&server, "jane-doe", "Jane Doe");
        create(&server, "doc-1", &passport("jane-doe", json!({})));
        server.delete(&format!("{ENTITIES}/jane-doe")).ok();
        let path = format!("{DOCUMENTS}/doc-1");
        let document = server.get(&path).ok();
        assert_eq!(ids(&server.get(DOCUMENTS).ok()), ["doc-1"]);
        server.get(&format!("{ENTITIES}/jane-doe/documents")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        server.patch(&path, &json!({"givenName": "J"})).error(400, "FAILED_PRECONDITION", "ENTITY_DELETED");
        server.delete(&path).error(400, "FAILED_PRECONDITION", "ENTITY_DELETED");
        server.post(DOCUMENTS, &passport("jane-doe", json!({}))).error(400, "FAILED_PRECONDITION", "ENTITY_DELETED");
        assert_eq!(server.get(&path).ok(), document, "refused changes change nothing");
        server.post(&format!("{ENTITIES}/jane-doe:undelete"), &json!({})).ok();
        assert_eq!(ids(&server.get(&format!("{ENTITIES}/jane-doe/documents")).ok()), ["doc-1"]);
        server.patch(&path, &json!({"givenName": "J"})).ok();

        person_with_front(&server, "bob-lee", "Bob");
        create(&server, "doc-bob", &passport("bob-lee", json!({})));
        let request = "?requestId=6b7c1d3e-0f4a-4c5b-9d8e-1a2b3c4d5e6f";
        server.post(&format!("{DOCUMENTS}{request}"), &passport("jane-doe", json!({}))).ok();
        let receipt = server.delete(&format!("{ENTITIES}/jane-doe:hardDelete")).ok();
        assert_eq!(receipt["erasedCounts"]["documents"], 2, "{receipt}");
        assert_eq!(receipt["erasedCounts"]["idempotencyKeys"], 1, "{receipt}");
        server.get(&path).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        assert_eq!(ids(&server.get(&format!("{DOCUMENTS}?showDeleted=true")).ok()), ["doc-bob"]);
        server.get(&format!("{ENTITIES}/jane-doe/events")).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        assert_eq!(event_types(&server, "bob-lee").iter().filter(|t| t.starts_with("document.")).count(), 1);
        // The erased request id no longer replays a document that is gone.
        person_with_front(&server, "jane-doe", "Jane Doe");
        let again = server.post(&format!("{DOCUMENTS}{request}"), &passport("jane-doe", json!({}))).ok();
        assert_eq!(again["entity"], "entities/jane-doe");
    }
}
