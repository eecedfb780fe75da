-- Onboarding journeys (issue 18). A job keeps the name it was created with; only a job
-- created at `entities/-` records the entity its run made (`made_entity_id`), which the
-- journey relies on: the job's `entity` field and its entity's job lists follow it.
-- SQLite cannot add a CHECK to a table, so triggers keep the rule.
CREATE TRIGGER jobs_made_entity_only_at_dash_insert BEFORE INSERT ON jobs
    WHEN NEW.made_entity_id IS NOT NULL AND NEW.entity_id <> '-'
BEGIN
    SELECT RAISE(ABORT, 'jobs_made_entity_only_at_dash');
END;
CREATE TRIGGER jobs_made_entity_only_at_dash_update BEFORE UPDATE ON jobs
    WHEN NEW.made_entity_id IS NOT NULL AND NEW.entity_id <> '-'
BEGIN
    SELECT RAISE(ABORT, 'jobs_made_entity_only_at_dash');
END;

-- The built-in automation `onboard-individual`, the journey of onboarding jobs, for the
-- tenants that exist already; a tenant provisioned later gets it from its provisioning
-- step, with the same values (crates/domain/src/automation/seed.rs; the storage contract
-- tests compare the two), as migration 000019 seeded the first built-in automations.
INSERT INTO automations (tenant_id, id, uid, revision, display_name, revision_id,
    revision_create_time, body, create_time, update_time)
SELECT t.id, 'onboard-individual', t.id || ':onboard-individual', 1, 'Onboard an individual',
    'builtin1', t.create_time,
    '{"builtIn":true,"description":"The journey of an onboarding job''s run: waits for the person to submit the run''s hosted form, maps the response with the job''s JSONata expression into an entity (created, or the job''s entity updated) and stores the identity document, verifies the document, screens and rates the person, then decides APPROVED, REFER or REJECTED and ends the job''s run, telling its webhookUri.","inputSchema":{"form":{"description":"The run''s form, which its link opens, forms/{form}.","pattern":"^forms/[a-z0-9-]{1,63}$","type":"string"},"job":{"description":"The onboarding job, entities/{entity}/onboardIndividualEntityJobs/{job}.","pattern":"^entities/[a-z0-9-]{1,63}/onboardIndividualEntityJobs/[a-z0-9-]{1,63}$","type":"string"},"operation":{"description":"The job''s run, its operation''s name.","pattern":"^entities/[a-z0-9-]{1,63}/onboardIndividualEntityJobs/[a-z0-9-]{1,63}/operations/[a-z0-9-]{1,63}$","type":"string"}},"steps":[{"args":{"form":"${parameters.form}"},"key":"submitted","kind":"AWAIT_FORM"},{"args":{"form":"${parameters.form}","job":"${parameters.job}"},"key":"map","kind":"MAP_ONBOARDING"},{"args":{"condition":"steps.map.output.hasDocument = true","else":"screen"},"key":"has_document","kind":"BRANCH"},{"args":{"document":"${steps.map.output.document}","entity":"${steps.map.output.entity}","family":"individualEntityIDVerificationJobs"},"key":"verify","kind":"RUN_JOB"},{"args":{"entity":"${steps.map.output.entity}","family":"pepSanctionIndividualEntityJobs"},"key":"screen","kind":"RUN_JOB"},{"args":{"entity":"${steps.map.output.entity}","family":"individualEntityRiskRatingJobs"},"key":"rate","kind":"RUN_JOB"},{"args":{"document":"${steps.map.output.document}","documentOutcome":"${steps.verify.output.outcome}","entity":"${steps.map.output.entity}","job":"${parameters.job}","operation":"${parameters.operation}","ratingJob":"${steps.rate.output.job}","riskLevel":"${steps.rate.output.riskLevel}","screeningJob":"${steps.screen.output.job}","screeningStatus":"${steps.screen.output.status}"},"key":"decide","kind":"DECIDE_ONBOARDING"}]}',
    t.create_time, t.create_time
FROM tenants t;
INSERT INTO automation_revisions (tenant_id, automation_id, revision_id, definition,
    create_time)
SELECT t.id, 'onboard-individual', 'builtin1',
    '{"inputSchema":{"form":{"description":"The run''s form, which its link opens, forms/{form}.","pattern":"^forms/[a-z0-9-]{1,63}$","type":"string"},"job":{"description":"The onboarding job, entities/{entity}/onboardIndividualEntityJobs/{job}.","pattern":"^entities/[a-z0-9-]{1,63}/onboardIndividualEntityJobs/[a-z0-9-]{1,63}$","type":"string"},"operation":{"description":"The job''s run, its operation''s name.","pattern":"^entities/[a-z0-9-]{1,63}/onboardIndividualEntityJobs/[a-z0-9-]{1,63}/operations/[a-z0-9-]{1,63}$","type":"string"}},"steps":[{"args":{"form":"${parameters.form}"},"key":"submitted","kind":"AWAIT_FORM"},{"args":{"form":"${parameters.form}","job":"${parameters.job}"},"key":"map","kind":"MAP_ONBOARDING"},{"args":{"condition":"steps.map.output.hasDocument = true","else":"screen"},"key":"has_document","kind":"BRANCH"},{"args":{"document":"${steps.map.output.document}","entity":"${steps.map.output.entity}","family":"individualEntityIDVerificationJobs"},"key":"verify","kind":"RUN_JOB"},{"args":{"entity":"${steps.map.output.entity}","family":"pepSanctionIndividualEntityJobs"},"key":"screen","kind":"RUN_JOB"},{"args":{"entity":"${steps.map.output.entity}","family":"individualEntityRiskRatingJobs"},"key":"rate","kind":"RUN_JOB"},{"args":{"document":"${steps.map.output.document}","documentOutcome":"${steps.verify.output.outcome}","entity":"${steps.map.output.entity}","job":"${parameters.job}","operation":"${parameters.operation}","ratingJob":"${steps.rate.output.job}","riskLevel":"${steps.rate.output.riskLevel}","screeningJob":"${steps.screen.output.job}","screeningStatus":"${steps.screen.output.status}"},"key":"decide","kind":"DECIDE_ONBOARDING"}]}',
    t.create_time
FROM tenants t;
