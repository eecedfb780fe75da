-- Activity log types (queryable columns and a JSON body, with the trigrams of their
-- display names for fuzzy search) and activity logs (queryable columns and a JSON
-- body), with the entities each log names. As in the first migration: tenant_id leads
-- every key and index, times are BIGINT microseconds since the Unix epoch (UTC), text
-- compares bytewise, and tables are WITHOUT ROWID.

CREATE TABLE activity_log_types (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    display_name TEXT NOT NULL,
    display_name_trigrams BIGINT NOT NULL,
    activity_type TEXT
        CHECK (activity_type IN ('PEP_AND_SANCTIONS', 'DOCUMENT_VERIFICATION', 'IDENTITY_CHECK',
            'RISK_RATING', 'UNUSUAL_ACTIVITY_REPORT', 'SUSPICIOUS_MATTER_REPORT', 'CUSTOM',
            'KYB_PROFILE', 'FORM_CREATED')),
    body TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    delete_time BIGINT,
    purge_time BIGINT,
    PRIMARY KEY (tenant_id, id)
) WITHOUT ROWID;
-- As for entities, the list indexes end with delete_time so that counts of live types
-- read only the index.
CREATE INDEX activity_log_types_by_create_time ON activity_log_types (tenant_id, create_time, id, delete_time);
CREATE INDEX activity_log_types_by_update_time ON activity_log_types (tenant_id, update_time, id, delete_time);
CREATE INDEX activity_log_types_by_display_name ON activity_log_types (tenant_id, display_name, id, delete_time);
CREATE INDEX activity_log_types_to_purge ON activity_log_types (tenant_id, purge_time) WHERE purge_time IS NOT NULL;

CREATE TABLE activity_log_type_name_trigrams (
    tenant_id TEXT NOT NULL,
    activity_log_type_id TEXT NOT NULL,
    trigram TEXT NOT NULL,
    PRIMARY KEY (tenant_id, activity_log_type_id, trigram),
    FOREIGN KEY (tenant_id, activity_log_type_id) REFERENCES activity_log_types (tenant_id, id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX activity_log_type_name_trigrams_by_trigram ON activity_log_type_name_trigrams (tenant_id, trigram, activity_log_type_id);

-- A log's type is kept by name, without a foreign key: a purged type leaves its logs
-- naming it. activity_log_type and source are '' when unset.
CREATE TABLE activity_logs (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    activity_type TEXT NOT NULL
        CHECK (activity_type IN ('PEP_AND_SANCTIONS', 'DOCUMENT_VERIFICATION', 'IDENTITY_CHECK',
            'RISK_RATING', 'UNUSUAL_ACTIVITY_REPORT', 'SUSPICIOUS_MATTER_REPORT', 'CUSTOM',
            'KYB_PROFILE', 'FORM_CREATED')),
    activity_log_type TEXT NOT NULL,
    source TEXT NOT NULL,
    body TEXT NOT NULL,
    occur_time BIGINT NOT NULL,
    create_time BIGINT NOT NULL,
    delete_time BIGINT,
    purge_time BIGINT,
    PRIMARY KEY (tenant_id, id)
) WITHOUT ROWID;
CREATE INDEX activity_logs_to_purge ON activity_logs (tenant_id, purge_time) WHERE purge_time IS NOT NULL;

-- The entities each log names. An entity cannot be removed while a log names it (no
-- cascade): erasing an entity erases its logs first, in the same transaction.
CREATE TABLE activity_log_entities (
    tenant_id TEXT NOT NULL,
    activity_log_id TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    PRIMARY KEY (tenant_id, activity_log_id, entity_id),
    FOREIGN KEY (tenant_id, activity_log_id) REFERENCES activity_logs (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, entity_id) REFERENCES entities (tenant_id, id)
) WITHOUT ROWID;
-- An entity's logs: the list of one entity and the erasure of an entity start here.
CREATE INDEX activity_log_entities_by_entity ON activity_log_entities (tenant_id, entity_id, activity_log_id);

-- Fixed planner statistics for the new tables and indexes (see the first migration),
-- for the same ten tenants: a hundred types each with about 20 name trigrams, ten logs
-- per entity naming one or two entities, a few soft-deleted awaiting their purge.
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('activity_log_types', 'activity_log_types', '1000 100 1'),
    ('activity_log_types', 'activity_log_types_by_create_time', '1000 100 1 1 1'),
    ('activity_log_types', 'activity_log_types_by_update_time', '1000 100 1 1 1'),
    ('activity_log_types', 'activity_log_types_by_display_name', '1000 100 1 1 1'),
    ('activity_log_types', 'activity_log_types_to_purge', '100 10 1'),
    ('activity_log_type_name_trigrams', 'activity_log_type_name_trigrams', '20000 2000 20 1'),
    ('activity_log_type_name_trigrams', 'activity_log_type_name_trigrams_by_trigram', '20000 2000 10 1'),
    ('activity_logs', 'activity_logs', '1000000 100000 1'),
    ('activity_logs', 'activity_logs_to_purge', '10000 1000 1'),
    ('activity_log_entities', 'activity_log_entities', '1200000 120000 1 1'),
    ('activity_log_entities', 'activity_log_entities_by_entity', '1200000 120000 12 1');
