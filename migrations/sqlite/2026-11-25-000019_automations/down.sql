DELETE FROM sqlite_stat1 WHERE tbl IN ('automations', 'automation_revisions');
-- The built-in automations go with their tables.
DROP TABLE automation_revisions;
DROP TABLE automations;
