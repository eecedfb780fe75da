-- Risk models: the versions of each tenant's risk model, immutable once stored. As in
-- the first migration: tenant_id leads every key and index, times are BIGINT
-- microseconds, text compares bytewise. `body` is the model's JSON (factors, weights,
-- thresholds, the dated country list); versions count 1, 2, ... per tenant.
CREATE TABLE risk_models (
    tenant_id TEXT NOT NULL,
    version BIGINT NOT NULL CHECK (version >= 1),
    uid TEXT NOT NULL,
    body TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, version)
) WITHOUT ROWID;
CREATE INDEX risk_models_by_create_time ON risk_models (tenant_id, create_time, version);

-- Fixed planner statistics (see the first migration), for ten tenants with about five
-- versions each.
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('risk_models', 'risk_models', '50 5 1'),
    ('risk_models', 'risk_models_by_create_time', '50 5 1 1');
