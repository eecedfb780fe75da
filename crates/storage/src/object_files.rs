//! The object storage adapter of [`FileStore`], over the `object_store` crate: the
//! content of files in a local directory, or (with the `s3` feature) in an
//! S3-compatible bucket, under `{prefix}/{tenant}/{uid}` ([`ContentKey::path`]).
//!
//! A write streams: the content goes out in parts as it comes (a multipart upload,
//! parts of [`S3_PART_BYTES`] for S3, smaller ones to a directory), so an upload holds
//! at most a few parts in memory, never the file; the object appears only when the
//! upload completes, and a broken or oversized upload is aborted, leaving nothing.
//! The same bound as the database store admits a fixed number of uploads at once.

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use futures_util::StreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt, WriteMultipart};
use rics_domain::error::{Error, Result};
use rics_domain::file::content::{ContentKey, ContentStream, FileStore};
use tokio::sync::Semaphore;

use crate::file_contents::{closed, missing, over_limit};

/// The part size of an S3 upload: S3's least for every part but the last.
pub const S3_PART_BYTES: usize = 5 * 1024 * 1024;

/// The part size of an upload to a directory.
pub const DIRECTORY_PART_BYTES: usize = 512 * 1024;

/// How many parts of one upload are in flight at once.
const PARTS_IN_FLIGHT: usize = 2;

/// Where S3 content lives and how to reach it.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct S3Location {
    /// The bucket.
    pub bucket: String,
    /// The key prefix inside it (no leading or trailing `/`), empty for none.
    pub prefix: String,
    /// The endpoint of an S3-compatible service (`http://127.0.0.1:9000`); AWS's
    /// when empty.
    pub endpoint: String,
    /// The region [default: us-east-1].
    pub region: String,
    /// The access key id; with the secret, the credentials.
    pub access_key_id: String,
    /// The secret access key.
    pub secret_access_key: String,
    /// Whether a plain `http://` endpoint is allowed (a local service).
    pub allow_http: bool,
}

impl std::fmt::Debug for S3Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Location")
            .field("bucket", &self.bucket)
            .field("prefix", &self.prefix)
            .field("endpoint", &self.endpoint)
            .field("region", &self.region)
            .field("access_key_id", &self.access_key_id)
            .field("secret_access_key", &"***")
            .field("allow_http", &self.allow_http)
            .finish()
    }
}

impl S3Location {
    /// The bucket and prefix of `s3://BUCKET/PREFIX`, the rest empty.
    ///
    /// # Errors
    /// When `url` is not of that shape.
    pub fn parse(url: &str) -> std::result::Result<S3Location, String> {
        let rest = url
            .strip_prefix("s3://")
            .ok_or_else(|| format!("'{url}' is not s3://BUCKET/PREFIX"))?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Err(format!("'{url}' names no bucket"));
        }
        Ok(S3Location {
            bucket: bucket.to_owned(),
            prefix: prefix.trim_matches('/').to_owned(),
            ..S3Location::default()
        })
    }
}

/// File content in object storage.
#[derive(Debug, Clone)]
pub struct ObjectFileStore {
    store: Arc<dyn ObjectStore>,
    prefix: ObjectPath,
    part_bytes: usize,
    max_bytes: u64,
    uploads: Arc<Semaphore>,
}

impl ObjectFileStore {
    /// A store over `store`, keys under `prefix`, written in parts of `part_bytes`,
    /// taking content of at most `max_bytes` and at most `concurrent_uploads` writes
    /// at once (at least one).
    fn new(
        store: Arc<dyn ObjectStore>,
        prefix: &str,
        part_bytes: usize,
        max_bytes: u64,
        concurrent_uploads: usize,
    ) -> ObjectFileStore {
        ObjectFileStore {
            store,
            prefix: ObjectPath::from(prefix),
            part_bytes,
            max_bytes,
            uploads: Arc::new(Semaphore::new(concurrent_uploads.max(1))),
        }
    }

    /// A store in the directory `root`, made when missing, with the bounds of
    /// [`crate::DatabaseFileStore::new`].
    ///
    /// # Errors
    /// When the directory cannot be made or opened.
    pub fn directory(
        root: &Path,
        max_bytes: u64,
        concurrent_uploads: usize,
    ) -> std::result::Result<ObjectFileStore, String> {
        std::fs::create_dir_all(root)
            .map_err(|e| format!("cannot make the directory {}: {e}", root.display()))?;
        let store = object_store::local::LocalFileSystem::new_with_prefix(root)
            .map_err(|e| format!("cannot open the directory {}: {e}", root.display()))?;
        Ok(ObjectFileStore::new(
            Arc::new(store),
            "",
            DIRECTORY_PART_BYTES,
            max_bytes,
            concurrent_uploads,
        ))
    }

    /// A store in the S3 bucket `location` names, with the bounds of
    /// [`crate::DatabaseFileStore::new`]. Nothing is reached before the first call.
    ///
    /// # Errors
    /// When the location is incomplete or malformed.
    #[cfg(feature = "s3")]
    pub fn s3(
        location: &S3Location,
        max_bytes: u64,
        concurrent_uploads: usize,
    ) -> std::result::Result<ObjectFileStore, String> {
        let region = if location.region.is_empty() {
            "us-east-1"
        } else {
            &location.region
        };
        let mut builder = object_store::aws::AmazonS3Builder::new()
            .with_bucket_name(&location.bucket)
            .with_region(region)
            .with_allow_http(location.allow_http);
        if !location.endpoint.is_empty() {
            builder = builder
                .with_endpoint(&location.endpoint)
                .with_virtual_hosted_style_request(false);
        }
        if !location.access_key_id.is_empty() {
            builder = builder
                .with_access_key_id(&location.access_key_id)
                .with_secret_access_key(&location.secret_access_key);
        }
        let store = builder.build().map_err(|e| format!("S3 file store: {e}"))?;
        Ok(ObjectFileStore::new(
            Arc::new(store),
            &location.prefix,
            S3_PART_BYTES,
            max_bytes,
            concurrent_uploads,
        ))
    }

    /// Where `key`'s content is.
    fn path(&self, key: &ContentKey) -> ObjectPath {
        self.prefix
            .clone()
            .join(key.tenant.as_str())
            .join(key.file.to_string())
    }
}

/// The domain error of a failed object store call: UNAVAILABLE for what a retry may
/// mend (the service could not be reached or answered with an error), INTERNAL for
/// the rest.
fn failed(error: object_store::Error) -> Error {
    match error {
        object_store::Error::Generic { .. } => {
            Error::unavailable("FILE_STORE_UNAVAILABLE", format!("file store: {error}"))
        }
        other => Error::internal(format!("file store: {other}")),
    }
}

#[async_trait]
impl FileStore for ObjectFileStore {
    async fn write(&self, key: &ContentKey, mut content: ContentStream) -> Result<u64> {
        let _turn = self.uploads.acquire().await.map_err(|_| closed())?;
        let upload = self
            .store
            .put_multipart(&self.path(key))
            .await
            .map_err(failed)?;
        let mut writer = WriteMultipart::new_with_chunk_size(upload, self.part_bytes);
        let mut total: u64 = 0;
        while let Some(next) = content.next().await {
            let bytes = match next {
                Ok(bytes) => bytes,
                Err(e) => {
                    let _ = writer.abort().await;
                    return Err(e);
                }
            };
            total += bytes.len() as u64;
            if total > self.max_bytes {
                let _ = writer.abort().await;
                return Err(over_limit(self.max_bytes));
            }
            if let Err(e) = writer.wait_for_capacity(PARTS_IN_FLIGHT).await {
                let _ = writer.abort().await;
                return Err(failed(e));
            }
            writer.put(bytes);
        }
        writer.finish().await.map_err(failed)?;
        Ok(total)
    }

    async fn read(&self, key: &ContentKey) -> Result<ContentStream> {
        let found = match self.store.get(&self.path(key)).await {
            Ok(found) => found,
            Err(object_store::Error::NotFound { .. }) => return Err(missing(key)),
            Err(e) => return Err(failed(e)),
        };
        Ok(Box::pin(
            found.into_stream().map(|chunk| chunk.map_err(failed)),
        ))
    }

    async fn remove(&self, key: &ContentKey) -> Result<()> {
        match self.store.delete(&self.path(key)).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(failed(e)),
        }
    }
}
