//! Proto-style enums: a zero value `X_UNSPECIFIED` that stands for "not set" and is
//! left out of JSON, and string values in UPPER_SNAKE case. A value may have aliases
//! (`Active = "ACTIVE" | "RATED"`): other spellings read as it on input, in JSON and in
//! filters, and never written.

/// Declares a proto-style enum with its zero value, its string values, serde, parsing
/// and the list of values (for filter declarations and CHECK constraints).
#[macro_export]
macro_rules! proto_enum {
    (
        $(#[doc = $doc:literal])*
        pub enum $name:ident ($unspecified:literal) {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal $(| $alias:literal)*, )+
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize, serde::Deserialize)]
        pub enum $name {
            /// Not set: the proto3 zero value, omitted from JSON.
            #[default]
            #[serde(rename = $unspecified)]
            Unspecified,
            $( $(#[$vmeta])* #[serde(rename = $text $(, alias = $alias)*)] $variant, )+
        }

        impl $name {
            /// Every value's text, the zero value first.
            pub const VALUES: &'static [&'static str] = &[$unspecified, $($text),+];

            /// Every alias with the text of the value it reads as.
            pub const ALIASES: &'static [(&'static str, &'static str)] =
                &[$($( ($alias, $text), )*)+];

            /// The value's text.
            pub fn as_str(self) -> &'static str {
                match self {
                    Self::Unspecified => $unspecified,
                    $( Self::$variant => $text, )+
                }
            }

            /// The value named `text` or one of its aliases, if any (case-sensitive, as
            /// in AIP-160).
            pub fn parse(text: &str) -> Option<Self> {
                match text {
                    $unspecified => Some(Self::Unspecified),
                    $( $text $(| $alias)* => Some(Self::$variant), )+
                    _ => None,
                }
            }

            /// Whether this is the zero value.
            pub fn is_unspecified(&self) -> bool {
                matches!(self, Self::Unspecified)
            }
        }

        /// A string schema whose values are the wire's ([`Self::VALUES`]), described by
        /// the enum's doc comment.
        #[cfg(feature = "openapi")]
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                use utoipa::openapi::schema::{ObjectBuilder, Type};
                let description: Vec<&str> = [$($doc),*].iter().map(|line| line.trim()).collect();
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .enum_values(Some(Self::VALUES.iter().copied()))
                    .description(Some(description.join("\n")))
                    .into()
            }
        }

        #[cfg(feature = "openapi")]
        impl utoipa::ToSchema for $name {}

        #[cfg(feature = "openapi")]
        impl $name {
            /// The schema without the zero value, for a field that needs a value.
            pub fn specified_schema() -> utoipa::openapi::schema::Object {
                use utoipa::openapi::schema::{ObjectBuilder, Type};
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .enum_values(Some(Self::VALUES[1..].iter().copied()))
                    .build()
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use crate::entity::model::{CompanyType, Gender, RiskStatus};

    #[test]
    fn aliases_read_as_their_value_and_are_never_written() {
        assert_eq!(RiskStatus::parse("RATED"), Some(RiskStatus::Active));
        assert_eq!(RiskStatus::parse("ACTIVE"), Some(RiskStatus::Active));
        assert_eq!(RiskStatus::ALIASES, &[("RATED", "ACTIVE")]);
        assert_eq!(
            RiskStatus::VALUES,
            &["RISK_STATUS_UNSPECIFIED", "ACTIVE", "OUTDATED"]
        );
        assert!(Gender::ALIASES.is_empty());
        let read: CompanyType = serde_json::from_str("\"GOVERMENTAL_ORG\"").unwrap();
        assert_eq!(read, CompanyType::GovernmentalOrg);
        assert_eq!(
            serde_json::to_string(&read).unwrap(),
            "\"GOVERNMENTAL_ORG\""
        );
        let rated: RiskStatus = serde_json::from_str("\"RATED\"").unwrap();
        assert_eq!(serde_json::to_string(&rated).unwrap(), "\"ACTIVE\"");
    }
}
