//! The outbox side of events: what a change appends, in its own transaction.

use serde_json::{Map, Value, json};

use crate::principal::Principal;
use crate::time::Timestamp;

/// An event to append with a change.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEvent {
    /// The event id (a UUID v7).
    pub id: String,
    /// The entity the event belongs to, for entity-scoped events
    /// (`entities/{e}/events/{id}`); `None` for tenant-level events (`events/{id}`).
    pub entity_id: Option<String>,
    /// `{resource}.{verb}` in lower snake case, such as `entity.created`.
    pub event_type: String,
    /// The payload: the resource name, the principal, the changed fields and, for a
    /// change of a resource, its snapshot (`object`).
    pub payload: Value,
    /// The subject of the principal that made the change.
    pub creator: String,
    /// When the change happened.
    pub create_time: Timestamp,
    /// Where the event is delivered beside the endpoints that subscribe to its type;
    /// the delivery is queued in the event's own transaction.
    pub deliver_to: Option<DirectDelivery>,
}

/// A delivery of one event asked for by the code that writes it, whatever the
/// subscriptions of the tenant's endpoints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DirectDelivery {
    /// To a URL (a job's `webhookUri`, a NOTIFY_WEBHOOK step's `url`), signed with the
    /// tenant's webhook signing secret; readable under `webhookEndpoints/-/deliveries`.
    /// The URL must have passed [`check_webhook_uri`](crate::webhook::target::check_webhook_uri).
    Url(String),
    /// To the tenant's endpoint with this id (a NOTIFY_WEBHOOK step's `endpoint`), when
    /// it is enabled and not deleted.
    Endpoint(String),
}

impl NewEvent {
    /// A tenant-level event about `resource`, made by `principal` at `now`, with an
    /// empty change set.
    pub fn new(
        id: String,
        event_type: &str,
        resource: &str,
        principal: &Principal,
        now: Timestamp,
    ) -> NewEvent {
        NewEvent {
            id,
            entity_id: None,
            event_type: event_type.to_owned(),
            payload: json!({
                "resource": resource,
                "principal": principal.subject,
                "changes": {},
            }),
            creator: principal.subject.clone(),
            create_time: now,
            deliver_to: None,
        }
    }

    /// The same event, delivered to `url` as well as to the endpoints subscribed to its
    /// type, through the webhook outbox: queued in the event's transaction (nothing for
    /// one that rolls back), sent in order with the other deliveries of its entity to
    /// that URL, its address checked again at each attempt, retried on the endpoints'
    /// schedule, signed with the tenant's webhook signing secret. One target per event:
    /// a later call replaces an earlier one.
    #[must_use]
    pub fn deliver_to(mut self, url: impl Into<String>) -> NewEvent {
        self.deliver_to = Some(DirectDelivery::Url(url.into()));
        self
    }

    /// The same event, delivered to the tenant's endpoint `endpoint_id` whatever the
    /// event types it subscribes to.
    #[must_use]
    pub fn deliver_to_endpoint(mut self, endpoint_id: impl Into<String>) -> NewEvent {
        self.deliver_to = Some(DirectDelivery::Endpoint(endpoint_id.into()));
        self
    }

    /// The same event, scoped to the entity `entity_id`.
    #[must_use]
    pub fn for_entity(mut self, entity_id: &str) -> NewEvent {
        self.entity_id = Some(entity_id.to_owned());
        self
    }

    /// The same event with one more top-level payload field.
    #[must_use]
    pub fn with_field(mut self, key: &str, value: Value) -> NewEvent {
        if let Some(payload) = self.payload.as_object_mut() {
            payload.insert(key.to_owned(), value);
        }
        self
    }

    /// The same event, recording the top-level fields that differ between `before` and
    /// `after` (either may be absent, for creations and removals), and the resource as
    /// it was when the event was written (`object`: `after`, or `before` for a
    /// removal). Webhook deliveries send that snapshot, so a later change of the
    /// resource does not alter what an event tells.
    #[must_use]
    pub fn with_changes(mut self, before: Option<&Value>, after: Option<&Value>) -> NewEvent {
        if let Some(payload) = self.payload.as_object_mut() {
            payload.insert("changes".into(), changed_fields(before, after));
            if let Some(object) = after.or(before) {
                payload.insert("object".into(), object.clone());
            }
        }
        self
    }
}

/// The top-level fields whose values differ, as `{field: {"before": .., "after": ..}}`;
/// a side where the field is absent is left out.
fn changed_fields(before: Option<&Value>, after: Option<&Value>) -> Value {
    let empty = Map::new();
    let before = before.and_then(Value::as_object).unwrap_or(&empty);
    let after = after.and_then(Value::as_object).unwrap_or(&empty);
    let mut changes = Map::new();
    for key in before.keys().chain(after.keys()) {
        if changes.contains_key(key) || matches!(key.as_str(), "etag" | "updateTime") {
            continue;
        }
        let (old, new) = (before.get(key), after.get(key));
        if old != new {
            let mut change = Map::new();
            if let Some(old) = old {
                change.insert("before".into(), old.clone());
            }
            if let Some(new) = new {
                change.insert("after".into(), new.clone());
            }
            changes.insert(key.clone(), Value::Object(change));
        }
    }
    Value::Object(changes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_resource_is_kept_as_it_was_when_the_event_was_written() {
        let principal = Principal {
            tenant: crate::principal::TenantId::new("t1"),
            subject: "alice".into(),
            display_name: "Alice".into(),
            scopes: Default::default(),
        };
        let now = Timestamp::from_unix_micros(0).unwrap();
        let before = json!({"displayName": "A"});
        let after = json!({"displayName": "B"});
        let event = || NewEvent::new("e1".into(), "entity.updated", "entities/a", &principal, now);
        let changed = event().with_changes(Some(&before), Some(&after));
        assert_eq!(changed.payload["object"], after);
        let removed = event().with_changes(Some(&before), None);
        assert_eq!(removed.payload["object"], before);
        assert!(event().payload.get("object").is_none());
    }

    #[test]
    fn only_changed_fields_are_recorded() {
        let before = json!({"displayName": "A", "tags": ["x"], "etag": "\"1\""});
        let after = json!({"displayName": "B", "tags": ["x"], "etag": "\"2\"", "legalHold": true});
        assert_eq!(
            changed_fields(Some(&before), Some(&after)),
            json!({
                "displayName": {"before": "A", "after": "B"},
                "legalHold": {"after": true}
            })
        );
    }
}
