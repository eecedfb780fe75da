-- Identity verification with a provider (issue 18): the sessions rics starts (a
-- `POST /v1alpha/verificationSessions`, or an individualEntityVerificationJobs
-- `:run`), the provider callbacks received (a replay of the same verification's same
-- status is refused), and each tenant's Truuth callback secret, stored sealed as the
-- webhook signing secrets are. As in the first migration: tenant_id leads every key,
-- times are BIGINT microseconds, compared text uses the "C" collation.
CREATE TABLE verification_sessions (
    tenant_id TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    provider TEXT NOT NULL,
    provider_session_id TEXT,
    entity_id TEXT COLLATE "C",
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
);
CREATE INDEX verification_sessions_by_entity ON verification_sessions (tenant_id, entity_id)
    WHERE entity_id IS NOT NULL;
CREATE TABLE verification_callbacks (
    tenant_id TEXT COLLATE "C" NOT NULL,
    verification_id TEXT COLLATE "C" NOT NULL,
    status TEXT COLLATE "C" NOT NULL,
    session_id TEXT COLLATE "C" NOT NULL,
    receive_time BIGINT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, verification_id, status)
);
CREATE INDEX verification_callbacks_by_session ON verification_callbacks (tenant_id, session_id);
CREATE TABLE truuth_callback_secrets (
    tenant_id TEXT COLLATE "C" NOT NULL,
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_secret_expire_time BIGINT,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id)
);
