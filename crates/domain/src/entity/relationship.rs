//! Relationships between entities (`:addEntityRelationship` and friends).
//!
//! A relationship is stored once and seen from both entities. It reads "the role
//! holder is the `relationshipType` of the other entity": adding `{relatedEntity:
//! entities/jane, relationshipType: DIRECTOR}` to `entities/acme` records that Jane is a
//! director of Acme, and both entities list it with `roleHolder: entities/jane`.
//! Removing it from either side removes it for both.

use serde::{Deserialize, Serialize};

use crate::proto_enum;
use crate::time::Timestamp;

proto_enum! {
    /// How two entities are related.
    pub enum RelationshipType("RELATIONSHIP_TYPE_UNSPECIFIED") {
        /// The role holder is a director of the other entity.
        Director = "DIRECTOR",
        /// The role holder holds shares of the other entity.
        Shareholder = "SHAREHOLDER",
        /// The role holder ultimately owns or controls the other entity.
        UltimateBeneficialOwner = "ULTIMATE_BENEFICIAL_OWNER",
        /// The role holder is employed by the other entity.
        Employee = "EMPLOYEE",
        /// The role holder is a customer of the other entity.
        Customer = "CUSTOMER",
        /// Spouses (symmetric).
        Spouse = "SPOUSE",
        /// Relatives (symmetric).
        Relative = "RELATIVE",
        /// Known associates (symmetric).
        Associate = "ASSOCIATE",
        /// Any other relationship (symmetric).
        Other = "OTHER",
    }
}

impl RelationshipType {
    /// Whether the relationship reads the same from both sides, so that A-B and B-A are
    /// the same relationship.
    pub fn is_symmetric(self) -> bool {
        matches!(
            self,
            RelationshipType::Spouse
                | RelationshipType::Relative
                | RelationshipType::Associate
                | RelationshipType::Other
        )
    }
}

/// A stored relationship: `related_entity_id` holds the role towards `entity_id`.
#[derive(Debug, Clone, PartialEq)]
pub struct RelationshipRecord {
    /// The relationship id (a UUID v7).
    pub id: String,
    /// The entity the relationship was added to.
    pub entity_id: String,
    /// The role holder.
    pub related_entity_id: String,
    /// The kind of relationship.
    pub relationship_type: RelationshipType,
    /// Share of ownership in percent, for shareholders and owners.
    pub ownership_percentage: Option<f64>,
    /// A free-text note.
    pub note: String,
    /// When it was added.
    pub create_time: Timestamp,
}

/// A relationship as one entity sees it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EntityRelationship {
    /// `entities/{entity}/relationships/{relationship}`, under the viewing entity.
    pub name: String,
    /// The other entity.
    pub related_entity: String,
    /// The kind of relationship.
    pub relationship_type: RelationshipType,
    /// The entity that holds the role (`relatedEntity` or the viewing entity).
    pub role_holder: String,
    /// Share of ownership in percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ownership_percentage: Option<f64>,
    /// A free-text note.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub note: String,
    /// When the relationship was added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_time: Option<Timestamp>,
}

impl RelationshipRecord {
    /// The relationship as `viewer` (one of its two entities) sees it.
    pub fn view_from(&self, viewer: &str) -> EntityRelationship {
        let other = if self.entity_id == viewer {
            &self.related_entity_id
        } else {
            &self.entity_id
        };
        EntityRelationship {
            name: format!("entities/{viewer}/relationships/{}", self.id),
            related_entity: format!("entities/{other}"),
            relationship_type: self.relationship_type,
            role_holder: format!("entities/{}", self.related_entity_id),
            ownership_percentage: self.ownership_percentage,
            note: self.note.clone(),
            create_time: Some(self.create_time),
        }
    }
}

/// Longest note on a relationship, in characters.
pub const MAX_RELATIONSHIP_NOTE: usize = 1000;

/// The body of `:addEntityRelationship`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AddRelationshipRequest {
    /// The role holder, `entities/{entity}`, in the caller's tenant.
    #[serde(default, deserialize_with = "crate::serde_util::null_as_default")]
    pub related_entity: String,
    /// The kind of relationship. Required.
    #[serde(default, deserialize_with = "crate::serde_util::null_as_default")]
    pub relationship_type: RelationshipType,
    /// Share of ownership in percent (more than 0, at most 100).
    #[serde(default)]
    pub ownership_percentage: Option<f64>,
    /// A free-text note, at most 1000 characters.
    #[serde(default, deserialize_with = "crate::serde_util::null_as_default")]
    pub note: String,
}

/// The body of `:removeEntityRelationship`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RemoveRelationshipRequest {
    /// The other entity, `entities/{entity}`.
    #[serde(default, deserialize_with = "crate::serde_util::null_as_default")]
    pub related_entity: String,
    /// The kind of relationship. Required.
    #[serde(default, deserialize_with = "crate::serde_util::null_as_default")]
    pub relationship_type: RelationshipType,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sides_see_the_same_role_holder() {
        let record = RelationshipRecord {
            id: "r1".into(),
            entity_id: "acme".into(),
            related_entity_id: "jane".into(),
            relationship_type: RelationshipType::Director,
            ownership_percentage: None,
            note: String::new(),
            create_time: Timestamp::from_unix_micros(0).unwrap(),
        };
        let from_acme = record.view_from("acme");
        let from_jane = record.view_from("jane");
        assert_eq!(from_acme.related_entity, "entities/jane");
        assert_eq!(from_jane.related_entity, "entities/acme");
        assert_eq!(from_acme.role_holder, "entities/jane");
        assert_eq!(from_jane.role_holder, "entities/jane");
        assert_eq!(from_jane.name, "entities/jane/relationships/r1");
    }
}
