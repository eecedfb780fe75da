-- Identity verification with a provider (issue 18): the sessions rics starts (a
-- `POST /v1alpha/verificationSessions`, or an individualEntityVerificationJobs
-- `:run`), the provider callbacks received (a replay of the same verification's same
-- status is refused), and each tenant's Truuth callback secret, stored sealed as the
-- webhook signing secrets are. As in the first migration: tenant_id leads every key,
-- times are BIGINT microseconds, text compares bytewise.
CREATE TABLE verification_sessions (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    provider TEXT NOT NULL,
    provider_session_id TEXT,
    entity_id TEXT,
    operation TEXT,
    identity_owner TEXT NOT NULL,
    enrich_entity BOOLEAN NOT NULL,
    webhook_uri TEXT,
    state TEXT NOT NULL,
    outcome TEXT,
    activity_log TEXT,
    create_time BIGINT NOT NULL,
    expire_time BIGINT NOT NULL,
    complete_time BIGINT,
    PRIMARY KEY (tenant_id, id)
) WITHOUT ROWID;
CREATE INDEX verification_sessions_by_entity ON verification_sessions (tenant_id, entity_id)
    WHERE entity_id IS NOT NULL;
CREATE TABLE verification_callbacks (
    tenant_id TEXT NOT NULL,
    verification_id TEXT NOT NULL,
    status TEXT NOT NULL,
    session_id TEXT NOT NULL,
    receive_time BIGINT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, verification_id, status)
) WITHOUT ROWID;
CREATE INDEX verification_callbacks_by_session ON verification_callbacks (tenant_id, session_id);
CREATE TABLE truuth_callback_secrets (
    tenant_id TEXT NOT NULL,
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_secret_expire_time BIGINT,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id)
) WITHOUT ROWID;

-- Fixed planner statistics for the new tables (see the first migration), for the same
-- ten tenants: some sessions per entity, two or three callbacks per session, one
-- secret per tenant.
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('verification_sessions', 'verification_sessions', '10000 1000 1'),
    ('verification_sessions', 'verification_sessions_by_entity', '5000 500 2'),
    ('verification_callbacks', 'verification_callbacks', '25000 2500 2 1'),
    ('verification_callbacks', 'verification_callbacks_by_session', '25000 2500 3'),
    ('truuth_callback_secrets', 'truuth_callback_secrets', '10 1');
