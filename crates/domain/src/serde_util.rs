//! Reading proto3-style JSON with serde: `null` reads as the field's default.

use serde::{Deserialize, Deserializer};

/// Reads `null` as `T::default()` (in proto3 JSON a null field is an unset field),
/// any other value as a `T`. For non-`Option` fields; `Option` fields read null as
/// `None` already.
///
/// # Errors
/// When the value is neither null nor a `T`.
pub fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}
