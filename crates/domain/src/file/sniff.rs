//! What the bytes of a file are, judged as they stream past, without keeping them:
//! the magic bytes of its first kilobytes ([`binary_type`], by the `infer` crate), the
//! class of an OLE compound file (Word, Excel and PowerPoint 97-2003 share one
//! container), and, for text, whether it is UTF-8, CSV or JSON. Nothing here unpacks
//! or parses a container: a ZIP is judged by its first local headers, an OLE file by
//! one 16-byte field.

/// Microsoft Word 97-2003.
pub const MSWORD: &str = "application/msword";
/// Microsoft Excel 97-2003.
pub const MS_EXCEL: &str = "application/vnd.ms-excel";
/// Microsoft PowerPoint 97-2003.
pub const MS_POWERPOINT: &str = "application/vnd.ms-powerpoint";
/// An OLE compound file of no class rics knows.
pub const OLE_STORAGE: &str = "application/x-ole-storage";
/// Bytes of no type rics can name.
pub const UNKNOWN: &str = "application/octet-stream";

/// What the head of a file (its first bytes) says it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Head {
    /// A type its magic bytes name.
    Binary(&'static str),
    /// An OLE compound file, whose class is read further on ([`OleProbe`]).
    Ole,
    /// No magic bytes: text, if the whole content turns out to be.
    Unmarked,
}

/// The type the magic bytes of `head` name. The `infer` crate's text matchers (HTML,
/// XML, shell scripts) are set aside: such content is text like any other, and is
/// judged by [`TextCheck`].
pub fn binary_type(head: &[u8]) -> Head {
    match infer::get(head) {
        Some(kind) if kind.matcher_type() == infer::MatcherType::Text => Head::Unmarked,
        // Without the `cfb` feature, infer calls every OLE compound file a Word file.
        Some(kind) if kind.mime_type() == MSWORD => Head::Ole,
        Some(kind) => Head::Binary(kind.mime_type()),
        None => Head::Unmarked,
    }
}

/// The root entry's class id (CLSID) of an OLE compound file, caught as the bytes
/// pass: the header (first 512 bytes) says where the directory is, and the class id
/// is 16 bytes of its first entry, so no more than those are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OleProbe {
    /// The offset of the class id in the file, when the header gives one.
    at: Option<u64>,
    clsid: [u8; 16],
    filled: usize,
}

/// Class ids as stored (the first three fields little-endian), with the type of each.
const OLE_CLASSES: &[([u8; 16], &str)] = &[
    // 00020906-0000-0000-C000-000000000046: Word.Document.8
    (
        [6, 9, 2, 0, 0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0x46],
        MSWORD,
    ),
    // 00020820-0000-0000-C000-000000000046: Excel.Sheet.8
    (
        [0x20, 8, 2, 0, 0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0x46],
        MS_EXCEL,
    ),
    // 00020810-0000-0000-C000-000000000046: Excel.Sheet.5
    (
        [0x10, 8, 2, 0, 0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0x46],
        MS_EXCEL,
    ),
    // 64818D10-4F9B-11CF-86EA-00AA00B929E8: PowerPoint.Show.8
    (
        [
            0x10, 0x8d, 0x81, 0x64, 0x9b, 0x4f, 0xcf, 0x11, 0x86, 0xea, 0, 0xaa, 0, 0xb9, 0x29,
            0xe8,
        ],
        MS_POWERPOINT,
    ),
];

impl OleProbe {
    /// The probe of a file whose first bytes are `head`: the sector size (2 to the
    /// power at 0x1E, 512 or 4096) and the first directory sector (at 0x30) place the
    /// root entry, whose class id is at 0x50 in it. A header that is not whole, or
    /// names another sector size, gives a probe that finds nothing.
    pub fn new(head: &[u8]) -> OleProbe {
        let at = head
            .get(0x1e..0x20)
            .zip(head.get(0x30..0x34))
            .and_then(|(shift, directory)| {
                let shift = u16::from_le_bytes([shift[0], shift[1]]);
                let directory =
                    u32::from_le_bytes([directory[0], directory[1], directory[2], directory[3]]);
                matches!(shift, 9 | 12).then(|| (u64::from(directory) + 1) * (1u64 << shift) + 0x50)
            });
        OleProbe {
            at,
            clsid: [0; 16],
            filled: 0,
        }
    }

    /// Reads the class id's bytes among `bytes`, which start at `offset` in the file.
    /// Bytes come in order, each once.
    pub fn feed(&mut self, offset: u64, bytes: &[u8]) {
        let Some(at) = self.at else { return };
        let wanted = at + self.filled as u64;
        let end = offset + bytes.len() as u64;
        if self.filled == self.clsid.len() || wanted < offset || wanted >= end {
            return;
        }
        let start = (wanted - offset) as usize;
        let take = (self.clsid.len() - self.filled).min(bytes.len() - start);
        self.clsid[self.filled..self.filled + take].copy_from_slice(&bytes[start..start + take]);
        self.filled += take;
    }

    /// The type the class id names; [`OLE_STORAGE`] for another class, or none found.
    pub fn content_type(&self) -> &'static str {
        if self.filled < self.clsid.len() {
            return OLE_STORAGE;
        }
        OLE_CLASSES
            .iter()
            .find(|(clsid, _)| *clsid == self.clsid)
            .map_or(OLE_STORAGE, |(_, kind)| *kind)
    }
}

/// Whether the content is text: UTF-8 without control characters other than tab, line
/// feed, form feed and carriage return (a file of zero bytes is valid UTF-8, but no
/// text). A character split between two chunks is carried over.
#[derive(Debug, Clone, Default)]
pub struct TextCheck {
    carry: Vec<u8>,
    refused: bool,
}

impl TextCheck {
    /// Reads the next bytes.
    pub fn feed(&mut self, mut bytes: &[u8]) {
        if self.refused {
            return;
        }
        if !self.carry.is_empty() {
            let width = utf8_width(self.carry[0]);
            let take = width.saturating_sub(self.carry.len()).min(bytes.len());
            self.carry.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.carry.len() < width {
                return;
            }
            let whole = std::mem::take(&mut self.carry);
            if std::str::from_utf8(&whole).is_err() {
                self.refused = true;
                return;
            }
        }
        let valid = match std::str::from_utf8(bytes) {
            Ok(_) => bytes.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => {
                self.refused = true;
                return;
            }
        };
        if bytes[..valid].iter().any(|&b| is_refused_control(b)) {
            self.refused = true;
            return;
        }
        self.carry.extend_from_slice(&bytes[valid..]);
    }

    /// Whether everything read was text, ending on a whole character.
    pub fn is_text(&self) -> bool {
        !self.refused && self.carry.is_empty()
    }
}

/// The length of the UTF-8 sequence that `first` begins; 1 for a byte that begins
/// none (it is then refused as it is read).
fn utf8_width(first: u8) -> usize {
    match first {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => 1,
    }
}

/// C0 control characters text may not hold: all but tab, line feed, form feed and
/// carriage return.
fn is_refused_control(byte: u8) -> bool {
    byte < 0x20 && !matches!(byte, b'\t' | b'\n' | 0x0c | b'\r')
}

/// Where a [`CsvCheck`] is within a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CsvState {
    /// At the start of a field.
    FieldStart,
    /// In a field without quotes.
    Unquoted,
    /// In a quoted field.
    Quoted,
    /// After a quote in a quoted field: its end, or the first of a doubled quote.
    QuoteInQuoted,
    /// After a carriage return that ended a record (a line feed may follow).
    AfterCr,
}

/// Whether text is CSV (RFC 4180): fields separated by commas, records by line
/// breaks (CRLF, LF or CR), quoted fields with doubled quotes inside, every record with
/// as many fields as the first, and at least one record. Blank lines are passed over.
#[derive(Debug, Clone)]
pub struct CsvCheck {
    state: CsvState,
    fields: usize,
    started: bool,
    expected: Option<usize>,
    refused: bool,
}

impl Default for CsvCheck {
    fn default() -> CsvCheck {
        CsvCheck {
            state: CsvState::FieldStart,
            fields: 0,
            started: false,
            expected: None,
            refused: false,
        }
    }
}

impl CsvCheck {
    /// Reads the next bytes (UTF-8: the delimiters are ASCII and never part of another
    /// character).
    pub fn feed(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            if self.refused {
                return;
            }
            self.byte(byte);
        }
    }

    fn byte(&mut self, byte: u8) {
        use CsvState::{AfterCr, FieldStart, QuoteInQuoted, Quoted, Unquoted};
        if self.state == AfterCr {
            self.state = FieldStart;
            if byte == b'\n' {
                return;
            }
        }
        match (self.state, byte) {
            (Quoted, b'"') => self.state = QuoteInQuoted,
            (Quoted, _) => {}
            (QuoteInQuoted, b'"') => self.state = Quoted,
            (FieldStart | Unquoted | QuoteInQuoted, b',') => {
                self.started = true;
                self.fields += 1;
                self.state = FieldStart;
            }
            (FieldStart | Unquoted | QuoteInQuoted, b'\n') => self.end_record(FieldStart),
            (FieldStart | Unquoted | QuoteInQuoted, b'\r') => self.end_record(AfterCr),
            (FieldStart, b'"') => {
                self.started = true;
                self.state = Quoted;
            }
            (FieldStart, _) => {
                self.started = true;
                self.state = Unquoted;
            }
            (Unquoted, b'"') | (QuoteInQuoted, _) => self.refused = true,
            (Unquoted, _) => {}
            (AfterCr, _) => {}
        }
    }

    /// Ends the record at a line break; a blank line is no record.
    fn end_record(&mut self, next: CsvState) {
        self.state = next;
        if !self.started {
            return;
        }
        let fields = self.fields + 1;
        match self.expected {
            Some(expected) if expected != fields => self.refused = true,
            _ => self.expected = Some(fields),
        }
        self.fields = 0;
        self.started = false;
    }

    /// Whether everything read was CSV, once the content has ended.
    pub fn is_csv(&mut self) -> bool {
        if self.refused || self.state == CsvState::Quoted {
            return false;
        }
        self.end_record(CsvState::FieldStart);
        !self.refused && self.expected.is_some()
    }
}

/// The deepest nesting of arrays and objects a [`JsonCheck`] follows.
pub const MAX_JSON_DEPTH: usize = 512;

/// What a [`JsonCheck`] expects next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JsonState {
    /// A value.
    Value,
    /// A value or `]` (after `[`).
    ValueOrEnd,
    /// A key or `}` (after `{`).
    KeyOrEnd,
    /// A key (after `,` in an object).
    Key,
    /// `:` after a key.
    Colon,
    /// `,` or the end of the array or object (after a value in one).
    AfterValue,
    /// In a string, a key when `key`.
    Text { key: bool, escape: Escape },
    /// In `true`, `false` or `null`: the bytes still to come, from [`LITERALS`].
    Literal { literal: u8, at: u8 },
    /// In a number.
    Number(NumberState),
    /// After the document's one value: only white space.
    End,
}

/// Where a string is in an escape sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Escape {
    /// Not in one.
    No,
    /// After `\`.
    Backslash,
    /// In `\uXXXX`, with this many hex digits to come.
    Hex(u8),
}

/// Where a number is in its grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NumberState {
    Minus,
    Zero,
    Integer,
    Dot,
    Fraction,
    Exponent,
    ExponentSign,
    ExponentDigits,
}

impl NumberState {
    /// Whether a number may end here.
    fn complete(self) -> bool {
        matches!(
            self,
            NumberState::Zero
                | NumberState::Integer
                | NumberState::Fraction
                | NumberState::ExponentDigits
        )
    }

    /// The state after `byte`, if the number goes on with it.
    fn next(self, byte: u8) -> Option<NumberState> {
        use NumberState::{
            Dot, Exponent, ExponentDigits, ExponentSign, Fraction, Integer, Minus, Zero,
        };
        Some(match (self, byte) {
            (Minus, b'0') => Zero,
            (Minus, b'1'..=b'9') | (Integer, b'0'..=b'9') => Integer,
            (Zero | Integer, b'.') => Dot,
            (Dot | Fraction, b'0'..=b'9') => Fraction,
            (Zero | Integer | Fraction, b'e' | b'E') => Exponent,
            (Exponent, b'+' | b'-') => ExponentSign,
            (Exponent | ExponentSign | ExponentDigits, b'0'..=b'9') => ExponentDigits,
            _ => return None,
        })
    }
}

/// `true`, `false` and `null`.
const LITERALS: [&[u8]; 3] = [b"true", b"false", b"null"];

/// Whether text is one JSON document (RFC 8259), read byte by byte with only the
/// stack of open arrays and objects kept (at most [`MAX_JSON_DEPTH`]). Its UTF-8 is
/// [`TextCheck`]'s to judge.
#[derive(Debug, Clone)]
pub struct JsonCheck {
    state: JsonState,
    /// The open containers, `true` for an object.
    stack: Vec<bool>,
    refused: bool,
}

impl Default for JsonCheck {
    fn default() -> JsonCheck {
        JsonCheck {
            state: JsonState::Value,
            stack: Vec::new(),
            refused: false,
        }
    }
}

impl JsonCheck {
    /// Reads the next bytes.
    pub fn feed(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            if self.refused {
                return;
            }
            if !self.byte(byte) {
                self.refused = true;
            }
        }
    }

    /// Whether one whole document was read, once the content has ended.
    pub fn is_json(&self) -> bool {
        !self.refused
            && match self.state {
                JsonState::End => true,
                JsonState::Number(number) => number.complete() && self.stack.is_empty(),
                _ => false,
            }
    }

    /// Reads one byte; false when it cannot come here.
    fn byte(&mut self, byte: u8) -> bool {
        use JsonState::{
            AfterValue, Colon, End, Key, KeyOrEnd, Literal, Number, Text, Value, ValueOrEnd,
        };
        let space = matches!(byte, b' ' | b'\t' | b'\n' | b'\r');
        match self.state {
            Text { key, escape } => self.text(key, escape, byte),
            Literal { literal, at } => {
                let expected = LITERALS[usize::from(literal)];
                if expected.get(usize::from(at)) != Some(&byte) {
                    return false;
                }
                if usize::from(at) + 1 == expected.len() {
                    self.after_value();
                } else {
                    self.state = Literal {
                        literal,
                        at: at + 1,
                    };
                }
                true
            }
            Number(number) => match number.next(byte) {
                Some(next) => {
                    self.state = Number(next);
                    true
                }
                None if number.complete() => {
                    self.after_value();
                    self.byte(byte)
                }
                None => false,
            },
            _ if space => true,
            Value => self.value(byte),
            ValueOrEnd if byte == b']' => self.close(false),
            ValueOrEnd => self.value(byte),
            KeyOrEnd if byte == b'}' => self.close(true),
            KeyOrEnd | Key if byte == b'"' => {
                self.state = Text {
                    key: true,
                    escape: Escape::No,
                };
                true
            }
            Colon if byte == b':' => {
                self.state = Value;
                true
            }
            AfterValue => match (byte, self.stack.last()) {
                (b',', Some(true)) => {
                    self.state = Key;
                    true
                }
                (b',', Some(false)) => {
                    self.state = Value;
                    true
                }
                (b']', Some(false)) => self.close(false),
                (b'}', Some(true)) => self.close(true),
                _ => false,
            },
            KeyOrEnd | Key | Colon | End => false,
        }
    }

    /// The first byte of a value.
    fn value(&mut self, byte: u8) -> bool {
        use JsonState::{KeyOrEnd, Literal, Number, Text, ValueOrEnd};
        self.state = match byte {
            b'{' | b'[' => {
                if self.stack.len() == MAX_JSON_DEPTH {
                    return false;
                }
                self.stack.push(byte == b'{');
                if byte == b'{' { KeyOrEnd } else { ValueOrEnd }
            }
            b'"' => Text {
                key: false,
                escape: Escape::No,
            },
            b't' => Literal { literal: 0, at: 1 },
            b'f' => Literal { literal: 1, at: 1 },
            b'n' => Literal { literal: 2, at: 1 },
            b'-' => Number(NumberState::Minus),
            b'0' => Number(NumberState::Zero),
            b'1'..=b'9' => Number(NumberState::Integer),
            _ => return false,
        };
        true
    }

    /// A byte of a string.
    fn text(&mut self, key: bool, escape: Escape, byte: u8) -> bool {
        let escape = match (escape, byte) {
            (Escape::No, b'"') => {
                if key {
                    self.state = JsonState::Colon;
                } else {
                    self.after_value();
                }
                return true;
            }
            (Escape::No, b'\\') => Escape::Backslash,
            (Escape::No, byte) if byte < 0x20 => return false,
            (Escape::No, _) => Escape::No,
            (Escape::Backslash, b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                Escape::No
            }
            (Escape::Backslash, b'u') => Escape::Hex(4),
            (Escape::Hex(left), byte) if byte.is_ascii_hexdigit() => {
                if left == 1 {
                    Escape::No
                } else {
                    Escape::Hex(left - 1)
                }
            }
            _ => return false,
        };
        self.state = JsonState::Text { key, escape };
        true
    }

    /// Closes the innermost container, an object when `object`.
    fn close(&mut self, object: bool) -> bool {
        if self.stack.pop() != Some(object) {
            return false;
        }
        self.after_value();
        true
    }

    /// What follows a whole value: more of its container, or the end.
    fn after_value(&mut self) {
        self.state = if self.stack.is_empty() {
            JsonState::End
        } else {
            JsonState::AfterValue
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `text` to a check in chunks of every size from 1 to 7 and answers
    /// whether every split gave `expected`.
    fn all_splits(text: &[u8], verdict: impl Fn(&[&[u8]]) -> bool) -> Vec<bool> {
        (1..=7)
            .map(|size| verdict(&text.chunks(size).collect::<Vec<_>>()))
            .collect()
    }

    fn is_json(text: &str) -> bool {
        let verdicts = all_splits(text.as_bytes(), |chunks| {
            let mut check = JsonCheck::default();
            chunks.iter().for_each(|c| check.feed(c));
            check.is_json()
        });
        assert!(verdicts.windows(2).all(|w| w[0] == w[1]), "{text}");
        verdicts[0]
    }

    #[test]
    fn json_is_judged_as_serde_json_judges_it() {
        let documents = [
            r#"{"a": [1, -2.5e+3, 0, true, false, null, "x\"\\\u00e9"], "b": {}}"#,
            "[]",
            " 12 ",
            "0",
            "-0.1E5",
            "\"text\"",
            "{\"k\":{\"k\":[[[]]]}}",
            "",
            "{",
            "[1,]",
            "{\"a\" 1}",
            "{\"a\":1,}",
            "01",
            "1.",
            "-",
            "1e",
            "tru",
            "nul",
            "[1] [2]",
            "{\"a\":1}}",
            "\"a\tb\"",
            "\"\\x\"",
            "\"\\u12G4\"",
            "[}",
            "{]",
            "{1:2}",
            "[\"unterminated]",
        ];
        for text in documents {
            let expected = serde_json::from_str::<serde_json::Value>(text).is_ok();
            assert_eq!(is_json(text), expected, "{text:?}");
        }
        let deep = "[".repeat(MAX_JSON_DEPTH + 1) + &"]".repeat(MAX_JSON_DEPTH + 1);
        assert!(!is_json(&deep), "nesting is bounded");
    }

    fn is_csv(text: &str) -> bool {
        let verdicts = all_splits(text.as_bytes(), |chunks| {
            let mut check = CsvCheck::default();
            chunks.iter().for_each(|c| check.feed(c));
            check.is_csv()
        });
        assert!(verdicts.windows(2).all(|w| w[0] == w[1]), "{text}");
        verdicts[0]
    }

    #[test]
    fn csv_needs_even_records() {
        for (text, csv) in [
            ("a,b\n1,2\n", true),
            ("a,b\r\n1,2", true),
            ("a,b\r1,2\r", true),
            ("name\nJane\n\nJohn\n", true),
            (
                "\"quoted, with comma\",\"and \"\"quotes\"\"\"\nx,\"multi\nline\"\n",
                true,
            ),
            ("a,b\n1,2,3\n", false),
            ("a,b\n1\n", false),
            ("a\"b,c\n", false),
            ("\"a\"b,c\n", false),
            ("\"never closed\n", false),
            ("", false),
            ("\n\n", false),
        ] {
            assert_eq!(is_csv(text), csv, "{text:?}");
        }
    }

    fn is_text(bytes: &[u8]) -> bool {
        let verdicts = all_splits(bytes, |chunks| {
            let mut check = TextCheck::default();
            chunks.iter().for_each(|c| check.feed(c));
            check.is_text()
        });
        assert!(verdicts.windows(2).all(|w| w[0] == w[1]), "{bytes:?}");
        verdicts[0]
    }

    #[test]
    fn text_is_utf8_without_controls_split_anywhere() {
        assert!(is_text("Grüße, 東京 🎉\r\n\tend\x0c".as_bytes()));
        assert!(!is_text(b"\xff\xfe"), "not UTF-8");
        assert!(!is_text(b"abc\xe2\x82"), "a character cut off at the end");
        assert!(!is_text(b"a\x00b"), "NUL");
        assert!(!is_text(b"a\x1bb"), "ESC");
        assert!(!is_text(b"\xc0\x80"), "an overlong sequence");
    }

    /// An OLE header naming directory sector `directory` with 512-byte sectors, and
    /// the root entry's class id in its place.
    fn ole(directory: u32, clsid: [u8; 16]) -> Vec<u8> {
        let mut file = vec![0u8; 512 * (directory as usize + 2)];
        file[..8].copy_from_slice(&[0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
        file[0x1e..0x20].copy_from_slice(&9u16.to_le_bytes());
        file[0x30..0x34].copy_from_slice(&directory.to_le_bytes());
        let at = (directory as usize + 1) * 512 + 0x50;
        file[at..at + 16].copy_from_slice(&clsid);
        file
    }

    #[test]
    fn ole_files_are_told_apart_by_their_class() {
        for (clsid, kind) in OLE_CLASSES {
            let file = ole(3, *clsid);
            assert_eq!(binary_type(&file[..512]), Head::Ole);
            for size in [1, 5, 512, 4096] {
                let mut probe = OleProbe::new(&file[..512]);
                for (i, chunk) in file.chunks(size).enumerate() {
                    probe.feed((i * size) as u64, chunk);
                }
                assert_eq!(probe.content_type(), *kind, "chunks of {size}");
            }
        }
        let mut probe = OleProbe::new(&ole(1, [7; 16]));
        let file = ole(1, [7; 16]);
        probe.feed(0, &file);
        assert_eq!(probe.content_type(), OLE_STORAGE);
        let cut = ole(1, OLE_CLASSES[0].0);
        let mut probe = OleProbe::new(&cut);
        probe.feed(0, &cut[..600]);
        assert_eq!(probe.content_type(), OLE_STORAGE, "the class id never came");
    }

    #[test]
    fn magic_bytes_name_binary_types_and_leave_text_alone() {
        assert_eq!(
            binary_type(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"),
            Head::Binary("application/pdf")
        );
        assert_eq!(
            binary_type(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"),
            Head::Binary("image/png")
        );
        assert_eq!(binary_type(b"<?xml version=\"1.0\"?><a/>"), Head::Unmarked);
        assert_eq!(binary_type(b"<html><body>hi</body></html>"), Head::Unmarked);
        assert_eq!(binary_type(b"plain words"), Head::Unmarked);
        assert_eq!(
            binary_type(
                b"PK\x03\x04\x14\0\0\0\x08\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x08\0\0\0zero.bin"
            ),
            Head::Binary("application/zip")
        );
    }
}
