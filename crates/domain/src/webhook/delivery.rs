//! Webhook deliveries (`webhookEndpoints/{endpoint}/deliveries/{delivery}`): one per
//! event and subscribed endpoint, queued in the transaction that writes the event (so
//! a change that rolls back queues nothing), sent by the [`DeliveryWorker`]
//! (`super::dispatch`) and readable, with every attempt, by the tenant's admins.
//!
//! [`DeliveryWorker`]: super::dispatch::DeliveryWorker

use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::model::SealedSecrets;
use crate::list::{ListQuery, Page};
use crate::principal::TenantId;
use crate::proto_enum;
use crate::repository::RepositoryError;
use crate::time::Timestamp;

proto_enum! {
    /// Where a delivery stands.
    pub enum DeliveryState("STATE_UNSPECIFIED") {
        /// Not delivered yet: waiting for its first attempt, a retry, an earlier
        /// delivery of the same entity, or its endpoint to be enabled again.
        Pending = "PENDING",
        /// The endpoint answered 2xx.
        Succeeded = "SUCCEEDED",
        /// Every attempt of the retry schedule failed.
        Failed = "FAILED",
    }
}

/// The endpoint id under which deliveries to URLs are kept and read
/// (`webhookEndpoints/-/deliveries/{delivery}`): no endpoint id can take it, since ids
/// start with a letter.
pub const URL_DELIVERIES: &str = "-";

/// The longest response excerpt kept of an attempt, in bytes.
pub const MAX_RESPONSE_EXCERPT: usize = 4096;

/// One attempt to deliver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeliveryAttempt {
    /// When the request was sent.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub attempt_time: Timestamp,
    /// The HTTP status the endpoint answered; absent when no answer came.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_code: Option<u16>,
    /// From sending to the answer (or the error), as a duration (`0.125s`).
    pub latency: String,
    /// The start of the answer's body, at most 4 KiB (cut at a character boundary).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub response_excerpt: String,
    /// Why the attempt failed without an answer, or why the answer is not a success.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub error: String,
}

/// A delivery as the API shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WebhookDelivery {
    /// `webhookEndpoints/{endpoint}/deliveries/{delivery}`; the delivery id is the
    /// event id and the `webhook-id` of every attempt.
    pub name: String,
    /// The event delivered (`events/{e}` or `entities/{entity}/events/{e}`).
    pub event: String,
    /// Its event type.
    pub event_type: String,
    /// Where a delivery to a URL (`webhookEndpoints/-/deliveries/{delivery}`) goes;
    /// absent for an endpoint's delivery.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub url: String,
    /// PENDING, SUCCEEDED or FAILED.
    pub state: DeliveryState,
    /// Every attempt, oldest first.
    pub attempts: Vec<DeliveryAttempt>,
    /// When it is tried next, while PENDING (unless its endpoint is disabled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, format = DateTime))]
    pub next_attempt_time: Option<Timestamp>,
}

/// A delivery as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct DeliveryRecord {
    /// The endpoint's id.
    pub endpoint_id: String,
    /// The event's id, which is the delivery's.
    pub id: String,
    /// The event's entity, for entity-scoped events.
    pub entity_id: Option<String>,
    /// The event type.
    pub event_type: String,
    /// The name of the resource the event is about.
    pub resource: String,
    /// The URL of a delivery to a URL (endpoint id [`URL_DELIVERIES`]); `None` for an
    /// endpoint's.
    pub url: Option<String>,
    /// Where it stands.
    pub state: DeliveryState,
    /// Attempts since it was queued or last redelivered.
    pub tries: u32,
    /// Every attempt.
    pub attempts: Vec<DeliveryAttempt>,
    /// When it may be tried next.
    pub run_after: Timestamp,
    /// When the event happened.
    pub create_time: Timestamp,
}

impl DeliveryRecord {
    /// The name of the event delivered.
    pub fn event_name(&self) -> String {
        match &self.entity_id {
            Some(entity) => format!("entities/{entity}/events/{}", self.id),
            None => format!("events/{}", self.id),
        }
    }

    /// The API resource.
    pub fn into_delivery(self) -> WebhookDelivery {
        WebhookDelivery {
            name: format!(
                "webhookEndpoints/{}/deliveries/{}",
                self.endpoint_id, self.id
            ),
            event: self.event_name(),
            next_attempt_time: (self.state == DeliveryState::Pending).then_some(self.run_after),
            event_type: self.event_type,
            url: self.url.unwrap_or_default(),
            state: self.state,
            attempts: self.attempts,
        }
    }
}

/// A delivery a worker claimed, with what sending it needs.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimedDelivery {
    /// The tenant.
    pub tenant: TenantId,
    /// The delivery.
    pub record: DeliveryRecord,
    /// The claim's token: finishing needs it still to hold.
    pub claim: String,
    /// The endpoint's URL now, or the delivery's own URL.
    pub url: String,
    /// The endpoint's signing secrets, sealed; for a delivery to a URL, the tenant's,
    /// empty when the tenant has none yet.
    pub secrets: SealedSecrets,
    /// The event's stored payload; `None` when the event was erased with its entity.
    pub payload: Option<String>,
}

/// How an attempt ends a claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeliveryOutcome {
    /// Delivered: SUCCEEDED.
    Delivered,
    /// Failed; tried again at `at`.
    Retry {
        /// When.
        at: Timestamp,
    },
    /// Failed for good: FAILED.
    Failed,
    /// The endpoint answered 410 Gone: the delivery stays PENDING (it goes out again
    /// once the endpoint is enabled) and the endpoint is to be disabled. Never for a
    /// delivery to a URL, which has no endpoint to disable: it fails for good.
    Gone,
}

/// Stores deliveries and hands them to workers. Queueing happens in the transaction of
/// each event (the outbox), never through this port. The queue methods work across
/// tenants; the others never see another tenant's rows. Any method may fail with
/// [`RepositoryError::Unavailable`] or [`RepositoryError::Internal`].
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait DeliveryRepository: Send + Sync {
    /// Claims up to `limit` ready deliveries of any tenant for `lease`, under the token
    /// `claim`: PENDING ones whose time has come, of an enabled endpoint that is not
    /// deleted, with no earlier PENDING delivery of the same entity (or tenant-level
    /// resource) to the same endpoint. Concurrent claimers never get the same one
    /// (`FOR UPDATE SKIP LOCKED` on PostgreSQL, the write lock on SQLite); a claim not
    /// finished by the end of its lease is claimed again (at-least-once).
    async fn claim(
        &self,
        claim: &str,
        now: Timestamp,
        lease: Duration,
        limit: u32,
    ) -> Result<Vec<ClaimedDelivery>, RepositoryError>;

    /// Records `attempt` and `outcome` on a claimed delivery if its claim still holds.
    /// Returns `None` when the claim was lost, else how many of the endpoint's
    /// deliveries that finished since it last changed failed in a row, the latest
    /// first (at most `streak_limit` are counted).
    async fn finish(
        &self,
        delivery: &ClaimedDelivery,
        attempt: &DeliveryAttempt,
        outcome: &DeliveryOutcome,
        now: Timestamp,
        streak_limit: u32,
    ) -> Result<Option<u32>, RepositoryError>;

    /// The delivery `id` to the endpoint `endpoint_id` of `tenant`.
    async fn get(
        &self,
        tenant: &TenantId,
        endpoint_id: &str,
        id: &str,
    ) -> Result<Option<DeliveryRecord>, RepositoryError>;

    /// A page of the endpoint's deliveries.
    async fn list(
        &self,
        tenant: &TenantId,
        endpoint_id: &str,
        query: &ListQuery,
    ) -> Result<Page<DeliveryRecord>, RepositoryError>;

    /// Queues the delivery again at `now`: PENDING, its retry schedule anew, its
    /// attempts kept. Returns it, or `None` when there is none.
    async fn redeliver(
        &self,
        tenant: &TenantId,
        endpoint_id: &str,
        id: &str,
        now: Timestamp,
    ) -> Result<Option<DeliveryRecord>, RepositoryError>;

    /// Removes up to `limit` deliveries of every tenant that finished before `cutoff`;
    /// returns how many.
    async fn purge_finished(&self, cutoff: Timestamp, limit: u32) -> Result<u64, RepositoryError>;
}

/// Whether an endpoint subscribed to `event_types` wants `event_type`: the type
/// itself, `prefix.*` of its prefix, or `*`.
pub fn subscribes(event_types: &[String], event_type: &str) -> bool {
    event_types.iter().any(|pattern| {
        pattern == "*"
            || pattern == event_type
            || pattern.strip_suffix(".*").is_some_and(|prefix| {
                event_type
                    .strip_prefix(prefix)
                    .is_some_and(|rest| rest.starts_with('.'))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_exact_types_prefixes_and_everything() {
        let patterns = |p: &[&str]| p.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert!(subscribes(&patterns(&["alert.created"]), "alert.created"));
        assert!(!subscribes(&patterns(&["alert.created"]), "alert.updated"));
        assert!(subscribes(&patterns(&["entity.*"]), "entity.tag_added"));
        assert!(!subscribes(&patterns(&["entity.*"]), "entity_x.created"));
        assert!(!subscribes(&patterns(&["entity.*"]), "alert.created"));
        assert!(subscribes(&patterns(&["*"]), "anything.at_all"));
        assert!(!subscribes(&[], "alert.created"));
    }

    #[test]
    fn a_delivery_is_named_under_its_endpoint_and_shows_its_next_attempt_while_pending() {
        let at = Timestamp::from_unix_micros(5_000_000).unwrap();
        let record = DeliveryRecord {
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
        };
        let pending = record.clone().into_delivery();
        assert_eq!(pending.name, "webhookEndpoints/ops/deliveries/e1");
        assert_eq!(pending.event, "entities/jane/events/e1");
        assert_eq!(pending.next_attempt_time, Some(at));
        let done = DeliveryRecord {
            state: DeliveryState::Succeeded,
            entity_id: None,
            ..record.clone()
        }
        .into_delivery();
        assert_eq!(done.event, "events/e1");
        assert_eq!(done.next_attempt_time, None);
        assert!(done.url.is_empty());
        let to_url = DeliveryRecord {
            endpoint_id: URL_DELIVERIES.into(),
            url: Some("https://hooks.example.com/jobs".into()),
            ..record
        }
        .into_delivery();
        assert_eq!(to_url.name, "webhookEndpoints/-/deliveries/e1");
        assert_eq!(to_url.url, "https://hooks.example.com/jobs");
    }
}
