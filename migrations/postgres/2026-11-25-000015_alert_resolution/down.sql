ALTER TABLE alerts DROP COLUMN disposition;
ALTER TABLE alerts DROP COLUMN resolve_time;
