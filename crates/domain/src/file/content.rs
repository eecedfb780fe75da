//! The file content port. A file's metadata (name, type, size, digest) is a row beside
//! the other resources; its bytes live behind [`FileStore`], so an operator can keep
//! them in the database (the default), a local directory or S3-compatible storage.

use std::fmt;
use std::pin::Pin;

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::Stream;
use uuid::Uuid;

use crate::Result;
use crate::principal::TenantId;

/// A file's content in order, chunk by chunk. An `Err` item ends it: the client went
/// away, the upload broke a limit, or the store failed part way through.
pub type ContentStream = Pin<Box<dyn Stream<Item = Result<Bytes>> + Send>>;

/// Where one file's content is kept: its tenant and the file's uid. It is never built
/// from a name a caller chose, so a display name cannot become a path, and a file id
/// reused after a purge gets a key of its own.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ContentKey {
    /// The tenant that owns the file.
    pub tenant: TenantId,
    /// The file's uid (`uid` of the file resource).
    pub file: Uuid,
}

impl ContentKey {
    /// The key as a relative path, `{tenant}/{uid}`: safe as a file path and an object
    /// key, since tenant ids are resource ids (`[a-z0-9-]`) and uids hexadecimal.
    pub fn path(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for ContentKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.tenant, self.file)
    }
}

/// Holds the content of files. Each key is written once, read any number of times and
/// removed when its file is purged or erased.
///
/// Error contract, for every method: UNAVAILABLE when the store cannot be reached or
/// timed out (the caller may retry), INTERNAL for anything else the store reports.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait FileStore: Send + Sync {
    /// Stores `content` under `key`, and answers its length in bytes. When the stream
    /// yields an error, nothing is left under `key` and that error is returned as it
    /// came. The caller checks size and type as the stream passes; a store may also
    /// refuse content over its own bound with RESOURCE_EXHAUSTED.
    async fn write(&self, key: &ContentKey, content: ContentStream) -> Result<u64>;

    /// The content under `key`, streamed. NOT_FOUND (reason `FILE_CONTENT_MISSING`) when
    /// nothing is stored under it.
    async fn read(&self, key: &ContentKey) -> Result<ContentStream>;

    /// Removes the content under `key`. Removing what is not there succeeds, so a purge
    /// or an erasure that is retried after a crash finishes.
    async fn remove(&self, key: &ContentKey) -> Result<()>;
}
