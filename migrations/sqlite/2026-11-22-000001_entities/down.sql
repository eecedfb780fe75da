DROP TABLE server_secrets;
DROP TABLE events;
DROP TABLE idempotency_keys;
DROP TABLE entity_relationships;
DROP TABLE entity_name_trigrams;
DROP TABLE entity_external_ids;
DROP TABLE entity_tags;
DROP TABLE entities;
