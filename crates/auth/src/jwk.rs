//! Public keys from JSON Web Keys (RFC 7517), checked before jsonwebtoken ever sees
//! them, and the algorithm allow-list.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey};
use serde_json::{Map, Value};

/// The algorithms a token may be signed with, by JWS name. `none` and every HMAC
/// algorithm (HS*) are absent on purpose: every key is asymmetric, and accepting HS*
/// would let a public key serve as an HMAC secret (key confusion).
pub(crate) const ALLOWED_ALGORITHMS: [(&str, Algorithm); 9] = [
    ("EdDSA", Algorithm::EdDSA),
    ("RS256", Algorithm::RS256),
    ("RS384", Algorithm::RS384),
    ("RS512", Algorithm::RS512),
    ("PS256", Algorithm::PS256),
    ("PS384", Algorithm::PS384),
    ("PS512", Algorithm::PS512),
    ("ES256", Algorithm::ES256),
    ("ES384", Algorithm::ES384),
];

/// The allowed algorithm named exactly `name` (case matters, as in RFC 7518).
pub(crate) fn allowed_algorithm(name: &str) -> Option<Algorithm> {
    ALLOWED_ALGORITHMS
        .into_iter()
        .find(|(allowed, _)| *allowed == name)
        .map(|(_, alg)| alg)
}

/// Smallest RSA modulus accepted, in bits.
const MIN_RSA_BITS: usize = 2048;
/// Largest RSA modulus accepted, in bits (the verifier's own limit).
const MAX_RSA_BITS: usize = 4096;

/// A public key that verifies token signatures.
pub(crate) struct VerificationKey {
    /// The key id (`kid`).
    pub(crate) kid: String,
    /// The algorithm family of the key type.
    family: AlgorithmFamily,
    /// The one algorithm the key is for, when the JWK (`alg`) or the curve says so.
    algorithm: Option<Algorithm>,
    /// The key in jsonwebtoken's form.
    pub(crate) decoding: DecodingKey,
}

impl std::fmt::Debug for VerificationKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VerificationKey")
            .field("kid", &self.kid)
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

impl VerificationKey {
    /// Whether this key may verify a signature made with `alg`.
    pub(crate) fn accepts(&self, alg: Algorithm) -> bool {
        alg.family() == self.family && self.algorithm.is_none_or(|own| own == alg)
    }

    /// The signature-verification key described by `jwk`, or why it is not one. Only
    /// public keys with a `kid`, meant for signatures, of a type the allow-list can
    /// use, and of a sound size are taken; symmetric (`oct`) keys never are.
    pub(crate) fn from_jwk(jwk: &Value) -> Result<VerificationKey, &'static str> {
        let jwk = jwk.as_object().ok_or("not a JSON object")?;
        let kid = string(jwk, "kid")?
            .filter(|kid| !kid.is_empty())
            .ok_or("no kid")?;
        if string(jwk, "use")?.is_some_and(|usage| usage != "sig") {
            return Err("not a signature key (use)");
        }
        if let Some(ops) = jwk.get("key_ops") {
            let verify = ops
                .as_array()
                .is_some_and(|ops| ops.iter().any(|op| op == "verify"));
            if !verify {
                return Err("not a verification key (key_ops)");
            }
        }
        let declared = match string(jwk, "alg")? {
            None => None,
            Some(name) => Some(allowed_algorithm(name).ok_or("algorithm not allowed")?),
        };
        let (family, implied, decoding) = match string(jwk, "kty")?.ok_or("no kty")? {
            "OKP" => okp_key(jwk)?,
            "RSA" => rsa_key(jwk)?,
            "EC" => ec_key(jwk)?,
            _ => return Err("unsupported key type"),
        };
        let algorithm = match (declared, implied) {
            (Some(declared), Some(implied)) if declared != implied => {
                return Err("algorithm does not fit the key");
            }
            (Some(declared), _) if declared.family() != family => {
                return Err("algorithm does not fit the key");
            }
            (declared, implied) => declared.or(implied),
        };
        Ok(VerificationKey {
            kid: kid.to_owned(),
            family,
            algorithm,
            decoding,
        })
    }
}

/// The family, implied algorithm and decoding key of an Ed25519 JWK.
fn okp_key(
    jwk: &Map<String, Value>,
) -> Result<(AlgorithmFamily, Option<Algorithm>, DecodingKey), &'static str> {
    if string(jwk, "crv")? != Some("Ed25519") {
        return Err("unsupported curve");
    }
    let x = bytes(jwk, "x")?;
    // jsonwebtoken slices the first 32 bytes: anything else must not reach it.
    if x.len() != 32 {
        return Err("an Ed25519 key has 32 bytes");
    }
    let decoding = DecodingKey::from_ed_components(&URL_SAFE_NO_PAD.encode(&x))
        .map_err(|_| "bad Ed25519 key")?;
    Ok((AlgorithmFamily::Ed, Some(Algorithm::EdDSA), decoding))
}

/// The family, implied algorithm and decoding key of an RSA JWK.
fn rsa_key(
    jwk: &Map<String, Value>,
) -> Result<(AlgorithmFamily, Option<Algorithm>, DecodingKey), &'static str> {
    let n = bytes(jwk, "n")?;
    let e = bytes(jwk, "e")?;
    let n = strip_leading_zeros(&n);
    let e = strip_leading_zeros(&e);
    let bits = n
        .first()
        .map_or(0, |top| n.len() * 8 - top.leading_zeros() as usize);
    if !(MIN_RSA_BITS..=MAX_RSA_BITS).contains(&bits) {
        return Err("RSA modulus of an unsupported size");
    }
    if e.is_empty() || e.len() > 8 {
        return Err("bad RSA exponent");
    }
    Ok((
        AlgorithmFamily::Rsa,
        None,
        DecodingKey::from_rsa_raw_components(n, e),
    ))
}

/// The family, implied algorithm and decoding key of an elliptic-curve JWK.
fn ec_key(
    jwk: &Map<String, Value>,
) -> Result<(AlgorithmFamily, Option<Algorithm>, DecodingKey), &'static str> {
    let (algorithm, size) = match string(jwk, "crv")? {
        Some("P-256") => (Algorithm::ES256, 32),
        Some("P-384") => (Algorithm::ES384, 48),
        _ => return Err("unsupported curve"),
    };
    let x = bytes(jwk, "x")?;
    let y = bytes(jwk, "y")?;
    if x.len() != size || y.len() != size {
        return Err("bad coordinate length for the curve");
    }
    let decoding =
        DecodingKey::from_ec_components(&URL_SAFE_NO_PAD.encode(&x), &URL_SAFE_NO_PAD.encode(&y))
            .map_err(|_| "bad EC key")?;
    Ok((AlgorithmFamily::Ec, Some(algorithm), decoding))
}

/// The string member `name`, if present; an error if present and not a string.
fn string<'a>(jwk: &'a Map<String, Value>, name: &str) -> Result<Option<&'a str>, &'static str> {
    match jwk.get(name) {
        None => Ok(None),
        Some(Value::String(value)) => Ok(Some(value)),
        Some(_) => Err("a member is not a string"),
    }
}

/// The base64url member `name`, decoded.
fn bytes(jwk: &Map<String, Value>, name: &str) -> Result<Vec<u8>, &'static str> {
    let text = string(jwk, name)?.ok_or("a key member is missing")?;
    URL_SAFE_NO_PAD
        .decode(text.trim_end_matches('='))
        .map_err(|_| "a key member is not base64url")
}

fn strip_leading_zeros(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|b| *b != 0).unwrap_or(bytes.len());
    &bytes[start..]
}

/// The public members of a JWK, for publishing: a private member (`d`, `p`, ...)
/// stored by mistake never leaves.
pub(crate) fn public_members(jwk: &Value) -> Value {
    const PUBLIC: [&str; 9] = ["kty", "crv", "x", "y", "n", "e", "kid", "alg", "use"];
    let members = jwk
        .as_object()
        .map(|jwk| {
            jwk.iter()
                .filter(|(name, _)| PUBLIC.contains(&name.as_str()))
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect::<Map<_, _>>()
        })
        .unwrap_or_default();
    Value::Object(members)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::testing::{RSA_TEST_E, RSA_TEST_N};

    const X: &str = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo";

    #[test]
    fn the_allow_list_refuses_none_and_hmac() {
        for name in [
            "none", "None", "NONE", "HS256", "HS384", "HS512", "eddsa", "", "RS1",
        ] {
            assert_eq!(allowed_algorithm(name), None, "{name}");
        }
        for (name, alg) in ALLOWED_ALGORITHMS {
            assert_eq!(allowed_algorithm(name), Some(alg));
            assert_eq!(format!("{alg:?}"), name);
            assert_ne!(alg.family(), AlgorithmFamily::Hmac);
        }
    }

    #[test]
    fn reads_ed25519_keys() {
        let key = VerificationKey::from_jwk(&json!({
            "kty": "OKP", "crv": "Ed25519", "x": X, "kid": "k1", "alg": "EdDSA", "use": "sig"
        }))
        .unwrap();
        assert_eq!(key.kid, "k1");
        assert!(key.accepts(Algorithm::EdDSA));
        assert!(!key.accepts(Algorithm::RS256));
        assert!(!key.accepts(Algorithm::HS256));
    }

    #[test]
    fn reads_rsa_keys_for_every_rsa_algorithm_unless_pinned() {
        let jwk = json!({"kty": "RSA", "n": RSA_TEST_N, "e": RSA_TEST_E, "kid": "r1"});
        let key = VerificationKey::from_jwk(&jwk).unwrap();
        assert!(key.accepts(Algorithm::RS256) && key.accepts(Algorithm::PS512));
        assert!(!key.accepts(Algorithm::EdDSA));
        let mut pinned = jwk.clone();
        pinned["alg"] = json!("RS256");
        let key = VerificationKey::from_jwk(&pinned).unwrap();
        assert!(key.accepts(Algorithm::RS256) && !key.accepts(Algorithm::RS512));
    }

    #[test]
    fn refuses_unusable_keys() {
        let ed = json!({"kty": "OKP", "crv": "Ed25519", "x": X, "kid": "k"});
        let mut cases = Vec::new();
        let mut variant = |f: &dyn Fn(&mut Value)| {
            let mut jwk = ed.clone();
            f(&mut jwk);
            cases.push(jwk);
        };
        variant(&|jwk| drop(jwk.as_object_mut().unwrap().remove("kid")));
        variant(&|jwk| jwk["kid"] = json!(""));
        variant(&|jwk| jwk["use"] = json!("enc"));
        variant(&|jwk| jwk["key_ops"] = json!(["sign"]));
        variant(&|jwk| jwk["alg"] = json!("HS256"));
        variant(&|jwk| jwk["alg"] = json!("none"));
        variant(&|jwk| jwk["alg"] = json!("RS256"));
        variant(&|jwk| jwk["crv"] = json!("Ed448"));
        variant(&|jwk| jwk["x"] = json!("AAAA"));
        variant(&|jwk| jwk["x"] = json!(42));
        cases.push(json!({"kty": "oct", "k": "c2VjcmV0", "kid": "h"}));
        cases.push(json!({"kty": "RSA", "n": "AQAB", "e": "AQAB", "kid": "small"}));
        cases.push(json!({"kty": "EC", "crv": "P-256", "x": X, "y": "AAAA", "kid": "e"}));
        cases.push(json!("not an object"));
        for jwk in cases {
            assert!(VerificationKey::from_jwk(&jwk).is_err(), "{jwk}");
        }
    }

    #[test]
    fn publishes_public_members_only() {
        let jwk = json!({"kty": "OKP", "crv": "Ed25519", "x": X, "d": "secret", "kid": "k"});
        assert_eq!(
            public_members(&jwk),
            json!({"kty": "OKP", "crv": "Ed25519", "x": X, "kid": "k"})
        );
    }
}
