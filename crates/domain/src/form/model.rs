//! The form resource (`forms/{form}`) in its JSON form: a response to one revision of
//! a form definition, filled in while DRAFT and read-only once SUBMITTED.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::event::NewEvent;
use crate::proto_enum;
use crate::time::Timestamp;

proto_enum! {
    /// Where a form is in its life.
    pub enum FormState("STATE_UNSPECIFIED") {
        /// Being filled in: the response may be partial and may change.
        Draft = "DRAFT",
        /// Submitted with a complete, valid response: read-only.
        Submitted = "SUBMITTED",
        /// Expired before it was submitted (`:expire`, or its `expireTime` passed):
        /// read-only.
        Expired = "EXPIRED",
    }
}

crate::resource_struct! {
    /// A form: the response one person gives to a revision of a form definition,
    /// about an entity or not, for cases (workspaces) or not.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Form named "`forms/{form}`. Output only." {
        /// Human-readable name, at most 200 characters; the definition's when not
        /// given.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub display_name: String,
        /// The definition and revision the form answers: given as
        /// `formDefinitions/{formDefinition}` (its latest revision) or
        /// `formDefinitions/{formDefinition}@{revisionId}`, always answered in the
        /// second form. Required; immutable.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub form_definition: String,
        /// The entity the form is about (`entities/{entity}`), of the caller's tenant.
        /// Optional; immutable.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub entity: String,
        /// The cases the form was collected for (`workspaces/{workspace}`), each of the
        /// caller's tenant.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "Vec::is_empty"
        )]
        pub workspaces: Vec<String>,
        /// DRAFT, SUBMITTED or EXPIRED; changed by `:submit`, `:expire` and the
        /// passing of `expireTime`. Output only.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "FormState::is_unspecified"
        )]
        pub state: FormState,
        /// The answers, one flat object keyed by field key: partial while DRAFT (each
        /// answer of the right type), complete and valid once SUBMITTED.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
        pub response: Option<Map<String, Value>>,
        /// When it was submitted. Output only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub submit_time: Option<Timestamp>,
        /// The deadline: a DRAFT form is EXPIRED from then on. Optional; in the
        /// future when set.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub expire_time: Option<Timestamp>,
    }
    times: update_time;
}

crate::named_resource!(Form, "forms", "form");

impl Form {
    /// The id of the entity the form is about: none, or one.
    pub fn entity_ids(&self) -> Vec<&str> {
        self.entity
            .strip_prefix("entities/")
            .filter(|id| !id.is_empty())
            .into_iter()
            .collect()
    }

    /// Whether a DRAFT form's deadline has passed at `now`: it reads EXPIRED then,
    /// before housekeeping records it.
    pub fn is_past_deadline(&self, now: Timestamp) -> bool {
        self.state == FormState::Draft && self.expire_time.is_some_and(|deadline| deadline <= now)
    }
}

// Forms are never deleted (an entity's erasure clears their response instead).
crate::soft_deletable!(Form, entities = Form::entity_ids, removed when deleted);

/// A form a create of another resource (a workspace) writes with it, in its
/// transaction, with its `form.created` events.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NewForm {
    /// The form, named and begun.
    pub form: Form,
    /// Its `form.created` events.
    pub events: Vec<NewEvent>,
}
