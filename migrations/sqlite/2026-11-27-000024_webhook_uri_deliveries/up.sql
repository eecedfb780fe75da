-- Deliveries to a URL rather than an endpoint (the jobs' `webhookUri`, the
-- automations' NOTIFY_WEBHOOK steps), signed with the tenant's webhook signing secret.
-- As in the first migration: tenant_id leads every key, times are BIGINT microseconds,
-- text compares bytewise. The secrets are stored sealed with the operator's key, as
-- endpoint secrets are; `previous_secret` signs beside `secret` until
-- `previous_secret_expire_time`.
CREATE TABLE tenant_webhook_secrets (
    tenant_id TEXT NOT NULL,
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_secret_expire_time BIGINT,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id)
) WITHOUT ROWID;
-- A delivery to a URL has the endpoint id `-` and its URL here; NULL for a delivery
-- to an endpoint, which is sent to the endpoint's URL of the moment.
ALTER TABLE webhook_deliveries ADD COLUMN url TEXT;

-- Fixed planner statistics for the new table (see the first migration), for the same
-- ten tenants: one secret each.
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('tenant_webhook_secrets', 'tenant_webhook_secrets', '10 1');
