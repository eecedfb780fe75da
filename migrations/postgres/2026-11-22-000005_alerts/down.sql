-- The seeded alert types go with their table.
DROP TABLE alert_entities;
DROP TABLE alerts;
DROP TABLE alert_types;
