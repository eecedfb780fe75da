//! The hosted form in a real browser: headless Chromium, driven through
//! `chromedriver` over the W3C WebDriver protocol (plain JSON over HTTP, so no
//! driver crate), fills every step of the KYC form, uploads a document's photo and a
//! selfie, submits, and checks the form is SUBMITTED with the answers; and an
//! onboarding job's link, filled the same way, ends in the job's signed decision
//! webhook at a local receiver.
//!
//! Skipped, saying so, only when `chromium` or `chromedriver` is not installed (Debian:
//! `apt-get install chromium chromium-driver`; CI installs them). With
//! `RICS_SCREENSHOTS_DIR` set (`make screenshots`), a screenshot of each page is
//! written there.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use reqwest::blocking::Client;
use rics_e2e::*;
use serde_json::{Value, json};

use super::hosted::{PNG, kyc_form, link};
use super::onboarding::{KYC_MAPPING, link_path};
use super::webhook_deliveries::{next, receiver, signed_with};

/// The element key of WebDriver's answers.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// The first of `names` found on the `PATH`.
fn installed(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// A `chromedriver` process, stopped when dropped.
struct Driver {
    child: Child,
    base: String,
    client: Client,
    session: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self
            .client
            .delete(format!("{}/session/{}", self.base, self.session))
            .send();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Driver {
    /// Starts `driver` and a headless `browser` session.
    fn start(driver: &Path, browser: &Path) -> Driver {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .unwrap()
            .port();
        let child = Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", driver.display()));
        let base = format!("http://127.0.0.1:{port}");
        let client = Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .unwrap();
        let started = Instant::now();
        while client
            .get(format!("{base}/status"))
            .send()
            .ok()
            .and_then(|r| r.json::<Value>().ok())
            .is_none_or(|status| status["value"]["ready"] != true)
        {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let mut driver = Driver {
            child,
            base,
            client,
            session: String::new(),
        };
        let session = driver.call(
            "POST",
            "/session",
            json!({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
                "binary": browser,
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=720,1280"]
            }}}}),
        );
        driver.session = session["sessionId"].as_str().unwrap().to_owned();
        driver
    }

    /// One WebDriver command; its `value`.
    fn call(&self, method: &str, path: &str, body: Value) -> Value {
        self.try_call(method, path, body)
            .unwrap_or_else(|value| panic!("WebDriver {method} {path}: {value}"))
    }

    /// One WebDriver command: its `value`, or the error value the driver answered.
    fn try_call(&self, method: &str, path: &str, body: Value) -> Result<Value, Value> {
        let url = if self.session.is_empty() {
            format!("{}{path}", self.base)
        } else {
            format!("{}/session/{}{path}", self.base, self.session)
        };
        let request = match method {
            "GET" => self.client.get(url),
            _ => self.client.post(url).json(&body),
        };
        let reply: Value = request.send().unwrap().json().unwrap();
        let value = reply["value"].clone();
        if value.get("error").is_some() {
            Err(value)
        } else {
            Ok(value)
        }
    }

    fn open(&self, url: &str) {
        self.call("POST", "/url", json!({"url": url}));
    }

    fn find(&self, css: &str) -> String {
        let found = self.call(
            "POST",
            "/element",
            json!({"using": "css selector", "value": css}),
        );
        found[ELEMENT].as_str().unwrap().to_owned()
    }

    /// Types `text` into the element `css` (a file input takes a path).
    fn type_into(&self, css: &str, text: &str) {
        let element = self.find(css);
        self.call(
            "POST",
            &format!("/element/{element}/value"),
            json!({"text": text}),
        );
    }

    /// Replaces the text of the element `css` with `text`.
    fn replace(&self, css: &str, text: &str) {
        let element = self.find(css);
        self.call("POST", &format!("/element/{element}/clear"), json!({}));
        self.call(
            "POST",
            &format!("/element/{element}/value"),
            json!({"text": text}),
        );
    }

    fn click(&self, css: &str) {
        let element = self.find(css);
        self.call("POST", &format!("/element/{element}/click"), json!({}));
    }

    /// Chooses `value` in the select `css`.
    fn choose(&self, css: &str, value: &str) {
        self.click(&format!("{css} option[value=\"{value}\"]"));
    }

    /// Sets a date input, whose typing order depends on the locale.
    fn set_date(&self, css: &str, date: &str) {
        self.call(
            "POST",
            "/execute/sync",
            json!({"script": "document.querySelector(arguments[0]).value = arguments[1];", "args": [css, date]}),
        );
    }

    fn property(&self, css: &str, name: &str) -> Value {
        let element = self.find(css);
        self.call(
            "GET",
            &format!("/element/{element}/property/{name}"),
            Value::Null,
        )
    }

    /// Waits until the page's heading reads `heading`.
    fn wait_for(&self, heading: &str) {
        self.wait_until(&format!("the heading '{heading}'"), |headings, _| {
            headings.iter().any(|h| h == heading)
        });
    }

    /// Waits until `done` holds of the page's headings (`h1`, `h2`) and text, read in one
    /// script, so that a page being replaced meanwhile is read whole or not at all.
    fn wait_until(&self, what: &str, done: impl Fn(&[String], &str) -> bool) {
        let script = "return [Array.from(document.querySelectorAll('h1, h2')).map(e => e.innerText), \
                      document.body ? document.body.innerText : ''];";
        let started = Instant::now();
        loop {
            // A page in the middle of loading answers an error: not there yet.
            if let Ok(read) = self.try_call(
                "POST",
                "/execute/sync",
                json!({"script": script, "args": []}),
            ) {
                let headings: Vec<String> = read[0]
                    .as_array()
                    .map(|all| {
                        all.iter()
                            .filter_map(|h| h.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default();
                let text = read[1].as_str().unwrap_or_default();
                if done(&headings, text) {
                    return;
                }
                assert!(
                    started.elapsed() < Duration::from_secs(20),
                    "no {what} in {headings:?}: {text}"
                );
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "no {what}: the page never read"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// With `RICS_SCREENSHOTS_DIR`, the page as `{name}.png` there.
    fn screenshot(&self, name: &str) {
        let Some(dir) = std::env::var_os("RICS_SCREENSHOTS_DIR") else {
            return;
        };
        let png = self.call("GET", "/screenshot", Value::Null);
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(png.as_str().unwrap())
            .unwrap();
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(Path::new(&dir).join(format!("{name}.png")), bytes).unwrap();
    }
}

/// Fills every step of the KYC form in headless Chromium, with a document's photo and
/// a selfie, and submits it.
#[test]
fn a_browser_fills_every_step_and_submits() {
    let (Some(driver), Some(browser)) = (
        installed(&["chromedriver"]),
        installed(&["chromium", "chromium-browser"]),
    ) else {
        eprintln!(
            "SKIPPED a_browser_fills_every_step_and_submits: chromium and chromedriver are not installed \
             (Debian: apt-get install chromium chromium-driver)"
        );
        return;
    };
    let server = Server::start(Backend::Sqlite);
    kyc_form(&server, "kyc-browser");
    let link = link(
        &server,
        server.partner(),
        "kyc-browser",
        3600,
        Some("https://example.com/welcome"),
    );
    let folder = tempfile::tempdir().unwrap();
    let image = folder.path().join("photo.png");
    std::fs::write(&image, PNG).unwrap();
    let image = image.to_str().unwrap();

    let browser = Driver::start(&driver, &browser);
    browser.open(&server.url(&link));
    browser.wait_for("Personal details");
    browser.screenshot("hosted-form-1-personal");
    // An empty required answer keeps the person on the step, the error next to it.
    browser.type_into("#f-given_name", "Anna");
    browser.set_date("#f-date_of_birth", "1974-08-12");
    browser.type_into("#f-nationality", "se");
    browser.call(
        "POST",
        "/execute/sync",
        json!({"script": "document.querySelector('form').noValidate = true;", "args": []}),
    );
    browser.click("button[type=submit]");
    browser.wait_until("the answers to check", |headings, text| {
        headings.iter().any(|h| h == "Personal details")
            && text.contains("Please check your answers")
    });
    assert_eq!(browser.property("#f-family_name", "ariaInvalid"), "true");
    browser.screenshot("hosted-form-1-personal-errors");
    browser.type_into("#f-family_name", "Eriksson");
    browser.click("button[type=submit]");

    browser.wait_for("Contact details");
    browser.screenshot("hosted-form-2-contact");
    browser.type_into("#f-email", "anna@example.com");
    browser.type_into("#f-phone", "+46701234567");
    browser.type_into("#f-residential_address", "1 Storgatan");
    browser.type_into("#f-residential_address-locality", "Umea");
    browser.type_into("#f-residential_address-country", "SE");
    browser.click("button[type=submit]");

    browser.wait_for("Identity");
    browser.choose("#f-identity_document", "PASSPORT");
    browser.type_into("#f-identity_document-number", "L898902C3");
    browser.type_into("#f-identity_document-country", "SWE");
    browser.set_date("#f-identity_document-expiry", "2030-01-01");
    browser.type_into(
        "#f-identity_document-mrz",
        "P<SWEERIKSSON<<ANNA<<<<<<<<<<<<<<<<<<<<<<<<<\nL898902C36SWE7408122F3001015<<<<<<<<<<<<<<06",
    );
    browser.type_into("#f-identity_document-files", image);
    browser.type_into("#f-selfie", image);
    // The static script ran under the page's policy: the chosen image is previewed.
    assert_eq!(browser.property("#f-selfie + img.preview", "hidden"), false);
    browser.screenshot("hosted-form-3-identity");
    browser.click("button[type=submit]");

    browser.wait_for("Thank you");
    browser.screenshot("hosted-form-4-end");
    assert_eq!(
        browser.property("a.button", "href"),
        "https://example.com/welcome"
    );

    let form = server.get("/v1alpha/forms/kyc-browser").ok();
    assert_eq!(form["state"], "SUBMITTED", "{form}");
    let response = &form["response"];
    assert_eq!(response["given_name"], "Anna");
    assert_eq!(response["family_name"], "Eriksson");
    assert_eq!(response["date_of_birth"], "1974-08-12");
    assert_eq!(response["nationality"], "SE");
    assert_eq!(response["email"], "anna@example.com");
    assert_eq!(
        response["residential_address"]["lines"],
        json!(["1 Storgatan"])
    );
    let document = &response["identity_document"];
    assert_eq!(document["documentType"], "PASSPORT");
    assert_eq!(document["expiryDate"], "2030-01-01");
    assert_eq!(document["mrz"].as_array().unwrap().len(), 2);
    let photo = document["files"][0].as_str().unwrap();
    let selfie = response["selfie"].as_str().unwrap();
    for file in [photo, selfie] {
        let stored = server.get(&format!("/v1alpha/{file}")).ok();
        assert_eq!(stored["contentType"], "image/png", "{stored}");
    }
    drop(browser);
    assert_eq!(
        server
            .send(server.request_as(None, reqwest::Method::GET, &link))
            .status,
        410
    );
}

/// An onboarding in headless Chromium: the job's `:run` link opened, every step filled,
/// a selfie that is not an image refused next to its field, the document's photo and
/// the selfie uploaded, the form submitted (and submitted again from a second window,
/// which the used link refuses), the end page with its way on, and the signed
/// `onboard_individual_entity_job.decided` webhook with the decision at a local
/// receiver, once. Another tenant's onboarding, open in the same browser, shows nothing
/// here, and a link naming its form under this tenant opens nothing.
#[test]
fn a_browser_onboards_a_person_to_a_signed_decision() {
    let (Some(driver), Some(browser)) = (
        installed(&["chromedriver"]),
        installed(&["chromium", "chromium-browser"]),
    ) else {
        eprintln!(
            "SKIPPED a_browser_onboards_a_person_to_a_signed_decision: chromium and chromedriver are not installed \
             (Debian: apt-get install chromium chromium-driver)"
        );
        return;
    };
    let server = Server::start(Backend::Sqlite);
    let (hook, told) = receiver(vec![]);
    let secret = server
        .post("/v1alpha/tenants/current:rotateWebhookSecret", &json!({}))
        .ok()["secret"]
        .as_str()
        .unwrap()
        .to_owned();
    let body = json!({
        "formDefinition": "formDefinitions/kyc-individual",
        "jsonataExpression": base64::engine::general_purpose::STANDARD.encode(KYC_MAPPING),
        "webhookUri": hook,
        "redirectUri": "https://example.com/welcome",
    });
    let job = server
        .post("/v1alpha/entities/-/onboardIndividualEntityJobs", &body)
        .ok();
    let name = job["name"].as_str().unwrap().to_owned();
    let operation = server
        .post(&format!("/v1alpha/{name}:run"), &json!({}))
        .ok();
    let ours = link_path(&operation);

    // Another tenant's onboarding, its first step saved by its own person.
    let (_, other_token) = server.child_tenant("Other onboarder");
    let theirs = server.send(
        server
            .request_as(
                Some(&other_token),
                reqwest::Method::POST,
                "/v1alpha/entities/-/onboardIndividualEntityJobs",
            )
            .json(&body),
    );
    assert_eq!(theirs.status, 200, "{}", theirs.text);
    let their_job: Value = serde_json::from_str(&theirs.text).unwrap();
    let their_run = server.send(
        server
            .request_as(
                Some(&other_token),
                reqwest::Method::POST,
                &format!("/v1alpha/{}:run", their_job["name"].as_str().unwrap()),
            )
            .json(&json!({})),
    );
    assert_eq!(their_run.status, 200, "{}", their_run.text);
    let their_run: Value = serde_json::from_str(&their_run.text).unwrap();
    let their_form = their_run["metadata"]["debug"]["form"]
        .as_str()
        .unwrap()
        .to_owned();
    let patched = server.send(
        server
            .request_as(
                Some(&other_token),
                reqwest::Method::PATCH,
                &format!("/v1alpha/{their_form}"),
            )
            .json(&json!({"response": {"given_name": "Bertil", "family_name": "Secretsson"}})),
    );
    assert_eq!(patched.status, 200, "{}", patched.text);

    let folder = tempfile::tempdir().unwrap();
    let image = folder.path().join("photo.png");
    std::fs::write(&image, PNG).unwrap();
    let image = image.to_str().unwrap();
    let text = folder.path().join("selfie.txt");
    std::fs::write(&text, "not a picture").unwrap();
    let text = text.to_str().unwrap();

    let browser = Driver::start(&driver, &browser);
    // The other tenant's person first: its link opens its own form only.
    browser.open(&server.url(&link_path(&their_run)));
    browser.wait_for("Personal details");
    assert_eq!(browser.property("#f-given_name", "value"), "Bertil");
    // A link naming the other tenant's form under this tenant opens nothing.
    browser.open(&server.url(&link(
        &server,
        server.partner(),
        their_form.rsplit('/').next().unwrap(),
        3600,
        None,
    )));
    browser.wait_for("Link not found");
    let shows_nothing = |headings: &[String], text: &str| {
        !headings.is_empty() && !text.contains("Bertil") && !text.contains("Secretsson")
    };
    browser.wait_until("a page without the other tenant's person", shows_nothing);

    browser.open(&server.url(&ours));
    browser.wait_for("Personal details");
    browser.wait_until("a page without the other tenant's person", shows_nothing);
    assert_eq!(browser.property("#f-given_name", "value"), "");
    browser.screenshot("onboarding-1-personal");
    browser.type_into("#f-given_name", "Anna");
    browser.type_into("#f-family_name", "Eriksson");
    browser.set_date("#f-date_of_birth", "1974-08-12");
    browser.type_into("#f-nationality", "SE");
    browser.click("button[type=submit]");

    browser.wait_for("Contact details");
    browser.screenshot("onboarding-2-contact");
    browser.type_into("#f-email", "anna@example.com");
    browser.type_into("#f-residential_address", "1 Storgatan");
    browser.type_into("#f-residential_address-locality", "Umea");
    browser.type_into("#f-residential_address-country", "SE");
    browser.click("button[type=submit]");

    browser.wait_for("Identity");
    // Saved answers are shown again: typed over, not after. The document's photo is
    // uploaded once; a page that has it says so and takes another only to add it.
    let fill_identity = |selfie: &str, photo: bool| {
        browser.choose("#f-identity_document", "PASSPORT");
        browser.replace("#f-identity_document-number", "L898902C3");
        browser.replace("#f-identity_document-country", "SWE");
        browser.set_date("#f-identity_document-expiry", "2030-01-01");
        if photo {
            browser.type_into("#f-identity_document-files", image);
        }
        browser.type_into("#f-selfie", selfie);
    };
    // A selfie that is not an image (the page's `accept` lifted, as a browser without
    // it would send it) is refused next to its field.
    fill_identity(text, true);
    browser.call(
        "POST",
        "/execute/sync",
        json!({"script": "document.querySelector('#f-selfie').removeAttribute('accept');", "args": []}),
    );
    browser.click("button[type=submit]");
    browser.wait_until("the selfie's error", |headings, text| {
        headings.iter().any(|h| h == "Identity") && text.contains("This file is not an image.")
    });
    assert_eq!(browser.property("#f-selfie", "ariaInvalid"), "true");
    let error = browser.property("#e-selfie", "innerText");
    assert!(
        error
            .as_str()
            .unwrap()
            .contains("This file is not an image."),
        "{error}"
    );
    browser.screenshot("onboarding-3-identity-errors");
    assert_eq!(
        server
            .get(&format!(
                "/v1alpha/{}",
                operation["metadata"]["debug"]["form"].as_str().unwrap()
            ))
            .ok()["state"],
        "DRAFT"
    );

    // The same step open in a second window, as a person who double-submits has it.
    let first = browser.call("GET", "/window", Value::Null);
    let second = browser.call("POST", "/window/new", json!({"type": "tab"}));
    browser.call("POST", "/window", json!({"handle": second["handle"]}));
    browser.open(&server.url(&format!("{ours}/steps/identity")));
    browser.wait_for("Identity");
    fill_identity(image, false);
    browser.call("POST", "/window", json!({"handle": first}));
    fill_identity(image, false);
    browser.screenshot("onboarding-3-identity");
    browser.click("button[type=submit]");
    browser.wait_for("Thank you");
    browser.screenshot("onboarding-4-end");
    assert_eq!(
        browser.property("a.button", "href"),
        "https://example.com/welcome"
    );

    // The second window's submit finds the link used.
    browser.call("POST", "/window", json!({"handle": second["handle"]}));
    browser.click("button[type=submit]");
    browser.wait_for("Link no longer valid");
    browser.wait_until("a page without the person's answers", |_, text| {
        !text.contains("Anna") && !text.contains("Eriksson")
    });
    browser.screenshot("onboarding-5-used");

    let decided = next(&told);
    assert_eq!(
        decided.body["type"], "onboard_individual_entity_job.decided",
        "{}",
        decided.body
    );
    assert!(signed_with(&decided, &secret), "{:?}", decided.headers);
    let object = &decided.body["data"]["object"];
    assert_eq!(object["name"], name.as_str());
    assert_eq!(object["state"], "SUCCEEDED");
    let result = &object["result"];
    assert_eq!(result["decision"], "REFER", "{result}");
    let done = server.wait_for(&operation);
    assert_eq!(done["response"]["result"], *result, "{done}");
    let entity = server
        .get(&format!("/v1alpha/{}", result["entity"].as_str().unwrap()))
        .ok();
    assert_eq!(entity["displayName"], "Anna Eriksson");
    let document = server
        .get(&format!(
            "/v1alpha/{}",
            result["document"].as_str().unwrap()
        ))
        .ok();
    assert_eq!(document["documentNumber"], "L898902C3", "{document}");
    let form = server
        .get(&format!(
            "/v1alpha/{}",
            operation["metadata"]["debug"]["form"].as_str().unwrap()
        ))
        .ok();
    assert_eq!(form["state"], "SUBMITTED");
    let selfie = form["response"]["selfie"].as_str().unwrap();
    assert_eq!(
        server.get(&format!("/v1alpha/{selfie}")).ok()["contentType"],
        "image/png"
    );
    // One decision: no second message arrives.
    assert!(
        told.recv_timeout(Duration::from_secs(2)).is_err(),
        "a second webhook"
    );
    drop(browser);
}
