-- What a `:run` gave for that run only (an ID verification run's `idType`), as JSON
-- text, carried by the run's task to the worker; NULL when nothing.
ALTER TABLE job_tasks ADD COLUMN run_input TEXT;
