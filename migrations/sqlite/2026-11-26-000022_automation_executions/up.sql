-- Executions of automations. A row holds the execution's searchable columns and its
-- whole record as JSON (parameters, steps with their outputs, forms awaited, error).
-- Its work waits in job_tasks, the queue job runs use (family 'automationExecutions',
-- job_id the execution's id): one task per execution, claimed once per step, so each
-- step runs under a lease and is retried when its worker dies.
CREATE TABLE automation_executions (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    automation_id TEXT NOT NULL,
    entity_id TEXT,
    awaited_form TEXT,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    state TEXT NOT NULL
        CHECK (state IN ('PENDING', 'RUNNING', 'WAITING_FOR_INPUT', 'SUCCEEDED', 'FAILED',
            'CANCELLED')),
    body TEXT NOT NULL,
    start_time BIGINT,
    end_time BIGINT,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, id)
) WITHOUT ROWID;
CREATE INDEX automation_executions_by_automation
    ON automation_executions (tenant_id, automation_id, create_time, id);
CREATE INDEX automation_executions_by_entity ON automation_executions (tenant_id, entity_id);
CREATE INDEX automation_executions_by_form ON automation_executions (tenant_id, awaited_form);

-- Fixed planner statistics (see the first migration): many executions per automation,
-- a few per entity and per form, for ten tenants.
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('automation_executions', 'automation_executions', '100000 10000 1'),
    ('automation_executions', 'automation_executions_by_automation', '100000 10000 2000 1 1'),
    ('automation_executions', 'automation_executions_by_entity', '100000 10000 3'),
    ('automation_executions', 'automation_executions_by_form', '100000 10000 1');
