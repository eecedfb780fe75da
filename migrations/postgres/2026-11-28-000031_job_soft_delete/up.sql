-- Soft delete of jobs (issue 18): the jobs of a family that takes PATCH, DELETE and
-- :undelete (individualEntityVerificationJobs) are soft-deleted (`delete_time`) and
-- purged after the retention (`purge_time`); every other job keeps both NULL.
ALTER TABLE jobs ADD COLUMN delete_time BIGINT;
ALTER TABLE jobs ADD COLUMN purge_time BIGINT;
CREATE INDEX jobs_to_purge ON jobs (tenant_id, purge_time) WHERE purge_time IS NOT NULL;
