DROP INDEX documents_by_workspace;
ALTER TABLE documents DROP COLUMN workspace;
DROP TABLE form_workspaces;
DROP TABLE forms;
