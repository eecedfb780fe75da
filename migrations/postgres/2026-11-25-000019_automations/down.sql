-- The built-in automations go with their tables.
DROP TABLE automation_revisions;
DROP TABLE automations;
