DROP TABLE notes;
DROP TABLE workspace_entities;
DROP TABLE workspaces;
