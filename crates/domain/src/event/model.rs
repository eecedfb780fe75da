//! The `Event` resource as the API shows it.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::Serialize;

use crate::time::Timestamp;

/// A stored event: `events/{event}` (tenant level) or
/// `entities/{entity}/events/{event}` (about one entity).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// The resource name.
    pub name: String,
    /// `{resource}.{verb}` in lower snake case, such as `entity.tag_added`.
    pub event_type: String,
    /// Base64 of the JSON payload: `resource`, `principal`, `changes` (each changed
    /// top-level field with its value `before` and `after`) and `object` (the resource
    /// as it was when the event was written, for changes of a resource).
    pub event_payload: String,
    /// When the change happened.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = DateTime))]
    pub create_time: Timestamp,
    /// The subject (user or client id) of the principal that made the change.
    pub creator: String,
}

/// An event as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct EventRecord {
    /// The event id.
    pub id: String,
    /// The entity, for entity-scoped events.
    pub entity_id: Option<String>,
    /// `{resource}.{verb}`.
    pub event_type: String,
    /// The JSON payload, as stored.
    pub payload: String,
    /// The principal's subject.
    pub creator: String,
    /// When the change happened.
    pub create_time: Timestamp,
}

impl EventRecord {
    /// The resource name of the event.
    pub fn name(&self) -> String {
        match &self.entity_id {
            Some(entity) => format!("entities/{entity}/events/{}", self.id),
            None => format!("events/{}", self.id),
        }
    }

    /// The API resource: the payload base64-encoded, as the spec's `bytes` field.
    pub fn into_event(self) -> Event {
        Event {
            name: self.name(),
            event_type: self.event_type,
            event_payload: STANDARD.encode(self.payload.as_bytes()),
            create_time: self.create_time,
            creator: self.creator,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_payloads_follow_the_spec() {
        let record = EventRecord {
            id: "e1".into(),
            entity_id: Some("jane".into()),
            event_type: "entity.created".into(),
            payload: r#"{"resource":"entities/jane"}"#.into(),
            creator: "client-1".into(),
            create_time: Timestamp::from_unix_micros(0).unwrap(),
        };
        let event = record.clone().into_event();
        assert_eq!(event.name, "entities/jane/events/e1");
        assert_eq!(
            STANDARD.decode(&event.event_payload).unwrap(),
            br#"{"resource":"entities/jane"}"#
        );
        let tenant_level = EventRecord {
            entity_id: None,
            ..record
        };
        assert_eq!(tenant_level.name(), "events/e1");
    }
}
