-- Workspaces (cases), the entities each reviews, and the notes written about entities
-- and workspaces. As in the first migration: tenant_id leads every key and index,
-- times are BIGINT microseconds, compared text uses the "C" collation.

CREATE TABLE workspaces (
    tenant_id TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    display_name TEXT COLLATE "C" NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('OPEN', 'CLOSED')),
    body TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    delete_time BIGINT,
    purge_time BIGINT,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX workspaces_by_create_time ON workspaces (tenant_id, create_time, id, delete_time);
CREATE INDEX workspaces_by_update_time ON workspaces (tenant_id, update_time, id, delete_time);
CREATE INDEX workspaces_by_display_name ON workspaces (tenant_id, display_name, id, delete_time);
CREATE INDEX workspaces_by_state ON workspaces (tenant_id, state, create_time, id, delete_time);
CREATE INDEX workspaces_to_purge ON workspaces (tenant_id, purge_time) WHERE purge_time IS NOT NULL;

-- One row per entity of a workspace, in the order given (`entities` filters, and the
-- erasure of an entity, which removes it from every workspace).
CREATE TABLE workspace_entities (
    tenant_id TEXT COLLATE "C" NOT NULL,
    workspace_id TEXT COLLATE "C" NOT NULL,
    entity TEXT COLLATE "C" NOT NULL,
    position BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, workspace_id, entity),
    FOREIGN KEY (tenant_id, workspace_id) REFERENCES workspaces (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX workspace_entities_by_entity ON workspace_entities (tenant_id, entity, workspace_id);

-- Notes, keyed by their parent's name (`entities/{e}` or `workspaces/{w}`) and id.
CREATE TABLE notes (
    tenant_id TEXT COLLATE "C" NOT NULL,
    parent TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    content TEXT NOT NULL,
    author_id TEXT COLLATE "C" NOT NULL,
    author TEXT NOT NULL,
    is_edited BOOLEAN NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, parent, id)
);
CREATE INDEX notes_by_create_time ON notes (tenant_id, parent, create_time, id);
CREATE INDEX notes_by_update_time ON notes (tenant_id, parent, update_time, id);
