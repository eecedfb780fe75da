DROP TABLE automation_executions;
