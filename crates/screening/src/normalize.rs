//! Name normalisation: from whatever a list or a customer writes to comparable ASCII tokens.
//!
//! Steps, in order:
//! 1. Input is capped at [`MAX_NAME_CHARS`] characters and [`MAX_TOKENS`] tokens; control
//!    characters are dropped. An empty result is an empty name, which matches nothing.
//! 2. `SURNAME, Given` (one comma, person names) is turned into `Given SURNAME`.
//! 3. Every character is folded to ASCII: accents are stripped and letters that do not
//!    decompose are mapped (ß→ss, ø→o, ł→l, đ→d, ı→i, æ→ae, œ→oe, þ→th) by the `deunicode`
//!    transliteration tables, which also romanise Cyrillic, Greek, Arabic, Hebrew, Thai,
//!    Chinese and Japanese. Hangul is romanised here, syllable by syllable, in up to three
//!    variants: Revised Romanisation, the McCune-Reischauer spelling without diacritics (the
//!    one most lists use), and McCune-Reischauer with the surname in its conventional passport
//!    spelling ([`KOREAN_SURNAMES`]). Chinese characters become one token per syllable.
//! 4. Words written in a script that does not write (all) vowels (Arabic, Hebrew, Syriac,
//!    Thaana, Thai, Lao, Devanagari and other Brahmic abugidas) are flagged: the matcher compares
//!    them by their consonant skeleton (`محمد` → `mhmd` ~ `Mohamed` → `mhmd`). The Arabic
//!    article `ال` becomes the particle `al`.
//! 5. Apostrophes join (`O'Brien` → `obrien`), other punctuation separates.
//! 6. Each token is classified: honorifics, titles and titles of office (dr, haji, shaykh,
//!    mullah, maulavi, president, monsieur, ...) are dropped and reported; particles (al, el,
//!    bin, ibn, ben, bint, van, de, ...) stay with a low weight (`abd`, `abdul`, `abu` are
//!    words: they begin compound names); single letters are initials, except syllables of
//!    Hangul and Chinese, which are always words; legal forms of organisations are mapped to one
//!    spelling (aktiengesellschaft → ag, limited → ltd) with a low weight, and number words in
//!    organisations' names become digits (`First` → `1`, `Forty 4` → `44`).
//! 7. In a person's name part mixing letters and digits, digits are read as the letters they
//!    are mistaken for (`Sech1n` → `sechin`).

use std::fmt::Write as _;

use serde::Serialize;
use unicode_normalization::UnicodeNormalization;

use crate::model::EntityKind;

/// Longest input read, in characters; the rest is ignored (no real name is longer).
pub const MAX_NAME_CHARS: usize = 300;
/// Most tokens kept from one name.
pub const MAX_TOKENS: usize = 12;

/// What a token is, which decides its weight and how it may match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenKind {
    /// An ordinary name part.
    Word,
    /// A single letter standing for a name part.
    Initial,
    /// A particle or connective (al, bin, van, de, ...): kept, but weighs little.
    Particle,
    /// An organisation's legal form (ltd, ag, llc, ...): kept, but weighs little.
    LegalForm,
    /// A region qualifying an organisation's name after its own words (`Faberlic Europe`): on
    /// one side only it names a division of the same organisation; two different regions name
    /// two organisations.
    Region,
}

/// One normalised name part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Token {
    /// Lower-case ASCII text.
    pub text: String,
    /// Word, initial, particle, legal form or region.
    pub kind: TokenKind,
    /// True when the source script does not write all vowels: compare by consonant skeleton.
    pub skeleton: bool,
}

/// A normalised name: its tokens and what was dropped on the way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NormName {
    /// The tokens, in written order after `SURNAME, Given` reordering.
    pub tokens: Vec<Token>,
    /// Honorifics and titles that were removed (shown in explanations).
    pub dropped: Vec<String>,
    /// True for organisations, vessels and aircraft: their extra name parts are charged more
    /// (`Banco Santander Chile` is another bank than `Banco Santander`).
    pub organisation: bool,
}

impl NormName {
    /// The tokens joined by spaces.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for (i, t) in self.tokens.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(&t.text);
        }
        out
    }

    /// True when no token is left.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }
}

const HONORIFICS: &[&str] = &[
    "dr",
    "doctor",
    "mr",
    "mrs",
    "ms",
    "miss",
    "mister",
    "prof",
    "professor",
    "sir",
    "dame",
    "lord",
    "lady",
    "hon",
    "honorable",
    "honourable",
    "rev",
    "reverend",
    "haji",
    "hajji",
    "hadji",
    "alhaj",
    "alhaji",
    "hajj",
    "shaykh",
    "sheikh",
    "shaikh",
    "sheik",
    "cheikh",
    "mullah",
    "mulla",
    "mollah",
    "maulavi",
    "maulvi",
    "mawlawi",
    "moulavi",
    "molvi",
    "maulana",
    "mawlana",
    "mufti",
    "qari",
    "imam",
    "emir",
    "amir",
    "sayyid",
    "sayed",
    "syed",
    "hafiz",
    "ustadh",
    "ustad",
    "gen",
    "general",
    "col",
    "colonel",
    "maj",
    "major",
    "capt",
    "captain",
    "lt",
    "lieutenant",
    "brig",
    "brigadier",
    "adm",
    "admiral",
    "sgt",
    "sergeant",
    "jr",
    "sr",
    "jnr",
    "snr",
    "president",
    "minister",
    "senator",
    "monsieur",
    "madame",
    "mme",
    "mlle",
    "herr",
    "frau",
    "senor",
    "senora",
    "sayyida",
];

const PARTICLES: &[&str] = &[
    "al", "el", "ul", "ad", "ar", "as", "ash", "at", "az", "an", "bin", "ibn", "ben", "bint",
    "binti", "bte", "bt", "van", "von", "der", "den", "de", "da", "di", "du", "del", "della",
    "dos", "das", "do", "la", "le", "les", "y", "e", "und", "and", "of", "the", "ter", "ten", "zu",
    "mac", "st",
];

/// Legal forms and their one spelling.
const LEGAL_FORMS: &[(&str, &str)] = &[
    ("aktiengesellschaft", "ag"),
    ("ag", "ag"),
    ("gesellschaft", "gmbh"),
    ("gmbh", "gmbh"),
    ("limited", "ltd"),
    ("ltd", "ltd"),
    ("company", "co"),
    ("co", "co"),
    ("corporation", "corp"),
    ("corp", "corp"),
    ("incorporated", "inc"),
    ("inc", "inc"),
    ("llc", "llc"),
    ("llp", "llp"),
    ("lp", "lp"),
    ("plc", "plc"),
    ("sa", "sa"),
    ("sas", "sas"),
    ("sarl", "sarl"),
    ("srl", "srl"),
    ("spa", "spa"),
    ("bv", "bv"),
    ("nv", "nv"),
    ("ab", "ab"),
    ("as", "as"),
    ("asa", "asa"),
    ("oy", "oy"),
    ("kg", "kg"),
    ("ohg", "ohg"),
    ("pte", "pte"),
    ("pty", "pty"),
    ("pvt", "pvt"),
    ("private", "pvt"),
    ("jsc", "jsc"),
    ("ano", "ano"),
    ("ojsc", "jsc"),
    ("pjsc", "jsc"),
    ("cjsc", "jsc"),
    ("ao", "jsc"),
    ("oao", "jsc"),
    ("pao", "jsc"),
    ("zao", "jsc"),
    ("ooo", "llc"),
    ("tov", "llc"),
    ("fze", "fze"),
    ("fzco", "fzco"),
    ("fzc", "fzc"),
    ("establishment", "est"),
    ("est", "est"),
    ("holding", "holding"),
    ("holdings", "holding"),
    ("group", "group"),
    ("trading", "trading"),
    ("international", "intl"),
    ("intl", "intl"),
];

/// Regions as organisations name their divisions (`Faberlic Europe`, `Acme Asia Pacific`).
/// Only a word after an organisation's own words is read as a region, not after a particle
/// (`Bank of Asia` names its bank by the place). Countries are not regions here: a
/// country's subsidiary is another legal entity (`Banco Santander Chile`).
const REGIONS: &[&str] = &[
    "africa",
    "americas",
    "apac",
    "asia",
    "asiapacific",
    "benelux",
    "caribbean",
    "emea",
    "europe",
    "eurasia",
    "iberia",
    "latam",
    "mena",
    "nordic",
    "nordics",
    "pacific",
    "scandinavia",
];

/// Scripts whose romanisation lacks (some) vowels.
fn is_skeleton_script(c: char) -> bool {
    matches!(c as u32,
        0x0590..=0x05FF   // Hebrew
        | 0x0600..=0x06FF // Arabic
        | 0x0700..=0x074F // Syriac
        | 0x0750..=0x077F // Arabic supplement
        | 0x0780..=0x07BF // Thaana
        | 0x0900..=0x0DFF // Devanagari .. Sinhala
        | 0x0E00..=0x0EFF // Thai, Lao
        | 0x0F00..=0x0FFF // Tibetan
        | 0x1000..=0x109F // Myanmar
        | 0x1780..=0x17FF // Khmer
        | 0x08A0..=0x08FF // Arabic extended
        | 0xFB1D..=0xFDFF // Hebrew and Arabic presentation forms
        | 0xFE70..=0xFEFF)
}

fn is_han(c: char) -> bool {
    matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

fn is_hangul_syllable(c: char) -> bool {
    ('\u{AC00}'..='\u{D7A3}').contains(&c)
}

const HANGUL_INITIAL_RR: [&str; 19] = [
    "g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch", "k", "t", "p",
    "h",
];
const HANGUL_INITIAL_MR: [&str; 19] = [
    "k", "kk", "n", "t", "tt", "r", "m", "p", "pp", "s", "ss", "", "j", "jj", "ch", "k", "t", "p",
    "h",
];
const HANGUL_VOWEL_RR: [&str; 21] = [
    "a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae", "oe", "yo", "u", "wo", "we",
    "wi", "yu", "eu", "ui", "i",
];
const HANGUL_VOWEL_MR: [&str; 21] = [
    "a", "ae", "ya", "yae", "o", "e", "yo", "ye", "o", "wa", "wae", "oe", "yo", "u", "wo", "we",
    "wi", "yu", "u", "ui", "i",
];
const HANGUL_FINAL: [&str; 28] = [
    "", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "l", "l", "l", "p", "l", "m", "p", "p",
    "t", "t", "ng", "t", "t", "k", "t", "p", "t",
];

/// How Hangul is romanised in one variant of a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HangulStyle {
    /// Revised Romanisation (South Korea since 2000: `gim jeong eun`).
    Revised,
    /// McCune-Reischauer without diacritics (North Korea, most lists: `kim jong un`).
    McCune,
    /// McCune-Reischauer with the surname in its conventional passport spelling (`이` → `lee`,
    /// `박` → `park`, `최` → `choi`): [`KOREAN_SURNAMES`].
    Conventional,
}

/// The most common Korean surnames (about 80 % of the population) and the spelling most
/// passports use, which follows neither romanisation system. Only the surname syllable of a
/// Hangul name is respelt (the only syllable of a one-syllable word, the first of a
/// three-syllable word, or the first of a name written as one two-syllable word).
pub const KOREAN_SURNAMES: &[(char, &str)] = &[
    ('이', "lee"),
    ('박', "park"),
    ('최', "choi"),
    ('정', "jung"),
    ('강', "kang"),
    ('조', "cho"),
    ('윤', "yoon"),
    ('장', "jang"),
    ('임', "lim"),
    ('오', "oh"),
    ('서', "seo"),
    ('신', "shin"),
    ('권', "kwon"),
    ('황', "hwang"),
    ('안', "ahn"),
    ('송', "song"),
    ('류', "ryu"),
    ('유', "yoo"),
    ('홍', "hong"),
    ('전', "jeon"),
    ('고', "ko"),
    ('문', "moon"),
    ('손', "son"),
    ('양', "yang"),
    ('배', "bae"),
    ('백', "baek"),
    ('허', "heo"),
    ('노', "noh"),
    ('남', "nam"),
    ('심', "shim"),
    ('하', "ha"),
    ('곽', "kwak"),
    ('성', "sung"),
    ('차', "cha"),
    ('주', "joo"),
    ('우', "woo"),
    ('구', "koo"),
    ('민', "min"),
    ('진', "jin"),
    ('지', "ji"),
    ('엄', "um"),
    ('채', "chae"),
    ('원', "won"),
    ('천', "chun"),
    ('방', "bang"),
    ('공', "kong"),
    ('현', "hyun"),
    ('함', "ham"),
    ('변', "byun"),
    ('염', "yeom"),
    ('여', "yeo"),
    ('추', "choo"),
    ('도', "do"),
    ('석', "seok"),
    ('선', "sun"),
    ('설', "seol"),
    ('마', "ma"),
    ('길', "gil"),
    ('연', "yeon"),
    ('위', "wi"),
    ('표', "pyo"),
    ('명', "myung"),
    ('기', "ki"),
    ('반', "ban"),
    ('왕', "wang"),
    ('금', "keum"),
    ('옥', "ok"),
    ('육', "yook"),
    ('인', "in"),
    ('맹', "maeng"),
    ('제', "je"),
    ('모', "mo"),
    ('탁', "tak"),
    ('국', "kook"),
    ('김', "kim"),
    ('한', "han"),
    ('나', "na"),
];

/// Romanises one Hangul syllable (Revised Romanisation or simplified McCune-Reischauer).
fn hangul(c: char, mccune: bool) -> String {
    let s = (c as u32).saturating_sub(0xAC00) as usize;
    let (l, v, t) = (s / 588, (s % 588) / 28, s % 28);
    let (initials, vowels) = if mccune {
        (&HANGUL_INITIAL_MR, &HANGUL_VOWEL_MR)
    } else {
        (&HANGUL_INITIAL_RR, &HANGUL_VOWEL_RR)
    };
    let mut out = String::new();
    out.push_str(initials.get(l).copied().unwrap_or(""));
    out.push_str(vowels.get(v).copied().unwrap_or(""));
    out.push_str(HANGUL_FINAL.get(t).copied().unwrap_or(""));
    out
}

/// Reorders `SURNAME, Given` into `Given SURNAME` when there is exactly one comma and both
/// sides have letters.
fn reorder_surname_first(text: &str) -> String {
    let mut parts = text.split(',');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(surname), Some(given), None)
            if surname.chars().any(char::is_alphabetic)
                && given.chars().any(char::is_alphabetic) =>
        {
            format!("{} {}", given.trim(), surname.trim())
        }
        _ => text.to_string(),
    }
}

fn is_apostrophe(c: char) -> bool {
    matches!(
        c,
        '\'' | '`'
            | '\u{2018}'
            | '\u{2019}'
            | '\u{02BB}'
            | '\u{02BC}'
            | '\u{02BE}'
            | '\u{02BF}'
            | '\u{00B4}'
    )
}

/// True for `A.B.C.`, `p.l.c.`, `J.P`: letters each followed by a dot (the last dot optional).
fn is_dotted_initials(word: &str) -> bool {
    let bytes = word.as_bytes();
    bytes.len() >= 3
        && bytes.iter().enumerate().all(|(i, b)| {
            if i % 2 == 0 {
                b.is_ascii_alphabetic()
            } else {
                *b == b'.'
            }
        })
}

/// Multi-word legal forms and their one spelling.
const LEGAL_PHRASES: &[(&[&str], &str)] = &[
    (&["open", "joint", "stock", "company"], "jsc"),
    (&["public", "joint", "stock", "company"], "jsc"),
    (&["closed", "joint", "stock", "company"], "jsc"),
    (&["joint", "stock", "company"], "jsc"),
    (&["aktsionernoe", "obshchestvo"], "jsc"),
    (&["limited", "liability", "company"], "llc"),
    (&["limited", "liability", "partnership"], "llp"),
    (
        &["obshchestvo", "s", "ogranichennoi", "otvetstvennostiu"],
        "llc",
    ),
    (&["public", "limited", "company"], "plc"),
    (&["societatea", "cu", "raspundere", "limitata"], "srl"),
    (&["sp", "z", "o", "o"], "llc"),
    (&["sp", "z", "oo"], "llc"),
    (&["gesellschaft", "mit", "beschrankter", "haftung"], "gmbh"),
    (&["societe", "anonyme"], "sa"),
    (&["sociedad", "anonima"], "sa"),
];

/// Replaces multi-word legal forms by their one spelling.
fn fold_legal_phrases(words: Vec<RawWord>) -> Vec<RawWord> {
    let mut out: Vec<RawWord> = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let found = LEGAL_PHRASES.iter().find(|(phrase, _)| {
            words.len() - i >= phrase.len()
                && phrase
                    .iter()
                    .zip(&words[i..])
                    .all(|(p, w)| *p == w.text.as_str())
        });
        if let Some((phrase, canonical)) = found {
            out.push(RawWord {
                text: (*canonical).to_string(),
                skeleton: false,
                syllabic: false,
            });
            i += phrase.len();
        } else if let Some(word) = words.get(i) {
            out.push(RawWord {
                text: word.text.clone(),
                skeleton: word.skeleton,
                syllabic: word.syllabic,
            });
            i += 1;
        } else {
            break;
        }
    }
    out
}

/// One word of the input after transliteration, with its skeleton flag.
struct RawWord {
    text: String,
    skeleton: bool,
    /// A syllable of a syllabic script (Hangul, Chinese): never an initial, even when one
    /// letter long (`이` → `i`, `오` → `o`).
    syllabic: bool,
}

/// Digits read as the letters they are mistaken for (OCR, leetspeak) inside a person's name
/// part that mixes letters and digits (`I9or Sech1n` → `igor sechin`).
fn ocr_letter(c: char) -> char {
    match c {
        '0' => 'o',
        '1' => 'i',
        '3' => 'e',
        '4' => 'a',
        '5' => 's',
        '6' => 'g',
        '7' => 't',
        '8' => 'b',
        '9' => 'g',
        other => other,
    }
}

/// The romanisation of the Hangul syllables of one word, one piece per syllable.
fn hangul_word(word: &str, style: HangulStyle, only_word: bool) -> Vec<String> {
    let syllables: Vec<char> = word.chars().filter(|c| is_hangul_syllable(*c)).collect();
    let surname_first =
        syllables.len() == 1 || syllables.len() == 3 || (syllables.len() == 2 && only_word);
    let mut pieces = Vec::with_capacity(2);
    let mut given = String::new();
    for (i, &c) in syllables.iter().enumerate() {
        if i == 0 && surname_first {
            let conventional = KOREAN_SURNAMES
                .iter()
                .find(|(s, _)| *s == c)
                .filter(|_| style == HangulStyle::Conventional);
            pieces.push(match conventional {
                Some((_, spelling)) => (*spelling).to_string(),
                None => hangul(c, style != HangulStyle::Revised),
            });
        } else {
            // The syllables of a given name are one name, in their order (`광수` is
            // `Kwangsu`, written `Kwang Su` or `Kwang-su` in lists, and not `Su Kwang`).
            given.push_str(&hangul(c, style != HangulStyle::Revised));
        }
    }
    if !given.is_empty() {
        pieces.push(given);
    }
    pieces
}

/// Transliterates the words of `text`; `style` picks the Hangul variant.
fn transliterate(text: &str, style: HangulStyle, kind: EntityKind) -> Vec<RawWord> {
    let mut words = Vec::new();
    let word_count = text.split_whitespace().count();
    for word in text.split(|c: char| c.is_whitespace()) {
        if word.is_empty() {
            continue;
        }
        let skeleton = word.chars().any(is_skeleton_script);
        let mut word = word;
        if skeleton && let Some(rest) = word.strip_prefix("ال").filter(|r| r.chars().count() >= 2)
        {
            words.push(RawWord {
                text: "al".to_string(),
                skeleton: false,
                syllabic: false,
            });
            word = rest;
        }
        if word.chars().all(is_hangul_syllable) {
            for piece in hangul_word(word, style, word_count == 1) {
                words.push(RawWord {
                    text: piece,
                    skeleton: false,
                    syllabic: true,
                });
            }
            continue;
        }
        let mut out = String::new();
        let mut syllabic = false;
        for c in word.nfc() {
            if c.is_control() {
                continue;
            }
            if is_apostrophe(c) {
                continue;
            }
            if c.is_ascii() {
                out.push(c);
            } else if is_hangul_syllable(c) {
                syllabic = true;
                let _ = write!(out, " {} ", hangul(c, style != HangulStyle::Revised));
            } else if is_han(c) {
                syllabic = true;
                let _ = write!(out, " {} ", deunicode::deunicode_char(c).unwrap_or(""));
            } else if let Some(folded) = deunicode::deunicode_char(c) {
                if c.is_alphabetic() {
                    // A letter folds to letters only (`Қ` is `q`, not `k'`).
                    out.extend(folded.chars().filter(char::is_ascii_alphanumeric));
                } else {
                    out.push_str(folded);
                }
            }
        }
        if is_dotted_initials(&out) {
            out.retain(|c| c.is_ascii_alphanumeric());
        }
        for piece in out.split(|c: char| !c.is_ascii_alphanumeric()) {
            if piece.is_empty() {
                continue;
            }
            let mut text = piece.to_ascii_lowercase();
            if kind == EntityKind::Person
                && text.bytes().any(|b| b.is_ascii_digit())
                && text.bytes().any(|b| b.is_ascii_alphabetic())
            {
                text = text.chars().map(ocr_letter).collect();
            }
            words.push(RawWord {
                text,
                skeleton,
                syllabic,
            });
        }
    }
    words
}

/// Number words and their digits (cardinal, then ordinal), read in organisations' names.
const NUMBER_WORDS: &[(&str, u32, bool)] = &[
    ("one", 1, false),
    ("two", 2, false),
    ("three", 3, false),
    ("four", 4, false),
    ("five", 5, false),
    ("six", 6, false),
    ("seven", 7, false),
    ("eight", 8, false),
    ("nine", 9, false),
    ("ten", 10, false),
    ("eleven", 11, false),
    ("twelve", 12, false),
    ("thirteen", 13, false),
    ("fourteen", 14, false),
    ("fifteen", 15, false),
    ("sixteen", 16, false),
    ("seventeen", 17, false),
    ("eighteen", 18, false),
    ("nineteen", 19, false),
    ("twenty", 20, false),
    ("thirty", 30, false),
    ("forty", 40, false),
    ("fifty", 50, false),
    ("sixty", 60, false),
    ("seventy", 70, false),
    ("eighty", 80, false),
    ("ninety", 90, false),
    ("first", 1, true),
    ("second", 2, true),
    ("third", 3, true),
    ("fourth", 4, true),
    ("fifth", 5, true),
    ("sixth", 6, true),
    ("seventh", 7, true),
    ("eighth", 8, true),
    ("ninth", 9, true),
    ("tenth", 10, true),
];

/// A number word or numeral: its value and whether it is an ordinal (`1st`, `first`).
fn number_value(word: &str) -> Option<(u32, bool)> {
    if let Some(&(_, n, ordinal)) = NUMBER_WORDS.iter().find(|(w, _, _)| *w == word) {
        return Some((n, ordinal));
    }
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &word[digits.len()..];
    let ordinal = matches!(suffix, "st" | "nd" | "rd" | "th");
    if digits.is_empty() || digits.len() > 6 || !(suffix.is_empty() || ordinal) {
        return None;
    }
    digits.parse().ok().map(|n| (n, ordinal))
}

/// Writes numbers in organisations' names one way: number words become digits, a tens word
/// followed by a unit is one number (`Forty 4`, `forty four` → `44`), ordinals lose their
/// suffix (`1st`, `First` → `1`).
fn fold_numbers(words: Vec<RawWord>) -> Vec<RawWord> {
    let mut out: Vec<RawWord> = Vec::with_capacity(words.len());
    let mut pending_tens: Option<u32> = None;
    for word in words {
        let value = number_value(&word.text);
        match (value, pending_tens) {
            (Some((unit, _)), Some(tens)) if (1..10).contains(&unit) => {
                if let Some(last) = out.last_mut() {
                    last.text = (tens + unit).to_string();
                }
                pending_tens = None;
                continue;
            }
            _ => pending_tens = None,
        }
        if let Some((n, _)) = value {
            if (20..100).contains(&n) && n % 10 == 0 {
                pending_tens = Some(n);
            }
            out.push(RawWord {
                text: n.to_string(),
                ..word
            });
        } else {
            out.push(word);
        }
    }
    out
}

fn classify(words: Vec<RawWord>, kind: EntityKind) -> NormName {
    let mut tokens = Vec::new();
    let mut dropped = Vec::new();
    let organisation = matches!(
        kind,
        EntityKind::Organisation | EntityKind::Vessel | EntityKind::Aircraft
    );
    let count = words.len();
    let words = if organisation {
        fold_numbers(fold_legal_phrases(words))
    } else {
        words
    };
    for word in words {
        if tokens.len() >= MAX_TOKENS {
            break;
        }
        let text = word.text;
        if !organisation && count > 1 && HONORIFICS.contains(&text.as_str()) {
            dropped.push(text);
            continue;
        }
        if organisation
            && let Some((_, canonical)) = LEGAL_FORMS.iter().find(|(form, _)| *form == text)
        {
            tokens.push(Token {
                text: (*canonical).to_string(),
                kind: TokenKind::LegalForm,
                skeleton: false,
            });
            continue;
        }
        let after_own_words = tokens
            .last()
            .is_some_and(|t: &Token| t.kind != TokenKind::Particle)
            && tokens.iter().any(|t| t.kind == TokenKind::Word);
        let kind = if word.syllabic {
            // A syllable of Korean or Chinese is a name part, whatever it spells (`bin`, `i`).
            TokenKind::Word
        } else if organisation && after_own_words && REGIONS.contains(&text.as_str()) {
            TokenKind::Region
        } else if PARTICLES.contains(&text.as_str()) && count > 1 {
            TokenKind::Particle
        } else if text.len() == 1 && text.bytes().all(|b| b.is_ascii_alphabetic()) {
            TokenKind::Initial
        } else {
            TokenKind::Word
        };
        tokens.push(Token {
            text,
            kind,
            skeleton: word.skeleton,
        });
    }
    if !tokens.iter().any(|t| t.kind == TokenKind::Word) {
        for t in &mut tokens {
            if t.kind == TokenKind::LegalForm || t.kind == TokenKind::Particle {
                t.kind = TokenKind::Word;
            }
        }
    }
    NormName {
        tokens,
        dropped,
        organisation,
    }
}

fn prepare(text: &str, kind: EntityKind) -> String {
    let capped: String = text
        .chars()
        .take(MAX_NAME_CHARS)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if kind == EntityKind::Person || kind == EntityKind::Unknown {
        reorder_surname_first(&capped)
    } else {
        capped
    }
}

fn is_greek(c: char) -> bool {
    matches!(c as u32, 0x0370..=0x03FF | 0x1F00..=0x1FFF)
}

/// Greek nominative endings that the English, French or German form of a name drops
/// (`Αλέξανδρος` → `Alexander`, `Γεώργιος` → `George`, `Νικόλαος` → `Nicholas`).
const GREEK_ENDINGS: &[&str] = &["os", "as", "is", "es", "ios"];

/// The variant of a transliterated name whose words written in Greek lose their nominative
/// ending, or `None` when no word has one.
fn greek_stems(prepared: &str, words: &[RawWord]) -> Option<Vec<RawWord>> {
    let greek: Vec<bool> = prepared
        .split_whitespace()
        .map(|w| w.chars().any(is_greek))
        .collect();
    // One source word may give several pieces; stems are only taken when they pair up.
    if greek.len() != words.len() || !greek.iter().any(|g| *g) {
        return None;
    }
    let mut changed = false;
    let stems = words
        .iter()
        .zip(&greek)
        .map(|(w, g)| {
            let ending = GREEK_ENDINGS
                .iter()
                .filter(|e| *g && w.text.len() >= e.len() + 3 && w.text.ends_with(*e))
                .map(|e| e.len())
                .max();
            let text = match ending {
                Some(n) => {
                    changed = true;
                    w.text[..w.text.len() - n].to_string()
                }
                None => w.text.clone(),
            };
            RawWord {
                text,
                skeleton: w.skeleton,
                syllabic: w.syllabic,
            }
        })
        .collect();
    changed.then_some(stems)
}

/// Normalises a name into one or more variants: Hangul gives up to three romanisations, Greek
/// a second variant without nominative endings; other names one.
/// `kind` decides whether `SURNAME, Given` is reordered (persons) and whether legal forms are
/// recognised (organisations, vessels, aircraft).
pub fn normalize(text: &str, kind: EntityKind) -> Vec<NormName> {
    let prepared = prepare(text, kind);
    let words = transliterate(&prepared, HangulStyle::Revised, kind);
    let stems = if kind == EntityKind::Organisation {
        None
    } else {
        greek_stems(&prepared, &words)
    };
    let mut out = vec![classify(words, kind)];
    if let Some(stems) = stems {
        out.push(classify(stems, kind));
    }
    if prepared.chars().any(is_hangul_syllable) {
        for style in [HangulStyle::McCune, HangulStyle::Conventional] {
            let variant = classify(transliterate(&prepared, style, kind), kind);
            if !out.contains(&variant) {
                out.push(variant);
            }
        }
    }
    out
}

/// The consonant skeleton used to compare words from scripts without written vowels: vowels,
/// `w` and `y` removed, `v` read as `w`, `q` as `k`, `p` as `b` (Arabic has no `p`: `Pérez`
/// is written `بيريز`), doubled letters collapsed.
pub fn skeleton(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = '\0';
    for c in text.chars() {
        let c = match c {
            'q' => 'k',
            'v' => 'w',
            'p' => 'b',
            other => other,
        };
        if matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y' | 'w') {
            continue;
        }
        if c == last {
            continue;
        }
        out.push(c);
        last = c;
    }
    out
}

/// The consonant skeleton keeping `w` and `v` (as `w`): for Hebrew and Arabic letters that
/// are consonants as often as vowels (`דוד` → `dvd` ~ `David` → `dwd`).
pub fn skeleton_keep_w(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = '\0';
    for c in text.chars() {
        let c = match c {
            'q' => 'k',
            'v' => 'w',
            'p' => 'b',
            other => other,
        };
        if matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y') || c == last {
            continue;
        }
        out.push(c);
        last = c;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(name: &str) -> String {
        normalize(name, EntityKind::Person)
            .first()
            .map(NormName::text)
            .unwrap_or_default()
    }

    #[test]
    fn folds_accents_and_special_letters() {
        assert_eq!(
            text("Strauß Øster Łukasz Đorđe Işık"),
            "strauss oster lukasz dorde isik"
        );
        assert_eq!(text("José Müller-Lüdenscheidt"), "jose muller ludenscheidt");
        assert_eq!(text("O'Brien"), "obrien");
    }

    #[test]
    fn reorders_surname_first_and_drops_honorifics() {
        assert_eq!(
            text("PUTIN, Vladimir Vladimirovich"),
            "vladimir vladimirovich putin"
        );
        let n = &normalize("AL ZAWAHIRI, Dr. Ayman", EntityKind::Person)[0];
        assert_eq!(n.text(), "ayman al zawahiri");
        assert_eq!(n.dropped, vec!["dr".to_string()]);
        assert_eq!(text("Shaykh Umar Abd AL RAHMAN"), "umar abd al rahman");
        assert_eq!(text("Mullah Mohammad Omar"), "mohammad omar");
        assert_eq!(text("Haji"), "haji");
    }

    #[test]
    fn classifies_particles_and_initials() {
        let n = &normalize("Hans J. Friedrich van Damme", EntityKind::Person)[0];
        let kinds: Vec<TokenKind> = n.tokens.iter().map(|t| t.kind).collect();
        assert_eq!(
            kinds,
            vec![
                TokenKind::Word,
                TokenKind::Initial,
                TokenKind::Word,
                TokenKind::Particle,
                TokenKind::Word
            ]
        );
    }

    #[test]
    fn transliterates_scripts() {
        assert_eq!(text("Владимир Путин"), "vladimir putin");
        assert_eq!(text("习近平"), "xi jin ping");
        let korean = normalize("김정은", EntityKind::Person);
        // Surname, then the given name as one word (its syllables in order).
        assert_eq!(korean.len(), 2);
        assert_eq!(korean[0].text(), "gim jeongeun");
        assert_eq!(korean[1].text(), "kim jongun");
        let arabic = &normalize("محمد القذافي", EntityKind::Person)[0];
        assert!(
            arabic
                .tokens
                .iter()
                .all(|t| t.skeleton || t.kind == TokenKind::Particle)
        );
        assert_eq!(arabic.tokens[1].text, "al");
        assert_eq!(skeleton(&arabic.tokens[0].text), skeleton("mohamed"));
    }

    #[test]
    fn legal_forms_for_organisations() {
        let n = &normalize("Siemens Aktiengesellschaft", EntityKind::Organisation)[0];
        assert_eq!(n.text(), "siemens ag");
        assert_eq!(n.tokens[1].kind, TokenKind::LegalForm);
        let gazprom = &normalize("Open Joint Stock Company Gazprom", EntityKind::Organisation)[0];
        assert_eq!(gazprom.text(), "jsc gazprom");
        let oao = &normalize("OAO Gazprom", EntityKind::Organisation)[0];
        assert_eq!(oao.text(), "jsc gazprom");
        assert_eq!(
            normalize("H.S.B.C. p.l.c.", EntityKind::Organisation)[0].text(),
            "hsbc plc"
        );
        let only_forms = &normalize("Group", EntityKind::Organisation)[0];
        assert_eq!(only_forms.tokens[0].kind, TokenKind::Word);
    }

    #[test]
    fn regions_follow_an_organisation_s_own_words() {
        let kinds = |name: &str, kind| -> Vec<TokenKind> {
            normalize(name, kind)[0]
                .tokens
                .iter()
                .map(|t| t.kind)
                .collect()
        };
        let organisation = EntityKind::Organisation;
        assert_eq!(
            normalize("Faberlic Europe Sp. z o.o.", organisation)[0].text(),
            "faberlic europe llc"
        );
        assert_eq!(
            kinds("Faberlic Europe Sp. z o.o.", organisation),
            [TokenKind::Word, TokenKind::Region, TokenKind::LegalForm]
        );
        assert_eq!(
            kinds("Europe Trading", organisation),
            [TokenKind::Word, TokenKind::LegalForm]
        );
        assert_eq!(
            kinds("Bank of Asia", organisation),
            [TokenKind::Word, TokenKind::Particle, TokenKind::Word]
        );
        assert_eq!(
            kinds("Maria Europe", EntityKind::Person),
            [TokenKind::Word, TokenKind::Word]
        );
    }

    #[test]
    fn bad_input_is_handled() {
        assert!(normalize("", EntityKind::Person)[0].is_empty());
        assert!(normalize("  ,;--  ", EntityKind::Person)[0].is_empty());
        let long = "Ab ".repeat(5_000);
        assert_eq!(
            normalize(&long, EntityKind::Person)[0].tokens.len(),
            MAX_TOKENS
        );
        assert_eq!(text("Ivan\u{0}\u{7}Petrov"), "ivan petrov");
        assert_eq!(text("Ivan Петров"), "ivan petrov");
    }

    #[test]
    fn numbers_in_organisation_names() {
        let org = |s: &str| normalize(s, EntityKind::Organisation)[0].text();
        assert_eq!(org("1st International Bank"), "1 intl bank");
        assert_eq!(org("First International Bank"), "1 intl bank");
        assert_eq!(org("Brigade Forty 4"), "brigade 44");
        assert_eq!(org("Brigade forty-four"), "brigade 44");
        assert_eq!(org("Three Percenters"), "3 percenters");
        // Persons keep their words: `Seven` may be a name.
        assert_eq!(text("Una Seven"), "una seven");
    }

    #[test]
    fn ocr_digits_and_syllables() {
        assert_eq!(text("I9or Sech1n"), "igor sechin");
        assert_eq!(
            normalize("2004-1 Trust", EntityKind::Organisation)[0].text(),
            "2004 1 trust"
        );
        let korean = normalize("이민호", EntityKind::Person);
        assert!(korean.iter().any(|n| n.text() == "lee minho"));
        assert!(
            normalize("수빈 이", EntityKind::Person)[0]
                .tokens
                .iter()
                .all(|t| t.kind == TokenKind::Word)
        );
    }
}
