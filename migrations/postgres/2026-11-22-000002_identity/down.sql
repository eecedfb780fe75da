DROP TABLE operations;
DROP TABLE signing_keys;
DROP TABLE refresh_tokens;
DROP TABLE authorization_codes;
DROP TABLE users;
DROP TABLE oauth_clients;
DROP TABLE tenants;
