//! Argon2id hashing of client secrets and passwords.

use std::num::NonZeroUsize;
use std::sync::Arc;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use async_trait::async_trait;
use rics_domain::Error;
use rics_domain::identity::ports::SecretHasher;
use tokio::sync::Semaphore;

/// Memory cost in KiB (OWASP: 19 MiB).
const MEMORY_KIB: u32 = 19_456;
/// Iterations (OWASP: 2).
const ITERATIONS: u32 = 2;
/// Lanes (OWASP: 1).
const PARALLELISM: u32 = 1;
/// Salt length in bytes.
const SALT_BYTES: usize = 16;

/// A hash made with the same parameters, checked when the stored hash is missing or
/// malformed so that such a check costs what a real one does (unknown users and
/// clients answer no faster). Its secret is unknown and irrelevant.
const DUMMY_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$GERwbSXnnZkv2gBkTDY2qXRAv3o4xy0eiTZ+3GWqnrI";

/// The [`SecretHasher`]: Argon2id (version 0x13) with the OWASP parameters
/// (m = 19456 KiB, t = 2, p = 1) and a random 16-byte salt, as PHC strings.
///
/// Hashing takes tens of milliseconds of CPU and 19 MiB of memory, so both hashing and
/// verifying run on Tokio's blocking pool (`spawn_blocking`) and never stall an async
/// worker, and at most one per CPU run at once (the others wait their turn without
/// blocking), so a burst of sign-ins cannot exhaust memory. They need a Tokio runtime.
#[derive(Debug, Clone)]
pub struct Argon2Hasher {
    permits: Arc<Semaphore>,
}

impl Default for Argon2Hasher {
    fn default() -> Self {
        Argon2Hasher::new()
    }
}

impl Argon2Hasher {
    /// The hasher with the OWASP parameters, running as many hashes at once as there
    /// are CPUs.
    pub fn new() -> Argon2Hasher {
        let cpus = std::thread::available_parallelism().map_or(2, NonZeroUsize::get);
        Argon2Hasher::with_concurrency(cpus)
    }

    /// The hasher running at most `concurrency` (at least 1) hashes at once.
    pub fn with_concurrency(concurrency: usize) -> Argon2Hasher {
        Argon2Hasher {
            permits: Arc::new(Semaphore::new(concurrency.max(1))),
        }
    }

    /// Runs `work` on the blocking pool once a permit is free; `None` if the task
    /// failed.
    async fn run<T: Send + 'static>(&self, work: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        let _permit = self.permits.acquire().await.ok()?;
        tokio::task::spawn_blocking(work).await.ok()
    }
}

/// The configured Argon2id instance.
fn argon2() -> Result<Argon2<'static>, argon2::Error> {
    let params = Params::new(MEMORY_KIB, ITERATIONS, PARALLELISM, None)?;
    Ok(Argon2::new(Algorithm::Argon2id, Version::V0x13, params))
}

/// Hashes `secret` with a fresh random salt (blocking).
fn hash_blocking(secret: &str) -> Result<String, String> {
    let mut salt = [0_u8; SALT_BYTES];
    getrandom::fill(&mut salt).map_err(|e| format!("no randomness for the salt: {e}"))?;
    let salt = SaltString::encode_b64(&salt).map_err(|e| e.to_string())?;
    let argon2 = argon2().map_err(|e| e.to_string())?;
    argon2
        .hash_password(secret.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|e| e.to_string())
}

/// Whether `secret` matches the PHC string `hash` (blocking). A malformed hash is
/// replaced by [`DUMMY_HASH`], checked, and never matches.
fn verify_blocking(secret: &str, hash: &str) -> bool {
    let stored = PasswordHash::new(hash)
        .ok()
        .filter(|parsed| Algorithm::try_from(parsed.algorithm).is_ok());
    let (parsed, real) = match stored {
        Some(parsed) => (parsed, true),
        None => match PasswordHash::new(DUMMY_HASH) {
            Ok(parsed) => (parsed, false),
            Err(_) => return false,
        },
    };
    let Ok(argon2) = argon2() else {
        return false;
    };
    // Argon2's verifier takes the algorithm, version and parameters from the PHC
    // string and compares the outputs in constant time.
    let matches = argon2.verify_password(secret.as_bytes(), &parsed).is_ok();
    matches && real
}

#[async_trait]
impl SecretHasher for Argon2Hasher {
    async fn hash(&self, secret: &str) -> rics_domain::Result<String> {
        let secret = secret.to_owned();
        self.run(move || hash_blocking(&secret))
            .await
            .ok_or_else(|| Error::internal("the hashing task failed"))?
            .map_err(|e| Error::internal(format!("hashing failed: {e}")))
    }

    async fn verify(&self, secret: &str, hash: &str) -> bool {
        let secret = secret.to_owned();
        let hash = hash.to_owned();
        self.run(move || verify_blocking(&secret, &hash))
            .await
            .unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_are_owasp_argon2id_phc_strings_with_fresh_salts() {
        let hasher = Argon2Hasher::new();
        let first = hasher.hash("s3cret").await.unwrap();
        let second = hasher.hash("s3cret").await.unwrap();
        assert!(
            first.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{first}"
        );
        assert_ne!(first, second, "each hash has its own salt");
        assert!(!first.contains("s3cret"));
    }

    #[tokio::test]
    async fn verifies_the_right_secret_only() {
        let hasher = Argon2Hasher::new();
        let hash = hasher.hash("correct horse").await.unwrap();
        assert!(hasher.verify("correct horse", &hash).await);
        assert!(!hasher.verify("correct horsE", &hash).await);
        assert!(!hasher.verify("", &hash).await);
    }

    #[tokio::test]
    async fn malformed_or_empty_hashes_never_match() {
        let hasher = Argon2Hasher::new();
        let other_algorithm = "$scrypt$ln=16,r=8,p=1$aM15713r3Xsvxbi31lqr1Q$nFNh2CVHVjNldFVKDHDlm4CbdRSCdEBsjjJxD+iCs5E";
        for hash in [
            "",
            "not a hash",
            "$argon2id$v=19$",
            "$plain$secret",
            other_algorithm,
        ] {
            assert!(!hasher.verify("secret", hash).await, "{hash}");
            assert!(!hasher.verify("", hash).await, "{hash}");
        }
    }

    #[tokio::test]
    async fn concurrent_hashes_wait_for_a_permit() {
        let hasher = Argon2Hasher::with_concurrency(1);
        let (a, b) = tokio::join!(hasher.hash("one"), hasher.hash("two"));
        assert!(hasher.verify("one", &a.unwrap()).await);
        assert!(hasher.verify("two", &b.unwrap()).await);
        assert_eq!(hasher.permits.available_permits(), 1);
    }

    #[test]
    fn the_dummy_hash_costs_what_a_real_one_does() {
        // Same algorithm and parameters as fresh hashes, so checking it takes as long.
        let parsed = PasswordHash::new(DUMMY_HASH).unwrap();
        assert_eq!(parsed.algorithm, Algorithm::Argon2id.ident());
        assert_eq!(parsed.version, Some(0x13));
        let params = Params::try_from(&parsed).unwrap();
        assert_eq!(
            (params.m_cost(), params.t_cost(), params.p_cost()),
            (MEMORY_KIB, ITERATIONS, PARALLELISM)
        );
        // And a dummy hash never matches, whatever the secret.
        assert!(!verify_blocking("", ""));
    }
}
