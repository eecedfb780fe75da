//! The S3 store against a local S3-compatible server: `moto` from PyPI in server mode,
//! which `make moto-referee` installs in target/moto-venv. The test starts
//! `moto_server` on a free port and stops it. Without the venv it is skipped with a
//! message, unless RICS_REQUIRE_REFEREES is set, when it fails.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rics_domain::file::content::FileStore;
use rics_storage::object_files::S3Location;
use rics_storage::{Backend, Database, ObjectFileStore};
use std::sync::Arc;

use super::{InDatabase, MAX_BYTES, Subject, database, keeps_the_contract};

/// The bucket the test makes.
const BUCKET: &str = "rics-files";

/// A running `moto_server`, stopped when dropped.
struct Moto {
    child: Child,
    port: u16,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Moto {
    /// Starts the server, or says why it cannot (no venv).
    fn start() -> Option<Moto> {
        let server =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/moto-venv/bin/moto_server");
        if !server.exists() {
            let message = format!(
                "the S3 referee ({}) is not installed: run `make moto-referee` at the workspace root",
                server.display()
            );
            assert!(
                std::env::var_os("RICS_REQUIRE_REFEREES").is_none(),
                "{message}"
            );
            eprintln!("skipped: {message}");
            return None;
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .map(|address| address.port())
            .unwrap();
        let child = Command::new(&server)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", server.display()));
        let moto = Moto { child, port };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "moto_server did not listen on {port}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Some(moto)
    }

    /// Makes `bucket` with a plain `PUT /{bucket}` (moto takes any credentials).
    fn make_bucket(&self, bucket: &str) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(
            stream,
            "PUT /{bucket} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            self.port
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    }
}

/// An S3 store in a moto bucket, its ledger on SQLite.
struct InS3 {
    moto: Moto,
    ledger: InDatabase,
}

impl Subject for InS3 {
    fn store(&self) -> Arc<dyn FileStore> {
        let location = S3Location {
            bucket: BUCKET.to_owned(),
            prefix: "contract/files".to_owned(),
            endpoint: format!("http://127.0.0.1:{}", self.moto.port),
            region: "us-east-1".to_owned(),
            access_key_id: "testing".to_owned(),
            secret_access_key: "testing".to_owned(),
            allow_http: true,
        };
        Arc::new(ObjectFileStore::s3(&location, MAX_BYTES, 2).unwrap())
    }
    fn db(&self) -> &Database {
        &self.ledger.db
    }
}

#[tokio::test]
async fn an_s3_store_keeps_the_contract() {
    let Some(moto) = Moto::start() else {
        return;
    };
    moto.make_bucket(BUCKET);
    let subject = InS3 {
        moto,
        ledger: database(Backend::Sqlite),
    };
    keeps_the_contract(&subject).await;
}
