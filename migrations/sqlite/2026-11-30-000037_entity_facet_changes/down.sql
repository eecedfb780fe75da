DROP TRIGGER entity_tags_deleted;
DROP TRIGGER entity_tags_inserted;
DROP TRIGGER entity_search_updated;
CREATE TRIGGER entity_search_updated AFTER UPDATE OF display_name, delete_time ON entities
WHEN OLD.display_name IS NOT NEW.display_name OR OLD.delete_time IS NOT NEW.delete_time
BEGIN
    INSERT INTO entity_search_changes (tenant_id, change_xid, entity_id)
    VALUES (NEW.tenant_id, (SELECT coalesce(max(c.change_xid), 0) + 1
        FROM entity_search_changes c WHERE c.tenant_id = NEW.tenant_id), NEW.id);
END;
