//! The identity document repository over Diesel, and the part of an entity's erasure
//! that concerns its documents.

use diesel::prelude::*;
use diesel::sql_types::Text;
use rics_aip::page_token::CursorValue;
use rics_domain::document::model::{Document, DocumentType};
use rics_domain::entity::repository::ErasureCounts;
use rics_domain::icao::IcaoCode;
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_domain::resource;
use rics_domain::text_search;
use rics_domain::time::Timestamp;
use rics_domain::values::PartialDate;

use crate::connection::DbConnection;
use crate::entities::lock_stored;
use crate::erasure::erase_creation_keys;
use crate::error::repository_error;
use crate::filter::{Column, FieldMap, FuzzyIndex, FuzzySource, ScalarKind, TrigramTable, Unset};
use crate::rows::{body_without, internal, micros, timestamp};
use crate::schema::documents;
use crate::side_rows::replace_trigrams;
use crate::sql::Sql;
use crate::store::{DieselStore, StoredTable, Write, row_statements};

/// How many names one `IN` list of the erasure holds.
const CHUNK: usize = 500;

/// The trigrams of a document's display name, for fuzzy search.
const NAME_TRIGRAMS: FuzzyIndex = FuzzyIndex {
    field: "displayName",
    count_column: "d.display_name_trigrams",
    source: FuzzySource::Trigrams(NAME_TRIGRAM_ROWS),
};

/// The rows of each display name's trigrams.
const NAME_TRIGRAM_ROWS: TrigramTable = TrigramTable {
    table: "document_name_trigrams",
    owner: "document_id",
    trigram: "trigram",
};

/// Where the document filter fields live.
const DOCUMENT_FIELDS: FieldMap = FieldMap {
    alias: "d",
    tenant_column: "d.tenant_id",
    id_column: "d.id",
    fields: &[
        (
            "displayName",
            Column::Scalar {
                column: "d.display_name",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "entity",
            Column::Scalar {
                column: "d.entity",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "workspace",
            Column::Scalar {
                column: "d.workspace",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "documentType",
            Column::Scalar {
                column: "d.document_type",
                kind: ScalarKind::Enum,
                unset: Unset::NotNull,
            },
        ),
        (
            "issuingCountry",
            Column::Scalar {
                column: "d.issuing_country",
                kind: ScalarKind::Text,
                unset: Unset::NotNull,
            },
        ),
        (
            "expiryDate",
            Column::Scalar {
                column: "d.expiry_date",
                kind: ScalarKind::Text,
                unset: Unset::InMessage,
            },
        ),
        (
            "createTime",
            Column::Scalar {
                column: "d.create_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
        (
            "updateTime",
            Column::Scalar {
                column: "d.update_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::NotNull,
            },
        ),
        (
            "deleteTime",
            Column::Scalar {
                column: "d.delete_time",
                kind: ScalarKind::Timestamp,
                unset: Unset::InMessage,
            },
        ),
    ],
    fuzzy: &[NAME_TRIGRAMS],
};

/// Fields kept in columns rather than in the body.
const COLUMN_FIELDS: [&str; 12] = [
    "name",
    "uid",
    "displayName",
    "entity",
    "documentType",
    "issuingCountry",
    "expiryDate",
    "createTime",
    "updateTime",
    "deleteTime",
    "purgeTime",
    "etag",
];

/// One row of `documents`.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = documents, primary_key(tenant_id, id), treat_none_as_null = true)]
pub struct DocumentRow {
    tenant_id: String,
    id: String,
    uid: String,
    revision: i64,
    entity: String,
    document_type: String,
    issuing_country: String,
    expiry_date: Option<String>,
    body: String,
    create_time: i64,
    update_time: i64,
    delete_time: Option<i64>,
    purge_time: Option<i64>,
    display_name: String,
    display_name_trigrams: i64,
    workspace: String,
}

impl DocumentRow {
    fn from_document(
        tenant: &TenantId,
        document: &Document,
    ) -> Result<DocumentRow, RepositoryError> {
        Ok(DocumentRow {
            tenant_id: tenant.as_str().to_owned(),
            id: document.id().to_owned(),
            uid: document.uid.clone(),
            revision: document.revision,
            entity: document.entity.clone(),
            document_type: document.document_type.as_str().to_owned(),
            issuing_country: document
                .issuing_country
                .as_ref()
                .map(|code| code.as_str().to_owned())
                .unwrap_or_default(),
            expiry_date: document.expiry_date.map(|date| date.to_string()),
            body: body_without(
                serde_json::to_value(document),
                &COLUMN_FIELDS,
                "document to JSON",
            )?,
            create_time: document.create_time.map_or(0, Timestamp::unix_micros),
            update_time: document.update_time.map_or(0, Timestamp::unix_micros),
            delete_time: micros(document.delete_time),
            purge_time: micros(document.purge_time),
            display_name: document.display_name.clone(),
            display_name_trigrams: text_search::trigrams(&document.display_name).len() as i64,
            workspace: document.workspace.clone(),
        })
    }

    fn into_document(self) -> Result<Document, RepositoryError> {
        let mut document: Document =
            serde_json::from_str(&self.body).map_err(|e| internal("stored document JSON", e))?;
        document.name = Document::name_of(&self.id);
        document.display_name = self.display_name;
        document.etag = resource::etag(&self.uid, self.revision);
        document.uid = self.uid;
        document.revision = self.revision;
        document.entity = self.entity;
        document.document_type = DocumentType::parse(&self.document_type)
            .ok_or_else(|| internal("stored document type", &self.document_type))?;
        document.issuing_country = match self.issuing_country.as_str() {
            "" => None,
            code => Some(IcaoCode::parse(code).map_err(|e| internal("stored issuing country", e))?),
        };
        document.expiry_date = self
            .expiry_date
            .as_deref()
            .map(PartialDate::parse)
            .transpose()
            .map_err(|e| internal("stored expiry date", e))?;
        document.create_time = Some(timestamp(self.create_time)?);
        document.update_time = Some(timestamp(self.update_time)?);
        document.delete_time = self.delete_time.map(timestamp).transpose()?;
        document.purge_time = self.purge_time.map(timestamp).transpose()?;
        Ok(document)
    }
}

/// A document waiting for its name trigrams.
#[derive(Debug, QueryableByName)]
struct PendingName {
    #[diesel(sql_type = Text)]
    tenant_id: String,
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = Text)]
    display_name: String,
}

/// How many documents one transaction of [`write_pending_name_trigrams`] completes.
const PENDING_BATCH: i64 = 500;

/// Writes the name trigrams of the documents the migration that added display names
/// named but could not fold (`display_name_trigrams < 0`), a batch per transaction;
/// returns how many. Run after migrating: a no-op once they are written.
///
/// # Errors
/// Database failures.
pub fn write_pending_name_trigrams(conn: &mut DbConnection) -> QueryResult<usize> {
    let mut written = 0;
    loop {
        let done = conn.transaction(|conn| {
            let mut sql = Sql::from(
                "SELECT d.tenant_id AS tenant_id, d.id AS id, d.display_name AS display_name \
                 FROM documents d WHERE d.display_name_trigrams < 0 LIMIT ",
            );
            sql.bind(PENDING_BATCH);
            let pending = sql.load::<PendingName>(conn)?;
            for row in &pending {
                replace_trigrams(
                    conn,
                    &NAME_TRIGRAM_ROWS,
                    &row.tenant_id,
                    &row.id,
                    &row.display_name,
                )?;
                let count = text_search::trigrams(&row.display_name).len() as i64;
                diesel::update(
                    documents::table
                        .filter(documents::tenant_id.eq(&row.tenant_id))
                        .filter(documents::id.eq(&row.id)),
                )
                .set(documents::display_name_trigrams.eq(count))
                .execute(conn)?;
            }
            QueryResult::Ok(pending.len())
        })?;
        written += done;
        if done < PENDING_BATCH as usize {
            return Ok(written);
        }
    }
}

/// Erases, in the caller's transaction, the documents of the entity `entity_id` and
/// the idempotency keys that created them. Their events are the entity's and go with
/// its events. Returns how many documents; adds the keys to `counts`. Part of an
/// entity's erasure, after the entity's row is locked.
///
/// # Errors
/// Database failures.
pub(crate) fn erase_entity_documents(
    conn: &mut DbConnection,
    tenant: &str,
    entity_id: &str,
    counts: &mut ErasureCounts,
) -> Result<i64, RepositoryError> {
    let entity = format!("entities/{entity_id}");
    let ids: Vec<String> = documents::table
        .filter(documents::tenant_id.eq(tenant))
        .filter(documents::entity.eq(&entity))
        .select(documents::id)
        .load(conn)
        .map_err(repository_error)?;
    for chunk in ids.chunks(CHUNK) {
        let names: Vec<String> = chunk.iter().map(|id| Document::name_of(id)).collect();
        erase_creation_keys(conn, tenant, &names, counts)?;
    }
    diesel::delete(
        documents::table
            .filter(documents::tenant_id.eq(tenant))
            .filter(documents::entity.eq(&entity)),
    )
    .execute(conn)
    .map(|n| n as i64)
    .map_err(repository_error)
}

/// The documents table, for [`DieselStore`]: a document is listed within its entity,
/// needs the entity stored to be created, and keeps the trigrams of its display name
/// in side rows.
#[derive(Debug, Clone, Copy)]
pub struct DocumentTable;

/// The Diesel identity document repository.
pub type DieselDocumentRepository = DieselStore<DocumentTable>;

impl StoredTable for DocumentTable {
    type Resource = Document;
    type Row = DocumentRow;

    const TABLE: &'static str = "documents";
    const FIELDS: &'static FieldMap = &DOCUMENT_FIELDS;
    const PARENT_COLUMN: Option<&'static str> = Some("d.entity");

    row_statements!(documents);

    fn row(tenant: &TenantId, document: &Document) -> Result<DocumentRow, RepositoryError> {
        DocumentRow::from_document(tenant, document)
    }

    fn sort_value(row: &DocumentRow, column: &str) -> Option<CursorValue> {
        Some(match column {
            "d.id" => CursorValue::Text(row.id.clone()),
            "d.display_name" => CursorValue::Text(row.display_name.clone()),
            "d.create_time" => CursorValue::Integer(row.create_time),
            "d.update_time" => CursorValue::Integer(row.update_time),
            _ => return None,
        })
    }

    fn resources(
        _conn: &mut DbConnection,
        _tenant: &str,
        rows: Vec<DocumentRow>,
    ) -> Result<Vec<Document>, RepositoryError> {
        rows.into_iter().map(DocumentRow::into_document).collect()
    }

    /// A document of an entity that is gone (erased meanwhile) is NOT_FOUND.
    fn before_insert(
        conn: &mut DbConnection,
        tenant: &str,
        document: &Document,
    ) -> Result<(), RepositoryError> {
        // `FOR KEY SHARE` is what a foreign key check takes: an erasure, which locks the
        // entity's row before it removes the entity's documents, either waits for this
        // transaction and then removes its document too, or has removed the entity
        // when this one reads it.
        if lock_stored(conn, tenant, &[document.entity_id()], "FOR KEY SHARE")? == 1 {
            Ok(())
        } else {
            Err(RepositoryError::NotFound)
        }
    }

    fn write_side_rows(
        conn: &mut DbConnection,
        _resource: &Document,
        row: &DocumentRow,
        _write: Write,
    ) -> Result<(), RepositoryError> {
        replace_trigrams(
            conn,
            &NAME_TRIGRAM_ROWS,
            &row.tenant_id,
            &row.id,
            &row.display_name,
        )
        .map_err(repository_error)
    }
}
