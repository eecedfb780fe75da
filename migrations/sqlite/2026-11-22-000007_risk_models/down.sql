DELETE FROM sqlite_stat1 WHERE tbl = 'risk_models';
DROP TABLE risk_models;
