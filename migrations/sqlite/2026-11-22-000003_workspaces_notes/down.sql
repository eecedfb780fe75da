DELETE FROM sqlite_stat1 WHERE tbl IN ('workspaces', 'workspace_entities', 'notes');
DROP TABLE notes;
DROP TABLE workspace_entities;
DROP TABLE workspaces;
