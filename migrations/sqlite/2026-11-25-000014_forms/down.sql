DELETE FROM sqlite_stat1 WHERE tbl IN ('forms', 'form_workspaces')
    OR idx = 'documents_by_workspace';
DROP INDEX documents_by_workspace;
ALTER TABLE documents DROP COLUMN workspace;
DROP TABLE form_workspaces;
DROP TABLE forms;
