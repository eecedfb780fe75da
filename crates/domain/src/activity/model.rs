//! The activity log type (`activityLogTypes/{id}`) and the activity log
//! (`activityLogs/{id}`), in their JSON form.
//!
//! Field names are lowerCamelCase; unset fields (empty strings and lists, zero enums)
//! are omitted, as in proto3 JSON. Unknown fields are refused on input.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::proto_enum;
use crate::time::Timestamp;

proto_enum! {
    /// What kind of activity a log records.
    pub enum ActivityType("ACTIVITY_TYPE_UNSPECIFIED") {
        /// A PEP and sanctions screening.
        PepAndSanctions = "PEP_AND_SANCTIONS",
        /// A check of an identity document.
        DocumentVerification = "DOCUMENT_VERIFICATION",
        /// An identity check of a person.
        IdentityCheck = "IDENTITY_CHECK",
        /// A risk rating.
        RiskRating = "RISK_RATING",
        /// An unusual activity report.
        UnusualActivityReport = "UNUSUAL_ACTIVITY_REPORT",
        /// A suspicious matter report.
        SuspiciousMatterReport = "SUSPICIOUS_MATTER_REPORT",
        /// An activity the tenant defines.
        Custom = "CUSTOM",
        /// A know-your-business profile.
        KybProfile = "KYB_PROFILE",
        /// A form was created.
        FormCreated = "FORM_CREATED",
    }
}

/// The source of activities written through the API when the request names none.
pub const DEFAULT_SOURCE: &str = "CUSTOMER";

/// The source of activities the service's own jobs write; refused from the API.
pub const RESERVED_SOURCE: &str = "RICS";

crate::resource_struct! {
    /// A kind of activity a tenant records: its name, its [`ActivityType`] and the JSON
    /// Schema the payload of its activities must satisfy.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct ActivityLogType named "Resource name, `activityLogTypes/{activityLogType}`. Output only." {
        /// Human-readable name: one line, 1 to 200 characters. Required. Lists search it
        /// fuzzily.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub display_name: String,
        /// What the type is for, at most 2000 characters (line breaks allowed).
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub description: String,
        /// The kind of activity; logs of this type take it when they name none.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "ActivityType::is_unspecified"
        )]
        pub activity_type: ActivityType,
        /// A JSON Schema (draft 4 to 2020-12, detected from `$schema`; 2020-12 without it)
        /// that the `payload` of every log of this type must satisfy. Only local `$ref`s
        /// resolve. An empty object means no schema.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
        pub payload_schema: Option<Map<String, Value>>,
    }
    times: update_time delete_time purge_time;
}

crate::named_resource!(ActivityLogType, "activityLogTypes", "activity log type");

crate::resource_struct! {
    /// The record of one activity about one or more entities. Immutable once written: it
    /// can only be deleted (softly) and restored.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct ActivityLog named "Resource name, `activityLogs/{activityLog}`. Output only." {
        /// The kind of activity. Required, unless `activityLogType` is given: then it
        /// defaults to that type's `activityType`, and must equal it when given.
        #[serde(
            default,
            rename = "type",
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "ActivityType::is_unspecified"
        )]
        pub activity_type: ActivityType,
        /// The activity log type (`activityLogTypes/{activityLogType}`), live and of the
        /// caller's tenant; its `payloadSchema` checks `payload`.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub activity_log_type: String,
        /// Who or what reported the activity: `CUSTOMER` (the default) or a provider's
        /// name; `RICS` is reserved for the service's own jobs.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub source: String,
        /// What happened, as a JSON object. An empty object means no payload.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
        pub payload: Option<Map<String, Value>>,
        /// The entities the activity is about (`entities/{entity}`, 1 to 100, live and of
        /// the caller's tenant). A name given twice is kept once, in its first place.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "Vec::is_empty"
        )]
        pub entity_names: Vec<String>,
        /// The workspace (`workspaces/{workspace}`) the activity belongs to, if any.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub workspace: String,
        /// Free text, at most 2000 characters (line breaks allowed).
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub description: String,
        /// When the activity happened; the creation time when not given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub occur_time: Option<Timestamp>,
    }
    times: delete_time purge_time;
}

crate::named_resource!(ActivityLog, "activityLogs", "activity log");

impl ActivityLog {
    /// The ids of the entities the log names.
    pub fn entity_ids(&self) -> Vec<&str> {
        self.entity_names
            .iter()
            .map(|name| name.strip_prefix("entities/").unwrap_or(name))
            .collect()
    }
}

crate::soft_deletable!(ActivityLog, entities = ActivityLog::entity_ids, without update_time);
crate::soft_deletable!(ActivityLogType);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_type_field_is_named_type_and_unset_fields_are_omitted() {
        let log = ActivityLog {
            activity_type: ActivityType::RiskRating,
            entity_names: vec!["entities/jane".into()],
            ..ActivityLog::default()
        };
        assert_eq!(
            serde_json::to_value(&log).unwrap(),
            json!({"type": "RISK_RATING", "entityNames": ["entities/jane"]})
        );
        let log_type: ActivityLogType = serde_json::from_value(
            json!({"displayName": "KYC Review", "payloadSchema": {"type": "object"}}),
        )
        .unwrap();
        assert_eq!(log_type.activity_type, ActivityType::Unspecified);
        assert!(log_type.payload_schema.is_some());
    }

    #[test]
    fn unknown_fields_and_non_object_payloads_are_refused() {
        assert!(serde_json::from_value::<ActivityLog>(json!({"colour": "red"})).is_err());
        assert!(serde_json::from_value::<ActivityLog>(json!({"payload": [1]})).is_err());
        assert!(serde_json::from_value::<ActivityLogType>(json!({"payloadSchema": "x"})).is_err());
    }

    #[test]
    fn names_and_ids() {
        let log = ActivityLog {
            name: ActivityLog::name_of("a1"),
            entity_names: vec!["entities/x".into(), "entities/y".into()],
            ..ActivityLog::default()
        };
        assert_eq!((log.name.as_str(), log.id()), ("activityLogs/a1", "a1"));
        assert_eq!(log.entity_ids(), vec!["x", "y"]);
        assert_eq!(ActivityLogType::name_of("t1"), "activityLogTypes/t1");
    }
}
