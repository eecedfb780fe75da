-- Files, their content in the database store, and the ledger of content to remove. As
-- in the first migration: tenant_id leads every key and index, times are BIGINT
-- microseconds, compared text uses the "C" collation.

-- File metadata, keyed by the parent's name (`entities/{e}`) and the file id. `uid`
-- is the key of the file's content in its store. Files go with their entity's erasure,
-- which removes them explicitly (a file's create checks the entity row in its own
-- transaction).
CREATE TABLE files (
    tenant_id TEXT COLLATE "C" NOT NULL,
    parent TEXT COLLATE "C" NOT NULL,
    id TEXT COLLATE "C" NOT NULL,
    uid TEXT COLLATE "C" NOT NULL,
    revision BIGINT NOT NULL,
    display_name TEXT COLLATE "C" NOT NULL,
    content_type TEXT COLLATE "C" NOT NULL,
    size_bytes BIGINT NOT NULL,
    sha256 TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    delete_time BIGINT,
    purge_time BIGINT,
    PRIMARY KEY (tenant_id, parent, id)
);
CREATE INDEX files_by_create_time ON files (tenant_id, parent, create_time, id, delete_time);
CREATE INDEX files_by_display_name ON files (tenant_id, parent, display_name, id, delete_time);
CREATE INDEX files_by_content_type ON files (tenant_id, parent, content_type, create_time, id, delete_time);
-- The file holding a content key: the content ledger's sweep never removes it.
CREATE UNIQUE INDEX files_by_uid ON files (tenant_id, uid);
CREATE INDEX files_to_purge ON files (tenant_id, purge_time) WHERE purge_time IS NOT NULL;

-- Content to remove from its store at `due_time`: written for an upload (removed
-- unless the file's row settles it first), or left by a purged or erased file.
CREATE TABLE file_content_removals (
    tenant_id TEXT COLLATE "C" NOT NULL,
    file_uid TEXT COLLATE "C" NOT NULL,
    due_time BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, file_uid)
);
CREATE INDEX file_content_removals_by_due_time ON file_content_removals (tenant_id, due_time);

-- The content of files in the database store, in chunks of at most 512 KiB: a read
-- holds one chunk in memory at a time.
CREATE TABLE file_contents (
    tenant_id TEXT COLLATE "C" NOT NULL,
    file_uid TEXT COLLATE "C" NOT NULL,
    chunk BIGINT NOT NULL,
    data BYTEA NOT NULL,
    PRIMARY KEY (tenant_id, file_uid, chunk)
);
-- Uploads are mostly compressed already (PDF, JPEG, PNG, OOXML): store chunks out of
-- line without trying to compress them again.
ALTER TABLE file_contents ALTER COLUMN data SET STORAGE EXTERNAL;
