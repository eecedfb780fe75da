-- Entity names are searched in an in-memory index per tenant (crates/storage/src/
-- search_index.rs), so their trigram rows go: a create no longer writes some twenty rows
-- per name. The trigram count of each name stays in `entities.display_name_trigrams`,
-- which ranks a search combined with other conditions in SQL.
DROP TABLE entity_name_trigrams;

-- The change log of entity display names that every replica's in-memory search index
-- follows: a row for each entity inserted, renamed, soft-deleted or undeleted, or
-- removed, written by triggers so that no write path (a create, an update, `rics
-- import`'s COPY, an erasure) can leave it out. A reader takes the current entity row
-- (none when removed), so the log holds ids only.
--
-- `change_xid` is the writing transaction's id. A reader that read the log up to the
-- xmin of a snapshot (every transaction below it has ended, committed or not) next reads
-- from that xmin: a change committed after its read has an xid at least that high, so
-- nothing is missed in commit order, which a timestamp or a sequence would not give.
CREATE TABLE entity_search_changes (
    tenant_id TEXT COLLATE "C" NOT NULL,
    change_xid BIGINT NOT NULL,
    entity_id TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (tenant_id, change_xid, entity_id)
);

-- Statement triggers with transition tables: one INSERT per statement, so a COPY of
-- many rows logs them in one go.
CREATE FUNCTION entity_search_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO entity_search_changes (tenant_id, change_xid, entity_id)
    SELECT n.tenant_id, pg_current_xact_id()::text::bigint, n.id FROM new_rows n
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;

CREATE FUNCTION entity_search_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO entity_search_changes (tenant_id, change_xid, entity_id)
    SELECT n.tenant_id, pg_current_xact_id()::text::bigint, n.id
    FROM new_rows n JOIN old_rows o ON o.tenant_id = n.tenant_id AND o.id = n.id
    WHERE o.display_name IS DISTINCT FROM n.display_name
       OR o.delete_time IS DISTINCT FROM n.delete_time
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;

CREATE FUNCTION entity_search_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO entity_search_changes (tenant_id, change_xid, entity_id)
    SELECT o.tenant_id, pg_current_xact_id()::text::bigint, o.id FROM old_rows o
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;

CREATE TRIGGER entity_search_inserted AFTER INSERT ON entities
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION entity_search_inserted();
CREATE TRIGGER entity_search_updated AFTER UPDATE ON entities
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION entity_search_updated();
CREATE TRIGGER entity_search_deleted AFTER DELETE ON entities
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION entity_search_deleted();

-- The entities stored before this migration, as changes of this transaction.
INSERT INTO entity_search_changes (tenant_id, change_xid, entity_id)
SELECT tenant_id, pg_current_xact_id()::text::bigint, id FROM entities;
