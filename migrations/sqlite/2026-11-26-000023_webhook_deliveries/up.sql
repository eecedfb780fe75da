-- Webhook deliveries: one per event and subscribed endpoint, queued in the
-- transaction that writes the event (so a rolled-back change queues nothing), claimed
-- by workers with a lease as job runs are. As in the first migration: tenant_id leads
-- every key and index, times are BIGINT microseconds, text compares bytewise.
-- The id is the event's: it is the stable `webhook-id` of every attempt. The payload
-- is read from the event at send time; an erased event is sent as `erased: true`.
-- `ordering_key` (the entity, or the resource of a tenant-level event) keeps
-- deliveries to one endpoint in order: a delivery waits while an earlier PENDING one of
-- the same key exists.
CREATE TABLE webhook_deliveries (
    tenant_id TEXT NOT NULL,
    endpoint_id TEXT NOT NULL,
    id TEXT NOT NULL,
    entity_id TEXT,
    ordering_key TEXT NOT NULL,
    event_type TEXT NOT NULL,
    resource TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('PENDING', 'SUCCEEDED', 'FAILED')),
    tries BIGINT NOT NULL,
    attempts TEXT NOT NULL,
    run_after BIGINT NOT NULL,
    claim TEXT,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    finish_time BIGINT,
    PRIMARY KEY (tenant_id, endpoint_id, id)
) WITHOUT ROWID;
CREATE INDEX webhook_deliveries_ready ON webhook_deliveries (run_after) WHERE state = 'PENDING';
CREATE INDEX webhook_deliveries_in_order ON webhook_deliveries (tenant_id, endpoint_id, ordering_key, create_time, id) WHERE state = 'PENDING';
CREATE INDEX webhook_deliveries_by_create_time ON webhook_deliveries (tenant_id, endpoint_id, create_time, id);
CREATE INDEX webhook_deliveries_by_finish_time ON webhook_deliveries (finish_time) WHERE finish_time IS NOT NULL;
CREATE INDEX webhook_deliveries_by_entity ON webhook_deliveries (tenant_id, entity_id) WHERE entity_id IS NOT NULL;

-- The alert type raised when an endpoint is disabled after failed deliveries, for the
-- tenants that exist already (new tenants get it from provisioning, with the same
-- values: crates/domain/src/alert/model.rs, DEFAULT_ALERT_TYPES), as the alerts
-- migration seeded the first ones.
INSERT INTO alert_types (tenant_id, id, uid, revision, display_name, description,
    default_severity, create_time, update_time)
SELECT t.id, 'webhook-endpoint-disabled', t.id || ':webhook-endpoint-disabled', 1,
    'Webhook Endpoint Disabled',
    'A webhook endpoint was disabled because its deliveries kept failing.',
    'MEDIUM', t.create_time, t.create_time
FROM tenants t;

-- Fixed planner statistics for the new table and indexes (see the first migration),
-- for the same ten tenants: ten endpoints each with 1,000 deliveries.
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('webhook_deliveries', 'webhook_deliveries', '100000 10000 1000 1'),
    ('webhook_deliveries', 'webhook_deliveries_ready', '1000 1'),
    ('webhook_deliveries', 'webhook_deliveries_in_order', '1000 100 10 2 1 1'),
    ('webhook_deliveries', 'webhook_deliveries_by_create_time', '100000 10000 1000 1 1'),
    ('webhook_deliveries', 'webhook_deliveries_by_finish_time', '100000 1'),
    ('webhook_deliveries', 'webhook_deliveries_by_entity', '50000 5000 5');
