-- The built-in automation goes, and the rule.
DELETE FROM automation_revisions WHERE automation_id = 'onboard-individual';
DELETE FROM automations WHERE id = 'onboard-individual';
ALTER TABLE jobs DROP CONSTRAINT jobs_made_entity_only_at_dash;
