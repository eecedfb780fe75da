DELETE FROM sqlite_stat1 WHERE tbl IN ('files', 'file_content_removals', 'file_contents');
DROP TABLE file_contents;
DROP TABLE file_content_removals;
DROP TABLE files;
