-- Workspaces (cases), the entities each reviews, and the notes written about entities
-- and workspaces. As in the first migration: tenant_id leads every key and index,
-- times are BIGINT microseconds, text compares bytewise.

CREATE TABLE workspaces (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    display_name TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('OPEN', 'CLOSED')),
    body TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    delete_time BIGINT,
    purge_time BIGINT,
    PRIMARY KEY (tenant_id, id)
) WITHOUT ROWID;
CREATE INDEX workspaces_by_create_time ON workspaces (tenant_id, create_time, id, delete_time);
CREATE INDEX workspaces_by_update_time ON workspaces (tenant_id, update_time, id, delete_time);
CREATE INDEX workspaces_by_display_name ON workspaces (tenant_id, display_name, id, delete_time);
CREATE INDEX workspaces_by_state ON workspaces (tenant_id, state, create_time, id, delete_time);
CREATE INDEX workspaces_to_purge ON workspaces (tenant_id, purge_time) WHERE purge_time IS NOT NULL;

-- One row per entity of a workspace, in the order given (`entities` filters, and the
-- erasure of an entity, which removes it from every workspace).
CREATE TABLE workspace_entities (
    tenant_id TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    entity TEXT NOT NULL,
    position BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, workspace_id, entity),
    FOREIGN KEY (tenant_id, workspace_id) REFERENCES workspaces (tenant_id, id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX workspace_entities_by_entity ON workspace_entities (tenant_id, entity, workspace_id);

-- Notes, keyed by their parent's name (`entities/{e}` or `workspaces/{w}`) and id.
CREATE TABLE notes (
    tenant_id TEXT NOT NULL,
    parent TEXT NOT NULL,
    id TEXT NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    content TEXT NOT NULL,
    author_id TEXT NOT NULL,
    author TEXT NOT NULL,
    is_edited BOOLEAN NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, parent, id)
) WITHOUT ROWID;
CREATE INDEX notes_by_create_time ON notes (tenant_id, parent, create_time, id);
CREATE INDEX notes_by_update_time ON notes (tenant_id, parent, update_time, id);

-- Fixed planner statistics for the new tables and indexes (see the first migration),
-- for the same ten tenants: about 10,000 workspaces of five entities each, and
-- 1,000,000 notes, ten per parent.
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('workspaces', 'workspaces', '100000 10000 1'),
    ('workspaces', 'workspaces_by_create_time', '100000 10000 1 1 1'),
    ('workspaces', 'workspaces_by_update_time', '100000 10000 1 1 1'),
    ('workspaces', 'workspaces_by_display_name', '100000 10000 2 1 1'),
    ('workspaces', 'workspaces_by_state', '100000 10000 5000 1 1 1'),
    ('workspaces', 'workspaces_to_purge', '1000 100 1'),
    ('workspace_entities', 'workspace_entities', '500000 50000 5 1'),
    ('workspace_entities', 'workspace_entities_by_entity', '500000 50000 2 1'),
    ('notes', 'notes', '1000000 100000 10 1'),
    ('notes', 'notes_by_create_time', '1000000 100000 10 1 1'),
    ('notes', 'notes_by_update_time', '1000000 100000 10 1 1');
