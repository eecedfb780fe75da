//! Files over HTTP: uploads as JSON (base64) and as `multipart/form-data` (also as a
//! real browser sends it), their type sniffed from the bytes, downloads with safe
//! headers, soft delete and restore as events of the entity, the rule a document's
//! `files[]` keeps, erasure with the entity, and every kind of bad upload refused
//! without leaving a file or its content behind.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rics_e2e::*;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const PDF: &[u8] = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n";
const PNG: &[u8] =
    b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";
const DOCX: &str = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
/// A ZIP whose one entry inflates from about 100 KB to 100 MiB of zeros; see
/// tests/fixtures/README.md.
const ZIP_BOMB: &[u8] = include_bytes!("../../fixtures/zip-bomb.docx");
/// A form upload recorded from Chromium; see tests/fixtures/README.md.
const BROWSER_BODY: &[u8] = include_bytes!("../../fixtures/chromium-upload.multipart");
/// The `Content-Type` Chromium sent with it.
const BROWSER_CONTENT_TYPE: &str = include_str!("../../fixtures/chromium-upload.content-type");

/// The files collection of the entity `entity`.
fn files(entity: &str) -> String {
    format!("{ENTITIES}/{entity}/files")
}

/// Lower-case hex SHA-256 of `bytes`.
fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A JSON upload body: `display_name`, `content` in base64 and `extra` fields.
fn upload(display_name: &str, content: &[u8], extra: Value) -> Value {
    let mut body = json!({"displayName": display_name, "content": STANDARD.encode(content)});
    if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
        body.extend(extra.clone());
    }
    body
}

/// One part of a multipart body: its name, file name, content type and bytes.
type Part<'a> = (&'a str, Option<&'a [u8]>, Option<&'a str>, &'a [u8]);

/// A `multipart/form-data` body of `parts`, with its `Content-Type`.
fn multipart(parts: &[Part<'_>]) -> (String, Vec<u8>) {
    let boundary = "----riCSbOuNdArY7MA4YWxkTrZu0gW";
    let mut body = Vec::new();
    for (name, filename, content_type, bytes) in parts {
        body.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"").as_bytes(),
        );
        if let Some(filename) = filename {
            body.extend_from_slice(b"; filename=\"");
            body.extend_from_slice(filename);
            body.extend_from_slice(b"\"");
        }
        body.extend_from_slice(b"\r\n");
        if let Some(content_type) = content_type {
            body.extend_from_slice(format!("Content-Type: {content_type}\r\n").as_bytes());
        }
        body.extend_from_slice(b"\r\n");
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// Posts a multipart body of `parts` to `path`.
fn post_form(server: &Server, path: &str, parts: &[Part<'_>]) -> Reply {
    let (content_type, body) = multipart(parts);
    server.send(
        server
            .request(Method::POST, path)
            .header("content-type", content_type)
            .body(body),
    )
}

/// `body` sent without a `Content-Length` (chunked), in pieces of 16 KiB.
fn chunked(body: Vec<u8>) -> reqwest::blocking::Body {
    let chunks = body.chunks(16 * 1024).map(|c| Ok(c.to_vec())).collect();
    reqwest::blocking::Body::new(ChunkReader::new(chunks))
}

/// The event types of the entity, oldest first.
fn event_types(server: &Server, entity: &str) -> Vec<String> {
    let page = server
        .get(&format!("{ENTITIES}/{entity}/events?pageSize=100"))
        .ok();
    array(&page["events"])
        .iter()
        .map(|e| e["eventType"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Nothing of an upload is left: no file of `entity`, deleted or not, no content but
/// the `kept` rows of files stored elsewhere, and nothing in the ledger.
fn assert_nothing_left(server: &Server, entity: &str, kept: i64) {
    let listed = server
        .get(&format!("{}?showDeleted=true", files(entity)))
        .ok();
    assert!(array(&listed["files"]).is_empty(), "{listed}");
    assert_eq!(
        server.count_rows("file_contents"),
        kept,
        "content left behind"
    );
    assert_eq!(
        server.count_rows("file_content_removals"),
        0,
        "the ledger holds content"
    );
}

on_both_backends! {
    /// Uploads as JSON and as a form; the type is the sniffed one; lists filter and
    /// order; downloads (`:download` and `?alt=media`) stream the bytes with the safe
    /// headers, and `If-None-Match` answers 304; retries with a request id answer the
    /// first file; delete and undelete are events of the entity.
    fn files_round_trip(server) {
        server.create_person("jane-doe", "Jane Doe");
        let request = "requestId=3f0c2a9e-8b1d-4c6f-a2e4-5d7b9c1e3f70";
        let scan = server.post(&format!("{}?fileId=scan&{request}", files("jane-doe")), &upload("scan.pdf", PDF, json!({"contentType": "application/pdf"}))).ok();
        assert_eq!(scan["name"], "entities/jane-doe/files/scan");
        assert_eq!(scan["contentType"], "application/pdf");
        assert_eq!(scan["sizeBytes"], PDF.len());
        assert_eq!(scan["sha256"], sha256(PDF));
        timestamp(&scan["createTime"]);
        let again = server.post(&format!("{}?fileId=scan&{request}", files("jane-doe")), &upload("scan.pdf", PDF, json!({"contentType": "application/pdf"}))).ok();
        assert_eq!(again, scan, "a retry answers the first file");
        server.post(&format!("{}?fileId=scan&{request}", files("jane-doe")), &upload("scan.pdf", PNG, json!({}))).invalid("REQUEST_ID_REUSED", "requestId");
        server.post(&format!("{}?fileId=scan", files("jane-doe")), &upload("again.pdf", PDF, json!({}))).error(409, "ALREADY_EXISTS", "RESOURCE_ALREADY_EXISTS");

        let csv = post_form(&server, &files("jane-doe"), &[
            ("displayName", None, None, "ledger.csv".as_bytes()),
            ("content", Some(b"export.csv"), Some("text/csv"), b"date,amount\n2026-01-01,12.50\n"),
        ]).ok();
        assert_eq!((csv["displayName"].as_str(), csv["contentType"].as_str()), (Some("ledger.csv"), Some("text/csv")));
        let named = post_form(&server, &files("jane-doe"), &[("content", Some("Grüße.png".as_bytes()), Some("image/png"), PNG)]).ok();
        assert_eq!(named["displayName"], "Grüße.png", "the file's name by default");
        let json_file = server.post(&files("jane-doe"), &upload("data.json", br#"{"a": [1, 2]}"#, json!({"contentType": "application/json"}))).ok();
        assert_eq!(json_file["contentType"], "application/json");
        let path = server.post(&files("jane-doe"), &upload("../../etc/passwd", b"root:x:0:0\n", json!({}))).ok();
        assert_eq!((path["displayName"].as_str(), path["contentType"].as_str()), (Some("../../etc/passwd"), Some("text/plain")));

        let listed = server.get(&files("jane-doe")).ok();
        assert_eq!(array(&listed["files"]).len(), 5);
        assert_eq!(listed["totalSize"], 5);
        let only_csv = server.get(&format!("{}{}", files("jane-doe"), query(&[("filter", "contentType = \"text/csv\"")]))).ok();
        assert_eq!(names(&only_csv["files"]), [csv["name"].as_str().unwrap()]);
        let by_name = server.get(&format!("{}{}", files("jane-doe"), query(&[("orderBy", "displayName desc"), ("pageSize", "1")]))).ok();
        assert_eq!(names(&by_name["files"]), [scan["name"].as_str().unwrap()]);
        assert!(by_name["nextPageToken"].is_string());
        assert_eq!(server.get(&format!("{}/scan?name=files/scan", files("jane-doe"))).ok(), scan);

        for url in [format!("{}/scan:download", files("jane-doe")), format!("{}/scan?alt=media", files("jane-doe"))] {
            let download = server.send(server.request(Method::GET, &url));
            assert_eq!(download.status, 200, "{url}");
            assert_eq!(download.bytes, PDF, "{url}");
            assert_eq!(download.header("content-type"), Some("application/pdf"));
            assert_eq!(download.header("content-disposition"), Some("attachment; filename=\"scan.pdf\"; filename*=UTF-8''scan.pdf"));
            assert_eq!(download.header("x-content-type-options"), Some("nosniff"));
            assert_eq!(download.header("etag"), Some(format!("\"{}\"", sha256(PDF)).as_str()));
            assert_eq!(download.header("content-length"), Some(PDF.len().to_string().as_str()));
        }
        let unchanged = server.send(server.request(Method::GET, &format!("{}/scan:download", files("jane-doe"))).header("if-none-match", format!("W/\"other\", \"{}\"", sha256(PDF))));
        assert_eq!((unchanged.status, unchanged.text.as_str()), (304, ""));
        let safe = server.send(server.request(Method::GET, &format!("/v1alpha/{}:download", path["name"].as_str().unwrap())));
        assert_eq!(safe.header("content-disposition"), Some("attachment; filename=\"_.._etc_passwd\"; filename*=UTF-8''_.._etc_passwd"));
        let utf8 = server.send(server.request(Method::GET, &format!("/v1alpha/{}:download", named["name"].as_str().unwrap())));
        assert_eq!(utf8.header("content-disposition"), Some("attachment; filename=\"Gr__e.png\"; filename*=UTF-8''Gr%C3%BC%C3%9Fe.png"));
        assert_eq!(server.get(&format!("{}/scan?alt=json", files("jane-doe"))).ok(), scan);
        server.get(&format!("{}/scan?alt=raw", files("jane-doe"))).invalid("INVALID_VALUE", "alt");

        let deleted = server.delete(&format!("{}/scan", files("jane-doe"))).ok();
        assert!(deleted["deleteTime"].is_string() && deleted["purgeTime"].is_string());
        server.get(&format!("{}/scan:download", files("jane-doe"))).error(400, "FAILED_PRECONDITION", "RESOURCE_DELETED");
        assert_eq!(array(&server.get(&files("jane-doe")).ok()["files"]).len(), 4);
        assert_eq!(array(&server.get(&format!("{}?showDeleted=true", files("jane-doe"))).ok()["files"]).len(), 5);
        server.delete(&format!("{}/scan", files("jane-doe"))).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        let restored = server.post(&format!("{}/scan:undelete", files("jane-doe")), &json!({"etag": deleted["etag"]})).ok();
        assert!(restored.get("deleteTime").is_none());
        let download = server.get(&format!("{}/scan:download", files("jane-doe")));
        assert_eq!(download.bytes, PDF, "the content outlives a soft delete");
        let file_events: Vec<String> = event_types(&server, "jane-doe").into_iter().filter(|t| t.starts_with("file.")).collect();
        assert_eq!(file_events, ["file.created", "file.created", "file.created", "file.created", "file.created", "file.deleted", "file.undeleted"]);

        // Another tenant sees none of it.
        let (_, child) = server.child_tenant("Child");
        server.send(server.request_as(Some(&child), Method::GET, &format!("{}/scan:download", files("jane-doe")))).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
    }

    /// A document names live files of its entity; only the names a change adds are
    /// looked up. Erasing the entity erases its files and their content.
    fn documents_name_files_and_erasure_takes_them(server) {
        server.create_person("jane-doe", "Jane Doe");
        server.upload_text("jane-doe", "front", "front");
        server.upload_text("jane-doe", "back", "back");
        let passport = |files: Value| json!({"entity": "entities/jane-doe", "documentType": "PASSPORT", "documentNumber": "X1", "files": files});
        server.post("/v1alpha/documents?documentId=doc-1", &passport(json!(["entities/jane-doe/files/front"]))).ok();
        let missing = server.post("/v1alpha/documents", &passport(json!(["entities/jane-doe/files/missing"])));
        missing.error(404, "NOT_FOUND", "FILE_NOT_FOUND");
        missing.assert_violation("document.files[0]");
        server.delete(&format!("{}/front", files("jane-doe"))).ok();
        server.delete(&format!("{}/back", files("jane-doe"))).ok();
        server.patch("/v1alpha/documents/doc-1", &json!({"givenName": "Jane"})).ok();
        server.patch("/v1alpha/documents/doc-1", &json!({"files": ["entities/jane-doe/files/front", "entities/jane-doe/files/back"]}))
            .error(400, "FAILED_PRECONDITION", "FILE_DELETED");
        server.post(&format!("{}/back:undelete", files("jane-doe")), &json!({})).ok();
        server.patch("/v1alpha/documents/doc-1", &json!({"files": ["entities/jane-doe/files/front", "entities/jane-doe/files/back"]})).ok();

        assert_eq!(server.count_rows("file_contents"), 2);
        let receipt = server.delete(&format!("{ENTITIES}/jane-doe:hardDelete")).ok();
        assert_eq!(receipt["erasedCounts"]["files"], 2, "{receipt}");
        assert_eq!(server.count_rows("files"), 0);
        assert_eq!(server.count_rows("file_contents"), 0, "the erasure removed the content");
        assert_eq!(server.count_rows("file_content_removals"), 0);
    }

    /// Each bad upload gets a clear 400 (404 for a parent that is not there) and leaves
    /// no file and no content.
    fn bad_uploads_leave_nothing(server) {
        server.create_person("jane-doe", "Jane Doe");
        let collection = files("jane-doe");
        let lying = server.post(&collection, &upload("photo.png", PNG, json!({"contentType": "application/pdf"})));
        lying.invalid("CONTENT_TYPE_MISMATCH", "file.contentType");
        assert_eq!(lying.metadata("detectedContentType"), Some("image/png"));
        post_form(&server, &collection, &[("content", Some(b"photo.pdf"), Some("application/pdf"), PNG)])
            .invalid("CONTENT_TYPE_MISMATCH", "file.contentType");
        let bomb = post_form(&server, &collection, &[("content", Some(b"report.docx"), Some(DOCX), ZIP_BOMB)]);
        bomb.invalid("CONTENT_TYPE_MISMATCH", "file.contentType");
        assert_eq!(bomb.metadata("detectedContentType"), Some("application/zip"));
        server.post(&collection, &upload("report.docx", ZIP_BOMB, json!({}))).invalid("CONTENT_TYPE_NOT_ALLOWED", "file.content");
        server.post(&collection, &upload("tool.exe", b"MZ\x90\0\x03\0\0\0\x04\0\0\0\xff\xff", json!({}))).invalid("CONTENT_TYPE_NOT_ALLOWED", "file.content");
        server.post(&collection, &upload("empty.txt", b"", json!({}))).invalid("FILE_EMPTY", "file.content");
        post_form(&server, &collection, &[("content", Some(b"empty.txt"), Some("text/plain"), b"")]).invalid("FILE_EMPTY", "file.content");
        server.post(&collection, &upload("data.csv", b"a,b\n1\n", json!({"contentType": "text/csv"}))).invalid("CONTENT_TYPE_MISMATCH", "file.contentType");
        server.post(&collection, &json!({"displayName": "x", "content": "not base64!"})).invalid("INVALID_BASE64", "file.content");
        server.post(&collection, &json!({"displayName": "x"})).invalid("REQUIRED", "file.content");
        server.post(&collection, &json!({"content": STANDARD.encode(PDF)})).invalid("REQUIRED", "file.displayName");
        server.post(&collection, &upload("x", PDF, json!({"sizeBytes": 1}))).invalid("UNKNOWN_FIELD", "file.sizeBytes");
        server.post(&collection, &upload("x", PDF, json!({"contentType": "pdf"}))).invalid("INVALID_VALUE", "file.contentType");
        server.post(&collection, &upload("two\nlines", PDF, json!({}))).invalid("CONTROL_CHARACTER", "file.displayName");
        server.post(&format!("{collection}?fileId=AB"), &upload("x", PDF, json!({}))).invalid("INVALID_RESOURCE_ID", "fileId");

        // Names that are not UTF-8, as a form part and as JSON, and U+0000.
        post_form(&server, &collection, &[("displayName", None, None, b"caf\xe9.pdf"), ("content", Some(b"a.pdf"), None, PDF)])
            .invalid("INVALID_UTF8", "file.displayName");
        post_form(&server, &collection, &[("displayName", None, None, b"a\0b"), ("content", Some(b"a.pdf"), None, PDF)])
            .invalid("CONTROL_CHARACTER", "file.displayName");
        let mut raw_json = b"{\"displayName\": \"caf\xe9\", \"content\": \"".to_vec();
        raw_json.extend_from_slice(STANDARD.encode(PDF).as_bytes());
        raw_json.extend_from_slice(b"\"}");
        server.send(server.request(Method::POST, &collection).header("content-type", "application/json").body(raw_json))
            .error(400, "INVALID_ARGUMENT", "MALFORMED_JSON");

        // Forms that are not one file.
        post_form(&server, &collection, &[("displayName", None, None, b"a.pdf")]).invalid("REQUIRED", "file.content");
        post_form(&server, &collection, &[("colour", None, None, b"red"), ("content", Some(b"a.pdf"), None, PDF)])
            .invalid("UNKNOWN_FIELD", "file.colour");
        post_form(&server, &collection, &[("content", Some(b"a.pdf"), None, PDF), ("displayName", None, None, b"late")])
            .invalid("UNEXPECTED_PART", "file.displayName");
        post_form(&server, &collection, &[("content", Some(b"a.pdf"), None, PDF), ("content", Some(b"b.pdf"), None, PDF)])
            .invalid("UNEXPECTED_PART", "file.content");
        let (_, truncated) = multipart(&[("content", Some(b"a.pdf"), None, PDF)]);
        server.send(server.request(Method::POST, &collection).header("content-type", "multipart/form-data").body(truncated))
            .error(400, "INVALID_ARGUMENT", "MALFORMED_MULTIPART");

        // Parents that are not there.
        server.post(&files("nobody"), &upload("a.pdf", PDF, json!({}))).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        server.create_person("gone-one", "Gone");
        server.delete(&format!("{ENTITIES}/gone-one")).ok();
        post_form(&server, &files("gone-one"), &[("content", Some(b"a.pdf"), None, PDF)]).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        assert_nothing_left(&server, "jane-doe", 0);
    }

    /// A DRAFT form takes files as an entity does; their events are its entity's; its
    /// response names them (of the right type); a form no longer DRAFT takes none;
    /// a document names them when the form is about its entity; another tenant sees
    /// none; erasing the entity takes them and their content.
    fn forms_have_files_while_they_are_drafts(server) {
        server.create_person("jane-doe", "Jane Doe");
        server.create_person("john-roe", "John Roe");
        let kyc = json!({"formDefinition": "formDefinitions/kyc-individual", "entity": "entities/jane-doe"});
        server.post("/v1alpha/forms?formId=kyc-jane", &kyc).ok();
        let form_files = "/v1alpha/forms/kyc-jane/files";
        let scan = server.post(&format!("{form_files}?fileId=scan"), &upload("scan.pdf", PDF, json!({}))).ok();
        assert_eq!(scan["name"], "forms/kyc-jane/files/scan");
        let selfie = post_form(&server, &format!("{form_files}?fileId=selfie"), &[("content", Some(b"me.png"), Some("image/png"), PNG)]).ok();
        assert_eq!(selfie["contentType"], "image/png");
        assert_eq!(names(&server.get(form_files).ok()["files"]), ["forms/kyc-jane/files/scan", "forms/kyc-jane/files/selfie"]);
        assert_eq!(server.get(&format!("{form_files}/scan")).ok(), scan);
        for url in [format!("{form_files}/scan:download"), format!("{form_files}/scan?alt=media")] {
            let download = server.get(&url);
            assert_eq!((download.status, download.bytes.as_slice()), (200, PDF), "{url}");
        }
        let file_events: Vec<String> = event_types(&server, "jane-doe").into_iter().filter(|t| t.starts_with("file.")).collect();
        assert_eq!(file_events, ["file.created", "file.created"], "events of the form's entity");

        // The response names files of the form or of its entity, of an accepted type.
        let path = "/v1alpha/forms/kyc-jane";
        let reply = server.patch(path, &json!({"response": {"selfie": "forms/kyc-jane/files/scan"}}));
        reply.invalid("INVALID_FIELDS", "form.response.selfie");
        assert_eq!(reply.detail("BadRequest").map(|d| d["fieldViolations"][0]["reason"].clone()), Some(json!("FILE_TYPE_NOT_ACCEPTED")));
        server.patch(path, &json!({"response": {"selfie": "forms/kyc-jane/files/missing"}})).invalid("INVALID_FIELDS", "form.response.selfie");
        server.patch(path, &json!({"response": {"selfie": "entities/john-roe/files/photo"}})).invalid("INVALID_FIELDS", "form.response.selfie");
        let response = json!({
            "given_name": "Jane", "family_name": "Doe", "date_of_birth": "1980-01-02",
            "nationality": "GB", "email": "jane@example.com",
            "identity_document": {"documentType": "PASSPORT", "documentNumber": "X1", "files": ["forms/kyc-jane/files/scan"]},
            "selfie": "forms/kyc-jane/files/selfie"
        });
        server.patch(path, &json!({"response": response})).ok();
        // A file the response names, deleted since, fails the submit.
        server.delete(&format!("{form_files}/selfie")).ok();
        let refused = server.post(&format!("{path}:submit"), &json!({}));
        refused.invalid("INVALID_FIELDS", "form.response.selfie");
        assert_eq!(refused.detail("BadRequest").map(|d| d["fieldViolations"][0]["reason"].clone()), Some(json!("FILE_DELETED")));
        server.post(&format!("{form_files}/selfie:undelete"), &json!({})).ok();
        server.post(&format!("{path}:submit"), &json!({})).ok();

        // A SUBMITTED or EXPIRED form takes no file and keeps those it has.
        let late = server.post(&format!("{form_files}?fileId=late"), &upload("late.pdf", PDF, json!({})));
        late.error(400, "FAILED_PRECONDITION", "FORM_NOT_DRAFT");
        assert_eq!(late.metadata("state"), Some("SUBMITTED"));
        server.delete(&format!("{form_files}/scan")).error(400, "FAILED_PRECONDITION", "FORM_NOT_DRAFT");
        let other = server.post("/v1alpha/forms?formId=kyc-other", &json!({"formDefinition": "formDefinitions/kyc-individual"})).ok();
        assert!(other.get("entity").is_none());
        server.post("/v1alpha/forms/kyc-other:expire", &json!({})).ok();
        let expired = post_form(&server, "/v1alpha/forms/kyc-other/files", &[("content", Some(b"a.pdf"), None, PDF)]);
        expired.error(400, "FAILED_PRECONDITION", "FORM_NOT_DRAFT");
        assert_eq!(expired.metadata("state"), Some("EXPIRED"));
        server.post("/v1alpha/forms/nobody/files", &upload("a.pdf", PDF, json!({}))).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");

        // A document of the form's entity may name the form's files; one of another
        // entity may not.
        let document = |entity: &str| json!({"entity": format!("entities/{entity}"), "documentType": "PASSPORT", "documentNumber": "X1", "files": ["forms/kyc-jane/files/scan"]});
        server.post("/v1alpha/documents", &document("jane-doe")).ok();
        server.post("/v1alpha/documents", &document("john-roe")).invalid("FILE_OF_ANOTHER_ENTITY", "document.files[0]");

        // Another tenant sees none of it.
        let (_, child) = server.child_tenant("Child");
        for url in [form_files.to_owned(), format!("{form_files}/scan"), format!("{form_files}/scan:download")] {
            server.send(server.request_as(Some(&child), Method::GET, &url)).error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        }

        assert_eq!(server.count_rows("file_contents"), 2);
        let receipt = server.delete(&format!("{ENTITIES}/jane-doe:hardDelete")).ok();
        assert_eq!(receipt["erasedCounts"]["formFiles"], 2, "{receipt}");
        assert_eq!(server.count_rows("files"), 0);
        assert_eq!(server.count_rows("file_contents"), 0, "the erasure removed the content");
        assert_eq!(server.count_rows("file_content_removals"), 0);
    }

    /// A form upload exactly as Chromium sent it (recorded; tests/fixtures/README.md)
    /// is a file named as the browser named it, of the type its bytes have.
    fn a_browsers_upload_is_a_file(server) {
        server.create_person("jane-doe", "Jane Doe");
        let body = BROWSER_BODY.to_vec();
        let uploaded = server.send(server.request(Method::POST, &files("jane-doe")).header("content-type", BROWSER_CONTENT_TYPE.trim()).body(body)).ok();
        assert_eq!(uploaded["displayName"], "Scan of Jane's passport");
        assert_eq!(uploaded["contentType"], "application/pdf");
        let download = server.get(&format!("/v1alpha/{}:download", uploaded["name"].as_str().unwrap()));
        assert!(download.bytes.starts_with(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"), "{}", download.text);
        assert_eq!(download.header("etag"), Some(format!("\"{}\"", sha256(&download.bytes)).as_str()));
        assert!(BROWSER_BODY.windows(download.bytes.len()).any(|w| w == download.bytes), "the bytes the browser sent");
    }
}

/// The small limits of [`limits_hold_on_the_file_routes_only`]: 128 KiB files, 64 KiB
/// JSON bodies elsewhere.
fn small_limits(config: &mut rics::config::Config) {
    config.file_rules.max_bytes = 128 * 1024;
    config.request_body_limit = 64 * 1024;
}

/// Files up to the limit pass, as JSON bodies larger than every other route takes;
/// over it, a body is refused with and without a `Content-Length`, as a form or JSON,
/// and leaves nothing; the other routes keep their own limit.
fn limits_hold_on_the_file_routes_only(server: Server) {
    server.create_person("jane-doe", "Jane Doe");
    server.create_person("bob-lee", "Bob Lee");
    let collection = files("jane-doe");
    let max = 128 * 1024;
    let text = |size: usize| "0123456789abcdef\n".repeat(size / 17 + 1)[..size].to_owned();
    let full = server
        .post(
            &files("bob-lee"),
            &upload("full.txt", text(max).as_bytes(), json!({})),
        )
        .ok();
    assert_eq!(
        full["sizeBytes"], max,
        "a JSON body of about 171 KiB, past the 64 KiB of other routes"
    );
    server
        .post(
            &collection,
            &upload("over.txt", text(max + 1).as_bytes(), json!({})),
        )
        .invalid("FILE_TOO_LARGE", "file.content");
    let huge = upload("huge.txt", text(4 * max).as_bytes(), json!({}))
        .to_string()
        .into_bytes();
    server
        .send(
            server
                .request(Method::POST, &collection)
                .header("content-type", "application/json")
                .body(huge.clone()),
        )
        .error(400, "INVALID_ARGUMENT", "REQUEST_BODY_TOO_LARGE");
    server
        .send(
            server
                .request(Method::POST, &collection)
                .header("content-type", "application/json")
                .body(chunked(huge)),
        )
        .error(400, "INVALID_ARGUMENT", "REQUEST_BODY_TOO_LARGE");
    let (content_type, form) = multipart(&[(
        "content",
        Some(b"huge.txt"),
        Some("text/plain"),
        text(4 * max).as_bytes(),
    )]);
    server
        .send(
            server
                .request(Method::POST, &collection)
                .header("content-type", &content_type)
                .body(form.clone()),
        )
        .error(400, "INVALID_ARGUMENT", "REQUEST_BODY_TOO_LARGE");
    // Without a length, the body's count or the content's trips first, depending on
    // how far the parser reads ahead of the store: either refusal is clear.
    let endless = server.send(
        server
            .request(Method::POST, &collection)
            .header("content-type", &content_type)
            .body(chunked(form)),
    );
    endless.check_envelope("a chunked form over the limit");
    assert!(
        matches!(
            endless.reason(),
            "REQUEST_BODY_TOO_LARGE" | "FILE_TOO_LARGE"
        ),
        "{}",
        endless.text
    );
    assert_eq!(endless.status, 400);
    let (content_type, form) =
        multipart(&[("content", Some(b"over.txt"), None, text(max + 1).as_bytes())]);
    server
        .send(
            server
                .request(Method::POST, &collection)
                .header("content-type", &content_type)
                .body(chunked(form)),
        )
        .invalid("FILE_TOO_LARGE", "file.content");
    assert_nothing_left(&server, "jane-doe", 1);
    let big_note = json!({"content": "x".repeat(80 * 1024)});
    server
        .post(&format!("{ENTITIES}/jane-doe/notes"), &big_note)
        .error(400, "INVALID_ARGUMENT", "REQUEST_BODY_TOO_LARGE");
}

mod limits_hold_on_the_file_routes_only {
    #[test]
    fn sqlite() {
        super::limits_hold_on_the_file_routes_only(rics_e2e::Server::start_with(
            rics_e2e::Backend::Sqlite,
            super::small_limits,
        ));
    }

    #[test]
    fn postgres() {
        super::limits_hold_on_the_file_routes_only(rics_e2e::Server::start_with(
            rics_e2e::Backend::Postgres,
            super::small_limits,
        ));
    }
}
