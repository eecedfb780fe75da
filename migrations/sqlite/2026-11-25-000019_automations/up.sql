-- Automations: durable multi-step processes kept as data, and every revision of
-- their definition. As in the first migration: tenant_id leads every key and index, times
-- are BIGINT microseconds, text compares bytewise.

-- The columns filters, orders and counts use, and the JSON body (description,
-- inputSchema, steps, builtIn). `revision_id` and `revision_create_time` are the
-- current revision's.
CREATE TABLE automations (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    display_name TEXT NOT NULL,
    revision_id TEXT NOT NULL,
    revision_create_time BIGINT NOT NULL,
    body TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    delete_time BIGINT,
    purge_time BIGINT,
    PRIMARY KEY (tenant_id, id)
) WITHOUT ROWID;
CREATE INDEX automations_by_create_time ON automations (tenant_id, create_time, id, delete_time);
CREATE INDEX automations_by_update_time ON automations (tenant_id, update_time, id, delete_time);
CREATE INDEX automations_by_display_name ON automations (tenant_id, display_name, id, delete_time);
CREATE INDEX automations_to_purge ON automations (tenant_id, purge_time) WHERE purge_time IS NOT NULL;

-- Every revision of an automation's definition (its inputSchema and steps, AIP-162),
-- the current one included: an execution follows the revision it started with. They go
-- with their automation when it is purged.
CREATE TABLE automation_revisions (
    tenant_id TEXT NOT NULL,
    automation_id TEXT NOT NULL,
    revision_id TEXT NOT NULL,
    definition TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, automation_id, revision_id),
    FOREIGN KEY (tenant_id, automation_id) REFERENCES automations (tenant_id, id) ON DELETE CASCADE
) WITHOUT ROWID;

-- The built-in automations for the tenants that exist already; a tenant provisioned
-- later gets them from its provisioning step (rics_domain::automation::DefaultAutomations),
-- with the same values (crates/domain/src/automation/seed.rs; the storage contract tests
-- compare the two). Each is created at its tenant's creation time, with the derived uid
-- `{tenant}:{id}` (SQL has no portable random UUID) and the revision `builtin1`.
INSERT INTO automations (tenant_id, id, uid, revision, display_name, revision_id,
    revision_create_time, body, create_time, update_time)
SELECT t.id, b.id, t.id || ':' || b.id, 1, b.display_name, 'builtin1', t.create_time, b.body,
    t.create_time, t.create_time
FROM tenants t CROSS JOIN (
    SELECT 'screen-entity' AS id, 'Screen an entity' AS display_name,
        '{"builtIn":true,"description":"Screens the entity against the PEP and sanctions lists.","inputSchema":{"entity":{"description":"The entity''s resource name, entities/{entity}.","pattern":"^entities/[a-z0-9-]{1,63}$","type":"string"}},"steps":[{"args":{"entity":"${parameters.entity}","family":"pepSanctionIndividualEntityJobs"},"key":"screen","kind":"RUN_JOB"}]}' AS body
    UNION ALL
    SELECT 'rate-entity', 'Rate an entity''s risk',
        '{"builtIn":true,"description":"Rates the entity''s risk with the tenant''s risk model.","inputSchema":{"entity":{"description":"The entity''s resource name, entities/{entity}.","pattern":"^entities/[a-z0-9-]{1,63}$","type":"string"}},"steps":[{"args":{"entity":"${parameters.entity}","family":"individualEntityRiskRatingJobs"},"key":"rate","kind":"RUN_JOB"}]}'
    UNION ALL
    SELECT 'verify-document', 'Verify an identity document',
        '{"builtIn":true,"description":"Verifies an identity document of the entity: the one `document` names, else its latest.","inputSchema":{"document":{"default":"","description":"The document''s resource name, entities/{entity}/documents/{document}; the entity''s latest when empty.","type":"string"},"entity":{"description":"The entity''s resource name, entities/{entity}.","pattern":"^entities/[a-z0-9-]{1,63}$","type":"string"}},"steps":[{"args":{"document":"${parameters.document}","entity":"${parameters.entity}","family":"individualEntityIDVerificationJobs"},"key":"verify","kind":"RUN_JOB"}]}'
    UNION ALL
    SELECT 'kyc-individual', 'Individual KYC',
        '{"builtIn":true,"description":"Requests the KYC form and waits for it (14 days at most), updates the entity from the response, verifies its identity document, screens it, rates its risk, and tags the outcome kyc-passed or kyc-referred.","inputSchema":{"entity":{"description":"The entity''s resource name, entities/{entity}.","pattern":"^entities/[a-z0-9-]{1,63}$","type":"string"}},"steps":[{"args":{"deadline":"1209600s","entity":"${parameters.entity}","formDefinition":"formDefinitions/kyc-individual"},"key":"request","kind":"REQUEST_FORM"},{"args":{"entity":"${parameters.entity}","form":"${steps.request.output.form}"},"key":"update","kind":"UPSERT_ENTITY_FROM_FORM"},{"args":{"document":"${steps.update.output.document}","entity":"${parameters.entity}","family":"individualEntityIDVerificationJobs"},"key":"verify","kind":"RUN_JOB"},{"args":{"entity":"${parameters.entity}","family":"pepSanctionIndividualEntityJobs"},"key":"screen","kind":"RUN_JOB"},{"args":{"entity":"${parameters.entity}","family":"individualEntityRiskRatingJobs"},"key":"rate","kind":"RUN_JOB"},{"args":{"condition":"steps.verify.output.outcome = \"PASSED\" AND steps.screen.output.status = \"CLEAR\" AND steps.rate.output.riskLevel != \"HIGH\"","else":"referred"},"key":"decide","kind":"BRANCH"},{"args":{"entity":"${parameters.entity}","tag":"kyc-passed"},"key":"passed","kind":"ADD_TAG"},{"args":{"condition":"steps.decide.output.matched = true","then":"END"},"key":"done","kind":"BRANCH"},{"args":{"entity":"${parameters.entity}","tag":"kyc-referred"},"key":"referred","kind":"ADD_TAG"}]}'
    UNION ALL
    SELECT 'periodic-review', 'Periodic review',
        '{"builtIn":true,"description":"Re-screens the entity and re-rates its risk, and raises an Ongoing Customer Due Diligence Required alert when its risk level rose.","inputSchema":{"entity":{"description":"The entity''s resource name, entities/{entity}.","pattern":"^entities/[a-z0-9-]{1,63}$","type":"string"}},"steps":[{"args":{"entity":"${parameters.entity}","family":"pepSanctionIndividualEntityJobs"},"key":"screen","kind":"RUN_JOB"},{"args":{"entity":"${parameters.entity}","family":"individualEntityRiskRatingJobs"},"key":"rate","kind":"RUN_JOB"},{"args":{"condition":"steps.rate.output.riskLevelRose = true","else":"END"},"key":"rose","kind":"BRANCH"},{"args":{"alertType":"alertTypes/ongoing-customer-due-diligence-required","description":"The entity''s risk level rose at its periodic review.","entity":"${parameters.entity}"},"key":"alert","kind":"RAISE_ALERT"}]}'
) b;
INSERT INTO automation_revisions (tenant_id, automation_id, revision_id, definition,
    create_time)
SELECT t.id, b.id, 'builtin1', b.definition, t.create_time
FROM tenants t CROSS JOIN (
    SELECT 'screen-entity' AS id,
        '{"inputSchema":{"entity":{"description":"The entity''s resource name, entities/{entity}.","pattern":"^entities/[a-z0-9-]{1,63}$","type":"string"}},"steps":[{"args":{"entity":"${parameters.entity}","family":"pepSanctionIndividualEntityJobs"},"key":"screen","kind":"RUN_JOB"}]}' AS definition
    UNION ALL
    SELECT 'rate-entity',
        '{"inputSchema":{"entity":{"description":"The entity''s resource name, entities/{entity}.","pattern":"^entities/[a-z0-9-]{1,63}$","type":"string"}},"steps":[{"args":{"entity":"${parameters.entity}","family":"individualEntityRiskRatingJobs"},"key":"rate","kind":"RUN_JOB"}]}'
    UNION ALL
    SELECT 'verify-document',
        '{"inputSchema":{"document":{"default":"","description":"The document''s resource name, entities/{entity}/documents/{document}; the entity''s latest when empty.","type":"string"},"entity":{"description":"The entity''s resource name, entities/{entity}.","pattern":"^entities/[a-z0-9-]{1,63}$","type":"string"}},"steps":[{"args":{"document":"${parameters.document}","entity":"${parameters.entity}","family":"individualEntityIDVerificationJobs"},"key":"verify","kind":"RUN_JOB"}]}'
    UNION ALL
    SELECT 'kyc-individual',
        '{"inputSchema":{"entity":{"description":"The entity''s resource name, entities/{entity}.","pattern":"^entities/[a-z0-9-]{1,63}$","type":"string"}},"steps":[{"args":{"deadline":"1209600s","entity":"${parameters.entity}","formDefinition":"formDefinitions/kyc-individual"},"key":"request","kind":"REQUEST_FORM"},{"args":{"entity":"${parameters.entity}","form":"${steps.request.output.form}"},"key":"update","kind":"UPSERT_ENTITY_FROM_FORM"},{"args":{"document":"${steps.update.output.document}","entity":"${parameters.entity}","family":"individualEntityIDVerificationJobs"},"key":"verify","kind":"RUN_JOB"},{"args":{"entity":"${parameters.entity}","family":"pepSanctionIndividualEntityJobs"},"key":"screen","kind":"RUN_JOB"},{"args":{"entity":"${parameters.entity}","family":"individualEntityRiskRatingJobs"},"key":"rate","kind":"RUN_JOB"},{"args":{"condition":"steps.verify.output.outcome = \"PASSED\" AND steps.screen.output.status = \"CLEAR\" AND steps.rate.output.riskLevel != \"HIGH\"","else":"referred"},"key":"decide","kind":"BRANCH"},{"args":{"entity":"${parameters.entity}","tag":"kyc-passed"},"key":"passed","kind":"ADD_TAG"},{"args":{"condition":"steps.decide.output.matched = true","then":"END"},"key":"done","kind":"BRANCH"},{"args":{"entity":"${parameters.entity}","tag":"kyc-referred"},"key":"referred","kind":"ADD_TAG"}]}'
    UNION ALL
    SELECT 'periodic-review',
        '{"inputSchema":{"entity":{"description":"The entity''s resource name, entities/{entity}.","pattern":"^entities/[a-z0-9-]{1,63}$","type":"string"}},"steps":[{"args":{"entity":"${parameters.entity}","family":"pepSanctionIndividualEntityJobs"},"key":"screen","kind":"RUN_JOB"},{"args":{"entity":"${parameters.entity}","family":"individualEntityRiskRatingJobs"},"key":"rate","kind":"RUN_JOB"},{"args":{"condition":"steps.rate.output.riskLevelRose = true","else":"END"},"key":"rose","kind":"BRANCH"},{"args":{"alertType":"alertTypes/ongoing-customer-due-diligence-required","description":"The entity''s risk level rose at its periodic review.","entity":"${parameters.entity}"},"key":"alert","kind":"RAISE_ALERT"}]}'
) b;

-- Fixed planner statistics for the new tables and indexes (see the first migration),
-- for the same ten tenants: a hundred automations each, of about three revisions.
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('automations', 'automations', '1000 100 1'),
    ('automations', 'automations_by_create_time', '1000 100 1 1 1'),
    ('automations', 'automations_by_update_time', '1000 100 1 1 1'),
    ('automations', 'automations_by_display_name', '1000 100 2 1 1'),
    ('automations', 'automations_to_purge', '10 1 1'),
    ('automation_revisions', 'automation_revisions', '3000 300 3 1');
