-- The built-in automation goes, and the rule.
DELETE FROM automation_revisions WHERE automation_id = 'onboard-individual';
DELETE FROM automations WHERE id = 'onboard-individual';
DROP TRIGGER jobs_made_entity_only_at_dash_update;
DROP TRIGGER jobs_made_entity_only_at_dash_insert;
