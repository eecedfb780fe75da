-- Alerts are resolved (`:resolve`) with a disposition: `resolveTime` and `disposition`
-- are columns, for list filters; `resolver` and `resolveComment` stay in the body.
-- A NULL disposition is the zero value (an alert not resolved).
ALTER TABLE alerts ADD COLUMN resolve_time BIGINT;
ALTER TABLE alerts ADD COLUMN disposition TEXT;
