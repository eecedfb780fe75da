-- Back to three levels: the levels above HIGH become HIGH in the column (the bodies keep
-- what was rated).
UPDATE entities SET risk_level = 'HIGH' WHERE risk_level IN ('CRITICAL', 'EXTREME');
ALTER TABLE entities DROP CONSTRAINT entities_risk_level_check;
ALTER TABLE entities ADD CONSTRAINT entities_risk_level_check
    CHECK (risk_level IN ('LOW', 'MEDIUM', 'HIGH'));
