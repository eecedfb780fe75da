//! The file use cases, for the files of entities and of forms: an upload (content first, then the file that holds it), the
//! download of the content, and the template's standard methods under a parent
//! ([`FileService::within`]): Get, List, soft Delete, Undelete and purge.
//!
//! Metadata and content stay consistent under faults. The content is written before
//! the file's row, under the file's uid, and the [`ContentRemovals`] ledger holds it
//! meanwhile: an upload that fails or is refused removes what it wrote, and if the
//! process dies first, a later sweep ([`super::sweep::ContentSweeper`]) does. The
//! file's row settles the ledger in its own transaction. A purged or erased file's
//! content goes to the ledger in the transaction that removes the row, and is removed
//! from the store at once, or by the next sweep.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use uuid::Uuid;

use super::content::{ContentKey, ContentStream, FileStore};
use super::fields;
use super::inspect::{UploadRules, declared_type, inspect};
use super::model::{File, FileParent};
use super::ports::{ContentRemovals, FileRepository};
use crate::entity::repository::EntityRepository;
use crate::error::{Code, Error, Result};
use crate::form::service::FormService;
use crate::housekeeping::{Purge, PurgeDue, Stored};
use crate::id::{parse_request_id, validate_user_id};
use crate::lifecycle::{
    ParentedService, ServiceContext, SoftDeletable, SoftDeleteMethods, StoreVersions, Within,
    create_key, deleted, purge_recorded,
};
use crate::list::ListSpec;
use crate::methods::DeclaredFields;
use crate::principal::{Principal, TenantId};
use crate::repository::{RepositoryError, ResourceStore};
use crate::resource::{Named, Parent, Parented, parse_body};
use crate::time::Timestamp;
use crate::validate::Violations;

/// Longest `displayName`, in characters.
pub const MAX_DISPLAY_NAME: usize = 255;

/// How long content written for an upload waits for its file's row before a sweep may
/// remove it: far longer than any upload takes.
pub const UPLOAD_LEASE: Duration = Duration::from_secs(24 * 3600);

/// The query parameter of the id the caller chooses.
pub const ID_PARAMETER: &str = "fileId";

/// The stores the file service works with.
#[derive(Clone)]
pub struct FilePorts {
    /// File resources.
    pub files: Arc<dyn FileRepository>,
    /// The ledger of content to remove.
    pub removals: Arc<dyn ContentRemovals>,
    /// The content.
    pub content: Arc<dyn FileStore>,
    /// Entities, the parents of their files.
    pub entities: Arc<dyn EntityRepository>,
    /// Forms, the parents of their files: files are added to, changed in and removed
    /// from a DRAFT form only.
    pub forms: Arc<FormService>,
}

/// Everything the file service needs.
pub struct FileService {
    ports: FilePorts,
    rules: UploadRules,
    /// The clock, ids, paging and retention.
    context: ServiceContext,
}

impl FileService {
    /// The service over its ports, keeping uploads to `rules`.
    pub fn new(ports: FilePorts, rules: UploadRules, context: ServiceContext) -> FileService {
        FileService {
            ports,
            rules,
            context,
        }
    }

    /// The rules uploads keep.
    pub fn rules(&self) -> &UploadRules {
        &self.rules
    }

    /// The files of `parent`, with their methods.
    pub fn within(&self, parent: FileParent) -> Within<'_, FileService> {
        Within::new(self, parent)
    }

    /// Removes the content under `key` and forgets it; when the store fails, the
    /// ledger keeps it for a later sweep.
    async fn discard(&self, key: &ContentKey) {
        if self.ports.content.remove(key).await.is_ok() {
            let _ = self.ports.removals.forget(key).await;
        }
    }
}

impl FileParent {
    /// The parent named `name` (`entities/{entity}` or `forms/{form}`), if it is one.
    pub fn from_name(name: &str) -> Option<FileParent> {
        let (collection, id) = name.split_once('/')?;
        if id.is_empty() || id.contains('/') {
            return None;
        }
        match collection {
            "entities" => Some(FileParent::Entity(id.to_owned())),
            "forms" => Some(FileParent::Form(id.to_owned())),
            _ => None,
        }
    }
}

/// The key of the content of the file with `uid` in `tenant`.
///
/// # Errors
/// INTERNAL when the uid is no UUID (stored data that does not read back).
pub fn content_key(tenant: &TenantId, uid: &str) -> Result<ContentKey> {
    let file = Uuid::parse_str(uid)
        .map_err(|e| Error::internal(format!("file uid '{uid}' is no UUID: {e}")))?;
    Ok(ContentKey {
        tenant: tenant.clone(),
        file,
    })
}

impl DeclaredFields for FileService {
    const BODY: &'static str = "file";

    fn table(&self) -> &'static rics_aip::field_mask::FieldTable {
        &fields::TABLE
    }
}

#[async_trait]
impl ParentedService for FileService {
    type Resource = File;
    type Parent = FileParent;

    const EVENT_KIND: &'static str = "file";

    fn context(&self) -> &ServiceContext {
        &self.context
    }

    fn store(&self) -> &dyn ResourceStore<File> {
        self.ports.files.as_ref()
    }

    fn list_spec(&self) -> &'static ListSpec {
        &fields::LIST
    }

    /// An entity must exist and be live. A form must exist, and be DRAFT (as it reads
    /// now) for a `change`.
    async fn check_parent(
        &self,
        principal: &Principal,
        parent: &FileParent,
        change: bool,
    ) -> Result<()> {
        let name = parent.name();
        match parent {
            FileParent::Entity(id) => {
                let live = self
                    .ports
                    .entities
                    .get(&principal.tenant, id)
                    .await
                    .map_err(|e| e.for_resource(&name))?
                    .is_some_and(|entity| !entity.is_deleted());
                if live {
                    Ok(())
                } else {
                    Err(Error::not_found(&name))
                }
            }
            FileParent::Form(id) => {
                let form = self.ports.forms.get(principal, id).await?;
                if change {
                    self.ports.forms.check_changeable(&form)?;
                }
                Ok(())
            }
        }
    }
}

#[async_trait]
impl SoftDeleteMethods for Within<'_, FileService> {
    fn retention(&self) -> Duration {
        self.service.context.retention
    }
}

impl Within<'_, FileService> {
    /// Creates a file of the parent from `metadata` (the file's JSON: `displayName`,
    /// optionally `contentType`) and `content`, with the id `id` when the caller chose
    /// one, once per `request_id` (a retry with the same metadata and content answers
    /// the first file), with its `file.created` event. The content is inspected as it
    /// streams to the store ([`inspect`]); nothing is left of a refused upload.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for bad metadata, id or request id, content that is empty, too
    /// large, of a type not allowed or of another type than declared
    /// (`CONTENT_TYPE_MISMATCH`), or a request id reused with another request;
    /// NOT_FOUND when the parent is missing or deleted; ALREADY_EXISTS when the id is
    /// taken; what the content stream or the store fail with.
    pub async fn upload(
        &self,
        principal: &Principal,
        metadata: Value,
        content: ContentStream,
        id: Option<&str>,
        request_id: Option<&str>,
    ) -> Result<File> {
        let request_id = request_id.map(parse_request_id).transpose()?;
        if let Some(id) = id {
            validate_user_id(ID_PARAMETER, id)?;
        }
        let body = crate::fields::input(&fields::TABLE, metadata, "file")?;
        let mut file: File = parse_body(body.clone(), "file")?;
        validate(&file)?;
        let declared = declared_type(&file.content_type)?;
        self.check_parent(principal, true).await?;
        let service = self.service;
        file.form_entity = self.form_entity(principal).await?;
        let now = service.context.clock.now();
        let uid = service.context.ids.uid();
        let key = content_key(&principal.tenant, &uid)?;
        service
            .ports
            .removals
            .schedule(&key, now.plus(UPLOAD_LEASE))
            .await
            .map_err(Error::from)?;
        let (stream, inspection) = inspect(content, service.rules.clone(), declared);
        let written = service.ports.content.write(&key, stream).await;
        let inspected = match (written, inspection.result()) {
            (Ok(_), Some(inspected)) => inspected.clone(),
            (Ok(_), None) => {
                service.discard(&key).await;
                return Err(Error::internal(
                    "the file store stopped reading before the content ended",
                ));
            }
            (Err(e), _) => {
                service.discard(&key).await;
                return Err(e);
            }
        };
        let name =
            self.name_of(&id.map_or_else(|| service.context.ids.resource_id(), str::to_owned));
        file.begin(name, uid.clone(), now);
        file.content_type = inspected.content_type;
        file.size_bytes = i64::try_from(inspected.size_bytes).unwrap_or(i64::MAX);
        file.sha256 = inspected.sha256;
        let parent = json!(self.parent.name());
        let chosen = json!(id);
        let mut fingerprinted = body;
        if let Value::Object(members) = &mut fingerprinted {
            members.insert("sha256".into(), json!(file.sha256));
        }
        let key_parts = [
            ("parent", &parent),
            (ID_PARAMETER, &chosen),
            ("file", &fingerprinted),
        ];
        let idempotency = create_key(request_id, File::CREATE_METHOD, &key_parts, &file.name);
        match self
            .store_new(principal, file, idempotency.as_ref(), now)
            .await
        {
            Ok(stored) => {
                if stored.uid != uid {
                    // A retry: the first request's file holds its own copy.
                    service.discard(&key).await;
                }
                Ok(stored)
            }
            Err(e) => {
                service.discard(&key).await;
                // A form that stopped being DRAFT meanwhile is refused by storage as a
                // conflict: its check names the reason.
                if e.code == Code::Aborted {
                    self.check_parent(principal, true).await?;
                }
                Err(e)
            }
        }
    }

    /// The entity that a form parent is about, to which its files' events belong.
    ///
    /// # Errors
    /// What [`FormService::get`] fails with.
    async fn form_entity(&self, principal: &Principal) -> Result<Option<String>> {
        match &self.parent {
            FileParent::Entity(_) => Ok(None),
            FileParent::Form(id) => {
                let form = self.service.ports.forms.get(principal, id).await?;
                Ok(Some(form.entity).filter(|entity| !entity.is_empty()))
            }
        }
    }

    /// The file `id` of the parent, if its content may be downloaded: it is not
    /// deleted.
    ///
    /// # Errors
    /// As [`Within::get`]; FAILED_PRECONDITION (`RESOURCE_DELETED`) for a deleted file.
    pub async fn downloadable(&self, principal: &Principal, id: &str) -> Result<File> {
        let file = self.get(principal, id).await?;
        if file.is_deleted() {
            return Err(deleted(&file.name));
        }
        Ok(file)
    }

    /// The content of `file` (as [`Self::downloadable`] gave it), streamed.
    ///
    /// # Errors
    /// DATA_LOSS (`FILE_CONTENT_MISSING`) when the store has none; what the store
    /// fails with.
    pub async fn content(&self, principal: &Principal, file: &File) -> Result<ContentStream> {
        let key = content_key(&principal.tenant, &file.uid)?;
        self.service
            .ports
            .content
            .read(&key)
            .await
            .map_err(|e| match e.code {
                Code::NotFound => Error::new(
                    Code::DataLoss,
                    "FILE_CONTENT_MISSING",
                    format!("The content of '{}' is missing from its store.", file.name),
                )
                .with_metadata("resource", file.name.clone()),
                _ => e,
            })
    }
}

/// The display name is required and at most [`MAX_DISPLAY_NAME`] characters; its
/// control characters are the field table's to refuse.
fn validate(file: &File) -> Result<()> {
    let mut v = Violations::new();
    v.required_text("file.displayName", &file.display_name, MAX_DISPLAY_NAME);
    v.finish()
}

#[async_trait]
impl Purge for FileService {
    fn collection(&self) -> &'static str {
        "files"
    }

    async fn find_purge_due(&self, now: Timestamp, limit: u32) -> Stored<Vec<(TenantId, String)>> {
        self.ports.files.find_purge_due(now, limit).await
    }

    /// Purges the file (storage schedules its content for removal in the same
    /// transaction), then removes its content.
    async fn purge_one(&self, system: &Principal, due: &PurgeDue) -> Stored<()> {
        let parent = <File as Parented>::parent_and_id(&due.id)
            .and_then(|(parent, _)| FileParent::from_name(parent))
            .ok_or(RepositoryError::NotFound)?;
        let file = self
            .ports
            .files
            .get(&due.tenant, &due.id)
            .await?
            .ok_or(RepositoryError::NotFound)?;
        purge_recorded(&self.within(parent), self.ports.files.as_ref(), system, due).await?;
        if let Ok(key) = content_key(&due.tenant, &file.uid) {
            self.discard(&key).await;
        }
        Ok(())
    }
}
