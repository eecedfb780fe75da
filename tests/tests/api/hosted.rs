//! The hosted form over plain HTTP: a link opens a DRAFT form's pages, which save
//! each step as the form's DRAFT and submit it from the last; the link rules (cookie,
//! end page once, 410 for an expired or used link, 404 for a tampered, unknown or
//! other tenant's one), CSRF refusals and the pages' security headers.

use std::sync::Arc;

use reqwest::Method;
use rics_auth::SecretBox;
use rics_domain::hosted::{HostedLinkGrant, HostedLinks};
use rics_domain::time::Timestamp;
use rics_e2e::*;
use serde_json::json;
use time::OffsetDateTime;

/// A green 48x32 PNG: an image, as a selfie and a document's photo must be, that a
/// browser can show.
pub const PNG: &[u8] = b"\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x30\x00\x00\x00\x20\x08\x02\x00\x00\x00\xdb\xb6\x6c\x4b\x00\x00\x00\x32\x49\x44\x41\x54\x78\xda\xed\xce\x31\x0d\x00\x00\x08\x03\xb0\x29\xc1\x02\xc2\xf0\xff\xe3\x82\x70\x34\xa9\x80\xa6\xa6\x5f\x89\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\x90\xd0\xa5\x05\xf6\x6a\x50\x3d\xdd\x72\xad\x82\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82";

/// The link of `tenant`'s form `form`, expiring in `seconds` (in the past when
/// negative), sealed with the test servers' key as the server seals its own.
pub fn link(
    server: &Server,
    tenant: &str,
    form: &str,
    seconds: i64,
    redirect: Option<&str>,
) -> String {
    let cipher = SecretBox::from_base64(SECRET_KEY).unwrap();
    let links = HostedLinks::new(Some(Arc::new(cipher)), &server.url(""));
    let expire = OffsetDateTime::now_utc() + time::Duration::seconds(seconds);
    let micros = i64::try_from(expire.unix_timestamp_nanos() / 1000).unwrap();
    let grant = HostedLinkGrant {
        tenant: tenant.trim_start_matches("tenants/").to_owned(),
        form: form.to_owned(),
        expire_time: Timestamp::from_unix_micros(micros).unwrap(),
        redirect_uri: redirect.map(str::to_owned),
    };
    let uri = links.issue(&grant).unwrap().uri;
    uri.strip_prefix(&server.url("")).unwrap().to_owned()
}

/// A DRAFT form of the seeded KYC definition, by the admin client.
pub fn kyc_form(server: &Server, id: &str) {
    server
        .post(
            &format!("/v1alpha/forms?formId={id}"),
            &json!({"formDefinition": "formDefinitions/kyc-individual"}),
        )
        .ok();
}

/// A part of a multipart body: a text, or a file with its name.
pub enum Part<'a> {
    /// `name=value`.
    Text(&'a str, &'a str),
    /// A file input `name` holding `bytes` named `file_name`.
    File(&'a str, &'a str, &'a [u8]),
}

/// The multipart body of `parts` and its content type.
pub fn multipart(parts: &[Part<'_>]) -> (String, Vec<u8>) {
    let boundary = "----rics-hosted-test-boundary";
    let mut body = Vec::new();
    for part in parts {
        body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        match part {
            Part::Text(name, value) => {
                body.extend_from_slice(
                    format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n")
                        .as_bytes(),
                );
            }
            Part::File(name, file_name, bytes) => {
                body.extend_from_slice(
                    format!(
                        "Content-Disposition: form-data; name=\"{name}\"; filename=\"{file_name}\"\r\n\
                         Content-Type: application/octet-stream\r\n\r\n"
                    )
                    .as_bytes(),
                );
                body.extend_from_slice(bytes);
                body.extend_from_slice(b"\r\n");
            }
        }
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// A visitor without a token: a browser's cookie jar of one link.
pub struct Visitor<'a> {
    server: &'a Server,
    /// The path of the link, `/hosted/{token}`.
    pub link: String,
    /// The link cookie, once set.
    pub cookie: Option<String>,
}

impl<'a> Visitor<'a> {
    /// A visitor of `link`.
    pub fn new(server: &'a Server, link: &str) -> Visitor<'a> {
        Visitor {
            server,
            link: link.to_owned(),
            cookie: None,
        }
    }

    /// Sends `request` with the cookie, keeps a cookie the answer sets.
    fn send(&mut self, request: reqwest::blocking::RequestBuilder) -> Reply {
        let request = match &self.cookie {
            Some(cookie) => request.header("Cookie", format!("rics_hosted={cookie}")),
            None => request,
        };
        let reply = self.server.send(request);
        if let Some(set) = reply.header("set-cookie") {
            let value = set
                .strip_prefix("rics_hosted=")
                .and_then(|rest| rest.split(';').next())
                .unwrap_or_default();
            self.cookie = Some(value.to_owned()).filter(|v| !v.is_empty());
        }
        reply
    }

    /// `GET` of `path` under the link (`""` for the link itself).
    pub fn get(&mut self, path: &str) -> Reply {
        let url = format!("{}{path}", self.link);
        self.send(self.server.request_as(None, Method::GET, &url))
    }

    /// `POST` of the step `step` with `parts`.
    pub fn post(&mut self, step: &str, parts: &[Part<'_>]) -> Reply {
        let (content_type, body) = multipart(parts);
        let url = format!("{}/steps/{step}", self.link);
        self.send(
            self.server
                .request_as(None, Method::POST, &url)
                .header("Content-Type", content_type)
                .body(body),
        )
    }
}

/// The CSRF token a page carries.
pub fn csrf(page: &Reply) -> String {
    let marker = "name=\"csrf\" value=\"";
    let start = page.text.find(marker).map(|i| i + marker.len()).unwrap();
    let end = page.text[start..].find('"').unwrap();
    page.text[start..start + end].to_owned()
}

/// Checks the headers every hosted page has.
fn assert_secure_headers(reply: &Reply) {
    let csp = reply.header("content-security-policy").unwrap_or_default();
    for directive in [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ] {
        assert!(csp.contains(directive), "{directive} not in {csp}");
    }
    assert!(!csp.contains("unsafe-inline"), "{csp}");
    assert_eq!(reply.header("x-frame-options"), Some("DENY"));
    assert_eq!(reply.header("referrer-policy"), Some("no-referrer"));
    assert_eq!(reply.header("cache-control"), Some("no-store"));
    assert!(
        reply
            .header("content-type")
            .unwrap_or_default()
            .starts_with("text/html")
    );
    assert!(
        !reply.text.contains("<script>"),
        "no inline script: {}",
        reply.text
    );
    assert!(
        !reply.text.contains("<style") && !reply.text.contains(" style="),
        "no inline style"
    );
}

on_both_backends! {
    /// A person fills the KYC form step by step through its link: the cookie set on
    /// opening, errors next to fields, progress saved as the DRAFT between steps, a
    /// selfie that is not an image refused, the submit from the last step with the end
    /// page once, and 410 from then on.
    fn a_link_fills_and_submits_its_form(server) {
        kyc_form(&server, "kyc-hosted");
        let link = link(&server, server.partner(), "kyc-hosted", 3600, Some("https://example.com/done?a=1&b=2"));
        let mut visitor = Visitor::new(&server, &link);

        let first = visitor.get("");
        assert_eq!(first.status, 200, "{}", first.text);
        assert_secure_headers(&first);
        let cookie = first.header("set-cookie").unwrap().to_owned();
        for attribute in ["HttpOnly", "SameSite=Strict", &format!("Path={link}")] {
            assert!(cookie.contains(attribute), "{attribute} not in {cookie}");
        }
        assert!(!cookie.contains("Secure"), "not over plain HTTP: {cookie}");
        assert!(first.text.contains("Personal details") && first.text.contains("Step 1 of 3"));
        assert!(first.text.contains("<label for=\"f-given_name\">Given name</label>"));
        let token = csrf(&first);
        assert_eq!(Some(token.clone()), visitor.cookie, "the CSRF token is the link cookie's");

        // Errors are shown next to their fields; what was right is saved.
        let reply = visitor.post("personal", &[
            Part::Text("csrf", &token), Part::Text("given_name", "Anna"),
            Part::Text("date_of_birth", "1974-08-12"), Part::Text("nationality", "se"),
            Part::Text("action", "next"),
        ]);
        assert_eq!(reply.status, 422, "{}", reply.text);
        assert_secure_headers(&reply);
        assert!(reply.text.contains("id=\"e-family_name\""), "{}", reply.text);
        assert!(reply.text.contains("aria-describedby=\"e-family_name\""));
        assert!(!reply.text.contains("id=\"e-given_name\""));
        let form = server.get("/v1alpha/forms/kyc-hosted").ok();
        assert_eq!(form["state"], "DRAFT");
        assert_eq!(form["response"], json!({"given_name": "Anna", "date_of_birth": "1974-08-12", "nationality": "SE"}));

        let reply = visitor.post("personal", &[
            Part::Text("csrf", &token), Part::Text("given_name", "Anna"), Part::Text("family_name", "Eriksson"),
            Part::Text("date_of_birth", "1974-08-12"), Part::Text("nationality", "SE"), Part::Text("action", "next"),
        ]);
        assert_eq!(reply.status, 303, "{}", reply.text);
        assert_eq!(reply.header("location"), Some(format!("{link}/steps/contact").as_str()));

        // Opening the link again goes on where the person left off.
        let again = visitor.get("");
        assert!(again.text.contains("Contact details"), "{}", again.text);
        assert!(again.header("set-cookie").is_none(), "the cookie is kept");

        let reply = visitor.post("contact", &[
            Part::Text("csrf", &token), Part::Text("email", "anna@example.com"),
            Part::Text("residential_address.lines", "1 Storgatan\n\n"), Part::Text("residential_address.locality", "Umeå"),
            Part::Text("residential_address.country", "se"), Part::Text("action", "next"),
        ]);
        assert_eq!(reply.status, 303, "{}", reply.text);
        let back = visitor.get("/steps/personal");
        assert!(back.text.contains("value=\"Eriksson\""), "saved answers are shown again");

        // A selfie that is not an image is refused next to its field, and not kept.
        let identity = visitor.get("/steps/identity");
        assert!(identity.text.contains("accept=\"image/*\" capture=\"environment\""));
        assert!(identity.text.contains("name=\"selfie\" accept=\"image/jpeg,image/png\" capture=\"user\""));
        let reply = visitor.post("identity", &[
            Part::Text("csrf", &token), Part::Text("identity_document.documentType", "PASSPORT"),
            Part::Text("identity_document.documentNumber", "l898902c3"), Part::Text("identity_document.issuingCountry", "SWE"),
            Part::Text("identity_document.expiryDate", "2030-01-01"),
            Part::Text("identity_document.mrz", "P<SWEERIKSSON<<ANNA<<<<<<<<<<<<<<<<<<<<<<<<<\nL898902C36SWE7408122F3001015<<<<<<<<<<<<<<06"),
            Part::File("identity_document.files", "passport.png", PNG),
            Part::File("selfie", "selfie.txt", b"not a picture"),
            Part::Text("action", "submit"),
        ]);
        assert_eq!(reply.status, 422, "{}", reply.text);
        assert!(reply.text.contains("This file is not an image."), "{}", reply.text);
        assert!(reply.text.contains("id=\"e-selfie\""));
        let form = server.get("/v1alpha/forms/kyc-hosted").ok();
        assert_eq!(form["state"], "DRAFT");
        assert!(form["response"].get("selfie").is_none());
        let document = &form["response"]["identity_document"];
        assert_eq!(document["documentNumber"], "L898902C3");
        assert_eq!(document["mrz"].as_array().unwrap().len(), 2);
        assert_eq!(document["files"].as_array().unwrap().len(), 1, "{form}");
        let files = server.get("/v1alpha/forms/kyc-hosted/files").ok();
        let live: Vec<_> = array(&files["files"]).iter().filter(|f| f.get("deleteTime").is_none()).collect();
        assert_eq!(live.len(), 1, "the refused selfie is not kept: {files}");

        // The last step submits; the end page shows once, then the link is used.
        let reply = visitor.post("identity", &[
            Part::Text("csrf", &token), Part::Text("identity_document.documentType", "PASSPORT"),
            Part::Text("identity_document.documentNumber", "L898902C3"), Part::Text("identity_document.issuingCountry", "SWE"),
            Part::File("identity_document.files", "", b""),
            Part::File("selfie", "selfie.png", PNG), Part::Text("action", "submit"),
        ]);
        assert_eq!(reply.status, 200, "{}", reply.text);
        assert_secure_headers(&reply);
        assert!(reply.text.contains("Thank you"));
        assert!(reply.text.contains("href=\"https://example.com/done?a=1&amp;b=2\""), "{}", reply.text);
        let form = server.get("/v1alpha/forms/kyc-hosted").ok();
        assert_eq!(form["state"], "SUBMITTED");
        assert_eq!(form["response"]["family_name"], "Eriksson");
        assert_eq!(form["response"]["residential_address"], json!({"lines": ["1 Storgatan"], "locality": "Umeå", "country": "SE"}));
        assert!(form["response"]["selfie"].as_str().unwrap().starts_with("forms/kyc-hosted/files/"));
        assert_eq!(form["response"]["identity_document"]["files"].as_array().unwrap().len(), 1);

        for reply in [visitor.get(""), visitor.get("/steps/personal"),
                      visitor.post("personal", &[Part::Text("csrf", &token), Part::Text("given_name", "Mallory")])] {
            assert_eq!(reply.status, 410, "{}", reply.text);
            assert_secure_headers(&reply);
            assert!(!reply.text.contains("Anna") && !reply.text.contains("Eriksson"), "no data: {}", reply.text);
        }
        assert_eq!(server.get("/v1alpha/forms/kyc-hosted").ok()["response"]["given_name"], "Anna");
    }

    /// Every POST needs the link's cookie and the same token in its body, first.
    fn steps_refuse_posts_without_the_links_cookie_and_token(server) {
        kyc_form(&server, "kyc-csrf");
        let link = link(&server, server.partner(), "kyc-csrf", 3600, None);
        let mut visitor = Visitor::new(&server, &link);
        let token = csrf(&visitor.get(""));
        for (cookie, parts) in [
            (Some(token.clone()), vec![Part::Text("given_name", "Mallory")]),
            (Some(token.clone()), vec![Part::Text("csrf", "forged"), Part::Text("given_name", "Mallory")]),
            (None, vec![Part::Text("csrf", &token), Part::Text("given_name", "Mallory")]),
            (Some("forged".to_owned()), vec![Part::Text("csrf", "forged-too"), Part::Text("given_name", "Mallory")]),
            (Some(token.clone()), vec![Part::Text("given_name", "Mallory"), Part::Text("csrf", &token)]),
        ] {
            visitor.cookie = cookie;
            let reply = visitor.post("personal", &parts);
            assert_eq!(reply.status, 403, "{}", reply.text);
            assert_secure_headers(&reply);
        }
        visitor.cookie = Some(token.clone());
        let reply = visitor.post("personal", &[Part::Text("csrf", &token), Part::Text("given_name", "Anna")]);
        assert_eq!(reply.status, 422);
        let form = server.get("/v1alpha/forms/kyc-csrf").ok();
        assert_eq!(form["response"], json!({"given_name": "Anna"}), "only the checked POST saved");
        // Reached over HTTPS (here through a proxy that says so), the cookie is Secure.
        let https = server.send(server.request_as(None, Method::GET, &link).header("X-Forwarded-Proto", "https"));
        let cookie = https.header("set-cookie").unwrap();
        assert!(cookie.contains("; Secure"), "{cookie}");
        // The static files are the only script and style, served as files.
        let style = server.send(server.request_as(None, Method::GET, "/hosted/assets/hosted.css"));
        assert_eq!(style.status, 200);
        assert!(style.header("content-type").unwrap().starts_with("text/css"));
        let script = server.send(server.request_as(None, Method::GET, "/hosted/assets/hosted.js"));
        assert!(script.header("content-type").unwrap().starts_with("text/javascript"));
    }

    /// Expired links answer 410; tampered, unknown or another tenant's ones 404; all
    /// plain pages that say nothing of any form.
    fn expired_tampered_and_foreign_links_show_nothing(server) {
        kyc_form(&server, "kyc-rules");
        server.patch("/v1alpha/forms/kyc-rules", &json!({"response": {"given_name": "Secret"}})).ok();
        let partner = server.partner().to_owned();
        let check = |path: &str, status: u16| {
            let reply = server.send(server.request_as(None, Method::GET, path));
            assert_eq!(reply.status, status, "{path}: {}", reply.text);
            assert_secure_headers(&reply);
            assert!(reply.header("set-cookie").is_none(), "{path} sets no cookie");
            assert!(!reply.text.contains("Secret") && !reply.text.contains("KYC"), "{path}: {}", reply.text);
        };
        let expired = link(&server, &partner, "kyc-rules", -1, None);
        check(&expired, 410);
        check(&format!("{expired}/steps/personal"), 410);

        let good = link(&server, &partner, "kyc-rules", 3600, None);
        let token = good.strip_prefix("/hosted/").unwrap();
        let mut tampered: Vec<char> = token.chars().collect();
        let middle = tampered.len() / 2;
        tampered[middle] = if tampered[middle] == 'A' { 'B' } else { 'A' };
        check(&format!("/hosted/{}", tampered.into_iter().collect::<String>()), 404);
        check("/hosted/not-a-token", 404);
        check(&format!("{good}/steps/no-such-step"), 404);
        check(&link(&server, &partner, "no-such-form", 3600, None), 404);

        // A link of another tenant never opens this tenant's form.
        let (child, child_token) = server.child_tenant("Other tenant");
        check(&link(&server, &child, "kyc-rules", 3600, None), 404);
        server.send(server.request_as(Some(&child_token), Method::POST, "/v1alpha/forms?formId=kyc-rules")
            .json(&json!({"formDefinition": "formDefinitions/kyc-individual"})));
        let theirs = server.send(server.request_as(None, Method::GET, &link(&server, &child, "kyc-rules", 3600, None)));
        assert_eq!(theirs.status, 200);
        assert!(!theirs.text.contains("Secret"), "the other tenant's form of the same id is its own");

        // A form expired through the API ends its link.
        server.post("/v1alpha/forms/kyc-rules:expire", &json!({})).ok();
        check(&good, 410);
    }
}
