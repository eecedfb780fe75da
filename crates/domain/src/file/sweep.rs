//! The sweep of the content ledger ([`ContentRemovals`]): content whose upload failed
//! or died, and the content of purged and erased files, is removed from its store and
//! forgotten. Housekeeping runs it after the purges; an entity's erasure runs it for
//! the entity's tenant at once.

use std::sync::Arc;

use async_trait::async_trait;

use super::content::{ContentKey, FileStore};
use super::ports::ContentRemovals;
use super::service::content_key;
use crate::entity::erasure::AfterErasure;
use crate::housekeeping::{PURGE_BATCH, Purge, PurgeDue, Stored};
use crate::principal::{Principal, TenantId};
use crate::repository::RepositoryError;
use crate::time::{Clock, Timestamp};

/// Most batches one erasure sweeps at once; anything left waits for housekeeping.
const ERASURE_BATCHES: usize = 20;

/// Removes the content the ledger holds as due.
#[derive(derive_new::new)]
pub struct ContentSweeper {
    removals: Arc<dyn ContentRemovals>,
    content: Arc<dyn FileStore>,
    clock: Arc<dyn Clock>,
}

impl ContentSweeper {
    /// Removes the content under `key` from its store, then forgets it.
    ///
    /// # Errors
    /// UNAVAILABLE (as [`RepositoryError::Unavailable`]) when the store fails: the
    /// ledger keeps the content for a later sweep.
    async fn remove(&self, key: &ContentKey) -> Stored<()> {
        self.content
            .remove(key)
            .await
            .map_err(|e| RepositoryError::Unavailable(e.message))?;
        self.removals.forget(key).await
    }
}

#[async_trait]
impl Purge for ContentSweeper {
    fn collection(&self) -> &'static str {
        "fileContents"
    }

    /// The content due: its tenant and the file uid it was written under.
    async fn find_purge_due(&self, now: Timestamp, limit: u32) -> Stored<Vec<(TenantId, String)>> {
        Ok(self
            .removals
            .due(None, now, limit)
            .await?
            .into_iter()
            .map(|key| (key.tenant, key.file.to_string()))
            .collect())
    }

    async fn purge_one(&self, _system: &Principal, due: &PurgeDue) -> Stored<()> {
        let key = content_key(&due.tenant, &due.id).map_err(|_| RepositoryError::NotFound)?;
        self.remove(&key).await
    }
}

#[async_trait]
impl AfterErasure for ContentSweeper {
    /// Removes the content of the erased entity's files (due in the ledger now), and
    /// whatever else of the tenant is due.
    async fn erased(&self, tenant: &TenantId) {
        for _ in 0..ERASURE_BATCHES {
            let Ok(due) = self
                .removals
                .due(Some(tenant), self.clock.now(), PURGE_BATCH)
                .await
            else {
                return;
            };
            let full = due.len() == PURGE_BATCH as usize;
            for key in &due {
                if self.remove(key).await.is_err() {
                    return;
                }
            }
            if !full {
                return;
            }
        }
    }
}
