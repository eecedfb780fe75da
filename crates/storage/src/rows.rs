//! Helpers every repository uses to turn rows into domain values and back.

use diesel::QueryableByName;
use diesel::sql_types::Text;
use rics_domain::repository::RepositoryError;
use rics_domain::time::Timestamp;

/// An id found by a query, with its tenant.
#[derive(Debug, QueryableByName)]
pub(crate) struct FoundId {
    /// The tenant.
    #[diesel(sql_type = Text)]
    pub(crate) tenant_id: String,
    /// The id.
    #[diesel(sql_type = Text)]
    pub(crate) id: String,
}

/// INTERNAL for stored data that does not read back: `what` says which.
pub(crate) fn internal(what: &str, e: impl std::fmt::Display) -> RepositoryError {
    RepositoryError::Internal(format!("{what}: {e}"))
}

/// A time as stored: microseconds since the Unix epoch.
pub(crate) fn micros(t: Option<Timestamp>) -> Option<i64> {
    t.map(Timestamp::unix_micros)
}

/// A stored time read back.
///
/// # Errors
/// INTERNAL when it is out of range.
pub(crate) fn timestamp(micros: i64) -> Result<Timestamp, RepositoryError> {
    Timestamp::from_unix_micros(micros).ok_or_else(|| internal("stored time out of range", micros))
}

/// The JSON body stored for a resource: `json` (the resource serialized) without
/// `fields`, the ones its row keeps in columns or side rows, so that each value is
/// stored once. `what` names the resource in the error.
///
/// # Errors
/// INTERNAL when the resource did not serialize.
pub(crate) fn body_without(
    json: serde_json::Result<serde_json::Value>,
    fields: &[&str],
    what: &str,
) -> Result<String, RepositoryError> {
    let mut body = json.map_err(|e| internal(what, e))?;
    if let Some(map) = body.as_object_mut() {
        for field in fields {
            map.remove(*field);
        }
    }
    Ok(body.to_string())
}
