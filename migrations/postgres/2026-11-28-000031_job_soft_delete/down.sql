DROP INDEX jobs_to_purge;
ALTER TABLE jobs DROP COLUMN purge_time;
ALTER TABLE jobs DROP COLUMN delete_time;
