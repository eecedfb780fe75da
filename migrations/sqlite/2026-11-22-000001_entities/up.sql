-- Entities (queryable columns, with their JSON bodies apart), their searchable side
-- tables, relationships, idempotency keys, the event outbox and server secrets. Every tenant-owned table leads its primary key and its
-- indexes with tenant_id. Times are BIGINT microseconds since the Unix epoch (UTC).
-- Text compares bytewise (SQLite's BINARY collation), as on PostgreSQL with "C";
-- tables are WITHOUT ROWID so rows are clustered by their primary key.

CREATE TABLE entities (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    entity_type TEXT NOT NULL
        CHECK (entity_type IN ('INDIVIDUAL', 'COMPANY', 'TRUST', 'PARTNERSHIP', 'SOLE_PROPRIETOR')),
    display_name TEXT NOT NULL,
    display_name_trigrams BIGINT NOT NULL,
    risk_level TEXT CHECK (risk_level IN ('LOW', 'MEDIUM', 'HIGH')),
    screening_status TEXT
        CHECK (screening_status IN ('CLEAR', 'POTENTIAL_MATCH', 'CONFIRMED_MATCH')),
    verification_status TEXT
        CHECK (verification_status IN ('UNVERIFIED', 'PENDING', 'VERIFIED', 'FAILED')),
    legal_hold BOOLEAN NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    delete_time BIGINT,
    purge_time BIGINT,
    PRIMARY KEY (tenant_id, id)
) WITHOUT ROWID;
-- The list indexes end with delete_time so that counts of live entities (the
-- default) read only the index.
CREATE INDEX entities_by_create_time ON entities (tenant_id, create_time, id, delete_time);
CREATE INDEX entities_by_update_time ON entities (tenant_id, update_time, id, delete_time);
CREATE INDEX entities_by_display_name ON entities (tenant_id, display_name, id, delete_time);
CREATE INDEX entities_by_type ON entities (tenant_id, entity_type, create_time, id, delete_time);
CREATE INDEX entities_by_risk_level ON entities (tenant_id, risk_level, create_time, id, delete_time);
CREATE INDEX entities_by_screening_status ON entities (tenant_id, screening_status, create_time, id, delete_time);
CREATE INDEX entities_to_purge ON entities (tenant_id, purge_time) WHERE purge_time IS NOT NULL;

-- The resource JSON without its standard fields, apart from the columns above so that
-- filters and counts scan narrow rows.
CREATE TABLE entity_bodies (
    tenant_id TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, entity_id),
    FOREIGN KEY (tenant_id, entity_id) REFERENCES entities (tenant_id, id) ON DELETE CASCADE
) WITHOUT ROWID;

CREATE TABLE entity_tags (
    tenant_id TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    tag TEXT NOT NULL,
    PRIMARY KEY (tenant_id, entity_id, tag),
    FOREIGN KEY (tenant_id, entity_id) REFERENCES entities (tenant_id, id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX entity_tags_by_tag ON entity_tags (tenant_id, tag, entity_id);

CREATE TABLE entity_external_ids (
    tenant_id TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    id_key TEXT NOT NULL,
    id_value TEXT NOT NULL,
    PRIMARY KEY (tenant_id, entity_id, id_key),
    FOREIGN KEY (tenant_id, entity_id) REFERENCES entities (tenant_id, id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX entity_external_ids_by_key ON entity_external_ids (tenant_id, id_key, id_value, entity_id);

CREATE TABLE entity_name_trigrams (
    tenant_id TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    trigram TEXT NOT NULL,
    PRIMARY KEY (tenant_id, entity_id, trigram),
    FOREIGN KEY (tenant_id, entity_id) REFERENCES entities (tenant_id, id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX entity_name_trigrams_by_trigram ON entity_name_trigrams (tenant_id, trigram, entity_id);

CREATE TABLE entity_relationships (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    related_entity_id TEXT NOT NULL,
    relationship_type TEXT NOT NULL
        CHECK (relationship_type IN ('DIRECTOR', 'SHAREHOLDER', 'ULTIMATE_BENEFICIAL_OWNER',
            'EMPLOYEE', 'CUSTOMER', 'SPOUSE', 'RELATIVE', 'ASSOCIATE', 'OTHER')),
    ownership_percentage REAL,
    note TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, entity_id, related_entity_id, relationship_type),
    FOREIGN KEY (tenant_id, entity_id) REFERENCES entities (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, related_entity_id) REFERENCES entities (tenant_id, id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX entity_relationships_by_related ON entity_relationships (tenant_id, related_entity_id);

CREATE TABLE idempotency_keys (
    tenant_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    method TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    resource_name TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, request_id)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_by_time ON idempotency_keys (tenant_id, create_time);

CREATE TABLE events (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    entity_id TEXT,
    event_type TEXT NOT NULL,
    payload TEXT NOT NULL,
    creator TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, id)
) WITHOUT ROWID;
CREATE INDEX events_by_entity ON events (tenant_id, entity_id, create_time, id);

CREATE TABLE server_secrets (
    name TEXT NOT NULL PRIMARY KEY,
    secret TEXT NOT NULL,
    create_time BIGINT NOT NULL
) WITHOUT ROWID;

-- Fixed planner statistics. SQLite's sampled ANALYZE (what PRAGMA optimize runs)
-- misjudges indexes that lead with tenant_id (one tenant holds most rows) and then
-- scans a tenant's whole trigram table for a fuzzy search. These figures describe a
-- typical tenant at scale (100,000 entities of 10 tenants, about 20 name trigrams
-- and one or two tags each), so that plans do not depend on sampling. Each row:
-- rows in the index, then the average rows per distinct value of its first 1, 2, ...
-- columns. A migration that adds an index adds its row.
ANALYZE sqlite_schema;
DELETE FROM sqlite_stat1;
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('entities', 'entities', '1000000 100000 1'),
    ('entities', 'entities_by_create_time', '1000000 100000 1 1 1'),
    ('entities', 'entities_by_update_time', '1000000 100000 1 1 1'),
    ('entities', 'entities_by_display_name', '1000000 100000 3 1 1'),
    ('entities', 'entities_by_type', '1000000 100000 20000 1 1 1'),
    ('entities', 'entities_by_risk_level', '1000000 100000 25000 1 1 1'),
    ('entities', 'entities_by_screening_status', '1000000 100000 25000 1 1 1'),
    ('entities', 'entities_to_purge', '10000 1000 1'),
    ('entity_bodies', 'entity_bodies', '1000000 100000 1'),
    ('entity_tags', 'entity_tags', '1500000 150000 2 1'),
    ('entity_tags', 'entity_tags_by_tag', '1500000 150000 5000 1'),
    ('entity_external_ids', 'entity_external_ids', '1000000 100000 1 1'),
    ('entity_external_ids', 'entity_external_ids_by_key', '1000000 100000 50000 1 1'),
    ('entity_name_trigrams', 'entity_name_trigrams', '20000000 2000000 20 1'),
    ('entity_name_trigrams', 'entity_name_trigrams_by_trigram', '20000000 2000000 500 1'),
    ('entity_relationships', 'entity_relationships', '100000 10000 1'),
    ('entity_relationships', 'sqlite_autoindex_entity_relationships_1', '100000 10000 2 1 1'),
    ('entity_relationships', 'entity_relationships_by_related', '100000 10000 2'),
    ('idempotency_keys', 'idempotency_keys', '100000 10000 1'),
    ('idempotency_keys', 'idempotency_keys_by_time', '100000 10000 1'),
    ('events', 'events', '5000000 500000 1'),
    ('events', 'events_by_entity', '5000000 500000 10 1 1');
