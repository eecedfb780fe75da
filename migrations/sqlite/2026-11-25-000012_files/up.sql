-- Files, their content in the database store, and the ledger of content to remove. As
-- in the first migration: tenant_id leads every key and index, times are BIGINT
-- microseconds, text compares bytewise.

-- File metadata, keyed by the parent's name (`entities/{e}`) and the file id. `uid`
-- is the key of the file's content in its store. Files go with their entity's erasure,
-- which removes them explicitly (a file's create checks the entity row in its own
-- transaction).
CREATE TABLE files (
    tenant_id TEXT NOT NULL,
    parent TEXT NOT NULL,
    id TEXT NOT NULL,
    uid TEXT NOT NULL,
    revision BIGINT NOT NULL,
    display_name TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size_bytes BIGINT NOT NULL,
    sha256 TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    delete_time BIGINT,
    purge_time BIGINT,
    PRIMARY KEY (tenant_id, parent, id)
) WITHOUT ROWID;
CREATE INDEX files_by_create_time ON files (tenant_id, parent, create_time, id, delete_time);
CREATE INDEX files_by_display_name ON files (tenant_id, parent, display_name, id, delete_time);
CREATE INDEX files_by_content_type ON files (tenant_id, parent, content_type, create_time, id, delete_time);
-- The file holding a content key: the content ledger's sweep never removes it.
CREATE UNIQUE INDEX files_by_uid ON files (tenant_id, uid);
CREATE INDEX files_to_purge ON files (tenant_id, purge_time) WHERE purge_time IS NOT NULL;

-- Content to remove from its store at `due_time`: written for an upload (removed
-- unless the file's row settles it first), or left by a purged or erased file.
CREATE TABLE file_content_removals (
    tenant_id TEXT NOT NULL,
    file_uid TEXT NOT NULL,
    due_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, file_uid)
) WITHOUT ROWID;
CREATE INDEX file_content_removals_by_due_time ON file_content_removals (tenant_id, due_time);

-- The content of files in the database store, in chunks of at most 512 KiB: a read
-- holds one chunk in memory at a time.
CREATE TABLE file_contents (
    tenant_id TEXT NOT NULL,
    file_uid TEXT NOT NULL,
    chunk BIGINT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (tenant_id, file_uid, chunk)
) WITHOUT ROWID;

-- Fixed planner statistics for the new tables and indexes (see the first migration),
-- for the same ten tenants: 1,000,000 files, ten per entity, of some fifteen types,
-- twenty chunks each; few removals pending at any time.
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
    ('files', 'files', '1000000 100000 10 1'),
    ('files', 'files_by_create_time', '1000000 100000 10 1 1 1'),
    ('files', 'files_by_display_name', '1000000 100000 10 2 1 1'),
    ('files', 'files_by_content_type', '1000000 100000 10 3 1 1 1'),
    ('files', 'files_by_uid', '1000000 100000 1'),
    ('files', 'files_to_purge', '10000 1000 1'),
    ('file_content_removals', 'file_content_removals', '1000 100 1'),
    ('file_content_removals', 'file_content_removals_by_due_time', '1000 100 1'),
    ('file_contents', 'file_contents', '20000000 2000000 20 1');
