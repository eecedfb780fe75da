//! [`SecretBox`]: the domain's [`SecretCipher`]. Secrets the server must read back
//! (webhook signing secrets) are sealed with ChaCha20-Poly1305 under a 32-byte key the
//! operator keeps outside the database (`RICS_SECRET_KEY` or a key file), each under a
//! fresh random nonce. A sealed secret is `v1.` and the base64 of the nonce and the
//! ciphertext with its tag; one altered or sealed under another key does not open.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use rics_domain::webhook::SecretCipher;

/// What a sealed secret starts with: the format's version.
const VERSION: &str = "v1.";
/// Bytes of a nonce.
const NONCE_BYTES: usize = 12;

/// Seals and opens secrets with the operator's key.
pub struct SecretBox {
    cipher: ChaCha20Poly1305,
}

impl std::fmt::Debug for SecretBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretBox(***)")
    }
}

impl SecretBox {
    /// The box of the key `encoded`: the base64 of 32 bytes (surrounding whitespace,
    /// such as a key file's last newline, is ignored).
    ///
    /// # Errors
    /// A description when `encoded` is not base64 of exactly 32 bytes.
    pub fn from_base64(encoded: &str) -> Result<SecretBox, String> {
        let key = STANDARD
            .decode(encoded.trim())
            .map_err(|e| format!("the secret key is not base64: {e}"))?;
        if key.len() != 32 {
            return Err(format!(
                "the secret key must be 32 bytes, not {} (make one with `openssl rand -base64 32`)",
                key.len()
            ));
        }
        Ok(SecretBox {
            cipher: ChaCha20Poly1305::new(Key::from_slice(&key)),
        })
    }
}

impl SecretCipher for SecretBox {
    fn seal(&self, plaintext: &str) -> Result<String, String> {
        let mut nonce = [0u8; NONCE_BYTES];
        getrandom::fill(&mut nonce).map_err(|e| e.to_string())?;
        let sealed = self
            .cipher
            .encrypt(Nonce::from_slice(&nonce), plaintext.as_bytes())
            .map_err(|e| e.to_string())?;
        Ok(format!(
            "{VERSION}{}",
            STANDARD.encode([&nonce[..], &sealed].concat())
        ))
    }

    fn open(&self, sealed: &str) -> Result<String, String> {
        let bytes = sealed
            .strip_prefix(VERSION)
            .and_then(|b| STANDARD.decode(b).ok())
            .filter(|b| b.len() > NONCE_BYTES)
            .ok_or("not a sealed secret")?;
        let (nonce, ciphertext) = bytes.split_at(NONCE_BYTES);
        let plaintext = self
            .cipher
            .decrypt(Nonce::from_slice(nonce), ciphertext)
            .map_err(|_| "the sealed secret does not open with this key")?;
        String::from_utf8(plaintext).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";

    #[test]
    fn sealed_secrets_open_only_with_their_key_and_unaltered() {
        let secret_box = SecretBox::from_base64(KEY).unwrap();
        let sealed = secret_box.seal("whsec_abc").unwrap();
        assert!(sealed.starts_with("v1.") && !sealed.contains("whsec"));
        assert_ne!(
            sealed,
            secret_box.seal("whsec_abc").unwrap(),
            "fresh nonces"
        );
        assert_eq!(secret_box.open(&sealed).unwrap(), "whsec_abc");
        let other = SecretBox::from_base64(&STANDARD.encode([7u8; 32])).unwrap();
        assert!(other.open(&sealed).is_err());
        let mut altered = STANDARD.decode(&sealed[3..]).unwrap();
        let last = altered.len() - 1;
        altered[last] ^= 1;
        assert!(
            secret_box
                .open(&format!("v1.{}", STANDARD.encode(altered)))
                .is_err()
        );
        assert!(secret_box.open("whsec_abc").is_err());
    }

    #[test]
    fn keys_are_32_bytes_of_base64() {
        assert!(SecretBox::from_base64(&format!("{KEY}\n")).is_ok());
        assert!(SecretBox::from_base64("c2hvcnQ=").is_err());
        assert!(SecretBox::from_base64("not base64!").is_err());
    }
}
