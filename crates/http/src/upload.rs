//! Reading a file upload from a request: the file's metadata (its JSON fields) and its
//! content as a stream, from either of the two bodies a file route takes:
//! - JSON (`application/json`): the file's fields and `content`, base64 (standard or
//!   URL-safe alphabet, padded or not, as proto3 JSON reads `bytes`), decoded as the
//!   stream is read; the body may be about 4/3 of the size limit (the base64) plus
//!   [`ENVELOPE_BYTES`];
//! - `multipart/form-data`, as browsers and HTML forms send it: an optional
//!   `displayName` part, then a `content` part holding the file, whose `Content-Type` is
//!   the declared type and whose file name is the display name when no `displayName`
//!   part came first. The content streams to the store as it arrives; the body may be
//!   the size limit plus [`ENVELOPE_BYTES`].
//!
//! Text parts and JSON are refused with U+0000 or bytes that are not UTF-8, naming the
//! field, as every request text is.

use std::pin::Pin;
use std::task::{Context, Poll};

use actix_multipart::{Field, Multipart, MultipartError};
use actix_web::HttpRequest;
use actix_web::error::PayloadError;
use actix_web::web::Payload;
use base64::Engine;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use rics_domain::error::{Code, Error};
use rics_domain::file::content::ContentStream;
use serde_json::{Map, Value};
use tokio::sync::mpsc;

use crate::error::ApiError;
use crate::extract::{BodyHead, body_too_large, read_json, refuse_nul};

/// What a file route's body may hold beyond the content itself: the other fields, the
/// multipart boundaries and headers.
pub const ENVELOPE_BYTES: usize = 64 * 1024;

/// The longest text part of a multipart upload (a display name of 255 characters
/// takes at most 1020 bytes).
const MAX_TEXT_PART: usize = 4 * 1024;

/// The fields of the JSON body of an upload.
const UPLOAD_FIELDS: [&str; 3] = ["displayName", "contentType", "content"];

/// Decoded bytes per chunk of the JSON path's content stream.
const DECODED_CHUNK: usize = 48 * 1024;

/// How many chunks of multipart content wait between the request and the store.
const PIPE_CHUNKS: usize = 4;

/// The largest JSON body of a file route whose files have at most `max_bytes`: the
/// base64 of that many bytes and [`ENVELOPE_BYTES`].
pub fn json_limit(max_bytes: u64) -> usize {
    usize::try_from(max_bytes.div_ceil(3) * 4)
        .unwrap_or(usize::MAX)
        .saturating_add(ENVELOPE_BYTES)
}

/// The largest multipart body of a file route whose files have at most `max_bytes`.
pub fn multipart_limit(max_bytes: u64) -> usize {
    usize::try_from(max_bytes)
        .unwrap_or(usize::MAX)
        .saturating_add(ENVELOPE_BYTES)
}

/// A file as a request gives it.
pub struct Upload {
    /// The file's fields (`displayName`, `contentType`), as JSON.
    pub metadata: Value,
    /// Its content.
    pub content: ContentStream,
}

/// Reads the upload of `req` (JSON or multipart, by its `Content-Type`), for files of
/// at most `max_bytes`.
///
/// # Errors
/// INVALID_ARGUMENT for a body that is too large, malformed, or not a file upload.
pub async fn read(req: &HttpRequest, payload: Payload, max_bytes: u64) -> Result<Upload, ApiError> {
    let head = BodyHead::of(req);
    let multipart = head
        .content_type
        .as_deref()
        .and_then(|value| value.parse::<actix_web::mime::Mime>().ok())
        .is_some_and(|mime| mime.essence_str() == "multipart/form-data");
    if multipart {
        read_multipart(req, head, payload, multipart_limit(max_bytes)).await
    } else {
        read_base64(head, payload, json_limit(max_bytes)).await
    }
}

/// INVALID_ARGUMENT naming `field` of the file.
fn invalid(field: &str, reason: &'static str, message: impl Into<String>) -> ApiError {
    ApiError(Error::invalid_field(
        format!("file.{field}"),
        reason,
        message,
    ))
}

/// The JSON path: the body's `content` decoded as it is read, the rest as metadata.
async fn read_base64(head: BodyHead, payload: Payload, limit: usize) -> Result<Upload, ApiError> {
    let body = read_json(head, payload, limit).await?;
    let Value::Object(mut members) = body else {
        return Err(ApiError(Error::invalid_field(
            "file",
            "INVALID_VALUE",
            "must be a JSON object",
        )));
    };
    if let Some(unknown) = members
        .keys()
        .find(|key| !UPLOAD_FIELDS.contains(&key.as_str()))
    {
        return Err(invalid(
            unknown,
            "UNKNOWN_FIELD",
            "is not a field of a file upload (displayName, contentType, content)",
        ));
    }
    let content = match members.remove("content") {
        Some(Value::String(text)) => text,
        None | Some(Value::Null) => {
            return Err(invalid(
                "content",
                "REQUIRED",
                "is required: the file's bytes in base64",
            ));
        }
        Some(_) => {
            return Err(invalid(
                "content",
                "INVALID_VALUE",
                "must be a base64 string",
            ));
        }
    };
    check_base64(&content)?;
    Ok(Upload {
        metadata: Value::Object(members),
        content: decode_lazily(content),
    })
}

/// Either base64 alphabet, padding optional, trailing bits ignored.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true),
);

/// Checks the shape of base64 text before any of it is decoded: the characters of
/// either alphabet, a length that whole characters give (not 1 more than a multiple of
/// 4), and `=` only as the padding of the last group.
fn check_base64(text: &str) -> Result<(), ApiError> {
    let data = text.trim_end_matches('=');
    let padding = text.len() - data.len();
    let alphabet = data
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_'));
    let whole =
        data.len() % 4 != 1 && (padding == 0 || (padding <= 2 && text.len().is_multiple_of(4)));
    if alphabet && whole {
        Ok(())
    } else {
        Err(invalid(
            "content",
            "INVALID_BASE64",
            "must be base64 (RFC 4648, standard or URL-safe alphabet)",
        ))
    }
}

/// The bytes `text` (checked by [`check_base64`]) encodes, decoded chunk by chunk as
/// the stream is read, so the decoded file is never whole in memory beside its text.
fn decode_lazily(text: String) -> ContentStream {
    let step = DECODED_CHUNK / 3 * 4;
    let stream = futures_util::stream::unfold((text, 0usize), move |(text, at)| async move {
        if at >= text.len() {
            return None;
        }
        let end = (at + step).min(text.len());
        let piece: String = text[at..end]
            .chars()
            .map(|c| match c {
                '-' => '+',
                '_' => '/',
                other => other,
            })
            .collect();
        let decoded = BASE64
            .decode(piece.as_bytes())
            .map(Bytes::from)
            .map_err(|e| {
                Error::invalid_field(
                    "file.content",
                    "INVALID_BASE64",
                    format!("must be base64 (RFC 4648): {e}"),
                )
            });
        Some((decoded, (text, end)))
    });
    Box::pin(stream)
}

/// The request body, counted: past `limit` bytes it ends with an overflow.
struct Counted<S> {
    inner: S,
    read: usize,
    limit: usize,
}

impl<S: Stream<Item = Result<Bytes, PayloadError>> + Unpin> Stream for Counted<S> {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let next = Pin::new(&mut self.inner).poll_next(cx);
        if let Poll::Ready(Some(Ok(chunk))) = &next {
            self.read += chunk.len();
            if self.read > self.limit {
                return Poll::Ready(Some(Err(PayloadError::Overflow)));
            }
        }
        next
    }
}

/// The domain error of a broken multipart body, read within a body of `limit` bytes.
fn multipart_error(error: &MultipartError, limit: usize) -> Error {
    match error {
        MultipartError::Payload(PayloadError::Overflow) => body_too_large(limit).0,
        MultipartError::Payload(e) => Error::new(
            Code::InvalidArgument,
            "UNREADABLE_BODY",
            format!("The request body could not be read: {e}"),
        ),
        other => Error::new(
            Code::InvalidArgument,
            "MALFORMED_MULTIPART",
            format!("The multipart/form-data body is malformed: {other}."),
        ),
    }
}

/// The multipart path: the text parts before the content, then the content streamed
/// through a pipe (the request's parts live on this thread; the store may read them on
/// another).
async fn read_multipart(
    req: &HttpRequest,
    head: BodyHead,
    payload: Payload,
    limit: usize,
) -> Result<Upload, ApiError> {
    if head.declared_length.is_some_and(|n| n > limit) {
        return Err(body_too_large(limit));
    }
    let counted = Counted {
        inner: payload,
        read: 0,
        limit,
    };
    let mut parts = Multipart::new(req.headers(), counted);
    let mut metadata = Map::new();
    let content = loop {
        let Some(part) = parts.next().await else {
            return Err(invalid(
                "content",
                "REQUIRED",
                "is required: a multipart part named `content` holding the file",
            ));
        };
        let mut part = part.map_err(|e| ApiError(multipart_error(&e, limit)))?;
        match part.name().map(str::to_owned).as_deref() {
            Some("content") => break part,
            Some("displayName") if !metadata.contains_key("displayName") => {
                let text = text_part(&mut part, "displayName", limit).await?;
                metadata.insert("displayName".into(), Value::String(text));
            }
            Some("displayName") => {
                return Err(invalid(
                    "displayName",
                    "REPEATED_PART",
                    "must be given once, before the `content` part",
                ));
            }
            Some(other) => {
                refuse_nul(other, || "file".to_owned())?;
                return Err(invalid(
                    other,
                    "UNKNOWN_FIELD",
                    "is not a part of a file upload (`displayName`, then `content`)",
                ));
            }
            None => {
                return Err(ApiError(Error::new(
                    Code::InvalidArgument,
                    "MALFORMED_MULTIPART",
                    "A part of the multipart/form-data body has no name.",
                )));
            }
        }
    };
    if let Some(declared) = content.content_type() {
        metadata.insert("contentType".into(), Value::String(declared.to_string()));
    }
    if !metadata.contains_key("displayName")
        && let Some(filename) = content
            .content_disposition()
            .and_then(|disposition| disposition.get_filename())
    {
        refuse_nul(filename, || "file.displayName".to_owned())?;
        let base = filename.rsplit(['/', '\\']).next().unwrap_or(filename);
        metadata.insert("displayName".into(), Value::String(base.to_owned()));
    }
    Ok(Upload {
        metadata: Value::Object(metadata),
        content: pipe(parts, content, limit),
    })
}

/// The text of the part `name`, at most [`MAX_TEXT_PART`] bytes of UTF-8 without
/// U+0000.
async fn text_part(part: &mut Field, name: &str, limit: usize) -> Result<String, ApiError> {
    let mut bytes = Vec::new();
    while let Some(chunk) = part.next().await {
        let chunk = chunk.map_err(|e| ApiError(multipart_error(&e, limit)))?;
        if bytes.len() + chunk.len() > MAX_TEXT_PART {
            return Err(invalid(
                name,
                "TOO_LONG",
                format!("must be at most {MAX_TEXT_PART} bytes"),
            ));
        }
        bytes.extend_from_slice(&chunk);
    }
    let text =
        String::from_utf8(bytes).map_err(|_| invalid(name, "INVALID_UTF8", "is not UTF-8"))?;
    refuse_nul(&text, || format!("file.{name}"))?;
    Ok(text)
}

/// Streams the `content` part through a bounded channel, from a task on this thread;
/// a part after it ends the stream with an error, so an upload is exactly one file.
/// When the reader goes away (the upload was refused), the task stops reading.
fn pipe(mut parts: Multipart, mut content: Field, limit: usize) -> ContentStream {
    let (sender, receiver) = mpsc::channel::<Result<Bytes, Error>>(PIPE_CHUNKS);
    actix_web::rt::spawn(async move {
        while let Some(chunk) = content.next().await {
            let chunk = chunk.map_err(|e| multipart_error(&e, limit));
            let failed = chunk.is_err();
            if sender.send(chunk).await.is_err() || failed {
                return;
            }
        }
        // The multipart body reads on only once its last field is gone.
        drop(content);
        let trailing = match parts.next().await {
            None => return,
            Some(Ok(part)) => Error::invalid_field(
                format!("file.{}", part.name().unwrap_or("part")),
                "UNEXPECTED_PART",
                "must not follow the `content` part: an upload is one file",
            ),
            Some(Err(e)) => multipart_error(&e, limit),
        };
        let _ = sender.send(Err(trailing)).await;
    });
    Box::pin(futures_util::stream::unfold(
        receiver,
        |mut receiver| async move { receiver.recv().await.map(|item| (item, receiver)) },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn decoded(text: &str) -> Result<Vec<u8>, Error> {
        let mut stream = decode_lazily(text.to_owned());
        let mut bytes = Vec::new();
        while let Some(chunk) = stream.next().await {
            bytes.extend_from_slice(&chunk?);
        }
        Ok(bytes)
    }

    #[actix_web::test]
    async fn base64_in_either_alphabet_with_or_without_padding() {
        for text in ["aGk+Pz8/", "aGk-Pz8_", "aGk", "aGk=", "AB=="] {
            assert!(check_base64(text).is_ok(), "{text}");
        }
        assert_eq!(decoded("aGk+Pz8/").await.unwrap(), b"hi>???");
        assert_eq!(decoded("aGk-Pz8_").await.unwrap(), b"hi>???");
        assert_eq!(decoded("aGk").await.unwrap(), b"hi");
        for text in ["a", "aGk*", "aG=k", "aGk===", "a==="] {
            assert!(check_base64(text).is_err(), "{text}");
        }
        let long: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let text = base64::engine::general_purpose::STANDARD.encode(&long);
        assert_eq!(decoded(&text).await.unwrap(), long);
    }

    #[test]
    fn limits_leave_room_for_the_envelope() {
        assert_eq!(json_limit(3), 4 + ENVELOPE_BYTES);
        assert_eq!(json_limit(10 * 1024 * 1024), 13_981_016 + ENVELOPE_BYTES);
        assert_eq!(multipart_limit(100), 100 + ENVELOPE_BYTES);
    }
}
