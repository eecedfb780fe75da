-- Onboarding jobs (issue 18). A job created at `entities/-` keeps that name while its
-- run makes the entity: `made_entity_id` names the entity made, so the job's `entity`
-- field and the entity's job lists follow it.
ALTER TABLE jobs ADD COLUMN made_entity_id TEXT COLLATE "C";
CREATE INDEX jobs_by_made_entity ON jobs (tenant_id, family, made_entity_id, create_time, id)
    WHERE made_entity_id IS NOT NULL;

-- The alert type raised when an onboarding is referred to an analyst, for the tenants
-- that exist already (new tenants get it from provisioning, with the same values:
-- crates/domain/src/alert/model.rs, DEFAULT_ALERT_TYPES).
INSERT INTO alert_types (tenant_id, id, uid, revision, display_name, description,
    default_severity, create_time, update_time)
SELECT t.id, 'onboarding-referred', t.id || ':onboarding-referred', 1,
    'Onboarding Referred',
    'An onboarding could not be approved on its own and awaits an analyst''s decision.',
    'MEDIUM', t.create_time, t.create_time
FROM tenants t;
