-- Activity log types (queryable columns and a JSON body, with the trigrams of their
-- display names for fuzzy search) and activity logs (queryable columns and a JSON
-- body), with the entities each log names. As in the first migration: tenant_id leads
-- every key and index, times are BIGINT microseconds since the Unix epoch (UTC), and
-- text that is compared or ordered uses the "C" collation.

CREATE TABLE activity_log_types (
    tenant_id TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    display_name TEXT COLLATE "C" NOT NULL,
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
);
-- As for entities, the list indexes end with delete_time so that counts of live types
-- read only the index.
CREATE INDEX activity_log_types_by_create_time ON activity_log_types (tenant_id, create_time, id, delete_time);
CREATE INDEX activity_log_types_by_update_time ON activity_log_types (tenant_id, update_time, id, delete_time);
CREATE INDEX activity_log_types_by_display_name ON activity_log_types (tenant_id, display_name, id, delete_time);
CREATE INDEX activity_log_types_to_purge ON activity_log_types (tenant_id, purge_time) WHERE purge_time IS NOT NULL;

CREATE TABLE activity_log_type_name_trigrams (
    tenant_id TEXT COLLATE "C" NOT NULL,
    activity_log_type_id TEXT COLLATE "C" NOT NULL,
    trigram TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (tenant_id, activity_log_type_id, trigram),
    FOREIGN KEY (tenant_id, activity_log_type_id) REFERENCES activity_log_types (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX activity_log_type_name_trigrams_by_trigram ON activity_log_type_name_trigrams (tenant_id, trigram, activity_log_type_id);

-- A log's type is kept by name, without a foreign key: a purged type leaves its logs
-- naming it. activity_log_type and source are '' when unset.
CREATE TABLE activity_logs (
    tenant_id TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    activity_type TEXT NOT NULL
        CHECK (activity_type IN ('PEP_AND_SANCTIONS', 'DOCUMENT_VERIFICATION', 'IDENTITY_CHECK',
            'RISK_RATING', 'UNUSUAL_ACTIVITY_REPORT', 'SUSPICIOUS_MATTER_REPORT', 'CUSTOM',
            'KYB_PROFILE', 'FORM_CREATED')),
    activity_log_type TEXT COLLATE "C" NOT NULL,
    source TEXT COLLATE "C" NOT NULL,
    body TEXT NOT NULL,
    occur_time BIGINT NOT NULL,
    create_time BIGINT NOT NULL,
    delete_time BIGINT,
    purge_time BIGINT,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX activity_logs_to_purge ON activity_logs (tenant_id, purge_time) WHERE purge_time IS NOT NULL;

-- The entities each log names. An entity cannot be removed while a log names it (no
-- cascade): erasing an entity erases its logs first, in the same transaction.
CREATE TABLE activity_log_entities (
    tenant_id TEXT COLLATE "C" NOT NULL,
    activity_log_id TEXT COLLATE "C" NOT NULL,
    entity_id TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (tenant_id, activity_log_id, entity_id),
    FOREIGN KEY (tenant_id, activity_log_id) REFERENCES activity_logs (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, entity_id) REFERENCES entities (tenant_id, id)
);
-- An entity's logs: the list of one entity and the erasure of an entity start here.
CREATE INDEX activity_log_entities_by_entity ON activity_log_entities (tenant_id, entity_id, activity_log_id);
