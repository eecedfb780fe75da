-- The built-in identity verification provider, the hosted capture (issue 18): the form
-- definition `identity-capture` its hosted page renders, and the built-in automation
-- `capture-identity` whose execution completes its session, for the tenants that exist
-- already; a tenant provisioned later gets them from its provisioning steps, with the
-- same values (crates/domain/src/form_definition/seed.rs,
-- crates/domain/src/automation/seed.rs; the storage contract tests compare them), as
-- migrations 000013 and 000028 seeded the first ones.
INSERT INTO form_definitions (tenant_id, id, uid, revision, display_name, revision_id,
    revision_create_time, body, create_time, update_time)
SELECT t.id, 'identity-capture', t.id || ':identity-capture', 1, 'Identity capture', 'cap00001',
    t.create_time,
    '{"description":"The identity document (its machine readable zone typed in and a photo) and a selfie that the built-in identity verification captures.","schema":{"steps":[{"key":"document","label":"Identity document","fields":[{"key":"identity_document","label":"Identity document","type":"DOCUMENT","required":true}]},{"key":"selfie","label":"Selfie","fields":[{"key":"selfie","label":"Selfie","type":"FILE","required":true,"accept":["image/jpeg","image/png"]}]}]}}',
    t.create_time, t.create_time
FROM tenants t;
INSERT INTO form_definition_revisions (tenant_id, definition_id, revision_id, form_schema,
    create_time)
SELECT t.id, 'identity-capture', 'cap00001',
    '{"steps":[{"key":"document","label":"Identity document","fields":[{"key":"identity_document","label":"Identity document","type":"DOCUMENT","required":true}]},{"key":"selfie","label":"Selfie","fields":[{"key":"selfie","label":"Selfie","type":"FILE","required":true,"accept":["image/jpeg","image/png"]}]}]}',
    t.create_time
FROM tenants t;
INSERT INTO automations (tenant_id, id, uid, revision, display_name, revision_id,
    revision_create_time, body, create_time, update_time)
SELECT t.id, 'capture-identity', t.id || ':capture-identity', 1, 'Capture an identity',
    'builtin1', t.create_time,
    '{"builtIn":true,"description":"The completion of the built-in identity verification''s session: waits for the person to submit the session''s hosted capture form, stores the identity document and verifies it, then completes the session with the assurance DOCUMENT_ONLY (the selfie is stored, not compared).","inputSchema":{"entity":{"description":"The entity''s resource name, entities/{entity}.","pattern":"^entities/[a-z0-9-]{1,63}$","type":"string"},"form":{"description":"The session''s capture form, which its link opens, forms/{form}.","pattern":"^forms/[a-z0-9-]{1,63}$","type":"string"},"session":{"description":"The verification session, verificationSessions/{session}.","pattern":"^verificationSessions/[a-z0-9-]{1,63}$","type":"string"}},"steps":[{"args":{"form":"${parameters.form}"},"key":"submitted","kind":"AWAIT_FORM"},{"args":{"entity":"${parameters.entity}","form":"${parameters.form}"},"key":"store","kind":"UPSERT_ENTITY_FROM_FORM"},{"args":{"document":"${steps.store.output.document}","entity":"${parameters.entity}","family":"individualEntityIDVerificationJobs"},"key":"verify","kind":"RUN_JOB"},{"args":{"document":"${steps.store.output.document}","documentOutcome":"${steps.verify.output.outcome}","form":"${parameters.form}","session":"${parameters.session}"},"key":"complete","kind":"COMPLETE_CAPTURE"}]}',
    t.create_time, t.create_time
FROM tenants t;
INSERT INTO automation_revisions (tenant_id, automation_id, revision_id, definition,
    create_time)
SELECT t.id, 'capture-identity', 'builtin1',
    '{"inputSchema":{"entity":{"description":"The entity''s resource name, entities/{entity}.","pattern":"^entities/[a-z0-9-]{1,63}$","type":"string"},"form":{"description":"The session''s capture form, which its link opens, forms/{form}.","pattern":"^forms/[a-z0-9-]{1,63}$","type":"string"},"session":{"description":"The verification session, verificationSessions/{session}.","pattern":"^verificationSessions/[a-z0-9-]{1,63}$","type":"string"}},"steps":[{"args":{"form":"${parameters.form}"},"key":"submitted","kind":"AWAIT_FORM"},{"args":{"entity":"${parameters.entity}","form":"${parameters.form}"},"key":"store","kind":"UPSERT_ENTITY_FROM_FORM"},{"args":{"document":"${steps.store.output.document}","entity":"${parameters.entity}","family":"individualEntityIDVerificationJobs"},"key":"verify","kind":"RUN_JOB"},{"args":{"document":"${steps.store.output.document}","documentOutcome":"${steps.verify.output.outcome}","form":"${parameters.form}","session":"${parameters.session}"},"key":"complete","kind":"COMPLETE_CAPTURE"}]}',
    t.create_time
FROM tenants t;
