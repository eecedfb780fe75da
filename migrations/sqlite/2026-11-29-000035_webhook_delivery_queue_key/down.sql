DROP INDEX webhook_deliveries_in_order;
CREATE INDEX webhook_deliveries_in_order ON webhook_deliveries (tenant_id, endpoint_id, ordering_key, create_time, id) WHERE state = 'PENDING';
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('webhook_deliveries', 'webhook_deliveries_in_order', '1000 100 10 2 1 1');
