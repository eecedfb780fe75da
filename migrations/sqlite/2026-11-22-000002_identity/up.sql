-- Tenants, OAuth 2.0 clients and users, the grants of the embedded authorization
-- server, its signing keys, and long-running operations. Conventions as in the first
-- migration: TEXT ids, BIGINT microsecond times, JSON as TEXT, enums as TEXT with a
-- CHECK, tables WITHOUT ROWID (clustered by their primary key); text compares
-- bytewise (BINARY), as on PostgreSQL with "C".
--
-- Tenancy: `users` and `operations` lead their primary keys and indexes with
-- tenant_id, and `tenants` leads its list indexes with `parent` (the owning partner).
-- The exceptions are lookups made before the caller's tenant is known, by the
-- authorization server: a client by its client id (`oauth_clients`), a user by the
-- username typed on the login page (`users_by_username`), and a grant by the hash of
-- the code or token presented (`authorization_codes`, `refresh_tokens`), as well as
-- the sweeps of expired grants across all tenants (the `*_by_expire_time` indexes).
-- These keys are globally unique (client ids and usernames by rule, hashes of random
-- secrets by construction); each row still records its tenant, and every other index
-- of these tables leads with tenant_id. crates/storage/tests/contract/migrations.rs lists
-- the same exceptions.

-- A tenant; `parent` is the id of the partner tenant that created it.
CREATE TABLE tenants (
    id TEXT NOT NULL PRIMARY KEY,
    display_name TEXT NOT NULL,
    tenant_type TEXT NOT NULL CHECK (tenant_type IN ('PARTNER', 'STANDARD')),
    parent TEXT REFERENCES tenants (id),
    state TEXT NOT NULL CHECK (state IN ('ACTIVE')),
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL
) WITHOUT ROWID;
-- A partner's children, in the orders the list allows.
CREATE INDEX tenants_by_parent_create_time ON tenants (parent, create_time, id);
CREATE INDEX tenants_by_parent_display_name ON tenants (parent, display_name, id);

-- OAuth 2.0 clients. Scopes are space separated; redirect URIs a JSON array.
CREATE TABLE oauth_clients (
    client_id TEXT NOT NULL PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    display_name TEXT NOT NULL,
    secret_hash TEXT,
    scopes TEXT NOT NULL,
    redirect_uris TEXT NOT NULL,
    create_time BIGINT NOT NULL
) WITHOUT ROWID;
CREATE INDEX oauth_clients_by_tenant ON oauth_clients (tenant_id, client_id);

-- Users who sign in on the login page; usernames are stored lower case.
CREATE TABLE users (
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    user_id TEXT NOT NULL,
    username TEXT NOT NULL,
    display_name TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    scopes TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, user_id)
) WITHOUT ROWID;
CREATE UNIQUE INDEX users_by_username ON users (username);

-- Authorization codes awaiting exchange, by the SHA-256 hex of the code.
CREATE TABLE authorization_codes (
    code_hash TEXT NOT NULL PRIMARY KEY,
    client_id TEXT NOT NULL,
    tenant_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    display_name TEXT NOT NULL,
    redirect_uri TEXT NOT NULL,
    code_challenge TEXT NOT NULL,
    scopes TEXT NOT NULL,
    expire_time BIGINT NOT NULL
) WITHOUT ROWID;
CREATE INDEX authorization_codes_by_expire_time ON authorization_codes (expire_time);

-- Refresh tokens, by the SHA-256 hex of the token. A spent token stays until it
-- expires, so that its reuse is recognised and revokes its family.
CREATE TABLE refresh_tokens (
    token_hash TEXT NOT NULL PRIMARY KEY,
    family_id TEXT NOT NULL,
    client_id TEXT NOT NULL,
    tenant_id TEXT NOT NULL,
    subject TEXT NOT NULL,
    display_name TEXT NOT NULL,
    scopes TEXT NOT NULL,
    spent BOOLEAN NOT NULL,
    revoked BOOLEAN NOT NULL,
    expire_time BIGINT NOT NULL
) WITHOUT ROWID;
CREATE INDEX refresh_tokens_by_family ON refresh_tokens (tenant_id, family_id);
CREATE INDEX refresh_tokens_by_expire_time ON refresh_tokens (expire_time);

-- The keys access tokens are signed with; the unretired one signs.
CREATE TABLE signing_keys (
    kid TEXT NOT NULL PRIMARY KEY,
    algorithm TEXT NOT NULL,
    private_key TEXT NOT NULL,
    public_jwk TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    retire_time BIGINT
) WITHOUT ROWID;

-- Long-running operations, owned by the tenant that polls them. `id` is the last
-- segment of `name`; error, response and metadata are JSON. Done: exactly one of
-- error and response; not done: neither.
CREATE TABLE operations (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    done BOOLEAN NOT NULL,
    error TEXT,
    response TEXT,
    metadata TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    redact_after BIGINT,
    PRIMARY KEY (tenant_id, id),
    CHECK (CASE WHEN done THEN (error IS NULL) <> (response IS NULL)
        ELSE error IS NULL AND response IS NULL END)
) WITHOUT ROWID;
CREATE INDEX operations_to_redact ON operations (tenant_id, redact_after)
    WHERE redact_after IS NOT NULL;

-- Fixed planner statistics for the new tables and indexes (see the first migration),
-- for the same ten tenants: a few clients and users each, short-lived codes, refresh
-- tokens in families of a few, a handful of operations awaiting redaction.
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('tenants', 'tenants', '10 1'),
    ('tenants', 'tenants_by_parent_create_time', '10 5 1 1'),
    ('tenants', 'tenants_by_parent_display_name', '10 5 1 1'),
    ('oauth_clients', 'oauth_clients', '20 1'),
    ('oauth_clients', 'oauth_clients_by_tenant', '20 2 1'),
    ('users', 'users', '100 10 1'),
    ('users', 'users_by_username', '100 1'),
    ('authorization_codes', 'authorization_codes', '100 1'),
    ('authorization_codes', 'authorization_codes_by_expire_time', '100 1'),
    ('refresh_tokens', 'refresh_tokens', '10000 1'),
    ('refresh_tokens', 'refresh_tokens_by_family', '10000 1000 5'),
    ('refresh_tokens', 'refresh_tokens_by_expire_time', '10000 1'),
    ('signing_keys', 'signing_keys', '3 1'),
    ('operations', 'operations', '100 10 1'),
    ('operations', 'operations_to_redact', '10 1 1');

-- Corrections to the first migration's statistics: the UNIQUE constraint of
-- entity_relationships is its second automatic index (the primary key is the first),
-- and server_secrets had no row.
UPDATE sqlite_stat1 SET idx = 'sqlite_autoindex_entity_relationships_2'
    WHERE tbl = 'entity_relationships' AND idx = 'sqlite_autoindex_entity_relationships_1';
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('server_secrets', 'server_secrets', '1 1');
