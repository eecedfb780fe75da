DROP TRIGGER entity_tags_deleted ON entity_tags;
DROP TRIGGER entity_tags_inserted ON entity_tags;
DROP FUNCTION entity_tags_changed();

CREATE OR REPLACE FUNCTION entity_search_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO entity_search_changes (tenant_id, change_xid, entity_id)
    SELECT n.tenant_id, pg_current_xact_id()::text::bigint, n.id
    FROM new_rows n JOIN old_rows o ON o.tenant_id = n.tenant_id AND o.id = n.id
    WHERE o.display_name IS DISTINCT FROM n.display_name
       OR o.delete_time IS DISTINCT FROM n.delete_time
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;
