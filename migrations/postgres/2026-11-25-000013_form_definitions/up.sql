-- Form definitions: the steps of typed fields forms ask for, and every revision of
-- their schema. As in the first migration: tenant_id leads every key and index, times
-- are BIGINT microseconds, compared text uses the "C"
-- collation.

-- The columns filters, orders and counts use, and the JSON body (description and the
-- current schema). `revision_id` and `revision_create_time` are the current revision's.
CREATE TABLE form_definitions (
    tenant_id TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    display_name TEXT COLLATE "C" NOT NULL,
    revision_id TEXT COLLATE "C" NOT NULL,
    revision_create_time BIGINT NOT NULL,
    body TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    delete_time BIGINT,
    purge_time BIGINT,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX form_definitions_by_create_time ON form_definitions (tenant_id, create_time, id, delete_time);
CREATE INDEX form_definitions_by_update_time ON form_definitions (tenant_id, update_time, id, delete_time);
CREATE INDEX form_definitions_by_display_name ON form_definitions (tenant_id, display_name, id, delete_time);
CREATE INDEX form_definitions_to_purge ON form_definitions (tenant_id, purge_time) WHERE purge_time IS NOT NULL;

-- Every revision of a definition's schema (AIP-162), the current one included: forms
-- pin one, and `formDefinitions/{id}@{revisionId}` reads it. They go with their
-- definition when it is purged.
CREATE TABLE form_definition_revisions (
    tenant_id TEXT COLLATE "C" NOT NULL,
    definition_id TEXT COLLATE "C" NOT NULL,
    revision_id TEXT COLLATE "C" NOT NULL,
    form_schema TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, definition_id, revision_id),
    FOREIGN KEY (tenant_id, definition_id) REFERENCES form_definitions (tenant_id, id) ON DELETE CASCADE
);

-- `formDefinitions/kyc-individual` for the tenants that exist already; a tenant
-- provisioned later gets it from its provisioning step
-- (rics_domain::form_definition::DefaultFormDefinitions), with the same values
-- (crates/domain/src/form_definition/seed.rs; the storage contract tests compare the
-- two). It is created at its tenant's creation time, with the derived uid
-- `{tenant}:kyc-individual` (SQL has no portable random UUID) and the revision
-- `kyc00001`.
INSERT INTO form_definitions (tenant_id, id, uid, revision, display_name, revision_id,
    revision_create_time, body, create_time, update_time)
SELECT t.id, 'kyc-individual', t.id || ':kyc-individual', 1, 'Individual KYC', 'kyc00001',
    t.create_time,
    '{"description":"Know-your-customer details of an individual: name, birth, nationality, address, contact, identity document and selfie.","schema":' ||
    '{"steps":[' ||
    '{"key":"personal","label":"Personal details","fields":[{"key":"given_name","label":"Given name","type":"TEXT","required":true},{"key":"middle_names","label":"Middle names","type":"TEXT"},{"key":"family_name","label":"Family name","type":"TEXT","required":true},{"key":"date_of_birth","label":"Date of birth","type":"DATE","required":true},{"key":"nationality","label":"Nationality","type":"COUNTRY","required":true},{"key":"occupation","label":"Occupation","type":"TEXT"}]},' ||
    '{"key":"contact","label":"Contact details","fields":[{"key":"email","label":"Email address","type":"EMAIL","required":true},{"key":"phone","label":"Phone number","type":"PHONE"},{"key":"residential_address","label":"Residential address","type":"ADDRESS"}]},' ||
    '{"key":"identity","label":"Identity","fields":[{"key":"identity_document","label":"Identity document","type":"DOCUMENT","required":true},{"key":"selfie","label":"Selfie","type":"FILE","accept":["image/jpeg","image/png"]}]}' ||
    ']}' ||
    '}',
    t.create_time, t.create_time
FROM tenants t;
INSERT INTO form_definition_revisions (tenant_id, definition_id, revision_id, form_schema,
    create_time)
SELECT t.id, 'kyc-individual', 'kyc00001',
    '{"steps":[' ||
    '{"key":"personal","label":"Personal details","fields":[{"key":"given_name","label":"Given name","type":"TEXT","required":true},{"key":"middle_names","label":"Middle names","type":"TEXT"},{"key":"family_name","label":"Family name","type":"TEXT","required":true},{"key":"date_of_birth","label":"Date of birth","type":"DATE","required":true},{"key":"nationality","label":"Nationality","type":"COUNTRY","required":true},{"key":"occupation","label":"Occupation","type":"TEXT"}]},' ||
    '{"key":"contact","label":"Contact details","fields":[{"key":"email","label":"Email address","type":"EMAIL","required":true},{"key":"phone","label":"Phone number","type":"PHONE"},{"key":"residential_address","label":"Residential address","type":"ADDRESS"}]},' ||
    '{"key":"identity","label":"Identity","fields":[{"key":"identity_document","label":"Identity document","type":"DOCUMENT","required":true},{"key":"selfie","label":"Selfie","type":"FILE","accept":["image/jpeg","image/png"]}]}' ||
    ']}',
    t.create_time
FROM tenants t;
