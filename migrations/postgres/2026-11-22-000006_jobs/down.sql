DROP TABLE job_tasks;
DROP TABLE jobs;
