DELETE FROM sqlite_stat1 WHERE tbl IN ('screening_list_versions', 'screening_list_changes');
DROP TABLE screening_list_changes;
DROP TABLE screening_list_versions;
