-- Webhook endpoints: where a tenant's events are pushed. As in the first migration:
-- tenant_id leads every key and index, times are BIGINT microseconds, compared text
-- uses the "C" collation. The signing secrets are stored sealed with the operator's key
-- (never in plaintext); `previous_secret` signs beside `secret` until
-- `previous_secret_expire_time`.
CREATE TABLE webhook_endpoints (
    tenant_id TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    url TEXT COLLATE "C" NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('ENABLED', 'DISABLED')),
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_secret_expire_time BIGINT,
    body TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    delete_time BIGINT,
    purge_time BIGINT,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX webhook_endpoints_by_create_time ON webhook_endpoints (tenant_id, create_time, id, delete_time);
CREATE INDEX webhook_endpoints_by_update_time ON webhook_endpoints (tenant_id, update_time, id, delete_time);
CREATE INDEX webhook_endpoints_by_url ON webhook_endpoints (tenant_id, url, id, delete_time);
CREATE INDEX webhook_endpoints_to_purge ON webhook_endpoints (tenant_id, purge_time) WHERE purge_time IS NOT NULL;
