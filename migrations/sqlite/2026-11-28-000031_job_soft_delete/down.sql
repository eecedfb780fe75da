DELETE FROM sqlite_stat1 WHERE idx = 'jobs_to_purge';
DROP INDEX jobs_to_purge;
ALTER TABLE jobs DROP COLUMN purge_time;
ALTER TABLE jobs DROP COLUMN delete_time;
