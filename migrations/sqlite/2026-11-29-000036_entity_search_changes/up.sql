-- Entity names are searched in an in-memory index per tenant, so their trigram rows go
-- (see the PostgreSQL migration).
DROP TABLE entity_name_trigrams;
DELETE FROM sqlite_stat1 WHERE tbl = 'entity_name_trigrams';

-- The change log of entity display names that the in-memory search index follows (see
-- the PostgreSQL migration): a row for each entity inserted, renamed, soft-deleted or
-- undeleted, or removed, written by triggers. SQLite's writers take turns, so a counter
-- per tenant (one more than the tenant's last change) orders the changes as they
-- commit; a reader reads from one past the last change it saw.
CREATE TABLE entity_search_changes (
    tenant_id TEXT NOT NULL,
    change_xid BIGINT NOT NULL,
    entity_id TEXT NOT NULL,
    PRIMARY KEY (tenant_id, change_xid, entity_id)
) WITHOUT ROWID;

CREATE TRIGGER entity_search_inserted AFTER INSERT ON entities
BEGIN
    INSERT INTO entity_search_changes (tenant_id, change_xid, entity_id)
    VALUES (NEW.tenant_id, (SELECT coalesce(max(c.change_xid), 0) + 1
        FROM entity_search_changes c WHERE c.tenant_id = NEW.tenant_id), NEW.id);
END;
CREATE TRIGGER entity_search_updated AFTER UPDATE OF display_name, delete_time ON entities
WHEN OLD.display_name IS NOT NEW.display_name OR OLD.delete_time IS NOT NEW.delete_time
BEGIN
    INSERT INTO entity_search_changes (tenant_id, change_xid, entity_id)
    VALUES (NEW.tenant_id, (SELECT coalesce(max(c.change_xid), 0) + 1
        FROM entity_search_changes c WHERE c.tenant_id = NEW.tenant_id), NEW.id);
END;
CREATE TRIGGER entity_search_deleted AFTER DELETE ON entities
BEGIN
    INSERT INTO entity_search_changes (tenant_id, change_xid, entity_id)
    VALUES (OLD.tenant_id, (SELECT coalesce(max(c.change_xid), 0) + 1
        FROM entity_search_changes c WHERE c.tenant_id = OLD.tenant_id), OLD.id);
END;

-- The entities stored before this migration, numbered in id order.
INSERT INTO entity_search_changes (tenant_id, change_xid, entity_id)
SELECT tenant_id, row_number() OVER (PARTITION BY tenant_id ORDER BY id), id FROM entities;

-- Fixed planner statistics (see the first migration): a change per entity.
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('entity_search_changes', 'entity_search_changes', '1000000 100000 1 1');
