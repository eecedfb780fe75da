//! ICAO Doc 9303 codes of states and organisations, as printed on travel documents
//! (issuing state, nationality): ISO 3166-1 alpha-3 codes, and the codes Doc 9303
//! Part 3 adds, such as `D` for Germany, `GBN` for British Nationals (Overseas),
//! `UNO` for the United Nations, `XXA` for stateless persons and `UTO` for Utopia, the
//! state of specimen documents.
//!
//! A code is kept as printed: a document printed `D` stays `D`, and comparing it
//! with `DEU` is [`IcaoCode::same_state`]'s job. Input may also be an ISO 3166-1
//! alpha-2 code, which becomes its alpha-3 code (`DE` becomes `DEU`), in any case, and
//! may carry the MRZ's trailing `<` fillers (`D<<`).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The codes Doc 9303 Part 3 uses beside ISO 3166-1 alpha-3, each with the ISO 3166-1
/// alpha-2 code of the state it stands for; `None` for organisations, for the
/// nationality statuses that name no state (stateless, refugee, unspecified) and for
/// the specimen state.
const ICAO_ONLY: [(&str, Option<&str>); 27] = [
    // Germany.
    ("D", Some("DE")),
    // British nationality categories: citizens of British Overseas Territories, British
    // Nationals (Overseas), British Overseas Citizens, British Protected Persons and
    // British Subjects; their passports are the United Kingdom's.
    ("GBD", Some("GB")),
    ("GBN", Some("GB")),
    ("GBO", Some("GB")),
    ("GBP", Some("GB")),
    ("GBS", Some("GB")),
    // The Republic of Kosovo; `XK` is the user-assigned alpha-2 code others use.
    ("RKS", Some("XK")),
    // The European Union.
    ("EUE", None),
    // The United Nations, its specialised agencies, and UNMIK's travel documents for
    // residents of Kosovo.
    ("UNO", None),
    ("UNA", None),
    ("UNK", None),
    // African Development Bank, African Export-Import Bank, Caribbean Community,
    // Council of Europe, COMESA, ECOWAS, INTERPOL, Organisation of Eastern Caribbean
    // States, Parliamentary Assembly of the Mediterranean, Sovereign Military Order of
    // Malta, Southern African Development Community.
    ("XBA", None),
    ("XIM", None),
    ("XCC", None),
    ("XCE", None),
    ("XCO", None),
    ("XEC", None),
    ("XPO", None),
    ("XES", None),
    ("XMP", None),
    ("XOM", None),
    ("XDC", None),
    // Stateless person, refugee (1951 Convention), other refugee, unspecified
    // nationality.
    ("XXA", None),
    ("XXB", None),
    ("XXC", None),
    ("XXX", None),
    // Utopia, the issuing state of specimen documents.
    ("UTO", None),
];

/// The ISO 3166-1 alpha-3 code of Kosovo in the country table, which is no ISO
/// assignment and never printed on a document: Doc 9303 uses `RKS`.
const KOSOVO_USER_ASSIGNED: &str = "XKX";

/// A Doc 9303 code of a state or organisation, upper case, as printed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct IcaoCode(String);

impl IcaoCode {
    /// Every code as a document prints it, sorted: Doc 9303's own codes and the
    /// assigned ISO 3166-1 alpha-3 codes (not the alpha-2 codes `parse` also reads).
    pub fn printed() -> Vec<&'static str> {
        let mut codes: Vec<&'static str> = ICAO_ONLY.iter().map(|(code, _)| *code).collect();
        for country in &celes::Country::get_countries() {
            codes.push(country.alpha3);
        }
        codes.retain(|code| IcaoCode::parse(code).is_ok_and(|parsed| parsed.as_str() == *code));
        codes.sort_unstable();
        codes.dedup();
        codes
    }
}

/// Every code [`IcaoCode::parse`] reads, in upper case: Doc 9303's own codes and the
/// assigned ISO 3166-1 alpha-3 and alpha-2 codes.
#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for IcaoCode {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        let mut codes: Vec<&'static str> = ICAO_ONLY.iter().map(|(code, _)| *code).collect();
        for country in &celes::Country::get_countries() {
            codes.extend([country.alpha2, country.alpha3]);
        }
        codes.retain(|code| IcaoCode::parse(code).is_ok());
        crate::values::code_list_schema(
            codes,
            "A state or organisation as ICAO Doc 9303 prints it (FRA, D, UTO), or an ISO 3166-1 alpha-2 code.",
        )
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for IcaoCode {}

impl IcaoCode {
    /// Parses a code: an ISO 3166-1 alpha-3 code, a code of Doc 9303 Part 3, or an
    /// alpha-2 code (turned into its alpha-3 code; `XK` into `RKS`), in any case,
    /// with surrounding spaces and trailing `<` fillers ignored.
    ///
    /// # Errors
    /// A description of the problem when the text is no such code.
    pub fn parse(text: &str) -> Result<IcaoCode, String> {
        let code = text.trim().trim_end_matches('<').to_ascii_uppercase();
        if code.is_empty() || code.len() > 3 || !code.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(format!(
                "'{text}' is not an ICAO 9303 code (such as FRA, D or UTO) or an ISO 3166-1 \
                 alpha-2 code"
            ));
        }
        if ICAO_ONLY.iter().any(|(icao, _)| *icao == code) {
            return Ok(IcaoCode(code));
        }
        let country = match code.len() {
            2 => celes::Country::from_alpha2(&code).ok(),
            3 => celes::Country::from_alpha3(&code).ok(),
            _ => None,
        };
        match country.map(|c| c.alpha3) {
            Some(KOSOVO_USER_ASSIGNED) if code.len() == 2 => Ok(IcaoCode("RKS".to_owned())),
            Some(alpha3) if alpha3 != KOSOVO_USER_ASSIGNED => Ok(IcaoCode(alpha3.to_owned())),
            _ => Err(format!(
                "'{text}' is not an assigned ISO 3166-1 code or an ICAO 9303 code"
            )),
        }
    }

    /// The code.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The ISO 3166-1 alpha-2 code of the state the code stands for (`D` and `DEU`
    /// give `DE`, `GBD` gives `GB`, `RKS` gives `XK`); `None` for organisations
    /// (`UNO`, `EUE`, ...), the statuses `XXA`, `XXB`, `XXC`, `XXX`, and `UTO`.
    pub fn to_alpha2(&self) -> Option<&'static str> {
        match ICAO_ONLY.iter().find(|(icao, _)| *icao == self.0) {
            Some((_, alpha2)) => *alpha2,
            None => celes::Country::from_alpha3(&self.0)
                .ok()
                .map(|country| country.alpha2),
        }
    }

    /// Whether both codes name the same state: the same code, or two codes of one
    /// state (`D` and `DEU`; `GBR` and the British nationality categories `GBD`,
    /// `GBN`, `GBO`, `GBP`, `GBS`). Codes of no state match only themselves. Compare
    /// the codes themselves to tell the British categories apart.
    pub fn same_state(&self, other: &IcaoCode) -> bool {
        self == other
            || self
                .to_alpha2()
                .is_some_and(|a| other.to_alpha2() == Some(a))
    }
}

impl fmt::Display for IcaoCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for IcaoCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for IcaoCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        IcaoCode::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(text: &str) -> String {
        IcaoCode::parse(text).unwrap().as_str().to_owned()
    }

    #[test]
    fn codes_are_kept_as_printed_in_upper_case() {
        for (input, stored) in [
            ("D", "D"),
            ("d", "D"),
            ("D<<", "D"),
            (" deu ", "DEU"),
            ("UTO", "UTO"),
            ("xxa", "XXA"),
            ("GBN", "GBN"),
            ("RKS", "RKS"),
            ("EUE", "EUE"),
            ("FRA", "FRA"),
            ("UNO<", "UNO"),
        ] {
            assert_eq!(code(input), stored, "{input}");
        }
    }

    #[test]
    fn alpha_2_codes_become_alpha_3() {
        assert_eq!(
            code("DE"),
            "DEU",
            "DE is Germany's alpha-3, not the printed D"
        );
        assert_eq!(code("au"), "AUS");
        assert_eq!(code("GB"), "GBR");
        assert_eq!(code("XK"), "RKS", "Kosovo's code on documents");
    }

    #[test]
    fn unknown_and_malformed_codes_are_refused() {
        for text in [
            "", "<<<", "XX", "ZZZ", "DEUT", "F1", "DE-", "XKX", "U", "EU", "ÄÖÜ", "D E",
        ] {
            assert!(IcaoCode::parse(text).is_err(), "{text:?} should be refused");
        }
    }

    #[test]
    fn the_state_of_a_code_is_its_alpha_2() {
        let alpha2 = |text: &str| IcaoCode::parse(text).unwrap().to_alpha2();
        assert_eq!(alpha2("D"), Some("DE"));
        assert_eq!(alpha2("DEU"), Some("DE"));
        assert_eq!(alpha2("GBD"), Some("GB"));
        assert_eq!(alpha2("GBS"), Some("GB"));
        assert_eq!(alpha2("RKS"), Some("XK"));
        assert_eq!(alpha2("NZL"), Some("NZ"));
        for stateless in [
            "UTO", "XXA", "XXB", "XXC", "XXX", "UNO", "UNK", "EUE", "XPO",
        ] {
            assert_eq!(alpha2(stateless), None, "{stateless}");
        }
    }

    #[test]
    fn same_state_joins_the_codes_of_one_state() {
        let same = |a: &str, b: &str| {
            IcaoCode::parse(a)
                .unwrap()
                .same_state(&IcaoCode::parse(b).unwrap())
        };
        assert!(same("D", "DEU"));
        assert!(same("DEU", "de"));
        assert!(same("GBN", "GBR"));
        assert!(same("UTO", "UTO"));
        assert!(same("XXA", "XXA"));
        assert!(!same("D", "AUT"));
        assert!(!same("XXA", "XXB"), "statuses name no state");
        assert!(!same("UNK", "RKS"), "UNMIK is not the state");
        assert!(!same("UTO", "XXX"));
    }

    #[test]
    fn every_iso_alpha_3_code_but_kosovos_placeholder_is_accepted() {
        for country in celes::Country::get_countries() {
            if country.alpha3 == KOSOVO_USER_ASSIGNED {
                continue;
            }
            assert_eq!(code(country.alpha3), country.alpha3);
            assert_eq!(code(country.alpha2), country.alpha3);
        }
    }

    #[test]
    fn codes_read_and_write_as_json_strings() {
        let read: IcaoCode = serde_json::from_str("\"de\"").unwrap();
        assert_eq!(serde_json::to_string(&read).unwrap(), "\"DEU\"");
        assert!(serde_json::from_str::<IcaoCode>("\"QQ\"").is_err());
    }
}
