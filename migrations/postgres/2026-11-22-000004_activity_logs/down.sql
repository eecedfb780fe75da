DROP TABLE activity_log_entities;
DROP TABLE activity_logs;
DROP TABLE activity_log_type_name_trigrams;
DROP TABLE activity_log_types;
