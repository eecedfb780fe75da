//! Webhook deliveries over HTTP, to a receiver inside the test: the Standard Webhooks
//! headers and the message body, the retries of a receiver that fails before it
//! accepts (one delivery, every attempt logged), `:redeliver`, and the disabling of an
//! endpoint whose receiver is down for the whole schedule; deliveries to URLs
//! (NOTIFY_WEBHOOK steps, as the jobs' `webhookUri`) signed with the tenant's secret
//! and its rotation.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rics_domain::webhook::RetrySchedule;
use rics_e2e::*;
use serde_json::{Value, json};

/// A request the receiver got: its headers (names in lower case) and its body, as
/// JSON and as sent.
pub(crate) struct Received {
    pub(crate) headers: BTreeMap<String, String>,
    pub(crate) body: Value,
    raw: Vec<u8>,
}

/// A receiver on 127.0.0.1 (which the test servers allow): it answers the requests it
/// gets with `statuses` in turn, then 200 to every later one, and hands each request
/// over. Returns its URL.
pub(crate) fn receiver(statuses: Vec<u16>) -> (String, mpsc::Receiver<Received>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hooks", listener.local_addr().unwrap());
    let (tell, told) = mpsc::channel();
    std::thread::spawn(move || {
        let mut statuses = statuses.into_iter();
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut headers = BTreeMap::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                    break;
                }
                if let Some((name, value)) = line.split_once(':') {
                    headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_owned());
                }
            }
            let length = headers
                .get("content-length")
                .and_then(|l| l.parse().ok())
                .unwrap_or(0);
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let status = statuses.next().unwrap_or(200);
            let answer = format!(
                "HTTP/1.1 {status} Answer\r\nContent-Length: 4\r\nConnection: close\r\n\r\nseen"
            );
            let _ = stream.write_all(answer.as_bytes());
            let raw = body;
            let body = serde_json::from_slice(&raw).unwrap_or(Value::Null);
            if tell.send(Received { headers, body, raw }).is_err() {
                return;
            }
        }
    });
    (url, told)
}

/// The next request the receiver got, within 15 s.
pub(crate) fn next(told: &mpsc::Receiver<Received>) -> Received {
    told.recv_timeout(Duration::from_secs(15))
        .expect("the receiver got no request within 15 s")
}

/// The delivery at `path` once it has `attempts` attempts, within 15 s.
fn delivery_with(server: &Server, path: &str, attempts: usize) -> Value {
    let started = Instant::now();
    loop {
        let delivery = server.get(path).ok();
        if delivery["attempts"].as_array().map_or(0, Vec::len) >= attempts
            && delivery["state"] != "PENDING"
        {
            return delivery;
        }
        assert!(started.elapsed() < Duration::from_secs(15), "{delivery}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A receiver that fails three times, then accepts: the same message four times
/// (Standard Webhooks headers, one `webhook-id`, the body with the entity as it was
/// created), and one delivery with four attempts; `:redeliver` sends it once more.
fn a_failing_receiver_gets_the_message_until_it_accepts(server: Server) {
    let (url, told) = receiver(vec![500, 503, 429]);
    let endpoint = server
        .post(
            "/v1alpha/webhookEndpoints?webhookEndpointId=crm-hook",
            &json!({"url": url, "eventTypes": ["entity.*"]}),
        )
        .ok();
    let entity = server
        .post(
            &format!("{ENTITIES}?entityId=jane-doe"),
            &person("Jane Doe"),
        )
        .ok();

    let received: Vec<Received> = (0..4).map(|_| next(&told)).collect();
    let first = &received[0];
    for name in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
        assert!(
            first.headers.contains_key(name),
            "{name} missing from {:?}",
            first.headers
        );
    }
    assert_eq!(first.headers["content-type"], "application/json");
    assert!(
        first.headers["webhook-signature"].starts_with("v1,"),
        "{:?}",
        first.headers
    );
    assert!(
        first.headers["webhook-timestamp"].parse::<i64>().is_ok(),
        "{:?}",
        first.headers
    );
    let id = first.headers["webhook-id"].clone();
    let secret = endpoint["secret"].as_str().unwrap();
    assert!(signed_with(first, secret), "{:?}", first.headers);
    for again in &received {
        assert_eq!(
            again.headers["webhook-id"], id,
            "one webhook-id for every attempt"
        );
        assert_eq!(again.body, first.body);
    }
    let body = &first.body;
    assert_eq!(body["type"], "entity.created", "{body}");
    assert!(
        body["timestamp"].as_str().is_some_and(|t| t.ends_with('Z')),
        "{body}"
    );
    assert_eq!(
        body["data"],
        json!({
            "event": format!("entities/jane-doe/events/{id}"),
            "eventType": "entity.created",
            "resource": "entities/jane-doe",
            "object": body["data"]["object"],
        })
    );
    assert_eq!(body["data"]["object"]["displayName"], entity["displayName"]);
    assert_eq!(body["data"]["object"]["name"], "entities/jane-doe");

    let path = format!("/v1alpha/webhookEndpoints/crm-hook/deliveries/{id}");
    let delivery = delivery_with(&server, &path, 4);
    assert_eq!(
        delivery["name"],
        format!("webhookEndpoints/crm-hook/deliveries/{id}")
    );
    assert_eq!(delivery["event"], format!("entities/jane-doe/events/{id}"));
    assert_eq!(delivery["eventType"], "entity.created");
    assert_eq!(delivery["state"], "SUCCEEDED", "{delivery}");
    assert!(delivery.get("nextAttemptTime").is_none(), "{delivery}");
    let statuses: Vec<&Value> = delivery["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| &a["statusCode"])
        .collect();
    assert_eq!(
        statuses,
        [&json!(500), &json!(503), &json!(429), &json!(200)],
        "{delivery}"
    );
    for attempt in delivery["attempts"].as_array().unwrap() {
        assert_eq!(attempt["responseExcerpt"], "seen", "{attempt}");
        assert!(
            attempt["latency"]
                .as_str()
                .is_some_and(|l| l.ends_with('s')),
            "{attempt}"
        );
        assert!(attempt["attemptTime"].is_string(), "{attempt}");
    }
    assert_eq!(
        delivery["attempts"][0]["error"],
        "the endpoint answered 500"
    );
    assert!(delivery["attempts"][3].get("error").is_none(), "{delivery}");

    let page = server
        .get("/v1alpha/webhookEndpoints/crm-hook/deliveries")
        .ok();
    assert_eq!(
        page["deliveries"],
        json!([delivery]),
        "one delivery for the one event"
    );
    let filtered = server
        .get("/v1alpha/webhookEndpoints/crm-hook/deliveries?filter=state%20%3D%20FAILED")
        .ok();
    assert!(
        filtered["deliveries"].as_array().is_none_or(Vec::is_empty),
        "{filtered}"
    );

    let queued = server.post(&format!("{path}:redeliver"), &json!({})).ok();
    assert_eq!(queued["state"], "PENDING", "{queued}");
    assert!(queued["nextAttemptTime"].is_string(), "{queued}");
    assert_eq!(
        next(&told).headers["webhook-id"],
        id,
        "a redelivery keeps the webhook-id"
    );
    let redelivered = delivery_with(&server, &path, 5);
    assert_eq!(redelivered["state"], "SUCCEEDED", "{redelivered}");
    server
        .post(&format!("{path}:redeliver"), &json!({"force": true}))
        .invalid("UNKNOWN_FIELD", "redeliver.force");
    server
        .get("/v1alpha/webhookEndpoints/crm-hook/deliveries/nothing")
        .error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
    server
        .get("/v1alpha/webhookEndpoints/nothing/deliveries")
        .error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
}

/// A receiver that is down for the whole schedule: after five deliveries in a row fail
/// for good, the endpoint is DISABLED and an alert of the type
/// `webhook-endpoint-disabled` tells the tenant.
fn a_receiver_down_for_good_gets_its_endpoint_disabled(server: Server) {
    let (url, _told) = receiver(vec![500; 1000]);
    server
        .post(
            "/v1alpha/webhookEndpoints?webhookEndpointId=down-hook",
            &json!({"url": url, "eventTypes": ["entity.created"]}),
        )
        .ok();
    for i in 0..5 {
        server
            .post(
                &format!("{ENTITIES}?entityId=person-{i}"),
                &person("Jane Doe"),
            )
            .ok();
    }
    let started = Instant::now();
    let endpoint = loop {
        let endpoint = server.get("/v1alpha/webhookEndpoints/down-hook").ok();
        if endpoint["state"] == "DISABLED" {
            break endpoint;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "{endpoint}");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(endpoint["state"], "DISABLED");
    let page = server
        .get("/v1alpha/webhookEndpoints/down-hook/deliveries")
        .ok();
    let states: Vec<&Value> = page["deliveries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| &d["state"])
        .collect();
    assert_eq!(states, [&json!("FAILED"); 5], "{page}");
    let alerts = server.get("/v1alpha/alerts?pageSize=1000").ok();
    let raised: Vec<&Value> = alerts["alerts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["alertType"] == "alertTypes/webhook-endpoint-disabled")
        .collect();
    assert_eq!(raised.len(), 1, "{alerts}");
}

mod a_receiver_down_for_good_gets_its_endpoint_disabled {
    use super::*;

    #[test]
    fn sqlite() {
        super::a_receiver_down_for_good_gets_its_endpoint_disabled(Server::start_with(
            Backend::Sqlite,
            quick_retries,
        ));
    }

    #[test]
    fn postgres() {
        super::a_receiver_down_for_good_gets_its_endpoint_disabled(Server::start_with(
            Backend::Postgres,
            quick_retries,
        ));
    }
}

/// Retries a few milliseconds apart, so the whole schedule runs in about a second.
fn quick_retries(config: &mut rics::config::Config) {
    config.webhook_retry_schedule = RetrySchedule::parse("20ms,20ms,20ms,20ms").unwrap();
}

mod a_failing_receiver_gets_the_message_until_it_accepts {
    use super::*;

    #[test]
    fn sqlite() {
        super::a_failing_receiver_gets_the_message_until_it_accepts(Server::start_with(
            Backend::Sqlite,
            quick_retries,
        ));
    }

    #[test]
    fn postgres() {
        super::a_failing_receiver_gets_the_message_until_it_accepts(Server::start_with(
            Backend::Postgres,
            quick_retries,
        ));
    }
}

/// The referee's version: `make standardwebhooks-referee` installs it.
const REFEREE_VERSION: &str = "1.1.0";

/// Asks the Standard Webhooks referee (the `standardwebhooks` package from PyPI, an
/// implementation independent of ours, run by `scripts/standardwebhooks_referee.py`)
/// whether `received`, its headers and body as they arrived, is signed with `secret`.
/// Its Python is `RICS_STANDARDWEBHOOKS_PYTHON`, else the venv under target/.
pub(crate) fn signed_with(received: &Received, secret: &str) -> bool {
    use base64::Engine;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let python = std::env::var_os("RICS_STANDARDWEBHOOKS_PYTHON")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("target/standardwebhooks-venv/bin/python"));
    let requests = [
        json!({"op": "version"}),
        json!({
            "op": "verify",
            "secret": secret,
            "headers": received.headers,
            "body": base64::engine::general_purpose::STANDARD.encode(&received.raw),
        }),
    ];
    let input: String = requests.iter().map(|r| format!("{r}\n")).collect();
    let mut child = std::process::Command::new(&python)
        .arg(root.join("scripts/standardwebhooks_referee.py"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "the Standard Webhooks referee ({}) is unavailable: {e}. Run `make \
                 standardwebhooks-referee` at the workspace root, or set \
                 RICS_STANDARDWEBHOOKS_PYTHON to a Python that has standardwebhooks=={REFEREE_VERSION}.",
                python.display()
            )
        });
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let answers: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(
        answers.first().map(|a| &a["version"]),
        Some(&json!(REFEREE_VERSION)),
        "the referee answered {answers:?}: run `make standardwebhooks-referee`"
    );
    let verdict = &answers[1];
    assert!(
        verdict.get("valid").is_some(),
        "the referee failed: {verdict}"
    );
    verdict["valid"] == true
}

/// An automation that notifies `target` (`url` or `endpoint`) with a message of
/// `kyc.screened` about the entity it is given.
fn notifier(target: (&str, &str)) -> Value {
    json!({
        "displayName": "Notifier",
        "inputSchema": {"entity": {"type": "string"}},
        "steps": [{"key": "hook", "kind": "NOTIFY_WEBHOOK", "args": {
            target.0: target.1, "eventType": "kyc.screened", "data": "${parameters.entity}"}}]
    })
}

/// Runs the automation `id` about `entity` and waits for it to succeed.
fn run(server: &Server, id: &str, entity: &str) {
    let operation = server
        .post(
            &format!("/v1alpha/automations/{id}:run"),
            &json!({"parameters": {"entity": entity}}),
        )
        .ok();
    let done = server.wait_for(&operation);
    assert_eq!(done["response"]["state"], "SUCCEEDED", "{done}");
}

on_both_backends! {
    /// A NOTIFY_WEBHOOK step to a URL: the message is signed with the tenant's secret,
    /// made on first use and shown by `:rotateWebhookSecret`; after a rotation both
    /// the new and the old secret sign, and the delivery is read under
    /// `webhookEndpoints/-`. Another tenant's secret cannot be rotated.
    fn url_deliveries_are_signed_with_the_tenants_secret_which_rotates(server) {
        let (url, told) = receiver(vec![]);
        server.create_person("notified-one", "Notified One");
        server.post("/v1alpha/automations?automationId=notifier", &notifier(("url", &url))).ok();
        run(&server, "notifier", "entities/notified-one");
        let first = next(&told);
        assert_eq!(first.body["type"], "automation_execution.notified", "{}", first.body);
        assert_eq!(
            first.body["data"]["object"],
            json!({"eventType": "kyc.screened", "data": "entities/notified-one"})
        );
        let id = first.headers["webhook-id"].clone();
        assert_eq!(first.body["data"]["event"], format!("entities/notified-one/events/{id}"));

        let rotated = server.post("/v1alpha/tenants/current:rotateWebhookSecret", &json!({})).ok();
        let tenant = server.get("/v1alpha/tenants/current").ok()["name"].clone();
        assert_eq!(rotated["tenant"], tenant);
        let new = rotated["secret"].as_str().unwrap().to_owned();
        assert!(new.starts_with("whsec_"), "{rotated}");
        let old_until = rotated["previousSecretExpireTime"].as_str().unwrap_or_else(|| {
            panic!("the secret made at first use was replaced: {rotated}")
        });
        assert!(!signed_with(&first, &new), "the first message was signed before the rotation");

        run(&server, "notifier", "entities/notified-one");
        let second = next(&told);
        assert!(signed_with(&second, &new), "{:?}", second.headers);
        assert_eq!(second.headers["webhook-signature"].split(' ').count(), 2, "and the old one, until {old_until}");

        let again = server.post("/v1alpha/tenants/current:rotateWebhookSecret", &json!({})).ok();
        run(&server, "notifier", "entities/notified-one");
        let third = next(&told);
        let newest = again["secret"].as_str().unwrap();
        assert!(signed_with(&third, newest) && signed_with(&third, &new), "{:?}", third.headers);

        let path = format!("/v1alpha/webhookEndpoints/-/deliveries/{id}");
        let delivery = delivery_with(&server, &path, 1);
        assert_eq!(delivery["name"], format!("webhookEndpoints/-/deliveries/{id}"));
        assert_eq!(delivery["url"], url);
        assert_eq!(delivery["state"], "SUCCEEDED", "{delivery}");
        assert_eq!(delivery["eventType"], "automation_execution.notified");
        let page = server.get("/v1alpha/webhookEndpoints/-/deliveries").ok();
        assert_eq!(array(&page["deliveries"]).len(), 3, "{page}");

        server.post("/v1alpha/tenants/someone-else:rotateWebhookSecret", &json!({}))
            .error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
        server.post("/v1alpha/tenants/current:rotateWebhookSecret", &json!({"etag": "x"}))
            .invalid("UNKNOWN_FIELD", "rotateWebhookSecret.etag");
        let (_, child) = server.child_tenant("Child");
        let theirs = server.send(server.request_as(Some(&child), Method::GET, &path));
        theirs.error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
    }

    /// A NOTIFY_WEBHOOK step to an endpoint reaches it whatever the types it
    /// subscribes to, signed with the endpoint's secret; after `:rotateSecret` with
    /// the new and the old one.
    fn endpoint_notifications_reach_the_endpoint_named(server) {
        let (url, told) = receiver(vec![]);
        let endpoint = server
            .post(
                "/v1alpha/webhookEndpoints?webhookEndpointId=ops-hook",
                &json!({"url": url, "eventTypes": ["alert.resolved"]}),
            )
            .ok();
        server.create_person("ops-one", "Ops One");
        server
            .post(
                "/v1alpha/automations?automationId=ops-notifier",
                &notifier(("endpoint", "webhookEndpoints/ops-hook")),
            )
            .ok();
        run(&server, "ops-notifier", "entities/ops-one");
        let got = next(&told);
        assert_eq!(got.body["data"]["object"]["eventType"], "kyc.screened");
        assert!(signed_with(&got, endpoint["secret"].as_str().unwrap()), "{:?}", got.headers);
        let id = &got.headers["webhook-id"];
        let delivery = delivery_with(
            &server,
            &format!("/v1alpha/webhookEndpoints/ops-hook/deliveries/{id}"),
            1,
        );
        assert_eq!(delivery["state"], "SUCCEEDED", "{delivery}");
        assert!(delivery.get("url").is_none(), "{delivery}");

        let rotated = server.post("/v1alpha/webhookEndpoints/ops-hook:rotateSecret", &json!({})).ok();
        run(&server, "ops-notifier", "entities/ops-one");
        let both = next(&told);
        let (old, new) = (endpoint["secret"].as_str().unwrap(), rotated["secret"].as_str().unwrap());
        assert!(signed_with(&both, new) && signed_with(&both, old), "{:?}", both.headers);
        assert!(!signed_with(&both, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"), "a stranger's secret");
    }
}

on_both_backends! {
    /// Two tenants write at once, entities of the same ids, while each has an endpoint
    /// subscribed to every entity creation: each receiver gets exactly its own
    /// tenant's events, each signed with its own endpoint's secret, and no event of
    /// one tenant reaches the other's endpoint.
    fn a_busy_outbox_never_crosses_tenants(server) {
        const EACH: usize = 25;
        let (_, child) = server.child_tenant("Other");
        let owner = server.token().to_owned();
        let tenants = [("Partner", owner.as_str()), ("Other", child.as_str())];
        let mut receivers = Vec::new();
        for (label, token) in tenants {
            let (url, told) = receiver(vec![]);
            let endpoint = server
                .send(
                    server
                        .request_as(Some(token), Method::POST, "/v1alpha/webhookEndpoints?webhookEndpointId=all-hook")
                        .json(&json!({"url": url, "eventTypes": ["entity.created"]})),
                )
                .ok();
            receivers.push((label, told, endpoint["secret"].as_str().unwrap().to_owned()));
        }
        std::thread::scope(|scope| {
            for (label, token) in tenants {
                let server = &server;
                scope.spawn(move || {
                    for i in 0..EACH {
                        server
                            .send(
                                server
                                    .request_as(Some(token), Method::POST, &format!("{ENTITIES}?entityId=shared-{i}"))
                                    .json(&person(&format!("{label} Person"))),
                            )
                            .ok();
                    }
                });
            }
        });
        for (label, told, secret) in &receivers {
            let mut seen = std::collections::BTreeSet::new();
            for _ in 0..EACH {
                let got = next(told);
                let object = &got.body["data"]["object"];
                assert_eq!(object["displayName"], format!("{label} Person"), "{}", got.body);
                assert!(seen.insert(got.headers["webhook-id"].clone()), "one message per event");
                if seen.len() == 1 {
                    assert!(signed_with(&got, secret), "{:?}", got.headers);
                }
            }
            assert!(
                told.recv_timeout(Duration::from_millis(500)).is_err(),
                "{label}'s endpoint got more than its own {EACH} events"
            );
        }
    }
}

/// A receiver on 127.0.0.1 that misbehaves by path: `/big` answers 200 with a 10 MB
/// body, `/silent` reads the request and never answers, `/redirect` answers 302 to the
/// metadata address. Returns its base URL.
fn misbehaving_receiver() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request_line = String::new();
                let _ = reader.read_line(&mut request_line);
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                        break;
                    }
                    if let Some((name, value)) = line.split_once(':')
                        && name.eq_ignore_ascii_case("content-length")
                    {
                        length = value.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length];
                let _ = reader.read_exact(&mut body);
                if request_line.contains("/big") {
                    let size = 10 * 1024 * 1024;
                    let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {size}\r\n\r\n");
                    let _ = stream.write_all(head.as_bytes());
                    let _ = stream.write_all(&vec![b'x'; size]);
                } else if request_line.contains("/redirect") {
                    let answer = "HTTP/1.1 302 Found\r\nLocation: http://169.254.169.254/latest/meta-data\r\n\
                                  Content-Length: 0\r\nConnection: close\r\n\r\n";
                    let _ = stream.write_all(answer.as_bytes());
                } else {
                    std::thread::sleep(Duration::from_secs(30));
                }
            });
        }
    });
    base
}

/// The bounded attempt: a 10 MB answer is read only up to the 4 KiB excerpt, a
/// receiver that never answers runs into the timeout, and a redirect to an internal
/// address is the answer (retried as a failure), never followed.
fn misbehaving_receivers_cost_one_bounded_attempt(server: Server) {
    let base = misbehaving_receiver();
    for path in ["big", "silent", "redirect"] {
        server
            .post(
                &format!("/v1alpha/webhookEndpoints?webhookEndpointId={path}-hook"),
                &json!({"url": format!("{base}/{path}"), "eventTypes": ["entity.created"]}),
            )
            .ok();
    }
    server.create_person("bounded-one", "Bounded One");
    let page = server
        .get("/v1alpha/webhookEndpoints/big-hook/deliveries")
        .ok();
    let id = page["deliveries"][0]["name"]
        .as_str()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap()
        .to_owned();
    let delivery = |path: &str| {
        delivery_with(
            &server,
            &format!("/v1alpha/webhookEndpoints/{path}-hook/deliveries/{id}"),
            1,
        )
    };
    let big = delivery("big");
    assert_eq!(big["state"], "SUCCEEDED", "{big}");
    let excerpt = big["attempts"][0]["responseExcerpt"].as_str().unwrap();
    assert!(
        !excerpt.is_empty() && excerpt.len() <= 4096,
        "{}",
        excerpt.len()
    );
    let redirect = delivery("redirect");
    assert_eq!(redirect["state"], "FAILED", "{redirect}");
    assert_eq!(redirect["attempts"][0]["statusCode"], 302, "{redirect}");
    assert_eq!(array(&redirect["attempts"]).len(), 1, "{redirect}");
    let silent = delivery("silent");
    assert_eq!(silent["state"], "FAILED", "{silent}");
    assert!(
        silent["attempts"][0].get("statusCode").is_none(),
        "{silent}"
    );
    let error = silent["attempts"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("no answer within") || error.contains("timed out"),
        "{error}"
    );
    let latency: f64 = silent["attempts"][0]["latency"]
        .as_str()
        .unwrap()
        .trim_end_matches('s')
        .parse()
        .unwrap();
    assert!(
        (0.9..5.0).contains(&latency),
        "the 1 s timeout applies: {latency}"
    );
}

/// One attempt (an empty schedule) of at most a second.
fn one_short_attempt(config: &mut rics::config::Config) {
    config.webhook_retry_schedule = RetrySchedule::parse("").unwrap();
    config.webhook_timeout = Duration::from_secs(1);
}

mod misbehaving_receivers_cost_one_bounded_attempt {
    use super::*;

    #[test]
    fn sqlite() {
        super::misbehaving_receivers_cost_one_bounded_attempt(Server::start_with(
            Backend::Sqlite,
            one_short_attempt,
        ));
    }

    #[test]
    fn postgres() {
        super::misbehaving_receivers_cost_one_bounded_attempt(Server::start_with(
            Backend::Postgres,
            one_short_attempt,
        ));
    }
}
