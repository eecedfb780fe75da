DROP TRIGGER entity_search_deleted;
DROP TRIGGER entity_search_updated;
DROP TRIGGER entity_search_inserted;
DROP TABLE entity_search_changes;
DELETE FROM sqlite_stat1 WHERE tbl = 'entity_search_changes';

-- The trigram rows of the names stored meanwhile are not rebuilt (see PostgreSQL's).
CREATE TABLE entity_name_trigrams (
    tenant_id TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    trigram TEXT NOT NULL,
    PRIMARY KEY (tenant_id, entity_id, trigram),
    FOREIGN KEY (tenant_id, entity_id) REFERENCES entities (tenant_id, id) ON DELETE CASCADE
) WITHOUT ROWID;
CREATE INDEX entity_name_trigrams_by_trigram ON entity_name_trigrams (tenant_id, trigram, entity_id);
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('entity_name_trigrams', 'entity_name_trigrams', '20000000 2000000 20 1'),
    ('entity_name_trigrams', 'entity_name_trigrams_by_trigram', '20000000 2000000 500 1');
