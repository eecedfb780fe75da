//! AIP-158 pagination: page sizes, `skip`, and opaque page tokens.
//!
//! # Page size and skip (R-158.2..4, R-158.12)
//!
//! [`PageSize::resolve`]: a missing `pageSize` or `0` gives the documented default;
//! a value above the maximum is reduced to the maximum; a negative value is an error
//! (400 INVALID_ARGUMENT on `pageSize`). [`Skip::resolve`]: missing is 0, negative is
//! an error.
//!
//! # Tokens (R-158.8..11)
//!
//! A token is URL-safe base64 without padding of `payload || tag`, where `tag` is
//! HMAC-SHA256 over a domain-separation label and the payload, keyed with a server
//! secret of at least [`MIN_SECRET_LENGTH`] bytes. The payload (version 1) is:
//!
//! | Bytes | Content |
//! | --- | --- |
//! | 1 | format version (`1`) |
//! | 16 | the first 16 bytes of the [`RequestFingerprint`] |
//! | 8 | issue time, Unix seconds, big-endian `i64` |
//! | 8 | items already returned ([`Cursor::returned`]), big-endian `u64` |
//! | 4 | number of cursor values, big-endian `u32` |
//! | … | each value: a tag byte (0 null, 1 bool, 2 integer, 3 float, 4 text) and its data (bool: 1 byte; integer: `i64` BE; float: IEEE-754 bits BE; text: `u32` BE length + UTF-8) |
//!
//! [`PageTokenCodec::decode`] checks, in order: the shape (base64, length) →
//! [`PageTokenError::Malformed`]; the signature, compared in constant time →
//! [`PageTokenError::BadSignature`] (tampered or forged, or signed with another
//! secret); the request fingerprint → [`PageTokenError::RequestMismatch`];
//! the age → [`PageTokenError::Expired`] when older than the codec's lifetime
//! ([`DEFAULT_TOKEN_LIFETIME`], 3 days, R-158.11). All of them are 400
//! INVALID_ARGUMENT for the API; [`PageTokenError::reason`] tells them apart.
//!
//! Tokens are signed, not encrypted (the checklist's \[ours\] minimum for ): the
//! payload is not secret, only tamper-proof. Cursor values are the sort keys of the
//! last item returned, which the caller has already seen; never put anything else in
//! them. Tokens issued "in the future" (clock skew between replicas) are accepted.
//! Changing the secret invalidates every outstanding token (they fail as
//! `BadSignature`). An empty `pageToken` means "first page": do not decode it.
//!
//! # Request fingerprint
//!
//! [`RequestFingerprint`] binds a token to the request that issued it: the method
//! name and every request parameter except `pageToken`, `pageSize` and `skip`, plus
//! anything the caller adds (the tenant, the parent). Parameter names are taken in
//! lowerCamelCase (snake_case is converted, so `order_by` and `orderBy` agree), and
//! parameters are sorted by name with a stable sort, so their order does not matter
//! but the order of a repeated parameter's values does. The canonical encoding hashed
//! with SHA-256 is the label `rics-aip/request-fingerprint/v1`, then the method, the
//! parameter count, and each name and value, every string prefixed by its byte length
//! as a big-endian `u64` (so `a=bc` and `ab=c` differ). Add parameters as their
//! effective values (after defaults), so that an omitted `showDeleted` and
//! `showDeleted=false` produce the same fingerprint.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};
use time::{Duration, OffsetDateTime};

use crate::case;

/// How long a token stays valid by default: 3 days.
pub const DEFAULT_TOKEN_LIFETIME: Duration = Duration::days(3);
/// The shortest accepted server secret, in bytes.
pub const MIN_SECRET_LENGTH: usize = 32;
/// The longest token [`PageTokenCodec::decode`] looks at, in characters.
pub const MAX_TOKEN_LENGTH: usize = 4096;
/// Request parameters never part of a fingerprint (compared after converting the
/// name to lowerCamelCase).
pub const EXCLUDED_PARAMETERS: [&str; 3] = ["pageToken", "pageSize", "skip"];

const VERSION: u8 = 1;
const FINGERPRINT_LEN: usize = 16;
const TAG_LEN: usize = 32;
const HEADER_LEN: usize = 1 + FINGERPRINT_LEN + 8 + 8 + 4;
const MAC_LABEL: &[u8] = b"rics-aip/page-token/v1\0";
const FINGERPRINT_LABEL: &[u8] = b"rics-aip/request-fingerprint/v1";

/// Resolves the `pageSize` request field (R-158.2..4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageSize;

impl PageSize {
    /// Missing or `0` → `default` (capped at `max`); above `max` → `max`; negative →
    /// error.
    ///
    /// # Errors
    ///
    /// [`PageSizeError`] when `raw` is negative.
    pub fn resolve(raw: Option<i32>, default: u32, max: u32) -> Result<u32, PageSizeError> {
        match raw {
            None | Some(0) => Ok(default.min(max)),
            Some(value) => u32::try_from(value)
                .map(|size| size.min(max))
                .map_err(|_| PageSizeError { value }),
        }
    }
}

/// A negative `pageSize`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("pageSize must not be negative, got {value}")]
pub struct PageSizeError {
    /// The value sent.
    pub value: i32,
}

impl PageSizeError {
    /// The request field at fault, for a `BadRequest` field violation.
    pub fn field(&self) -> &'static str {
        "pageSize"
    }

    /// The `ErrorInfo.reason`.
    pub fn reason(&self) -> &'static str {
        "INVALID_PAGE_SIZE"
    }
}

/// Resolves the `skip` request field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Skip;

impl Skip {
    /// Missing → 0; negative → error.
    ///
    /// # Errors
    ///
    /// [`SkipError`] when `raw` is negative.
    pub fn resolve(raw: Option<i32>) -> Result<u32, SkipError> {
        let value = raw.unwrap_or(0);
        u32::try_from(value).map_err(|_| SkipError { value })
    }
}

/// A negative `skip`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("skip must not be negative, got {value}")]
pub struct SkipError {
    /// The value sent.
    pub value: i32,
}

impl SkipError {
    /// The request field at fault, for a `BadRequest` field violation.
    pub fn field(&self) -> &'static str {
        "skip"
    }

    /// The `ErrorInfo.reason`.
    pub fn reason(&self) -> &'static str {
        "INVALID_SKIP"
    }
}

/// A SHA-256 hash of a request's canonical form; see the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RequestFingerprint([u8; 32]);

impl RequestFingerprint {
    /// Starts a fingerprint of a call of `method` (e.g. `ListEntities`).
    pub fn builder(method: &str) -> RequestFingerprintBuilder {
        RequestFingerprintBuilder {
            method: method.to_owned(),
            params: Vec::new(),
        }
    }

    /// The hash.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    fn prefix(&self) -> &[u8] {
        &self.0[..FINGERPRINT_LEN]
    }
}

/// Collects the parameters of a [`RequestFingerprint`].
#[derive(Debug, Clone)]
pub struct RequestFingerprintBuilder {
    method: String,
    params: Vec<(String, String)>,
}

impl RequestFingerprintBuilder {
    /// Adds one parameter (repeat the call for each value of a repeated one);
    /// `pageToken`, `pageSize` and `skip` (in either spelling) are ignored.
    #[must_use]
    pub fn param(mut self, name: &str, value: &str) -> Self {
        let name = case::snake_to_camel(name);
        if !EXCLUDED_PARAMETERS.contains(&name.as_str()) {
            self.params.push((name, value.to_owned()));
        }
        self
    }

    /// Adds several parameters, as [`param`](Self::param) does.
    #[must_use]
    pub fn params<'a>(self, params: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        params
            .into_iter()
            .fold(self, |builder, (name, value)| builder.param(name, value))
    }

    /// Hashes the canonical encoding.
    pub fn build(mut self) -> RequestFingerprint {
        self.params.sort_by(|a, b| a.0.cmp(&b.0));
        let mut hasher = Sha256::new();
        hasher.update(FINGERPRINT_LABEL);
        let mut put = |bytes: &[u8]| {
            hasher.update((bytes.len() as u64).to_be_bytes());
            hasher.update(bytes);
        };
        put(self.method.as_bytes());
        put(&(self.params.len() as u64).to_be_bytes());
        for (name, value) in &self.params {
            put(name.as_bytes());
            put(value.as_bytes());
        }
        RequestFingerprint(hasher.finalize().into())
    }
}

/// One sort-key value of the last item returned (keyset pagination).
#[derive(Debug, Clone, PartialEq)]
pub enum CursorValue {
    /// SQL NULL / an unset field.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer (timestamps are best stored as Unix microseconds here).
    Integer(i64),
    /// A floating-point number (bit-exact round trip).
    Float(f64),
    /// A string.
    Text(String),
}

/// Where the next page starts.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cursor {
    /// The sort-key values of the last item returned, in `orderBy` order, ending with
    /// the tie-breaker (usually the name or id).
    pub values: Vec<CursorValue>,
    /// How many items were returned before the next page (including skipped ones),
    /// for `skip` arithmetic and diagnostics.
    pub returned: u64,
}

/// Creates and verifies page tokens with one server secret; see the
/// [module docs](self).
#[derive(Clone)]
pub struct PageTokenCodec {
    mac: Hmac<Sha256>,
    lifetime: Duration,
}

impl fmt::Debug for PageTokenCodec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PageTokenCodec")
            .field("lifetime", &self.lifetime)
            .finish_non_exhaustive()
    }
}

/// The server secret is shorter than [`MIN_SECRET_LENGTH`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the page-token secret must be at least {MIN_SECRET_LENGTH} bytes, got {length}")]
pub struct SecretTooShort {
    /// The length given.
    pub length: usize,
}

/// Why a page token was refused; every variant is 400 INVALID_ARGUMENT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PageTokenError {
    /// Not a token this service could have issued (bad base64, wrong length, empty).
    #[error("the page token is malformed ({detail}); pass nextPageToken back unchanged")]
    Malformed {
        /// What was wrong, for logs.
        detail: &'static str,
    },
    /// The signature does not match: the token was altered, forged, or signed with
    /// another secret.
    #[error("the page token is invalid; pass nextPageToken back unchanged")]
    BadSignature,
    /// The token was issued for a request with other parameters.
    #[error(
        "the page token was issued for a different request; every parameter except \
         pageToken, pageSize and skip must match the request that returned it"
    )]
    RequestMismatch,
    /// The token is older than the codec's lifetime.
    #[error("the page token has expired; start again from the first page")]
    Expired,
}

impl PageTokenError {
    /// The request field at fault, for a `BadRequest` field violation.
    pub fn field(&self) -> &'static str {
        "pageToken"
    }

    /// The `ErrorInfo.reason`.
    pub fn reason(&self) -> &'static str {
        match self {
            Self::Malformed { .. } => "MALFORMED_PAGE_TOKEN",
            Self::BadSignature => "INVALID_PAGE_TOKEN_SIGNATURE",
            Self::RequestMismatch => "PAGE_TOKEN_REQUEST_MISMATCH",
            Self::Expired => "EXPIRED_PAGE_TOKEN",
        }
    }
}

impl PageTokenCodec {
    /// A codec signing with `secret`, with the [`DEFAULT_TOKEN_LIFETIME`].
    ///
    /// # Errors
    ///
    /// [`SecretTooShort`] when the secret has fewer than [`MIN_SECRET_LENGTH`] bytes.
    pub fn new(secret: &[u8]) -> Result<Self, SecretTooShort> {
        let too_short = SecretTooShort {
            length: secret.len(),
        };
        if secret.len() < MIN_SECRET_LENGTH {
            return Err(too_short);
        }
        let mac = Hmac::<Sha256>::new_from_slice(secret).map_err(|_| too_short)?;
        Ok(Self {
            mac,
            lifetime: DEFAULT_TOKEN_LIFETIME,
        })
    }

    /// The same codec with another token lifetime.
    #[must_use]
    pub fn with_lifetime(mut self, lifetime: Duration) -> Self {
        self.lifetime = lifetime;
        self
    }

    /// How long tokens stay valid.
    pub fn lifetime(&self) -> Duration {
        self.lifetime
    }

    /// Creates the token for the page after `cursor`.
    pub fn encode(
        &self,
        fingerprint: &RequestFingerprint,
        cursor: &Cursor,
        issued_at: OffsetDateTime,
    ) -> String {
        let mut bytes = Vec::with_capacity(HEADER_LEN + 16 * cursor.values.len() + TAG_LEN);
        bytes.push(VERSION);
        bytes.extend_from_slice(fingerprint.prefix());
        bytes.extend_from_slice(&issued_at.unix_timestamp().to_be_bytes());
        bytes.extend_from_slice(&cursor.returned.to_be_bytes());
        bytes.extend_from_slice(&(cursor.values.len() as u32).to_be_bytes());
        for value in &cursor.values {
            match value {
                CursorValue::Null => bytes.push(0),
                CursorValue::Bool(b) => bytes.extend_from_slice(&[1, u8::from(*b)]),
                CursorValue::Integer(i) => {
                    bytes.push(2);
                    bytes.extend_from_slice(&i.to_be_bytes());
                }
                CursorValue::Float(f) => {
                    bytes.push(3);
                    bytes.extend_from_slice(&f.to_bits().to_be_bytes());
                }
                CursorValue::Text(s) => {
                    bytes.push(4);
                    bytes.extend_from_slice(&(s.len() as u32).to_be_bytes());
                    bytes.extend_from_slice(s.as_bytes());
                }
            }
        }
        let tag = self.signer(&bytes).finalize().into_bytes();
        bytes.extend_from_slice(&tag);
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// Verifies `token` for the request `fingerprint` at time `now` and returns its
    /// cursor.
    ///
    /// # Errors
    ///
    /// [`PageTokenError`], checked in the order described in the [module docs](self).
    pub fn decode(
        &self,
        token: &str,
        fingerprint: &RequestFingerprint,
        now: OffsetDateTime,
    ) -> Result<Cursor, PageTokenError> {
        let malformed = |detail| PageTokenError::Malformed { detail };
        if token.is_empty() {
            return Err(malformed("empty token"));
        }
        if token.len() > MAX_TOKEN_LENGTH {
            return Err(malformed("too long"));
        }
        let bytes = URL_SAFE_NO_PAD
            .decode(token)
            .map_err(|_| malformed("not URL-safe base64 without padding"))?;
        if bytes.len() < HEADER_LEN + TAG_LEN {
            return Err(malformed("too short"));
        }
        let (payload, tag) = bytes.split_at(bytes.len() - TAG_LEN);
        self.signer(payload)
            .verify_slice(tag)
            .map_err(|_| PageTokenError::BadSignature)?;
        let mut reader = Reader { bytes: payload };
        if reader.take::<1>()? != [VERSION] {
            return Err(malformed("unsupported version"));
        }
        let token_fingerprint = reader.slice(FINGERPRINT_LEN)?;
        let issued_at = i64::from_be_bytes(reader.take()?);
        let returned = u64::from_be_bytes(reader.take()?);
        let count = u32::from_be_bytes(reader.take()?);
        let mut values = Vec::new();
        for _ in 0..count {
            let [tag] = reader.take::<1>()?;
            values.push(match tag {
                0 => CursorValue::Null,
                1 => CursorValue::Bool(reader.take::<1>()? != [0]),
                2 => CursorValue::Integer(i64::from_be_bytes(reader.take()?)),
                3 => CursorValue::Float(f64::from_bits(u64::from_be_bytes(reader.take()?))),
                4 => {
                    let len = u32::from_be_bytes(reader.take()?) as usize;
                    let text = std::str::from_utf8(reader.slice(len)?)
                        .map_err(|_| malformed("invalid text value"))?;
                    CursorValue::Text(text.to_owned())
                }
                _ => return Err(malformed("unknown value tag")),
            });
        }
        if !reader.bytes.is_empty() {
            return Err(malformed("trailing bytes"));
        }
        if token_fingerprint != fingerprint.prefix() {
            return Err(PageTokenError::RequestMismatch);
        }
        if now.unix_timestamp().saturating_sub(issued_at) > self.lifetime.whole_seconds() {
            return Err(PageTokenError::Expired);
        }
        Ok(Cursor { values, returned })
    }

    fn signer(&self, payload: &[u8]) -> Hmac<Sha256> {
        self.mac
            .clone()
            .chain_update(MAC_LABEL)
            .chain_update(payload)
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn slice(&mut self, len: usize) -> Result<&'a [u8], PageTokenError> {
        if self.bytes.len() < len {
            return Err(PageTokenError::Malformed {
                detail: "truncated",
            });
        }
        let (head, rest) = self.bytes.split_at(len);
        self.bytes = rest;
        Ok(head)
    }

    fn take<const N: usize>(&mut self) -> Result<[u8; N], PageTokenError> {
        let mut out = [0; N];
        out.copy_from_slice(self.slice(N)?);
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
