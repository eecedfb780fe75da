//! The identity document resource (`documents/{document}`) in its JSON form.

use serde::{Deserialize, Serialize};

use crate::entity::model::Gender;
use crate::icao::IcaoCode;
use crate::proto_enum;
use crate::values::PartialDate;

proto_enum! {
    /// The kind of identity document.
    pub enum DocumentType("DOCUMENT_TYPE_UNSPECIFIED") {
        /// A passport (or passport card).
        Passport = "PASSPORT",
        /// A driver's licence.
        DriversLicence = "DRIVERS_LICENCE",
        /// A national identity card.
        NationalId = "NATIONAL_ID",
        /// A birth certificate.
        BirthCertificate = "BIRTH_CERTIFICATE",
        /// An Australian Medicare card.
        MedicareCard = "MEDICARE_CARD",
        /// A visa.
        Visa = "VISA",
    }
}

crate::resource_struct! {
    /// An identity document of an entity, with what is printed on it.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Document named "`documents/{document}`. Output only." {
        /// A name to list and find the document by, one line of at most 200 characters.
        /// Optional: "{documentType} {documentNumber}" when not given (on create, and when
        /// an update clears it).
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub display_name: String,
        /// The entity the document belongs to (`entities/{entity}`), of the caller's
        /// tenant. Required; immutable.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub entity: String,
        /// The kind of document. Required.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "DocumentType::is_unspecified"
        )]
        pub document_type: DocumentType,
        /// The document number, upper case, in the format of its type. Required.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub document_number: String,
        /// The issuing state or organisation, an ICAO 9303 code as printed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "openapi", schema(example = "D"))]
        pub issuing_country: Option<IcaoCode>,
        /// The holder's nationality, an ICAO 9303 code as printed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "openapi", schema(example = "DEU"))]
        pub nationality: Option<IcaoCode>,
        /// The state, province or territory within the country that issued it (a
        /// driver's licence's `NSW`), free text.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub issuing_state: String,
        /// The holder's given names as printed.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub given_name: String,
        /// The holder's family name as printed.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub family_name: String,
        /// The holder's date of birth, `YYYY-MM-DD`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "openapi", schema(example = "1970-01-31"))]
        pub date_of_birth: Option<PartialDate>,
        /// The holder's gender as printed.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "Gender::is_unspecified"
        )]
        pub gender: Gender,
        /// The holder's place of birth as printed.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub place_of_birth: String,
        /// The date of issue, `YYYY-MM-DD`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "openapi", schema(example = "2020-06-01"))]
        pub issue_date: Option<PartialDate>,
        /// The date of expiry, `YYYY-MM-DD`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "openapi", schema(example = "2030-05-31"))]
        pub expiry_date: Option<PartialDate>,
        /// The lines of the machine readable zone, when it was read: 1 to 3 lines.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "Vec::is_empty"
        )]
        pub mrz: Vec<String>,
        /// The case the document was collected for (`workspaces/{workspace}`).
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub workspace: String,
        /// Images or scans of the document: files of its entity
        /// (`entities/{entity}/files/{file}`).
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "Vec::is_empty"
        )]
        pub files: Vec<String>,
    }
    times: update_time delete_time purge_time;
}

crate::named_resource!(Document, "documents", "document");

impl Document {
    /// The id of the entity the document belongs to.
    pub fn entity_id(&self) -> &str {
        self.entity
            .strip_prefix("entities/")
            .unwrap_or(self.entity.as_str())
    }
}

crate::soft_deletable!(Document, entity = Document::entity_id);
