-- The in-memory index of a tenant's entities also keeps each entity's type and tags
-- (see the PostgreSQL migration): the change log records a change of type and every
-- tag row written or removed.
DROP TRIGGER entity_search_updated;
CREATE TRIGGER entity_search_updated
AFTER UPDATE OF display_name, delete_time, entity_type ON entities
WHEN OLD.display_name IS NOT NEW.display_name OR OLD.delete_time IS NOT NEW.delete_time
    OR OLD.entity_type IS NOT NEW.entity_type
BEGIN
    INSERT INTO entity_search_changes (tenant_id, change_xid, entity_id)
    VALUES (NEW.tenant_id, (SELECT coalesce(max(c.change_xid), 0) + 1
        FROM entity_search_changes c WHERE c.tenant_id = NEW.tenant_id), NEW.id);
END;

CREATE TRIGGER entity_tags_inserted AFTER INSERT ON entity_tags
BEGIN
    INSERT INTO entity_search_changes (tenant_id, change_xid, entity_id)
    VALUES (NEW.tenant_id, (SELECT coalesce(max(c.change_xid), 0) + 1
        FROM entity_search_changes c WHERE c.tenant_id = NEW.tenant_id), NEW.entity_id);
END;
CREATE TRIGGER entity_tags_deleted AFTER DELETE ON entity_tags
BEGIN
    INSERT INTO entity_search_changes (tenant_id, change_xid, entity_id)
    VALUES (OLD.tenant_id, (SELECT coalesce(max(c.change_xid), 0) + 1
        FROM entity_search_changes c WHERE c.tenant_id = OLD.tenant_id), OLD.entity_id);
END;
