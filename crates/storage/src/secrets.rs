//! Secrets the server generates once and shares across replicas and restarts (such as
//! the page-token signing key), stored in the database.

use diesel::prelude::*;
use rics_domain::time::Timestamp;

use crate::connection::DbConnection;
use crate::error::StorageError;
use crate::schema::server_secrets;

/// The secret named `name`, created with `length` random bytes on first use. Safe when
/// several replicas start at once: the first insert wins and everyone reads it.
///
/// # Errors
/// [`StorageError`] when the database fails or no randomness is available.
pub fn get_or_create(
    conn: &mut DbConnection,
    name: &str,
    length: usize,
    now: Timestamp,
) -> Result<Vec<u8>, StorageError> {
    let existing = read(conn, name)?;
    if let Some(secret) = existing {
        return Ok(secret);
    }
    let mut secret = vec![0_u8; length];
    getrandom::fill(&mut secret)
        .map_err(|e| StorageError::Configuration(format!("no source of randomness: {e}")))?;
    let inserted = diesel::insert_into(server_secrets::table)
        .values((
            server_secrets::name.eq(name),
            server_secrets::secret.eq(hex_encode(&secret)),
            server_secrets::create_time.eq(now.unix_micros()),
        ))
        .execute(conn);
    match inserted {
        Ok(_) => Ok(secret),
        Err(diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::UniqueViolation,
            _,
        )) => read(conn, name)?.ok_or_else(|| StorageError::Unavailable("secret vanished".into())),
        Err(e) => Err(e.into()),
    }
}

fn read(conn: &mut DbConnection, name: &str) -> Result<Option<Vec<u8>>, StorageError> {
    let stored = server_secrets::table
        .filter(server_secrets::name.eq(name))
        .select(server_secrets::secret)
        .first::<String>(conn)
        .optional()?;
    stored
        .map(|text| {
            hex_decode(&text).ok_or_else(|| {
                StorageError::Configuration(format!("stored secret '{name}' is not hex"))
            })
        })
        .transpose()
}

fn hex_encode(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn hex_decode(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| {
            text.get(i..i + 2)
                .and_then(|pair| u8::from_str_radix(pair, 16).ok())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips() {
        let bytes = vec![0, 1, 0xab, 0xff];
        assert_eq!(hex_decode(&hex_encode(&bytes)), Some(bytes));
        assert_eq!(hex_decode("abc"), None);
        assert_eq!(hex_decode("zz"), None);
    }
}
