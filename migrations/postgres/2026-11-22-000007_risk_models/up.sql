-- Risk models: the versions of each tenant's risk model, immutable once stored. As in
-- the first migration: tenant_id leads every key and index, times are BIGINT
-- microseconds since the Unix epoch (UTC). `body` is the model's JSON (factors,
-- weights, thresholds, the dated country list); versions count 1, 2, ... per tenant.
CREATE TABLE risk_models (
    tenant_id TEXT COLLATE "C" NOT NULL,
    version BIGINT NOT NULL CHECK (version >= 1),
    uid TEXT NOT NULL,
    body TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, version)
);
CREATE INDEX risk_models_by_create_time ON risk_models (tenant_id, create_time, version);
