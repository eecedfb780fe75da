//! Webhook deliveries over HTTP, to a receiver inside the test: the Standard Webhooks
//! headers and the message body, the retries of a receiver that fails before it
//! accepts (one delivery, every attempt logged), `:redeliver`, and the disabling of an
//! endpoint whose receiver is down for the whole schedule.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rics_domain::webhook::RetrySchedule;
use rics_e2e::*;
use serde_json::{Value, json};

/// A request the receiver got: its headers (names in lower case) and its body.
struct Received {
    headers: BTreeMap<String, String>,
    body: Value,
}

/// A receiver on 127.0.0.1 (which the test servers allow): it answers the requests it
/// gets with `statuses` in turn, then 200 to every later one, and hands each request
/// over. Returns its URL.
fn receiver(statuses: Vec<u16>) -> (String, mpsc::Receiver<Received>) {
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
            let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
            if tell.send(Received { headers, body }).is_err() {
                return;
            }
        }
    });
    (url, told)
}

/// The next request the receiver got, within 15 s.
fn next(told: &mpsc::Receiver<Received>) -> Received {
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
    server
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
