//! The alert type (`alertTypes/{alertType}`) and alert (`alerts/{alert}`) resources in
//! their JSON form, and the alert types every tenant starts with.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::principal::TenantId;
use crate::proto_enum;
use crate::time::Timestamp;

proto_enum! {
    /// How urgent an alert is.
    pub enum Severity("SEVERITY_UNSPECIFIED") {
        /// Review when convenient.
        Low = "LOW",
        /// Review in the normal course of work.
        Medium = "MEDIUM",
        /// Review soon.
        High = "HIGH",
        /// Review at once.
        Critical = "CRITICAL",
    }
}

proto_enum! {
    /// Where an alert stands.
    pub enum AlertState("STATE_UNSPECIFIED") {
        /// Raised and waiting for an analyst.
        Active = "ACTIVE",
        /// An analyst has taken it (`:acknowledge`).
        Acknowledged = "ACKNOWLEDGED",
        /// Dealt with (`:resolve`), with a disposition.
        Resolved = "RESOLVED",
    }
}

proto_enum! {
    /// What a resolved alert turned out to be.
    pub enum Disposition("DISPOSITION_UNSPECIFIED") {
        /// It was right: the match or the event is real.
        TruePositive = "TRUE_POSITIVE",
        /// It was wrong: the match is another person, the event did not happen.
        FalsePositive = "FALSE_POSITIVE",
        /// It was right but needs no action.
        NotRelevant = "NOT_RELEVANT",
    }
}

/// The body of `:resolve`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResolveRequest {
    /// What the alert turned out to be. Required.
    #[serde(default, deserialize_with = "crate::serde_util::null_as_default")]
    pub disposition: Disposition,
    /// Why, for the record: at most 2,000 characters; line breaks allowed.
    #[serde(default, deserialize_with = "crate::serde_util::null_as_default")]
    pub comment: String,
    /// When given, must be the alert's current etag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
}

/// The id of the alert type raised when an individual's verification fails.
pub const INDIVIDUAL_VERIFICATION_FAILED: &str = "individual-verification-failed";
/// The id of the alert type raised when a business's verification fails.
pub const BUSINESS_VERIFICATION_FAILED: &str = "business-verification-failed";
/// The id of the alert type raised for activity out of the ordinary.
pub const UNUSUAL_EVENT: &str = "unusual-event";
/// The id of the alert type raised when screening finds a PEP or sanctions match.
pub const PEP_AND_SANCTIONS_MATCH_FOUND: &str = "pep-and-sanctions-match-found";
/// The id of the alert type raised when screening finds adverse media.
pub const ADVERSE_MEDIA_MATCH_FOUND: &str = "adverse-media-match-found";
/// The id of the alert type raised when an entity is due for its periodic review.
pub const ONGOING_CUSTOMER_DUE_DILIGENCE_REQUIRED: &str = "ongoing-customer-due-diligence-required";
/// The id of the alert type raised when an entity's risk calls for enhanced checks.
pub const ENHANCED_DUE_DILIGENCE_REQUIRED: &str = "enhanced-due-diligence-required";
/// The id of the alert type raised when a webhook endpoint is disabled because its
/// deliveries kept failing.
pub const WEBHOOK_ENDPOINT_DISABLED: &str = "webhook-endpoint-disabled";
/// The id of the alert type raised when an onboarding is referred to an analyst.
pub const ONBOARDING_REFERRED: &str = "onboarding-referred";

/// One of the alert types every tenant starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefaultAlertType {
    /// Its id, the same in every tenant.
    pub id: &'static str,
    /// Its display name.
    pub display_name: &'static str,
    /// One sentence on when it is raised.
    pub description: &'static str,
    /// The severity of its alerts unless they say otherwise.
    pub default_severity: Severity,
}

/// The alert types every tenant starts with: provisioned with each new tenant, and
/// added to the tenants that existed before alerts by the migration that created them
/// (`migrations/*/2026-11-22-000005_alerts`, `2026-11-26-000023_webhook_deliveries` for
/// the webhook one and `2026-11-27-000026_onboarding_jobs` for the onboarding one,
/// which repeat these values).
pub const DEFAULT_ALERT_TYPES: [DefaultAlertType; 9] = [
    DefaultAlertType {
        id: INDIVIDUAL_VERIFICATION_FAILED,
        display_name: "Individual Verification Failed",
        description: "The identity of an individual could not be verified.",
        default_severity: Severity::Medium,
    },
    DefaultAlertType {
        id: BUSINESS_VERIFICATION_FAILED,
        display_name: "Business Verification Failed",
        description: "The registration or ownership details of a business could not be verified.",
        default_severity: Severity::Medium,
    },
    DefaultAlertType {
        id: UNUSUAL_EVENT,
        display_name: "Unusual Event",
        description: "Activity that departs from the expected pattern of an entity needs review.",
        default_severity: Severity::Medium,
    },
    DefaultAlertType {
        id: PEP_AND_SANCTIONS_MATCH_FOUND,
        display_name: "PEP and Sanctions Match Found",
        description: "Screening matched an entity against a list of politically exposed persons or sanctions.",
        default_severity: Severity::High,
    },
    DefaultAlertType {
        id: ADVERSE_MEDIA_MATCH_FOUND,
        display_name: "Adverse Media Match Found",
        description: "Screening found negative news coverage about an entity.",
        default_severity: Severity::Medium,
    },
    DefaultAlertType {
        id: ONGOING_CUSTOMER_DUE_DILIGENCE_REQUIRED,
        display_name: "Ongoing Customer Due Diligence Required",
        description: "An entity is due for its periodic customer due diligence review.",
        default_severity: Severity::Low,
    },
    DefaultAlertType {
        id: ENHANCED_DUE_DILIGENCE_REQUIRED,
        display_name: "Enhanced Due Diligence Required",
        description: "The risk of an entity calls for enhanced due diligence.",
        default_severity: Severity::High,
    },
    DefaultAlertType {
        id: WEBHOOK_ENDPOINT_DISABLED,
        display_name: "Webhook Endpoint Disabled",
        description: "A webhook endpoint was disabled because its deliveries kept failing.",
        default_severity: Severity::Medium,
    },
    DefaultAlertType {
        id: ONBOARDING_REFERRED,
        display_name: "Onboarding Referred",
        description: "An onboarding could not be approved on its own and awaits an analyst's decision.",
        default_severity: Severity::Medium,
    },
];

crate::resource_struct! {
    /// A kind of alert, with the severity its alerts get unless they say otherwise.
    /// Read-only through the API.
    #[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct AlertType named "`alertTypes/{alertType}`. Output only." {
        /// Human-readable name.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub display_name: String,
        /// When alerts of this type are raised.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub description: String,
        /// The severity of an alert of this type created without one.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "Severity::is_unspecified"
        )]
        pub default_severity: Severity,
    }
    times: update_time;
}

crate::named_resource!(AlertType, "alertTypes", "alert type");

impl AlertType {
    /// The `uid` of the default type `id` of `tenant`: `{tenant}:{id}`. Derived rather
    /// than random so that the migration, which has no portable way to make a random
    /// UUID in SQL, gives existing tenants the same values a new tenant gets. It is
    /// still unique and never reused: a tenant has one type per id, and default types
    /// are never deleted.
    pub fn default_uid(tenant: &TenantId, id: &str) -> String {
        format!("{tenant}:{id}")
    }

    /// The default alert types of `tenant`, created with it at `create_time`.
    pub fn defaults(tenant: &TenantId, create_time: Timestamp) -> Vec<AlertType> {
        DEFAULT_ALERT_TYPES
            .iter()
            .map(|default| {
                let uid = AlertType::default_uid(tenant, default.id);
                AlertType {
                    name: AlertType::name_of(default.id),
                    etag: crate::resource::etag(&uid, 1),
                    uid,
                    display_name: default.display_name.to_owned(),
                    description: default.description.to_owned(),
                    default_severity: default.default_severity,
                    create_time: Some(create_time),
                    update_time: Some(create_time),
                    revision: 1,
                }
            })
            .collect()
    }
}

crate::resource_struct! {
    /// An alert: something about entities (or a case) that an analyst should look at.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Alert named "`alerts/{alert}`. Output only." {
        /// The kind of alert, `alertTypes/{alertType}` of the caller's tenant. Required.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub alert_type: String,
        /// The entities it is about (`entities/{entity}`), each of the caller's tenant.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "Vec::is_empty"
        )]
        pub entities: Vec<String>,
        /// The case it belongs to, `workspaces/{workspace}`, if any.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub workspace: String,
        /// One line saying what happened. Required.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub title: String,
        /// More about it; may span lines.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub description: String,
        /// How urgent it is; the alert type's `defaultSeverity` when not given.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "Severity::is_unspecified"
        )]
        pub severity: Severity,
        /// ACTIVE when raised, ACKNOWLEDGED by `:acknowledge`, RESOLVED by `:resolve`.
        /// Output only.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "AlertState::is_unspecified"
        )]
        pub state: AlertState,
        /// What raised it: `principals/{subject}` for the API caller who created it, or the
        /// resource name of the job that raised it. Output only.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub source: String,
        /// Anything the source wants to record (a JSON object).
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "Map::is_empty"
        )]
        #[cfg_attr(feature = "openapi", schema(value_type = Object))]
        pub details: Map<String, Value>,
        /// When it was acknowledged. Output only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub acknowledge_time: Option<Timestamp>,
        /// The subject (client or user id) who acknowledged it. Output only.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub acknowledger: String,
        /// When it was resolved. Output only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub resolve_time: Option<Timestamp>,
        /// The subject (client or user id) who resolved it. Output only.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub resolver: String,
        /// What it turned out to be, once resolved. Output only.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "Disposition::is_unspecified"
        )]
        pub disposition: Disposition,
        /// The resolver's comment. Output only.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub resolve_comment: String,
    }
    times: update_time delete_time purge_time;
}

crate::named_resource!(Alert, "alerts", "alert");

impl Alert {
    /// The ids of the entities it is about.
    pub fn entity_ids(&self) -> Vec<&str> {
        self.entities
            .iter()
            .map(|name| name.strip_prefix("entities/").unwrap_or(name))
            .collect()
    }
}

/// What an internal caller (a job) says when it raises an alert: the fields a client
/// could set on create.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NewAlert {
    /// `alertTypes/{alertType}`; see the constants of this module for the default ids.
    pub alert_type: String,
    /// The entities it is about (`entities/{entity}`).
    pub entities: Vec<String>,
    /// The case it belongs to (`workspaces/{workspace}`), or empty.
    pub workspace: String,
    /// One line saying what happened.
    pub title: String,
    /// More about it.
    pub description: String,
    /// How urgent it is; unspecified = the type's default.
    pub severity: Severity,
    /// Anything worth recording, such as the matches a screening found.
    pub details: Map<String, Value>,
}

impl NewAlert {
    /// The alert with these input fields and nothing else.
    pub fn into_alert(self) -> Alert {
        Alert {
            alert_type: self.alert_type,
            entities: self.entities,
            workspace: self.workspace,
            title: self.title,
            description: self.description,
            severity: self.severity,
            details: self.details,
            ..Alert::default()
        }
    }
}

crate::soft_deletable!(Alert, entities = Alert::entity_ids);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tenant_gets_the_nine_defaults_under_stable_ids() {
        let created = Timestamp::from_unix_micros(1).unwrap();
        let types = AlertType::defaults(&TenantId::new("t1"), created);
        assert_eq!(types.len(), 9);
        let pep = types
            .iter()
            .find(|t| t.id() == PEP_AND_SANCTIONS_MATCH_FOUND)
            .unwrap();
        assert_eq!(pep.name, "alertTypes/pep-and-sanctions-match-found");
        assert_eq!(pep.uid, "t1:pep-and-sanctions-match-found");
        assert_eq!(pep.default_severity, Severity::High);
        assert_eq!(pep.etag, crate::resource::etag(&pep.uid, 1));
        for default in DEFAULT_ALERT_TYPES {
            assert!(crate::id::is_well_formed_id(default.id), "{}", default.id);
            assert!(default.description.ends_with('.'));
        }
    }
}
