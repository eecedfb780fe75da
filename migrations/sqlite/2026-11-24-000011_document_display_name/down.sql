DELETE FROM sqlite_stat1 WHERE tbl = 'document_name_trigrams'
    OR idx IN ('documents_by_display_name', 'documents_awaiting_name_trigrams');
DROP TABLE document_name_trigrams;
DROP INDEX documents_awaiting_name_trigrams;
DROP INDEX documents_by_display_name;
ALTER TABLE documents DROP COLUMN display_name_trigrams;
ALTER TABLE documents DROP COLUMN display_name;
