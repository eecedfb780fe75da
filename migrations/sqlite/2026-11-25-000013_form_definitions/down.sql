DELETE FROM sqlite_stat1 WHERE tbl IN ('form_definitions', 'form_definition_revisions');
-- The seeded definitions go with their tables.
DROP TABLE form_definition_revisions;
DROP TABLE form_definitions;
