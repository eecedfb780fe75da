-- Identity documents of entities. As in the first migration: tenant_id leads every key
-- and index, times are BIGINT microseconds, compared text uses the "C" collation.

-- The columns filters, orders and counts use, and the JSON body (number, names, dates,
-- MRZ, files, ...). `entity` holds the entity's resource name, as filters compare it;
-- `issuing_country` is empty when there is none; `expiry_date` is `YYYY-MM-DD`, NULL
-- when there is none (it then matches no comparison). Documents go with their entity's
-- erasure, which removes them explicitly (a document's create checks the entity row
-- in its own transaction).
CREATE TABLE documents (
    tenant_id TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    entity TEXT COLLATE "C" NOT NULL,
    document_type TEXT NOT NULL CHECK (document_type IN ('PASSPORT', 'DRIVERS_LICENCE',
        'NATIONAL_ID', 'BIRTH_CERTIFICATE', 'MEDICARE_CARD', 'VISA')),
    issuing_country TEXT COLLATE "C" NOT NULL,
    expiry_date TEXT COLLATE "C",
    body TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    delete_time BIGINT,
    purge_time BIGINT,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX documents_by_create_time ON documents (tenant_id, create_time, id, delete_time);
CREATE INDEX documents_by_update_time ON documents (tenant_id, update_time, id, delete_time);
-- An entity's documents: its list, and its erasure.
CREATE INDEX documents_by_entity ON documents (tenant_id, entity, create_time, id, delete_time);
CREATE INDEX documents_by_document_type ON documents (tenant_id, document_type, create_time, id, delete_time);
CREATE INDEX documents_by_issuing_country ON documents (tenant_id, issuing_country, create_time, id, delete_time);
CREATE INDEX documents_by_expiry_date ON documents (tenant_id, expiry_date, id, delete_time);
CREATE INDEX documents_to_purge ON documents (tenant_id, purge_time) WHERE purge_time IS NOT NULL;
