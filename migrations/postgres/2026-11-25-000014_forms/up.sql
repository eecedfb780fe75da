-- Forms, the workspaces each was collected for, and the workspace of each identity
-- document as a column. As in the first migration: tenant_id leads every key and
-- index, times are BIGINT microseconds, compared text uses the "C"
-- collation.

-- The columns filters, orders and counts use, and the JSON body (the response).
-- `form_definition` holds the pinned revision's name
-- (`formDefinitions/{id}@{revisionId}`) and `entity` the entity's name, empty when
-- there is none (or it was erased), as filters compare them. Forms are never deleted.
CREATE TABLE forms (
    tenant_id TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    display_name TEXT COLLATE "C" NOT NULL,
    form_definition TEXT COLLATE "C" NOT NULL,
    entity TEXT COLLATE "C" NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('DRAFT', 'SUBMITTED', 'EXPIRED')),
    body TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    submit_time BIGINT,
    expire_time BIGINT,
    PRIMARY KEY (tenant_id, id)
);
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
    tenant_id TEXT COLLATE "C" NOT NULL,
    form_id TEXT COLLATE "C" NOT NULL,
    workspace TEXT COLLATE "C" NOT NULL,
    position BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, form_id, workspace),
    FOREIGN KEY (tenant_id, form_id) REFERENCES forms (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX form_workspaces_by_workspace ON form_workspaces (tenant_id, workspace, form_id);

-- The workspace of each identity document (its name, empty when none) as a column, for
-- `GET /v1alpha/workspaces/{workspace}/documents` and the `workspace` filter; the body
-- keeps it too.
ALTER TABLE documents ADD COLUMN workspace TEXT COLLATE "C" NOT NULL DEFAULT '';
UPDATE documents SET workspace = coalesce(body::jsonb ->> 'workspace', '');
CREATE INDEX documents_by_workspace ON documents (tenant_id, workspace, create_time, id, delete_time);
