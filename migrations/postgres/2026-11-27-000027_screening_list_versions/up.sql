-- Ongoing monitoring of the screening lists. `screening_list_versions` holds, per
-- dataset, the version every replica last agreed on: its content hash and the hash of
-- each record's content (a JSON object, record id to hash), from which the next change
-- computes its delta. A replica that loads another version replaces the row only if it
-- still holds the version it read (compare and swap), and in the same transaction
-- records the change in `screening_list_changes` and queues its re-screen in
-- `job_tasks` for every tenant: with several replicas, one records it and one
-- re-screen runs. Neither table belongs to a tenant.
CREATE TABLE screening_list_versions (
    dataset TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    content_hash TEXT NOT NULL,
    record_hashes TEXT NOT NULL,
    update_time BIGINT NOT NULL
);
CREATE TABLE screening_list_changes (
    dataset TEXT COLLATE "C" NOT NULL,
    old_version TEXT NOT NULL,
    new_version TEXT NOT NULL,
    added BIGINT NOT NULL,
    changed BIGINT NOT NULL,
    removed BIGINT NOT NULL,
    change_time BIGINT NOT NULL,
    PRIMARY KEY (dataset, old_version, new_version)
);
