DELETE FROM sqlite_stat1 WHERE idx = 'jobs_by_made_entity';
DELETE FROM alert_types WHERE id = 'onboarding-referred';
DROP INDEX jobs_by_made_entity;
ALTER TABLE jobs DROP COLUMN made_entity_id;
