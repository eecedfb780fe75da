//! The form definition resource (`formDefinitions/{formDefinition}`) in its JSON form:
//! the steps of typed fields a form asks for, versioned by revision (AIP-162).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::proto_enum;
use crate::time::Timestamp;

proto_enum! {
    /// What a field of a form asks for, and so the JSON value its answer is. Lower case
    /// is read too (`text`) and answered in upper case.
    pub enum FieldType("FIELD_TYPE_UNSPECIFIED") {
        /// A string.
        Text = "TEXT" | "text",
        /// An email address.
        Email = "EMAIL" | "email",
        /// A phone number.
        Phone = "PHONE" | "phone",
        /// A full date, `YYYY-MM-DD`.
        Date = "DATE" | "date",
        /// An ISO 3166-1 alpha-2 country code, upper case.
        Country = "COUNTRY" | "country",
        /// One of the field's options.
        Select = "SELECT" | "select",
        /// Some of the field's options, each once.
        Multiselect = "MULTISELECT" | "multiselect",
        /// A yes or no (`true`, `false`); a required one must be ticked.
        Checkbox = "CHECKBOX" | "checkbox",
        /// A number.
        Number = "NUMBER" | "number",
        /// A file of the form, named `forms/{form}/files/{file}`.
        File = "FILE" | "file",
        /// An identity document with its machine readable zone: `{documentType,
        /// documentNumber, issuingCountry, expiryDate, mrz[], files[]}`.
        Document = "DOCUMENT" | "document",
        /// A postal address: `{lines[], locality, region, postalCode, country}`.
        Address = "ADDRESS" | "address",
    }
}

/// A bound of a field (`min`, `max`): a number for a NUMBER's value, a TEXT's length
/// and a MULTISELECT's count of options, a full date (`YYYY-MM-DD`) for a DATE.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum Bound {
    /// A number: a value, a length or a count.
    #[cfg_attr(feature = "openapi", schema(value_type = f64))]
    Number(serde_json::Number),
    /// A full date, `YYYY-MM-DD`.
    Date(String),
}

/// One typed field of a step; its `key` names its answer in a response.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FormField {
    /// The key of the answer in a response, `^[a-z][a-z0-9_]*$`, at most 63
    /// characters, unique across the whole definition. Required.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub key: String,
    /// What the person is asked, at most 200 characters. Required.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub label: String,
    /// What the answer is. Required.
    #[serde(
        default,
        rename = "type",
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "FieldType::is_unspecified"
    )]
    pub field_type: FieldType,
    /// Whether a submitted response must answer it (a CHECKBOX: tick it).
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub required: bool,
    /// The choices of a SELECT or MULTISELECT (required there, and only there), each
    /// once.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub options: Vec<String>,
    /// An ECMA-262 regular expression (as in JSON Schema) a TEXT, EMAIL or PHONE answer
    /// must match somewhere; anchor it with `^` and `$` to match the whole answer.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub pattern: String,
    /// The least a NUMBER's value, a TEXT's length, a MULTISELECT's count of options or
    /// a DATE (`YYYY-MM-DD`) may be.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<Bound>,
    /// The most a NUMBER's value, a TEXT's length, a MULTISELECT's count of options or
    /// a DATE (`YYYY-MM-DD`) may be.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<Bound>,
    /// The content types a FILE may have, lower case (`image/jpeg`, `image/*`); any
    /// when empty.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub accept: Vec<String>,
}

/// One step of a form: a page of fields shown together.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FormStep {
    /// The step's key, `^[a-z][a-z0-9_]*$`, at most 63 characters, unique among the
    /// steps. Required.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub key: String,
    /// The step's title, at most 200 characters. Required.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub label: String,
    /// Its fields, 1 to 100.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub fields: Vec<FormField>,
}

/// What a form asks: 1 to 20 steps of typed fields. A response is one flat object
/// keyed by field key.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FormSchema {
    /// The steps, in order.
    #[serde(
        default,
        deserialize_with = "crate::serde_util::null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub steps: Vec<FormStep>,
}

impl FormSchema {
    /// Every field of every step, in order.
    pub fn fields(&self) -> impl Iterator<Item = &FormField> {
        self.steps.iter().flat_map(|step| step.fields.iter())
    }
}

crate::resource_struct! {
    /// What a form asks, and how its response is checked: the schema of steps and
    /// fields, and the JSON Schema derived from it. Each change of the schema is a new
    /// revision; forms pin the revision they were made with.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct FormDefinition named "`formDefinitions/{formDefinition}`, or `formDefinitions/{formDefinition}@{revisionId}` when a revision is read by name. Output only." {
        /// Human-readable name, at most 200 characters. Required.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub display_name: String,
        /// What the form is for, at most 2000 characters.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub description: String,
        /// The steps and fields. Required; a change makes a new revision.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub schema: Option<FormSchema>,
        /// The JSON Schema (draft 2020-12) of a valid, complete response, derived from
        /// `schema`: what `:submit` checks. Output only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
        pub response_schema: Option<Map<String, Value>>,
        /// The revision of `schema` (AIP-162): eight lower-case letters and digits,
        /// new with each change of the schema. Output only.
        #[serde(
            default,
            deserialize_with = "crate::serde_util::null_as_default",
            skip_serializing_if = "String::is_empty"
        )]
        pub revision_id: String,
        /// When this revision was made. Output only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub revision_create_time: Option<Timestamp>,
    }
    times: update_time delete_time purge_time;
}

crate::named_resource!(FormDefinition, "formDefinitions", "form definition");

crate::soft_deletable!(FormDefinition);

impl FormDefinition {
    /// The name of this revision: `formDefinitions/{id}@{revisionId}`, what forms
    /// name.
    pub fn revision_name(&self) -> String {
        let id = self.id();
        let id = id.split_once('@').map_or(id, |(id, _)| id);
        revision_name(id, &self.revision_id)
    }
}

/// `formDefinitions/{id}@{revision}`.
pub fn revision_name(id: &str, revision: &str) -> String {
    format!("{}@{revision}", FormDefinition::name_of(id))
}

/// A reference to a form definition, as forms and workspaces name one: the latest
/// revision (`formDefinitions/{id}`) or one revision
/// (`formDefinitions/{id}@{revisionId}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefinitionRef {
    /// The definition's id.
    pub id: String,
    /// The revision, when one is named.
    pub revision: Option<String>,
}

impl DefinitionRef {
    /// Reads `name`; `None` when it is not a form definition's name.
    pub fn parse(name: &str) -> Option<DefinitionRef> {
        let rest = name.strip_prefix("formDefinitions/")?;
        DefinitionRef::parse_id(rest)
    }

    /// Reads the id part of a name, `{id}` or `{id}@{revisionId}` (a path variable);
    /// `None` when it is neither.
    pub fn parse_id(text: &str) -> Option<DefinitionRef> {
        let (id, revision) = match text.split_once('@') {
            Some((id, revision)) => (id, Some(revision)),
            None => (text, None),
        };
        if !crate::id::is_well_formed_id(id) || revision.is_some_and(|r| !is_revision_id(r)) {
            return None;
        }
        Some(DefinitionRef {
            id: id.to_owned(),
            revision: revision.map(str::to_owned),
        })
    }
}

/// How many characters a revision id has.
pub const REVISION_ID_LENGTH: usize = 8;

/// The pattern of a revision id, for JSON Schema.
pub const REVISION_ID_PATTERN: &str = "^[a-z0-9]{8}$";

/// Whether `text` is a revision id: eight lower-case letters and digits.
pub fn is_revision_id(text: &str) -> bool {
    text.len() == REVISION_ID_LENGTH
        && text
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lower_case_types_read_and_upper_case_is_written() {
        let field: FormField =
            serde_json::from_value(json!({"key": "a", "label": "A", "type": "email"})).unwrap();
        assert_eq!(field.field_type, FieldType::Email);
        assert_eq!(serde_json::to_value(&field).unwrap()["type"], "EMAIL");
        assert!(serde_json::from_value::<FormField>(json!({"type": "Email"})).is_err());
    }

    #[test]
    fn bounds_are_numbers_or_dates_and_keep_their_form() {
        let field: FormField =
            serde_json::from_value(json!({"min": 18, "max": "2030-01-01"})).unwrap();
        assert_eq!(
            serde_json::to_value(&field).unwrap(),
            json!({"min": 18, "max": "2030-01-01"})
        );
    }

    #[test]
    fn definition_references_name_an_id_and_maybe_a_revision() {
        assert_eq!(
            DefinitionRef::parse("formDefinitions/kyc-individual@ab12cd34"),
            Some(DefinitionRef {
                id: "kyc-individual".into(),
                revision: Some("ab12cd34".into())
            })
        );
        assert_eq!(
            DefinitionRef::parse("formDefinitions/kyc").map(|r| r.revision),
            Some(None)
        );
        for bad in [
            "formDefinitions/kyc@",
            "formDefinitions/kyc@AB12CD34",
            "formDefinitions/@ab12cd34",
            "forms/kyc",
            "formDefinitions/kyc@ab12cd345",
        ] {
            assert_eq!(DefinitionRef::parse(bad), None, "{bad}");
        }
    }
}
