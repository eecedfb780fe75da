ALTER TABLE webhook_deliveries DROP COLUMN url;
DROP TABLE tenant_webhook_secrets;
