-- `riskDetails.riskStatus` as a column, so that entity filters can use it: `ACTIVE`
-- for a current rating, `OUTDATED` for one the entity has changed since, NULL when
-- unrated. Earlier versions wrote `RATED` in the bodies, which reads as `ACTIVE`; the
-- bodies are left as they are. No index, as for verification_status: two values of
-- low selectivity, filtered with other conditions.
ALTER TABLE entities ADD COLUMN risk_status TEXT CHECK (risk_status IN ('ACTIVE', 'OUTDATED'));
UPDATE entities SET risk_status = (
    SELECT CASE json_extract(b.body, '$.riskDetails.riskStatus')
        WHEN 'RATED' THEN 'ACTIVE'
        WHEN 'ACTIVE' THEN 'ACTIVE'
        WHEN 'OUTDATED' THEN 'OUTDATED'
    END
    FROM entity_bodies b
    WHERE b.tenant_id = entities.tenant_id AND b.entity_id = entities.id
);
