-- The index that keeps deliveries to one endpoint in order is keyed, after tenant_id, by
-- one expression, the queue key (see the PostgreSQL migration: with the columns compared apart,
-- PostgreSQL's planner could probe another index). One SQL text serves both backends.
DROP INDEX webhook_deliveries_in_order;
CREATE INDEX webhook_deliveries_in_order ON webhook_deliveries
    (tenant_id, (endpoint_id || ' ' || ordering_key), create_time, id)
    WHERE state = 'PENDING';
-- Dropping the index dropped its fixed statistics (see the first migration): ten
-- endpoints of 1,000 deliveries, 100 pending each, 10 entities' worth a key.
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('webhook_deliveries', 'webhook_deliveries_in_order', '1000 100 2 1 1');
