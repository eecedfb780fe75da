-- Forms, the workspaces each was collected for, and the workspace of each identity
-- document as a column. As in the first migration: tenant_id leads every key and
-- index, times are BIGINT microseconds, text compares bytewise.

-- The columns filters, orders and counts use, and the JSON body (the response).
-- `form_definition` holds the pinned revision's name
-- (`formDefinitions/{id}@{revisionId}`) and `entity` the entity's name, empty when
-- there is none (or it was erased), as filters compare them. Forms are never deleted.
CREATE TABLE forms (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    display_name TEXT NOT NULL,
    form_definition TEXT NOT NULL,
    entity TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('DRAFT', 'SUBMITTED', 'EXPIRED')),
    body TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    submit_time BIGINT,
    expire_time BIGINT,
    PRIMARY KEY (tenant_id, id)
) WITHOUT ROWID;
CREATE INDEX forms_by_create_time ON forms (tenant_id, create_time, id);
CREATE INDEX forms_by_update_time ON forms (tenant_id, update_time, id);
CREATE INDEX forms_by_display_name ON forms (tenant_id, display_name, id);
CREATE INDEX forms_by_state ON forms (tenant_id, state, create_time, id);
CREATE INDEX forms_by_form_definition ON forms (tenant_id, form_definition, create_time, id);
-- An entity's forms: its filter, and its erasure.
CREATE INDEX forms_by_entity ON forms (tenant_id, entity, create_time, id);
-- The DRAFT forms with a deadline, which housekeeping expires when it passes.
CREATE INDEX forms_to_expire ON forms (tenant_id, expire_time) WHERE state = 'DRAFT' AND expire_time IS NOT NULL;

-- One row per workspace of a form, in the order given (`workspaces` filters, and the
-- forms of a workspace).
CREATE TABLE form_workspaces (
    tenant_id TEXT NOT NULL,
    form_id TEXT NOT NULL,
    workspace TEXT NOT NULL,
    position BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, form_id, workspace),
    FOREIGN KEY (tenant_id, form_id) REFERENCES forms (tenant_id, id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX form_workspaces_by_workspace ON form_workspaces (tenant_id, workspace, form_id);

-- The workspace of each identity document (its name, empty when none) as a column, for
-- `GET /v1alpha/workspaces/{workspace}/documents` and the `workspace` filter; the body
-- keeps it too.
ALTER TABLE documents ADD COLUMN workspace TEXT NOT NULL DEFAULT '';
UPDATE documents SET workspace = coalesce(json_extract(body, '$.workspace'), '');
CREATE INDEX documents_by_workspace ON documents (tenant_id, workspace, create_time, id, delete_time);

-- Fixed planner statistics for the new tables and indexes (see the first migration),
-- for the same ten tenants: 1,000,000 forms, about one per entity, of some hundred
-- definitions, a few in each workspace, a few thousand awaiting a deadline.
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('forms', 'forms', '1000000 100000 1'),
    ('forms', 'forms_by_create_time', '1000000 100000 1 1'),
    ('forms', 'forms_by_update_time', '1000000 100000 1 1'),
    ('forms', 'forms_by_display_name', '1000000 100000 100 1'),
    ('forms', 'forms_by_state', '1000000 100000 40000 1 1'),
    ('forms', 'forms_by_form_definition', '1000000 100000 1000 1 1'),
    ('forms', 'forms_by_entity', '1000000 100000 2 1 1'),
    ('forms', 'forms_to_expire', '5000 500 1'),
    ('form_workspaces', 'form_workspaces', '500000 50000 1 1'),
    ('form_workspaces', 'form_workspaces_by_workspace', '500000 50000 5 1'),
    ('documents', 'documents_by_workspace', '1000000 100000 50 1 1 1');
