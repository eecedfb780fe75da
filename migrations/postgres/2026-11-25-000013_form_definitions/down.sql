-- The seeded definitions go with their tables.
DROP TABLE form_definition_revisions;
DROP TABLE form_definitions;
