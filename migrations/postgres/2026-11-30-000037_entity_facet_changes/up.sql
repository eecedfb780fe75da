-- The in-memory index of a tenant's entities also keeps each entity's type and tags,
-- and answers lists filtered by them alone (crates/storage/src/search_index.rs), so the
-- change log it follows records a change of type and every tag row written or removed.

CREATE OR REPLACE FUNCTION entity_search_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO entity_search_changes (tenant_id, change_xid, entity_id)
    SELECT n.tenant_id, pg_current_xact_id()::text::bigint, n.id
    FROM new_rows n JOIN old_rows o ON o.tenant_id = n.tenant_id AND o.id = n.id
    WHERE o.display_name IS DISTINCT FROM n.display_name
       OR o.delete_time IS DISTINCT FROM n.delete_time
       OR o.entity_type IS DISTINCT FROM n.entity_type
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;

-- One function for both triggers: each names its transition table `changed_rows`.
CREATE FUNCTION entity_tags_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO entity_search_changes (tenant_id, change_xid, entity_id)
    SELECT t.tenant_id, pg_current_xact_id()::text::bigint, t.entity_id FROM changed_rows t
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;

CREATE TRIGGER entity_tags_inserted AFTER INSERT ON entity_tags
    REFERENCING NEW TABLE AS changed_rows
    FOR EACH STATEMENT EXECUTE FUNCTION entity_tags_changed();
CREATE TRIGGER entity_tags_deleted AFTER DELETE ON entity_tags
    REFERENCING OLD TABLE AS changed_rows
    FOR EACH STATEMENT EXECUTE FUNCTION entity_tags_changed();
