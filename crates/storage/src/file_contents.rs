//! The database adapter of [`FileStore`]: the content of files as rows of
//! `file_contents`, in chunks of [`CHUNK_BYTES`], beside the rest of the data, so
//! that SQLite and replicas on one PostgreSQL need nothing more.
//!
//! A write is one transaction, so the content is whole or absent; the upload is read
//! into memory first (the database cannot take a stream), at most the size limit of
//! one file, and at most a fixed number of uploads are admitted at once: memory stays
//! within that number times the limit, however many clients upload. A read holds one
//! chunk at a time.

use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use diesel::prelude::*;
use futures_util::StreamExt;
use rics_domain::error::{Code, Error, Result};
use rics_domain::file::content::{ContentKey, ContentStream, FileStore};
use rics_domain::repository::RepositoryError;
use tokio::sync::Semaphore;

use crate::database::Database;
use crate::error::repository_error;
use crate::schema::file_contents;

/// The most bytes one row holds.
pub const CHUNK_BYTES: usize = 512 * 1024;

/// One row of `file_contents`.
#[derive(Debug, Insertable)]
#[diesel(table_name = file_contents)]
struct ContentRow {
    tenant_id: String,
    file_uid: String,
    chunk: i64,
    data: Vec<u8>,
}

/// File content in the database.
#[derive(Debug, Clone)]
pub struct DatabaseFileStore {
    db: Database,
    max_bytes: u64,
    uploads: Arc<Semaphore>,
}

impl DatabaseFileStore {
    /// A store over `db` that takes content of at most `max_bytes`, and at most
    /// `concurrent_uploads` writes at once (at least one); the others wait their turn
    /// before reading any of their content.
    pub fn new(db: Database, max_bytes: u64, concurrent_uploads: usize) -> DatabaseFileStore {
        DatabaseFileStore {
            db,
            max_bytes,
            uploads: Arc::new(Semaphore::new(concurrent_uploads.max(1))),
        }
    }
}

/// The domain error of a failed database call.
fn stored(error: RepositoryError) -> Error {
    match error {
        RepositoryError::Unavailable(detail) => {
            Error::unavailable("FILE_STORE_UNAVAILABLE", detail)
        }
        other => Error::internal(format!("file content store: {other}")),
    }
}

/// RESOURCE_EXHAUSTED for content over a store's bound of `max_bytes`.
pub(crate) fn over_limit(max_bytes: u64) -> Error {
    Error::new(
        Code::ResourceExhausted,
        "FILE_STORE_LIMIT",
        format!("The file store takes at most {max_bytes} bytes per file."),
    )
}

/// The error of a store whose turns are closed: it is shutting down.
pub(crate) fn closed() -> Error {
    Error::unavailable("FILE_STORE_UNAVAILABLE", "the file store is shutting down")
}

/// NOT_FOUND for a key without content.
pub(crate) fn missing(key: &ContentKey) -> Error {
    Error::new(
        Code::NotFound,
        "FILE_CONTENT_MISSING",
        format!("No content is stored under {key}."),
    )
}

#[async_trait]
impl FileStore for DatabaseFileStore {
    async fn write(&self, key: &ContentKey, mut content: ContentStream) -> Result<u64> {
        let _turn = self.uploads.acquire().await.map_err(|_| closed())?;
        let mut chunks: Vec<Vec<u8>> = Vec::new();
        let mut current: Vec<u8> = Vec::new();
        let mut total: u64 = 0;
        while let Some(next) = content.next().await {
            let mut bytes: Bytes = next?;
            total += bytes.len() as u64;
            if total > self.max_bytes {
                return Err(over_limit(self.max_bytes));
            }
            while !bytes.is_empty() {
                let take = (CHUNK_BYTES - current.len()).min(bytes.len());
                current.extend_from_slice(&bytes.split_to(take));
                if current.len() == CHUNK_BYTES {
                    chunks.push(std::mem::take(&mut current));
                }
            }
        }
        if !current.is_empty() || chunks.is_empty() {
            chunks.push(current);
        }
        let (tenant, uid) = (key.tenant.as_str().to_owned(), key.file.to_string());
        self.db
            .write(move |conn| {
                for (chunk, data) in chunks.into_iter().enumerate() {
                    diesel::insert_into(file_contents::table)
                        .values(ContentRow {
                            tenant_id: tenant.clone(),
                            file_uid: uid.clone(),
                            chunk: chunk as i64,
                            data,
                        })
                        .execute(conn)
                        .map_err(repository_error)?;
                }
                Ok(())
            })
            .await
            .map_err(stored)?;
        Ok(total)
    }

    async fn read(&self, key: &ContentKey) -> Result<ContentStream> {
        let (tenant, uid) = (key.tenant.as_str().to_owned(), key.file.to_string());
        let query = (tenant.clone(), uid.clone());
        let chunks: Vec<i64> = self
            .db
            .run(move |conn| {
                file_contents::table
                    .filter(file_contents::tenant_id.eq(&query.0))
                    .filter(file_contents::file_uid.eq(&query.1))
                    .select(file_contents::chunk)
                    .order(file_contents::chunk)
                    .load(conn)
                    .map_err(repository_error)
            })
            .await
            .map_err(stored)?;
        if chunks.is_empty() {
            return Err(missing(key));
        }
        let db = self.db.clone();
        let stream = futures_util::stream::iter(chunks).then(move |chunk| {
            let (db, tenant, uid) = (db.clone(), tenant.clone(), uid.clone());
            async move {
                let data: Vec<u8> = db
                    .run(move |conn| {
                        file_contents::table
                            .filter(file_contents::tenant_id.eq(&tenant))
                            .filter(file_contents::file_uid.eq(&uid))
                            .filter(file_contents::chunk.eq(chunk))
                            .select(file_contents::data)
                            .first(conn)
                            .map_err(repository_error)
                    })
                    .await
                    .map_err(stored)?;
                Ok(Bytes::from(data))
            }
        });
        Ok(Box::pin(stream))
    }

    async fn remove(&self, key: &ContentKey) -> Result<()> {
        let (tenant, uid) = (key.tenant.as_str().to_owned(), key.file.to_string());
        self.db
            .run(move |conn| {
                diesel::delete(
                    file_contents::table
                        .filter(file_contents::tenant_id.eq(&tenant))
                        .filter(file_contents::file_uid.eq(&uid)),
                )
                .execute(conn)
                .map(|_| ())
                .map_err(repository_error)
            })
            .await
            .map_err(stored)
    }
}
