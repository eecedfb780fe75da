-- Identity documents get a `displayName` (filtered exactly and fuzzily, and ordered
-- on), with the trigrams of it for fuzzy search, as activity log types have. Documents
-- recorded before get the name a new document gets when none is given:
-- "{documentType} {documentNumber}". Their trigrams are folded in Rust, which SQL
-- cannot do the same way on both backends: display_name_trigrams = -1 marks a row
-- whose trigrams are written right after the migrations, by whatever ran them
-- (`rics migrate`, or `rics serve` migrating at start), in
-- rics_storage::migrations::complete_data.
ALTER TABLE documents ADD COLUMN display_name TEXT NOT NULL DEFAULT '';
ALTER TABLE documents ADD COLUMN display_name_trigrams BIGINT NOT NULL DEFAULT 0;
UPDATE documents SET
    display_name = document_type || ' ' || coalesce(json_extract(body, '$.documentNumber'), ''),
    display_name_trigrams = -1;
CREATE INDEX documents_by_display_name ON documents (tenant_id, display_name, id, delete_time);
CREATE INDEX documents_awaiting_name_trigrams ON documents (tenant_id, id) WHERE display_name_trigrams < 0;

CREATE TABLE document_name_trigrams (
    tenant_id TEXT NOT NULL,
    document_id TEXT NOT NULL,
    trigram TEXT NOT NULL,
    PRIMARY KEY (tenant_id, document_id, trigram),
    FOREIGN KEY (tenant_id, document_id) REFERENCES documents (tenant_id, id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX document_name_trigrams_by_trigram ON document_name_trigrams (tenant_id, trigram, document_id);

-- Fixed planner statistics (see the first migration): a million documents with about
-- 15 name trigrams each, none awaiting its trigrams once the server started.
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('documents', 'documents_by_display_name', '1000000 100000 2 1 1'),
    ('documents', 'documents_awaiting_name_trigrams', '1 1 1'),
    ('document_name_trigrams', 'document_name_trigrams', '15000000 1500000 15 1'),
    ('document_name_trigrams', 'document_name_trigrams_by_trigram', '15000000 1500000 1000 1');
