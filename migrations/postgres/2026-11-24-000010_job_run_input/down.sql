ALTER TABLE job_tasks DROP COLUMN run_input;
