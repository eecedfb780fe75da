//! Test doubles: a clock that tests move, an in-memory key repository, a fixed RSA
//! key, and a tiny HTTP server with canned responses.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use rics_domain::identity::model::SigningKey;
use rics_domain::identity::ports::KeyRepository;
use rics_domain::repository::RepositoryError;
use rics_domain::time::{Clock, Timestamp};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A 2048-bit RSA test key: PKCS#1 DER in base64 (made with `openssl genrsa`).
pub(crate) const RSA_TEST_DER: &str = concat!(
    "MIIEogIBAAKCAQEAkvH4FWdkjk+kZ5kOmEz2ioaPptW3BgoE3tZ7AnStRF3YrzNzkjoytY7ZHOPQaXIINDfwkJbS",
    "sjKInc5euzLuwzQDdmevmls6HV9fg6lveUOfdg8AX7Bo/Y0rDPmuxSA4yyKx9TYBhOVQGlfjrePmFAIkxH5DtjY+",
    "o2dCaR3RZygGqIWEyRVSSyvHGfbn4kqUOl/vKjdZgEVikqwzN3HZSBBr9I9y/ITImXar6TC0iWm4h7FVjmSIfHH8",
    "eFl94/SSOrsd90gXb+YPqGZAIkhTpmlSMvsTE8IX67Ya8ENohry+OPRCuK5G6BU+wTpKG0k0cQwLZsPOHfG8PumM",
    "XuHDpwIDAQABAoIBABB0RNXMuo9O7rdlBaPbNl4jnDFPzAtCkvIK7UJEo2Q85/cSWVYd6zC2Wqxn/B3alX2XZ/og",
    "0V3/15loEuZ+WQsFp3+aM6kinvrMA6uADQn0nwX+vwl3/QGrTY9J5B6RsZpZe7jb/8aMUPBqOAXwN4K1DL3t75IX",
    "N+NfPCn+G0UkJD5f4dfZBydpR7nPodp5oi0JRFbc2049I260YXmugX8ElgPZgb7tJXiojbbHf+pFBvtjiiBeWVkj",
    "bNItn6+RBlGX+xPpoXST0QMznUkoL7XyrszB7OnZTGZeyAFr5RtW0hMRjU0mf7iRUimlHAXkA8mF+WIvGx/KihpR",
    "oVXNZNUCgYEAzNhh+9bO+gEg+fC0S7fwbX6e5pds6CAOSC1E72iMSHdpRMLLq79mQ4yMI5MDmQb9IRNjYL6Tm+hn",
    "c6HVRn76E9SK50vHvVgJjiWpQdFK/1vzSbJNoygGYsVc3fd4I/CMAA4/6zP1WLZQHhNQn6lmWqOdOhyukECwmVIb",
    "FNiHWCsCgYEAt6QTRWtdCYWpgPPoxtNQ1PVMS/uy+ieZgZ/2qzidaxYsxu7NnMTpM8s11dIqbphQ9E1oVBWn3/xE",
    "PCQIIwzV3neM5U42gYpTTU4uKMLn6i9XkgT8kRYgwmZoXWzA7HXR8nrh0YCl2mUnSN4UKq4qTjX0iHraFY8OGqUX",
    "4EAfaHUCgYBKjLlkOPIMpFqG++Xx5JhYkQttalCVTg1EkU0UQB1FxkeGYcpT0A18qerai4d0qsl2vyKcs97uj68O",
    "syf2RwHmM6T1tmuT6jVYCTbHIE9GDgXFnWGJ7mgcjC1XDtgnZETfRFBY3gj9ZyRTPb5KzRDWDdOLsaKKFzDuK6Z1",
    "eLQRDwKBgGGn5AOfg3tD1A7aJihNSYfl5ivl7phupIg1K7SDx9qhkTA836SFZkn/v2I0gBIN98bivx8v4PUQrqyY",
    "sKcK9VR3mLp8LCoZCBFtCMjuVOvJPzVMZ480CDm4wbkk0zcrtHjQ9fM2CXypHAn45xqHQcITmTVWt1CNoX9z2c2L",
    "6+fdAoGAZHZ9YPm5mKDklmfsL5x80xDf1VWP+MuZPUBMbj6KdBWnWol1wJJogdMjcTj8z6VMwjlOLjvXkyiuZjc7",
    "Rmdd0Ea2Anc1fW8BIeNT0l/m30P83aED3Z/DZsVwp8xYTxwX7bglk0OFIXlrQm23Rdgt4Tn57oMTr8LpS1dHzsPs",
    "irg=",
);
/// Its modulus, base64url.
pub(crate) const RSA_TEST_N: &str = concat!(
    "kvH4FWdkjk-kZ5kOmEz2ioaPptW3BgoE3tZ7AnStRF3YrzNzkjoytY7ZHOPQaXIINDfwkJbSsjKInc5euzLuwzQD",
    "dmevmls6HV9fg6lveUOfdg8AX7Bo_Y0rDPmuxSA4yyKx9TYBhOVQGlfjrePmFAIkxH5DtjY-o2dCaR3RZygGqIWE",
    "yRVSSyvHGfbn4kqUOl_vKjdZgEVikqwzN3HZSBBr9I9y_ITImXar6TC0iWm4h7FVjmSIfHH8eFl94_SSOrsd90gX",
    "b-YPqGZAIkhTpmlSMvsTE8IX67Ya8ENohry-OPRCuK5G6BU-wTpKG0k0cQwLZsPOHfG8PumMXuHDpw",
);
/// Its exponent, base64url.
pub(crate) const RSA_TEST_E: &str = "AQAB";

/// A P-256 test key: PKCS#8 DER in base64 (made with `openssl ecparam`).
pub(crate) const EC_TEST_DER: &str = concat!(
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg2rXM50mJyHgucarKj5IqjJGWQnst1Eipr4jsOGXf",
    "mVqhRANCAAR1EfdtGLyv/PHgKT20qfmqgzsX8twXXJwhq5UgbeF5QRzOdYADjcc/F9NkQcwPUmWardg62UKgJVTR",
    "f6tIrXOk",
);
/// Its public point's x, base64url.
pub(crate) const EC_TEST_X: &str = "dRH3bRi8r_zx4Ck9tKn5qoM7F_LcF1ycIauVIG3heUE";
/// Its public point's y, base64url.
pub(crate) const EC_TEST_Y: &str = "HM51gAONxz8X02RBzA9SZZqt2DrZQqAlVNF_q0itc6Q";

/// A clock that stands still until a test moves it. Starts at 2026-01-15T10:00:00Z.
#[derive(Debug)]
pub(crate) struct ManualClock(Mutex<Timestamp>);

impl Default for ManualClock {
    fn default() -> Self {
        ManualClock(Mutex::new(
            Timestamp::parse_rfc3339("2026-01-15T10:00:00Z").unwrap(),
        ))
    }
}

impl ManualClock {
    /// Moves the clock forward.
    pub(crate) fn advance(&self, by: Duration) {
        let mut now = self.0.lock().unwrap();
        *now = now.plus(by);
    }

    /// Seconds since the epoch.
    pub(crate) fn unix(&self) -> i64 {
        self.now().unix_micros() / 1_000_000
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        *self.0.lock().unwrap()
    }
}

/// Signing keys in memory, with the repository's semantics.
#[derive(Debug, Default)]
pub(crate) struct MemoryKeyRepository {
    keys: Mutex<Vec<SigningKey>>,
    reads: AtomicUsize,
    failing: AtomicBool,
    /// A key another replica stores just before the next rotation.
    racer: Mutex<Option<SigningKey>>,
}

impl MemoryKeyRepository {
    /// Every stored key, newest first.
    pub(crate) fn all(&self) -> Vec<SigningKey> {
        let mut keys = self.keys.lock().unwrap().clone();
        keys.sort_by_key(|key| std::cmp::Reverse(key.create_time));
        keys
    }

    /// Stores a key as is.
    pub(crate) fn insert(&self, key: SigningKey) {
        self.keys.lock().unwrap().push(key);
    }

    /// How many times the keys were read.
    pub(crate) fn key_reads(&self) -> usize {
        self.reads.load(Ordering::SeqCst)
    }

    /// Makes every call fail (or succeed again).
    pub(crate) fn set_failing(&self, failing: bool) {
        self.failing.store(failing, Ordering::SeqCst);
    }

    /// Lets `key` win the next rotation, as another replica would.
    pub(crate) fn lose_next_rotation(&self, key: SigningKey) {
        *self.racer.lock().unwrap() = Some(key);
    }

    fn check(&self) -> Result<(), RepositoryError> {
        if self.failing.load(Ordering::SeqCst) {
            return Err(RepositoryError::Unavailable("test outage".into()));
        }
        Ok(())
    }

    fn store_current(keys: &mut Vec<SigningKey>, key: &SigningKey) {
        for other in keys.iter_mut() {
            if other.retire_time.is_none() {
                other.retire_time = Some(key.create_time);
            }
        }
        keys.push(key.clone());
    }
}

#[async_trait]
impl KeyRepository for MemoryKeyRepository {
    async fn keys(&self, since: Timestamp) -> Result<Vec<SigningKey>, RepositoryError> {
        self.check()?;
        self.reads.fetch_add(1, Ordering::SeqCst);
        Ok(self
            .all()
            .into_iter()
            .filter(|key| key.retire_time.is_none_or(|retired| retired >= since))
            .collect())
    }

    async fn rotate(
        &self,
        key: &SigningKey,
        expected_current: Option<String>,
    ) -> Result<bool, RepositoryError> {
        self.check()?;
        let mut keys = self.keys.lock().unwrap();
        if let Some(racer) = self.racer.lock().unwrap().take() {
            Self::store_current(&mut keys, &racer);
        }
        let current = keys
            .iter()
            .filter(|key| key.retire_time.is_none())
            .max_by_key(|key| key.create_time)
            .map(|key| key.kid.clone());
        if current != expected_current {
            return Ok(false);
        }
        Self::store_current(&mut keys, key);
        Ok(true)
    }
}

/// A canned HTTP/1.1 server on 127.0.0.1: answers each path with the status and
/// JSON body set for it (404 otherwise), one request per connection, and counts the
/// requests per path. It stops with the test's runtime.
#[derive(Debug, Clone)]
pub(crate) struct StubServer {
    /// `http://127.0.0.1:PORT`.
    pub(crate) url: String,
    routes: Arc<Mutex<HashMap<String, (u16, String)>>>,
    hits: Arc<Mutex<HashMap<String, usize>>>,
}

impl StubServer {
    /// Starts the server on a free port.
    pub(crate) async fn start() -> StubServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let server = StubServer {
            url,
            routes: Arc::default(),
            hits: Arc::default(),
        };
        let shared = server.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let server = shared.clone();
                tokio::spawn(async move {
                    let mut request = Vec::new();
                    let mut buffer = [0_u8; 1024];
                    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                        match stream.read(&mut buffer).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => request.extend_from_slice(&buffer[..n]),
                        }
                    }
                    let head = String::from_utf8_lossy(&request);
                    let path = head.split_whitespace().nth(1).unwrap_or("/").to_owned();
                    *server.hits.lock().unwrap().entry(path.clone()).or_default() += 1;
                    let (status, body) = server
                        .routes
                        .lock()
                        .unwrap()
                        .get(&path)
                        .cloned()
                        .unwrap_or((404, "{}".to_owned()));
                    let response = format!(
                        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = stream.write_all(response.as_bytes()).await;
                    let _ = stream.shutdown().await;
                });
            }
        });
        server
    }

    /// Answers `path` with `status` and `body`.
    pub(crate) fn set(&self, path: &str, status: u16, body: impl Into<String>) {
        self.routes
            .lock()
            .unwrap()
            .insert(path.to_owned(), (status, body.into()));
    }

    /// How many requests `path` received.
    pub(crate) fn hits(&self, path: &str) -> usize {
        self.hits.lock().unwrap().get(path).copied().unwrap_or(0)
    }
}
