ALTER TABLE entities DROP COLUMN risk_status;
