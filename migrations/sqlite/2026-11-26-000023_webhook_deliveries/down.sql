DROP TABLE webhook_deliveries;
DELETE FROM alert_types WHERE id = 'webhook-endpoint-disabled';
DELETE FROM sqlite_stat1 WHERE tbl = 'webhook_deliveries';
