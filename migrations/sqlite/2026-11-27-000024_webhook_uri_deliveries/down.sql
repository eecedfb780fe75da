ALTER TABLE webhook_deliveries DROP COLUMN url;
DROP TABLE tenant_webhook_secrets;
DELETE FROM sqlite_stat1 WHERE tbl = 'tenant_webhook_secrets';
