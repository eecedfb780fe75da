-- Deliveries to a URL rather than an endpoint (the jobs' `webhookUri`, the
-- automations' NOTIFY_WEBHOOK steps), signed with the tenant's webhook signing secret.
-- As in the first migration: tenant_id leads every key, times are BIGINT microseconds,
-- compared text uses the "C" collation. The secrets are stored sealed with the
-- operator's key, as endpoint secrets are; `previous_secret` signs beside `secret`
-- until `previous_secret_expire_time`.
CREATE TABLE tenant_webhook_secrets (
    tenant_id TEXT COLLATE "C" NOT NULL,
    secret TEXT NOT NULL,
    previous_secret TEXT,
    previous_secret_expire_time BIGINT,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id)
);
-- A delivery to a URL has the endpoint id `-` and its URL here; NULL for a delivery
-- to an endpoint, which is sent to the endpoint's URL of the moment.
ALTER TABLE webhook_deliveries ADD COLUMN url TEXT;
