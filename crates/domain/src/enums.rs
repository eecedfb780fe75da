//! Proto-style enums: a zero value `X_UNSPECIFIED` that stands for "not set" and is
//! left out of JSON, and string values in UPPER_SNAKE case.

/// Declares a proto-style enum with its zero value, its string values, serde, parsing
/// and the list of values (for filter declarations and CHECK constraints).
#[macro_export]
macro_rules! proto_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident ($unspecified:literal) {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize, serde::Deserialize)]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        pub enum $name {
            /// Not set: the proto3 zero value, omitted from JSON.
            #[default]
            #[serde(rename = $unspecified)]
            Unspecified,
            $( $(#[$vmeta])* #[serde(rename = $text)] $variant, )+
        }

        impl $name {
            /// Every value's text, the zero value first.
            pub const VALUES: &'static [&'static str] = &[$unspecified, $($text),+];

            /// The value's text.
            pub fn as_str(self) -> &'static str {
                match self {
                    Self::Unspecified => $unspecified,
                    $( Self::$variant => $text, )+
                }
            }

            /// The value named `text`, if any (case-sensitive, as in AIP-160).
            pub fn parse(text: &str) -> Option<Self> {
                match text {
                    $unspecified => Some(Self::Unspecified),
                    $( $text => Some(Self::$variant), )+
                    _ => None,
                }
            }

            /// Whether this is the zero value.
            pub fn is_unspecified(&self) -> bool {
                matches!(self, Self::Unspecified)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
