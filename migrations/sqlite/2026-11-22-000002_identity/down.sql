UPDATE sqlite_stat1 SET idx = 'sqlite_autoindex_entity_relationships_1'
    WHERE tbl = 'entity_relationships' AND idx = 'sqlite_autoindex_entity_relationships_2';
DELETE FROM sqlite_stat1 WHERE tbl IN ('tenants', 'oauth_clients', 'users',
    'authorization_codes', 'refresh_tokens', 'signing_keys', 'operations', 'server_secrets');
DROP TABLE operations;
DROP TABLE signing_keys;
DROP TABLE refresh_tokens;
DROP TABLE authorization_codes;
DROP TABLE users;
DROP TABLE oauth_clients;
DROP TABLE tenants;
