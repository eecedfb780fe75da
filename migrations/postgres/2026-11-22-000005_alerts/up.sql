-- Alert types and alerts, with the entities each alert names. As in the first
-- migration: tenant_id leads every key and index, times are BIGINT microseconds,
-- compared text uses the "C" collation.

-- Alert types: read-only through the API; seeded per tenant.
CREATE TABLE alert_types (
    tenant_id TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    display_name TEXT COLLATE "C" NOT NULL,
    description TEXT NOT NULL,
    default_severity TEXT NOT NULL
        CHECK (default_severity IN ('LOW', 'MEDIUM', 'HIGH', 'CRITICAL')),
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX alert_types_by_display_name ON alert_types (tenant_id, display_name, id);
CREATE INDEX alert_types_by_create_time ON alert_types (tenant_id, create_time, id);

-- Alerts: the columns filters, orders and counts use, and the JSON body (title,
-- description, source, details, acknowledger). `alert_type` and `workspace` hold
-- resource names (`workspace` is empty when there is none), as filters compare them.
CREATE TABLE alerts (
    tenant_id TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    alert_type TEXT COLLATE "C" NOT NULL,
    workspace TEXT COLLATE "C" NOT NULL,
    severity TEXT NOT NULL CHECK (severity IN ('LOW', 'MEDIUM', 'HIGH', 'CRITICAL')),
    state TEXT NOT NULL CHECK (state IN ('ACTIVE', 'ACKNOWLEDGED', 'RESOLVED')),
    body TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    acknowledge_time BIGINT,
    delete_time BIGINT,
    purge_time BIGINT,
    PRIMARY KEY (tenant_id, id)
);
-- Newest first is the default order: these indexes serve it read backwards.
CREATE INDEX alerts_by_create_time ON alerts (tenant_id, create_time, id, delete_time);
CREATE INDEX alerts_by_update_time ON alerts (tenant_id, update_time, id, delete_time);
CREATE INDEX alerts_by_state ON alerts (tenant_id, state, create_time, id, delete_time);
CREATE INDEX alerts_by_severity ON alerts (tenant_id, severity, create_time, id, delete_time);
CREATE INDEX alerts_by_alert_type ON alerts (tenant_id, alert_type, create_time, id, delete_time);
CREATE INDEX alerts_by_workspace ON alerts (tenant_id, workspace, create_time, id, delete_time);
CREATE INDEX alerts_to_purge ON alerts (tenant_id, purge_time) WHERE purge_time IS NOT NULL;

-- One row per entity of an alert, in the order given (`entities` filters, and the
-- erasure of an entity, which removes it from every alert).
CREATE TABLE alert_entities (
    tenant_id TEXT COLLATE "C" NOT NULL,
    alert_id TEXT COLLATE "C" NOT NULL,
    entity TEXT COLLATE "C" NOT NULL,
    position BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, alert_id, entity),
    FOREIGN KEY (tenant_id, alert_id) REFERENCES alerts (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX alert_entities_by_entity ON alert_entities (tenant_id, entity, alert_id);

-- The default alert types of the tenants that exist already; a tenant provisioned
-- later gets them from its provisioning step (rics_domain::alert::DefaultAlertTypes),
-- with the same values (crates/domain/src/alert/model.rs, DEFAULT_ALERT_TYPES; the
-- storage contract tests compare the two). They are created at their tenant's creation
-- time, as for a new tenant. Their uid is derived, `{tenant}:{alert type}`, not a
-- random UUID: SQL has no portable way to make one, and the provisioning step derives
-- it the same way. It is unique and never reused (one type per id and tenant, and the
-- default types are never deleted).
INSERT INTO alert_types (tenant_id, id, uid, revision, display_name, description,
    default_severity, create_time, update_time)
SELECT t.id, d.id, t.id || ':' || d.id, 1, d.display_name, d.description,
    d.default_severity, t.create_time, t.create_time
FROM tenants t CROSS JOIN (
    SELECT 'individual-verification-failed' AS id,
        'Individual Verification Failed' AS display_name,
        'The identity of an individual could not be verified.' AS description,
        'MEDIUM' AS default_severity
    UNION ALL SELECT 'business-verification-failed', 'Business Verification Failed',
        'The registration or ownership details of a business could not be verified.',
        'MEDIUM'
    UNION ALL SELECT 'unusual-event', 'Unusual Event',
        'Activity that departs from the expected pattern of an entity needs review.',
        'MEDIUM'
    UNION ALL SELECT 'pep-and-sanctions-match-found', 'PEP and Sanctions Match Found',
        'Screening matched an entity against a list of politically exposed persons or sanctions.',
        'HIGH'
    UNION ALL SELECT 'adverse-media-match-found', 'Adverse Media Match Found',
        'Screening found negative news coverage about an entity.', 'MEDIUM'
    UNION ALL SELECT 'ongoing-customer-due-diligence-required',
        'Ongoing Customer Due Diligence Required',
        'An entity is due for its periodic customer due diligence review.', 'LOW'
    UNION ALL SELECT 'enhanced-due-diligence-required', 'Enhanced Due Diligence Required',
        'The risk of an entity calls for enhanced due diligence.', 'HIGH'
) d;
