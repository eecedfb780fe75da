//! The embedded server's signing keys: Ed25519, stored through the domain's
//! [`KeyRepository`] port and shared by every replica, published as a JWKS.
//!
//! The newest unretired key signs. [`KeyRing::rotate`] makes a new current key; a
//! retired key stays published until no token it signed can still be valid:
//! `retire_time + token lifetime + CLOCK_LEEWAY + KEY_REFRESH_INTERVAL` (the last term
//! covers a replica that has not seen the rotation yet and still signs with it).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ed25519_dalek::pkcs8::{DecodePrivateKey, EncodePrivateKey};
use jsonwebtoken::EncodingKey;
use rics_domain::Error;
use rics_domain::identity::model::SigningKey;
use rics_domain::identity::ports::KeyRepository;
use rics_domain::time::{Clock, Timestamp};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::jwk::{VerificationKey, public_members};
use crate::verify::CLOCK_LEEWAY;

/// A replica re-reads the keys before signing when it last read them longer ago than
/// this, so a rotation made by another replica takes over within this interval.
pub const KEY_REFRESH_INTERVAL: Duration = Duration::from_secs(60);

/// A token naming an unknown `kid` fetches the keys again (from the repository, or an
/// external issuer's JWKS) at most this often per issuer, so forged `kid`s cannot
/// flood the database or the identity provider.
pub const KEY_REFETCH_INTERVAL: Duration = Duration::from_secs(60);

/// The JWS algorithm of the keys the server makes.
const ALGORITHM: &str = "EdDSA";

/// The key that signs, ready for jsonwebtoken. Its `Debug` shows the kid only.
pub(crate) struct CurrentKey {
    /// The key id, the `kid` header of the tokens it signs.
    pub(crate) kid: String,
    /// The private key.
    pub(crate) encoding: EncodingKey,
}

impl fmt::Debug for CurrentKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CurrentKey")
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

/// A key in the JWKS.
#[derive(Debug)]
struct PublishedKey {
    /// Its JWK (public members only).
    jwk: Value,
    /// When it stopped signing.
    retire_time: Option<Timestamp>,
    /// The key that verifies its signatures.
    verification: Arc<VerificationKey>,
}

/// What the ring holds between loads.
#[derive(Debug)]
struct KeyState {
    /// When the keys were read.
    loaded_at: Timestamp,
    /// The signing key, if any.
    current: Option<Arc<CurrentKey>>,
    /// Every key whose tokens may still be valid, newest first.
    published: Vec<PublishedKey>,
}

/// The server's signing keys: the current one and those still published.
///
/// Reads are lock-free; loads from the repository happen at start, after a rotation,
/// before signing when the keys are older than [`KEY_REFRESH_INTERVAL`], and on an
/// unknown `kid` (at most once per [`KEY_REFETCH_INTERVAL`]).
pub struct KeyRing {
    repository: Arc<dyn KeyRepository>,
    clock: Arc<dyn Clock>,
    token_lifetime: Duration,
    state: ArcSwap<KeyState>,
    /// Serialises the periodic refresh (one load for many signers).
    refresh: tokio::sync::Mutex<()>,
    /// When an unknown `kid` last caused a load.
    refetch: tokio::sync::Mutex<Option<Timestamp>>,
}

impl fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state.load();
        f.debug_struct("KeyRing")
            .field("current", &state.current.as_ref().map(|key| &key.kid))
            .field(
                "published",
                &state
                    .published
                    .iter()
                    .map(|key| &key.verification.kid)
                    .collect::<Vec<_>>(),
            )
            .field("token_lifetime", &self.token_lifetime)
            .finish_non_exhaustive()
    }
}

impl KeyRing {
    /// Loads the keys; when none is current (first start), makes an Ed25519 key and
    /// stores it. When another replica stores its key first, that one is used.
    /// `token_lifetime` is the access tokens' lifetime, which decides how long retired
    /// keys stay published.
    ///
    /// # Errors
    /// UNAVAILABLE or INTERNAL when the repository fails or the current key cannot be
    /// read.
    pub async fn start(
        repository: Arc<dyn KeyRepository>,
        clock: Arc<dyn Clock>,
        token_lifetime: Duration,
    ) -> rics_domain::Result<KeyRing> {
        let now = clock.now();
        let ring = KeyRing {
            repository,
            clock,
            token_lifetime,
            state: ArcSwap::from_pointee(KeyState {
                loaded_at: now,
                current: None,
                published: Vec::new(),
            }),
            refresh: tokio::sync::Mutex::new(()),
            refetch: tokio::sync::Mutex::new(None),
        };
        ring.reload().await?;
        if ring.state.load().current.is_none() {
            let key = generate_key(ring.clock.now())?;
            let stored = ring.repository.rotate(&key, None).await?;
            if stored {
                tracing::info!(kid = %key.kid, "created the first signing key");
            }
            ring.reload().await?;
            if ring.state.load().current.is_none() {
                return Err(Error::unavailable(
                    "NO_SIGNING_KEY",
                    "no current signing key after storing one",
                ));
            }
        }
        Ok(ring)
    }

    /// Makes a new Ed25519 key the current one. The previous keys stay published until
    /// the tokens they signed have expired. When another replica rotated at the same
    /// moment, its key wins and no second key is made. Returns the current key's id.
    ///
    /// # Errors
    /// UNAVAILABLE or INTERNAL when the repository fails.
    pub async fn rotate(&self) -> rics_domain::Result<String> {
        self.reload().await?;
        let expected = self
            .state
            .load()
            .current
            .as_ref()
            .map(|key| key.kid.clone());
        let key = generate_key(self.clock.now())?;
        if self.repository.rotate(&key, expected).await? {
            tracing::info!(kid = %key.kid, "rotated the signing key");
        } else {
            tracing::info!("another replica rotated the signing key first");
        }
        self.reload().await?;
        self.state
            .load()
            .current
            .as_ref()
            .map(|key| key.kid.clone())
            .ok_or_else(|| Error::unavailable("NO_SIGNING_KEY", "no current signing key"))
    }

    /// Reads the keys from the repository again.
    ///
    /// # Errors
    /// UNAVAILABLE or INTERNAL when the repository fails or the current key cannot be
    /// read; the keys held before stay in use.
    pub async fn reload(&self) -> rics_domain::Result<()> {
        let now = self.clock.now();
        let stored = self
            .repository
            .keys(now.minus(self.publish_window()))
            .await?;
        let mut current = None;
        let mut published = Vec::with_capacity(stored.len());
        for key in &stored {
            if key.retire_time.is_none() && current.is_none() {
                current = Some(Arc::new(signing_key(key)?));
            }
            let jwk = serde_json::from_str::<Value>(&key.public_jwk)
                .map_err(|_| "not JSON")
                .and_then(|jwk| VerificationKey::from_jwk(&jwk).map(|v| (jwk, v)));
            match jwk {
                Ok((jwk, verification)) if verification.kid == key.kid => {
                    published.push(PublishedKey {
                        jwk: public_members(&jwk),
                        retire_time: key.retire_time,
                        verification: Arc::new(verification),
                    });
                }
                Ok(_) => tracing::warn!(kid = %key.kid, "a stored public key has another kid"),
                Err(reason) => {
                    tracing::warn!(kid = %key.kid, reason, "a stored public key is unusable");
                }
            }
        }
        self.state.store(Arc::new(KeyState {
            loaded_at: now,
            current,
            published,
        }));
        Ok(())
    }

    /// The JSON Web Key Set of every published key (`/.well-known/jwks.json`):
    /// `{"keys": [{"kty": "OKP", "crv": "Ed25519", "x": ..., "kid": ..., "alg": "EdDSA",
    /// "use": "sig"}, ...]}`, newest first.
    pub fn jwks(&self) -> Value {
        let state = self.state.load();
        let now = self.clock.now();
        let keys: Vec<Value> = state
            .published
            .iter()
            .filter(|key| self.still_published(key, now))
            .map(|key| key.jwk.clone())
            .collect();
        json!({ "keys": keys })
    }

    /// The access tokens' lifetime the ring was started with.
    pub fn token_lifetime(&self) -> Duration {
        self.token_lifetime
    }

    /// How long after its retirement a key stays published.
    fn publish_window(&self) -> Duration {
        self.token_lifetime + CLOCK_LEEWAY + KEY_REFRESH_INTERVAL
    }

    fn still_published(&self, key: &PublishedKey, now: Timestamp) -> bool {
        key.retire_time
            .is_none_or(|retired| retired.plus(self.publish_window()) > now)
    }

    /// The key that signs now, after re-reading the keys when they are older than
    /// [`KEY_REFRESH_INTERVAL`] (a failed re-read keeps the keys held).
    pub(crate) async fn current(&self) -> rics_domain::Result<Arc<CurrentKey>> {
        if self.stale() {
            // One task re-reads; the others sign with the keys held meanwhile.
            if let Ok(_guard) = self.refresh.try_lock()
                && self.stale()
                && let Err(error) = self.reload().await
            {
                tracing::warn!(%error, "could not re-read the signing keys");
            }
        }
        self.state
            .load()
            .current
            .clone()
            .ok_or_else(|| Error::unavailable("NO_SIGNING_KEY", "no current signing key"))
    }

    fn stale(&self) -> bool {
        let loaded_at = self.state.load().loaded_at;
        loaded_at.plus(KEY_REFRESH_INTERVAL) <= self.clock.now()
    }

    /// The published key `kid`. An unknown `kid` re-reads the keys, at most once per
    /// [`KEY_REFETCH_INTERVAL`].
    pub(crate) async fn verification_key(&self, kid: &str) -> Option<Arc<VerificationKey>> {
        if let Some(key) = self.find(kid) {
            return Some(key);
        }
        let mut last = self.refetch.lock().await;
        // Another task may have loaded it while this one waited.
        if let Some(key) = self.find(kid) {
            return Some(key);
        }
        let now = self.clock.now();
        if last.is_some_and(|last| last.plus(KEY_REFETCH_INTERVAL) > now) {
            return None;
        }
        *last = Some(now);
        if let Err(error) = self.reload().await {
            tracing::warn!(%error, "could not re-read the signing keys for an unknown kid");
        }
        self.find(kid)
    }

    fn find(&self, kid: &str) -> Option<Arc<VerificationKey>> {
        let state = self.state.load();
        let now = self.clock.now();
        state
            .published
            .iter()
            .find(|key| key.verification.kid == kid && self.still_published(key, now))
            .map(|key| key.verification.clone())
    }
}

/// A new Ed25519 key created at `now`: the private key as base64 PKCS#8 DER, the public
/// key as a JWK whose `kid` is its RFC 7638 thumbprint.
pub(crate) fn generate_key(now: Timestamp) -> rics_domain::Result<SigningKey> {
    let mut seed = [0_u8; 32];
    getrandom::fill(&mut seed)
        .map_err(|e| Error::internal(format!("no randomness for a signing key: {e}")))?;
    let key = ed25519_dalek::SigningKey::from_bytes(&seed);
    seed.fill(0);
    let der = key
        .to_pkcs8_der()
        .map_err(|e| Error::internal(format!("could not encode a signing key: {e}")))?;
    let x = URL_SAFE_NO_PAD.encode(key.verifying_key().as_bytes());
    let kid = thumbprint(&x);
    let jwk = json!({
        "kty": "OKP",
        "crv": "Ed25519",
        "x": x,
        "kid": kid,
        "alg": ALGORITHM,
        "use": "sig",
    });
    Ok(SigningKey {
        kid,
        algorithm: ALGORITHM.to_owned(),
        private_key: STANDARD.encode(der.as_bytes()),
        public_jwk: jwk.to_string(),
        create_time: now,
        retire_time: None,
    })
}

/// The RFC 7638 thumbprint of an Ed25519 public key `x` (SHA-256, base64url).
fn thumbprint(x: &str) -> String {
    // The required members in lexicographic order, no whitespace.
    let canonical = format!(r#"{{"crv":"Ed25519","kty":"OKP","x":"{x}"}}"#);
    URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
}

/// The signing key of a stored key, checked against its published public key. Errors
/// name the kid, never the key.
fn signing_key(key: &SigningKey) -> rics_domain::Result<CurrentKey> {
    let unreadable = |what: &str| {
        Error::internal(format!(
            "the current signing key '{}' is unusable: {what}",
            key.kid
        ))
    };
    if key.algorithm != ALGORITHM {
        return Err(unreadable("unsupported algorithm"));
    }
    let der = STANDARD
        .decode(&key.private_key)
        .map_err(|_| unreadable("not base64"))?;
    let private =
        ed25519_dalek::SigningKey::from_pkcs8_der(&der).map_err(|_| unreadable("not PKCS#8"))?;
    let x = URL_SAFE_NO_PAD.encode(private.verifying_key().as_bytes());
    let published = serde_json::from_str::<Value>(&key.public_jwk)
        .ok()
        .and_then(|jwk| jwk.get("x").and_then(Value::as_str).map(str::to_owned));
    if published.as_deref() != Some(x.as_str()) {
        return Err(unreadable("the public key does not match"));
    }
    Ok(CurrentKey {
        kid: key.kid.clone(),
        encoding: EncodingKey::from_ed_der(&der),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{ManualClock, MemoryKeyRepository};

    const LIFETIME: Duration = Duration::from_secs(900);

    async fn ring(repository: &Arc<MemoryKeyRepository>, clock: &Arc<ManualClock>) -> KeyRing {
        KeyRing::start(repository.clone(), clock.clone(), LIFETIME)
            .await
            .unwrap()
    }

    fn kids(jwks: &Value) -> Vec<String> {
        jwks["keys"]
            .as_array()
            .unwrap()
            .iter()
            .map(|key| key["kid"].as_str().unwrap().to_owned())
            .collect()
    }

    #[tokio::test]
    async fn first_start_creates_and_stores_one_key() {
        let repository = Arc::new(MemoryKeyRepository::default());
        let clock = Arc::new(ManualClock::default());
        let ring = ring(&repository, &clock).await;
        let stored = repository.all();
        assert_eq!(stored.len(), 1);
        assert_eq!(stored[0].algorithm, "EdDSA");
        assert_eq!(stored[0].retire_time, None);
        assert_eq!(ring.current().await.unwrap().kid, stored[0].kid);

        // A second replica starting later uses the stored key.
        let other = self::ring(&repository, &clock).await;
        assert_eq!(repository.all().len(), 1);
        assert_eq!(other.current().await.unwrap().kid, stored[0].kid);
    }

    #[tokio::test]
    async fn a_replica_that_loses_the_race_uses_the_winners_key() {
        let repository = Arc::new(MemoryKeyRepository::default());
        repository.lose_next_rotation(generate_key(ManualClock::default().now()).unwrap());
        let clock = Arc::new(ManualClock::default());
        let ring = ring(&repository, &clock).await;
        let stored = repository.all();
        assert_eq!(stored.len(), 1, "only the winner's key is stored");
        assert_eq!(ring.current().await.unwrap().kid, stored[0].kid);
    }

    #[tokio::test]
    async fn jwks_publishes_ed25519_public_keys_only() {
        let repository = Arc::new(MemoryKeyRepository::default());
        let clock = Arc::new(ManualClock::default());
        let ring = ring(&repository, &clock).await;
        let jwks = ring.jwks();
        let key = &jwks["keys"][0];
        assert_eq!(key["kty"], "OKP");
        assert_eq!(key["crv"], "Ed25519");
        assert_eq!(key["alg"], "EdDSA");
        assert_eq!(key["use"], "sig");
        assert_eq!(
            URL_SAFE_NO_PAD
                .decode(key["x"].as_str().unwrap())
                .unwrap()
                .len(),
            32
        );
        assert_eq!(key["kid"], thumbprint(key["x"].as_str().unwrap()));
        assert!(key.get("d").is_none());
        assert_eq!(jwks["keys"].as_array().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn rotation_keeps_the_previous_key_published_until_its_tokens_expire() {
        let repository = Arc::new(MemoryKeyRepository::default());
        let clock = Arc::new(ManualClock::default());
        let ring = ring(&repository, &clock).await;
        let old = ring.current().await.unwrap().kid.clone();
        clock.advance(Duration::from_secs(10));
        let new = ring.rotate().await.unwrap();
        assert_ne!(new, old);
        assert_eq!(ring.current().await.unwrap().kid, new);
        assert_eq!(kids(&ring.jwks()), vec![new.clone(), old.clone()]);
        assert!(ring.verification_key(&old).await.is_some());

        // Still published just before retire + lifetime + leeway + refresh interval.
        let window = LIFETIME + CLOCK_LEEWAY + KEY_REFRESH_INTERVAL;
        clock.advance(window - Duration::from_secs(1));
        assert_eq!(kids(&ring.jwks()), vec![new.clone(), old.clone()]);
        clock.advance(Duration::from_secs(1));
        assert_eq!(kids(&ring.jwks()), vec![new.clone()]);
        ring.reload().await.unwrap();
        assert_eq!(kids(&ring.jwks()), vec![new]);
        assert!(ring.find(&old).is_none());
    }

    #[tokio::test]
    async fn signing_picks_up_another_replicas_rotation_within_the_refresh_interval() {
        let repository = Arc::new(MemoryKeyRepository::default());
        let clock = Arc::new(ManualClock::default());
        let ring = ring(&repository, &clock).await;
        let other = self::ring(&repository, &clock).await;
        let new = other.rotate().await.unwrap();
        assert_ne!(ring.current().await.unwrap().kid, new, "not re-read yet");
        clock.advance(KEY_REFRESH_INTERVAL);
        assert_eq!(ring.current().await.unwrap().kid, new);
    }

    #[tokio::test]
    async fn an_unknown_kid_reloads_at_most_once_a_minute() {
        let repository = Arc::new(MemoryKeyRepository::default());
        let clock = Arc::new(ManualClock::default());
        let ring = ring(&repository, &clock).await;
        let loads = repository.key_reads();
        assert!(ring.verification_key("nope").await.is_none());
        assert_eq!(repository.key_reads(), loads + 1);
        assert!(ring.verification_key("nope").await.is_none());
        assert!(ring.verification_key("other").await.is_none());
        assert_eq!(repository.key_reads(), loads + 1, "rate limited");

        // A key another replica made is found once the interval has passed.
        let other = self::ring(&repository, &clock).await;
        let new = other.rotate().await.unwrap();
        assert!(ring.verification_key(&new).await.is_none());
        clock.advance(KEY_REFETCH_INTERVAL);
        assert!(ring.verification_key(&new).await.is_some());
    }

    #[tokio::test]
    async fn a_failing_repository_keeps_the_keys_held() {
        let repository = Arc::new(MemoryKeyRepository::default());
        let clock = Arc::new(ManualClock::default());
        let ring = ring(&repository, &clock).await;
        let kid = ring.current().await.unwrap().kid.clone();
        repository.set_failing(true);
        assert!(ring.reload().await.is_err());
        clock.advance(KEY_REFRESH_INTERVAL * 2);
        assert_eq!(ring.current().await.unwrap().kid, kid);
        assert!(ring.verification_key(&kid).await.is_some());
    }

    #[tokio::test]
    async fn a_corrupt_current_key_is_refused_without_showing_it() {
        let repository = Arc::new(MemoryKeyRepository::default());
        let mut key = generate_key(ManualClock::default().now()).unwrap();
        let other = generate_key(ManualClock::default().now()).unwrap();
        key.private_key = other.private_key.clone();
        repository.insert(key);
        let clock = Arc::new(ManualClock::default());
        let error = KeyRing::start(repository.clone(), clock, LIFETIME)
            .await
            .unwrap_err();
        assert!(error.message.contains("does not match"), "{error:?}");
        assert!(!error.message.contains(&other.private_key));
    }

    #[tokio::test]
    async fn debug_output_never_shows_private_keys() {
        let repository = Arc::new(MemoryKeyRepository::default());
        let clock = Arc::new(ManualClock::default());
        let ring = ring(&repository, &clock).await;
        let private = repository.all()[0].private_key.clone();
        let shown = format!("{ring:?} {:?}", ring.current().await.unwrap());
        assert!(shown.contains(&repository.all()[0].kid));
        assert!(!shown.contains(&private), "{shown}");
        let der = STANDARD.decode(&private).unwrap();
        let seed = ed25519_dalek::SigningKey::from_pkcs8_der(&der)
            .unwrap()
            .to_bytes();
        assert!(!shown.contains(&URL_SAFE_NO_PAD.encode(seed)));
        assert!(!shown.contains(&STANDARD.encode(seed)));
        assert!(!shown.contains(format!("{:?}", &seed[..8]).trim_end_matches(']')));
    }

    #[test]
    fn thumbprint_matches_rfc_8037() {
        // RFC 8037 appendix A.3.
        assert_eq!(
            thumbprint("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"),
            "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"
        );
    }
}
