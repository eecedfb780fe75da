DROP TRIGGER entity_search_deleted ON entities;
DROP TRIGGER entity_search_updated ON entities;
DROP TRIGGER entity_search_inserted ON entities;
DROP FUNCTION entity_search_deleted();
DROP FUNCTION entity_search_updated();
DROP FUNCTION entity_search_inserted();
DROP TABLE entity_search_changes;
