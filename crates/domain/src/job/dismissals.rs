//! The dismissal memory of screening: a match reviewed as FALSE_POSITIVE is
//! remembered for its entity, by list entry and a hash of the entry as it was listed.
//! A later screen that matches the same, unchanged entry shows it as
//! `previouslyDismissed` and raises no alert for it; a changed entry (a new alias, a
//! new date of birth) is a new match. A TRUE_POSITIVE review forgets the dismissal.

use async_trait::async_trait;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::principal::TenantId;
use crate::repository::RepositoryError;
use crate::time::Timestamp;

/// A remembered dismissal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dismissal {
    /// The entity the match was about.
    pub entity_id: String,
    /// The entry's dataset.
    pub dataset: String,
    /// The entry's id in its list.
    pub list_entry: String,
    /// [`record_hash`] of the entry as listed when it was dismissed.
    pub record_hash: String,
    /// The job whose match was dismissed.
    pub job: String,
    /// Who dismissed it.
    pub reviewer: String,
    /// When.
    pub dismiss_time: Timestamp,
}

/// Remembers dismissals. Every method may fail with [`RepositoryError::Unavailable`]
/// or [`RepositoryError::Internal`] only.
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait]
pub trait DismissalRepository: Send + Sync {
    /// Remembers `dismissal`, replacing one of the same entity and entry.
    async fn remember(
        &self,
        tenant: &TenantId,
        dismissal: &Dismissal,
    ) -> Result<(), RepositoryError>;

    /// Forgets the dismissal of the entry `list_entry` of `dataset` for the entity, if any.
    async fn forget(
        &self,
        tenant: &TenantId,
        entity_id: &str,
        dataset: &str,
        list_entry: &str,
    ) -> Result<(), RepositoryError>;

    /// The dismissals remembered for the entity.
    async fn of_entity(
        &self,
        tenant: &TenantId,
        entity_id: &str,
    ) -> Result<Vec<Dismissal>, RepositoryError>;
}

/// The hash of a listed record (a match's `record` as JSON): SHA-256 of its JSON,
/// hex. The same entry listed the same gives the same hash, in a result just made or
/// in one read back from storage.
pub fn record_hash(record: &Value) -> String {
    let bytes = serde_json::to_vec(record).unwrap_or_default();
    crate::resource::hex(&Sha256::digest(&bytes))
}

/// Whether `dismissals` hold the match of `dataset`/`list_entry` whose record hashes to
/// `hash`.
pub fn is_dismissed(dismissals: &[Dismissal], dataset: &str, list_entry: &str, hash: &str) -> bool {
    dismissals
        .iter()
        .any(|d| d.dataset == dataset && d.list_entry == list_entry && d.record_hash == hash)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_changed_entry_is_not_the_dismissed_one() {
        let record = json!({"dataset": "un_sc", "id": "QDi.1", "names": ["A B"]});
        let dismissal = Dismissal {
            entity_id: "e".into(),
            dataset: "un_sc".into(),
            list_entry: "QDi.1".into(),
            record_hash: record_hash(&record),
            job: "entities/e/pepSanctionIndividualEntityJobs/j".into(),
            reviewer: "analyst".into(),
            dismiss_time: Timestamp::from_unix_micros(0).unwrap(),
        };
        let same = record_hash(&record.clone());
        assert!(is_dismissed(
            std::slice::from_ref(&dismissal),
            "un_sc",
            "QDi.1",
            &same
        ));
        let changed =
            record_hash(&json!({"dataset": "un_sc", "id": "QDi.1", "names": ["A B", "A C"]}));
        assert!(!is_dismissed(
            std::slice::from_ref(&dismissal),
            "un_sc",
            "QDi.1",
            &changed
        ));
        assert!(!is_dismissed(&[dismissal], "un_sc", "QDi.2", &same));
    }
}
