//! The rules an upload keeps, checked on its content as it streams to the store: its
//! size (counted as it comes, refused the moment it passes the limit), its SHA-256, and
//! its type, sniffed from its bytes ([`super::sniff`]) and compared with the type the
//! client declared and with the allowed types.

use std::collections::BTreeSet;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_util::Stream;
use sha2::{Digest, Sha256};

use super::content::ContentStream;
use super::sniff::{self, CsvCheck, Head, JsonCheck, OleProbe, TextCheck};
use crate::error::{Error, Result};

/// How many of the first bytes the magic-byte sniffing reads.
pub const SNIFF_BYTES: usize = 64 * 1024;

/// The size limit of one file by default (10 MiB).
pub const DEFAULT_MAX_BYTES: u64 = 10 * 1024 * 1024;

/// Plain text.
pub const TEXT_PLAIN: &str = "text/plain";
/// CSV, accepted when declared and the text is CSV.
pub const TEXT_CSV: &str = "text/csv";
/// JSON, accepted when declared and the text is one JSON document.
pub const APPLICATION_JSON: &str = "application/json";

/// The file types the allowed-types setting may name by extension, with their media
/// types.
pub const KNOWN_EXTENSIONS: &[(&str, &str)] = &[
    ("pdf", "application/pdf"),
    ("jpg", "image/jpeg"),
    ("jpeg", "image/jpeg"),
    ("png", "image/png"),
    ("txt", TEXT_PLAIN),
    ("csv", TEXT_CSV),
    ("json", APPLICATION_JSON),
    ("doc", sniff::MSWORD),
    (
        "docx",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ),
    ("xls", sniff::MS_EXCEL),
    (
        "xlsx",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ),
    ("ppt", sniff::MS_POWERPOINT),
    (
        "pptx",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ),
    ("odt", "application/vnd.oasis.opendocument.text"),
    ("ods", "application/vnd.oasis.opendocument.spreadsheet"),
    ("odp", "application/vnd.oasis.opendocument.presentation"),
];

/// The allowed types by default, BNDRY's list.
pub const DEFAULT_ALLOWED: &[&str] = &[
    "pdf", "jpg", "jpeg", "png", "txt", "csv", "json", "doc", "docx", "xls", "xlsx", "ppt", "pptx",
    "odt", "ods", "odp",
];

/// The media types files may have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedTypes(BTreeSet<String>);

impl AllowedTypes {
    /// The types `entries` name: each an extension of [`KNOWN_EXTENSIONS`] (`pdf`,
    /// `.docx`) or a media type (`image/webp`), in any case.
    ///
    /// # Errors
    /// A message naming an unknown extension or a malformed media type, or saying the
    /// list is empty.
    pub fn parse<S: AsRef<str>>(entries: &[S]) -> std::result::Result<AllowedTypes, String> {
        let mut types = BTreeSet::new();
        for entry in entries {
            let entry = entry.as_ref().trim().to_ascii_lowercase();
            if entry.is_empty() {
                continue;
            }
            let kind = if entry.contains('/') {
                if !is_media_type(&entry) {
                    return Err(format!("'{entry}' is not a media type (type/subtype)"));
                }
                entry
            } else {
                let extension = entry.trim_start_matches('.');
                KNOWN_EXTENSIONS
                    .iter()
                    .find(|(known, _)| *known == extension)
                    .map(|(_, kind)| (*kind).to_owned())
                    .ok_or_else(|| {
                        format!("'{entry}' is no known file extension; name its media type instead")
                    })?
            };
            types.insert(kind);
        }
        if types.is_empty() {
            return Err("at least one file type must be allowed".to_owned());
        }
        Ok(AllowedTypes(types))
    }

    /// Whether a file of `content_type` is allowed.
    pub fn allows(&self, content_type: &str) -> bool {
        self.0.contains(content_type)
    }

    /// The allowed media types, in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }
}

impl Default for AllowedTypes {
    /// BNDRY's list ([`DEFAULT_ALLOWED`]).
    fn default() -> AllowedTypes {
        AllowedTypes(
            KNOWN_EXTENSIONS
                .iter()
                .filter(|(extension, _)| DEFAULT_ALLOWED.contains(extension))
                .map(|(_, kind)| (*kind).to_owned())
                .collect(),
        )
    }
}

/// What every upload must keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UploadRules {
    /// The most bytes a file may have.
    pub max_bytes: u64,
    /// The types it may have.
    pub allowed: AllowedTypes,
}

impl Default for UploadRules {
    fn default() -> UploadRules {
        UploadRules {
            max_bytes: DEFAULT_MAX_BYTES,
            allowed: AllowedTypes::default(),
        }
    }
}

/// `type/subtype` of RFC 6838's restricted names, lower case.
fn is_media_type(text: &str) -> bool {
    let name = |part: &str| {
        (1..=127).contains(&part.len())
            && part.bytes().all(|b| {
                b.is_ascii_lowercase()
                    || b.is_ascii_digit()
                    || matches!(
                        b,
                        b'!' | b'#' | b'$' | b'&' | b'^' | b'_' | b'.' | b'+' | b'-'
                    )
            })
    };
    text.split_once('/')
        .is_some_and(|(kind, subtype)| name(kind) && name(subtype))
}

/// The type a client declared, `raw` (a JSON `contentType` or a multipart part's
/// `Content-Type`), as rics compares it: its essence in lower case, parameters
/// dropped, common aliases (`image/jpg`, `application/csv`, `text/json`) mapped to
/// the registered type. `None` when it declares nothing: empty, or
/// `application/octet-stream`, which says only "bytes".
///
/// # Errors
/// INVALID_ARGUMENT (`INVALID_VALUE` on `file.contentType`) when it is not a media
/// type.
pub fn declared_type(raw: &str) -> Result<Option<String>> {
    let essence = raw
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    if essence.is_empty() || essence == sniff::UNKNOWN {
        return Ok(None);
    }
    if !is_media_type(&essence) {
        return Err(Error::invalid_field(
            "file.contentType",
            "INVALID_VALUE",
            format!("'{raw}' is not a media type (type/subtype)"),
        ));
    }
    let registered = match essence.as_str() {
        "image/jpg" | "image/pjpeg" => "image/jpeg",
        "application/csv" | "text/x-csv" | "text/comma-separated-values" => TEXT_CSV,
        "text/json" => APPLICATION_JSON,
        other => other,
    };
    Ok(Some(registered.to_owned()))
}

/// What the inspection found in an upload that kept the rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inspected {
    /// Its size in bytes.
    pub size_bytes: u64,
    /// Its SHA-256, 64 lower-case hex digits.
    pub sha256: String,
    /// Its type, as sniffed.
    pub content_type: String,
}

/// What the content of an upload is, as far as it has been read.
#[derive(Debug, Clone)]
enum Kind {
    /// Not known until the head is read.
    Unread,
    /// Its magic bytes name it.
    Binary(&'static str),
    /// An OLE compound file, whose class is being looked for.
    Ole(OleProbe),
    /// No magic bytes: text, if the checks pass to the end.
    Unmarked,
}

/// The checks of one upload, fed its bytes in order.
struct Inspector {
    rules: UploadRules,
    declared: Option<String>,
    size: u64,
    hasher: Sha256,
    head: Vec<u8>,
    kind: Kind,
    text: TextCheck,
    csv: Option<CsvCheck>,
    json: Option<JsonCheck>,
}

impl Inspector {
    fn new(rules: UploadRules, declared: Option<String>) -> Inspector {
        let csv = (declared.as_deref() == Some(TEXT_CSV)).then(CsvCheck::default);
        let json = (declared.as_deref() == Some(APPLICATION_JSON)).then(JsonCheck::default);
        Inspector {
            rules,
            declared,
            size: 0,
            hasher: Sha256::new(),
            head: Vec::new(),
            kind: Kind::Unread,
            text: TextCheck::default(),
            csv,
            json,
        }
    }

    /// Reads the next chunk.
    ///
    /// # Errors
    /// `FILE_TOO_LARGE` once the size passes the limit; a refusal of the type as soon
    /// as the head names one.
    fn chunk(&mut self, chunk: &[u8]) -> Result<()> {
        let offset = self.size;
        self.size += chunk.len() as u64;
        if self.size > self.rules.max_bytes {
            return Err(too_large(self.rules.max_bytes));
        }
        self.hasher.update(chunk);
        let mut rest = chunk;
        if matches!(self.kind, Kind::Unread) {
            let take = (SNIFF_BYTES - self.head.len()).min(chunk.len());
            self.head.extend_from_slice(&chunk[..take]);
            if self.head.len() == SNIFF_BYTES {
                self.read_head()?;
                rest = &chunk[take..];
            }
        } else {
            self.feed(offset, chunk);
            rest = &[];
        }
        if !rest.is_empty() {
            self.feed(offset + (chunk.len() - rest.len()) as u64, rest);
        }
        if matches!(self.kind, Kind::Unread | Kind::Unmarked) {
            self.text.feed(chunk);
            if let Some(csv) = self.csv.as_mut() {
                csv.feed(chunk);
            }
            if let Some(json) = self.json.as_mut() {
                json.feed(chunk);
            }
        }
        Ok(())
    }

    /// Gives bytes past the head to the OLE probe.
    fn feed(&mut self, offset: u64, bytes: &[u8]) {
        if let Kind::Ole(probe) = &mut self.kind {
            probe.feed(offset, bytes);
        }
    }

    /// Judges the head, once it is full or the content has ended; a type its magic
    /// bytes name is checked at once, so a refused file is not read to its end.
    fn read_head(&mut self) -> Result<()> {
        self.kind = match sniff::binary_type(&self.head) {
            Head::Binary(kind) => {
                self.check(kind)?;
                Kind::Binary(kind)
            }
            Head::Ole => {
                let mut probe = OleProbe::new(&self.head);
                probe.feed(0, &self.head);
                Kind::Ole(probe)
            }
            Head::Unmarked => Kind::Unmarked,
        };
        if !matches!(self.kind, Kind::Unmarked) {
            self.csv = None;
            self.json = None;
        }
        Ok(())
    }

    /// The verdict, once the content has ended.
    ///
    /// # Errors
    /// `FILE_EMPTY`, `CONTENT_TYPE_MISMATCH` or `CONTENT_TYPE_NOT_ALLOWED`.
    fn finish(mut self) -> Result<Inspected> {
        if self.size == 0 {
            return Err(Error::invalid_field(
                "file.content",
                "FILE_EMPTY",
                "must not be empty",
            ));
        }
        if matches!(self.kind, Kind::Unread) {
            self.read_head()?;
        }
        let kind = match &mut self.kind {
            Kind::Binary(kind) => *kind,
            Kind::Ole(probe) => probe.content_type(),
            Kind::Unread | Kind::Unmarked => {
                let text = self.text.is_text();
                let csv = self.csv.as_mut().is_some_and(CsvCheck::is_csv);
                let json = self.json.as_ref().is_some_and(JsonCheck::is_json);
                match (text, csv, json) {
                    (false, _, _) => sniff::UNKNOWN,
                    (true, true, _) => TEXT_CSV,
                    (true, _, true) => APPLICATION_JSON,
                    (true, false, false) => TEXT_PLAIN,
                }
            }
        };
        self.check(kind)?;
        Ok(Inspected {
            size_bytes: self.size,
            sha256: crate::resource::hex(&self.hasher.finalize()),
            content_type: kind.to_owned(),
        })
    }

    /// Checks the sniffed `kind` against the declared type and the allowed ones.
    fn check(&self, kind: &str) -> Result<()> {
        if let Some(declared) = self.declared.as_deref()
            && declared != kind
        {
            let detail = match declared {
                TEXT_CSV | APPLICATION_JSON if kind == TEXT_PLAIN => {
                    format!("is '{declared}', but the content is text that is not {declared}")
                }
                _ => format!("is '{declared}', but the content is '{kind}'"),
            };
            return Err(
                Error::invalid_field("file.contentType", "CONTENT_TYPE_MISMATCH", detail)
                    .with_metadata("declaredContentType", declared)
                    .with_metadata("detectedContentType", kind),
            );
        }
        if !self.rules.allowed.allows(kind) {
            let allowed: Vec<&str> = self.rules.allowed.iter().collect();
            return Err(Error::invalid_field(
                "file.content",
                "CONTENT_TYPE_NOT_ALLOWED",
                format!(
                    "is '{kind}', which is not an allowed type ({})",
                    allowed.join(", ")
                ),
            )
            .with_metadata("contentType", kind));
        }
        Ok(())
    }
}

/// INVALID_ARGUMENT `FILE_TOO_LARGE` for content over `max` bytes.
pub fn too_large(max: u64) -> Error {
    Error::invalid_field(
        "file.content",
        "FILE_TOO_LARGE",
        format!("must be at most {max} bytes"),
    )
    .with_metadata("limitBytes", max.to_string())
}

/// What [`inspect`] found, once its stream has ended without an error.
#[derive(Debug, Clone, Default)]
pub struct Inspection(Arc<OnceLock<Inspected>>);

impl Inspection {
    /// The verdict on content that kept the rules; `None` until its stream has ended
    /// cleanly.
    pub fn result(&self) -> Option<&Inspected> {
        self.0.get()
    }
}

/// `content` as it passes through the checks of `rules` for a file declared as
/// `declared`: the same chunks, until a check fails, when the stream yields that error
/// and ends (a store then keeps nothing). Its [`Inspection`] holds the verdict once the
/// stream has ended cleanly.
pub fn inspect(
    content: ContentStream,
    rules: UploadRules,
    declared: Option<String>,
) -> (ContentStream, Inspection) {
    let inspection = Inspection::default();
    let stream = Inspecting {
        content,
        inspector: Some(Inspector::new(rules, declared)),
        inspection: inspection.clone(),
    };
    (Box::pin(stream), inspection)
}

/// The stream [`inspect`] returns.
struct Inspecting {
    content: ContentStream,
    /// `None` once the stream has ended.
    inspector: Option<Inspector>,
    inspection: Inspection,
}

impl Stream for Inspecting {
    type Item = Result<Bytes>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Bytes>>> {
        if self.inspector.is_none() {
            return Poll::Ready(None);
        }
        let next = match self.content.as_mut().poll_next(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(next) => next,
        };
        let this = &mut *self;
        let Some(inspector) = this.inspector.as_mut() else {
            return Poll::Ready(None);
        };
        let outcome = match next {
            Some(Ok(chunk)) => match inspector.chunk(&chunk) {
                Ok(()) => return Poll::Ready(Some(Ok(chunk))),
                Err(e) => Some(Err(e)),
            },
            Some(Err(e)) => Some(Err(e)),
            None => match this.inspector.take().map(Inspector::finish) {
                Some(Ok(inspected)) => {
                    let _ = this.inspection.0.set(inspected);
                    None
                }
                Some(Err(e)) => Some(Err(e)),
                None => None,
            },
        };
        this.inspector = None;
        Poll::Ready(outcome)
    }
}
