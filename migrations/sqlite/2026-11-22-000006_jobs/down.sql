DELETE FROM sqlite_stat1 WHERE tbl IN ('jobs', 'job_tasks');
DROP TABLE job_tasks;
DROP TABLE jobs;
