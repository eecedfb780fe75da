DELETE FROM sqlite_stat1 WHERE tbl = 'automation_executions';
DROP TABLE automation_executions;
