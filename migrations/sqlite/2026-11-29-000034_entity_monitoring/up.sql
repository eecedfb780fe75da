-- An entity's `monitoring` as a column beside its body, so that entity filters can use
-- it and ongoing monitoring scans only the monitored entities (it reads their bodies
-- anyway): TRUE unless the entity turned monitoring off, which its body then says as
-- `"monitoring":false` (the body keeps the field). Beside the body rather than in
-- `entities`, whose row has as many columns as Diesel's tables may. No index: almost
-- every entity is monitored, and the scan reads them in primary key order.
ALTER TABLE entity_bodies ADD COLUMN monitoring BOOLEAN NOT NULL DEFAULT TRUE;
UPDATE entity_bodies SET monitoring = FALSE
WHERE body LIKE '%"monitoring":false%' AND json_extract(body, '$.monitoring') = 0;
