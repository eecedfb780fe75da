//! The note repository over Diesel.

use async_trait::async_trait;
use diesel::prelude::*;
use rics_aip::page_token::CursorValue;
use rics_domain::event::NewEvent;
use rics_domain::list::{ListQuery, Page};
use rics_domain::note::model::Note;
use rics_domain::note::ports::NoteRepository;
use rics_domain::principal::TenantId;
use rics_domain::repository::{CreateOutcome, IdempotencyKey, RepositoryError};
use rics_domain::resource;
use rics_domain::time::Timestamp;

use crate::connection::DbConnection;
use crate::database::Database;
use crate::error::{repository_error, revision_missed};
use crate::events::insert_events;
use crate::filter::{Column, FieldMap, ScalarKind, Unset, compile_list};
use crate::idempotency;
use crate::paging::load_page;
use crate::rows::{internal, timestamp};
use crate::schema::notes;

/// Where the note filter fields live.
const NOTE_FIELDS: FieldMap = FieldMap {
    alias: "n",
    tenant_column: "n.tenant_id",
    id_column: "n.id",
    fields: &[
        (
            "authorId",
            Column::Scalar {
                column: "n.author_id",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "isEdited",
            Column::Scalar {
                column: "n.is_edited",
                kind: ScalarKind::Bool,
                unset: Unset::NotNull,
            },
        ),
        (
            "createTime",
            Column::Scalar {
                column: "n.create_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
        (
            "updateTime",
            Column::Scalar {
                column: "n.update_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
    ],
    fuzzy: &[],
};

/// One row of `notes`.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = notes, primary_key(tenant_id, parent, id))]
struct NoteRow {
    tenant_id: String,
    parent: String,
    id: String,
    uid: String,
    revision: i64,
    content: String,
    author_id: String,
    author: String,
    is_edited: bool,
    create_time: i64,
    update_time: i64,
}

impl NoteRow {
    fn from_note(tenant: &TenantId, note: &Note) -> Result<NoteRow, RepositoryError> {
        let (parent, id) = note
            .parent_and_id()
            .ok_or_else(|| internal("note name without a parent", &note.name))?;
        Ok(NoteRow {
            tenant_id: tenant.as_str().to_owned(),
            parent: parent.to_owned(),
            id: id.to_owned(),
            uid: note.uid.clone(),
            revision: note.revision,
            content: note.content.clone(),
            author_id: note.author_id.clone(),
            author: note.author.clone(),
            is_edited: note.is_edited,
            create_time: note.create_time.map_or(0, Timestamp::unix_micros),
            update_time: note.update_time.map_or(0, Timestamp::unix_micros),
        })
    }

    fn into_note(self) -> Result<Note, RepositoryError> {
        Ok(Note {
            name: format!("{}/notes/{}", self.parent, self.id),
            etag: resource::etag(&self.uid, self.revision),
            uid: self.uid,
            content: self.content,
            author_id: self.author_id,
            author: self.author,
            create_time: Some(timestamp(self.create_time)?),
            update_time: Some(timestamp(self.update_time)?),
            is_edited: self.is_edited,
            revision: self.revision,
        })
    }

    fn sort_value(&self, expression: &str) -> Result<CursorValue, RepositoryError> {
        Ok(match expression {
            "n.id" => CursorValue::Text(self.id.clone()),
            "n.create_time" => CursorValue::Integer(self.create_time),
            "n.update_time" => CursorValue::Integer(self.update_time),
            other => return Err(internal("no cursor value for sort expression", other)),
        })
    }
}

fn load_row(
    conn: &mut DbConnection,
    tenant: &str,
    parent: &str,
    id: &str,
) -> Result<Option<NoteRow>, RepositoryError> {
    notes::table
        .filter(notes::tenant_id.eq(tenant))
        .filter(notes::parent.eq(parent))
        .filter(notes::id.eq(id))
        .select(NoteRow::as_select())
        .first(conn)
        .optional()
        .map_err(repository_error)
}

/// Removes every note of the erased entity `entity_id`; returns how many. Part of an
/// entity's erasure.
///
/// # Errors
/// Database failures.
pub(crate) fn erase_entity_notes(
    conn: &mut DbConnection,
    tenant: &str,
    entity_id: &str,
) -> Result<i64, RepositoryError> {
    diesel::delete(
        notes::table
            .filter(notes::tenant_id.eq(tenant))
            .filter(notes::parent.eq(format!("entities/{entity_id}"))),
    )
    .execute(conn)
    .map(|n| n as i64)
    .map_err(repository_error)
}

/// The Diesel note repository.
#[derive(Debug, Clone)]
pub struct DieselNoteRepository {
    db: Database,
}

impl DieselNoteRepository {
    /// A repository over `db`.
    pub fn new(db: Database) -> DieselNoteRepository {
        DieselNoteRepository { db }
    }
}

#[async_trait]
impl NoteRepository for DieselNoteRepository {
    async fn create<'a>(
        &self,
        tenant: &TenantId,
        note: &Note,
        key: Option<&'a IdempotencyKey>,
        new_events: &[NewEvent],
    ) -> Result<CreateOutcome, RepositoryError> {
        let row = NoteRow::from_note(tenant, note)?;
        let (tenant, key, new_events) = (
            tenant.as_str().to_owned(),
            key.cloned(),
            new_events.to_vec(),
        );
        self.db
            .write(move |conn| {
                let now = timestamp(row.create_time)?;
                if let Some(replay) = idempotency::claim(conn, &tenant, key.as_ref(), now)? {
                    return Ok(replay);
                }
                diesel::insert_into(notes::table)
                    .values(&row)
                    .execute(conn)
                    .map_err(repository_error)?;
                insert_events(conn, &tenant, &new_events).map_err(repository_error)?;
                Ok(CreateOutcome::Created)
            })
            .await
    }

    async fn get(
        &self,
        tenant: &TenantId,
        parent: &str,
        id: &str,
    ) -> Result<Option<Note>, RepositoryError> {
        let (tenant, parent, id) = (tenant.as_str().to_owned(), parent.to_owned(), id.to_owned());
        self.db
            .run(move |conn| {
                load_row(conn, &tenant, &parent, &id)?
                    .map(NoteRow::into_note)
                    .transpose()
            })
            .await
    }

    async fn list(
        &self,
        tenant: &TenantId,
        parent: &str,
        query: &ListQuery,
    ) -> Result<Page<Note>, RepositoryError> {
        let mut compiled = compile_list(query, &NOTE_FIELDS, tenant.as_str(), None)?;
        compiled.filter.push(" AND n.parent = ").bind(parent);
        let query = query.clone();
        self.db
            .read(move |conn| {
                let sort_columns = compiled.sort_columns.clone();
                load_page(conn, "notes n", "n.*", compiled, &query, |row: NoteRow| {
                    let position = sort_columns
                        .iter()
                        .map(|c| row.sort_value(c))
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok((row.into_note()?, position))
                })
            })
            .await
    }

    async fn update(
        &self,
        tenant: &TenantId,
        note: &Note,
        expected_revision: i64,
        new_events: &[NewEvent],
    ) -> Result<(), RepositoryError> {
        let row = NoteRow::from_note(tenant, note)?;
        let (tenant, new_events) = (tenant.as_str().to_owned(), new_events.to_vec());
        self.db
            .write(move |conn| {
                let updated = diesel::update(
                    notes::table
                        .filter(notes::tenant_id.eq(&tenant))
                        .filter(notes::parent.eq(&row.parent))
                        .filter(notes::id.eq(&row.id))
                        .filter(notes::revision.eq(expected_revision)),
                )
                .set(&row)
                .execute(conn)
                .map_err(repository_error)?;
                if updated == 0 {
                    return Err(revision_missed(load_row(
                        conn,
                        &tenant,
                        &row.parent,
                        &row.id,
                    )?));
                }
                insert_events(conn, &tenant, &new_events).map_err(repository_error)?;
                Ok(())
            })
            .await
    }

    async fn delete(
        &self,
        tenant: &TenantId,
        parent: &str,
        id: &str,
        expected_revision: i64,
        new_events: &[NewEvent],
    ) -> Result<(), RepositoryError> {
        let (tenant, parent, id, new_events) = (
            tenant.as_str().to_owned(),
            parent.to_owned(),
            id.to_owned(),
            new_events.to_vec(),
        );
        self.db
            .write(move |conn| {
                let removed = diesel::delete(
                    notes::table
                        .filter(notes::tenant_id.eq(&tenant))
                        .filter(notes::parent.eq(&parent))
                        .filter(notes::id.eq(&id))
                        .filter(notes::revision.eq(expected_revision)),
                )
                .execute(conn)
                .map_err(repository_error)?;
                if removed == 0 {
                    return Err(revision_missed(load_row(conn, &tenant, &parent, &id)?));
                }
                insert_events(conn, &tenant, &new_events).map_err(repository_error)?;
                Ok(())
            })
            .await
    }
}
