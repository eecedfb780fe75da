-- Five-level risk models: an entity may be rated CRITICAL or EXTREME.
ALTER TABLE entities DROP CONSTRAINT entities_risk_level_check;
ALTER TABLE entities ADD CONSTRAINT entities_risk_level_check
    CHECK (risk_level IN ('LOW', 'MEDIUM', 'HIGH', 'CRITICAL', 'EXTREME'));
