DELETE FROM sqlite_stat1 WHERE tbl IN ('alert_types', 'alerts', 'alert_entities');
-- The seeded alert types go with their table.
DROP TABLE alert_entities;
DROP TABLE alerts;
DROP TABLE alert_types;
