-- Five-level risk models: an entity may be rated CRITICAL or EXTREME.
-- SQLite cannot alter a CHECK, so the table is rebuilt: the old one is renamed, a new
-- one takes its name and rows, and the old one is dropped. Meanwhile foreign keys are
-- off and renames are of the legacy kind, so that the tables referencing `entities`
-- (bodies, tags, names, relationships, activity logs) keep naming `entities`, and
-- dropping the old table cascades to none of them. PRAGMA foreign_keys is a no-op
-- inside a transaction, so this migration runs outside diesel's (metadata.toml) and
-- makes its own around the rebuild.
PRAGMA foreign_keys = OFF;
PRAGMA legacy_alter_table = ON;
BEGIN;
ALTER TABLE entities RENAME TO entities_before;
CREATE TABLE entities (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    entity_type TEXT NOT NULL
        CHECK (entity_type IN ('INDIVIDUAL', 'COMPANY', 'TRUST', 'PARTNERSHIP', 'SOLE_PROPRIETOR')),
    display_name TEXT NOT NULL,
    display_name_trigrams BIGINT NOT NULL,
    risk_level TEXT CHECK (risk_level IN ('LOW', 'MEDIUM', 'HIGH', 'CRITICAL', 'EXTREME')),
    screening_status TEXT
        CHECK (screening_status IN ('CLEAR', 'POTENTIAL_MATCH', 'CONFIRMED_MATCH')),
    verification_status TEXT
        CHECK (verification_status IN ('UNVERIFIED', 'PENDING', 'VERIFIED', 'FAILED')),
    legal_hold BOOLEAN NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    delete_time BIGINT,
    purge_time BIGINT,
    risk_status TEXT CHECK (risk_status IN ('ACTIVE', 'OUTDATED')),
    PRIMARY KEY (tenant_id, id)
) WITHOUT ROWID;
INSERT INTO entities (tenant_id, id, uid, revision, entity_type, display_name, display_name_trigrams, risk_level, screening_status, verification_status, legal_hold, create_time, update_time, delete_time, purge_time, risk_status)
    SELECT tenant_id, id, uid, revision, entity_type, display_name, display_name_trigrams, risk_level, screening_status, verification_status, legal_hold, create_time, update_time, delete_time, purge_time, risk_status FROM entities_before;
DROP TABLE entities_before;
CREATE INDEX entities_by_create_time ON entities (tenant_id, create_time, id, delete_time);
CREATE INDEX entities_by_update_time ON entities (tenant_id, update_time, id, delete_time);
CREATE INDEX entities_by_display_name ON entities (tenant_id, display_name, id, delete_time);
CREATE INDEX entities_by_type ON entities (tenant_id, entity_type, create_time, id, delete_time);
CREATE INDEX entities_by_risk_level ON entities (tenant_id, risk_level, create_time, id, delete_time);
CREATE INDEX entities_by_screening_status ON entities (tenant_id, screening_status, create_time, id, delete_time);
CREATE INDEX entities_to_purge ON entities (tenant_id, purge_time) WHERE purge_time IS NOT NULL;
-- The fixed statistics (sqlite_stat1) are kept by table and index name, so they hold
-- for the new table and its indexes as they are.
COMMIT;
PRAGMA legacy_alter_table = OFF;
PRAGMA foreign_keys = ON;
