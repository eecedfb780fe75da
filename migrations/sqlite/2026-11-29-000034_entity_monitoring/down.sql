ALTER TABLE entity_bodies DROP COLUMN monitoring;
