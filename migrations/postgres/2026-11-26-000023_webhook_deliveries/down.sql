DROP TABLE webhook_deliveries;
DELETE FROM alert_types WHERE id = 'webhook-endpoint-disabled';
