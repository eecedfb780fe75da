-- Identity documents of entities. As in the first migration: tenant_id leads every key
-- and index, times are BIGINT microseconds, text compares bytewise.

-- The columns filters, orders and counts use, and the JSON body (number, names, dates,
-- MRZ, files, ...). `entity` holds the entity's resource name, as filters compare it;
-- `issuing_country` is empty when there is none; `expiry_date` is `YYYY-MM-DD`, NULL
-- when there is none (it then matches no comparison). Documents go with their entity's
-- erasure, which removes them explicitly (a document's create checks the entity row
-- in its own transaction).
CREATE TABLE documents (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    entity TEXT NOT NULL,
    document_type TEXT NOT NULL CHECK (document_type IN ('PASSPORT', 'DRIVERS_LICENCE',
        'NATIONAL_ID', 'BIRTH_CERTIFICATE', 'MEDICARE_CARD', 'VISA')),
    issuing_country TEXT NOT NULL,
    expiry_date TEXT,
    body TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    delete_time BIGINT,
    purge_time BIGINT,
    PRIMARY KEY (tenant_id, id)
) WITHOUT ROWID;
CREATE INDEX documents_by_create_time ON documents (tenant_id, create_time, id, delete_time);
CREATE INDEX documents_by_update_time ON documents (tenant_id, update_time, id, delete_time);
-- An entity's documents: its list, and its erasure.
CREATE INDEX documents_by_entity ON documents (tenant_id, entity, create_time, id, delete_time);
CREATE INDEX documents_by_document_type ON documents (tenant_id, document_type, create_time, id, delete_time);
CREATE INDEX documents_by_issuing_country ON documents (tenant_id, issuing_country, create_time, id, delete_time);
CREATE INDEX documents_by_expiry_date ON documents (tenant_id, expiry_date, id, delete_time);
CREATE INDEX documents_to_purge ON documents (tenant_id, purge_time) WHERE purge_time IS NOT NULL;

-- Fixed planner statistics for the new table and its indexes (see the first
-- migration), for the same ten tenants: 1,000,000 documents, about one per entity,
-- of six types, from some 200 countries, a few thousand expiring on any one day.
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('documents', 'documents', '1000000 100000 1'),
    ('documents', 'documents_by_create_time', '1000000 100000 1 1 1'),
    ('documents', 'documents_by_update_time', '1000000 100000 1 1 1'),
    ('documents', 'documents_by_entity', '1000000 100000 2 1 1 1'),
    ('documents', 'documents_by_document_type', '1000000 100000 20000 1 1 1'),
    ('documents', 'documents_by_issuing_country', '1000000 100000 500 1 1 1'),
    ('documents', 'documents_by_expiry_date', '1000000 100000 30 1 1'),
    ('documents', 'documents_to_purge', '10000 1000 1');
