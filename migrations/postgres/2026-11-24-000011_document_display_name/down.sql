DROP TABLE document_name_trigrams;
DROP INDEX documents_awaiting_name_trigrams;
DROP INDEX documents_by_display_name;
ALTER TABLE documents DROP COLUMN display_name_trigrams;
ALTER TABLE documents DROP COLUMN display_name;
