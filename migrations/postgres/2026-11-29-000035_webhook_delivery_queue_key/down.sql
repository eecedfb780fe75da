DROP INDEX webhook_deliveries_in_order;
CREATE INDEX webhook_deliveries_in_order ON webhook_deliveries (tenant_id, endpoint_id, ordering_key, create_time, id) WHERE state = 'PENDING';
