DROP TABLE webhook_endpoints;
DELETE FROM sqlite_stat1 WHERE tbl = 'webhook_endpoints';
