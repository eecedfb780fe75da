DROP TRIGGER entity_search_deleted;
DROP TRIGGER entity_search_updated;
DROP TRIGGER entity_search_inserted;
DROP TABLE entity_search_changes;
DELETE FROM sqlite_stat1 WHERE tbl = 'entity_search_changes';
