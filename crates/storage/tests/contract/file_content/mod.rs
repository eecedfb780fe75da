//! The contract of every [`FileStore`] adapter, run on each: the database store on
//! both backends, a directory store in a temporary directory, and (with the `s3`
//! feature) an S3 store against a local `moto` server ([`s3`]). Each [`Subject`] is a
//! store and the database whose ledger of content to remove sweeps it.

#[cfg(feature = "s3")]
mod s3;

use std::sync::Arc;

use bytes::Bytes;
use futures_util::StreamExt;
use rics_domain::entity::erasure::AfterErasure;
use rics_domain::error::{Code, Error};
use rics_domain::file::content::{ContentKey, ContentStream, FileStore};
use rics_domain::file::ports::ContentRemovals;
use rics_domain::file::sweep::ContentSweeper;
use rics_domain::time::SystemClock;
use rics_storage::testing::TestDatabase;
use rics_storage::{Backend, Database, DatabaseFileStore, DieselFileRepository, ObjectFileStore};
use uuid::Uuid;

use crate::support::{at, t1, t2};

/// The bound on one file every subject is made with.
const MAX_BYTES: u64 = 2 * 1024 * 1024;

/// A store under test, with the database that holds its ledger.
pub trait Subject: Send + Sync {
    /// The store.
    fn store(&self) -> Arc<dyn FileStore>;
    /// The database of the ledger.
    fn db(&self) -> &Database;
}

/// The database store on one backend.
struct InDatabase {
    db: Database,
    _test_db: TestDatabase,
}

impl Subject for InDatabase {
    fn store(&self) -> Arc<dyn FileStore> {
        Arc::new(DatabaseFileStore::new(self.db.clone(), MAX_BYTES, 2))
    }
    fn db(&self) -> &Database {
        &self.db
    }
}

/// A directory store in a temporary directory, its ledger on SQLite.
struct InDirectory {
    root: tempfile::TempDir,
    ledger: InDatabase,
}

impl Subject for InDirectory {
    fn store(&self) -> Arc<dyn FileStore> {
        Arc::new(ObjectFileStore::directory(&self.root.path().join("files"), MAX_BYTES, 2).unwrap())
    }
    fn db(&self) -> &Database {
        &self.ledger.db
    }
}

/// A fresh database of `backend`.
fn database(backend: Backend) -> InDatabase {
    let test_db = TestDatabase::new(backend);
    InDatabase {
        db: test_db.open().unwrap(),
        _test_db: test_db,
    }
}

/// The key of file number `n` in `t1`.
fn key(n: u8) -> ContentKey {
    ContentKey {
        tenant: t1(),
        file: Uuid::from_bytes([n; 16]),
    }
}

/// `chunks` as content, then `error` when given.
pub fn content(chunks: Vec<Vec<u8>>, error: Option<Error>) -> ContentStream {
    let items = chunks
        .into_iter()
        .map(|c| Ok(Bytes::from(c)))
        .chain(error.map(Err));
    Box::pin(futures_util::stream::iter(items.collect::<Vec<_>>()))
}

/// Everything a read of `key` streams.
async fn read_all(store: &dyn FileStore, key: &ContentKey) -> Result<Vec<u8>, Error> {
    let mut stream = store.read(key).await?;
    let mut bytes = Vec::new();
    while let Some(chunk) = stream.next().await {
        bytes.extend_from_slice(&chunk?);
    }
    Ok(bytes)
}

/// The code and reason a read of `key` fails with.
async fn read_error(store: &dyn FileStore, key: &ContentKey) -> (Code, &'static str) {
    let error = read_all(store, key).await.unwrap_err();
    (error.code, error.reason)
}

const MISSING: (Code, &str) = (Code::NotFound, "FILE_CONTENT_MISSING");

/// The contract, on `subject`.
pub async fn keeps_the_contract(subject: &dyn Subject) {
    let store = subject.store();
    let store = store.as_ref();
    // Byte-identical, in pieces of every size, across the parts of a multipart upload.
    let big: Vec<u8> = (0..1_300_000u32).map(|i| (i % 251) as u8).collect();
    let pieces = vec![
        big[..7].to_vec(),
        big[7..600_000].to_vec(),
        big[600_000..].to_vec(),
    ];
    let written = store.write(&key(1), content(pieces, None)).await.unwrap();
    assert_eq!(written, big.len() as u64);
    assert_eq!(read_all(store, &key(1)).await.unwrap(), big);
    store
        .write(&key(5), content(vec![b"small".to_vec()], None))
        .await
        .unwrap();
    assert_eq!(read_all(store, &key(5)).await.unwrap(), b"small");

    // Tenants apart: the same uid of another tenant is another key.
    let other_tenant = ContentKey {
        tenant: t2(),
        ..key(1)
    };
    assert_eq!(read_error(store, &other_tenant).await, MISSING);
    store
        .write(&other_tenant, content(vec![b"theirs".to_vec()], None))
        .await
        .unwrap();
    assert_eq!(read_all(store, &key(1)).await.unwrap(), big);
    assert_eq!(read_all(store, &other_tenant).await.unwrap(), b"theirs");

    // A broken or oversized upload leaves nothing.
    let broken = Error::invalid_field("file.content", "FILE_TOO_LARGE", "too large");
    let error = store
        .write(&key(2), content(vec![big.clone()], Some(broken.clone())))
        .await
        .unwrap_err();
    assert_eq!(error, broken, "the stream's error comes back as it came");
    assert_eq!(read_error(store, &key(2)).await, MISSING);
    let over = vec![vec![1u8; 1024 * 1024], vec![2u8; 1024 * 1024 + 1]];
    let error = store.write(&key(3), content(over, None)).await.unwrap_err();
    assert_eq!(error.code, Code::ResourceExhausted);
    assert_eq!(read_error(store, &key(3)).await, MISSING);

    // Removed is gone, and removing again succeeds.
    store.remove(&key(1)).await.unwrap();
    assert_eq!(read_error(store, &key(1)).await, MISSING);
    store.remove(&key(1)).await.unwrap();
    assert_eq!(read_all(store, &other_tenant).await.unwrap(), b"theirs");

    // The ledger's sweep removes what is due.
    let ledger = Arc::new(DieselFileRepository::new(subject.db().clone()));
    ledger.schedule(&key(5), at(0)).await.unwrap();
    let sweeper = ContentSweeper::new(ledger.clone(), subject.store(), Arc::new(SystemClock));
    sweeper.erased(&t1()).await;
    assert_eq!(read_error(store, &key(5)).await, MISSING);
    assert!(ledger.due(None, at(0), 10).await.unwrap().is_empty());
    assert_eq!(read_all(store, &other_tenant).await.unwrap(), b"theirs");
}

async fn the_database_store_keeps_the_contract(backend: Backend) {
    keeps_the_contract(&database(backend)).await;
}

contract!(the_database_store_keeps_the_contract);

#[tokio::test]
async fn a_directory_store_keeps_the_contract() {
    let subject = InDirectory {
        root: tempfile::tempdir().unwrap(),
        ledger: database(Backend::Sqlite),
    };
    keeps_the_contract(&subject).await;
    let left: Vec<_> = walk(subject.root.path());
    assert_eq!(
        left.len(),
        1,
        "only the other tenant's content is left: {left:?}"
    );
}

/// The files under `root`, at any depth.
fn walk(root: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(root).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found
}
