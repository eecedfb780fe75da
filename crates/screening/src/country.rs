//! Country names, codes and nationality adjectives mapped to ISO 3166-1 alpha-2.
//!
//! The `celes` crate knows the ISO names, codes and common aliases; this module adds the forms
//! sanctions lists and customer files use that it does not know ("Korea, North", "Iran (Islamic
//! Republic of)", "Congo, Democratic Republic of the", demonyms such as "Iranian").

use std::str::FromStr;

use celes::Country;

/// Forms seen in the bundled lists and customer data that `celes` does not resolve, keyed by
/// the lower-case letters-only form of the text.
const EXTRA: &[(&str, &str)] = &[
    ("koreanorth", "KP"),
    ("northkorea", "KP"),
    ("democraticpeoplesrepublicofkorea", "KP"),
    ("dprk", "KP"),
    ("koreasouth", "KR"),
    ("southkorea", "KR"),
    ("republicofkorea", "KR"),
    ("korea", "KR"),
    ("congodemocraticrepublicofthe", "CD"),
    ("democraticrepublicofthecongo", "CD"),
    ("democraticrepublicofcongo", "CD"),
    ("drc", "CD"),
    ("congo", "CG"),
    ("republicofthecongo", "CG"),
    ("iranislamicrepublicof", "IR"),
    ("unitedkingdomofgreatbritainandnorthernireland", "GB"),
    ("unitedkingdom", "GB"),
    ("uk", "GB"),
    ("greatbritain", "GB"),
    ("unitedstatesofamerica", "US"),
    ("unitedstates", "US"),
    ("usa", "US"),
    ("stateofpalestine", "PS"),
    ("palestine", "PS"),
    ("palestinianterritories", "PS"),
    ("gaza", "PS"),
    ("regiongaza", "PS"),
    ("westbank", "PS"),
    ("macedoniatheformeryugoslavrepublicof", "MK"),
    ("northmacedoniatherepublicof", "MK"),
    ("northmacedonia", "MK"),
    ("thegambia", "GM"),
    ("gambia", "GM"),
    ("caboverde", "CV"),
    ("capeverde", "CV"),
    ("czechrepublic", "CZ"),
    ("hongkong", "HK"),
    ("taiwan", "TW"),
    ("ivorycoast", "CI"),
    ("cotedivoire", "CI"),
    ("laos", "LA"),
    ("brunei", "BN"),
    ("burma", "MM"),
    ("myanmar", "MM"),
    ("russia", "RU"),
    ("russianfederation", "RU"),
    ("syria", "SY"),
    ("syrianarabrepublic", "SY"),
    ("turkey", "TR"),
    ("turkiye", "TR"),
    ("vietnam", "VN"),
    ("bolivia", "BO"),
    ("venezuela", "VE"),
    ("tanzania", "TZ"),
    ("unitedrepublicoftanzania", "TZ"),
    ("moldova", "MD"),
    ("easttimor", "TL"),
    ("timorleste", "TL"),
    ("kosovo", "XK"),
    ("bosniaandherzegovina", "BA"),
    ("centralafricanrepublic", "CF"),
    ("dominicanrepublic", "DO"),
    ("netherlands", "NL"),
    ("philippines", "PH"),
    ("unitedarabemirates", "AE"),
    ("uae", "AE"),
    ("saintkittsandnevis", "KN"),
    ("puertorico", "PR"),
];

/// Nationality adjectives, keyed like [`EXTRA`].
const DEMONYMS: &[(&str, &str)] = &[
    ("afghan", "AF"),
    ("algerian", "DZ"),
    ("american", "US"),
    ("british", "GB"),
    ("chinese", "CN"),
    ("egyptian", "EG"),
    ("eritrean", "ER"),
    ("french", "FR"),
    ("german", "DE"),
    ("indian", "IN"),
    ("indonesian", "ID"),
    ("iranian", "IR"),
    ("iraqi", "IQ"),
    ("jordanian", "JO"),
    ("kuwaiti", "KW"),
    ("lebanese", "LB"),
    ("libyan", "LY"),
    ("malian", "ML"),
    ("mauritanian", "MR"),
    ("moroccan", "MA"),
    ("nigerian", "NG"),
    ("northkorean", "KP"),
    ("pakistani", "PK"),
    ("palestinian", "PS"),
    ("possiblypalestinian", "PS"),
    ("qatari", "QA"),
    ("russian", "RU"),
    ("saudi", "SA"),
    ("somali", "SO"),
    ("sudanese", "SD"),
    ("syrian", "SY"),
    ("tunisian", "TN"),
    ("turkish", "TR"),
    ("ukrainian", "UA"),
    ("yemeni", "YE"),
];

fn key(text: &str) -> String {
    deunicode::deunicode(text)
        .chars()
        .filter(char::is_ascii_alphabetic)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Maps a country name, demonym, alpha-2 or alpha-3 code to its upper-case ISO 3166-1 alpha-2
/// code; `None` for anything unknown (the caller then treats the nationality as missing).
pub fn to_alpha2(text: &str) -> Option<String> {
    let trimmed = text.trim();
    if trimmed.is_empty() || trimmed.len() > 80 {
        return None;
    }
    let k = key(trimmed);
    if k.is_empty() {
        return None;
    }
    if let Some((_, code)) = EXTRA.iter().chain(DEMONYMS).find(|(name, _)| *name == k) {
        return Some((*code).to_string());
    }
    let resolved = if k.len() == 2 {
        Country::from_alpha2(&k)
    } else if k.len() == 3 {
        Country::from_alpha3(&k)
    } else {
        Country::from_str(&k)
            .or_else(|_| Country::from_name(&k))
            .or_else(|_| Country::from_alias(&k))
            .or_else(|_| Country::from_name(format!("the{k}")))
    };
    resolved.ok().map(|c| c.alpha2.to_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::to_alpha2;

    #[test]
    fn maps_list_and_customer_forms() {
        for (text, code) in [
            ("Egypt", "EG"),
            ("Korea, North", "KP"),
            ("Democratic People's Republic of Korea", "KP"),
            ("Iran (Islamic Republic of)", "IR"),
            ("Russian Federation", "RU"),
            ("Congo, Democratic Republic of the", "CD"),
            ("United Kingdom of Great Britain and Northern Ireland", "GB"),
            ("Türkiye", "TR"),
            ("Syrian Arab Republic", "SY"),
            ("Iranian", "IR"),
            ("af", "AF"),
            ("IRQ", "IQ"),
            ("Ivory Coast", "CI"),
            ("East Timor", "TL"),
            ("Germany", "DE"),
            ("Saudi Arabia", "SA"),
            ("Hong Kong", "HK"),
        ] {
            assert_eq!(to_alpha2(text).as_deref(), Some(code), "{text}");
        }
        assert_eq!(to_alpha2(""), None);
        assert_eq!(to_alpha2("former Soviet Union"), None);
        assert_eq!(to_alpha2("na"), Some("NA".to_string()));
    }
}
