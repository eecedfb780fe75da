//! The note repository over Diesel: a note is a row of `notes`, keyed by its parent's
//! name and its id.

use diesel::prelude::*;
use rics_aip::page_token::CursorValue;
use rics_domain::note::model::Note;
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_domain::resource;
use rics_domain::time::Timestamp;

use crate::connection::DbConnection;
use crate::error::repository_error;
use crate::filter::{Column, FieldMap, ScalarKind, Unset};
use crate::rows::{internal, timestamp};
use crate::schema::notes;
use crate::store::{DieselStore, StoredTable, row_statements};

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
pub struct NoteRow {
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

/// The notes table, for [`DieselStore`]: a note is addressed by its name, listed
/// within its parent, and removed when deleted.
#[derive(Debug, Clone, Copy)]
pub struct NoteTable;

/// The Diesel note repository.
pub type DieselNoteRepository = DieselStore<NoteTable>;

impl StoredTable for NoteTable {
    type Resource = Note;
    type Row = NoteRow;

    const TABLE: &'static str = "notes";
    const FIELDS: &'static FieldMap = &NOTE_FIELDS;
    const PARENT_COLUMN: Option<&'static str> = Some("n.parent");
    const SOFT_DELETES: bool = false;

    row_statements!(notes, parent);

    fn row(tenant: &TenantId, note: &Note) -> Result<NoteRow, RepositoryError> {
        NoteRow::from_note(tenant, note)
    }

    fn sort_value(row: &NoteRow, column: &str) -> Option<CursorValue> {
        Some(match column {
            "n.id" => CursorValue::Text(row.id.clone()),
            "n.create_time" => CursorValue::Integer(row.create_time),
            "n.update_time" => CursorValue::Integer(row.update_time),
            _ => return None,
        })
    }

    fn resources(
        _conn: &mut DbConnection,
        _tenant: &str,
        rows: Vec<NoteRow>,
    ) -> Result<Vec<Note>, RepositoryError> {
        rows.into_iter().map(NoteRow::into_note).collect()
    }
}
