-- Executions of automations. A row holds the execution's searchable columns and its
-- whole record as JSON (parameters, steps with their outputs, forms awaited, error).
-- Its work waits in job_tasks, the queue job runs use (family 'automationExecutions',
-- job_id the execution's id): one task per execution, claimed once per step, so each
-- step runs under a lease and is retried when its worker dies.
CREATE TABLE automation_executions (
    tenant_id TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    automation_id TEXT COLLATE "C" NOT NULL,
    entity_id TEXT COLLATE "C",
    awaited_form TEXT COLLATE "C",
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
);
CREATE INDEX automation_executions_by_automation
    ON automation_executions (tenant_id, automation_id, create_time, id);
CREATE INDEX automation_executions_by_entity ON automation_executions (tenant_id, entity_id);
CREATE INDEX automation_executions_by_form ON automation_executions (tenant_id, awaited_form);
