//! The entity resource (`entities/{entity}`) and its parts, in their JSON form.
//!
//! Field names are lowerCamelCase; unset fields (empty strings and lists, zero enums,
//! `false`) are omitted, as in proto3 JSON. Unknown fields are refused on input.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::proto_enum;
use crate::time::Timestamp;
use crate::values::{CountryCode, PartialDate};

proto_enum! {
    /// The kind of party an entity is.
    pub enum EntityType("ENTITY_TYPE_UNSPECIFIED") {
        /// A natural person.
        Individual = "INDIVIDUAL",
        /// A company.
        Company = "COMPANY",
        /// A trust.
        Trust = "TRUST",
        /// A partnership.
        Partnership = "PARTNERSHIP",
        /// A sole proprietor.
        SoleProprietor = "SOLE_PROPRIETOR",
    }
}

proto_enum! {
    /// A person's gender as recorded.
    pub enum Gender("GENDER_UNSPECIFIED") {
        /// Male.
        Male = "MALE",
        /// Female.
        Female = "FEMALE",
        /// Another gender, or `X` on a travel document.
        Other = "OTHER",
    }
}

proto_enum! {
    /// The legal form of a company.
    pub enum CompanyType("COMPANY_TYPE_UNSPECIFIED") {
        /// A listed company.
        PublicCompany = "PUBLIC_COMPANY",
        /// A private company.
        PrivateCompany = "PRIVATE_COMPANY",
        /// A not-for-profit organisation.
        NonProfit = "NON_PROFIT",
        /// A governmental organisation; BNDRY's spelling `GOVERMENTAL_ORG` reads as it.
        GovernmentalOrg = "GOVERNMENTAL_ORG" | "GOVERMENTAL_ORG",
        /// An incorporated association.
        AssociationIncorporation = "ASSOCIATION_INCORPORATION",
    }
}

proto_enum! {
    /// What an address is used for.
    pub enum AddressType("ADDRESS_TYPE_UNSPECIFIED") {
        /// Where a person lives.
        Residential = "RESIDENTIAL",
        /// A company's registered office.
        RegisteredBusiness = "REGISTERED_BUSINESS",
        /// Where a business mainly operates.
        PrincipalBusiness = "PRINCIPAL_BUSINESS",
        /// A postal address.
        Postal = "POSTAL",
    }
}

proto_enum! {
    /// The level of risk a rating assigned.
    pub enum RiskLevel("RISK_LEVEL_UNSPECIFIED") {
        /// Low risk.
        Low = "LOW",
        /// Medium risk.
        Medium = "MEDIUM",
        /// High risk.
        High = "HIGH",
        /// Critical risk: the fourth of five levels.
        Critical = "CRITICAL",
        /// Extreme risk: the highest of five levels.
        Extreme = "EXTREME",
    }
}

impl RiskLevel {
    /// The level's place from the lowest: LOW 1 up to EXTREME 5; 0 when unrated.
    pub fn rank(self) -> u8 {
        match self {
            RiskLevel::Unspecified => 0,
            RiskLevel::Low => 1,
            RiskLevel::Medium => 2,
            RiskLevel::High => 3,
            RiskLevel::Critical => 4,
            RiskLevel::Extreme => 5,
        }
    }

    /// Whether rules that say "high" apply: HIGH or above, so that they mean the same
    /// with three levels and with five.
    pub fn is_high_or_above(self) -> bool {
        self.rank() >= RiskLevel::High.rank()
    }
}

proto_enum! {
    /// Whether a risk rating reflects the entity as it is now.
    pub enum RiskStatus("RISK_STATUS_UNSPECIFIED") {
        /// The current rating: the entity has not changed since it was rated. `RATED`,
        /// what earlier versions wrote, reads as it.
        Active = "ACTIVE" | "RATED",
        /// Rated, but the entity changed since: rate it again.
        Outdated = "OUTDATED",
    }
}

proto_enum! {
    /// The outcome of the latest sanctions and PEP screening.
    pub enum ScreeningStatus("SCREENING_STATUS_UNSPECIFIED") {
        /// No match above the threshold.
        Clear = "CLEAR",
        /// Matches found that a reviewer must look at.
        PotentialMatch = "POTENTIAL_MATCH",
        /// A reviewer confirmed a match.
        ConfirmedMatch = "CONFIRMED_MATCH",
    }
}

proto_enum! {
    /// The state of identity verification.
    pub enum VerificationStatus("VERIFICATION_STATUS_UNSPECIFIED") {
        /// Not verified yet.
        Unverified = "UNVERIFIED",
        /// A verification is under way.
        Pending = "PENDING",
        /// Verified.
        Verified = "VERIFIED",
        /// Verification failed.
        Failed = "FAILED",
    }
}

/// A person's name in parts.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PersonName {
    /// Given (first) name.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub given_name: String,
    /// Middle names, space separated.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub middle_names: String,
    /// Family name (surname).
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub family_name: String,
}

impl PersonName {
    /// The name as one string, parts in the order given, middle, family.
    pub fn full(&self) -> String {
        [&self.given_name, &self.middle_names, &self.family_name]
            .iter()
            .filter(|part| !part.is_empty())
            .map(|part| part.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Details of a natural person.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Individual {
    /// The legal name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legal_name: Option<PersonName>,
    /// Other names the person is known by.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub other_names: Vec<PersonName>,
    /// Date of birth: `YYYY-MM-DD`, or `YYYY-MM` / `YYYY` when partial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(example = "1970-01-31"))]
    pub date_of_birth: Option<PartialDate>,
    /// Place of birth, free text.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub place_of_birth: String,
    /// Nationalities, ISO 3166-1 alpha-2.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub nationalities: Vec<CountryCode>,
    /// Country of residence, ISO 3166-1 alpha-2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country_of_residence: Option<CountryCode>,
    /// Country of birth, ISO 3166-1 alpha-2: what the risk factor `PLACE_OF_BIRTH`
    /// scores (`placeOfBirth` is free text and is not scored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country_of_birth: Option<CountryCode>,
    /// Gender.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "Gender::is_unspecified"
    )]
    pub gender: Gender,
    /// Occupation, free text.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub occupation: String,
}

/// Details of a company.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Company {
    /// The registered legal name.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub legal_name: String,
    /// The legal form.
    #[serde(
        default,
        rename = "type",
        skip_serializing_if = "CompanyType::is_unspecified"
    )]
    pub company_type: CompanyType,
    /// Industry, free text.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub industry: String,
    /// Registration number in the company register.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub registration_number: String,
    /// Country of incorporation, ISO 3166-1 alpha-2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country_of_incorporation: Option<CountryCode>,
}

/// Name and registration of a trust, partnership or sole proprietor.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RegisteredParty {
    /// The legal name.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub legal_name: String,
    /// A trading name, when different from the legal name.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub trading_name: String,
    /// Registration number, when registered.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub registration_number: String,
    /// Country of registration, ISO 3166-1 alpha-2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country_of_registration: Option<CountryCode>,
}

/// A postal address.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Address {
    /// What the address is used for.
    #[serde(
        default,
        rename = "type",
        skip_serializing_if = "AddressType::is_unspecified"
    )]
    pub address_type: AddressType,
    /// Street lines.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub lines: Vec<String>,
    /// City or town.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub locality: String,
    /// State, province or region.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub region: String,
    /// Postal code.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub postal_code: String,
    /// Country, ISO 3166-1 alpha-2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country: Option<CountryCode>,
}

/// How to reach the entity.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContactInfo {
    /// Email addresses.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub emails: Vec<String>,
    /// Phone numbers, preferably in E.164 form (`+33123456789`).
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub phone_numbers: Vec<String>,
    /// Addresses.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub addresses: Vec<Address>,
}

/// The latest risk rating (output only; written by risk rating jobs).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RiskDetails {
    /// The level the score falls in.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "RiskLevel::is_unspecified"
    )]
    pub risk_level: RiskLevel,
    /// The score, 0 to 100.
    #[serde(default, deserialize_with = "crate::serde_util::null_as_default")]
    pub risk_score: f64,
    /// Whether the rating is current.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "RiskStatus::is_unspecified"
    )]
    pub risk_status: RiskStatus,
    /// When the entity was last rated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_rated_time: Option<Timestamp>,
    /// The rating job that produced the rating (empty for `:evaluate`).
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub rating_job: String,
    /// The RISK_RATING activity log that records the rating with its input.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub activity_log: String,
    /// The risk model version that rated, `riskModels/{version}`.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub model_version: String,
}

crate::resource_struct! {
    /// An entity under assessment: a person or an organisation.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Entity named "Resource name, `entities/{entity}`. Output only (taken from the path on update)." {
        /// The kind of entity. Immutable; inferred from the details object when omitted on
        /// create.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "EntityType::is_unspecified"
        )]
        pub entity_type: EntityType,
        /// Human-readable name, 1 to 200 characters. Required.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub display_name: String,
        /// Details when `entityType` is `INDIVIDUAL`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub individual: Option<Individual>,
        /// Details when `entityType` is `COMPANY`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub company: Option<Company>,
        /// Details when `entityType` is `TRUST`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub trust: Option<RegisteredParty>,
        /// Details when `entityType` is `PARTNERSHIP`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub partnership: Option<RegisteredParty>,
        /// Details when `entityType` is `SOLE_PROPRIETOR`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub sole_proprietor: Option<RegisteredParty>,
        /// Emails, phone numbers and addresses.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub contact_info: Option<ContactInfo>,
        /// Ids of the entity in other systems, by system name.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "BTreeMap::is_empty"
        )]
        pub external_ids: BTreeMap<String, String>,
        /// Free-form tags.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "Vec::is_empty"
        )]
        pub tags: Vec<String>,
        /// The latest risk rating. Output only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub risk_details: Option<RiskDetails>,
        /// Outcome of the latest screening. Output only.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "ScreeningStatus::is_unspecified"
        )]
        pub screening_status: ScreeningStatus,
        /// State of identity verification. Output only.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "VerificationStatus::is_unspecified"
        )]
        pub verification_status: VerificationStatus,
        /// When true, the entity cannot be hard-deleted.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "std::ops::Not::not"
        )]
        pub legal_hold: bool,
        /// Whether ongoing monitoring screens the entity again when a list changes or
        /// its names, date of birth or nationalities do. Default true; shown only when
        /// false.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "Monitoring::is_on"
        )]
        #[cfg_attr(feature = "openapi", schema(value_type = bool))]
        pub monitoring: Monitoring,
    }
    times: update_time delete_time purge_time;
}

/// Whether ongoing monitoring re-screens an entity: on unless turned off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Monitoring(pub bool);

impl Default for Monitoring {
    fn default() -> Monitoring {
        Monitoring(true)
    }
}

impl Monitoring {
    /// Whether monitoring is on.
    #[allow(clippy::trivially_copy_pass_by_ref)]
    pub fn is_on(&self) -> bool {
        self.0
    }
}

crate::named_resource!(Entity, "entities", "entity");

impl Entity {
    /// The entity type the details object implies, when exactly one is set.
    pub fn implied_type(&self) -> Option<EntityType> {
        let mut set = [
            (self.individual.is_some(), EntityType::Individual),
            (self.company.is_some(), EntityType::Company),
            (self.trust.is_some(), EntityType::Trust),
            (self.partnership.is_some(), EntityType::Partnership),
            (self.sole_proprietor.is_some(), EntityType::SoleProprietor),
        ]
        .into_iter()
        .filter(|(present, _)| *present);
        match (set.next(), set.next()) {
            (Some((_, kind)), None) => Some(kind),
            _ => None,
        }
    }

    /// The JSON field of the details object for an entity type.
    pub fn details_field(kind: EntityType) -> &'static str {
        match kind {
            EntityType::Unspecified | EntityType::Individual => "individual",
            EntityType::Company => "company",
            EntityType::Trust => "trust",
            EntityType::Partnership => "partnership",
            EntityType::SoleProprietor => "soleProprietor",
        }
    }
}

crate::soft_deletable!(Entity, entity = Entity::id);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unset_fields_are_omitted() {
        let entity = Entity {
            display_name: "A".into(),
            ..Entity::default()
        };
        assert_eq!(
            serde_json::to_value(&entity).unwrap(),
            json!({"displayName": "A"})
        );
    }

    #[test]
    fn unknown_fields_are_refused() {
        let error = serde_json::from_value::<Entity>(json!({"displayName": "A", "colour": "red"}))
            .unwrap_err();
        assert!(error.to_string().contains("colour"));
    }

    #[test]
    fn zero_enum_values_read_as_unset() {
        let entity: Entity =
            serde_json::from_value(json!({"entityType": "ENTITY_TYPE_UNSPECIFIED"})).unwrap();
        assert!(entity.entity_type.is_unspecified());
        assert_eq!(EntityType::parse("COMPANY"), Some(EntityType::Company));
        assert_eq!(EntityType::parse("company"), None);
    }

    #[test]
    fn implied_type_needs_exactly_one_details_object() {
        let mut entity = Entity {
            individual: Some(Individual::default()),
            ..Entity::default()
        };
        assert_eq!(entity.implied_type(), Some(EntityType::Individual));
        entity.company = Some(Company::default());
        assert_eq!(entity.implied_type(), None);
    }
}
