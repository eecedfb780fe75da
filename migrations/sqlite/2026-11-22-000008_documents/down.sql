DELETE FROM sqlite_stat1 WHERE tbl = 'documents';
DROP TABLE documents;
