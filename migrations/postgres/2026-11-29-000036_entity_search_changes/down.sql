DROP TRIGGER entity_search_deleted ON entities;
DROP TRIGGER entity_search_updated ON entities;
DROP TRIGGER entity_search_inserted ON entities;
DROP FUNCTION entity_search_deleted();
DROP FUNCTION entity_search_updated();
DROP FUNCTION entity_search_inserted();
DROP TABLE entity_search_changes;

-- The trigram rows of the names stored meanwhile are not rebuilt: names written after
-- this migration are found again once rewritten.
CREATE TABLE entity_name_trigrams (
    tenant_id TEXT COLLATE "C" NOT NULL,
    entity_id TEXT COLLATE "C" NOT NULL,
    trigram TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (tenant_id, entity_id, trigram),
    FOREIGN KEY (tenant_id, entity_id) REFERENCES entities (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX entity_name_trigrams_by_trigram ON entity_name_trigrams (tenant_id, trigram, entity_id);
