//! The rules every stored resource shares: etags (AIP-154), the soft-delete states
//! (AIP-164) and idempotent creation (AIP-155), with their errors.

use std::future::Future;

use crate::error::{Code, Error, Result};
use crate::repository::{CreateOutcome, IdempotencyKey, RepositoryError};

/// Checks a client's etag against the current one; an absent or empty etag passes.
///
/// # Errors
/// ABORTED (`ETAG_MISMATCH`) naming `name` when they differ.
pub fn check_etag(name: &str, current: &str, given: Option<&str>) -> Result<()> {
    match given {
        Some(given) if !given.is_empty() && given != current => Err(Error::etag_mismatch(name)),
        _ => Ok(()),
    }
}

/// FAILED_PRECONDITION for a change to the soft-deleted resource `name`.
pub fn deleted(name: &str) -> Error {
    Error::failed_precondition(
        "RESOURCE_DELETED",
        format!("'{name}' is deleted; undelete it first."),
    )
    .with_metadata("resource", name)
}

/// ALREADY_EXISTS for `:undelete` of the live resource `name`.
pub fn not_deleted(name: &str) -> Error {
    Error::new(
        Code::AlreadyExists,
        "RESOURCE_NOT_DELETED",
        format!("'{name}' is not deleted."),
    )
    .with_metadata("resource", name)
}

/// Runs an idempotent create: `store` writes the resource with `key` (or replays the
/// key's first result). Returns `None` when this call created the resource, or the
/// name of the resource a previous call with the same request created.
///
/// # Errors
/// INVALID_ARGUMENT (`REQUEST_ID_REUSED`) when the request id was used with another
/// request; what `store` fails with, as errors on `name`.
pub async fn create_once<F, Fut>(
    name: &str,
    key: Option<&IdempotencyKey>,
    mut store: F,
) -> Result<Option<String>>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = std::result::Result<CreateOutcome, RepositoryError>>,
{
    let mut outcome = store().await;
    if outcome == Err(RepositoryError::Conflict) && key.is_some() {
        // A concurrent request with the same request id won: replay it.
        outcome = store().await;
    }
    match outcome.map_err(|e| e.for_resource(name))? {
        CreateOutcome::Created => Ok(None),
        CreateOutcome::Replayed {
            method,
            fingerprint,
            resource_name,
        } => {
            let same = key.is_some_and(|k| k.method == method && k.fingerprint == fingerprint);
            if same {
                Ok(Some(resource_name))
            } else {
                Err(Error::invalid_field(
                    "requestId",
                    "REQUEST_ID_REUSED",
                    "was already used with a different request",
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn etags_are_checked_only_when_given() {
        assert!(check_etag("x/1", "\"a\"", None).is_ok());
        assert!(check_etag("x/1", "\"a\"", Some("")).is_ok());
        assert!(check_etag("x/1", "\"a\"", Some("\"a\"")).is_ok());
        assert_eq!(
            check_etag("x/1", "\"a\"", Some("\"b\"")).unwrap_err().code,
            Code::Aborted
        );
    }

    fn key(fingerprint: &str) -> IdempotencyKey {
        IdempotencyKey {
            request_id: "r".into(),
            method: "things.create",
            fingerprint: fingerprint.into(),
            resource_name: "things/a".into(),
        }
    }

    #[tokio::test]
    async fn a_replay_returns_the_first_resource_only_for_the_same_request() {
        let replay = || async {
            Ok(CreateOutcome::Replayed {
                method: "things.create".into(),
                fingerprint: "f1".into(),
                resource_name: "things/first".into(),
            })
        };
        let same = create_once("things/b", Some(&key("f1")), replay).await;
        assert_eq!(same.unwrap(), Some("things/first".into()));
        let other = create_once("things/b", Some(&key("f2")), replay).await;
        assert_eq!(other.unwrap_err().reason, "REQUEST_ID_REUSED");
    }

    #[tokio::test]
    async fn a_lost_race_on_the_key_is_retried_once() {
        let mut calls = 0;
        let result = create_once("things/a", Some(&key("f")), || {
            calls += 1;
            let first = calls == 1;
            async move {
                if first {
                    Err(RepositoryError::Conflict)
                } else {
                    Ok(CreateOutcome::Created)
                }
            }
        })
        .await;
        assert_eq!(result.unwrap(), None);
        assert_eq!(calls, 2);
        let taken = create_once("things/a", None, || async {
            Err(RepositoryError::AlreadyExists)
        })
        .await;
        assert_eq!(taken.unwrap_err().code, Code::AlreadyExists);
    }
}
