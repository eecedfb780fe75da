DROP TABLE screening_list_changes;
DROP TABLE screening_list_versions;
