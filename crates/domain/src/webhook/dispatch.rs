//! The worker side of webhook deliveries: claim ready deliveries with a lease, check
//! where the endpoint's URL leads now (after DNS, so rebinding gets no further), sign
//! the message as Standard Webhooks says (with the `standardwebhooks` crate), post it
//! through the [`WebhookSender`] port, and record the attempt. 2xx is delivered; 410
//! disables the endpoint; anything else is retried on the [`RetrySchedule`], with
//! jitter, until it fails for good. After [`FAILURES_BEFORE_DISABLING`] deliveries in a
//! row fail for good, the endpoint is disabled and an alert of the type
//! `webhook-endpoint-disabled` is raised; its pending deliveries wait until it is
//! enabled again. A delivery to a URL (a job's `webhookUri`) is signed with the
//! tenant's secret; a 410 fails it for good, and no endpoint is disabled for it.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures_util::future::join_all;
use serde_json::{Value, json};
use standardwebhooks::Webhook;

use super::delivery::{ClaimedDelivery, DeliveryAttempt, DeliveryOutcome, DeliveryRepository};
use super::model::SealedSecrets;
use super::ports::{HostResolver, SecretCipher};
use super::service::WebhookEndpointService;
use super::target::TargetPolicy;
use super::tenant_secret::TenantSecretService;
use crate::alert::AlertService;
use crate::alert::model::{NewAlert, WEBHOOK_ENDPOINT_DISABLED};
use crate::error::Result;
use crate::id::IdGenerator;
use crate::job::model::worker_principal;
use crate::time::{Clock, Timestamp};

/// Deliveries in a row that fail for good before their endpoint is disabled.
pub const FAILURES_BEFORE_DISABLING: u32 = 5;

/// The default retry schedule: the waits after each failed attempt, about a day and
/// a quarter in all (eight attempts).
pub const DEFAULT_RETRY_SCHEDULE: &str = "5s,5m,30m,2h,5h,10h,10h";

/// The waits between the attempts of a delivery: after the first failure the first
/// wait, and so on; once they are used up the delivery fails for good. Each wait is
/// drawn at random between 80 % and 120 % of its value (jitter), so that receivers
/// that come back are not hit by every retry at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetrySchedule(Vec<Duration>);

impl RetrySchedule {
    /// The schedule of `text`: comma-separated durations, each a number followed by
    /// `ms`, `s`, `m` or `h` (`5s,5m,30m,2h`); empty for a single attempt.
    ///
    /// # Errors
    /// A description of an item that is not such a duration.
    pub fn parse(text: &str) -> std::result::Result<RetrySchedule, String> {
        text.split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(|item| {
                let split = item
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(item.len());
                let (number, unit) = item.split_at(split);
                let number: u64 = number
                    .parse()
                    .map_err(|_| format!("'{item}' is not a duration such as 5s or 2h"))?;
                let unit_millis = match unit {
                    "ms" => 1,
                    "s" => 1_000,
                    "m" => 60_000,
                    "h" => 3_600_000,
                    _ => return Err(format!("'{item}' must end with ms, s, m or h")),
                };
                Ok(Duration::from_millis(number.saturating_mul(unit_millis)))
            })
            .collect::<std::result::Result<Vec<_>, _>>()
            .map(RetrySchedule)
    }

    /// The wait after the failed attempt number `tries` (1-based), scaled by `jitter`
    /// (between 0 and 1: 0.8 to 1.2 of the wait); `None` when the schedule is used up.
    pub fn wait(&self, tries: u32, jitter: f64) -> Option<Duration> {
        let index = usize::try_from(tries).ok()?.checked_sub(1)?;
        self.0
            .get(index)
            .map(|wait| wait.mul_f64(0.8 + 0.4 * jitter.clamp(0.0, 1.0)))
    }
}

impl Default for RetrySchedule {
    fn default() -> RetrySchedule {
        RetrySchedule::parse(DEFAULT_RETRY_SCHEDULE).unwrap_or(RetrySchedule(Vec::new()))
    }
}

/// One signed message to post.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookRequest {
    /// The endpoint's URL.
    pub url: String,
    /// Its host, as the URL gives it.
    pub host: String,
    /// The addresses it was checked to lead to: the request goes to these only, so
    /// that a second DNS answer cannot send it elsewhere.
    pub addresses: Vec<IpAddr>,
    /// Its port.
    pub port: u16,
    /// The Standard Webhooks headers.
    pub headers: Vec<(&'static str, String)>,
    /// The JSON body.
    pub body: String,
    /// How long the attempt may take, answer included.
    pub timeout: Duration,
}

/// What an endpoint answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookResponse {
    /// The HTTP status.
    pub status: u16,
    /// The start of the body, at most
    /// [`MAX_RESPONSE_EXCERPT`](super::delivery::MAX_RESPONSE_EXCERPT) bytes: the rest is
    /// never read.
    pub excerpt: String,
}

/// Posts webhook messages: no redirect followed, the timeout kept, the body read only
/// up to the excerpt.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait WebhookSender: Send + Sync {
    /// Posts `request` and returns the answer, whatever its status.
    ///
    /// # Errors
    /// A description when no answer came (connection refused, timeout).
    async fn post(&self, request: &WebhookRequest) -> std::result::Result<WebhookResponse, String>;
}

/// How the worker sends.
#[derive(Debug, Clone, PartialEq)]
pub struct DeliverySettings {
    /// How long a claim lasts.
    pub lease: Duration,
    /// Most deliveries claimed, and sent concurrently, at once.
    pub batch: u32,
    /// The waits between attempts.
    pub schedule: RetrySchedule,
    /// The timeout of each attempt (at most 10 s).
    pub timeout: Duration,
}

impl Default for DeliverySettings {
    fn default() -> DeliverySettings {
        DeliverySettings {
            lease: Duration::from_secs(60),
            batch: 16,
            schedule: RetrySchedule::default(),
            timeout: Duration::from_secs(10),
        }
    }
}

/// What the worker uses.
pub struct DeliveryPorts {
    /// The queue.
    pub deliveries: Arc<dyn DeliveryRepository>,
    /// Posts messages.
    pub sender: Arc<dyn WebhookSender>,
    /// Opens the sealed signing secrets; `None` when no key is configured.
    pub cipher: Option<Arc<dyn SecretCipher>>,
    /// Resolves endpoint hosts.
    pub resolver: Arc<dyn HostResolver>,
    /// What the operator allows beyond public https URLs.
    pub policy: TargetPolicy,
    /// Disables endpoints.
    pub endpoints: Arc<WebhookEndpointService>,
    /// The tenants' signing secrets, for deliveries to URLs.
    pub tenant_secrets: Arc<TenantSecretService>,
    /// Raises the alert of a disabled endpoint.
    pub alerts: Arc<AlertService>,
    /// The clock.
    pub clock: Arc<dyn Clock>,
    /// Claim tokens and alert ids.
    pub ids: Arc<dyn IdGenerator>,
}

/// Sends queued deliveries.
pub struct DeliveryWorker {
    ports: DeliveryPorts,
    settings: DeliverySettings,
}

impl DeliveryWorker {
    /// A worker over `ports` with `settings`.
    pub fn new(ports: DeliveryPorts, settings: DeliverySettings) -> DeliveryWorker {
        DeliveryWorker { ports, settings }
    }

    /// Claims a batch of ready deliveries and sends them concurrently; returns how
    /// many it claimed (0: nothing was ready).
    ///
    /// # Errors
    /// UNAVAILABLE or INTERNAL when the queue cannot be read or an attempt cannot be
    /// recorded (the claim then runs out and the delivery is sent again).
    pub async fn run_once(&self) -> Result<usize> {
        let now = self.ports.clock.now();
        let claimed = self
            .ports
            .deliveries
            .claim(
                &self.ports.ids.uid(),
                now,
                self.settings.lease,
                self.settings.batch,
            )
            .await?;
        let results = join_all(claimed.iter().map(|d| self.deliver(d))).await;
        results.into_iter().collect::<Result<Vec<()>>>()?;
        Ok(claimed.len())
    }

    /// Sends one claimed delivery and records how it went.
    async fn deliver(&self, delivery: &ClaimedDelivery) -> Result<()> {
        let started = self.ports.clock.now();
        let answer = self.attempt(delivery, started).await;
        let now = self.ports.clock.now();
        let mut attempt = DeliveryAttempt {
            attempt_time: started,
            status_code: None,
            latency: format!("{:.3}s", now.since(started).as_secs_f64()),
            response_excerpt: String::new(),
            error: String::new(),
        };
        let tries = delivery.record.tries.saturating_add(1);
        let outcome = match answer {
            Ok(response) => {
                attempt.status_code = Some(response.status);
                attempt.response_excerpt = response.excerpt;
                match response.status {
                    200..=299 => DeliveryOutcome::Delivered,
                    410 if delivery.record.url.is_some() => {
                        attempt.error = "the URL answered 410 Gone: not tried again".into();
                        DeliveryOutcome::Failed
                    }
                    410 => {
                        attempt.error = "the endpoint answered 410 Gone: it is disabled".into();
                        DeliveryOutcome::Gone
                    }
                    status => {
                        attempt.error = format!("the endpoint answered {status}");
                        self.retry_or_fail(tries, now)
                    }
                }
            }
            Err(error) => {
                attempt.error = error;
                self.retry_or_fail(tries, now)
            }
        };
        let streak = self
            .ports
            .deliveries
            .finish(delivery, &attempt, &outcome, now, FAILURES_BEFORE_DISABLING)
            .await?;
        let disable = match (&outcome, streak) {
            _ if delivery.record.url.is_some() => None,
            (DeliveryOutcome::Gone, Some(_)) => Some("it answered 410 Gone".to_owned()),
            (DeliveryOutcome::Failed, Some(streak)) if streak >= FAILURES_BEFORE_DISABLING => {
                Some(format!("{streak} deliveries in a row failed for good"))
            }
            _ => None,
        };
        match disable {
            Some(reason) => self.disable(delivery, &reason).await,
            None => Ok(()),
        }
    }

    /// Retried after the schedule's next wait, or failed for good when it is used up.
    fn retry_or_fail(&self, tries: u32, now: Timestamp) -> DeliveryOutcome {
        match self.settings.schedule.wait(tries, jitter()) {
            Some(wait) => DeliveryOutcome::Retry { at: now.plus(wait) },
            None => DeliveryOutcome::Failed,
        }
    }

    /// One attempt: check the URL, sign, post. An error says why no answer came.
    async fn attempt(
        &self,
        delivery: &ClaimedDelivery,
        now: Timestamp,
    ) -> std::result::Result<WebhookResponse, String> {
        let field = match delivery.record.url {
            Some(_) => "url",
            None => "webhookEndpoint.url",
        };
        let target = self
            .ports
            .policy
            .check_url(field, &delivery.url)
            .map_err(|e| e.message)?;
        let addresses = self
            .ports
            .policy
            .addresses(field, &target, self.ports.resolver.as_ref())
            .await
            .map_err(|e| e.message)?;
        let body = message(delivery)?.to_string();
        let webhook_id = delivery.record.id.clone();
        let timestamp = now.unix_micros().div_euclid(1_000_000);
        let secrets = self.secrets(delivery).await?;
        let signature = self.signatures(&secrets, &webhook_id, timestamp, &body, now)?;
        let request = WebhookRequest {
            url: target.url.to_string(),
            host: target.host,
            addresses,
            port: target.port,
            headers: vec![
                (standardwebhooks::HEADER_WEBHOOK_ID, webhook_id),
                (
                    standardwebhooks::HEADER_WEBHOOK_TIMESTAMP,
                    timestamp.to_string(),
                ),
                (standardwebhooks::HEADER_WEBHOOK_SIGNATURE, signature),
            ],
            body,
            timeout: self.settings.timeout,
        };
        self.ports.sender.post(&request).await
    }

    /// The sealed secrets that sign `delivery`: its endpoint's, or for a delivery to a
    /// URL the tenant's, made now when the tenant has none yet.
    async fn secrets(
        &self,
        delivery: &ClaimedDelivery,
    ) -> std::result::Result<SealedSecrets, String> {
        if delivery.record.url.is_none() || !delivery.secrets.current.is_empty() {
            return Ok(delivery.secrets.clone());
        }
        self.ports
            .tenant_secrets
            .signing(&delivery.tenant)
            .await
            .map_err(|e| format!("the tenant's signing secret: {}", e.message))
    }

    /// The `webhook-signature` header: `v1,` signatures under the current secret and,
    /// for a day after a rotation, the previous one, space-separated.
    fn signatures(
        &self,
        secrets: &SealedSecrets,
        id: &str,
        timestamp: i64,
        body: &str,
        now: Timestamp,
    ) -> std::result::Result<String, String> {
        let cipher = self
            .ports
            .cipher
            .as_ref()
            .ok_or("no secret key is configured to open the signing secret")?;
        let previous = secrets
            .previous
            .as_ref()
            .filter(|_| secrets.previous_expire_time.is_some_and(|end| now < end));
        std::iter::once(&secrets.current)
            .chain(previous)
            .map(|sealed| {
                let secret = cipher.open(sealed)?;
                Webhook::new(&secret)
                    .and_then(|w| w.sign(id, timestamp, body.as_bytes()))
                    .map_err(|e| format!("signing failed: {e}"))
            })
            .collect::<std::result::Result<Vec<_>, _>>()
            .map(|signatures| signatures.join(" "))
    }

    /// Disables the delivery's endpoint for `reason` and tells the tenant with an
    /// alert, once per disabling.
    async fn disable(&self, delivery: &ClaimedDelivery, reason: &str) -> Result<()> {
        let tenant = &delivery.tenant;
        let endpoint_id = &delivery.record.endpoint_id;
        let Some(endpoint) = self.ports.endpoints.disable(tenant, endpoint_id).await? else {
            return Ok(());
        };
        let details = json!({"webhookEndpoint": endpoint.name, "reason": reason});
        let alert = NewAlert {
            alert_type: format!("alertTypes/{WEBHOOK_ENDPOINT_DISABLED}"),
            title: "Webhook Endpoint Disabled".into(),
            description: format!(
                "{} was disabled because {reason}; its pending deliveries wait until it \
                 is enabled again.",
                endpoint.name
            ),
            details: details.as_object().cloned().unwrap_or_default(),
            ..NewAlert::default()
        };
        self.ports
            .alerts
            .raise(
                &worker_principal(tenant),
                &self.ports.ids.resource_id(),
                &endpoint.name,
                alert,
            )
            .await
            .map(|_| ())
    }
}

/// The Standard Webhooks body: `{type, timestamp, data: {event, eventType, resource,
/// object}}`, the object as the event stored it; for an erased event `erased: true`
/// and no object.
fn message(delivery: &ClaimedDelivery) -> std::result::Result<Value, String> {
    let record = &delivery.record;
    let mut data = json!({
        "event": record.event_name(),
        "eventType": record.event_type,
        "resource": record.resource,
    });
    match &delivery.payload {
        Some(payload) => {
            let payload: Value = serde_json::from_str(payload)
                .map_err(|e| format!("the stored event does not read back: {e}"))?;
            if let Some(object) = payload.get("object") {
                data["object"] = object.clone();
            }
        }
        None => data["erased"] = Value::Bool(true),
    }
    Ok(json!({
        "type": record.event_type,
        "timestamp": record.create_time.to_rfc3339(),
        "data": data,
    }))
}

/// A random number between 0 and 1 for the retry jitter; 0.5 (no jitter) when the
/// system has no randomness to give.
fn jitter() -> f64 {
    getrandom::u32().map_or(0.5, |r| f64::from(r) / f64::from(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::webhook::delivery::{DeliveryRecord, DeliveryState};

    fn claimed(payload: Option<&str>) -> ClaimedDelivery {
        let at = Timestamp::from_unix_micros(1_700_000_000_000_000).unwrap();
        ClaimedDelivery {
            tenant: crate::principal::TenantId::new("t1"),
            record: DeliveryRecord {
                endpoint_id: "ops".into(),
                id: "e1".into(),
                entity_id: Some("jane".into()),
                event_type: "entity.updated".into(),
                resource: "entities/jane".into(),
                url: None,
                state: DeliveryState::Pending,
                tries: 0,
                attempts: vec![],
                run_after: at,
                create_time: at,
            },
            claim: "c".into(),
            url: "https://hooks.example.com/".into(),
            secrets: super::super::model::SealedSecrets::default(),
            payload: payload.map(str::to_owned),
        }
    }

    #[test]
    fn the_schedule_reads_durations_and_jitters_each_wait() {
        let schedule = RetrySchedule::parse("100ms, 5s,2m,1h").unwrap();
        assert_eq!(schedule.wait(1, 0.5), Some(Duration::from_millis(100)));
        assert_eq!(schedule.wait(4, 0.5), Some(Duration::from_secs(3600)));
        assert_eq!(schedule.wait(5, 0.5), None, "used up: failed for good");
        assert_eq!(schedule.wait(2, 0.0), Some(Duration::from_secs(4)));
        assert_eq!(schedule.wait(2, 1.0), Some(Duration::from_secs(6)));
        assert!(RetrySchedule::parse("5x").is_err());
        assert!(RetrySchedule::parse("s").is_err());
        assert_eq!(RetrySchedule::parse("").unwrap().wait(1, 0.5), None);
        assert_eq!(
            RetrySchedule::default().wait(7, 0.5),
            Some(Duration::from_secs(36_000))
        );
    }

    #[test]
    fn the_message_carries_the_snapshot_or_says_it_was_erased() {
        let sent = message(&claimed(Some(r#"{"object": {"displayName": "Jane"}}"#))).unwrap();
        assert_eq!(
            sent,
            json!({
                "type": "entity.updated",
                "timestamp": "2023-11-14T22:13:20Z",
                "data": {"event": "entities/jane/events/e1", "eventType": "entity.updated",
                         "resource": "entities/jane", "object": {"displayName": "Jane"}}
            })
        );
        let erased = message(&claimed(None)).unwrap();
        assert_eq!(erased["data"]["erased"], true);
        assert!(erased["data"].get("object").is_none());
    }
}
