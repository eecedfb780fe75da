-- Jobs of every family (screening, risk rating, ...) and the queue their runs wait in.
-- A job row holds the family's inputs and latest result as JSON; a task is one run,
-- owned by the operation a client polls. As in the first migration: tenant_id leads
-- every key and index, except the queue's ready index, which workers scan across
-- tenants (see job_tasks_ready).

CREATE TABLE jobs (
    tenant_id TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    family TEXT COLLATE "C" NOT NULL,
    entity_id TEXT COLLATE "C" NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    state TEXT NOT NULL
        CHECK (state IN ('PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED')),
    input TEXT NOT NULL,
    result TEXT,
    latest_operation TEXT,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX jobs_by_entity ON jobs (tenant_id, family, entity_id, create_time, id);
CREATE INDEX jobs_by_family ON jobs (tenant_id, family, create_time, id);

-- One row per run. A task is ready when not done and run_after has passed: a claim
-- moves run_after to the end of its lease, so the task of a worker that died becomes
-- ready again when the lease runs out; a retry moves it to the end of the backoff.
CREATE TABLE job_tasks (
    tenant_id TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    job_id TEXT COLLATE "C" NOT NULL,
    family TEXT COLLATE "C" NOT NULL,
    operation_name TEXT NOT NULL,
    attempts BIGINT NOT NULL,
    run_after BIGINT NOT NULL,
    claim TEXT,
    done BOOLEAN NOT NULL,
    last_error TEXT,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
-- Workers claim the oldest ready tasks of any tenant: the one index that does not
-- lead with tenant_id, partial so that it holds only the queue's live rows.
CREATE INDEX job_tasks_ready ON job_tasks (run_after) WHERE NOT done;
CREATE INDEX job_tasks_by_job ON job_tasks (tenant_id, job_id, create_time);
