-- Tenants, OAuth 2.0 clients and users, the grants of the embedded authorization
-- server, its signing keys, and long-running operations. Conventions as in the first
-- migration: TEXT ids, BIGINT microsecond times, JSON as TEXT, enums as TEXT with a
-- CHECK, "C" collation on text keys.
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
    id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    display_name TEXT COLLATE "C" NOT NULL,
    tenant_type TEXT NOT NULL CHECK (tenant_type IN ('PARTNER', 'STANDARD')),
    parent TEXT COLLATE "C" REFERENCES tenants (id),
    state TEXT NOT NULL CHECK (state IN ('ACTIVE')),
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL
);
-- A partner's children, in the orders the list allows.
CREATE INDEX tenants_by_parent_create_time ON tenants (parent, create_time, id);
CREATE INDEX tenants_by_parent_display_name ON tenants (parent, display_name, id);

-- OAuth 2.0 clients. Scopes are space separated; redirect URIs a JSON array.
CREATE TABLE oauth_clients (
    client_id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    display_name TEXT NOT NULL,
    secret_hash TEXT,
    scopes TEXT NOT NULL,
    redirect_uris TEXT NOT NULL,
    create_time BIGINT NOT NULL
);
CREATE INDEX oauth_clients_by_tenant ON oauth_clients (tenant_id, client_id);

-- Users who sign in on the login page; usernames are stored lower case.
CREATE TABLE users (
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    user_id TEXT COLLATE "C" NOT NULL,
    username TEXT COLLATE "C" NOT NULL,
    display_name TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    scopes TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, user_id)
);
CREATE UNIQUE INDEX users_by_username ON users (username);

-- Authorization codes awaiting exchange, by the SHA-256 hex of the code.
CREATE TABLE authorization_codes (
    code_hash TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    client_id TEXT COLLATE "C" NOT NULL,
    tenant_id TEXT COLLATE "C" NOT NULL,
    user_id TEXT COLLATE "C" NOT NULL,
    display_name TEXT NOT NULL,
    redirect_uri TEXT NOT NULL,
    code_challenge TEXT NOT NULL,
    scopes TEXT NOT NULL,
    expire_time BIGINT NOT NULL
);
CREATE INDEX authorization_codes_by_expire_time ON authorization_codes (expire_time);

-- Refresh tokens, by the SHA-256 hex of the token. A spent token stays until it
-- expires, so that its reuse is recognised and revokes its family.
CREATE TABLE refresh_tokens (
    token_hash TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    family_id TEXT COLLATE "C" NOT NULL,
    client_id TEXT COLLATE "C" NOT NULL,
    tenant_id TEXT COLLATE "C" NOT NULL,
    subject TEXT COLLATE "C" NOT NULL,
    display_name TEXT NOT NULL,
    scopes TEXT NOT NULL,
    spent BOOLEAN NOT NULL,
    revoked BOOLEAN NOT NULL,
    expire_time BIGINT NOT NULL
);
CREATE INDEX refresh_tokens_by_family ON refresh_tokens (tenant_id, family_id);
CREATE INDEX refresh_tokens_by_expire_time ON refresh_tokens (expire_time);

-- The keys access tokens are signed with; the unretired one signs.
CREATE TABLE signing_keys (
    kid TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    algorithm TEXT NOT NULL,
    private_key TEXT NOT NULL,
    public_jwk TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    retire_time BIGINT
);

-- Long-running operations, owned by the tenant that polls them. `id` is the last
-- segment of `name`; error, response and metadata are JSON. Done: exactly one of
-- error and response; not done: neither.
CREATE TABLE operations (
    tenant_id TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    name TEXT COLLATE "C" NOT NULL,
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
);
CREATE INDEX operations_to_redact ON operations (tenant_id, redact_after)
    WHERE redact_after IS NOT NULL;
