//! The file repository over Diesel: a file is a row of `files`, keyed by its parent's
//! name (an entity's or a form's) and its id; the ledger of content to remove is
//! `file_content_removals`. Also the part of an entity's erasure that concerns its
//! files and the files of its forms.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel::sql_types::Text;
use rics_aip::page_token::CursorValue;
use rics_domain::entity::repository::ErasureCounts;
use rics_domain::file::content::ContentKey;
use rics_domain::file::model::File;
use rics_domain::file::ports::ContentRemovals;
use rics_domain::form::model::FormState;
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_domain::resource::{self, Parented};
use rics_domain::time::Timestamp;
use uuid::Uuid;

use crate::connection::DbConnection;
use crate::entities::lock_stored;
use crate::erasure::erase_creation_keys;
use crate::error::repository_error;
use crate::events::{OutboxEvent, insert_events};
use crate::filter::{Column, FieldMap, ScalarKind, Unset};
use crate::rows::{internal, micros, timestamp};
use crate::schema::{file_content_removals, files, forms};
use crate::sql::Sql;
use crate::store::{DieselStore, StoredTable, Write, row_statements};

/// How many names one `IN` list of the erasure holds.
const CHUNK: usize = 500;

/// Where the file filter fields live.
const FILE_FIELDS: FieldMap = FieldMap {
    alias: "f",
    tenant_column: "f.tenant_id",
    id_column: "f.id",
    fields: &[
        (
            "displayName",
            Column::Scalar {
                column: "f.display_name",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "contentType",
            Column::Scalar {
                column: "f.content_type",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "createTime",
            Column::Scalar {
                column: "f.create_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
    ],
    fuzzy: &[],
};

/// One row of `files`.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = files, primary_key(tenant_id, parent, id), treat_none_as_null = true)]
pub struct FileRow {
    tenant_id: String,
    parent: String,
    id: String,
    uid: String,
    revision: i64,
    display_name: String,
    content_type: String,
    size_bytes: i64,
    sha256: String,
    create_time: i64,
    update_time: i64,
    delete_time: Option<i64>,
    purge_time: Option<i64>,
}

impl FileRow {
    fn from_file(tenant: &TenantId, file: &File) -> Result<FileRow, RepositoryError> {
        let (parent, id) = file
            .parent_and_id()
            .ok_or_else(|| internal("file name without a parent", &file.name))?;
        Ok(FileRow {
            tenant_id: tenant.as_str().to_owned(),
            parent: parent.to_owned(),
            id: id.to_owned(),
            uid: file.uid.clone(),
            revision: file.revision,
            display_name: file.display_name.clone(),
            content_type: file.content_type.clone(),
            size_bytes: file.size_bytes,
            sha256: file.sha256.clone(),
            create_time: file.create_time.map_or(0, Timestamp::unix_micros),
            update_time: file.update_time.map_or(0, Timestamp::unix_micros),
            delete_time: micros(file.delete_time),
            purge_time: micros(file.purge_time),
        })
    }

    fn into_file(self, form_entity: Option<String>) -> Result<File, RepositoryError> {
        Ok(File {
            form_entity,
            name: File::name_in(&self.parent, &self.id),
            etag: resource::etag(&self.uid, self.revision),
            uid: self.uid,
            display_name: self.display_name,
            content_type: self.content_type,
            size_bytes: self.size_bytes,
            sha256: self.sha256,
            create_time: Some(timestamp(self.create_time)?),
            update_time: Some(timestamp(self.update_time)?),
            delete_time: self.delete_time.map(timestamp).transpose()?,
            purge_time: self.purge_time.map(timestamp).transpose()?,
            revision: self.revision,
        })
    }
}

/// Schedules, in the caller's transaction, the removal at once of the content of the
/// files of `parent` (a resource name) in `tenant`, `only` the file `id` when given.
///
/// # Errors
/// Database failures.
fn schedule_removal_of(
    conn: &mut DbConnection,
    tenant: &str,
    parent: &str,
    only: Option<&str>,
) -> Result<(), RepositoryError> {
    let mut sql = Sql::from(
        "INSERT INTO file_content_removals (tenant_id, file_uid, due_time) \
         SELECT f.tenant_id, f.uid, 0 FROM files f WHERE f.tenant_id = ",
    );
    sql.bind(tenant).push(" AND f.parent = ").bind(parent);
    if let Some(id) = only {
        sql.push(" AND f.id = ").bind(id);
    }
    sql.push(" ON CONFLICT (tenant_id, file_uid) DO NOTHING");
    sql.execute(conn).map_err(repository_error)?;
    Ok(())
}

/// Erases, in the caller's transaction, the files of the entity `entity_id` and the
/// idempotency keys that created them, and schedules the removal of their content at
/// once. Their events are the entity's and go with its events. Returns how many files;
/// adds the keys to `counts`. Part of an entity's erasure, after the entity's row is
/// locked.
///
/// # Errors
/// Database failures.
pub(crate) fn erase_entity_files(
    conn: &mut DbConnection,
    tenant: &str,
    entity_id: &str,
    counts: &mut ErasureCounts,
) -> Result<i64, RepositoryError> {
    erase_files_of(conn, tenant, &format!("entities/{entity_id}"), counts)
}

/// Erases, in the caller's transaction, the files of the forms about the entity
/// `entity_id`, as [`erase_entity_files`] does the entity's own. Part of an entity's
/// erasure, before its forms are unlinked from it.
///
/// # Errors
/// Database failures.
pub(crate) fn erase_entity_form_files(
    conn: &mut DbConnection,
    tenant: &str,
    entity_id: &str,
    counts: &mut ErasureCounts,
) -> Result<i64, RepositoryError> {
    let form_ids: Vec<String> = forms::table
        .filter(forms::tenant_id.eq(tenant))
        .filter(forms::entity.eq(format!("entities/{entity_id}")))
        .select(forms::id)
        .load(conn)
        .map_err(repository_error)?;
    let mut erased = 0;
    for form_id in form_ids {
        erased += erase_files_of(conn, tenant, &format!("forms/{form_id}"), counts)?;
    }
    Ok(erased)
}

/// Erases the files of `parent` (a resource name) and the idempotency keys that
/// created them, and schedules the removal of their content at once; returns how many
/// files.
fn erase_files_of(
    conn: &mut DbConnection,
    tenant: &str,
    parent: &str,
    counts: &mut ErasureCounts,
) -> Result<i64, RepositoryError> {
    let ids: Vec<String> = files::table
        .filter(files::tenant_id.eq(tenant))
        .filter(files::parent.eq(parent))
        .select(files::id)
        .load(conn)
        .map_err(repository_error)?;
    for chunk in ids.chunks(CHUNK) {
        let names: Vec<String> = chunk.iter().map(|id| File::name_in(parent, id)).collect();
        erase_creation_keys(conn, tenant, &names, counts)?;
    }
    schedule_removal_of(conn, tenant, parent, None)?;
    diesel::delete(
        files::table
            .filter(files::tenant_id.eq(tenant))
            .filter(files::parent.eq(parent)),
    )
    .execute(conn)
    .map(|n| n as i64)
    .map_err(repository_error)
}

/// The entities of the forms that parent `rows`, by form name (`forms/{form}`); a form
/// about no entity is left out.
fn form_entities(
    conn: &mut DbConnection,
    tenant: &str,
    rows: &[FileRow],
) -> Result<Vec<(String, String)>, RepositoryError> {
    let mut form_ids: Vec<&str> = rows
        .iter()
        .filter_map(|row| row.parent.strip_prefix("forms/"))
        .collect();
    form_ids.sort_unstable();
    form_ids.dedup();
    let mut found = Vec::new();
    for chunk in form_ids.chunks(CHUNK) {
        let pairs: Vec<(String, String)> = forms::table
            .filter(forms::tenant_id.eq(tenant))
            .filter(forms::id.eq_any(chunk))
            .filter(forms::entity.ne(""))
            .select((forms::id, forms::entity))
            .load(conn)
            .map_err(repository_error)?;
        found.extend(
            pairs
                .into_iter()
                .map(|(id, entity)| (format!("forms/{id}"), entity)),
        );
    }
    Ok(found)
}

/// The files table, for [`DieselStore`]: a file is addressed by its name, listed
/// within its parent, needs its entity stored (or its form stored and DRAFT) to be
/// created, reads the entity of its form, settles its content in the ledger when
/// stored, and leaves it to the ledger when purged.
#[derive(Debug, Clone, Copy)]
pub struct FileTable;

/// The Diesel file repository, which is also the content ledger.
pub type DieselFileRepository = DieselStore<FileTable>;

impl StoredTable for FileTable {
    type Resource = File;
    type Row = FileRow;

    const TABLE: &'static str = "files";
    const FIELDS: &'static FieldMap = &FILE_FIELDS;
    const PARENT_COLUMN: Option<&'static str> = Some("f.parent");
    const READS_SIDE_ROWS: bool = true;
    const PURGE_KEY: &'static str = "t.parent || '/files/' || t.id";

    row_statements!(files, parent);

    fn row(tenant: &TenantId, file: &File) -> Result<FileRow, RepositoryError> {
        FileRow::from_file(tenant, file)
    }

    fn sort_value(row: &FileRow, column: &str) -> Option<CursorValue> {
        Some(match column {
            "f.id" => CursorValue::Text(row.id.clone()),
            "f.display_name" => CursorValue::Text(row.display_name.clone()),
            "f.create_time" => CursorValue::Integer(row.create_time),
            _ => return None,
        })
    }

    /// A form's file with the entity of its form.
    fn resources(
        conn: &mut DbConnection,
        tenant: &str,
        rows: Vec<FileRow>,
    ) -> Result<Vec<File>, RepositoryError> {
        let entities = form_entities(conn, tenant, &rows)?;
        rows.into_iter()
            .map(|row| {
                let entity = entities
                    .iter()
                    .find(|(form, _)| *form == row.parent)
                    .map(|(_, entity)| entity.clone());
                row.into_file(entity)
            })
            .collect()
    }

    /// A file of an entity that is gone (erased meanwhile) is NOT_FOUND; so is a file
    /// of a form that is gone, and one of a form no longer DRAFT is a CONFLICT.
    fn before_insert(
        conn: &mut DbConnection,
        tenant: &str,
        file: &File,
    ) -> Result<(), RepositoryError> {
        let parent = file
            .parent_and_id()
            .map(|(parent, _)| parent)
            .ok_or_else(|| internal("file name without a parent", &file.name))?;
        if let Some(form) = parent.strip_prefix("forms/") {
            let now = file.create_time.map_or(0, Timestamp::unix_micros);
            return check_draft_form(conn, tenant, form, now);
        }
        let entity = parent
            .strip_prefix("entities/")
            .ok_or_else(|| internal("file of no entity or form", &file.name))?;
        // As for documents: `FOR KEY SHARE` orders this create and an erasure of the
        // entity, which locks the entity's row before it removes the entity's files.
        if lock_stored(conn, tenant, &[entity], "FOR KEY SHARE")? == 1 {
            Ok(())
        } else {
            Err(RepositoryError::NotFound)
        }
    }

    /// A new file's content now belongs to it: the upload's entry in the ledger goes.
    fn write_side_rows(
        conn: &mut DbConnection,
        _file: &File,
        row: &FileRow,
        write: Write,
    ) -> Result<(), RepositoryError> {
        if write == Write::Insert {
            diesel::delete(
                file_content_removals::table
                    .filter(file_content_removals::tenant_id.eq(&row.tenant_id))
                    .filter(file_content_removals::file_uid.eq(&row.uid)),
            )
            .execute(conn)
            .map_err(repository_error)?;
        }
        Ok(())
    }

    /// Removes the file named `name` if it is still due, and schedules its content's
    /// removal at once, in one transaction with `events`.
    fn remove_due(
        conn: &mut DbConnection,
        tenant: &str,
        name: &str,
        now: Timestamp,
        events: Vec<OutboxEvent>,
    ) -> Result<(), RepositoryError> {
        let (parent, id) =
            <File as Parented>::parent_and_id(name).ok_or(RepositoryError::NotFound)?;
        let due = files::table
            .filter(files::tenant_id.eq(tenant))
            .filter(files::parent.eq(parent))
            .filter(files::id.eq(id))
            .filter(files::purge_time.lt(now.unix_micros()));
        let found = due
            .count()
            .get_result::<i64>(conn)
            .map_err(repository_error)?;
        if found == 0 {
            return Err(RepositoryError::NotFound);
        }
        schedule_removal_of(conn, tenant, parent, Some(id))?;
        diesel::delete(due)
            .execute(conn)
            .map_err(repository_error)?;
        insert_events(conn, tenant, events).map_err(repository_error)
    }
}

/// Requires the form `form_id` to be stored and DRAFT at `now` (its deadline, if any,
/// after `now`), and holds its row until the transaction ends: `FOR SHARE` conflicts
/// with the update of a `:submit`, an `:expire` or the erasure of its entity, so a
/// file is never added to a form once it is read-only.
///
/// # Errors
/// [`RepositoryError::NotFound`] when the form is missing; [`RepositoryError::Conflict`]
/// when it is not DRAFT; database failures.
fn check_draft_form(
    conn: &mut DbConnection,
    tenant: &str,
    form_id: &str,
    now: i64,
) -> Result<(), RepositoryError> {
    let mut sql = Sql::from(
        "SELECT f.state AS state, f.expire_time AS expire_time FROM forms f WHERE f.tenant_id = ",
    );
    sql.bind(tenant).push(" AND f.id = ").bind(form_id);
    if let DbConnection::Postgresql(_) = conn {
        sql.push(" FOR SHARE");
    }
    let found = sql.load::<FormLock>(conn).map_err(repository_error)?;
    let form = found.first().ok_or(RepositoryError::NotFound)?;
    let open = form.state == FormState::Draft.as_str()
        && form.expire_time.is_none_or(|deadline| deadline > now);
    if open {
        Ok(())
    } else {
        Err(RepositoryError::Conflict)
    }
}

/// What a file's create reads of its form.
#[derive(Debug, QueryableByName)]
struct FormLock {
    #[diesel(sql_type = Text)]
    state: String,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::BigInt>)]
    expire_time: Option<i64>,
}

/// Content due for removal, as the ledger lists it.
#[derive(Debug, QueryableByName)]
struct DueContent {
    #[diesel(sql_type = Text)]
    tenant_id: String,
    #[diesel(sql_type = Text)]
    file_uid: String,
}

#[async_trait]
impl ContentRemovals for DieselStore<FileTable> {
    async fn schedule(&self, key: &ContentKey, due: Timestamp) -> Result<(), RepositoryError> {
        let (tenant, uid) = (key.tenant.as_str().to_owned(), key.file.to_string());
        self.db()
            .write(move |conn| {
                let mut sql = Sql::from(
                    "INSERT INTO file_content_removals (tenant_id, file_uid, due_time) VALUES (",
                );
                sql.bind(tenant.as_str())
                    .push(", ")
                    .bind(uid.as_str())
                    .push(", ")
                    .bind(due.unix_micros())
                    .push(") ON CONFLICT (tenant_id, file_uid) DO UPDATE SET due_time = ")
                    .bind(due.unix_micros());
                sql.execute(conn).map(|_| ()).map_err(repository_error)
            })
            .await
    }

    async fn forget(&self, key: &ContentKey) -> Result<(), RepositoryError> {
        let (tenant, uid) = (key.tenant.as_str().to_owned(), key.file.to_string());
        self.db()
            .run(move |conn| {
                diesel::delete(
                    file_content_removals::table
                        .filter(file_content_removals::tenant_id.eq(&tenant))
                        .filter(file_content_removals::file_uid.eq(&uid)),
                )
                .execute(conn)
                .map(|_| ())
                .map_err(repository_error)
            })
            .await
    }

    async fn due<'a>(
        &self,
        tenant: Option<&'a TenantId>,
        now: Timestamp,
        limit: u32,
    ) -> Result<Vec<ContentKey>, RepositoryError> {
        let tenant = tenant.map(|t| t.as_str().to_owned());
        let found = self
            .db()
            .run(move |conn| {
                let mut sql = Sql::from(
                    "SELECT r.tenant_id AS tenant_id, r.file_uid AS file_uid \
                     FROM file_content_removals r WHERE r.due_time < ",
                );
                sql.bind(now.unix_micros());
                if let Some(tenant) = &tenant {
                    sql.push(" AND r.tenant_id = ").bind(tenant.as_str());
                }
                sql.push(
                    " AND NOT EXISTS (SELECT 1 FROM files f \
                     WHERE f.tenant_id = r.tenant_id AND f.uid = r.file_uid) \
                     ORDER BY r.due_time, r.tenant_id, r.file_uid LIMIT ",
                )
                .bind(i64::from(limit));
                sql.load::<DueContent>(conn).map_err(repository_error)
            })
            .await?;
        found
            .into_iter()
            .map(|due| {
                let file = Uuid::parse_str(&due.file_uid)
                    .map_err(|e| internal("stored content key", e))?;
                Ok(ContentKey {
                    tenant: TenantId::new(due.tenant_id),
                    file,
                })
            })
            .collect()
    }
}
