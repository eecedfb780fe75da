-- Webhook endpoints: where a tenant's events are pushed. As in the first migration:
-- tenant_id leads every key and index, times are BIGINT microseconds, text compares
-- bytewise. The signing secrets are stored sealed with the operator's key (never in
-- plaintext); `previous_secret` signs beside `secret` until `previous_secret_expire_time`.
CREATE TABLE webhook_endpoints (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    url TEXT NOT NULL,
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
) WITHOUT ROWID;
CREATE INDEX webhook_endpoints_by_create_time ON webhook_endpoints (tenant_id, create_time, id, delete_time);
CREATE INDEX webhook_endpoints_by_update_time ON webhook_endpoints (tenant_id, update_time, id, delete_time);
CREATE INDEX webhook_endpoints_by_url ON webhook_endpoints (tenant_id, url, id, delete_time);
CREATE INDEX webhook_endpoints_to_purge ON webhook_endpoints (tenant_id, purge_time) WHERE purge_time IS NOT NULL;

-- Fixed planner statistics for the new table and indexes (see the first migration),
-- for the same ten tenants: ten endpoints each.
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('webhook_endpoints', 'webhook_endpoints', '100 10 1'),
    ('webhook_endpoints', 'webhook_endpoints_by_create_time', '100 10 1 1 1'),
    ('webhook_endpoints', 'webhook_endpoints_by_update_time', '100 10 1 1 1'),
    ('webhook_endpoints', 'webhook_endpoints_by_url', '100 10 2 1 1'),
    ('webhook_endpoints', 'webhook_endpoints_to_purge', '10 1 1');
