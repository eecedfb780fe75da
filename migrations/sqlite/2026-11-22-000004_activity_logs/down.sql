DELETE FROM sqlite_stat1 WHERE tbl IN ('activity_log_types', 'activity_log_type_name_trigrams',
    'activity_logs', 'activity_log_entities');
DROP TABLE activity_log_entities;
DROP TABLE activity_logs;
DROP TABLE activity_log_type_name_trigrams;
DROP TABLE activity_log_types;
