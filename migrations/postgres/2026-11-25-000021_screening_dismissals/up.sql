-- The dismissal memory of screening: a match an analyst reviewed as FALSE_POSITIVE is
-- remembered for its entity, by list entry and a hash of the entry as listed, so later
-- screens show it as previously dismissed and raise no alert for it until the entry
-- changes. A TRUE_POSITIVE review of the entry forgets it; the entity's erasure removes
-- its rows.
CREATE TABLE screening_dismissals (
    tenant_id TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    dataset TEXT NOT NULL,
    list_entry TEXT NOT NULL,
    record_hash TEXT NOT NULL,
    job TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    dismiss_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, entity_id, dataset, list_entry)
);
