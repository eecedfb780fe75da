-- Entities (queryable columns, with their JSON bodies apart), their searchable side
-- tables, relationships, idempotency keys, the event outbox and server secrets. Every tenant-owned table leads its primary key and its
-- indexes with tenant_id. Times are BIGINT microseconds since the Unix epoch (UTC).
-- Text that is compared or ordered uses the "C" collation, so both backends order
-- bytewise and identically.

CREATE TABLE entities (
    tenant_id TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    entity_type TEXT NOT NULL
        CHECK (entity_type IN ('INDIVIDUAL', 'COMPANY', 'TRUST', 'PARTNERSHIP', 'SOLE_PROPRIETOR')),
    display_name TEXT COLLATE "C" NOT NULL,
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
);
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
    tenant_id TEXT COLLATE "C" NOT NULL,
    entity_id TEXT COLLATE "C" NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (tenant_id, entity_id),
    FOREIGN KEY (tenant_id, entity_id) REFERENCES entities (tenant_id, id) ON DELETE CASCADE
);

CREATE TABLE entity_tags (
    tenant_id TEXT COLLATE "C" NOT NULL,
    entity_id TEXT COLLATE "C" NOT NULL,
    tag TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (tenant_id, entity_id, tag),
    FOREIGN KEY (tenant_id, entity_id) REFERENCES entities (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX entity_tags_by_tag ON entity_tags (tenant_id, tag, entity_id);

CREATE TABLE entity_external_ids (
    tenant_id TEXT COLLATE "C" NOT NULL,
    entity_id TEXT COLLATE "C" NOT NULL,
    id_key TEXT COLLATE "C" NOT NULL,
    id_value TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (tenant_id, entity_id, id_key),
    FOREIGN KEY (tenant_id, entity_id) REFERENCES entities (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX entity_external_ids_by_key ON entity_external_ids (tenant_id, id_key, id_value, entity_id);

CREATE TABLE entity_name_trigrams (
    tenant_id TEXT COLLATE "C" NOT NULL,
    entity_id TEXT COLLATE "C" NOT NULL,
    trigram TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (tenant_id, entity_id, trigram),
    FOREIGN KEY (tenant_id, entity_id) REFERENCES entities (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX entity_name_trigrams_by_trigram ON entity_name_trigrams (tenant_id, trigram, entity_id);

CREATE TABLE entity_relationships (
    tenant_id TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    entity_id TEXT COLLATE "C" NOT NULL,
    related_entity_id TEXT COLLATE "C" NOT NULL,
    relationship_type TEXT NOT NULL
        CHECK (relationship_type IN ('DIRECTOR', 'SHAREHOLDER', 'ULTIMATE_BENEFICIAL_OWNER',
            'EMPLOYEE', 'CUSTOMER', 'SPOUSE', 'RELATIVE', 'ASSOCIATE', 'OTHER')),
    ownership_percentage DOUBLE PRECISION,
    note TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, entity_id, related_entity_id, relationship_type),
    FOREIGN KEY (tenant_id, entity_id) REFERENCES entities (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, related_entity_id) REFERENCES entities (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX entity_relationships_by_related ON entity_relationships (tenant_id, related_entity_id);

CREATE TABLE idempotency_keys (
    tenant_id TEXT COLLATE "C" NOT NULL,
    request_id TEXT COLLATE "C" NOT NULL,
    method TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    resource_name TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, request_id)
);
CREATE INDEX idempotency_keys_by_time ON idempotency_keys (tenant_id, create_time);

CREATE TABLE events (
    tenant_id TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    entity_id TEXT COLLATE "C",
    event_type TEXT NOT NULL,
    payload TEXT NOT NULL,
    creator TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX events_by_entity ON events (tenant_id, entity_id, create_time, id);

CREATE TABLE server_secrets (
    name TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    secret TEXT NOT NULL,
    create_time BIGINT NOT NULL
);
